"""The pre-change gate of an upgrade, before any Update (sequential and advised runs alike):
the quota preflight of the groups still to upgrade under the policy each will run with
(:func:`ngupgrade.app.quota_check.run_preflight`, the one path of ``ngupgrade preflight``: the
cloud-wide quotas and :mod:`ngupgrade.core.quota.limits`, the state's other groups counted in
their clusters' node limits, the auto-upgrade window over each group's own run), then, with
cluster objects, the drain check under the same policies; a short quota or a blocking drain
finding not ``--accept``-ed is exit 1 naming what failed, nothing sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from ngupgrade.app.settings import Settings
from ngupgrade.app.upgrade_request import UpgradeReport, UpgradeRequest
from ngupgrade.core.errors import CheckFailed
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.quota import limits
from ngupgrade.core.quota.preflight import failure_hints, failure_summary
from ngupgrade.upgrade.context import Prepared
from ngupgrade.upgrade.events import DrainGateDone, Emit, Note, PreflightDone
from ngupgrade.upgrade.values import UpgradeApi


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


SEQUENTIAL_FLAGS = " (--max-expansion / --max-unavailable)"
"""How a sequential run applies a suggested policy, as the gate's hint names it."""
ADVISED_FLAGS = (" (the advised schedule takes no policy flags: --schedule sequential with "
                 "--max-expansion / --max-unavailable)")
"""The same in ``--schedule advised``, which refuses those flags (its stages set the policy)."""


def gate(settings: Settings, request: UpgradeRequest, api: UpgradeApi, report: UpgradeReport,
         peers: Sequence[NodeGroup], event: Emit, *, start: datetime,
         runs: Mapping[str, limits.RunSlot], policy_flags: str = SEQUENTIAL_FLAGS) -> None:
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
    _gate_verdict(report, quotas_offline=request.quotas_file is not None,
                  policy_flags=policy_flags)


def _drain_gate(request: UpgradeRequest, gated: Sequence[Prepared]) -> Any:
    """The drain check of the groups still to upgrade, with the policy they will run with
    (the plan's: the override or the advised one, else the live one), on the cluster objects
    given; its report names that policy's source as the plan does (the decided policies travel
    in the request)."""
    from ngupgrade.app.drain_check import DrainCheckRequest, drain_gate

    groups = [replace(p.group, policy=p.plan.policy.policy) for p in gated]
    return drain_gate(groups, DrainCheckRequest(
        selectors=request.selectors, cluster=request.cluster,
        minutes_per_cycle=request.options.minutes_per_cycle, accept=request.accept,
        strict=request.strict, policies={p.address: p.plan.policy for p in gated}))


def _gate_verdict(report: UpgradeReport, *, quotas_offline: bool, policy_flags: str) -> None:
    """Both gates judged before any change: exit 1 naming what failed, nothing sent."""
    parts, hints = [], []
    if report.preflight is not None and not report.preflight.ok:
        parts.append(failure_summary(report.preflight))
        hints += failure_hints(report.preflight, offline=quotas_offline,
                               policy_flags=policy_flags)
    if report.drain is not None and not report.drain.ok:
        parts.append(report.drain.failure_summary())
        hints.append(report.drain.failure_hint())
    if parts:
        raise CheckFailed("; ".join(parts) + "; nothing was changed", hint="; ".join(hints))


def _preflight(settings: Settings, request: UpgradeRequest, gated: Sequence[Prepared],
               api: Any, peers: Sequence[NodeGroup], start: datetime,
               runs: Mapping[str, limits.RunSlot]) -> Any:
    """The quota gate for the groups still to upgrade, with the policy they will run with:
    :func:`ngupgrade.app.quota_check.check_quotas` and
    :func:`~ngupgrade.app.quota_check.run_preflight`, the path of ``ngupgrade preflight`` (the
    cloud-wide quotas and :mod:`ngupgrade.core.quota.limits`), each group's upgrade over its
    own run (``runs``, else from ``start``; UTC), every group of the state (``peers``) counted
    in its cluster's limit; each group's demand is counted under its plan's policy, named where
    the plan took it from (the state, the live group, the default, a command-line override,
    the advised schedule)."""
    from ngupgrade.app.quota_check import PreflightRequest, check_quotas, run_preflight

    groups = [replace(p.group, policy=p.plan.policy.policy) for p in gated]
    asked = PreflightRequest(cloud_id=request.cloud_id, sequential=True, strict=request.strict,
                             start=start, runs=dict(runs),
                             minutes_per_cycle=request.options.minutes_per_cycle,
                             policies={p.address: p.plan.policy for p in gated},
                             quotas_file=request.quotas_file)

    def check(quotas: Any, asked: PreflightRequest, **live: Any) -> Any:
        return run_preflight(groups, quotas, asked, peers=peers, **live)

    return check_quotas(settings, groups, asked, check, api=api)
