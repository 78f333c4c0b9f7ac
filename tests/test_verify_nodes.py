"""The verdict covers the whole outcome: every node of the group Ready and schedulable at the
end. The example's workers (3 nodes at 1/0) on the fake cloud through the real SDK; the
``node_not_ready`` fault makes the node that the last surge step creates never turn Ready,
and the operation still ends without error (as the platform's does): the verdict said ok."""

from __future__ import annotations

from pathlib import Path

from ngupgrade.core.errors import CheckFailed
from tests._upgrade_helpers import example_cloud, run

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
