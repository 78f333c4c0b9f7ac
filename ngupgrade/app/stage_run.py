"""The stages of ``upgrade --schedule advised`` at run time: a group's slot, a
stage and its lanes (one per cluster), and the threads that run them.

One thread per lane; each group gets its own gateway and its own :class:`Runbook` (its
journal, its policy override, its Mutation state), so nothing of the SDK or of a runbook is
shared between threads; what they share is the event sink (behind one lock), the clock
(monotonic time, or the fake's virtual clock, which locks itself) and the stop request
(``timing.stop``, :mod:`ngupgrade.adapters.cloud.stop`). A worker never receives a signal:
the CLI's handler requests the stop, and each group stops at its next Update (which is then
not sent) or within its sleep, leaving its journal open for ``--resume``; a lane starts no
group after it. The main thread waits for the lanes to end, whatever it was doing when the
signal came.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent import futures
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from ngupgrade.adapters.cloud.stop import StopRequest
from ngupgrade.adapters.files import journal as jr
from ngupgrade.app.settings import Settings
from ngupgrade.app.timing import Timing
from ngupgrade.app.upgrade_request import UpgradeRequest
from ngupgrade.core.advise.schedule import by_cluster
from ngupgrade.core.errors import NgUpgradeError, UpgradeInterrupted
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.upgrade.context import Prepared
from ngupgrade.upgrade.events import Emit, Event
from ngupgrade.upgrade.runbook import Runbook
from ngupgrade.upgrade.values import GroupResult, UpgradeApi


@contextlib.contextmanager
def closing(api: Any) -> Iterator[Any]:
    """Close a gateway (anything with ``close``) at the end of the block."""
    try:
        yield api
    finally:
        close = getattr(api, "close", None)
        if close is not None:
            close()


@dataclass
class Slot:
    """One group in a stage: its policy (None: a resumed group keeps its journal's), the
    advisor's minutes, the group of its cluster it waits for in the stage (``after``: the
    advisor's lane, which :meth:`PlannedStage.lanes` runs), and how it ended (``pending``,
    ``done``, ``failed``, ``interrupted``, ``not_run``)."""

    group: NodeGroup
    policy: DeployPolicy | None
    minutes: float | None
    journal: str | None = None
    after: str | None = None
    prep: Prepared | None = None
    outcome: str = "pending"
    error: BaseException | None = None
    reason: str | None = None
    result: GroupResult | None = None

    @property
    def address(self) -> str:
        return str(self.group.address)

    def describe(self) -> dict[str, Any]:
        """The ``stage`` event's view: address, cluster, policy, expected minutes, the group
        it waits for."""
        return {"address": self.address, "cluster_id": self.group.cluster_id,
                "policy": jr.policy_json(self.policy), "minutes": self.minutes,
                "after": self.after}


@dataclass
class PlannedStage:
    """Groups that run together; ``start_minutes``/``minutes`` from the advisor (a resumed
    stage has none); ``why_new``: why its first group did not join the stage before."""

    slots: list[Slot]
    start_minutes: float | None = None
    minutes: float | None = None
    why_new: str | None = None

    def lanes(self) -> list[list[Slot]]:
        """The slots per cluster, in order: one lane runs its groups one after another
        (:func:`ngupgrade.core.advise.schedule.by_cluster`, the advisor's own lanes, so that
        the stage takes what ``ngupgrade advise`` says)."""
        return by_cluster(self.slots, lambda s: s.group.cluster_id)


@dataclass
class StageRun:
    """The shared state of one scheduled run (the emit lock keeps the sink single-threaded)."""

    settings: Settings
    request: UpgradeRequest
    timing: Timing
    open_api: Callable[[], UpgradeApi]
    sink: Emit
    journal_writer: Callable[[str, str], None] | None
    t0: float
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def stop(self) -> StopRequest:
        """The run's stop request (the signals', and a group's that was stopped)."""
        return self.timing.stop

    def emit(self, event: Event) -> None:
        with self.lock:
            self.sink(replace(event, at=self.timing.clock() - self.t0))

    def stoppable(self) -> Timing:
        """The run's Timing whose sleep raises Stopped once the run is stopped: a worker
        thread never sees the signal, so this is how Ctrl-C reaches its wait (its Updates
        check the same request, :class:`~ngupgrade.upgrade.mutation.Mutation`)."""
        return self.timing.interruptible()

    def runbook(self, api: UpgradeApi, slot: Slot) -> Runbook:
        """One group's runbook: its own api, its policy as the override (named ``advised``
        in its plan and journal), the run's clock."""
        opts = replace(self.request.options, schedule="advised")
        if slot.policy is not None:
            opts = replace(opts, max_expansion=slot.policy.max_expansion,
                           max_unavailable=slot.policy.max_unavailable,
                           policy_source="advised")
        book = Runbook(api, opts, timing=self.stoppable(), emit=self.sink_locked,
                       journal_writer=self.journal_writer)
        book.t0 = self.t0
        return book

    def sink_locked(self, event: Event) -> None:
        with self.lock:
            self.sink(event)


def run_stage(run: StageRun, stage: PlannedStage) -> None:
    """All lanes of the stage at once (a thread each); a stop request (Ctrl-C, SIGTERM,
    SIGHUP, wherever the main thread was) stops them before their next Update and leaves
    their journals open: then UpgradeInterrupted (130)."""
    lanes = stage.lanes()
    pool = futures.ThreadPoolExecutor(max_workers=len(lanes),
                                      thread_name_prefix="ngupgrade-group")
    pending: set[futures.Future[None]] = set()
    try:
        try:
            for lane in lanes:
                pending.add(pool.submit(_run_lane, run, lane))
            while pending:
                _, pending = futures.wait(pending, timeout=0.5)
        except KeyboardInterrupt:
            run.stop.request("interrupted")  # the handler did already; a bare Ctrl-C too
        while pending:  # the lanes end at their next Update or sleep
            with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C: still wait
                _, pending = futures.wait(pending, timeout=0.5)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    if run.stop.requested:
        interrupted(stage.slots)


def _run_lane(run: StageRun, lane: list[Slot]) -> None:
    """The groups of one cluster in this stage, one after another; a failure ends the lane."""
    for index, slot in enumerate(lane):
        if run.stop.requested:
            slot.outcome, slot.reason = "not_run", "the run was stopped"
            continue
        if any(s.outcome == "failed" for s in lane[:index]):
            slot.outcome, slot.reason = "not_run", (
                f"{lane[index - 1].address} (same cluster, run before it) failed")
            continue
        _run_slot(run, slot)


def _run_slot(run: StageRun, slot: Slot) -> None:
    """One group: its own gateway (the SDK's channel and the gateway's retry state stay on
    one thread), read again at its turn, then its runbook; the outcome goes on the slot."""
    kube = None
    try:
        with closing(run.open_api()) as api:
            book = run.runbook(api, slot)
            if run.request.cluster.live:
                from ngupgrade.upgrade.pods import open_pod_watch

                kube = book.ctx.kube = open_pod_watch(run.request.cluster.kubeconfig,
                                                      run.request.cluster.context)
            # read again at its turn; the gate's closest quota stays for the stall diagnosis
            quota = slot.prep.tight_quota if slot.prep is not None else None
            slot.prep = book.prepare(slot.group, slot.journal)
            slot.prep.tight_quota = quota
            slot.result = book.run(slot.prep)
            slot.outcome = "done"
    except KeyboardInterrupt as err:
        run.stop.request(str(err) or "interrupted")  # one group stopped: every group stops
        slot.outcome, slot.error, slot.reason = "interrupted", err, "interrupted"
    except NgUpgradeError as err:
        slot.outcome, slot.error, slot.reason = "failed", err, err.message
    except Exception as err:  # a bug in one thread must not hide the others' outcomes
        slot.outcome, slot.error, slot.reason = "failed", err, f"{type(err).__name__}: {err}"
    finally:
        if kube is not None:
            kube.close()


def interrupted(slots: Iterable[Slot]) -> NoReturn:
    """Exit 130 naming each stopped group's journal and the operation that keeps running; the
    error's ``operation_id`` is that operation when only one keeps running."""
    parts, running = [], []
    for slot in slots:
        if slot.outcome != "interrupted":
            continue
        where = slot.address
        if slot.prep is not None:
            ops = [r.operation_id for r in slot.prep.journal.steps.values()
                   if r.operation_id and r.status != "done"]
            if ops:
                where += f" (operation {ops[-1]} keeps running in the cloud)"
                running.append(ops[-1])
        if slot.journal:
            where += f", journal {slot.journal}"
        parts.append(where)
    raise UpgradeInterrupted(
        "interrupted: nothing in the cloud was cancelled; "
        + ("; ".join(parts) if parts else "no group was running"),
        hint="run the same command with --resume: the groups with a journal continue first, "
             "then the rest of the schedule",
        operation_id=running[0] if len(running) == 1 else None)
