"""Waiting for a version update with progress: nodes on the new version out of the total
(``ListNodes``: instances that were not there at the start, and old ones drained and back),
the cycle estimate from the plan's timeline, elapsed against expected, and the stall watchdog
(C15). The cloud operation is never cancelled: a stall or a deadline raises, resumable."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ngupgrade.adapters.cloud.types import LiveNode, OperationState
from ngupgrade.adapters.cloud.waiter import wait_operation
from ngupgrade.core.errors import OperationFailed, OperationTimeout, Stalled
from ngupgrade.core.policy import policy_text
from ngupgrade.core.stall import StallWatchdog
from ngupgrade.core.units import human_seconds
from ngupgrade.upgrade.events import Progress, Verdict
from ngupgrade.upgrade.rules import PDB_HINT, cycle_estimate
from ngupgrade.upgrade.values import GroupResult, Prepared

if TYPE_CHECKING:
    from ngupgrade.upgrade.steps import Context


class NodeCounter:
    """Counts nodes on the new version: instances created since the start, and old ones that
    were cordoned for a drain and are schedulable again (updated in place).

    ``start_ids`` empty (resumed from the cloud's record mid-upgrade): unknown, None.
    """

    def __init__(self, start_ids: Sequence[str]) -> None:
        self.start_ids = set(start_ids)
        self.drained: set[str] = set()

    def count(self, nodes: Sequence[LiveNode]) -> int | None:
        """Nodes on the new version in this reading, or None when it cannot be told."""
        if not self.start_ids:
            return None
        new = 0
        for n in nodes:
            cordoned = n.unschedulable
            if cordoned:
                self.drained.add(n.instance_id)
            if n.instance_id not in self.start_ids or (n.instance_id in self.drained
                                                       and not cordoned):
                new += 1
        return new


def wait_with_progress(ctx: Context, prep: Prepared, op_id: str, result: GroupResult) -> None:
    """Wait for a version operation with ``progress`` events and the stall watchdog.

    Raises:
        OperationFailed: the operation ended in error (C10); the message names the group's
            version and how many nodes had been replaced; a ``verdict`` event is sent first.
        Stalled: nothing moved for ``options.stall_after`` seconds (C15), not cancelled.
        OperationTimeout: the deadline passed while the operation still runs.
    """
    api, clock = ctx.api, ctx.timing.clock
    addr = prep.address
    gid = prep.group.id
    j = prep.journal
    counter = NodeCounter(j.start_node_ids)
    total = j.start_nodes
    expected = (prep.plan.duration.min_minutes * 60, prep.plan.duration.max_minutes * 60)
    started = clock()
    watchdog = StallWatchdog(ctx.options.stall_after, started)
    last: dict[str, Any] = {}
    position = [0]

    def on_poll(state: OperationState, waited: float) -> None:
        if state.done:
            return
        group = api.get_node_group(gid)
        nodes = api.list_nodes(gid)
        new = counter.count(nodes)
        cordoned = sum(1 for n in nodes if n.unschedulable)
        now = clock()
        last.update(new_nodes=new, nodes=len(nodes), status=group.status)
        if new is not None and (new or len(nodes) != total):
            position[0], cycle = cycle_estimate(prep.plan.timeline, new, len(nodes),
                                                position[0])
        else:
            cycle = prep.plan.timeline[position[0]].wave if prep.plan.timeline else 1
        ctx.emit(Progress(group=addr, operation_id=op_id, new_nodes=new, total=total,
                 nodes=len(nodes), status=group.status, cycle=cycle,
                 cycles=prep.plan.cycles.max, elapsed=now - started,
                 expected={"min": expected[0], "max": expected[1]}))
        watchdog.observe((new, group.status, len(nodes), cordoned), now)
        if watchdog.stalled(now):
            shown = "?" if new is None else str(new)
            raise Stalled(
                f"{addr}: stalled: no progress for {human_seconds(watchdog.still_for(now))} "
                f"({shown}/{total} nodes on the new version, {len(nodes)} nodes, "
                f"{group.status}); drain likely blocked by a PodDisruptionBudget. "
                f"Operation {op_id} still runs and was NOT cancelled",
                operation_id=op_id,
                hint=f"{PDB_HINT} Then attach again: the same command with --resume")

    try:
        wait_operation(api, op_id, timeout=ctx.timeout(prep), policy=ctx.timing.poll,
                       clock=clock, sleep=ctx.timing.sleep, on_poll=on_poll)
    except OperationFailed as err:
        live = api.get_node_group(gid)
        nodes = api.list_nodes(gid)
        new = counter.count(nodes)
        unchanged = live.version == j.start_version
        state = (f"the node group's version is unchanged: {live.version} "
                 "(version_info.current_version)" if unchanged
                 else f"the node group reports version {live.version}")
        replaced = "" if new is None else f"; {new} of {total} nodes had been replaced"
        policy_note = ""
        if prep.override is not None:
            policy_note = (f"; the deploy policy is still {policy_text(prep.override)} "
                           f"(Terraform declares {policy_text(j.terraform_policy)})")
        ctx.emit(Verdict(group=addr, ok=False, operation_id=err.operation_id,
                 error={"code": err.code, "code_name": err.code_name,
                        "message": err.error_message},
                 version=live.version, version_unchanged=unchanged, status=live.status,
                 nodes=len(nodes)))
        raise OperationFailed(
            err.operation_id, err.code, err.code_name,
            f"{err.error_message}; {state}{replaced}{policy_note}",
            hint="nothing was rolled back; fix the cause (see the operation's message), "
                 "then run the same command again") from err
    except OperationTimeout as err:
        if isinstance(err, Stalled):
            raise
        raise OperationTimeout(
            f"{addr}: {err.message}; last seen "
            f"{last.get('new_nodes', '?')}/{total} nodes on the new version",
            operation_id=op_id,
            hint="nothing was cancelled; the operation still runs. Attach again with the "
                 "same command and --resume (add a longer --timeout)") from err
