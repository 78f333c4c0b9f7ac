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
from dataclasses import dataclass

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
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.platform import Platform, platform_of
from ngupgrade.core.simulate import NodesSource, choose_nodes


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
    rule = availability(group, nodes, min_available, cluster_objects=workloads is not None)
    found = search(nodes, rule, quota, workloads,
                   upper=platform_of(group).upper_bound(group.scale))
    return GroupAdvice(group=group, nodes=nodes, nodes_source=source,
                       calibration=calibration or calibrate(()), availability=rule, quota=quota,
                       workloads_checked=workloads is not None, search=found)


@dataclass(frozen=True)
class Advice:
    """The whole answer: each group's advice and the schedule of the safe ones."""

    groups: tuple[GroupAdvice, ...]
    schedule: Schedule

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
    if advice.quota is not None:
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
            for qid, lim in judge.limits.items():
                room[qid] = lim.headroom
    jobs = [Job(a.address, a.quota.cloud_id if a.quota else None, scope_of(a),
                tuple(a.option(c) for c in _options(a)))
            for a in out if a.recommended is not None]
    return Advice(tuple(out), schedule(jobs, headroom, max_parallel=max_parallel))


def _options(advice: GroupAdvice) -> list[Candidate]:
    """The recommendation first, then the menu's smaller surges, fastest first."""
    rec = advice.recommended
    assert rec is not None
    rest = [c for c in advice.search.menu
            if c.max_expansion < rec.max_expansion and c != rec]
    return [rec, *sorted(rest, key=lambda c: c.rank_key)]
