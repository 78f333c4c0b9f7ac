"""The advisor's schedule runs a cluster's groups one after another (field report C13: a
node-group update is refused while another operation upgrades the same cluster), as
``upgrade --schedule advised`` does: inside a stage the groups of one cluster form a lane, a
stage lasts as long as its longest lane (the max over clusters of the sum of that cluster's
groups' minutes), a lane holds one surge at a time (its largest counts against the cloud's
headroom) and one operation at a time (``--max-parallel`` counts clusters).

Every figure is worked out by hand in the comments; the groups' minutes are given (the upper
bound of each option), so only the placement is under test.
"""

from __future__ import annotations

from ngupgrade.cli.render.advise import advise_json, advise_text
from ngupgrade.core.advise.advice import advise_groups
from ngupgrade.core.advise.candidates import Candidate
from ngupgrade.core.advise.judge import MinAvailable, QuotaJudge
from ngupgrade.core.advise.schedule import Job, Option, Schedule, by_cluster, schedule
from ngupgrade.core.model import QuotaLimit
from ngupgrade.core.quota.catalog import INSTANCES
from tests.quota_builders import CLOUD, group

FOLDER = "b1gfolder"
A, B, C = "catclustera", "catclusterb", "catclusterc"


def option(vms: int, minutes: float) -> Option:
    """A surge-only policy ``vms/0`` taking ``minutes``, drawing ``vms`` VMs of headroom."""
    return Option(Candidate(vms, 0, 20, 1, 1, 20), minutes, {INSTANCES: vms})


def job(name: str, cluster: str, *options: Option, cloud: str | None = None) -> Job:
    return Job(name, cloud, FOLDER, options, cluster_id=cluster)


def placed(plan: Schedule) -> list[list[tuple[str, float, str | None]]]:
    """Per stage: (group, minutes from the start of the schedule it starts at, after whom)."""
    return [[(p.address, st.start_minutes + p.offset_minutes, p.after) for p in st.groups]
            for st in plan.stages]


def test_two_groups_of_one_cluster_and_one_of_another() -> None:
    # a1 10 min and a2 20 min in cluster A, b 25 min in cluster B; nothing limits the surge.
    # Slowest first: b opens stage 1 (25). a2 joins it (lane A: 20, within 25: adds 0).
    # a1 joins behind a2: lane A 20 + 10 = 30, the stage grows 30 - 25 = 5 < 10 alone.
    # One stage of max(25, 20 + 10) = 30 min, not max(25, 20, 10) = 25; alone: 55.
    plan = schedule([job("a1", A, option(1, 10)), job("a2", A, option(1, 20)),
                     job("b", B, option(1, 25))], {})
    assert placed(plan) == [[("b", 0, None), ("a2", 0, None), ("a1", 20, "a2")]]
    assert [[p.address for p in lane] for lane in plan.stages[0].lanes] == [["b"], ["a2", "a1"]]
    assert (plan.stages[0].minutes, plan.total_minutes, plan.sequential_minutes) == (30, 30, 55)


def test_groups_of_one_cluster_alone_get_a_stage_each() -> None:
    # a2 (20 min) opens stage 1; a1 (10 min) behind it would end at 30: adds 10, as much as a
    # stage of its own, and a tie opens a new stage. 20 + 10 = 30 either way.
    plan = schedule([job("a1", A, option(1, 10)), job("a2", A, option(1, 20))], {})
    assert placed(plan) == [[("a2", 0, None)], [("a1", 20, None)]]
    assert plan.total_minutes == 30
    assert plan.stages[1].why_new == (
        f"with stage 1: its cluster {A} runs one operation at a time: it "
        "would wait for a2 (20 min); joining stage 1 at 1/0 would add 10 min, no less than "
        "running alone")


def test_a_lane_holds_one_surge_at_a_time() -> None:
    # Headroom 10 VMs. b (cluster B) 25 min on 4 VMs; a2 (cluster A) 20 min on 6 VMs: 4 + 6 =
    # 10 fits. a1 (cluster A) alone 10 min on 8 VMs, or 12 min on 6 VMs. Behind a2 its surge
    # never overlaps a2's: the stage draws 4 + max(6, a1's). 8 VMs: 4 + 8 = 12 > 10, no; 6
    # VMs: 4 + 6 = 10, yes (summing every group, 4 + 6 + 6 = 16, it would not fit). Lane A:
    # 20 + 12 = 32, adding 7 < 10: it joins at 6 VMs. c (cluster C) 5 min on 1 VM: 10 + 1 >
    # 10, a stage of its own at 32. Total 32 + 5 = 37; alone 25 + 20 + 10 + 5 = 60.
    room = {CLOUD: {INSTANCES: 10.0}}
    plan = schedule([job("b", B, option(4, 25), cloud=CLOUD),
                     job("a2", A, option(6, 20), cloud=CLOUD),
                     job("a1", A, option(8, 10), option(6, 12), cloud=CLOUD),
                     job("c", C, option(1, 5), cloud=CLOUD)], room)
    assert placed(plan) == [[("b", 0, None), ("a2", 0, None), ("a1", 20, "a2")],
                            [("c", 32, None)]]
    assert [p.option.candidate.max_expansion for p in plan.stages[0].groups] == [4, 6, 6]
    assert (plan.total_minutes, plan.sequential_minutes) == (37, 60)
    assert plan.stages[1].why_new == (
        f"with stage 1: cloud {CLOUD}: compute.instances.count headroom 10 VMs, 10 VMs taken "
        "by the stage, 1 VM more needed")


def test_groups_of_a_cluster_that_upgrades_them_together_share_one_stage_and_add_up() -> None:
    # Selectel: the groups of a cluster surge at once (Platform.cluster_groups "together"), as
    # preflight counts them. a2 (20 min, 6 VMs) and a1 (10 min, 8 VMs or 12 min on 2 VMs) of
    # cluster A, headroom 10 VMs: no lane of A, so a1 starts with the stage beside a2, and
    # their surges add up: 6 + 8 = 14 > 10, 6 + 2 = 8 fits: a1 joins at 2/0, 12 min, adds 0.
    # Before: one lane of A, a1 waited for a2 (at 20 min) and drew max(6, 8) = 8 VMs, a
    # schedule preflight (which adds them up) refuses.
    room = {CLOUD: {INSTANCES: 10.0}}
    jobs = [Job(name, CLOUD, FOLDER, opts, cluster_id=A, serial=False)
            for name, opts in (("a2", (option(6, 20),)),
                               ("a1", (option(8, 10), option(2, 12))))]
    plan = schedule(jobs, room)
    assert placed(plan) == [[("a2", 0, None), ("a1", 0, None)]]
    assert [p.option.candidate.max_expansion for p in plan.stages[0].groups] == [6, 2]
    assert [[p.address for p in lane] for lane in plan.stages[0].lanes] == [["a2"], ["a1"]]
    assert plan.total_minutes == 20


def test_the_active_operations_limit_counts_clusters() -> None:
    # --max-parallel 2: b (B, 25), a2 and a1 (A, 20 and 10) are two operations at a time, so
    # all three share stage 1 (30 min, as in the first test); c (C, 5) would be a third:
    # stage 2 at 30. Total 35.
    plan = schedule([job("b", B, option(1, 25)), job("a2", A, option(1, 20)),
                     job("a1", A, option(1, 10)), job("c", C, option(1, 5))], {},
                    max_parallel=2)
    assert placed(plan) == [[("b", 0, None), ("a2", 0, None), ("a1", 20, "a2")],
                            [("c", 30, None)]]
    assert plan.total_minutes == 35
    assert plan.stages[1].why_new == (
        f"with stage 1: 2 operations already run in {FOLDER} (the active-operations limit, "
        "--max-parallel)")


def test_by_cluster_keeps_the_order_of_each_lane() -> None:
    assert by_cluster(["a1", "b1", "a2", "c1", "b2"], lambda s: s[0]) == [
        ["a1", "a2"], ["b1", "b2"], ["c1"]]


def test_node_groups_and_the_report() -> None:
    """The groups of tests/test_upgrade_schedule_lanes.py: a (cluster A, 11 nodes), b
    (cluster B, 12), c (cluster A, 11); headroom 10 VMs, --min-available 100% (surge only),
    6 minutes per cycle.

    Alone, each E' <= 10: a and c ceil(11/6) = 2 cycles (first at 6/0), 12 min on 6 VMs; b
    ceil(12/6) = 2 cycles at 6/0, 12 min. In input order (all 12 min): a opens stage 1; b
    beside a has 4 VMs: 4/0, ceil(12/4) = 3 cycles, 18 min, adding 6 < 12; c behind a (lane
    A's surge stays 6: 6 + 4 = 10) at 6/0 ends at 24, adding 6 < 12. One stage of 24 min
    (alone one after another: 36)."""
    shared = {INSTANCES: QuotaLimit(INSTANCES, 100, 90)}
    gs = [group("a", size=11, cluster_id=A, gid="catgroupa", policy=(1, 0)),
          group("b", size=12, cluster_id=B, gid="catgroupb", policy=(1, 0)),
          group("c", size=11, cluster_id=A, gid="catgroupc", policy=(1, 0))]
    quotas = {str(g.address): QuotaJudge(g, CLOUD, {INSTANCES: 1}, shared) for g in gs}
    advice = advise_groups(gs, quotas=quotas, min_available=MinAvailable(percent=100))
    doc = advise_json(advice)
    assert doc["schedule_minutes"] == {"total": 24, "sequential": 36}
    node = "yandex_kubernetes_node_group."
    assert doc["schedule"] == [{
        "stage": 1, "start_minutes": 0, "minutes": 24, "why_not_earlier": None, "groups": [
            {"address": node + "a", "max_expansion": 6, "max_unavailable": 0, "minutes": 12,
             "cluster_id": A, "start_minutes": 0, "after": None},
            {"address": node + "b", "max_expansion": 4, "max_unavailable": 0, "minutes": 18,
             "cluster_id": B, "start_minutes": 0, "after": None},
            {"address": node + "c", "max_expansion": 6, "max_unavailable": 0, "minutes": 12,
             "cluster_id": A, "start_minutes": 12, "after": node + "a"}]}]
    lines = advise_text(advice).splitlines()
    assert "  stage 1: starts at 0 min, takes up to 24 min" in lines
    assert (f"    {node}c  6/0, up to 12 min, starts at 12 min after {node}a (same cluster: "
            "one operation at a time)") in lines
    assert f"    {node}a  6/0, up to 12 min" in lines
