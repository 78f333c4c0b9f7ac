"""Limits the cloud-wide quota rows do not show: per group, per cluster, per zone, per
placement group, and the service's own auto-upgrade window. Pure (the start time is a value).

What :func:`ngupgrade.core.quota.preflight.evaluate` leaves out, checked here on the same demands
(the Yandex Cloud docs' quota tables (``managed-kube-limits``, ``compute-limits``)):

* ``managed-kubernetes.groupNodes.count`` (nodes in one group, 200 by default): each group's
  peak, ``N + E'`` (worst case: the autoscaler ``max + min(E, max)``), against the limit;
* ``managed-kubernetes.clusterNodes.count``: the nodes of every group of the cluster (those
  not upgraded at their size, fixed or the autoscaler max) plus the surge of the upgraded
  ones (added up, or the largest with ``sequential``);
  both only when the quota source lists them; the API's ``usage`` of these per-group and
  per-cluster limits is not a group's own count, so the rows carry the group's or
  cluster's nodes as their usage and a ``scope``. Usage and demand come from one place, each
  group's :class:`~ngupgrade.core.quota.demand.NodeCount`: usage the nodes that exist before
  the change, demand what the change adds at its peak (an upgrade's surge; a Terraform
  change's, :mod:`ngupgrade.core.quota.tfplan`: a created group whole, a resize's growth);
* zonal quotas such as ``compute.instanceT4Gpus.count.ru-central1-d`` beside the cloud-wide
  one: a group with a node in that zone may put all of its surge there, so its demand of the
  cloud-wide quota counts on the zonal one too (only when the source lists it);
* a spread placement group holds at most 5 VMs (Yandex Compute Cloud docs, "Quotas and
  limits", VM limits): a peak above 5 cannot place its surge nodes, a row like the node limits
  (:func:`placement_rows`, so the suggestions, the advisor and the gates see it) and a
  warning with the numbers;
* ``maintenance_policy.auto_upgrade`` with a window that may open while the group's upgrade
  runs (any time, when no window is set), from the group's own start (after the groups run
  before it): the service may start its own upgrade of the group (a warning).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial

from ngupgrade.core import simulate
from ngupgrade.core.model import WEEKDAYS, MaintenanceWindow, NodeGroup, PlacementGroup, QuotaLimit
from ngupgrade.core.plan_warnings import (
    PLACEMENT_FULL,
    SPREAD_PLACEMENT_MAX_VMS,
    PlanWarning,
    placement_warning,
    spread_placement,
)
from ngupgrade.core.policy import clamp
from ngupgrade.core.quota.demand import Concurrency, GroupDemand, NodeCount, combine_by, mode_of
from ngupgrade.core.quota.preflight import Preflight
from ngupgrade.core.quota.suggest import Suggestion, suggest
from ngupgrade.core.quota.verdict import CloudVerdict, QuotaVerdict, verdict

GROUP_NODES = "managed-kubernetes.groupNodes.count"
CLUSTER_NODES = "managed-kubernetes.clusterNodes.count"
AUTO_UPGRADE_WINDOW = "auto-upgrade-window"
RUN_WARNINGS = (PLACEMENT_FULL, AUTO_UPGRADE_WINDOW)
"""The codes of the warnings about the run itself (each names its group): ``ngupgrade upgrade``
shows them before its changes like its other warnings, instead of in the preflight report."""


def is_run_warning(warning: PlanWarning) -> bool:
    """A warning about the run itself (:data:`RUN_WARNINGS`, naming its group): ``upgrade``
    sends it as its own ``warning`` event, so its text report leaves it out of the preflight
    table (one line each, not two)."""
    return warning.code in RUN_WARNINGS and warning.group is not None

WEEK_MINUTES = 7 * 24 * 60


def peak(gd: GroupDemand, at_current_size: bool = False) -> NodeCount:
    """One group's nodes before its change and at the change's peak, as the node-count limits
    count them (an upgrade: N and N + E', worst case the autoscaler max and ``min(E, max)``,
    at the current size the current count and ``min(E, current)``)."""
    ex = gd.extra
    return ex.counted_at_current_size if at_current_size else ex.counted


def _scoped(quota_id: str, scope: str, nodes: int, surge: int, limit: QuotaLimit,
            recreates: bool) -> QuotaVerdict | None:
    """A node-count row: ``nodes`` as its usage, ``surge`` as its demand. When the change
    ``recreates`` nodes (an upgrade, a Terraform roll: a deploy policy applies), nodes
    already above the limit are short whatever the surge: every deploy policy deletes nodes
    and creates them again (0/U too: back to ``nodes``), and a node created where the group
    (or cluster) holds more than the limit is over it, so no policy fits. Reasoned from the
    limit's meaning (the quota tables), not seen on a live cloud."""
    if limit.limit is None:
        return None
    row = verdict(quota_id, surge, QuotaLimit(quota_id, limit.limit, float(nodes)))
    if recreates and row.status == "ok" and row.headroom is not None and row.headroom < 0:
        row = replace(row, status="short")
    return replace(row, scope=scope)


def node_count_verdicts(demands: Sequence[GroupDemand], peers: Sequence[NodeGroup],
                        limits: Mapping[str, QuotaLimit], *, sequential: bool = False,
                        at_current_size: bool = False, together: Concurrency | None = None
                        ) -> list[QuotaVerdict]:
    """The ``groupNodes``/``clusterNodes`` rows of one cloud's groups (``demands``), when
    ``limits`` lists them. ``peers`` are every group of the state (their clusters' other
    groups count at their size); empty: only the groups checked.

    Each row: usage the nodes before the change, demand what the change adds at its peak
    (:func:`peak`); a group's row its largest node group (``NodeCount.one_group``), a
    cluster's row every node of the change (``NodeCount.peak``)."""
    rows: list[QuotaVerdict] = []
    group_limit = limits.get(GROUP_NODES)
    if group_limit is not None:
        for gd in demands:
            count = peak(gd, at_current_size)
            row = _scoped(GROUP_NODES, f"group {gd.address}", count.before,
                          max(0, count.one_group - count.before), group_limit,
                          gd.reducible)
            if row is not None:
                rows.append(row)
    cluster_limit = limits.get(CLUSTER_NODES)
    if cluster_limit is not None:
        for cluster_id in dict.fromkeys(gd.group.cluster_id for gd in demands):
            mine = [gd for gd in demands if gd.group.cluster_id == cluster_id]
            upgraded = {gd.address for gd in mine}
            others = sum(g.scale.most_nodes for g in peers
                         if g.cluster_id == cluster_id and str(g.address) not in upgraded)
            counts = [peak(gd, at_current_size) for gd in mine]
            nodes = others + sum(c.before for c in counts)
            surge = combine_by(((cluster_id, {"n": c.added}) for c in counts),
                               mode_of(sequential, together)).get("n", 0)
            row = _scoped(CLUSTER_NODES, f"cluster {cluster_id}", nodes, surge, cluster_limit,
                          any(gd.reducible for gd in mine))
            if row is not None:
                rows.append(row)
    return rows


def zonal_verdicts(demands: Sequence[GroupDemand], limits: Mapping[str, QuotaLimit], *,
                   sequential: bool = False, at_current_size: bool = False,
                   together: Concurrency | None = None) -> list[QuotaVerdict]:
    """Rows of the zonal quotas ``limits`` lists (``<quota id>.<zone>``) that a group with a
    node in that zone draws on: its whole demand of the cloud-wide quota, the worst case."""
    rows = []
    for quota_id in sorted(limits):
        base, _, zone = quota_id.rpartition(".")
        if not base or "." not in base:
            continue
        drawing = [(gd.group.cluster_id, {"n": gd.demand(at_current_size).get(base, 0)})
                   for gd in demands if zone in gd.group.zones and base in gd.per_node]
        if not drawing:
            continue
        total = combine_by(drawing, mode_of(sequential, together)).get("n", 0)
        rows.append(verdict(quota_id, total, limits[quota_id]))
    return rows


def limit_rows(demands: Sequence[GroupDemand], limits: Mapping[str, QuotaLimit],
               peers: Sequence[NodeGroup] = (), *, sequential: bool = False,
               at_current_size: bool = False, together: Concurrency | None = None
               ) -> list[QuotaVerdict]:
    """Every row of one cloud's limits beside the cloud-wide quotas for ``demands`` (those
    ``limits`` lists): the zonal rows (:func:`zonal_verdicts`), then the ``groupNodes``/
    ``clusterNodes`` rows (:func:`node_count_verdicts`, ``peers`` as there). The one judge of
    these limits: the preflight's table, its suggestions, the advisor's candidates and the
    upgrade's gate ask it. The spread placement groups' rows (:func:`placement_rows`) come
    last, whatever ``limits`` lists: their limit is fixed."""
    return [*zonal_verdicts(demands, limits, sequential=sequential,
                            at_current_size=at_current_size, together=together),
            *node_count_verdicts(demands, peers, limits, sequential=sequential,
                                 at_current_size=at_current_size, together=together),
            *placement_rows(demands, peers, sequential=sequential,
                            at_current_size=at_current_size, together=together)]


PLACEMENT_VMS = "compute.placementGroupInstances.count"
"""ngupgrade's name for the row of a spread placement group: the compute limit "Maximum number
of VMs in a single placement group" (5; the docs give it no quota id), scoped ``placement group
ID``; its unit VMs."""


def _placement_counts(demands: Sequence[GroupDemand], peers: Sequence[NodeGroup],
                      at_current_size: bool
                      ) -> dict[str, tuple[PlacementGroup, int, list[tuple[str, int]]]]:
    """Spread placement group id -> (the group, the VMs its node groups hold before the
    change, the surge of each of ``demands`` in it). A peer in it that is not checked counts
    at its size (fixed, or the autoscaler max)."""
    out: dict[str, tuple[PlacementGroup, int, list[tuple[str, int]]]] = {}
    checked = {gd.address for gd in demands}
    for gd in demands:
        placement = gd.group.placement_group
        if not spread_placement(placement):
            continue
        assert placement is not None
        count = peak(gd, at_current_size)
        held, before, surges = out.get(placement.id, (placement, 0, []))
        out[placement.id] = (held, before + count.before,
                             [*surges, (gd.group.cluster_id, count.added)])
    for g in peers:
        p = g.placement_group
        if p is not None and p.id in out and str(g.address) not in checked:
            held, before, surges = out[p.id]
            out[p.id] = (held, before + g.scale.most_nodes, surges)
    return out


def placement_rows(demands: Sequence[GroupDemand], peers: Sequence[NodeGroup] = (), *,
                   sequential: bool = False, at_current_size: bool = False,
                   together: Concurrency | None = None) -> list[QuotaVerdict]:
    """One :data:`PLACEMENT_VMS` row per spread placement group that ``demands`` run in:
    limit :data:`~ngupgrade.core.plan_warnings.SPREAD_PLACEMENT_MAX_VMS`, usage the VMs its
    node groups hold before the change, demand their surge (added up, or the largest with
    ``sequential``). Always judged (the limit is fixed, no quota source lists it); VMs in the
    placement group that are not nodes of the state's groups are not seen."""
    rows = []
    for pid, (_, before, surges) in _placement_counts(demands, peers, at_current_size).items():
        surge = combine_by(((c, {"n": s}) for c, s in surges),
                           mode_of(sequential, together)).get("n", 0)
        row = _scoped(PLACEMENT_VMS, f"placement group {pid}", before, surge,
                      QuotaLimit(PLACEMENT_VMS, SPREAD_PLACEMENT_MAX_VMS, 0.0),
                      any(gd.reducible for gd in demands))
        if row is not None:
            rows.append(row)
    return rows


def placement_warnings(demands: Sequence[GroupDemand], at_current_size: bool = False,
                       peers: Sequence[NodeGroup] = ()) -> list[PlanWarning]:
    """A group in a spread placement group whose peak (with the other node groups in it) is
    above 5 VMs (:func:`ngupgrade.core.plan_warnings.placement_warning`)."""
    counts = _placement_counts(demands, peers, at_current_size)
    out = []
    for gd in demands:
        placement = gd.group.placement_group
        if placement is None or placement.id not in counts:
            continue
        _, before, _ = counts[placement.id]
        found = placement_warning(placement, before, peak(gd, at_current_size).added,
                                  prefix=f"{gd.address}: ")
        if found is not None:
            out.append(replace(found, group=gd.address))
    return out


def run_minutes(gd: GroupDemand, minutes_per_cycle: float,
                at_current_size: bool = False) -> float:
    """The upper estimate of one group's upgrade, in minutes: waves x minutes per cycle."""
    nodes = gd.extra.current if at_current_size else gd.extra.nodes
    if nodes == 0:
        return 0.0
    span = simulate.cycles(nodes, clamp(gd.extra.policy, nodes))
    return span.max * minutes_per_cycle


def window_opening(window: MaintenanceWindow, start: datetime, minutes: float
                   ) -> datetime | None:
    """When ``window`` (UTC) is open during ``[start, start + minutes)``: the moment the run
    first meets it (``start`` itself when it is already open), or None."""
    begin = start.weekday() * 1440 + start.hour * 60 + start.minute + start.second / 60
    end = begin + minutes
    days = range(7) if window.day is None else (WEEKDAYS.index(window.day),)
    hits = []
    for day in days:
        opens = day * 1440 + window.start_seconds / 60
        for week in (-1, 0, 1, 2):
            w0 = opens + week * WEEK_MINUTES
            w1 = w0 + window.duration_seconds / 60
            if w0 < end and w1 > begin:
                hits.append(max(w0, begin))
    if not hits:
        return None
    return start + timedelta(minutes=min(hits) - begin)


@dataclass(frozen=True)
class RunSlot:
    """When one group's upgrade runs: from ``start`` (UTC) for up to ``minutes``, its plan's
    upper estimate (a group that runs after others starts after them)."""

    start: datetime
    minutes: float


def maintenance_warnings(demands: Sequence[GroupDemand], start: datetime,
                         minutes_per_cycle: float = simulate.DEFAULT_MINUTES_PER_CYCLE,
                         at_current_size: bool = False,
                         runs: Mapping[str, RunSlot] | None = None) -> list[PlanWarning]:
    """``auto_upgrade`` on, and a window (or none: any time) that may open while the upgrade
    of the group runs. ``runs``: group address -> its :class:`RunSlot` (``upgrade`` knows
    each group's plan and order); a group not in it runs from ``start`` for
    :func:`run_minutes` (the preflight's worst case: an autoscaled group at its max)."""
    out = []
    for gd in demands:
        policy = gd.group.maintenance
        if policy is None or not policy.auto_upgrade:
            continue
        slot = (runs or {}).get(gd.address)
        start = slot.start if slot else start
        minutes = slot.minutes if slot else run_minutes(gd, minutes_per_cycle, at_current_size)
        run = (f"this upgrade (from {start:%Y-%m-%d %H:%M} UTC, up to {minutes:g} min at "
               f"{minutes_per_cycle:g} min a cycle)")
        fix = ("set maintenance_policy.auto_upgrade = false for the run, or start it outside "
               "the window")
        if not policy.windows:
            out.append(PlanWarning(
                AUTO_UPGRADE_WINDOW,
                f"{gd.address}: auto_upgrade is on with no maintenance window (any time): the "
                f"service may start its own upgrade of the group during {run}; {fix}",
                group=gd.address))
            continue
        opening = [(w, t) for w in policy.windows
                   if (t := window_opening(w, start, minutes)) is not None]
        if opening:
            w, t = min(opening, key=lambda pair: pair[1])
            day = w.day or "every day"
            out.append(PlanWarning(
                AUTO_UPGRADE_WINDOW,
                f"{gd.address}: auto_upgrade is on and its maintenance window ({day} "
                f"{_clock(w.start_seconds)} UTC for {_span(w.duration_seconds)}) is open at "
                f"{t:%Y-%m-%d %H:%M} UTC, during {run}: the service may start its own upgrade "
                f"of the group; {fix}", group=gd.address))
    return out


def _clock(seconds: float) -> str:
    """A window's start as the warning prints it: ``15:00``, ``15:00:30`` when not whole
    minutes (a fraction of a second is not printed)."""
    s = int(seconds)
    hm = f"{s // 3600:02d}:{s // 60 % 60:02d}"
    return hm if s % 60 == 0 else f"{hm}:{s % 60:02d}"


def _span(seconds: float) -> str:
    """A window's length as the warning prints it: ``3h00m``, ``1h30m``, ``0h01m30s``."""
    s = round(seconds)
    hm = f"{s // 3600}h{s // 60 % 60:02d}m"
    return hm if s % 60 == 0 else f"{hm}{s % 60:02d}s"


def extend(result: Preflight, limits: Mapping[str, Mapping[str, QuotaLimit]], *,
           peers: Sequence[NodeGroup] = (), start: datetime | None = None,
           minutes_per_cycle: float = simulate.DEFAULT_MINUTES_PER_CYCLE,
           runs: Mapping[str, RunSlot] | None = None) -> Preflight:
    """``result`` with the rows and warnings above added (``start`` None: no window check;
    ``runs``: each group's own run, as :func:`maintenance_warnings` takes them).

    A cloud with one of these rows short gets its suggestions again, judged on every short
    row (:func:`ngupgrade.core.quota.suggest.suggest` asks :func:`limit_rows` for each policy
    it tries): the largest deploy policy that fits a group's or a cluster's node limit or a
    zonal quota too, or, when none does, a suggestion that says so.
    """
    clouds = []
    suggestions: list[Suggestion] = []
    for cloud in result.clouds:
        mine = [gd for gd in result.groups if gd.cloud_id == cloud.cloud_id]
        cloud_limits = limits.get(cloud.cloud_id, {})
        beside = partial(limit_rows, limits=cloud_limits, peers=peers,
                         sequential=result.sequential, at_current_size=result.at_current_size,
                         together=result.concurrency)
        extra = beside(mine)
        known = {(q.quota_id, q.scope) for q in cloud.quotas}
        added = tuple(q for q in extra if (q.quota_id, q.scope) not in known)
        judged = CloudVerdict(cloud.cloud_id, cloud.quotas + added)
        clouds.append(judged)
        if any(q.status == "short" for q in added):
            suggestions += suggest(judged, mine, cloud_limits, sequential=result.sequential,
                                   at_current_size=result.at_current_size, beside=beside,
                                   together=result.concurrency)
        else:
            suggestions += [s for s in result.suggestions if s.cloud_id == cloud.cloud_id]
    warnings = [*result.warnings,
                *placement_warnings(result.groups, result.at_current_size, peers)]
    if start is not None:
        warnings += maintenance_warnings(result.groups, start, minutes_per_cycle,
                                         result.at_current_size, runs)
    return replace(result, clouds=tuple(clouds), suggestions=tuple(suggestions),
                   warnings=tuple(warnings))
