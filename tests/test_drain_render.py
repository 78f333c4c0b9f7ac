"""The drain check's table, JSON and JUnit XML (cli/render/drain.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from ngupgrade.cli.render.drain import drain_json, drain_text
from ngupgrade.cli.render.junit import drain_junit
from ngupgrade.core.drain.check import DrainReport, check_group
from tests.drain_builders import cluster, deployment, group, node, plan, pod

FINDING_KEYS = {"code", "severity", "wave", "every_order", "pod", "pdb", "node", "message"}


def _report() -> DrainReport:
    # Seed 001's 5 nodes at 0/2 with 900m pods (see test_drain_check): wave 1 leaves
    # default/p-n2-0..2 without a place; plus a bare pod on n5 (lost: blocking).
    g = group(policy=(0, 2))
    pods = [pod(f"p-n{i}-{j}", f"n{i}", cpu=900) for i in range(1, 6) for j in range(3)]
    pods.append(pod("bare", "n5", owner=None, cpu=0))
    snap = cluster([node(f"n{i}") for i in range(1, 6)], pods, workloads=deployment("web", 15))
    return DrainReport((check_group(g, plan(g, 5), snap),))


def test_json_has_the_stable_keys_and_exact_values() -> None:
    doc = json.loads(json.dumps(drain_json(_report())))
    assert doc["ok"] is False
    (grp,) = doc["groups"]
    assert grp["address"] == "yandex_kubernetes_node_group.workers"
    assert grp["policy"] == {"max_expansion": 0, "max_unavailable": 2}
    assert grp["orders"] == {"evaluated": 30, "exhaustive": True}
    assert grp["rules"]["nodes_at_once"] == "wave"
    assert grp["rules"]["drain_timeout_seconds"] == 420
    first = grp["waves"][0]
    assert first["nodes"] == ["n1", "n2"] and first["pods_evicted"] == 6
    assert first["unplaced"] == ["default/p-n2-0", "default/p-n2-1", "default/p-n2-2"]
    assert all(set(f) >= FINDING_KEYS for f in grp["findings"])
    bare = [f for f in grp["findings"] if f["code"] == "bare-pod-lost"]
    assert bare == [{**bare[0], "severity": "blocking", "pod": "default/bare", "node": "n5",
                     "every_order": True, "pdb": None}]


def test_table_names_wave_pod_and_node() -> None:
    text = drain_text(_report())
    assert "yandex_kubernetes_node_group.workers  policy 0/2  BLOCKED (3 blocking" in text
    assert "rules: yandex: a wave's nodes drain together; a node is stopped after 420 s" in text
    assert "30 orders of its 5 nodes evaluated (all of them)" in text
    rows = [line.split() for line in text.splitlines() if line.startswith("  1 ")]
    assert rows == [["1", "n1,", "n2", "0", "6", "0", "3", "0"]]  # nothing blocked
    assert "BLOCKING pods-do-not-fit  wave 1  pod default/p-n2-0  node n2  every order" in text
    assert text.rstrip().endswith("BLOCKED: a wave means downtime or data loss")


def test_junit_fails_the_blocking_findings_only() -> None:
    root = ET.fromstring(drain_junit(_report()))
    cases = root.findall(".//testcase")
    failed = sorted(c.get("name", "") for c in cases if c.find("failure") is not None)
    # The worst order (n1, n2 | n3, n4 | n5): the bare pod on n5 goes in wave 3.
    assert failed == ["bare-pod-lost default/bare (wave 3)",
                      "pods-do-not-fit Deployment default/web (wave 1)",
                      "pods-do-not-fit Deployment default/web (wave 2)", "verdict"]
    assert len(cases) == 1 + len(_report().groups[0].findings)


def test_junit_is_xml_whatever_the_names_hold() -> None:
    # A pod name from a dump may hold characters XML 1.0 forbids (U+FFFE, U+FFFF, C0
    # controls): junit_xml alone writes them as character references no parser takes.
    g = group(policy=(0, 2))
    bare = pod("bare\ufffe\x01\uffff", "n1", owner=None, cpu=0)
    snap = cluster([node("n1"), node("n2")], [bare])
    xml = drain_junit(DrainReport((check_group(g, plan(g, 2), snap),)))
    root = ET.fromstring(xml.encode("utf-8"))
    names = [c.get("name") for c in root.findall(".//testcase")]
    assert "bare-pod-lost default/bare\ufffd\ufffd\ufffd (wave 1)" in names


def test_the_error_document_writes_a_lone_surrogate_as_its_escape() -> None:
    from ngupgrade.cli.render.junit import error_junit

    xml = error_junit("preflight", "bad-input", 3, "no such file: st\udcffate.json",
                      hint="check \ufffe the path")
    (error,) = ET.fromstring(xml.encode("utf-8")).findall(".//error")
    assert error.get("message") == "no such file: st\\udcffate.json"
    assert error.get("type") == "bad-input"
    assert error.text == ("exit code 3: no such file: st\\udcffate.json\n"
                          "hint: check \ufffd the path")
