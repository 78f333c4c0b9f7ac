"""Use case ``upgrade``: the runbook upgrade of one or more node groups.

Order of work, so that nothing changes before every check has passed:

1. the request is checked (a version or ``--latest-revision``, the policy override values,
   at least one ``--group``) before the state is read;
2. every selected group is read from the state and from the cloud, checked and planned
   (:meth:`ngupgrade.upgrade.runbook.Runbook.prepare`);
3. the quota preflight runs once for all groups that still need their version update, as
   sequential upgrades (the largest demand per quota counts), with the override policy, and
   with the limits ``ngupgrade preflight`` checks beside the cloud-wide quotas
   (:mod:`ngupgrade.core.quota.limits`: the cluster's other groups of the state count in its
   node limit; the auto-upgrade window from each group's own start, for its plan's length:
   now for the first group, after the plans' upper estimates of those before it for the
   others; :mod:`ngupgrade.app.gate`);
   with cluster objects (``--cluster`` or ``--kubeconfig``) the drain check of the same
   groups under the same policy: a quota shortfall or a blocking drain finding
   not ``--accept``-ed is :class:`~ngupgrade.core.errors.CheckFailed` (exit 1) before any
   change;
4. without ``apply``: the plan, the preflight and the calls it would make, and stop;
5. with ``apply``: each group in the order given, one after another.

Events (plan, preflight, dry run, then the runbook's own) go to the ``emit`` callback as the
typed records of :mod:`ngupgrade.upgrade.events` (their NDJSON keys: docs/events.md).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from ngupgrade.adapters.files import journal as jr
from ngupgrade.app.gate import gate, sequential_runs
from ngupgrade.app.settings import Settings
from ngupgrade.app.timing import Timing
from ngupgrade.app.upgrade_request import UpgradeReport, UpgradeRequest, check_request
from ngupgrade.core.errors import UpgradeInterrupted
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.quota import limits
from ngupgrade.core.units import human_seconds
from ngupgrade.upgrade.context import Prepared
from ngupgrade.upgrade.events import (
    CallsToMake,
    DryRun,
    Emit,
    Note,
    PlanReady,
    Summary,
    Warned,
)
from ngupgrade.upgrade.prepare import drift_notice, terraform_warning
from ngupgrade.upgrade.runbook import Runbook
from ngupgrade.upgrade.values import GroupResult, UpgradeApi


def run_upgrade(
    settings: Settings,
    request: UpgradeRequest,
    *,
    timing: Timing | None = None,
    api: UpgradeApi | None = None,
    emit: Emit | None = None,
    journal_writer: Callable[[str, str], None] | None = None,
    groups: Sequence[NodeGroup] | None = None,
) -> UpgradeReport:
    """Plan, gate and (with ``apply``) run the upgrade of the selected groups.

    ``timing`` None is real time. ``api`` None opens the cloud gateway for ``settings`` on it.
    ``groups`` given: select from these instead of reading ``settings.state`` (all of them
    are the state's groups, whose clusters' node limits the quota gate counts).

    Raises:
        UsageError (2; also a group on a platform ngupgrade does not change),
        PolicyInvalid / CheckFailed (1: a check, the preflight gate, a policy
        that did not take, a verdict, a blocking drain finding), BadInput (3; also a cluster
        dump), CloudApiError / KubeApiError (4), OperationFailed (5),
        OperationTimeout / Stalled (6), UpgradeInterrupted (130).
    """
    from ngupgrade.app.load import load_state, refuse_changes, select_groups

    timing = timing or Timing()
    check_request(request)
    peers = tuple(groups) if groups is not None else load_state(settings).groups
    selected = select_groups(peers, request.selectors)
    refuse_changes(selected, "upgrade", settings)
    owned = api is None
    if api is None:
        from ngupgrade.adapters.cloud.gateway import open_gateway

        api = open_gateway(settings, clock=timing.clock, sleep=timing.sleep)
    sink = emit or (lambda event: None)
    runbook = Runbook(api, request.options, timing=timing, emit=sink,
                      journal_writer=journal_writer)
    report = UpgradeReport(applied=request.apply)
    kube = None
    try:
        if request.apply and request.cluster.live:
            # With kube access the wait sees the pods of draining nodes: one
            # read-only session for the run, closed at its end.
            from ngupgrade.upgrade.pods import open_pod_watch

            kube = runbook.ctx.kube = open_pod_watch(request.cluster.kubeconfig,
                                                     request.cluster.context)
        _prepare_and_run(settings, request, selected, api, runbook, report, peers)
    finally:
        report.seconds = timing.clock() - runbook.t0
        if kube is not None:
            kube.close()
        if owned:
            close = getattr(api, "close", None)
            if close is not None:
                close()
    return report


def _prepare_and_run(settings: Settings, request: UpgradeRequest, groups: Sequence[Any],
                     api: UpgradeApi, runbook: Runbook, report: UpgradeReport,
                     peers: Sequence[NodeGroup]) -> None:
    with contextlib.ExitStack() as locks:
        for group in groups:
            path = None
            if request.apply:
                path, legacy = journal_paths(request, group.id)
                # Before the journal is read: two runs started together must not both pass
                # the "unfinished journal" check and then share the file.
                lock = locks.enter_context(jr.JournalLock(path, jr.holder_text(request.command),
                                                          legacy))
                note_moved(lock, str(group.address), runbook.emit)
            report.prepared.append(runbook.prepare(group, path))
        _gate_and_run(settings, request, api, runbook, report, peers)


def summary_seconds(timing: Timing, t0: float, results: Sequence[GroupResult]) -> float:
    """Seconds the summary totals (on ``timing.clock``): since ``t0``, the run's start; a
    resumed run's since the first journaled step of an earlier run (``GroupResult.since``,
    wall seconds, ``timing.scale`` clock seconds each: a ``--time-scale`` drill's journal
    is on the host's clock, its run on the fake's), when that is longer."""
    took = timing.clock() - t0
    since = [r.since for r in results if r.since is not None]
    if since:
        took = max(took, (timing.wall() - min(since)) * timing.scale)
    return took


def journal_paths(request: UpgradeRequest, group_id: str) -> tuple[str, str | None]:
    """The journal of ``group_id`` (``--journal``, else the one under the user's journal
    directory) and the old place (``./.ngupgrade/``) a journal is moved from when found
    there; None with ``--journal``."""
    if request.journal:
        return os.path.abspath(request.journal), None
    version = request.options.version
    return (jr.default_path(group_id, version, request.journal_dir),
            jr.legacy_path(group_id, version))


def note_moved(lock: jr.JournalLock, group: str, emit: Emit) -> None:
    """Say where a journal found in the old place went (both paths absolute)."""
    if lock.moved_from is not None:
        emit(Note(group=group, message=f"the journal left at {lock.moved_from} moved to "
                                       f"{lock.path} (journals now live in one directory "
                                       f"per user; ${jr.ENV_DIR} chooses it)"))


def _gate_and_run(settings: Settings, request: UpgradeRequest, api: UpgradeApi,
                  runbook: Runbook, report: UpgradeReport, peers: Sequence[NodeGroup]) -> None:
    event = runbook.emit
    show_plans(report, event)
    start = datetime.fromtimestamp(runbook.timing.wall(), timezone.utc)
    gate(settings, request, api, report, peers, event, start=start,
         runs=sequential_runs(report.prepared, start))
    for prep in report.prepared:
        report.calls[prep.address] = runbook.planned_calls(prep)
    show_calls(request, report, event)
    if not request.apply:
        return

    current: Prepared | None = None
    try:
        for index, prep in enumerate(report.prepared):
            if index > 0:
                # The groups before this one may have taken hours: read it again (status,
                # nodes, running operations) so its checks and its journal start from now.
                quota = prep.tight_quota
                prep = report.prepared[index] = runbook.prepare(prep.group, prep.journal.path)
                prep.tight_quota = quota
            current = prep
            report.results.append(runbook.run(prep))
    except KeyboardInterrupt as err:
        where, ops = "", []
        if current is not None:
            ops = [rec.operation_id for rec in current.journal.steps.values()
                   if rec.operation_id and rec.status != "done"]
            where = f" during {current.address}"
            if ops:
                where += f" (operation {ops[-1]} keeps running in the cloud)"
        journal_note = (f"; the journal is {current.journal.path}"
                        if current is not None and current.journal.path else "")
        raise UpgradeInterrupted(
            f"interrupted{where}: nothing in the cloud was cancelled{journal_note}",
            hint="run the same command with --resume to continue from the recorded step; it "
                 "attaches to the running operation and never sends an Update twice",
            operation_id=ops[-1] if ops else None) from err
    took = summary_seconds(runbook.timing, runbook.t0, report.results)
    event(Summary(ok=all(r.ok for r in report.results),
                  groups=[{"address": r.address, "id": r.group_id, "ok": r.ok,
                           "version_before": r.version_before, "version_after": r.version_after,
                           "nodes": r.nodes, "steps": {k: round(v, 1) for k, v in r.steps.items()},
                           "operations": r.operations, "note": r.note, "journal": r.journal_path}
                          for r in report.results],
                  seconds=round(took, 1), duration=human_seconds(took),
                  virtual_clock=runbook.timing.virtual, time_scale=runbook.timing.scale))


def show_plans(report: UpgradeReport, event: Emit) -> None:
    """The plans of the prepared groups (one ``plan`` event; the CLI renders it,
    cli/render/upgrade_plan.py), then per group its ``nothing to do`` note and its drift notice."""
    event(PlanReady(plans=tuple(p.plan for p in report.prepared)))
    for prep in report.prepared:
        if prep.nothing_to_do:
            event(Note(group=prep.address, message=f"nothing to do: {prep.nothing_to_do}"))
        drift_notice(prep, event)


def show_calls(request: UpgradeRequest, report: UpgradeReport, event: Emit) -> None:
    """The calls each group makes (``report.calls``: ``calls`` with ``apply``, else
    ``dry_run``), then the warnings about the run: the gate's (a full spread placement
    group, an auto-upgrade window, :data:`ngupgrade.core.quota.limits.RUN_WARNINGS`) and
    the Terraform policy warning of each group that runs with an override."""
    listed = {addr: [{"method": c.method, "detail": c.detail} for c in calls]
              for addr, calls in report.calls.items()}
    event(CallsToMake(calls=listed) if request.apply else DryRun(calls=listed))
    for warning in report.preflight.warnings if report.preflight is not None else ():
        if limits.is_run_warning(warning):
            event(Warned(group=warning.group, code=warning.code, message=warning.message))
    for prep in report.prepared:
        if not prep.restore_only:
            terraform_warning(prep, event, request.options.restore_policy)
