"""A schedule for upgrading several node groups: which run together, in what order. Pure.

The schedule is a sequence of stages; a stage starts when the one before has finished. The
cloud runs one operation at a time per cluster (hashicorp/terraform-provider-google#3650: a
node-group update is refused while another operation upgrades the same cluster), so inside a stage
the groups of one cluster form a *lane* and run one after another, in the order they were placed,
while the lanes of different clusters run at the same time (this is what ``upgrade --schedule
advised`` does: :func:`by_cluster` gives it the lanes). A group's minutes are the upper bound of its
duration; a lane lasts the sum of its groups' minutes, and a stage as long as its longest lane: the
max over clusters of the sum of that cluster's groups' minutes in the stage. Inside a stage
(docs/quota-preflight.md, docs/advise.md):

* the surges that can be up at once must fit their cloud's one headroom
  (``demand <= limit - usage`` per quota; an unknown quota does not constrain, as in the
  preflight): one group of each lane at a time, so per quota the stage draws the sum over its
  lanes of the largest demand in each lane; between two groups of a lane, and between stages,
  the surge nodes are gone (every policy ends at ``N`` nodes);
* at most ``max_parallel`` operations run at once per operations scope (the folder when the
  state names it, else the cloud), that is ``max_parallel`` lanes (clusters): "concurrent
  operations per folder: 15" (reference, quotas section); the API refuses more with "The limit
  on maximum number of active operations has exceeded" (arenadata/ansible-module-yandex-cloud PR
  #9).

Minimising the total time exactly is a bin-packing problem; the groups are placed greedily,
slowest first: each either joins an earlier stage (at the end of its cluster's lane there),
with the fastest of its safe policies that still fits, or opens a new stage with its own
fastest policy, whichever adds less time (a tie opens a new stage: a group alone is simpler to
watch; among stages, the earlier wins). So a group joins a stage where its cluster already has
a lane only when another cluster's lane is longer there and it ends no later than that plus
its own time; else it gets a stage of its own. Each new stage after the first says why its
first group could not join.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from ngupgrade.core.units import human_quota

if TYPE_CHECKING:
    # an annotation only: `upgrade --help` and `advise --help` read DEFAULT_MAX_PARALLEL
    from ngupgrade.core.advise.candidates import Candidate

DEFAULT_MAX_PARALLEL = 15
"""Concurrent operations per folder (the Yandex Cloud docs' quota tables)."""

T = TypeVar("T")


def by_cluster(items: Sequence[T], cluster_of: Callable[[T], str]) -> list[list[T]]:
    """The lanes of a stage: ``items`` grouped by cluster, each lane in the items' order, the
    lanes in the order of their first item. A lane's groups run one after another, the lanes
    at the same time (module docstring; hashicorp/terraform-provider-google#3650).

    >>> by_cluster(["a1", "b1", "a2"], lambda s: s[0])
    [['a1', 'a2'], ['b1']]
    """
    lanes: dict[str, list[T]] = {}
    for item in items:
        lanes.setdefault(cluster_of(item), []).append(item)
    return list(lanes.values())


@dataclass(frozen=True)
class Option:
    """One safe policy of a group for the schedule: its minutes (upper bound) and its surge
    demand on the cloud's quotas (quota id -> amount; empty when the quota is not checked)."""

    candidate: Candidate
    minutes: float
    demand: Mapping[str, int]


@dataclass(frozen=True)
class Job:
    """A group to schedule: ``options`` fastest first (its recommendation is the first);
    ``cloud_id`` names the headroom it draws on (None: not checked); ``scope`` the operations
    scope (folder or cloud id); ``cluster_id`` its cluster. ``serial``: its platform runs one
    operation of a cluster at a time (Yandex; :attr:`ngupgrade.core.platform.Platform.
    cluster_groups`), so the groups of its cluster in a stage form one lane; False (Selectel:
    the groups of a cluster upgrade together), each group is a lane of its own and their
    surges add up, as ``preflight`` counts them (:func:`ngupgrade.core.quota.demand.
    concurrency`)."""

    address: str
    cloud_id: str | None
    scope: str
    options: tuple[Option, ...]
    cluster_id: str
    serial: bool = True

    @property
    def lane(self) -> str:
        """The key of the lane it runs in: its cluster when ``serial``, else its address."""
        return self.cluster_id if self.serial else f"{self.cluster_id}/{self.address}"


@dataclass(frozen=True)
class Placed:
    """A group in a stage, with the policy it runs with there. ``offset_minutes``: when it
    starts, in minutes from the start of its stage (the groups of its cluster placed before it
    in the stage run first); ``after``: the address of the group of its cluster it waits for
    (None: it starts with the stage)."""

    address: str
    option: Option
    cluster_id: str = ""
    offset_minutes: float = 0.0
    after: str | None = None
    lane: str = ""
    """The key of its lane (:attr:`Job.lane`; empty: its cluster)."""


@dataclass(frozen=True)
class Stage:
    """Groups that run together; ``start_minutes`` from the start of the schedule;
    ``minutes`` the longest lane (the max over clusters of the sum of their groups' minutes).
    ``why_new``: why the first group of this stage did not join an earlier one."""

    start_minutes: float
    minutes: float
    groups: tuple[Placed, ...]
    why_new: str | None = None

    @property
    def lanes(self) -> list[list[Placed]]:
        """The groups per cluster (:func:`by_cluster`): each lane runs one after another."""
        return by_cluster(self.groups, lambda p: p.lane or p.cluster_id)


@dataclass(frozen=True)
class Schedule:
    """The stages, the total time, and the time of running every group alone one after another
    with its own recommendation (``sequential_minutes``), to compare."""

    stages: tuple[Stage, ...]
    total_minutes: float
    sequential_minutes: float


@dataclass
class _Open:
    """A stage being filled. ``lanes``: cluster -> minutes of its groups so far; ``peaks``:
    (cloud, cluster) -> quota -> the largest demand of the lane; ``used``: cloud -> quota -> the
    sum of the peaks of its lanes; ``scopes``: scope -> the clusters running there;
    ``longest``: the longest lane (kept as lanes grow); ``last``: cluster -> the address of
    the last group of its lane; ``drawn``: cloud -> ``used`` of that cloud as a hashable
    value, and per lane its ``peaks`` the same way (what :class:`_FirstFits` looks up)."""

    placed: list[Placed] = field(default_factory=list)
    lanes: dict[str, float] = field(default_factory=dict)
    peaks: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    used: dict[str, dict[str, int]] = field(default_factory=dict)
    scopes: dict[str, set[str]] = field(default_factory=dict)
    why_new: str | None = None
    longest: float = 0.0
    last: dict[str, str] = field(default_factory=dict)
    drawn: dict[object, tuple[tuple[str, int], ...]] = field(default_factory=dict)

    @property
    def minutes(self) -> float:
        """The longest lane (module docstring)."""
        return self.longest

    def added(self, job: Job, option: Option) -> float:
        """Minutes the stage grows by when ``job`` joins it with ``option`` (at the end of
        its cluster's lane)."""
        return max(0.0, self.lanes.get(job.lane, 0.0) + option.minutes - self.longest)

    def scope_full(self, job: Job, max_parallel: int) -> bool:
        """True when ``job`` would be one lane too many in its operations scope."""
        running = self.scopes.get(job.scope, set())
        return job.lane not in running and len(running) >= max_parallel

    def peak(self, job: Job, qid: str) -> int:
        """The largest demand on ``qid`` of ``job``'s lane in this stage (0: none yet)."""
        return self.peaks.get((job.cloud_id or "", job.lane), {}).get(qid, 0)

    def need(self, job: Job, qid: str, amount: int) -> int:
        """The cloud's demand on ``qid`` in this stage once ``job`` joins with ``amount``:
        its lane draws its largest demand, one group at a time."""
        mine = self.peak(job, qid)
        return self.used.get(job.cloud_id or "", {}).get(qid, 0) - mine + max(mine, amount)

    def put(self, job: Job, option: Option) -> None:
        start = self.lanes.get(job.lane, 0.0)
        self.placed.append(Placed(job.address, option, job.cluster_id, start,
                                  self.last.get(job.lane), job.lane))
        self.last[job.lane] = job.address
        self.lanes[job.lane] = start + option.minutes
        self.longest = max(self.longest, start + option.minutes)
        self.scopes.setdefault(job.scope, set()).add(job.lane)
        if job.cloud_id is not None:
            peak = self.peaks.setdefault((job.cloud_id, job.lane), {})
            used = self.used.setdefault(job.cloud_id, {})
            for qid, amount in option.demand.items():
                if amount > peak.get(qid, 0):
                    used[qid] = used.get(qid, 0) + amount - peak.get(qid, 0)
                    peak[qid] = amount
            self.drawn[job.cloud_id] = tuple(sorted(used.items()))
            self.drawn[(job.cloud_id, job.lane)] = tuple(sorted(peak.items()))


def _fits(stage: _Open, job: Job, option: Option,
          headroom: Mapping[str, Mapping[str, float | None]]) -> bool:
    """True when ``option`` of ``job`` fits beside what ``stage`` already holds (numbers only:
    the scheduler asks this often)."""
    if job.cloud_id is None:
        return True
    room = headroom.get(job.cloud_id, {})
    for qid, amount in option.demand.items():
        have = room.get(qid)
        if amount > 0 and have is not None and stage.need(job, qid, amount) > have:
            return False
    return True


def _misfit(stage: _Open, job: Job, option: Option,
            headroom: Mapping[str, Mapping[str, float | None]], max_parallel: int) -> str:
    """Why ``option`` of ``job`` does not fit in ``stage``, for the report."""
    if stage.scope_full(job, max_parallel):
        runs = "1 operation already runs" if max_parallel == 1 else (
            f"{max_parallel} operations already run")
        return f"{runs} in {job.scope} (the active-operations limit, --max-parallel)"
    room = headroom.get(job.cloud_id or "", {})
    for qid, amount in sorted(option.demand.items()):
        have = room.get(qid)
        if amount > 0 and have is not None and stage.need(job, qid, amount) > have:
            taken = stage.need(job, qid, 0) - stage.peak(job, qid)  # the other lanes
            return (f"cloud {job.cloud_id}: {qid} headroom {human_quota(qid, have)}, "
                    f"{human_quota(qid, taken)} taken by the stage, "
                    f"{human_quota(qid, amount)} more needed")
    lane = [p.address for p in stage.placed if p.lane == job.lane]
    if lane:
        return (f"its cluster {job.cluster_id} runs one operation at a time: "
                f"it would wait for {', '.join(lane)} "
                f"({stage.lanes[job.lane]:g} min)")
    return "it fits, but a stage of its own is faster"


def _first_fit(stage: _Open, job: Job,
               headroom: Mapping[str, Mapping[str, float | None]]) -> Option | None:
    """The fastest option of ``job`` that fits in ``stage``, or None.

    Options are fastest first, which is largest surge first (the menu keeps a smaller surge only
    when it is slower), and demand grows with the surge: once one fits, every later one does.
    So a binary search finds the first that fits.
    """
    options = job.options
    if not _fits(stage, job, options[-1], headroom):
        return None
    lo, hi = 0, len(options) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _fits(stage, job, options[mid], headroom):
            hi = mid
        else:
            lo = mid + 1
    return options[lo]


class _FirstFits:
    """:func:`_first_fit` of one job in every stage, computed once per distinct situation.

    Whether an option fits a stage depends only on what the stage already draws from the
    job's cloud and what the job's own lane there already holds (:meth:`_Open.need`). Stages
    alike in those (all full, all empty: the common case when many groups share one headroom)
    share one answer, so placing ``G`` jobs into ``S`` stages costs ``G x S`` dictionary
    look-ups and one binary search per job and distinct situation, instead of a binary search
    for every job and stage.
    """

    def __init__(self, job: Job, headroom: Mapping[str, Mapping[str, float | None]]) -> None:
        self.job, self.headroom = job, headroom
        room = headroom.get(job.cloud_id, {}) if job.cloud_id is not None else {}
        self.limited = any(amount > 0 and room.get(q) is not None
                           for o in job.options for q, amount in o.demand.items())
        self.lane = (job.cloud_id, job.lane)
        self.known: dict[tuple[object, object], Option | None] = {}

    def __call__(self, stage: _Open) -> Option | None:
        if not self.limited:  # nothing limits it: the fastest fits everywhere
            return self.job.options[0]
        key = (stage.drawn.get(self.job.cloud_id), stage.drawn.get(self.lane))
        if key not in self.known:
            self.known[key] = _first_fit(stage, self.job, self.headroom)
        return self.known[key]


def _join(stages: Sequence[_Open], job: Job,
          headroom: Mapping[str, Mapping[str, float | None]],
          max_parallel: int) -> tuple[float, int, Option] | None:
    """The stage ``job`` would join and how: (minutes it adds, stage index, option), the
    fewest added minutes, the earliest stage among equals (0: it fits without growing the
    stage, and no later stage can do better); None when it fits in none.

    A stage is skipped unread when even the job's fastest option there could not add fewer
    minutes than the best found so far: it adds at least its lane's minutes plus the fastest
    option's, less the stage's longest lane.
    """
    fastest = min(o.minutes for o in job.options)
    first_fit = _FirstFits(job, headroom)
    choice: tuple[float, int, Option] | None = None
    for index, stage in enumerate(stages):
        lane = stage.lanes.get(job.lane, 0.0)
        if choice is not None and lane + fastest - stage.longest >= choice[0]:
            continue  # an earlier stage wins a tie
        if stage.scope_full(job, max_parallel):
            continue
        option = first_fit(stage)
        if option is None:
            continue
        added = max(0.0, lane + option.minutes - stage.longest)
        if choice is None or added < choice[0]:
            choice = (added, index, option)
            if added == 0:
                break
    return choice


def schedule(jobs: Sequence[Job], headroom: Mapping[str, Mapping[str, float | None]], *,
             max_parallel: int = DEFAULT_MAX_PARALLEL) -> Schedule:
    """Place ``jobs`` into stages (module docstring).

    ``headroom``: cloud id -> quota id -> ``limit - usage`` (None: unknown, not constraining).
    Each job's options must be fastest first with the surge (and so the demand) decreasing,
    as :func:`ngupgrade.core.advise.advice.advise_groups` builds them. Jobs without options
    (no safe policy) are left out; the caller reports them.

    Raises:
        ValueError: ``max_parallel`` below 1.
    """
    if max_parallel < 1:
        raise ValueError(f"max_parallel must be >= 1, got {max_parallel}")
    order = sorted((j for j in jobs if j.options),
                   key=lambda j: -j.options[0].minutes)  # stable: ties keep input order
    stages: list[_Open] = []
    for job in order:
        own = job.options[0]
        choice = _join(stages, job, headroom, max_parallel)
        if choice is not None and choice[0] < own.minutes:
            stages[choice[1]].put(job, choice[2])
            continue
        why_not = None
        if stages:
            why_not = f"with stage 1: {_misfit(stages[0], job, own, headroom, max_parallel)}"
            if choice is not None:
                c = choice[2].candidate
                why_not += (f"; joining stage {choice[1] + 1} at {c.max_expansion}/"
                            f"{c.max_unavailable} would add {choice[0]:g} min, no less than "
                            "running alone")
        fresh = _Open(why_new=why_not)
        fresh.put(job, own)
        stages.append(fresh)
    out: list[Stage] = []
    start = 0.0
    for stage in stages:
        out.append(Stage(start, stage.minutes, tuple(stage.placed), stage.why_new))
        start += stage.minutes
    alone = sum(j.options[0].minutes for j in order)
    return Schedule(tuple(out), start, alone)
