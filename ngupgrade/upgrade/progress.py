"""Waiting for a version update with progress: old nodes done (gone, or updated in place and
Ready) out of the nodes at the start, never above 100 % (Azure/AKS#5340), nodes on the new
version, the cycle estimate from the plan's timeline, elapsed against expected, each node's
drain, and the stall watchdog (aws/containers-roadmap#1282) with a diagnosis by name
(:mod:`ngupgrade.upgrade.watch`). The cloud operation is never cancelled: a stall or a deadline
raises, resumable."""

from __future__ import annotations

from typing import Any

from ngupgrade.adapters.cloud.types import OperationState
from ngupgrade.adapters.cloud.waiter import wait_operation
from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import OperationFailed, OperationTimeout, Stalled
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import policy_text
from ngupgrade.core.rollout import RolloutTracker
from ngupgrade.core.stall import StallWatchdog
from ngupgrade.core.units import counted, human_seconds
from ngupgrade.upgrade.context import Context, Prepared
from ngupgrade.upgrade.events import Diagnosed, Progress, Verdict, Warned
from ngupgrade.upgrade.rules import PDB_HINT, cycle_estimate
from ngupgrade.upgrade.values import GroupResult
from ngupgrade.upgrade.watch import RolloutWatch


def wait_with_progress(ctx: Context, prep: Prepared, op_id: str, result: GroupResult) -> float:
    """Wait for a version operation with ``progress`` events and the stall watchdog; return
    when the operation began on ``ctx.timing.clock`` (a resumed wait: its ``created_at``, so
    that progress, the step's seconds and the summary continue from the operation's start,
    not from the attach; otherwise when the wait began).

    Raises:
        OperationFailed: the operation ended in error (hashicorp/terraform#15601); the message
            names the group's version and how many nodes had been replaced; a ``verdict``
            event is sent first.
        Stalled: nothing moved for ``options.stall_after`` seconds
            (aws/containers-roadmap#1282), not cancelled.
        OperationTimeout: the deadline passed while the operation still runs.
    """
    api, clock = ctx.api, ctx.timing.clock
    addr = prep.address
    gid = prep.group.id
    j = prep.journal
    total = j.start_nodes
    expected = (prep.plan.duration.min_minutes * 60, prep.plan.duration.max_minutes * 60)
    started = clock()
    watchdog = StallWatchdog(ctx.options.stall_after, started)
    tracker, watch = _rollout_watch(ctx, prep)
    last: dict[str, Any] = {}
    position = [0]

    def began() -> float:
        return watch.clock0 if prep.resumed and watch.wall0 is not None else started

    def on_poll(state: OperationState, waited: float) -> None:
        if state.done:
            return
        now = clock()
        if not prep.resumed:  # the Update was sent at `started`
            watch.anchor(state.created_at, started)
        else:  # a resumed op began earlier: by its age on the run's wall clock
            watch.anchor(state.created_at, now, wall_now=ctx.timing.wall(),
                         since_wall=_step_start(j), scale=ctx.timing.scale)
        group = api.get_node_group(gid)
        nodes = api.list_nodes(gid)
        watch.observe(nodes, now)
        j.record_done(tracker.done_ids)
        new = (sum(1 for n in nodes if n.instance_id not in tracker.start_ids
                   or n.instance_id in tracker.updated) if tracker.start_ids else None)
        cordoned = sum(1 for n in nodes if n.unschedulable)
        last.update(new_nodes=new, nodes=len(nodes), status=group.status, done=tracker.done)
        if new is not None and (new or len(nodes) != total):
            position[0], cycle = cycle_estimate(prep.plan.timeline, new, len(nodes),
                                                position[0])
        else:
            cycle = prep.plan.timeline[position[0]].wave if prep.plan.timeline else 1
        ctx.emit(Progress(group=addr, operation_id=op_id, new_nodes=new, total=total,
                 nodes=len(nodes), status=group.status, cycle=cycle,
                 cycles=prep.plan.cycles.max, elapsed=now - began(),
                 expected={"min": expected[0], "max": expected[1]}, done=tracker.done,
                 cordoned=cordoned, ready=tracker.ready_schedulable(),
                 virtual_clock=ctx.timing.virtual))
        watchdog.observe((new, group.status, len(nodes), cordoned,
                          tuple(sorted(n.instance_id for n in nodes if n.unschedulable))), now)
        alarm = watch.alarm(now)
        if watchdog.stalled(now) or alarm:
            raise _stalled(ctx, prep, op_id, watch, watchdog, now, alarm=alarm,
                           seen=f"{len(nodes)} nodes, {group.status}")

    try:
        wait_operation(api, op_id, timeout=ctx.timeout(prep), policy=ctx.timing.poll,
                       clock=clock, sleep=ctx.timing.sleep, on_poll=on_poll)
    except OperationFailed as err:
        raise _failed(ctx, prep, err, watch) from err
    except OperationTimeout as err:
        _summary(watch, clock())
        if isinstance(err, Stalled):
            raise
        raise OperationTimeout(
            f"{addr}: {err.message}; last seen "
            f"{last.get('done', '?')}/{total} nodes done",
            operation_id=op_id,
            hint="nothing was cancelled; the operation still runs. Attach again with the "
                 "same command and --resume (add a longer --timeout)") from err
    nodes = api.list_nodes(gid)
    watch.observe(nodes, clock())
    _summary(watch, clock())
    return began()


def _step_start(j: jr.Journal) -> float | None:
    """When the journal's version step started (wall seconds, epoch), if it says."""
    rec = j.step(jr.STEP_VERSION)
    return None if rec is None else jr.iso_seconds(rec.started_at)


def _rollout_watch(ctx: Context, prep: Prepared) -> tuple[RolloutTracker, RolloutWatch]:
    """What the wait watches: the rollout from the journal's start (its nodes, the deploy
    policy's floor, the platform's drain timeout) and, with Kubernetes access, the drains'
    pods (a read that keeps failing is one ``kube-watch-degraded`` warning)."""
    j, addr = prep.journal, prep.address
    tracker = RolloutTracker.start(j.start_node_ids, j.start_nodes,
                                   prep.plan.effective.max_unavailable,
                                   platform_of(prep.group).drain.drain_timeout_seconds,
                                   done=j.done_node_ids)
    pods = None
    if ctx.kube is not None:
        from ngupgrade.upgrade.pods import KubePodWatch

        def warn(text: str) -> None:
            ctx.emit(Warned(group=addr, code="kube-watch-degraded", message=text))

        pods = prep.pod_watch = KubePodWatch(ctx.kube, sleep=ctx.timing.sleep, warn=warn)
    watch = RolloutWatch(tracker, ctx.emit, addr, surge=prep.plan.effective.max_expansion,
                         tight_quota=prep.tight_quota, pods=pods, virtual=ctx.timing.virtual)
    return tracker, watch


def _stalled(ctx: Context, prep: Prepared, op_id: str, watch: RolloutWatch,
             watchdog: StallWatchdog, now: float, *, alarm: bool, seen: str) -> Stalled:
    """The stall (nothing moved for the stall window, or fewer Ready nodes than the policy
    allows: ``alarm``), diagnosed by name: a ``diagnosed`` event, then the error to raise
    (``seen``: the nodes and status last read). The operation is not cancelled."""
    tracker, total, addr = watch.tracker, prep.journal.start_nodes, prep.address
    done = "?" if tracker.done is None else str(tracker.done)
    diagnosis = watch.diagnosis(now, watchdog.still_for(now), total)
    ctx.emit(Diagnosed(group=addr, operation_id=op_id, cause=diagnosis.cause,
                       message=diagnosis.message))
    what = (f"fewer Ready nodes ({tracker.ready_schedulable()}) than the deploy policy "
            f"allows ({tracker.floor} = {total} - max_unavailable)" if alarm
            else f"no progress for {human_seconds(watchdog.still_for(now))}")
    return Stalled(
        f"{addr}: stalled: {what} ({done}/{total} nodes done, {seen}); "
        f"{diagnosis.cause}: {diagnosis.message}. "
        f"Operation {op_id} still runs and was NOT cancelled",
        operation_id=op_id,
        hint=f"{_hint(diagnosis.cause)} Then attach again: the same command with --resume")


def _failed(ctx: Context, prep: Prepared, err: OperationFailed, watch: RolloutWatch
            ) -> OperationFailed:
    """The operation ended in error: read the group once more, send the ``verdict`` event,
    and the error to raise, naming the group's version, how many nodes had been replaced and
    a deploy policy left in place."""
    api, clock, j = ctx.api, ctx.timing.clock, prep.journal
    live = api.get_node_group(prep.group.id)
    nodes = api.list_nodes(prep.group.id)
    watch.observe(nodes, clock())
    new = watch.tracker.done
    unchanged = live.version == j.start_version
    state = (f"the node group's version is unchanged: {live.version} "
             "(version_info.current_version)" if unchanged
             else f"the node group reports version {live.version}")
    replaced = ("" if new is None
                else f"; {new} of {counted(j.start_nodes, 'node')} had been replaced")
    _summary(watch, clock())
    policy_note = ""
    if prep.override is not None:
        policy_note = (f"; the deploy policy is still {policy_text(prep.override)} "
                       f"(Terraform declares {policy_text(j.terraform_policy)})")
    ctx.emit(Verdict(group=prep.address, ok=False, operation_id=err.operation_id,
             error={"code": err.code, "code_name": err.code_name,
                    "message": err.error_message},
             version=live.version, version_unchanged=unchanged, status=live.status,
             nodes=len(nodes)))
    return OperationFailed(
        err.operation_id, err.code, err.code_name,
        f"{err.error_message}; {state}{replaced}{policy_note}",
        hint="nothing was rolled back; fix the cause (see the operation's message), "
             "then run the same command again")


def _summary(watch: RolloutWatch, now: float) -> None:
    summary = watch.summary(now)
    if summary is not None:
        watch.emit(summary)


HINTS = {
    "pdb-blocked": "allow one eviction: scale the workload up or relax its PodDisruptionBudget "
                   "(`kubectl get pdb -A`, ALLOWED DISRUPTIONS 0); Yandex stops the node at the "
                   "time named anyway, taking the pods down.",
    "pods-unplaced": "make room for the evicted pods (a larger max_expansion, smaller "
                     "requests, or another node group they may run on).",
    "detach-stuck": "look at the volumes in the console (compute disks attached to the "
                    "stopped instance); detach them if the platform does not.",
    "node-not-joining": "look at the node (`kubectl describe node`, the instance's serial "
                        "console): kubelet, network, the node's service account.",
    "surge-not-created": "raise the quota named, or use a smaller max_expansion "
                         "(`ngupgrade preflight` suggests one); a zone out of capacity "
                         "needs another zone or platform.",
    "drain-stuck": "pass --kubeconfig/--context to see the pods and PDBs that hold it; "
                   + PDB_HINT,
    "nothing-visible": "check the operation's log in the console (quota, instance errors).",
}


def _hint(cause: str) -> str:
    return HINTS.get(cause, PDB_HINT)

