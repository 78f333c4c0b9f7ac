"""A schedule for upgrading several node groups: which run together, in what order. Pure.

The schedule is a sequence of stages; the groups of a stage run at the same time, a stage starts
when the one before has finished, and a stage lasts as long as its slowest group (the upper
bound of its duration). Inside a stage (DESIGN.md sections 4 and 9):

* the surges of the groups of one cloud add up and must fit that cloud's one headroom
  (``demand <= limit - usage`` per quota; an unknown quota does not constrain, as in the
  preflight); between stages the surge nodes are gone (every policy ends at ``N`` nodes);
* at most ``max_parallel`` groups run per operations scope (the folder when the state names
  it, else the cloud): "concurrent operations per folder: 15" (reference, quotas section);
  the API refuses more with "The limit on maximum number of active operations has exceeded"
  (field report C23).

Minimising the total time exactly is a bin-packing problem; the groups are placed greedily,
slowest first: each either joins an earlier stage, with the fastest of its safe policies that
still fits there (a slower, smaller surge can be worth it when it barely lengthens the stage),
or opens a new stage with its own fastest policy, whichever adds less time (a tie opens a new
stage: a group alone is simpler to watch; among stages, the earlier wins). Each new stage
after the first says why its first group could not join.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ngupgrade.core.advise.candidates import Candidate
from ngupgrade.core.units import human_quota

DEFAULT_MAX_PARALLEL = 15
"""Concurrent operations per folder (reference ``yandex-and-terraform-facts.md``, quotas)."""


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
    scope (folder or cloud id)."""

    address: str
    cloud_id: str | None
    scope: str
    options: tuple[Option, ...]


@dataclass(frozen=True)
class Placed:
    """A group in a stage, with the policy it runs with there."""

    address: str
    option: Option


@dataclass(frozen=True)
class Stage:
    """Groups that run together; ``start_minutes`` from the start of the schedule.
    ``why_new``: why the first group of this stage did not join an earlier one."""

    start_minutes: float
    minutes: float
    groups: tuple[Placed, ...]
    why_new: str | None = None


@dataclass(frozen=True)
class Schedule:
    """The stages, the total time, and the time of running every group alone one after another
    with its own recommendation (``sequential_minutes``), to compare."""

    stages: tuple[Stage, ...]
    total_minutes: float
    sequential_minutes: float


@dataclass
class _Open:
    minutes: float
    placed: list[Placed] = field(default_factory=list)
    used: dict[str, dict[str, int]] = field(default_factory=dict)  # cloud -> quota -> demand
    scopes: dict[str, int] = field(default_factory=dict)
    why_new: str | None = None


def _fits(stage: _Open, job: Job, option: Option,
          headroom: Mapping[str, Mapping[str, float | None]]) -> bool:
    """True when ``option`` of ``job`` fits beside what ``stage`` already holds (numbers only:
    the scheduler asks this often)."""
    if job.cloud_id is None:
        return True
    used = stage.used.get(job.cloud_id, {})
    room = headroom.get(job.cloud_id, {})
    for qid, amount in option.demand.items():
        have = room.get(qid)
        if amount > 0 and have is not None and used.get(qid, 0) + amount > have:
            return False
    return True


def _misfit(stage: _Open, job: Job, option: Option,
            headroom: Mapping[str, Mapping[str, float | None]], max_parallel: int) -> str:
    """Why ``option`` of ``job`` does not fit in ``stage``, for the report."""
    if stage.scopes.get(job.scope, 0) >= max_parallel:
        runs = "1 operation already runs" if max_parallel == 1 else (
            f"{max_parallel} operations already run")
        return f"{runs} in {job.scope} (the active-operations limit, --max-parallel)"
    used = stage.used.get(job.cloud_id or "", {})
    room = headroom.get(job.cloud_id or "", {})
    for qid, amount in sorted(option.demand.items()):
        have = room.get(qid)
        if amount > 0 and have is not None and used.get(qid, 0) + amount > have:
            return (f"cloud {job.cloud_id}: {qid} headroom {human_quota(qid, have)}, "
                    f"{human_quota(qid, used.get(qid, 0))} taken by the stage, "
                    f"{human_quota(qid, amount)} more needed")
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


def schedule(jobs: Sequence[Job], headroom: Mapping[str, Mapping[str, float | None]], *,
             max_parallel: int = DEFAULT_MAX_PARALLEL) -> Schedule:
    """Place ``jobs`` into stages (module docstring).

    ``headroom``: cloud id -> quota id -> ``limit - usage`` (None: unknown, not constraining).
    Each job's options must be fastest first with the surge (and so the demand) decreasing,
    as :func:`ngupgrade.core.advise.group.advise_groups` builds them. Jobs without options
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
        choice: tuple[float, int, Option] | None = None  # (added minutes, stage index, option)
        for index, stage in enumerate(stages):
            if stage.scopes.get(job.scope, 0) >= max_parallel:
                continue
            option = _first_fit(stage, job, headroom)
            if option is None:
                continue
            added = max(0.0, option.minutes - stage.minutes)
            if choice is None or added < choice[0]:
                choice = (added, index, option)
                if added == 0:
                    break
        if choice is not None and choice[0] < own.minutes:
            stage = stages[choice[1]]
            _put(stage, job, choice[2])
            stage.minutes = max(stage.minutes, choice[2].minutes)
            continue
        why_not = None
        if stages:
            why_not = f"with stage 1: {_misfit(stages[0], job, own, headroom, max_parallel)}"
            if choice is not None:
                c = choice[2].candidate
                why_not += (f"; joining stage {choice[1] + 1} at {c.max_expansion}/"
                            f"{c.max_unavailable} would add {choice[0]:g} min, no less than "
                            "running alone")
        fresh = _Open(minutes=own.minutes, why_new=why_not)
        _put(fresh, job, own)
        stages.append(fresh)
    out: list[Stage] = []
    start = 0.0
    for stage in stages:
        out.append(Stage(start, stage.minutes, tuple(stage.placed), stage.why_new))
        start += stage.minutes
    alone = sum(j.options[0].minutes for j in order)
    return Schedule(tuple(out), start, alone)


def _put(stage: _Open, job: Job, option: Option) -> None:
    stage.placed.append(Placed(job.address, option))
    stage.scopes[job.scope] = stage.scopes.get(job.scope, 0) + 1
    if job.cloud_id is not None:
        used = stage.used.setdefault(job.cloud_id, {})
        for qid, amount in option.demand.items():
            used[qid] = used.get(qid, 0) + amount
