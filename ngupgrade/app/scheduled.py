"""Use case ``upgrade --schedule advised``: the advisor's schedule run stage by stage.

Order of work, so that nothing changes before every check has passed:

1. the request is checked as for a sequential run; the schedule gives each group its deploy
   policy, so ``--max-expansion``/``--max-unavailable`` and ``--journal`` are usage errors;
2. with ``--resume``, the groups whose journal records an unfinished upgrade are resumed
   first, together, with their journal's policy (they were running together when stopped);
3. the advisor (:func:`ngupgrade.app.advise.advise`, the same inputs as ``ngupgrade advise``:
   the quotas live or ``--quotas``, ``--min-available``, the cluster objects) schedules the
   other groups: stages of groups whose surges fit one shared headroom per cloud, at most
   ``--max-parallel`` clusters per folder, a stage's groups of one cluster one after another
   in the order of the stage (:mod:`ngupgrade.core.advise.schedule`, whose minutes are what
   step 5 takes). A group with no safe policy stops the run (exit 1);
4. every group is read, checked and planned with its policy
   (:meth:`~ngupgrade.upgrade.runbook.Runbook.prepare`; the plan names the policy
   ``advised``); the plans and the stages are shown, then the pre-change gate of a
   sequential ``upgrade`` runs on them, one path (:func:`ngupgrade.app.gate.gate`): the
   quota preflight of each group with the policy its stage gives it (the cloud-wide quotas
   and the limits, the state's other groups counted in their clusters' node limits; a
   group's surge judged alone, as one after another: the stage's groups sharing the
   headroom is the advisor's count, step 3), the auto-upgrade window from each group's own
   start in the schedule (:func:`stage_runs`), the drain gate with ``--accept``. A short
   quota or a blocking drain finding not accepted stops the run (exit 1, naming what
   failed) before any Update; the placement-group and auto-upgrade-window warnings are
   shown with the calls (:func:`ngupgrade.app.upgrade.show_calls`); without ``apply`` that
   is all;
5. with ``apply``: the stages one after another; the groups of a stage in parallel, one thread
   and one runbook (its own gateway, journal and policy override) each. Groups of one cluster in a
   stage run one after another inside it, as the advisor counted them
   (:func:`ngupgrade.core.advise.schedule.by_cluster`): the cloud serializes operations per cluster
   (hashicorp/terraform-provider-google#3650;
   iits-consulting/terraform-opentelekomcloud-project-factory#62: "never starts a group while
   another in the same cluster is still reconciling"), and the fake refuses a second Update with
   FAILED_PRECONDITION. A stage ends when all its groups end; a group failing stops the later
   stages. The run exits as its worst group (the largest exit code), after a summary naming which
   groups ran, which did
   not, and why.

Ctrl-C, SIGTERM and SIGHUP reach the main thread only; the CLI's handler requests the run's
stop (``timing.stop``, :mod:`ngupgrade.adapters.cloud.stop`): no group sends an Update after
it (each checks before every Update), each running group stops within its sleep, no lane or
stage starts another group; the journals stay open and the run exits 130 naming each.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ngupgrade.adapters.files import journal as jr
from ngupgrade.app.gate import ADVISED_FLAGS, gate
from ngupgrade.app.settings import Settings
from ngupgrade.app.stage_run import (
    PlannedStage,
    Slot,
    StageRun,
    closing,
    interrupted,
    run_stage,
)
from ngupgrade.app.timing import Timing
from ngupgrade.app.upgrade import (
    journal_paths,
    note_moved,
    show_calls,
    show_plans,
    summary_seconds,
)
from ngupgrade.app.upgrade_request import UpgradeReport, UpgradeRequest, check_request
from ngupgrade.core.advise.judge import MinAvailable
from ngupgrade.core.advise.schedule import DEFAULT_MAX_PARALLEL
from ngupgrade.core.errors import CheckFailed, NgUpgradeError, UpgradeInterrupted, UsageError
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.quota.limits import RunSlot
from ngupgrade.core.units import human_seconds
from ngupgrade.upgrade.events import Emit, Note, StageEvent, Summary
from ngupgrade.upgrade.runbook import Runbook
from ngupgrade.upgrade.values import UpgradeApi


@dataclass(frozen=True)
class ScheduleInputs:
    """What shapes the advised schedule beyond the upgrade's own flags (``ngupgrade advise``):
    the availability floor, minutes per cycle (None: calibrate from history when live), and
    the concurrent operations per folder."""

    min_available: MinAvailable | None = None
    minutes_per_cycle: float | None = None
    max_parallel: int = DEFAULT_MAX_PARALLEL


def run_scheduled(settings: Settings, request: UpgradeRequest, inputs: ScheduleInputs, *,
                  timing: Timing | None = None,
                  open_api: Callable[[], UpgradeApi] | None = None,
                  emit: Emit | None = None,
                  journal_writer: Callable[[str, str], None] | None = None,
                  groups: Sequence[NodeGroup] | None = None) -> UpgradeReport:
    """Advise a schedule for the selected groups and (with ``apply``) run it (module
    docstring).

    ``open_api`` opens one cloud gateway (None: :func:`open_gateway` on ``settings``); every
    group gets its own, and the advisor one more. ``groups``: select from these instead of
    reading ``settings.state``.

    Raises:
        UsageError (2: also ``--max-expansion``/``--max-unavailable``/``--journal``),
        CheckFailed (1: a group with no safe policy, a check), the worst group's error when a
        group fails (its exit code: 1, 3, 4, 5 or 6), UpgradeInterrupted (130).
    """
    from ngupgrade.app.load import load_state, refuse_changes, select_groups

    timing = timing or Timing()
    check_request(request)
    opts = request.options
    if opts.max_expansion is not None or opts.max_unavailable is not None:
        raise UsageError("--schedule advised gives each group the policy its stage fits; "
                         "--max-expansion/--max-unavailable would override it",
                         hint="leave them out, or use --schedule sequential")
    if request.journal:
        raise UsageError("--journal names the journal of one node group; --schedule advised "
                         f"keeps one per group under {request.journal_dir}/")
    peers = tuple(groups) if groups is not None else load_state(settings).groups
    selected = select_groups(peers, request.selectors)
    refuse_changes(selected, "upgrade", settings)
    if open_api is None:
        def open_api() -> UpgradeApi:
            from ngupgrade.adapters.cloud.gateway import open_gateway

            # its retries' sleeps end at a stop request too
            return open_gateway(settings, clock=timing.clock, sleep=timing.interruptible().sleep)

    run = StageRun(settings, request, timing, open_api, emit or (lambda e: None), journal_writer,
               timing.clock())
    report = UpgradeReport(applied=request.apply)
    with contextlib.ExitStack() as stack:
        paths: dict[str, str] = {}
        if request.apply:
            for g in selected:
                paths[g.id], legacy = journal_paths(request, g.id)
                lock = stack.enter_context(jr.JournalLock(paths[g.id],
                                                          jr.holder_text(request.command),
                                                          legacy))
                note_moved(lock, str(g.address), run.emit)
        api = stack.enter_context(closing(open_api()))
        stages = _stages(run, selected, paths, inputs, api, peers)
        _prepare(run, stages, api, report)
        _show_and_gate(run, stages, api, report, peers)
        if request.apply:
            _run_stages(run, stages, report)
    report.seconds = timing.clock() - run.t0
    return report


def _stages(run: StageRun, selected: list[NodeGroup], paths: dict[str, str],
            inputs: ScheduleInputs, api: UpgradeApi, peers: Sequence[NodeGroup]
            ) -> list[PlannedStage]:
    """The resumed groups first (with ``--resume``), then the advisor's stages (``peers``:
    every group of the state, counted in their clusters' node limits)."""
    from ngupgrade.app.advise import AdviseRequest, advise, blocked_groups

    request = run.request
    resumed: list[Slot] = []
    fresh: list[NodeGroup] = []
    for g in selected:
        existing = jr.load(paths[g.id]) if g.id in paths else None
        if request.options.resume and existing is not None and existing.outcome is None:
            resumed.append(Slot(g, None, None, journal=paths[g.id]))
        else:
            fresh.append(g)
    stages = [PlannedStage(resumed)] if resumed else []
    if not fresh:
        return stages
    advice = advise(run.settings, AdviseRequest(
        selectors=tuple(str(g.address) for g in fresh), quotas_file=request.quotas_file,
        cloud_id=request.cloud_id, strict=request.strict,
        min_available=inputs.min_available, minutes_per_cycle=inputs.minutes_per_cycle,
        max_parallel=inputs.max_parallel,
        live=request.quotas_file is None and bool(run.settings.endpoint),
        cluster=request.cluster, accept=request.accept), groups=fresh, cloud=api,
        peers=peers)
    named = blocked_groups(advice)
    if named is not None:
        raise CheckFailed(f"no safe deploy policy for {named}; nothing was changed",
                          hint="`ngupgrade advise` names what blocks each policy")
    by_address = {str(g.address): g for g in fresh}
    for st in advice.schedule.stages:
        stages.append(PlannedStage(
            [Slot(by_address[p.address], p.option.candidate.policy, p.option.minutes,
                  journal=paths.get(by_address[p.address].id), after=p.after)
             for p in st.groups],
            st.start_minutes, st.minutes, _renumbered(st.why_new, 1 if resumed else 0)))
    return stages


def _renumbered(why: str | None, offset: int) -> str | None:
    """The advisor's reason with its stage numbers moved by ``offset``: it numbers the stages
    of the groups it was given from 1, and a resumed run puts the resumed stage before them."""
    if why is None or not offset:
        return why
    return re.sub(r"\bstage (\d+)\b", lambda m: f"stage {int(m.group(1)) + offset}", why)


def _prepare(run: StageRun, stages: list[PlannedStage], api: UpgradeApi,
             report: UpgradeReport) -> None:
    """Read, check and plan every group with its policy, before any change (a refusal here
    stops the run with nothing sent)."""
    for stage in stages:
        for slot in stage.slots:
            # the runbook names the stage's policy ``advised`` (StageRun.runbook), a resumed
            # group's as its journal recorded it
            slot.prep = run.runbook(api, slot).prepare(slot.group, slot.journal)
            report.prepared.append(slot.prep)


def stage_runs(stages: Sequence[PlannedStage], start: datetime) -> dict[str, RunSlot]:
    """Group address -> when its upgrade runs in the schedule run from ``start`` (UTC):
    after the stages before its own (each as long as its longest lane) and the groups before
    it in its lane (:meth:`PlannedStage.lanes`), each taking the advisor's minutes (a resumed
    group: its plan's upper estimate). For the auto-upgrade window check of the gate."""
    out: dict[str, RunSlot] = {}
    elapsed = 0.0
    for stage in stages:
        longest = 0.0
        for lane in stage.lanes():
            offset = 0.0
            for slot in lane:
                own = _minutes(slot)
                out[slot.address] = RunSlot(start + timedelta(minutes=elapsed + offset), own)
                offset += own
            longest = max(longest, offset)
        elapsed += longest
    return out


def _minutes(slot: Slot) -> float:
    if slot.minutes is not None:
        return slot.minutes
    if slot.prep is not None and slot.prep.needs_surge:
        return slot.prep.plan.duration.max_minutes
    return 0.0


def _show_and_gate(run: StageRun, stages: list[PlannedStage], api: UpgradeApi,
                   report: UpgradeReport, peers: Sequence[NodeGroup]) -> None:
    """The plans and the stages; the gate of a sequential run (module docstring, step 4;
    raises CheckFailed before any change); then the calls and the warnings."""
    show_plans(report, run.emit)
    for number, stage in enumerate(stages, start=1):
        run.emit(StageEvent(stage=number, stages=len(stages), phase="planned",
                            groups=[s.describe() for s in stage.slots],
                            start_minutes=stage.start_minutes, minutes=stage.minutes,
                            why_new=stage.why_new if stage.start_minutes is not None
                            else "resumed: these groups were running when the run stopped"))
    start = datetime.fromtimestamp(run.timing.wall(), timezone.utc)
    gate(run.settings, run.request, api, report, peers, run.emit, start=start,
         runs=stage_runs(stages, start), policy_flags=ADVISED_FLAGS)
    if report.preflight is not None:
        run.emit(Note(message="the groups of a stage share their cloud's headroom as the "
                              "advisor counted it (`ngupgrade advise` shows the reasons); the "
                              "gate judged each group with its stage's policy"))
    for prep in report.prepared:
        report.calls[prep.address] = Runbook.planned_calls(prep)
    show_calls(run.request, report, run.emit)


def _run_stages(run: StageRun, stages: list[PlannedStage], report: UpgradeReport) -> None:
    """The stages one after another (module docstring, step 5), then the summary; a stop
    request between stages (or one :func:`run_stage` did not see) starts no later stage."""
    failed_at: int | None = None
    try:
        for number, stage in enumerate(stages, start=1):
            if not _start_stage(run, stages, number, failed_at):
                continue
            began = run.timing.clock()
            run_stage(run, stage)
            ok = all(s.outcome == "done" for s in stage.slots)
            run.emit(StageEvent(stage=number, stages=len(stages), phase="finished",
                                groups=[s.describe() for s in stage.slots], ok=ok,
                                seconds=round(run.timing.clock() - began, 1)))
            if not ok:
                failed_at = number
    except UpgradeInterrupted:
        raise
    except KeyboardInterrupt:
        run.stop.request("interrupted")
        interrupted(s for st in stages for s in st.slots)
    slots = [(n, s) for n, st in enumerate(stages, start=1) for s in st.slots]
    report.results = [s.result for _, s in slots if s.result is not None]
    took = summary_seconds(run.timing, run.t0, report.results)
    run.emit(Summary(
        ok=failed_at is None,
        groups=[{"address": r.address, "id": r.group_id, "ok": r.ok,
                 "version_before": r.version_before, "version_after": r.version_after,
                 "nodes": r.nodes, "steps": {k: round(v, 1) for k, v in r.steps.items()},
                 "operations": r.operations, "note": r.note, "journal": r.journal_path}
                for r in report.results],
        seconds=round(took, 1), duration=human_seconds(took),
        virtual_clock=run.timing.virtual, time_scale=run.timing.scale,
        schedule=[{"stage": n, "address": s.address, "policy": jr.policy_json(s.policy),
                   "outcome": s.outcome, "exit_code": _exit_code(s),
                   "reason": s.reason} for n, s in slots]))
    _raise_worst(slots)


def _start_stage(run: StageRun, stages: list[PlannedStage], number: int,
                 failed_at: int | None) -> bool:
    """Say that stage ``number`` starts (True), or that it does not run after a failed
    stage (False); raises Stopped when a stop was requested."""
    stage = stages[number - 1]
    described = [s.describe() for s in stage.slots]
    if failed_at is not None:
        reason = f"a group of stage {failed_at} failed"
        for slot in stage.slots:
            slot.outcome, slot.reason = "not_run", reason
        run.emit(StageEvent(stage=number, stages=len(stages), phase="not_run",
                            groups=described, reason=reason))
        return False
    run.stop.check(f"stage {number}")
    run.emit(StageEvent(stage=number, stages=len(stages), phase="started", groups=described))
    return True


def _exit_code(slot: Slot) -> int | None:
    if slot.outcome == "interrupted":
        return 130
    if isinstance(slot.error, NgUpgradeError):
        return slot.error.exit_code
    return None


def _raise_worst(slots: list[tuple[int, Slot]]) -> None:
    """The worst group's own error (largest exit code), its message naming the schedule."""
    failed = [s for _, s in slots if s.outcome == "failed"]
    if not failed:
        return
    worst = max(failed, key=lambda s: _exit_code(s) or 70)
    err = worst.error
    others = [f"{s.address} ({s.outcome}: {s.reason})" for _, s in slots
              if s is not worst and s.outcome in ("failed", "not_run")]
    tail = ("; " + "; ".join(others)) if others else ""
    if isinstance(err, NgUpgradeError):
        err.message = f"{worst.address}: {err.message}{tail}"
        raise err
    raise RuntimeError(f"{worst.address}: {err}{tail}") from err
