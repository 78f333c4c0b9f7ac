""""Removed with no drain seen" is said only of a node this upgrade created (field report
C19: the cluster autoscaler deleting a new node), never of an old node the upgrade itself
replaced between two polls: at 3/0 on a 3-node group the platform creates 3 nodes, then
drains and deletes the 3 old ones in one step, faster than the poll interval, so no cordon
is seen; that is the upgrade doing its work, not news (fake cloud through the real SDK)."""

from __future__ import annotations

from pathlib import Path

from tests._upgrade_helpers import example_cloud, run


def test_old_nodes_replaced_between_two_polls_are_not_removed_unexpectedly(tmp_path: Path
                                                                           ) -> None:
    # 20-second steps: the drain and the delete of the old nodes fall between two polls; 2/0,
    # the most surge workers' spread placement group (5 VMs, 3 nodes) holds
    with example_cloud(step_seconds=20) as fake:
        out = run(fake, tmp_path / "j.json", max_expansion=2, max_unavailable=0)
    assert out.code == 0, out.error
    assert out.of("node_removed") == []                   # was: one per old node, 3 in all
    (verdict,) = out.of("verdict")
    assert verdict.ok and verdict.nodes == 3              # type: ignore[attr-defined]
    done = [e.done for e in out.of("progress")]           # type: ignore[attr-defined]
    assert done == sorted(done) and max(done) <= 3


def test_a_new_node_the_autoscaler_deletes_is_still_named(tmp_path: Path) -> None:
    faults = [{"kind": "autoscaler_delete", "at_step": 3}]
    with example_cloud(faults=faults) as fake:
        out = run(fake, tmp_path / "j.json")
    removed = out.of("node_removed")
    assert len(removed) == 1 and removed[0].new           # type: ignore[attr-defined]
