"""During the upgrade (issue 13): progress that cannot lie, each node's drain, and the
watchdog's diagnosis by name; every fault driven through the fake cloud and the real SDK.

Times are the fake's virtual seconds: the version Update is sent at t=0 (no policy step),
one procedure step per ``step_seconds`` (60 here), polls at 2, 6, 14, 30, 60, 90, ... (2 s
doubling, capped at 30 s). The fake's time 0 is 2027-01-15 08:00:00 UTC (EPOCH 1.8e9).
"""

from __future__ import annotations

from pathlib import Path

from ngupgrade.core.errors import Stalled
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, Scenario, node_group
from tests._upgrade_helpers import example_cloud, run, version_updates


def _done_never_over_total(out: object) -> None:
    for p in out.of("progress"):  # type: ignore[attr-defined]
        assert p.done is None or 0 <= p.done <= p.total, p


def test_progress_counts_old_nodes_done_up_to_3_of_3(tmp_path: Path) -> None:
    """workers: 3 nodes at 1/0: create, drain, delete per cycle: done 0, 0, 1, 1, 1, 2, ..."""
    with example_cloud(step_seconds=60) as fake:
        out = run(fake, tmp_path / "j.json")
        assert out.code == 0, out.error
    _done_never_over_total(out)
    dones = [p.done for p in out.of("progress")]
    assert dones == sorted(dones) and dones[-1] in (2, 3)
    drains = out.of("drain")
    started = [d.node for d in drains if d.phase == "started"]
    assert started == ["workers-0000", "workers-0001", "workers-0002"]
    # the first drain starts at step 2 (t=120), seen by the poll at 120: 08:02 + 7 min
    assert drains[0].forced_stop_at == "08:09 UTC"
    (summary,) = out.of("drain_summary")
    assert [n["node"] for n in summary.nodes] == started
    assert not any(n["forced"] for n in summary.nodes)  # each drain lasts one 60 s step
    assert summary.workloads is None and summary.removed == []


def test_c19_autoscaler_deletes_a_new_node_progress_stays_within_5(tmp_path: Path) -> None:
    """C19: autoscaled 4..6, current 5, policy 1/0; the autoscaler deletes the new node of
    cycle 2 (created at step 4, t=240, seen Ready) right before step 5: the platform creates
    another, and the 5 old nodes still end replaced: done never above 5, never 7/5."""
    group = node_group("cat1ng0auto000000c19", name="pool", auto=(4, 6, 5),
                       policy=DeployPolicy(1, 0))
    scenario = Scenario.from_mapping({
        # the gate's preflight must check a quota (none listed: it checked nothing and fails)
        "clouds": {"b1gfakecloud000000001": {"quotas": {
            "compute.instances.count": {"limit": 100, "usage": 0}}}},
        "clusters": {"catq0n7i0h9ka1b2c3d4": {"master_version": "1.30"}},
        "faults": [{"kind": "autoscaler_delete", "at_step": 5}]})
    with FakeCloud([group], scenario).start() as fake:
        out = run(fake, tmp_path / "j.json", group="pool", groups=[group])
        assert out.code == 0, out.error
        assert version_updates(fake) == 1
        assert "autoscaler deleted cat1ng0auto0n0006 -> 5 nodes" in fake.operation("op-1").history
    _done_never_over_total(out)
    (removed,) = out.of("node_removed")
    assert (removed.node, removed.new) == ("pool-0006", True)
    assert out.of("verdict")[-1].ok and out.of("verdict")[-1].nodes == 5
    (summary,) = out.of("drain_summary")
    assert len(summary.nodes) == 5 and summary.removed[0]["node"] == "pool-0006"


def test_a_node_that_never_turns_ready_alarms_before_the_operation_ends(tmp_path: Path
                                                                         ) -> None:
    """The surge node of step 1 never turns Ready; step 2 (t=120) cordons an old node: 2
    Ready schedulable nodes < 3 - 0. Not Ready since the poll at 60 + 120 s grace: alarm at
    the poll of t=180, long before the operation's end at t=540."""
    faults = [{"kind": "node_not_ready", "at_step": 1}]
    with example_cloud(step_seconds=60, faults=faults) as fake:
        out = run(fake, tmp_path / "j.json", stall_after=3600)
        assert out.code == 6
        assert not fake.operation("op-1").done
        assert version_updates(fake) == 1
    assert isinstance(out.error, Stalled)
    (diag,) = out.of("diagnosis")
    assert diag.cause == "node-not-joining"
    assert "workers-0003 not Ready for 2m" in diag.message
    assert "fewer Ready nodes (2) than the deploy policy allows (3 = 3 - max_unavailable)" \
        in out.error.message
    assert out.of("progress")[-1].elapsed == 180


def test_volumes_left_on_a_stopped_node_are_named(tmp_path: Path) -> None:
    faults = [{"kind": "detach_stuck", "at_step": 2}]
    with example_cloud(step_seconds=60, faults=faults) as fake:
        out = run(fake, tmp_path / "j.json", stall_after=600)
        assert out.code == 6
    (diag,) = out.of("diagnosis")
    assert diag.cause == "detach-stuck"
    assert "workers-0000 (fhmxedn0000pv)" in diag.message


def test_a_drain_that_never_ends_names_the_node_and_its_forced_stop(tmp_path: Path) -> None:
    """Stall after step 2: workers-0000 cordoned at t=120 forever; from the cloud alone the
    pods are not visible, so the cause is the drain itself, with Yandex's stop at 08:09."""
    faults = [{"kind": "stall", "at_step": 2}]
    with example_cloud(step_seconds=60, faults=faults) as fake:
        out = run(fake, tmp_path / "j.json", stall_after=600)
        assert out.code == 6
    (diag,) = out.of("diagnosis")
    assert diag.cause == "drain-stuck"
    assert "workers-0000 cordoned for 10m" in diag.message
    assert "forced stop at 08:09 UTC" in diag.message
    assert "--kubeconfig" in diag.message
    (summary,) = out.of("drain_summary")
    assert summary.nodes == [{"node": "workers-0000", "seconds": 600.0, "forced": False,
                              "finished": False}]


def test_a_surge_node_never_created_names_the_tightest_quota(tmp_path: Path) -> None:
    """Nothing happens at all (stall before step 1) while the plan wants a surge node: the
    preflight's tightest row for one more workers node (4 cores, 16 GiB, NAT) is its spread
    placement group's: need 1 VM, headroom 5 - 3 = 2 (external addresses: 1 of 4, cores: 4 of
    74, instances: 1 of 26)."""
    faults = [{"kind": "stall", "at_step": 0}]
    with example_cloud(step_seconds=60, faults=faults) as fake:
        out = run(fake, tmp_path / "j.json", stall_after=600)
        assert out.code == 6
    (diag,) = out.of("diagnosis")
    assert diag.cause == "surge-not-created"
    assert ("compute.placementGroupInstances.count (placement group fd8examplespread0001) "
            "(needs 1 VM, headroom 2 VMs)") in diag.message
    assert out.of("drain_summary") == []
