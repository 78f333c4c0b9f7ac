"""The operation waiter and the reconcile verdict, on the fake cloud's virtual clock.

Field reports C10 (an operation error is never success) and C11 (a deadline is never a
result; ``--timeout 0`` never means "forever"). No test sleeps real seconds.
"""

from __future__ import annotations

import itertools

import pytest

from ngupgrade.adapters.cloud.waiter import PollPolicy, wait_operation, wait_reconciled
from ngupgrade.core.errors import (
    EXIT_OPERATION_FAILED,
    EXIT_TIMEOUT,
    GroupNotRunning,
    OperationFailed,
    OperationTimeout,
    UsageError,
)
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, node_group

GID = "catgroup000000000001"


ONE_ZERO = DeployPolicy(1, 0)


def _fake(size=3, policy=ONE_ZERO, **scenario):
    return FakeCloud([node_group(GID, size=size, policy=policy)], scenario)


def test_c10_operation_error_is_reported_with_id_code_and_message():
    """C10: Update -> op-1; Get -> not done; Get -> done with error 9; status stays RUNNING."""
    with _fake(step_seconds=2, faults=[{"kind": "operation_error", "at_step": 1, "code": 9,
                        "message": "node version above master version"}]) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        assert ref.id == "op-1"
        with pytest.raises(OperationFailed) as exc:
            wait_reconciled(gw, GID, ref.id, timeout=3600, clock=fake.now, sleep=fake.sleep)
        err = exc.value
        assert (err.operation_id, err.code, err.code_name) == ("op-1", 9, "FAILED_PRECONDITION")
        assert err.exit_code == EXIT_OPERATION_FAILED
        assert str(err) == ("operation op-1 failed: FAILED_PRECONDITION (9): "
                            "node version above master version")
        group = gw.get_node_group(GID)
        assert (group.status, group.version) == ("RUNNING", "1.29")  # unchanged, not success
        # Get(op-1) -> done:false at 0 s, done:true with the error at 2 s
        assert [c.at for c in fake.calls_to("OperationService.Get")] == [0, 2]


def test_c11_deadline_is_a_timeout_with_resume_hint_never_a_result():
    """C11: the operation never finishes; a 600 s deadline ends in OperationTimeout (exit 6)."""
    with _fake(faults=[{"kind": "stall", "at_step": 0}]) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        start = fake.now()
        with pytest.raises(OperationTimeout) as exc:
            wait_operation(gw, ref.id, timeout=600, clock=fake.now, sleep=fake.sleep)
        assert fake.now() - start == pytest.approx(600)
        err = exc.value
        assert err.exit_code == EXIT_TIMEOUT and err.operation_id == "op-1"
        assert "op-1" in err.message and "still running after 10m" in err.message
        assert "ngupgrade wait --operation op-1" in (err.hint or "")
        # polls: 2 s growing to the 30 s cap, never the SDK's 1 s
        polls = fake.calls_to("OperationService.Get")
        gaps = [b.at - a.at for a, b in itertools.pairwise(polls)]
        assert gaps[:5] == [2, 4, 8, 16, 30] and max(gaps) == 30
        assert len(polls) == 24
        assert fake.operation("op-1").done is False  # nothing was cancelled


def test_c11_timeout_zero_means_look_once_never_wait_forever():
    with _fake(faults=[{"kind": "stall", "at_step": 0}]) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        slept: list[float] = []
        with pytest.raises(OperationTimeout, match=r"did not wait \(--timeout 0\)"):
            wait_operation(gw, ref.id, timeout=0, clock=fake.now, sleep=slept.append)
        assert slept == [] and len(fake.calls_to("OperationService.Get")) == 1
        with pytest.raises(UsageError):
            wait_operation(gw, ref.id, timeout=-1, clock=fake.now, sleep=fake.sleep)


def test_completion_is_noticed_within_one_poll_interval():
    # 3 nodes, 1/0: 9 steps x 200 s = 1800 s, a 30-minute operation
    with _fake(step_seconds=200) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        seen: list[float] = []
        state = wait_operation(gw, ref.id, timeout=7200, clock=fake.now, sleep=fake.sleep,
                               on_poll=lambda s, waited: seen.append(waited))
        assert state.done and fake.operation(ref.id).finished == 1800
        assert 1800 <= seen[-1] < 1800 + 30
        assert len(seen) <= 1800 // 20


def test_reconcile_waits_for_running_after_done_within_bounded_polls():
    with _fake(faults=[{"kind": "reconciling_after_done", "seconds": 25}]) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, policy=DeployPolicy(2, 0))
        group = wait_reconciled(gw, GID, ref.id, timeout=600, clock=fake.now, sleep=fake.sleep)
        assert group.status == "RUNNING" and group.policy == DeployPolicy(2, 0)
        statuses = [c for c in fake.calls_to("NodeGroupService.Get")]
        assert len(statuses) >= 3  # read RECONCILING after done, then RUNNING


def test_reconcile_gives_up_after_the_bounded_extra_polls():
    with _fake(faults=[{"kind": "reconciling_after_done", "seconds": 10_000}]) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, policy=DeployPolicy(2, 0))
        with pytest.raises(OperationTimeout, match=r"still RECONCILING .* after 3 extra checks"):
            wait_reconciled(gw, GID, ref.id, timeout=3600, clock=fake.now, sleep=fake.sleep,
                            policy=PollPolicy(settle_polls=3))
        # the policy Update read the group once; the verdict read it 1 + 3 times
        assert len(fake.calls_to("NodeGroupService.Get")) == 1 + 4


def test_status_still_running_right_after_update_is_not_read_as_done():
    with _fake(faults=[{"kind": "running_after_update", "seconds": 120}]) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        assert gw.get_node_group(GID).status == "RUNNING"  # the cloud has not caught up yet
        group = wait_reconciled(gw, GID, ref.id, timeout=3600, clock=fake.now, sleep=fake.sleep)
        assert group.version == "1.30"
        assert fake.operation(ref.id).finished == 9 * 60


@pytest.mark.parametrize("status", ["STOPPED", "DELETING"])
def test_broken_group_status_after_done_is_an_error(status):
    with FakeCloud([node_group(GID)], {"node_groups": {GID: {"status": status}}}) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, policy=DeployPolicy(2, 0))
        with pytest.raises(GroupNotRunning, match=f"node group {GID} is {status}") as exc:
            wait_reconciled(gw, GID, ref.id, timeout=600, clock=fake.now, sleep=fake.sleep)
        # the operation succeeded: exit 1 naming the status, never "operation failed" (exit 5)
        assert exc.value.exit_code == 1 and exc.value.operation_id == ref.id
        assert f"operation {ref.id} finished without error" in exc.value.message
        assert "failed" not in exc.value.message


def test_poll_policy_is_validated():
    with pytest.raises(ValueError):
        PollPolicy(initial=0)
    with pytest.raises(ValueError):
        PollPolicy(initial=60, cap=30)


def test_c15_no_progress_for_30_minutes_is_stalled_and_nothing_is_cancelled():
    """C15: size 3, 1/0; one new node at +10 min, then nothing; op-1 runs for 90 min."""
    from ngupgrade.adapters.cloud.waiter import Watchdog, node_progress
    from ngupgrade.core.errors import Stalled

    with _fake(step_seconds=600, faults=[{"kind": "stall", "at_step": 1}]) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        with pytest.raises(Stalled) as exc:
            wait_reconciled(gw, GID, ref.id, timeout=90 * 60, clock=fake.now, sleep=fake.sleep,
                            watchdog=Watchdog(node_progress(gw, GID), stall_seconds=1800))
        # last change seen at the first poll after +10 min; stalled 30 min later, < 1 poll late
        assert 600 + 1800 <= fake.now() < 600 + 30 + 1800 + 30
        assert exc.value.exit_code == EXIT_TIMEOUT
        assert "stalled: no progress for 30m" in exc.value.message
        assert "PodDisruptionBudget" in exc.value.message
        assert "ngupgrade wait --operation op-1" in (exc.value.hint or "")
        assert not fake.operation("op-1").done and fake.group(GID).nodes == 4


def test_watchdog_does_not_fire_while_nodes_keep_moving():
    from ngupgrade.adapters.cloud.waiter import Watchdog, node_progress

    with _fake(size=5, step_seconds=600) as fake:  # 15 steps x 10 min, each a change
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        group = wait_reconciled(gw, GID, ref.id, timeout=4 * 3600, clock=fake.now,
                                sleep=fake.sleep,
                                watchdog=Watchdog(node_progress(gw, GID), stall_seconds=1200))
        assert group.version == "1.30"
