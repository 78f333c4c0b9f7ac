"""Use case ``wait``: attach to a running operation (by id, or the group's latest unfinished one)
and wait for the verdict. Never sends a mutation; never cancels anything (yandex-cloud/python-sdk
``_operation_waiter.py``, terraform-google-modules/terraform-google-kubernetes-engine#939)."""

from __future__ import annotations

from dataclasses import dataclass

from ngupgrade.adapters.cloud.gateway import CloudGateway
from ngupgrade.adapters.cloud.types import (
    BROKEN_STATUSES,
    LiveNodeGroup,
    OperationState,
    newest,
)
from ngupgrade.adapters.cloud.waiter import (
    OnPoll,
    Watchdog,
    node_progress,
    wait_operation,
    wait_reconciled,
)
from ngupgrade.app.timing import Timing
from ngupgrade.core.errors import CheckFailed, OperationFailed, OperationTimeout, UsageError


@dataclass(frozen=True)
class WaitTarget:
    """What to wait for: ``operation`` None means the group has nothing running; then
    ``latest`` is the group's most recent finished operation (None: it has none)."""

    operation: OperationState | None
    node_group_id: str | None
    latest: OperationState | None = None


@dataclass(frozen=True)
class WaitVerdict:
    """The end of a wait: the finished operation (None if nothing ran) and the group, if known."""

    operation: OperationState | None
    group: LiveNodeGroup | None


def find_target(gw: CloudGateway, *, node_group_id: str | None, operation_id: str | None
                ) -> WaitTarget:
    """Resolve ``--operation`` or ``--group`` to an operation (ListOperations, done=false).

    Raises UsageError when neither or both are given, CloudApiError on API failures.
    """
    if bool(node_group_id) == bool(operation_id):
        raise UsageError("give exactly one of --group or --operation")
    if operation_id:
        op = gw.get_operation(operation_id)
        return WaitTarget(op, op.node_group_id)
    assert node_group_id is not None
    ops = gw.list_operations(node_group_id)
    running = newest(op for op in ops if not op.done)
    if running is not None:
        return WaitTarget(running, node_group_id)
    # Nothing runs: the answer is how the last one ended ("nothing unfinished"
    # after a failed upgrade would be a false success).
    return WaitTarget(None, node_group_id, latest=newest(ops))


def wait_for(gw: CloudGateway, target: WaitTarget, *, timing: Timing, timeout: float,
             on_poll: OnPoll | None = None, stall_seconds: float = 0.0) -> WaitVerdict:
    """Wait for the operation and, when the group is known, for the reconcile verdict.

    ``stall_seconds`` > 0 (and a known group) watches the group's nodes and gives up as
    Stalled when they do not change for that long (aws/containers-roadmap#1282); 0 turns the
    watchdog off.

    Raises OperationFailed (exit 5), OperationTimeout or Stalled (exit 6), CloudApiError (4).
    """
    t = timing
    if target.operation is None:
        group = gw.get_node_group(target.node_group_id) if target.node_group_id else None
        if group is not None:
            _judge_latest(group, target.latest)
            _judge_idle(group)
        return WaitVerdict(target.latest, group)
    op_id = target.operation.id
    if target.node_group_id:
        watchdog = Watchdog(node_progress(gw, target.node_group_id), stall_seconds) \
            if stall_seconds > 0 else None
        group = wait_reconciled(gw, target.node_group_id, op_id, timeout=timeout,
                                policy=t.poll, clock=t.clock, sleep=t.sleep, on_poll=on_poll,
                                watchdog=watchdog)
        return WaitVerdict(gw.get_operation(op_id), group)
    state = wait_operation(gw, op_id, timeout=timeout, policy=t.poll, clock=t.clock,
                           sleep=t.sleep, on_poll=on_poll)
    return WaitVerdict(state, None)


def _judge_latest(group: LiveNodeGroup, latest: OperationState | None) -> None:
    """The group's latest operation failed: that is the outcome, whatever the status says.

    Raises:
        OperationFailed: exit 5, with the operation's code and message, and the group's
            status and version (hashicorp/terraform#15601: RUNNING is not success).
    """
    if latest is None or not latest.failed:
        return
    raise OperationFailed(
        latest.id, latest.error_code or 0, latest.error_code_name or str(latest.error_code),
        f"{latest.error_message or ''}; it is the latest operation on node group {group.id}, "
        f"nothing runs now; the group is {group.status} on {group.version}",
        hint="fix the cause (see the operation's message), then run the change again")


def _judge_idle(group: LiveNodeGroup) -> None:
    """Nothing runs on the group: only RUNNING is a success (the same verdict as after an
    operation, :func:`~ngupgrade.adapters.cloud.waiter.wait_reconciled`).

    Raises:
        CheckFailed: the group is STOPPING, STOPPED or DELETING (exit 1: nothing to wait for).
        OperationTimeout: it is still changing (RECONCILING, PROVISIONING...) with no
            operation listed yet (exit 6: look again).
    """
    if group.status == "RUNNING":
        return
    if group.status in BROKEN_STATUSES:
        raise CheckFailed(f"node group {group.id} is {group.status}, and no operation runs on it",
                          hint="nothing will bring it back to RUNNING by waiting; see the "
                               "group's events in the console")
    raise OperationTimeout(
        f"node group {group.id} is {group.status}, but no unfinished operation is listed",
        hint=f"look again in a minute: `ngupgrade wait --group {group.id}`")
