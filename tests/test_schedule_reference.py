"""The schedule's faster stage search places every group exactly where the search it replaced
did: that search (every open stage, every time, a binary search in each) is kept here as the
reference, and both run on random inputs with ties, shared and unknown headrooms, several
clouds, clusters and scopes and a small ``max_parallel``. Invariants of the result are checked
from the placed groups alone. The worked cases are in ``test_advise_schedule.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ngupgrade.core.advise import schedule as sched
from ngupgrade.core.advise.candidates import Candidate
from ngupgrade.core.advise.schedule import Job, Option, Schedule, schedule

CORES = "compute.instanceCores.count"
VMS = "compute.instances.count"


def reference_join(stages: Sequence[sched._Open], job: Job,
                   headroom: Mapping[str, Mapping[str, float | None]],
                   max_parallel: int) -> tuple[float, int, Option] | None:
    """The search as it was: every stage in order, a binary search in each, the fewest added
    minutes (the earliest stage among equals), stopping at 0."""
    choice = None
    for index, stage in enumerate(stages):
        if stage.scope_full(job, max_parallel):
            continue
        option = sched._first_fit(stage, job, headroom)
        if option is None:
            continue
        added = max(0.0, stage.lanes.get(job.cluster_id, 0.0) + option.minutes
                    - max(stage.lanes.values(), default=0.0))
        if choice is None or added < choice[0]:
            choice = (added, index, option)
            if added == 0:
                break
    return choice


def options(draw: st.DrawFn, room: Mapping[str, float | None]) -> tuple[Option, ...]:
    """Fastest first, surge (and demand) decreasing, minutes increasing (ties allowed); the
    fastest fits the cloud's headroom alone, as the advisor's recommendation does."""
    count = draw(st.integers(1, 4))
    per_node = draw(st.sampled_from([1, 2, 4]))
    most = min([12] + [int(have) // (per_node if q == CORES else 1)
                       for q, have in room.items() if have is not None])
    surges = sorted(draw(st.lists(st.integers(0, max(most, 0)), min_size=1, max_size=count,
                                  unique=True)), reverse=True)
    count = len(surges)
    minutes = sorted(draw(st.lists(st.integers(1, 6), min_size=count, max_size=count)))
    return tuple(Option(Candidate(e, 0, m, 1, 1, float(m)), float(m * 10),
                        {VMS: e, CORES: e * per_node})
                 for e, m in zip(surges, minutes, strict=True))


@st.composite
def inputs(draw: st.DrawFn) -> tuple[list[Job], dict[str, dict[str, float | None]], int]:
    room = st.one_of(st.none(), st.integers(0, 30).map(float))
    headroom = {cloud: {VMS: draw(room), CORES: draw(room)} for cloud in ("c1", "c2")}
    jobs = []
    for i in range(draw(st.integers(1, 14))):
        cloud = draw(st.sampled_from(["c1", "c2", None]))
        jobs.append(Job(f"g{i}", cloud, draw(st.sampled_from(["f1", "f2"])),
                        options(draw, headroom[cloud] if cloud else {}),
                        cluster_id=draw(st.sampled_from(["k1", "k2", "k3", "k4"]))))
    return jobs, headroom, draw(st.integers(1, 3))


def with_reference(jobs: list[Job], headroom: dict[str, dict[str, float | None]],
                   max_parallel: int) -> Schedule:
    """The schedule the replaced search makes (everything else is the same code)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(sched, "_join", reference_join)
        return schedule(jobs, headroom, max_parallel=max_parallel)


def check_invariants(plan: Schedule, jobs: list[Job],
                     headroom: dict[str, dict[str, float | None]], max_parallel: int) -> None:
    """What every schedule must satisfy, recomputed from the placed groups."""
    by_name = {j.address: j for j in jobs}
    assert sorted(p.address for s in plan.stages for p in s.groups) == sorted(by_name)
    start = 0.0
    for stage in plan.stages:
        lanes: dict[str, float] = {}
        peaks: dict[tuple[str, str], dict[str, int]] = {}
        scopes: dict[str, set[str]] = {}
        for p in stage.groups:
            job = by_name[p.address]
            assert p.option in job.options
            assert p.offset_minutes == lanes.get(job.cluster_id, 0.0)
            lanes[job.cluster_id] = lanes.get(job.cluster_id, 0.0) + p.option.minutes
            scopes.setdefault(job.scope, set()).add(job.cluster_id)
            if job.cloud_id is not None:
                peak = peaks.setdefault((job.cloud_id, job.cluster_id), {})
                for q, amount in p.option.demand.items():
                    peak[q] = max(peak.get(q, 0), amount)
        assert stage.minutes == max(lanes.values())
        assert stage.start_minutes == start
        start += stage.minutes
        assert all(len(running) <= max_parallel for running in scopes.values())
        for cloud, room in headroom.items():
            for q, have in room.items():
                drawn = sum(v.get(q, 0) for (c, _k), v in peaks.items() if c == cloud)
                if have is not None:
                    assert drawn <= have
    assert plan.total_minutes == start


@settings(max_examples=400, deadline=None)
@given(case=inputs())
def test_same_schedule_as_the_search_it_replaced(case: tuple) -> None:
    jobs, headroom, max_parallel = case
    plan = schedule(jobs, headroom, max_parallel=max_parallel)
    assert plan == with_reference(jobs, headroom, max_parallel)
    check_invariants(plan, jobs, headroom, max_parallel)


def test_many_groups_under_one_full_headroom_each_get_a_stage() -> None:
    # 300 groups of one cloud whose 10 VMs each group's fastest policy takes whole, in 3
    # clusters: no two fit together at their fastest, and a slower policy beside another
    # adds more than running alone, so each gets a stage; the reference agrees.
    menu = tuple(Option(Candidate(e, 0, 10 - e, 1, 1, 1.0), float(100 - 5 * e), {VMS: e})
                 for e in (10, 5, 0))
    jobs = [Job(f"g{i:03d}", "c1", "f1", menu, cluster_id=f"k{i % 3}") for i in range(300)]
    headroom: dict[str, dict[str, float | None]] = {"c1": {VMS: 10.0}}
    plan = schedule(jobs, headroom)
    assert len(plan.stages) == 300 and plan.total_minutes == 300 * 50
    assert plan == with_reference(jobs, headroom, sched.DEFAULT_MAX_PARALLEL)
