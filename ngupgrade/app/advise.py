"""Use case ``advise``: the fastest safe deploy policy of each node group, and a schedule.

Order of work: read the state and select groups; gather the quota side exactly as the preflight
does (:func:`ngupgrade.app.quota_check.run_preflight`: the cloud of each group, what one node
consumes, the live size of autoscaled groups, the limits listed once per cloud and service),
offline from ``--quotas FILE`` or live from the API; then the pure core
(:func:`ngupgrade.core.advise.advice.advise_groups`) judges every policy of every group, with one
limits mapping per cloud shared by its groups (the limits as listed: the cloud-wide quotas and
those beside them, per group, per cluster with every group of the state, per zone), and
schedules them.

Without a quota source the quota is not checked (the report says so). Nothing is changed.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ngupgrade.adapters.cloud.types import LiveNodeGroup, OperationState
from ngupgrade.app.drain_check import ClusterSource, read_cluster
from ngupgrade.app.load import load_state, refuse_empty, select_groups
from ngupgrade.app.quota_check import PreflightRequest, check_quotas, run_preflight
from ngupgrade.app.settings import Settings
from ngupgrade.core.advise.advice import Advice, GroupAdvice, advise_groups
from ngupgrade.core.advise.calibrate import Calibration, PastUpgrade, calibrate
from ngupgrade.core.advise.judge import (
    AUTOSCALER_MIN,
    BELOW_MIN_AVAILABLE,
    QUOTA_SHORT,
    QUOTA_UNKNOWN,
    MinAvailable,
    QuotaJudge,
    WorkloadJudge,
)
from ngupgrade.core.advise.schedule import DEFAULT_MAX_PARALLEL
from ngupgrade.core.advise.workloads import DRAIN_ACCEPTED, DrainJudge
from ngupgrade.core.drain.findings import CONSTRAINT_NOT_MODELLED
from ngupgrade.core.drain.index import ClusterIndex
from ngupgrade.core.errors import CheckFailed, CloudApiError
from ngupgrade.core.k8s import ClusterSnapshot
from ngupgrade.core.membership import nodes_per_group
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.plan_warnings import PlanWarning
from ngupgrade.core.platform import YANDEX, platform_of
from ngupgrade.core.policy import policy_text
from ngupgrade.core.quota.preflight import Preflight, failure_hints, failure_summary


@dataclass(frozen=True)
class AdviseRequest:
    """What the user asked ``advise`` for.

    ``quotas_file``: offline quota limits (else live with ``live``, else unchecked);
    ``cloud_id``: the cloud of every group (offline default: the one cloud of the file);
    ``at_current_size``/``strict``: as in the preflight; ``min_available``: the availability
    floor (None: the defaults of :func:`ngupgrade.core.advise.judge.availability`); ``nodes``:
    ``N`` of autoscaled groups whose live size is unknown; ``minutes_per_cycle``: fixed
    minutes per cycle (None: calibrate from history when live, else the default);
    ``max_parallel``: concurrent operations per folder.
    """

    selectors: tuple[str, ...] = ()
    quotas_file: str | None = None
    cloud_id: str | None = None
    at_current_size: bool = False
    strict: bool = False
    min_available: MinAvailable | None = None
    nodes: int | None = None
    minutes_per_cycle: float | None = None
    max_parallel: int = DEFAULT_MAX_PARALLEL
    live: bool = False
    cluster: ClusterSource = field(default_factory=ClusterSource)
    """Cluster objects (``--cluster``/``--kubeconfig``): the drain check judges workloads."""
    accept: frozenset[str] = frozenset()
    """Drain finding codes the user has read (``--accept CODE``): they block no policy."""


WorkloadFactory = Callable[[NodeGroup, int], WorkloadJudge | None]
"""Gives the workload judge of a group planned at ``N`` nodes (None: no cluster objects)."""


def advise(settings: Settings, request: AdviseRequest, *,
           cluster: ClusterSnapshot | None = None,
           groups: Sequence[NodeGroup] | None = None, cloud: Any = None,
           peers: Sequence[NodeGroup] | None = None) -> Advice:
    """Load the selected groups, gather quotas and history, and advise.

    ``cluster``: the Kubernetes objects (nodes, pods, workloads, PodDisruptionBudgets) of the
    groups' cluster; with it the drain check judges every policy on the front
    (:class:`~ngupgrade.core.advise.workloads.DrainJudge`, one index for all groups) and the
    availability floor only forbids the whole group down. ``groups``: select from these
    instead of reading the state; ``cloud``: an open gateway for the live path (``upgrade
    --schedule advised`` shares its own), else one is opened and closed here; ``peers``: every
    group of the state, whose clusters' node limits count the groups not advised at their size
    as ``ngupgrade preflight`` does (None: ``groups``, else the state read).

    Raises:
        UsageError: a selector names no group; a quota file with several clouds and no
            ``cloud_id``.
        BadInput: the state or the quota file cannot be read (exit 3).
        QuotaMappingUnknown: a group's resources cannot be placed on quota ids (exit 1).
        CheckFailed: the quota source lists none of the quotas the surge draws on, as
            ``preflight`` fails on it ("no quota was checked", exit 1).
        CloudApiError: the cloud API failed (exit 4).
    """
    if groups is None:
        groups = load_state(settings).groups
    peers = tuple(groups) if peers is None else tuple(peers)
    groups = select_groups(groups, request.selectors)
    refuse_empty(groups, request.strict, "advise")
    if cluster is None and request.cluster.given:
        cluster = read_cluster(request.cluster).snapshot
    result: Preflight | None = None
    calibrations: dict[str, Calibration] = {}
    asked = PreflightRequest(cloud_id=request.cloud_id, at_current_size=request.at_current_size,
                             strict=request.strict, quotas_file=request.quotas_file)

    def check(quotas: Any, asked: PreflightRequest, **live: Any) -> Preflight:
        return run_preflight(_for_preflight(groups), quotas, asked, **live)

    if request.quotas_file is not None:
        result = check_quotas(settings, groups, asked, check)
    elif request.live:
        from ngupgrade.app.cloud import open_cloud  # the SDK only on the live path

        with contextlib.nullcontext(cloud) if cloud is not None else open_cloud(
                settings) as gateway:
            result = check_quotas(settings, groups, asked, check, api=gateway)
            if request.minutes_per_cycle is None:
                calibrations = {g.id: history_calibration(gateway, g.id) for g in groups}
    if result is not None and result.checked_nothing:
        raise _nothing_checked(result, offline=request.quotas_file is not None)
    quotas, sizes = (_quota_judges(result, request, peers) if result is not None
                     else (_fixed_limit_judges(groups, peers), {}))
    for group in groups:
        if group.id not in calibrations:
            calibrations[group.id] = calibrate(
                (), override=request.minutes_per_cycle,
                note="" if request.live else "offline: no operation history read")
    workloads: WorkloadFactory | None = None
    judges: dict[str, DrainJudge] = {}
    if cluster is not None:
        index = ClusterIndex.build(cluster)
        # a group's size is its nodes in the cluster, as for drain-check (the cloud's wins)
        sizes = {**nodes_per_group(groups, cluster.nodes), **sizes}

        def workloads(group: NodeGroup, nodes: int) -> WorkloadJudge:
            judges[str(group.address)] = DrainJudge(group, index, nodes=nodes,
                                                    accepted=request.accept)
            return judges[str(group.address)]

    advice = advise_groups(groups, live_sizes=sizes, nodes_override=request.nodes,
                           min_available=request.min_available, calibrations=calibrations,
                           quotas=quotas, workloads=workloads,
                           max_parallel=request.max_parallel)
    return with_unmodelled(advice, judges)


def with_unmodelled(advice: Advice, judges: Mapping[str, DrainJudge]) -> Advice:
    """Each group whose drain met a constraint the check does not model (required pod
    anti-affinity, pod affinity, topology spread DoNotSchedule) gets a
    ``constraint-not-modelled`` warning: its recommendation is not cleared for those pods
    (docs/drain.md: never a pass), which the report says instead of a plain recommendation.
    A group whose policy to apply passed only because of ``--accept`` gets a
    ``drain-finding-accepted`` warning naming each finding accepted."""
    groups = []
    for group in advice.groups:
        judge = judges.get(group.address)
        use = group.applied
        waived = judge.waived.get(use.policy, []) if judge is not None and use else []
        if use is not None and waived:
            codes = ", ".join(dict.fromkeys(x.code for x in waived))
            group = replace(group, warnings=(*group.warnings, PlanWarning(
                DRAIN_ACCEPTED,
                f"{use.max_expansion}/{use.max_unavailable} passes the drain check only "
                f"because you accepted {codes} ({len(waived)} finding(s); `ngupgrade "
                f"drain-check -g {shlex.quote(group.address)} --max-expansion "
                f"{use.max_expansion} --max-unavailable {use.max_unavailable}` with the same "
                "cluster objects lists them)")))
        if judge is not None and judge.unmodelled:
            pods = sorted(judge.unmodelled)
            named = ", ".join(pods[:3]) + (f" and {len(pods) - 3} more" if len(pods) > 3
                                           else "")
            warning = PlanWarning(
                CONSTRAINT_NOT_MODELLED,
                f"not fully modelled: {len(pods)} pod(s) have a constraint the drain check "
                f"does not model ({named}; e.g. {judge.unmodelled[pods[0]]}); the "
                "recommendation is not cleared for them: check where they can go by hand")
            group = replace(group, warnings=(*group.warnings, warning))
        groups.append(group)
    return replace(advice, groups=tuple(groups))


class History(Protocol):
    """What the calibration reads of a cloud (the gateway, or a test double)."""

    def list_operations(self, node_group_id: str) -> Sequence[OperationState]: ...

    def get_node_group(self, node_group_id: str) -> LiveNodeGroup: ...

    def list_nodes(self, node_group_id: str) -> Sequence[Any]: ...


def history_calibration(cloud: History, group_id: str) -> Calibration:
    """Minutes per cycle of one group from its own finished upgrades
    (``NodeGroupService.ListOperations``; :func:`ngupgrade.core.advise.calibrate.calibrate`).

    The API keeps neither the node count an operation served nor the policy it ran under:
    the live node count and the live deploy policy stand in for them (the report's note
    says so). A refused read (no permission to list operations) falls back to the default
    with the reason as the note, rather than failing the advice.
    """
    try:
        operations = cloud.list_operations(group_id)
        finished = [op for op in operations if op.done and not op.failed]
        if not finished:
            return calibrate((), note="no finished operation in the group's history")
        live = cloud.get_node_group(group_id)
        nodes = len(cloud.list_nodes(group_id))
    except CloudApiError as err:
        return calibrate((), note=f"history not read: {err.message}")
    policy = YANDEX.in_force(live.policy)
    cal = calibrate([PastUpgrade(op.created_at, op.modified_at, nodes, policy)
                     for op in finished])
    if cal.source == "history":
        return replace(cal, note=f"{nodes} node(s) and policy {policy_text(policy)} "
                                 "taken for every past upgrade (the API keeps neither)")
    return cal


def _nothing_checked(result: Preflight, *, offline: bool) -> CheckFailed:
    """The error of a quota source that lists none of the quotas the surge draws on
    (:attr:`Preflight.checked_nothing`): ``preflight`` fails on it, so ``advise`` does too,
    with the same message and hint, rather than recommend a policy as fitting a quota that
    nothing was checked against (docs/advise.md, "Quotas")."""
    return CheckFailed(failure_summary(result),
                       hint="; ".join(failure_hints(result, offline=offline)))


def _for_preflight(groups: list[NodeGroup]) -> list[NodeGroup]:
    """The groups with a valid stand-in policy: the preflight validates the policy in force,
    but the advisor is there to replace it, so a state with ``0/0`` must still be advised.
    Only the per-node consumption, the cloud and the live size of the preflight are used."""
    return [replace(g, policy=platform_of(g).default_policy) for g in groups]


def _fixed_limit_judges(groups: Sequence[NodeGroup], peers: Sequence[NodeGroup]
                        ) -> dict[str, QuotaJudge]:
    """Without a quota source: a judge (``listed=False``) for each group in a spread
    placement group, whose 5 VMs are a fixed limit no source lists, so that ``advise``
    recommends no surge it cannot place, as ``plan`` and ``preflight`` refuse it."""
    from ngupgrade.core.plan_warnings import spread_placement

    return {str(g.address): QuotaJudge(group=g, cloud_id="", per_node={}, limits={},
                                       peers=peers, listed=False)
            for g in groups if spread_placement(g.placement_group)}


def _quota_judges(result: Preflight, request: AdviseRequest, peers: Sequence[NodeGroup]
                  ) -> tuple[dict[str, QuotaJudge], dict[str, int]]:
    """One QuotaJudge per group (by address), those of a cloud sharing one limits mapping
    (the limits as listed, the preflight's ``listed``: the cloud-wide quotas and those beside
    them), every group of the state as its ``peers``; and the live sizes of autoscaled groups
    (by node-group id)."""
    limits = result.listed
    judges: dict[str, QuotaJudge] = {}
    sizes: dict[str, int] = {}
    for gd in result.groups:
        live = gd.extra.current if gd.extra.current_source == "api" else None
        if live is not None:
            sizes[gd.group.id] = live
        judges[gd.address] = QuotaJudge(
            group=gd.group, cloud_id=gd.cloud_id, per_node=gd.per_node,
            limits=limits.get(gd.cloud_id, {}), current=live,
            at_current_size=request.at_current_size, strict=request.strict, peers=peers)
    return judges, sizes


def blocked_groups(advice: Advice) -> str | None:
    """The groups with no safe policy, each with the codes that reject its policies
    (``workers (quota-short, below-min-available)``), or None when every group has one: the
    one wording of ``advise`` and ``upgrade --schedule advised``."""
    blocked = [g for g in advice.groups if not g.ok]
    if not blocked:
        return None
    return "; ".join(f"{g.address} ({', '.join(_block_codes(g)) or 'nothing is safe'})"
                     for g in blocked)


def advice_failure(advice: Advice) -> CheckFailed | None:
    """The error of ``advise`` when some group has no safe policy (exit 1), naming each and
    what to do (:func:`blocked_hint`); None when every group has one."""
    named = blocked_groups(advice)
    if named is None:
        return None
    return CheckFailed("no safe deploy policy for " + named,
                       hint=blocked_hint([g for g in advice.groups if not g.ok]))


def _block_codes(group: GroupAdvice) -> list[str]:
    return sorted({x.code for r in group.search.rejected for x in r.reasons})


def blocked_hint(blocked: Sequence[GroupAdvice]) -> str:
    """What to do when ``blocked`` groups have no safe policy, following the codes that block
    them: a short quota -> raise it (where, by the platform of the groups it holds back); an
    unknown one (``--strict``) -> export it; the floor
    (``below-min-available``) -> lower ``--min-available`` when it came from the option or the
    one-node-down default (the whole-group floor is the lowest there is, but a one-node group
    under it is told that ``--min-available 0`` lets it go down); the autoscaler min
    -> raise it; any drain finding -> fix what blocks the drain. Never a lever no code asks for
    (a group blocked only by its workloads is not told to raise a quota)."""

    codes = {x.code for g in blocked for r in g.search.rejected for x in r.reasons}
    floored = [g for g in blocked
               if any(x.code == BELOW_MIN_AVAILABLE for r in g.search.rejected for x in r.reasons)]
    lowerable = any(g.availability.floor_source != "whole-group" for g in floored)
    # a one-node group held by the whole-group floor: the only lever is to let it go down
    one_node = any(g.availability.floor_source == "whole-group" and g.nodes == 1
                   for g in floored)
    short = {g.group.platform for g in blocked
             if any(x.code == QUOTA_SHORT for r in g.search.rejected for x in r.reasons)}
    hints = []
    if short:
        hints.append("raise the quota (" + "; ".join(
            where for platform, where in (("yandex", "Quota Manager"),
                                          ("selectel", "Selectel: the project's quotas in the "
                                                       "control panel"))
            if platform in short) + ")")
    if QUOTA_UNKNOWN in codes:
        hints.append("export the unknown quotas' limits (docs/quota-preflight.md) or drop "
                     "--strict")
    if BELOW_MIN_AVAILABLE in codes and lowerable:
        hints.append("lower --min-available")
    if BELOW_MIN_AVAILABLE in codes and one_node:
        hints.append("--min-available 0 lets a one-node group go down for its upgrade (its "
                     "pods have nowhere to run meanwhile)")
    if AUTOSCALER_MIN in codes:
        hints.append("raise the autoscaler min (scale_policy.auto_scale.min)")
    if codes - {QUOTA_SHORT, QUOTA_UNKNOWN, BELOW_MIN_AVAILABLE, AUTOSCALER_MIN}:
        hints.append("fix what blocks the drain (after reading a drain finding, --accept CODE "
                     "proceeds past it)")
    return "; ".join(hints) or "see why each policy is blocked above (docs/advise.md)"
