"""The stages of ``upgrade --schedule advised`` at run time (issue 14): a group's slot, a
stage and its lanes (one per cluster), and the threads that run them.

One thread per lane; each group gets its own gateway and its own :class:`Runbook` (its
journal, its policy override, its Mutation state), so nothing of the SDK or of a runbook is
shared between threads; what they share is the event sink (behind one lock) and the clock
(monotonic time, or the fake's virtual clock, which locks itself). A worker never receives a
signal: the main thread sets :attr:`StageRun.stop`, and each group's sleep raises
KeyboardInterrupt within :data:`SLEEP_SLICE` seconds, leaving its journal open for
``--resume``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass, field, replace
from typing import Any

from ngupgrade.adapters.files import journal as jr
from ngupgrade.app.settings import Settings
from ngupgrade.app.timing import Timing
from ngupgrade.app.upgrade_request import UpgradeInterrupted, UpgradeRequest
from ngupgrade.core.advise.schedule import by_cluster
from ngupgrade.core.errors import NgUpgradeError
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.upgrade.context import Prepared
from ngupgrade.upgrade.events import Emit, Event
from ngupgrade.upgrade.runbook import Runbook
from ngupgrade.upgrade.values import GroupResult, UpgradeApi

SLEEP_SLICE = 1.0
"""Seconds a group's wait sleeps at most before it looks whether the run was stopped."""


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
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def emit(self, event: Event) -> None:
        with self.lock:
            self.sink(replace(event, at=self.timing.clock() - self.t0))

    def stoppable(self) -> Timing:
        """The run's Timing whose sleep raises KeyboardInterrupt once the run is stopped:
        a worker thread never sees the signal, so this is how Ctrl-C reaches its wait."""
        sleep, stop = self.timing.sleep, self.stop

        def nap(seconds: float) -> None:
            left = seconds
            while True:
                if stop.is_set():
                    raise KeyboardInterrupt("the run was stopped")
                if left <= 0:
                    return
                step = min(SLEEP_SLICE, left)
                sleep(step)
                left -= step

        return replace(self.timing, sleep=nap)

    def runbook(self, api: UpgradeApi, slot: Slot) -> Runbook:
        """One group's runbook: its own api, its policy as the override (named ``advised``
        in its plan and journal), the run's clock."""
        opts = self.request.options
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
    """All lanes of the stage at once (a thread each); Ctrl-C stops them and leaves their
    journals open."""
    lanes = stage.lanes()
    with futures.ThreadPoolExecutor(max_workers=len(lanes),
                                    thread_name_prefix="ngupgrade-group") as pool:
        pending = {pool.submit(_run_lane, run, lane) for lane in lanes}
        try:
            while pending:
                _, pending = futures.wait(pending, timeout=0.5)
        except KeyboardInterrupt:
            run.stop.set()  # each running group stops at its next sleep
            futures.wait(pending)
    if run.stop.is_set():
        interrupted(stage)


def _run_lane(run: StageRun, lane: list[Slot]) -> None:
    """The groups of one cluster in this stage, one after another; a failure ends the lane."""
    for index, slot in enumerate(lane):
        if run.stop.is_set():
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
        run.stop.set()  # one group stopped (the signal, or a hook): every group stops
        slot.outcome, slot.error, slot.reason = "interrupted", err, "interrupted"
    except NgUpgradeError as err:
        slot.outcome, slot.error, slot.reason = "failed", err, err.message
    except Exception as err:  # a bug in one thread must not hide the others' outcomes
        slot.outcome, slot.error, slot.reason = "failed", err, f"{type(err).__name__}: {err}"
    finally:
        if kube is not None:
            kube.close()


def interrupted(stage: PlannedStage) -> None:
    """Exit 130 naming each stopped group's journal and the operation that keeps running."""
    parts = []
    for slot in stage.slots:
        if slot.outcome != "interrupted":
            continue
        where = slot.address
        if slot.prep is not None:
            ops = [r.operation_id for r in slot.prep.journal.steps.values()
                   if r.operation_id and r.status != "done"]
            if ops:
                where += f" (operation {ops[-1]} keeps running in the cloud)"
        if slot.journal:
            where += f", journal {slot.journal}"
        parts.append(where)
    raise UpgradeInterrupted(
        "interrupted: nothing in the cloud was cancelled; "
        + ("; ".join(parts) if parts else "no group was running"),
        hint="run the same command with --resume: the groups with a journal continue first, "
             "then the rest of the schedule")
