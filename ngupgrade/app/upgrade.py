"""Use case ``upgrade``: the runbook upgrade of one or more node groups (issue 6).

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
   others, :func:`sequential_starts`);
   with cluster objects (``--cluster`` or ``--kubeconfig``) the drain check of the same
   groups under the same policy (issue 13): a quota shortfall or a blocking drain finding
   not ``--accept``-ed is :class:`~ngupgrade.core.errors.CheckFailed` (exit 1) before any
   change;
4. without ``apply``: the plan, the preflight and the calls it would make, and stop;
5. with ``apply``: each group in the order given, one after another.

Events (plan, preflight, dry run, then the runbook's own) go to the ``emit`` callback as the
typed records of :mod:`ngupgrade.upgrade.events` (their NDJSON keys: docs/events.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from ngupgrade.adapters.files import journal as jr
from ngupgrade.app.drain_check import ClusterSource
from ngupgrade.app.settings import Settings
from ngupgrade.app.timing import Timing
from ngupgrade.core.errors import (
    EXIT_INTERRUPTED,
    CheckFailed,
    NgUpgradeError,
    UsageError,
)
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.policy import check_overrides
from ngupgrade.core.quota import limits
from ngupgrade.core.quota.demand import GroupDemand, group_demand
from ngupgrade.core.quota.preflight import failure_hints, failure_summary
from ngupgrade.core.units import human_seconds
from ngupgrade.upgrade.context import Prepared
from ngupgrade.upgrade.events import (
    CallsToMake,
    DrainGateDone,
    DryRun,
    Emit,
    Note,
    PlanReady,
    PreflightDone,
    Summary,
    Warned,
)
from ngupgrade.upgrade.prepare import drift_notice, terraform_warning
from ngupgrade.upgrade.rules import parse_version
from ngupgrade.upgrade.runbook import Runbook
from ngupgrade.upgrade.values import (
    GroupResult,
    PlannedCall,
    UpgradeApi,
    UpgradeOptions,
)


class UpgradeInterrupted(NgUpgradeError):
    """Ctrl-C during an upgrade (exit 130); the hint says how to resume. Nothing is cancelled."""

    exit_code = EXIT_INTERRUPTED


@dataclass(frozen=True)
class UpgradeRequest:
    """The whole ``ngupgrade upgrade`` invocation.

    ``journal``: one file for a single group (default per group under ``.ngupgrade/``).
    ``quotas_file`` / ``cloud_id``: the preflight's quota source, as ``ngupgrade preflight``.
    ``cluster``: the cluster objects for the drain gate (none given: no drain gate);
    ``accept``: drain finding codes the user has read and proceeds past.
    """

    selectors: tuple[str, ...]
    options: UpgradeOptions
    apply: bool = False
    journal: str | None = None
    journal_dir: str = jr.DEFAULT_DIR
    quotas_file: str | None = None
    cloud_id: str | None = None
    strict: bool = False
    cluster: ClusterSource = field(default_factory=ClusterSource)
    accept: frozenset[str] = frozenset()
    command: str = "ngupgrade upgrade"
    """The command line, written into the journal lock so a second run can name this one."""


@dataclass
class UpgradeReport:
    """What the run did: plans, the preflight and drain verdicts, planned calls, results,
    seconds."""

    prepared: list[Prepared] = field(default_factory=list)
    preflight: Any = None
    drain: Any = None
    calls: dict[str, list[PlannedCall]] = field(default_factory=dict)
    results: list[GroupResult] = field(default_factory=list)
    applied: bool = False
    seconds: float = 0.0


def check_request(request: UpgradeRequest) -> None:
    """Flags that contradict each other (exit 2) or an invalid override (exit 1)."""
    opts = request.options
    if not request.selectors:
        raise UsageError("name the node groups to upgrade with --group",
                         hint="`ngupgrade groups` lists them")
    if (opts.version is None) == (not opts.latest_revision):
        raise UsageError("give exactly one of --version V and --latest-revision")
    if opts.version is not None:
        parse_version(opts.version)  # a malformed version is a usage error before any call
    if opts.timeout is not None and opts.timeout <= 0:
        raise UsageError("--timeout must be a positive duration, e.g. 90m or 2h",
                         hint="to look without waiting, run without --apply")
    if opts.stall_after < 0:
        raise UsageError("--stall-after must be a duration >= 0 (0 turns the watchdog off)")
    if request.journal and len(request.selectors) > 1:
        raise UsageError("--journal names the journal of one node group",
                         hint=f"leave it out with several groups: each gets its own under "
                              f"{request.journal_dir}/")
    if request.cluster.files and request.cluster.live:
        raise UsageError("give the cluster objects one way: --cluster FILE or "
                         "--kubeconfig/--context, not both")
    check_overrides(opts.max_expansion, opts.max_unavailable)


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
            # With kube access the wait sees the pods of draining nodes (issue 13): one
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
                path = request.journal or jr.default_path(group.id, request.options.version,
                                                          request.journal_dir)
                # Before the journal is read: two runs started together must not both pass
                # the "unfinished journal" check and then share the file (issue 10 item 2).
                locks.enter_context(jr.JournalLock(path, jr.holder_text(request.command)))
            report.prepared.append(runbook.prepare(group, path))
        _gate_and_run(settings, request, api, runbook, report, peers)


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
        where = ""
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
                 "attaches to the running operation and never sends an Update twice") from err
    took = runbook.timing.clock() - runbook.t0
    event(Summary(ok=all(r.ok for r in report.results),
                  groups=[{"address": r.address, "id": r.group_id, "ok": r.ok,
                           "version_before": r.version_before, "version_after": r.version_after,
                           "nodes": r.nodes, "steps": {k: round(v, 1) for k, v in r.steps.items()},
                           "operations": r.operations, "note": r.note, "journal": r.journal_path}
                          for r in report.results],
                  seconds=round(took, 1), duration=human_seconds(took)))


def show_plans(report: UpgradeReport, event: Emit) -> None:
    """The plans of the prepared groups (one ``plan`` event; the CLI renders it,
    cli/render/plan.py), then per group its ``nothing to do`` note and its drift notice."""
    event(PlanReady(plans=tuple(p.plan for p in report.prepared)))
    for prep in report.prepared:
        if prep.nothing_to_do:
            event(Note(group=prep.address, message=f"nothing to do: {prep.nothing_to_do}"))
        drift_notice(prep, event)


def sequential_runs(prepared: Sequence[Prepared], start: datetime
                    ) -> dict[str, limits.RunSlot]:
    """Group address -> when its upgrade runs when the groups run one after another in this
    order from ``start``: after the plan's upper estimate (``duration.max_minutes``) of every
    group before it that still needs its version update, for its own. For the auto-upgrade
    window check (:func:`ngupgrade.core.quota.limits.maintenance_warnings`), which so takes
    the length the plan shows (an autoscaled group at its live size), not the worst case."""
    out: dict[str, limits.RunSlot] = {}
    minutes = 0.0
    for prep in prepared:
        own = prep.plan.duration.max_minutes if prep.needs_surge else 0.0
        out[prep.address] = limits.RunSlot(start + timedelta(minutes=minutes), own)
        minutes += own
    return out


def gate(settings: Settings, request: UpgradeRequest, api: UpgradeApi, report: UpgradeReport,
         peers: Sequence[NodeGroup], event: Emit, *, start: datetime,
         runs: Mapping[str, limits.RunSlot]) -> None:
    """The pre-change gate of the prepared groups that still need their version update
    (``report.prepared``), before any Update: the quota preflight
    (:func:`_preflight`: the cloud-wide quotas and the limits, ``peers`` counted in their
    clusters' node limits, the auto-upgrade window over each group's own run in ``runs``,
    else from ``start``) and, with cluster objects, the drain gate (``request.accept``), each
    with the policy every group will run with (its plan's); their events (``preflight``,
    ``drain_check``) go to ``event``, the verdicts into ``report``. The quota demands count as
    groups upgraded one after another (the largest per quota).

    Raises:
        CheckFailed (1): a short quota or a blocking drain finding not accepted, naming what
            failed; nothing was sent. UsageError, BadInput, CloudApiError: from the sources.
    """
    gated = [p for p in report.prepared if p.needs_surge]
    if not gated:
        event(Note(message="preflight skipped: no group still needs its version update"))
        return
    report.preflight = _preflight(settings, request, gated, api, peers, start, runs)
    event(PreflightDone(ok=report.preflight.ok, report=report.preflight))
    from ngupgrade.upgrade.watch import tight_quota_text

    for prep in gated:
        prep.tight_quota = tight_quota_text(report.preflight)
    if request.cluster.given:
        report.drain = _drain_gate(request, gated)
        event(DrainGateDone(ok=report.drain.ok, result=report.drain))
    _gate_verdict(report, quotas_offline=request.quotas_file is not None)


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


def _drain_gate(request: UpgradeRequest, gated: Sequence[Prepared]) -> Any:
    """The drain check of the groups still to upgrade, with the policy they will run with
    (the plan's: the override or the advised one, else the live one), on the cluster objects
    given; its report names that policy's source as the plan does."""
    from ngupgrade.app.drain_check import DrainCheckRequest, drain_check_groups

    groups = [replace(p.group, policy=p.plan.policy.policy) for p in gated]
    result = drain_check_groups(groups, DrainCheckRequest(
        selectors=request.selectors, cluster=request.cluster,
        minutes_per_cycle=request.options.minutes_per_cycle, accept=request.accept,
        strict=request.strict))
    # the same values, named where the run's plan took them from (a command-line override,
    # the advised schedule, the live group), not as the state's
    chosen = {p.address: p.plan.policy for p in gated}
    return replace(result, plans={
        address: replace(plan, policy=chosen[address]) if address in chosen else plan
        for address, plan in result.plans.items()})


def _gate_verdict(report: UpgradeReport, *, quotas_offline: bool) -> None:
    """Both gates judged before any change: exit 1 naming what failed, nothing sent."""
    parts, hints = [], []
    if report.preflight is not None and not report.preflight.ok:
        parts.append(failure_summary(report.preflight))
        hints += failure_hints(report.preflight, offline=quotas_offline,
                               policy_flags=" (--max-expansion / --max-unavailable)")
    if report.drain is not None and not report.drain.ok:
        parts.append(report.drain.failure_summary())
        hints.append("fix what blocks the drain (a PDB, room for the evicted pods, a bare pod) "
                     "or choose a slower deploy policy (`ngupgrade advise`); after reading a "
                     "finding, --accept CODE proceeds past it")
    if parts:
        raise CheckFailed("; ".join(parts) + "; nothing was changed", hint="; ".join(hints))


def _preflight(settings: Settings, request: UpgradeRequest, gated: Sequence[Prepared],
               api: Any, peers: Sequence[NodeGroup], start: datetime,
               runs: Mapping[str, limits.RunSlot]) -> Any:
    """The quota gate for the groups still to upgrade, with the policy they will run with:
    :func:`ngupgrade.app.preflight.run_preflight`, the one path of ``ngupgrade preflight``
    (the cloud-wide quotas and :mod:`ngupgrade.core.quota.limits`), each group's upgrade
    over its own run (``runs``, else from ``start``; UTC), every group of the state
    (``peers``) counted in its cluster's limit."""
    from ngupgrade.app.preflight import PreflightRequest, run_preflight

    groups = [replace(p.group, policy=p.plan.policy.policy) for p in gated]
    chosen = {p.address: p.plan.policy for p in gated}

    def build(group: NodeGroup, cloud_id: str, current: int | None, per_node: Any,
              live_policy: DeployPolicy | None) -> GroupDemand:
        # the policy the group will run with, named where its plan took it from (the state,
        # the live group, the default, a command-line override, the advised schedule)
        policy = chosen[str(group.address)]
        gd = group_demand(group, cloud_id, current, per_node, live_policy,
                          override=policy.policy)
        return replace(gd, extra=replace(gd.extra, policy_source=policy.source,
                                         policy_assumed=policy.assumed))

    def asked(cloud: str | None) -> PreflightRequest:
        return PreflightRequest(cloud_id=cloud, sequential=True, strict=request.strict,
                                start=start, runs=dict(runs),
                                minutes_per_cycle=request.options.minutes_per_cycle)

    cloud_id = request.cloud_id
    if request.quotas_file is not None:
        from ngupgrade.adapters.files.quota_file import read_quota_file

        source = read_quota_file(request.quotas_file)
        if cloud_id is None:
            cloud_id = source.single_cloud_id()
            if cloud_id is None:
                held = ", ".join(source.cloud_ids) or "no named cloud"
                raise UsageError(f"which cloud? the quota file {request.quotas_file} holds "
                                 f"{held}", hint="pass --cloud-id ID")
        return run_preflight(groups, source, asked(cloud_id), nodes=api, peers=peers,
                             build_demand=build)
    return run_preflight(groups, api, asked(cloud_id),
                         directory=api if cloud_id is None else None, nodes=api, peers=peers,
                         build_demand=build)
