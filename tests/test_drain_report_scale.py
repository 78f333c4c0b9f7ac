"""The drain report stays readable at scale: a 50-node group at 0/10 whose every node holds a
pod of one Deployment under a PDB that allows no eviction (``minAvailable`` = its replicas),
and is full (each node's pod requests 3800 m of its 4000 m). Every node ends in a forced stop:
50 ``forced-stop`` findings of one PDB. The text report writes them as one entry with the
count and the first examples, the wave table names each wave's ten nodes as a run and a count;
``--verbose`` and JSON keep each finding."""

from __future__ import annotations

from drain_builders import cluster, deployment, group, node, pdb, plan, pod

from ngupgrade.cli.render.drain import drain_json, group_drain_text, node_spans
from ngupgrade.core.drain.check import check_group, check_groups

NODES = [f"workers-{i:04d}" for i in range(50)]


def _report():  # type: ignore[no-untyped-def]
    g = group(size=50, policy=(0, 10))
    pods = [pod(f"db-{i:04d}", name, cpu=3800, app="db", owner=("ReplicaSet", "db-rs"))
            for i, name in enumerate(NODES)]
    snap = cluster([node(n) for n in NODES], pods, workloads=deployment("db", 50),
                   pdbs=(pdb("db", "db", min_available=50),))
    return g, plan(g, 50), snap


def test_fifty_forced_stops_are_one_entry_and_each_wave_a_run() -> None:
    g, p, snap = _report()
    report = check_group(g, p, snap)
    forced = [f for f in report.findings if f.code == "forced-stop"]
    assert len(forced) == 50
    text = group_drain_text(report)
    assert text.count("BLOCKING forced-stop") == 1
    assert "BLOCKING forced-stop  50 findings  waves 1..5  pdb default/db  nodes " \
           "workers-0000..0049 (50)  in every order evaluated (a sample of 2)" in text
    assert "and 47 more (--verbose or -o json lists each)" in text
    rows = [line for line in text.splitlines() if line.startswith("  1 ")]
    assert rows and "workers-0000..0009 (10)" in rows[0]
    assert "forced down" in text and "  10  " in rows[0]     # the column of the forced stops
    verbose = group_drain_text(report, verbose=True)
    assert verbose.count("BLOCKING forced-stop") == 50
    doc = drain_json(check_groups([(g, p)], snap))
    assert sum(f["code"] == "forced-stop" for f in doc["groups"][0]["findings"]) == 50


def test_node_spans() -> None:
    assert node_spans(()) == "-"
    assert node_spans(("b", "a")) == "b, a"                # a few: each, as the wave has them
    assert node_spans(("workers-0011", "workers-0010", "workers-0013", "workers-0012")) == \
        "workers-0010..0013 (4)"
    assert node_spans(("w-1", "w-3", "w-4", "x-9")) == "w-1, w-3..4, x-9 (4)"
    assert node_spans(("cl1-ahyg", "cl1-ekov", "cl1-uzip", "cl1-abcd")) == \
        "cl1-abcd, cl1-ahyg, cl1-ekov, ... (4)"
