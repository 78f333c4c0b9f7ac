"""The advice for node groups, and the schedule of several: the core's entry points. Pure.

:func:`advise_group` picks ``N`` as the plan does (:func:`ngupgrade.core.simulate.choose_nodes`),
builds the availability rule, runs the search (:mod:`.recommend`) and keeps the calibration the
caller measured. :func:`advise_groups` does it for every group and schedules the safe ones under
the shared headroom of each cloud (:mod:`.schedule`).

Units: minutes (a duration is ``cycles x minutes per cycle``), node-hours (surge nodes above
``N`` summed over the waves, times minutes per cycle, over 60).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ngupgrade.core.advise.calibrate import Calibration, calibrate
from ngupgrade.core.advise.candidates import Candidate
from ngupgrade.core.advise.judge import (
    Availability,
    MinAvailable,
    QuotaJudge,
    WorkloadJudge,
    availability,
)
from ngupgrade.core.advise.recommend import Search, search
from ngupgrade.core.advise.schedule import (
    DEFAULT_MAX_PARALLEL,
    Job,
    Option,
    Schedule,
    schedule,
)
from ngupgrade.core.errors import PolicyInvalid
from ngupgrade.core.model import AutoScale, NodeGroup
from ngupgrade.core.plan_warnings import (
    FIXED_SIZE_DRIFT,
    NODES_OUTSIDE_AUTOSCALER_RANGE,
    NODES_OVERRIDE_UNUSED,
    TAINTED_IN_STATE,
    PlanWarning,
)
from ngupgrade.core.platform import Platform, platform_of
from ngupgrade.core.quota.demand import Concurrency, concurrency
from ngupgrade.core.simulate import NodesSource, choose_nodes, plan_group

CURRENT_SIZE_ASSUMED = "current-size-assumed"
"""The preflight's code: an autoscaled group's live node count is unknown."""

GROUP_WARNINGS = (TAINTED_IN_STATE, NODES_OVERRIDE_UNUSED, FIXED_SIZE_DRIFT,
                  NODES_OUTSIDE_AUTOSCALER_RANGE)
"""Plan warnings about the group itself, given even when no policy is safe."""


@dataclass(frozen=True)
class GroupAdvice:
    """Everything ``advise`` says about one group.

    ``quota`` is None when no quota source was given (the quota is then not checked: a
    warning); ``workloads_checked`` says whether cluster objects judged the drains.
    """

    group: NodeGroup
    nodes: int
    nodes_source: NodesSource
    calibration: Calibration
    availability: Availability
    quota: QuotaJudge | None
    workloads_checked: bool
    search: Search
    warnings: tuple[PlanWarning, ...] = field(default=())
    """What ``ngupgrade plan`` warns about the policy to apply (:attr:`applied`; one source:
    :func:`ngupgrade.core.simulate.plan_group`), and ``current-size-assumed``."""
    scheduled: Candidate | None = None
    """The policy the schedule runs the group with (None: not scheduled); it differs from
    :attr:`recommended` when the group shares its cloud's headroom with others in a stage."""
    stage: int | None = None
    """The 1-based stage of the schedule the group runs in."""

    @property
    def address(self) -> str:
        return str(self.group.address)

    @property
    def platform(self) -> Platform:
        """Whose rules the group is upgraded under (Yandex or Selectel)."""
        return platform_of(self.group)

    @property
    def recommended(self) -> Candidate | None:
        return self.search.recommended

    @property
    def applied(self) -> Candidate | None:
        """The policy to apply: the schedule's, else the recommendation (the group alone)."""
        return self.scheduled or self.search.recommended

    @property
    def ok(self) -> bool:
        """A safe policy exists (an empty group needs none)."""
        return self.nodes == 0 or self.search.recommended is not None

    def minutes(self, c: Candidate) -> tuple[float, float]:
        """``(min, max)`` minutes of candidate ``c``."""
        m = self.calibration.minutes_per_cycle
        return (c.cycles_min * m, c.cycles_max * m)

    def surge_node_hours(self, c: Candidate) -> float:
        """Surge node-hours of ``c`` (upper bound, like ``cycles.max``)."""
        return c.surge_node_cycles * self.calibration.minutes_per_cycle / 60

    def option(self, c: Candidate) -> Option:
        """``c`` as a schedule option (its upper-bound minutes and its surge demand)."""
        demand = self.quota.demand(c.max_expansion) if self.quota is not None else {}
        return Option(c, self.minutes(c)[1], demand)


def advise_group(group: NodeGroup, *, live_size: int | None = None,
                 nodes_override: int | None = None, min_available: MinAvailable | None = None,
                 calibration: Calibration | None = None, quota: QuotaJudge | None = None,
                 workloads: WorkloadJudge | None = None) -> GroupAdvice:
    """Advise one group. ``calibration`` None: the documented default minutes per cycle.

    Raises:
        ValueError: a negative node count (bad input caught earlier by the readers).
    """
    nodes, source = choose_nodes(group, live_size=live_size, nodes_override=nodes_override)
    if nodes < 0:
        raise ValueError(f"node count must be >= 0, got {nodes}")
    warnings: list[PlanWarning] = []
    if (quota is not None and quota.listed and quota.current is None
            and isinstance(group.scale, AutoScale)):
        quota, note = _judged_size(quota, nodes, source, group.scale)
        warnings.append(PlanWarning(CURRENT_SIZE_ASSUMED, f"{group.address}: {note}"))
    cal = calibration or calibrate(())
    rule = availability(group, nodes, min_available, cluster_objects=workloads is not None)
    found = search(nodes, rule, quota, workloads,
                   upper=platform_of(group).upper_bound(group.scale))
    warnings[:0] = _plan_warnings(group, live_size, nodes_override, found.recommended,
                                  cal.minutes_per_cycle)
    return GroupAdvice(group=group, nodes=nodes, nodes_source=source, calibration=cal,
                       availability=rule, quota=quota, workloads_checked=workloads is not None,
                       search=found, warnings=tuple(warnings))


def _judged_size(quota: QuotaJudge, nodes: int, source: NodesSource, scale: AutoScale
                 ) -> tuple[QuotaJudge, str]:
    """The quota judged at the size the advice plans, when the live size is unknown.

    ``--nodes N`` says how many nodes the group has: the quota starts from N too (a plan of 20
    nodes against a quota judged at the autoscaler's 1..7 would let 20 surge nodes through
    a headroom of 13). With ``--at-current-size`` the planned N is the current size. Otherwise
    the preflight's worst case: today at the autoscaler min, grown to its max first.
    """
    if source == "override" or quota.at_current_size:
        why = "--nodes" if source == "override" else "the autoscaler max; --nodes sets it"
        return (replace(quota, current=nodes, _verdicts={}),
                f"live node count unknown; planned and quota judged at {nodes} nodes ({why})")
    return quota, (f"live node count unknown; assumed the autoscaler min {scale.min} today, "
                   f"grown to its max {scale.max} before the upgrade (worst case)")


def _plan_warnings(group: NodeGroup, live_size: int | None, nodes_override: int | None,
                   rec: Candidate | None, minutes_per_cycle: float) -> list[PlanWarning]:
    """The warnings ``ngupgrade plan`` gives for the recommended policy; without one, only
    those about the group itself (:data:`GROUP_WARNINGS`)."""
    if rec is None:
        policy = platform_of(group).default_policy
        try:
            plan = plan_group(group, live_size=live_size, nodes_override=nodes_override,
                              max_expansion=policy.max_expansion,
                              max_unavailable=policy.max_unavailable)
        except PolicyInvalid:  # a platform default outside a tiny group's bounds
            return []
        return [w for w in plan.warnings if w.code in GROUP_WARNINGS]
    plan = plan_group(group, live_size=live_size, nodes_override=nodes_override,
                      max_expansion=rec.max_expansion, max_unavailable=rec.max_unavailable,
                      minutes_per_cycle=minutes_per_cycle)
    return list(plan.warnings)


@dataclass(frozen=True)
class Advice:
    """The whole answer: each group's advice and the schedule of the safe ones.

    ``concurrency``: what "groups upgraded together" means for these groups
    (:func:`ngupgrade.core.quota.demand.concurrency`, the rule ``preflight`` counts by too):
    on Yandex one group of a cluster at a time, as the schedule's lanes run them."""

    groups: tuple[GroupAdvice, ...]
    schedule: Schedule
    concurrency: Concurrency = "one-per-cluster"

    @property
    def ok(self) -> bool:
        """A safe policy exists for every group (exit 0), else exit 1."""
        return all(g.ok for g in self.groups)


def scope_of(advice: GroupAdvice) -> str:
    """The operations scope of a group: its folder when known, else its cloud, else its
    cluster (``concurrent operations per folder``; reference, quotas section)."""
    g = advice.group
    if g.folder_id:
        return g.folder_id
    if advice.quota is not None and advice.quota.listed:
        return advice.quota.cloud_id
    return g.cluster_id


def advise_groups(groups: Sequence[NodeGroup], *,
                  live_sizes: Mapping[str, int] | None = None,
                  nodes_override: int | None = None,
                  min_available: MinAvailable | None = None,
                  calibrations: Mapping[str, Calibration] | None = None,
                  quotas: Mapping[str, QuotaJudge] | None = None,
                  workloads: Callable[[NodeGroup, int], WorkloadJudge | None] | None = None,
                  max_parallel: int = DEFAULT_MAX_PARALLEL) -> Advice:
    """Advise every group and schedule them together.

    Keyed by node-group id: ``live_sizes``, ``calibrations``; by Terraform address:
    ``quotas`` (one :class:`QuotaJudge` per group; those of one cloud share one limits
    mapping). ``workloads(group, nodes)`` gives a group's workload judge (None: no cluster
    objects for it).
    """
    sizes = live_sizes or {}
    cals = calibrations or {}
    judges = quotas or {}
    out: list[GroupAdvice] = []
    headroom: dict[str, dict[str, float | None]] = {}
    for group in groups:
        nodes, _ = choose_nodes(group, live_size=sizes.get(group.id),
                                nodes_override=nodes_override)
        judge = judges.get(str(group.address))
        wl = workloads(group, nodes) if workloads is not None else None
        advice = advise_group(group, live_size=sizes.get(group.id),
                              nodes_override=nodes_override, min_available=min_available,
                              calibration=cals.get(group.id), quota=judge, workloads=wl)
        out.append(advice)
        if judge is not None:
            room = headroom.setdefault(judge.cloud_id, {})
            for name, have in judge.headroom().items():
                held = room.get(name, have)  # a cluster's row, seen by each of its groups
                room[name] = min(held, have) if held is not None and have is not None else have
    jobs = [Job(a.address, a.quota.cloud_id if a.quota else None, scope_of(a),
                tuple(a.option(c) for c in _options(a)), cluster_id=a.group.cluster_id,
                serial=a.platform.cluster_groups == "one-at-a-time")
            for a in out if a.recommended is not None]
    plan = schedule(jobs, headroom, max_parallel=max_parallel)
    placed = {p.address: (i, p.option.candidate)
              for i, st in enumerate(plan.stages, start=1) for p in st.groups}
    return Advice(tuple(_with_place(a, placed.get(a.address)) for a in out), plan,
                  concurrency(groups))


def _with_place(advice: GroupAdvice, place: tuple[int, Candidate] | None) -> GroupAdvice:
    """``advice`` with its place in the schedule; the warnings follow the policy to apply."""
    if place is None:
        return advice
    stage, chosen = place
    if chosen == advice.recommended:
        return replace(advice, scheduled=chosen, stage=stage)
    kept = [w for w in advice.warnings if w.code in (*GROUP_WARNINGS, CURRENT_SIZE_ASSUMED)]
    live = advice.nodes if advice.nodes_source == "live" else None
    override = advice.nodes if advice.nodes_source == "override" else None
    policy = [w for w in _plan_warnings(advice.group, live, override, chosen,
                                        advice.calibration.minutes_per_cycle)
              if w.code not in GROUP_WARNINGS]
    return replace(advice, scheduled=chosen, stage=stage, warnings=tuple(kept + policy))


def _options(advice: GroupAdvice) -> list[Candidate]:
    """The recommendation first, then the menu's smaller surges, fastest first."""
    rec = advice.recommended
    assert rec is not None
    rest = [c for c in advice.search.menu
            if c.max_expansion < rec.max_expansion and c != rec]
    return [rec, *sorted(rest, key=lambda c: c.rank_key)]
