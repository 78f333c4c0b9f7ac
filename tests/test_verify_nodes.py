"""The verdict covers the whole outcome: every node of the group Ready and schedulable at the
end. The example's workers (3 nodes at 1/0) on the fake cloud through the real SDK; the
``node_not_ready`` fault makes the node that the last surge step creates never turn Ready,
and the operation still ends without error (as the platform's does): the verdict said ok."""

from __future__ import annotations

import json
from pathlib import Path

from ngupgrade.core.errors import CheckFailed
from tests._upgrade_helpers import cli, example_cloud, run

LAST_CREATE = 7
"""The step of the example's 1/0 upgrade (step_seconds 60) whose new node the fault keeps
NotReady without the wait's floor alarm firing first (the operation ends within its grace)."""


def test_a_node_not_ready_at_the_end_fails_the_verdict(tmp_path: Path) -> None:
    faults = [{"kind": "node_not_ready", "at_step": LAST_CREATE}]
    with example_cloud(step_seconds=60, faults=faults) as fake:
        out = run(fake, tmp_path / "j.json", stall_after=3600)
        assert fake.operation("op-1").done
        nodes = fake.gateway().list_nodes("cat1ng0fixed0000abcd")
        assert [n.status for n in nodes].count("NOT_READY") == 1
    assert out.code == 1, out.error
    assert isinstance(out.error, CheckFailed)
    (verdict,) = out.of("verdict")
    assert verdict.ok is False
    (problem,) = verdict.problems
    assert problem.startswith("1 node(s) not Ready and schedulable: ")
    assert "(not Ready)" in problem
    assert "did not verify" in out.error.message


def test_all_nodes_ready_verifies(tmp_path: Path) -> None:
    with example_cloud(step_seconds=60) as fake:
        out = run(fake, tmp_path / "j.json", stall_after=3600)
    assert out.code == 0, out.error
    (verdict,) = out.of("verdict")
    assert verdict.ok and verdict.problems == []


def test_a_pending_pod_that_outlives_the_upgrade_is_in_the_verdict(tmp_path: Path) -> None:
    """With kube access (a fake Kubernetes API on loopback, the real client): shop/web had a
    pod on a drained node, and its other pod is still Pending (0/3 nodes are available) when
    the operation ends: the verdict names it and fails; jobs/batch's Pending pod is not this
    upgrade's doing and is left out. The verdict said ok."""
    from ngupgrade.testing.kube_api import FakeKubeApi
    from tests.test_upgrade_pods import ACCEPT, _cluster, _hash

    web_pending = f"shop/web-{_hash('web')}-1"
    with FakeKubeApi(_cluster(api_pdb_allows=1)) as kube, \
            example_cloud(step_seconds=60) as fake:
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        out = run(fake, tmp_path / "j.json", stall_after=3600, kubeconfig=kubeconfig,
                  accept=ACCEPT)
        assert fake.operation("op-1").done
    assert out.code == 1, out.error
    (verdict,) = out.of("verdict")
    assert verdict.ok is False
    (problem,) = verdict.problems
    assert problem == (f"1 pod(s) of workloads the drains evicted still Pending: {web_pending} "
                       "(0/3 nodes are available: 3 Insufficient cpu.)")


def test_the_failed_verdicts_error_event_names_the_operation(tmp_path: Path, monkeypatch,
                                                              capsys) -> None:
    # Before: the error event (exit 1) had "operation_id": null though the verdict named op-1
    faults = [{"kind": "node_not_ready", "at_step": LAST_CREATE}]
    with example_cloud(step_seconds=60, faults=faults) as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--apply", "--stall-after", "60m", "-o", "json",
                             "--journal", str(tmp_path / "j.json"))
    assert code == 1, err
    events = [json.loads(line) for line in out.splitlines()]
    (verdict,) = [e for e in events if e["event"] == "verdict"]
    assert (verdict["ok"], verdict["operation_id"]) == (False, "op-1")
    error = events[-1]
    assert error["event"] == "error"
    assert error["operation_id"] == error["error"]["operation_id"] == "op-1"
