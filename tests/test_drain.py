"""PodDisruptionBudgets that block the drain: field report C15's preflight part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ngupgrade.core.drain.blockers import drain_blockers, why_blocked
from ngupgrade.core.k8s import PodDisruptionBudget
from tests.conftest import EXAMPLE_STATE

QUOTAS = str(EXAMPLE_STATE.parent / "quotas.yaml")


def _pdb(ns: str, name: str, allowed: int, **spec: object) -> dict:
    status = {"disruptionsAllowed": allowed, "currentHealthy": 1, "desiredHealthy": 1,
              "expectedPods": 1}
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"namespace": ns, "name": name}, "spec": spec, "status": status}


C15_LIST = {"apiVersion": "v1", "kind": "List", "items": [
    _pdb("ns-b", "pdb-b", 1, maxUnavailable=1),
    _pdb("ns-a", "pdb-a", 0, minAvailable=1),   # a 1-replica app with minAvailable 1 (C15)
]}


def test_c15_blocker_is_the_pdb_allowing_zero_disruptions() -> None:
    pdbs = [PodDisruptionBudget("ns-a", "pdb-a", None, disruptions_allowed=0, min_available=1,
                                expected_pods=1),
            PodDisruptionBudget("ns-b", "pdb-b", None, disruptions_allowed=1, max_unavailable=1),
            PodDisruptionBudget("ns-c", "zero", None, disruptions_allowed=0, max_unavailable=0)]
    assert [p.ref for p in drain_blockers(pdbs)] == ["ns-a/pdb-a", "ns-c/zero"]
    assert why_blocked(pdbs[0]) == "minAvailable 1 equals the 1 expected pod(s)"
    assert why_blocked(pdbs[2]) == "maxUnavailable is 0"


@pytest.fixture
def pdbs_file(tmp_path: Path) -> str:
    path = tmp_path / "pdbs.json"
    path.write_text(json.dumps(C15_LIST))
    return str(path)


def test_preflight_warns_about_the_blocker(run_cli, pdbs_file: str) -> None:
    res = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS,
                  "-g", "workers", "--pdbs", pdbs_file, "-o", "json")
    assert res.exit_code == 0, res.stderr
    doc = res.json()
    assert doc["drain_blockers"] == [{"namespace": "ns-a", "name": "pdb-a",
                                      "disruptions_allowed": 0,
                                      "reason": "minAvailable 1 equals the 1 expected pod(s)"}]
    blocked = [w["message"] for w in doc["warnings"] if w["code"] == "pdb-blocks-drain"]
    assert len(blocked) == 1
    # workers is a Yandex group: the drain does not stop the upgrade, the node is stopped
    # after the 7-minute drain timeout (docs node-drain), as drain-check's forced-stop says
    assert blocked[0] == ("PodDisruptionBudget ns-a/pdb-a allows 0 disruptions (minAvailable 1 "
                          "equals the 1 expected pod(s)): on Yandex the node is stopped after "
                          "7 minutes of draining with its pods on it (they go down without "
                          "the budget's protection)")
    table = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS,
                    "-g", "workers", "--pdbs", pdbs_file)
    assert "  ns-a/pdb-a: minAvailable 1 equals the 1 expected pod(s)" in table.stdout


def test_the_blocked_drain_reaction_follows_the_platform() -> None:
    from ngupgrade.app.preflight import blocked_drain_reaction

    assert blocked_drain_reaction({"selectel"}) == (
        "on Selectel the upgrade stops (cluster ERROR) until the budget allows one")
    both = blocked_drain_reaction({"yandex", "selectel"})
    assert both.startswith("on Yandex the node is stopped after 7 minutes")
    assert both.endswith("; on Selectel the upgrade stops (cluster ERROR) until the budget "
                         "allows one")


def test_preflight_strict_fails_on_the_blocker(run_cli, pdbs_file: str) -> None:
    res = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS,
                  "-g", "workers", "--pdbs", pdbs_file, "--strict")
    assert res.exit_code == 1
    assert "PodDisruptionBudget ns-a/pdb-a allows 0 disruptions" in res.stderr


@pytest.mark.parametrize(("content", "needle"), [
    ("not json", "not JSON"),
    ('{"kind": "List"}', 'expected kubectl\'s list output with "items"'),
    ('{"items": [{"kind": "Pod", "metadata": {"name": "x"}}]}', "not a PodDisruptionBudget"),
    ('{"items": [{"metadata": {"name": "x"}, "status": {"disruptionsAllowed": -1}}]}',
     "disruptionsAllowed must be a count of pods"),
])
def test_bad_pdb_file_is_bad_input(run_cli, tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "pdbs.json"
    path.write_text(content)
    res = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS,
                  "-g", "workers", "--pdbs", str(path))
    assert res.exit_code == 3
    assert needle in res.stderr and str(path) in res.stderr
