"""Use case ``preflight``: will the cloud's quotas hold every extra node of the upgrade?

:func:`preflight` takes a :class:`PreflightRequest` (the flags, parsed) and returns a
:class:`PreflightReport` (the quota verdict, with ``--plan`` the plan's changes, with cluster
objects the drain check); :meth:`PreflightReport.failure` is the one error a failed check
raises. The quota side is :mod:`ngupgrade.app.quota_check` (the quota file or the live API,
which cloud), shared with ``advise`` and the upgrade's pre-change gate; the drain side is
:func:`ngupgrade.app.drain_check.drain_gate`, shared with the upgrade gate.

The names of the quota check are re-exported here (``run_preflight``, ``QuotaSource``, ...),
where callers have always found them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ngupgrade.app.drain_check import ClusterSource, DrainCheckRequest, drain_gate
from ngupgrade.app.load import load_state, refuse_empty, select_groups, selection_platform
from ngupgrade.app.quota_check import (
    DEFAULT_MAX_WORKERS,
    Check,
    CloudDirectory,
    GroupReader,
    NodeLister,
    QuotaSource,
    blocked_drain_reaction,
    check_quotas,
    limits_by_cloud,
    quota_cloud,
    read_quotas,
    run_preflight,
    with_drain_blockers,
)
from ngupgrade.app.quota_check import PreflightRequest as QuotaRequest
from ngupgrade.app.settings import Settings
from ngupgrade.core.change import blocking_hints
from ngupgrade.core.errors import CheckFailed, UsageError
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.policy import check_overrides
from ngupgrade.core.quota.preflight import Preflight, failure_hints, failure_summary

if TYPE_CHECKING:
    from ngupgrade.app.drain_check import DrainCheckResult
    from ngupgrade.app.tfplan import TfPlanGate

__all__ = [
    "DEFAULT_MAX_WORKERS", "CloudDirectory", "GroupReader", "NodeLister", "PreflightReport",
    "PreflightRequest", "QuotaSource", "blocked_drain_reaction", "check_quotas",
    "limits_by_cloud", "preflight", "quota_cloud", "read_quotas", "run_preflight",
    "with_drain_blockers",
]

@dataclass(frozen=True)
class PreflightRequest(QuotaRequest):
    """What the user asked ``preflight`` for: the quota check's request
    (:class:`ngupgrade.app.quota_check.PreflightRequest`: cloud, mode, overrides, start,
    ``quotas_file``) and what else the command reads: ``selectors`` (``--group``),
    ``pdbs_file`` (``--pdbs``), ``cluster`` (``--cluster``/``--kubeconfig``, the drain check)
    and ``accept`` (finding codes read, ``--accept``)."""

    selectors: tuple[str, ...] = ()
    pdbs_file: str | None = None
    cluster: ClusterSource = field(default_factory=ClusterSource)
    accept: frozenset[str] = frozenset()


@dataclass(frozen=True)
class PreflightReport:
    """What ``preflight`` found: ``result`` the quota verdict; ``gate`` the classified plan
    (``--plan``), else None; ``drain`` the drain check (cluster objects given), else None;
    ``selectel``: the groups are Selectel's (the quotas are the project's); ``offline``: the
    limits came from a file."""

    result: Preflight
    gate: TfPlanGate | None
    drain: DrainCheckResult | None
    selectel: bool
    offline: bool

    @property
    def blocking(self) -> tuple[Any, ...]:
        """The plan's blocking findings (a replace), empty without ``--plan``."""
        return tuple(self.gate.verdict.blocking) if self.gate is not None else ()

    @property
    def shown(self) -> list[NodeGroup | None]:
        """Every group the report shows (for their state notes): the checked ones, and with
        ``--plan`` each change's groups before and after (None where there is none)."""
        return [gd.group for gd in self.result.groups] + (
            [g for c in self.gate.changes for g in (c.before, c.group)]
            if self.gate is not None else [])

    @property
    def ok(self) -> bool:
        """Every part passes: quotas, the plan (no blocking change), the drain check."""
        return (self.result.ok and not self.blocking
                and (self.drain is None or self.drain.ok))

    def failure(self) -> CheckFailed | None:
        """The error of a failed check (exit 1), naming each part that failed and what to do
        about it; None when everything passes."""
        parts = [f.message for f in self.blocking]
        if not self.result.ok:
            parts.append(failure_summary(self.result))
        if self.drain is not None and not self.drain.ok:
            parts.append(self.drain.failure_summary())
        if not parts:
            return None
        where = ("the project's quotas in the Selectel control panel" if self.selectel
                 else "Quota Manager")
        hints = blocking_hints(list(self.blocking))
        hints += failure_hints(self.result, offline=self.offline, where=where)
        if self.drain is not None and not self.drain.ok:
            hints.append(self.drain.failure_hint())
        title = "plan gate failed: " if self.gate is not None else ""
        return CheckFailed(title + "; ".join(parts), hint="; ".join(hints))


def preflight(settings: Settings, request: PreflightRequest) -> PreflightReport:
    """Check the surge of an upgrade against the cloud's quotas: the state's selected groups
    (every group of the state counted in its cluster's limit), or with ``settings.plan`` every
    change of a saved Terraform plan that needs nodes; then the PodDisruptionBudgets of
    ``pdbs_file`` and, with cluster objects, the drain check under the same policies. Makes
    no mutating call. The caller raises :meth:`PreflightReport.failure`.

    Raises:
        UsageError: overrides with ``--plan``; a Selectel check without a quota file; which
            cloud cannot be told; a selector names no group.
        CheckFailed: under ``strict``, a state with no node group (nothing was checked).
        PolicyInvalid, QuotaMappingUnknown (exit 1), BadInput (exit 3), CloudApiError
            (exit 4): from the checks and the sources.
    """
    overrides = request.max_expansion is not None or request.max_unavailable is not None
    if settings.plan is not None and overrides:
        raise UsageError("--max-expansion/--max-unavailable check a state's groups; a "
                         "Terraform plan brings its own deploy policies",
                         hint="leave them out with --plan")
    gate: TfPlanGate | None = None
    found: list[NodeGroup] = []
    check: Check
    if settings.plan is not None:
        from ngupgrade.app.tfplan import load_plan, preflight_plan

        gate = load_plan(settings, request.selectors, sequential=request.sequential)
        plan_gate = gate

        def check(quotas: QuotaSource, asked: QuotaRequest, **live: Any) -> Preflight:
            return preflight_plan(plan_gate, quotas, asked, **live)
    else:
        peers = load_state(settings).groups  # a cluster's other groups count in its limit
        found = select_groups(peers, request.selectors)
        refuse_empty(found, request.strict, "preflight")
        check_overrides(request.max_expansion, request.max_unavailable,
                        selection_platform(found))

        def check(quotas: QuotaSource, asked: QuotaRequest, **live: Any) -> Preflight:
            return run_preflight(found, quotas, asked, peers=peers, **live)

    selectel = bool(found) and all(g.platform == "selectel" for g in found)
    if selectel and request.quotas_file is None:
        raise UsageError("a Selectel preflight is offline: pass --quotas FILE with the "
                         "project's quotas", hint="the format is in docs/selectel.md")
    result = check_quotas(settings, found, request, check)
    if request.pdbs_file is not None:
        from ngupgrade.adapters.files.pdb_file import read_pdb_file

        result = with_drain_blockers(result, read_pdb_file(request.pdbs_file))
    drain = None
    if request.cluster.given:
        drain = drain_gate(found, DrainCheckRequest(
            selectors=request.selectors, cluster=request.cluster,
            max_expansion=request.max_expansion, max_unavailable=request.max_unavailable,
            accept=request.accept, strict=request.strict), plan=gate)
    return PreflightReport(result, gate, drain, selectel=selectel,
                           offline=request.quotas_file is not None)
