"""The policy advisor's core (issue 14): candidates, judges, front, recommendation, schedule.

Every figure is computed by hand from the seeds (notes/seed-examples.md) and DESIGN.md
section 3, never copied from the code's output.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ngupgrade.core.advise import candidates as cand
from ngupgrade.core.advise.advice import advise_group, advise_groups
from ngupgrade.core.advise.calibrate import PastUpgrade, calibrate
from ngupgrade.core.advise.front import pareto_front
from ngupgrade.core.advise.judge import MinAvailable, QuotaJudge, Reason, availability
from ngupgrade.core.advise.recommend import search
from ngupgrade.core.errors import UsageError
from ngupgrade.core.model import DeployPolicy, NodeGroup, QuotaLimit
from ngupgrade.core.quota.catalog import INSTANCES
from ngupgrade.core.simulate import timeline
from tests.quota_builders import CLOUD, group

INSTANCES_ONLY = {INSTANCES: 1}
"""What one node consumes, narrowed to ``compute.instances.count`` so headrooms are easy to read."""


def judge(g: NodeGroup, headroom: int, *, limits: dict[str, QuotaLimit] | None = None,
          current: int | None = None) -> QuotaJudge:
    """A quota judge of ``g`` with ``headroom`` VMs left in the cloud (limit 100)."""
    shared = limits if limits is not None else {
        INSTANCES: QuotaLimit(INSTANCES, 100, 100 - headroom)}
    return QuotaJudge(g, CLOUD, INSTANCES_ONLY, shared, current=current)


def pairs(cs: Sequence[cand.Candidate]) -> list[tuple[int, int]]:
    return [(c.max_expansion, c.max_unavailable) for c in cs]


# --- candidates -----------------------------------------------------------------------------


@pytest.mark.parametrize(("nodes", "distinct"), [
    (20, 21 * 21 - 1),    # E', U' in 0..20, not both 0
    (5, 6 * 6 - 1),
    (200, 101 * 101 - 1),  # above 100 nodes nothing clamps: every accepted policy is distinct
    (1, 3),               # 1/0, 0/1, 1/1
    (0, 0),               # everything clamps to 0/0: nothing to do
])
def test_every_accepted_policy_once_per_effective_policy(nodes: int, distinct: int) -> None:
    found = list(cand.effective_policies(nodes))
    assert len(found) == distinct
    assert len(set(found)) == distinct
    assert all(p.max_expansion <= nodes and p.max_unavailable <= nodes for p in found)


def test_seed_001_twenty_nodes_at_2_2_take_5_to_10_cycles() -> None:
    # S-EX4 (seed 001 L201): "about five cycles instead of 10"; DESIGN section 3 keeps the
    # range: ceil(20 / (2 + 2)) = 5 .. ceil(20 / 2) = 10 waves. The 10 is a single knob of 2.
    both = cand.candidate(20, 2, 2)
    assert (both.cycles_min, both.cycles_max) == (5, 10)
    assert cand.candidate(20, 2, 0).speed_key == (10, 10)
    assert cand.candidate(20, 0, 2).speed_key == (10, 10)
    # The 2 surge nodes stay through all 10 waves; the last two old nodes are deleted in
    # wave 10: 2 x 10 = 20 node-cycles, at the default 6 minutes 2 node-hours.
    assert both.surge_node_cycles == 20
    g = group("big", size=20, policy=(2, 2))
    advice = advise_group(g, min_available=MinAvailable(count=18))
    assert advice.minutes(both) == (30, 60)
    assert advice.surge_node_hours(both) == 2


def test_surge_cost_of_the_worked_examples() -> None:
    # Y-EX2 / S-EX2, N=5 at 2/0: sizes 7, 7, 6 during the three cycles: 2 + 2 + 1 = 5.
    assert cand.candidate(5, 2, 0).surge_node_cycles == 5
    # Y-EX3 / S-EX3, N=5 at 2/2: "7 = 4/3", "7", "6 = 5/1" during waves 1, 2, 3: 2 + 2 + 1.
    assert cand.candidate(5, 2, 2).surge_node_cycles == 5
    assert (cand.candidate(5, 2, 2).cycles_min, cand.candidate(5, 2, 2).cycles_max) == (2, 3)
    # Y-EX1 / S-EX1, N=5 at 0/2: no surge node ever.
    assert cand.candidate(5, 0, 2).surge_node_cycles == 0


def test_surge_cost_matches_the_timeline_for_small_groups() -> None:
    # The closed form against the simulated timeline: the extra nodes at each drain step.
    for n in range(1, 13):
        for e in range(n + 1):
            for u in range(n + 1):
                if e == u == 0:
                    continue
                steps = timeline(n, DeployPolicy(e, u))
                by_wave = {s.wave: s.group_size - n for s in steps if s.action == "drain"}
                assert cand.surge_node_cycles(n, e, u) == sum(by_wave.values()), (n, e, u)


def test_block_minima_and_the_next_in_a_block() -> None:
    # U'=0 on 20 nodes: ceil(20/e) takes the values 20, 10, 7, 5, 4, 3, 2, 1 first at
    # e = 1, 2, 3, 4, 5, 7, 10, 20.
    assert [c.max_expansion for c in cand.column(20, 0, 20)] == [1, 2, 3, 4, 5, 7, 10, 20]
    # U'=10: e=0 and e=1 both take ceil(20/10) = ceil(20/11) = 2 cycles at least.
    assert cand.next_in_block(cand.candidate(20, 0, 10), 20) == cand.candidate(20, 1, 10)
    # U'=2: e=1 gives ceil(20/3) = 7, not 10: another block.
    assert cand.next_in_block(cand.candidate(20, 0, 2), 20) is None


# --- judges ---------------------------------------------------------------------------------


def test_min_available_parsing_and_floors() -> None:
    assert MinAvailable.parse("18").floor(20) == 18
    assert MinAvailable.parse("90%").floor(20) == 18
    assert MinAvailable.parse("50%").floor(5) == 3  # 2.5 rounded up, like minAvailable
    for bad in ("x", "-1", "101%", "1.5"):
        with pytest.raises(UsageError):
            MinAvailable.parse(bad)


def test_default_floor_one_node_down_and_the_autoscaler_min() -> None:
    fixed = availability(group("f", size=20), 20, None, cluster_objects=False)
    assert (fixed.floor, fixed.max_unavailable) == (19, 1)
    # With cluster objects only the whole group down is forbidden.
    drained = availability(group("f", size=20), 20, None, cluster_objects=True)
    assert (drained.floor, drained.max_unavailable) == (1, 19)
    # Seed 001 example 2 and L278: U below the autoscaler min (min 3 -> U <= 2).
    auto = availability(group("a", auto=(3, 10)), 10, MinAvailable(percent=50), False)
    assert (auto.floor, auto.max_unavailable) == (5, 2)
    assert auto.codes(3) == ("max-unavailable-at-autoscaler-min",)
    assert auto.codes(6) == ("below-min-available", "max-unavailable-at-autoscaler-min")
    # A group of one node: "one at a time" would be the whole group.
    one = availability(group("g", size=1), 1, None, cluster_objects=False)
    assert one.max_unavailable == 0


# --- recommendation -------------------------------------------------------------------------


def test_no_quota_check_default_floor_full_surge_wins() -> None:
    g = group("big", size=20, policy=(2, 2))
    advice = advise_group(g)
    rec = advice.recommended
    assert rec is not None and pairs([rec]) == [(20, 0)]
    assert advice.minutes(rec) == (6, 6)
    assert advice.surge_node_hours(rec) == 2  # 20 nodes above N for one 6-minute cycle
    # Nothing else is as fast; 0/1 is the only policy without surge cost.
    assert pairs(advice.search.front) == [(20, 0), (0, 1)]
    assert advice.search.rejected == ()


def test_quota_that_fits_only_one_surge_node() -> None:
    g = group("big", size=20, policy=(2, 2))
    advice = advise_group(g, quota=judge(g, headroom=1))
    s = advice.search
    assert s.max_expansion == 1
    rec = s.recommended
    # 1/1: ceil(20/2) = 10 .. ceil(20/1) = 20 cycles, 60..120 minutes; the surge node stays
    # until old node 20 is deleted in wave 20: 20 node-cycles, 2 node-hours. 0/1 takes as long
    # in the worst case (20 cycles, 120 minutes), with the same node down and no surge: it
    # dominates 1/1 on the figures the table shows, and is recommended.
    one_one = cand.candidate(20, 1, 1)
    assert advice.minutes(one_one) == (60, 120) and advice.surge_node_hours(one_one) == 2
    assert rec is not None and pairs([rec]) == [(0, 1)]
    assert advice.minutes(rec) == (120, 120)
    assert advice.surge_node_hours(rec) == 0
    assert pairs(s.front) == [(0, 1), (1, 0)]
    # Faster: 2/0 (10 cycles) is short on VMs by one; 0/2 (10 cycles) breaks the floor of 19.
    assert pairs([r.candidate for r in s.rejected]) == [(2, 0), (0, 2)]
    quota_reason, = s.rejected[0].reasons
    assert quota_reason.code == "quota-short"
    assert quota_reason.message == (f"cloud {CLOUD}: compute.instances.count needs 2 VMs, "
                                    "headroom 1 VM (short by 1 VM)")
    floor_reason, = s.rejected[1].reasons
    assert floor_reason.code == "below-min-available"
    assert "leaves 18 of 20 nodes Ready, below the floor of 19" in floor_reason.message


class PdbKeepsOneDown:
    """A hand-written workload judge: a PodDisruptionBudget with maxUnavailable 1 over pods
    spread one per node blocks any wave of two nodes or more."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []

    def __call__(self, policy: DeployPolicy) -> Sequence[Reason]:
        self.asked.append((policy.max_expansion, policy.max_unavailable))
        if policy.max_unavailable >= 2:
            return [Reason("pdb-blocks-eviction",
                           "PodDisruptionBudget shop/api allows 1 disruption, a wave drains "
                           f"{policy.max_unavailable} of its pods")]
        return []


def test_a_pdb_keeps_max_unavailable_at_one() -> None:
    g = group("web", size=10, policy=(0, 1))
    pdb = PdbKeepsOneDown()
    advice = advise_group(g, quota=judge(g, headroom=0), min_available=MinAvailable(percent=50),
                          workloads=pdb)
    s = advice.search
    assert (s.max_expansion, s.max_unavailable) == (0, 5)
    assert s.recommended is not None and pairs([s.recommended]) == [(0, 1)]
    assert advice.minutes(s.recommended) == (60, 60)
    # Only the front is judged: 0/1..0/5 (10, 5, 4, 3, 2 cycles), each once.
    assert sorted(pdb.asked) == [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]
    assert s.workload_checks == 5
    assert pairs(s.front) == [(0, 1)]
    # Near misses, nearest first: 2/0 (5 cycles, 10 node-cycles) short of VMs, 0/2 (5
    # cycles) blocked by the PDB, 0/6 (2 cycles) below the floor of 5.
    assert [(pairs([r.candidate])[0], [x.code for x in r.reasons]) for r in s.rejected] == [
        ((2, 0), ["quota-short"]),
        ((0, 2), ["pdb-blocks-eviction"]),
        ((0, 6), ["below-min-available"]),
    ]


def test_a_judge_rejection_lets_the_next_surge_of_the_block_in() -> None:
    # 20 nodes, floor 50% (U <= 10), headroom 1 VM: 1/10 and 0/10 both take 2..2 cycles; the
    # pods of a 10-node wave fit only with a surge node Ready.
    g = group("web", size=20, policy=(0, 1))

    def room(policy: DeployPolicy) -> Sequence[Reason]:
        if policy.max_unavailable >= 10 and policy.max_expansion == 0:
            return [Reason("pods-do-not-fit", "the pods of 10 nodes do not fit on 10")]
        return []

    advice = advise_group(g, quota=judge(g, headroom=1), min_available=MinAvailable(percent=50),
                          workloads=room)
    rec = advice.recommended
    # 1/10: ceil(20/11) = 2 .. ceil(20/10) = 2 cycles, the fastest that fits one surge node.
    assert rec is not None and pairs([rec]) == [(1, 10)]
    assert (rec.cycles_min, rec.cycles_max) == (2, 2)


def test_an_autoscaled_group_whose_min_forbids_u_at_or_above_it() -> None:
    # Autoscaled 3..10, offline: N = max = 10, current assumed min = 3. Worst case extra
    # nodes = 10 + min(E, 10) - 3 (the autoscaler grows first; DESIGN section 4): E=0 needs 7.
    g = group("batch", auto=(3, 10), policy=(0, 1))
    advice = advise_group(g, quota=judge(g, headroom=7), min_available=MinAvailable(percent=50))
    s = advice.search
    assert (s.max_expansion, s.max_unavailable) == (0, 2)
    assert advice.nodes == 10 and advice.nodes_source == "max"
    assert s.recommended is not None and pairs([s.recommended]) == [(0, 2)]
    assert advice.minutes(s.recommended) == (30, 30)
    by_policy = {pairs([r.candidate])[0]: [x.code for x in r.reasons] for r in s.rejected}
    # 3/0 (ceil(10/3) = 4 cycles) needs 10 + 3 - 3 = 10 VMs against 7.
    assert by_policy[(3, 0)] == ["quota-short"]
    assert by_policy[(0, 3)] == ["max-unavailable-at-autoscaler-min"]
    assert by_policy[(0, 6)] == ["below-min-available", "max-unavailable-at-autoscaler-min"]
    at_min = next(r for r in s.rejected if pairs([r.candidate]) == [(0, 3)])
    assert "at or above the autoscaler min 3" in at_min.reasons[0].message


def test_no_safe_policy_names_what_blocks_every_column() -> None:
    g = group("gpu", size=1, policy=(0, 1))
    advice = advise_group(g, quota=judge(g, headroom=0))
    assert not advice.ok and advice.recommended is None
    assert [(pairs([r.candidate])[0], [x.code for x in r.reasons])
            for r in advice.search.rejected] == [
        ((1, 0), ["quota-short"]), ((0, 1), ["below-min-available"])]


def test_pareto_front_drops_dominated_and_duplicates() -> None:
    a, b = cand.candidate(20, 1, 1), cand.candidate(20, 0, 1)
    c = cand.candidate(20, 1, 0)
    worse = cand.candidate(20, 2, 1)  # ceil(20/3) = 7..20 cycles, costs more than 1/1
    # 1/1 (10..20 cycles), 2/1 (7..20) and 0/1 (20) share the worst case and one node down;
    # 0/1 costs no surge: only it stays of the three. 1/0 takes no node down.
    assert pairs(pareto_front([worse, c, b, a, a])) == [(0, 1), (1, 0)]
    assert pairs(pareto_front([cand.candidate(20, 20, 0), a, b, c])) == [(20, 0), (0, 1)]


def test_the_front_drops_a_policy_beaten_in_the_worst_case() -> None:
    """3 nodes: 2/1 (1..3 cycles, 6..18 min, 2 of 3 Ready) beside 2/0 (2 cycles, 12 min, 3 of 3
    Ready, less surge): 2/0 is no worse on any figure the table shows but 2/1's lucky best
    case, so the front lists 2/0 and not 2/1."""
    two_one, two_zero = cand.candidate(3, 2, 1), cand.candidate(3, 2, 0)
    assert (two_one.cycles_min, two_one.cycles_max) == (1, 3)
    assert (two_zero.cycles_min, two_zero.cycles_max) == (2, 2)
    assert two_zero.surge_node_cycles < two_one.surge_node_cycles
    assert pairs(pareto_front([two_one, two_zero, cand.candidate(3, 0, 1)])) == [(2, 0), (0, 1)]


def test_search_walks_few_candidates_for_a_large_group() -> None:
    # 200 nodes, 10200 accepted policies; the default floor keeps 2 columns of block minima.
    g = group("huge", size=200, policy=(3, 0))
    s = search(200, availability(g, 200, None, False))
    assert s.recommended is not None and pairs([s.recommended]) == [(100, 0)]  # 2 cycles


# --- schedule -------------------------------------------------------------------------------


def test_two_groups_that_cannot_surge_together_run_one_after_the_other() -> None:
    shared = {INSTANCES: QuotaLimit(INSTANCES, 30, 20)}  # headroom 10 VMs in the cloud
    a = group("a", size=10, cluster_id="catclustera", gid="catgroupa")
    b = group("b", size=10, cluster_id="catclusterb", gid="catgroupb")
    quotas = {str(g.address): judge(g, 0, limits=shared) for g in (a, b)}
    advice = advise_groups([a, b], quotas=quotas)
    assert advice.ok
    # Each alone: 10/0, one 6-minute cycle, 10 VMs. Together 20 > 10: B waits for A.
    for ga in advice.groups:
        assert ga.recommended is not None and pairs([ga.recommended]) == [(10, 0)]
    plan = advice.schedule
    assert [[p.address for p in st.groups] for st in plan.stages] == [
        ["yandex_kubernetes_node_group.a"], ["yandex_kubernetes_node_group.b"]]
    assert [(st.start_minutes, st.minutes) for st in plan.stages] == [(0, 6), (6, 6)]
    assert plan.total_minutes == 12
    assert plan.stages[1].why_new == (
        f"with stage 1: cloud {CLOUD}: compute.instances.count headroom 10 VMs, 10 VMs taken "
        "by the stage, 10 VMs more needed; joining stage 1 at 0/1 would add 54 min, no less "
        "than running alone")  # 0/1: 10 cycles, 60 min, in a stage of 6


def test_two_groups_that_fit_together_share_one_stage() -> None:
    shared = {INSTANCES: QuotaLimit(INSTANCES, 30, 10)}  # headroom 20
    a = group("a", size=10, cluster_id="catclustera", gid="catgroupa")
    b = group("b", size=10, cluster_id="catclusterb", gid="catgroupb")
    quotas = {str(g.address): judge(g, 0, limits=shared) for g in (a, b)}
    plan = advise_groups([a, b], quotas=quotas).schedule
    assert len(plan.stages) == 1 and plan.total_minutes == 6
    assert plan.sequential_minutes == 12


def test_a_smaller_surge_joins_when_it_adds_less_than_running_alone() -> None:
    # Floor 100%: only surge policies. Headroom 30 VMs shared. A (40 nodes) alone: E' up to
    # 30, ceil(40/30) = 2 cycles, first reached at 20/0: 12 min on 20 VMs. B (20 nodes) alone:
    # 20/0, one 6-min cycle on 20 VMs: not beside A (10 VMs left). B at 10/0 beside A:
    # ceil(20/10) = 2 cycles = 12 min, within A's 12: adds 0 instead of 6.
    shared = {INSTANCES: QuotaLimit(INSTANCES, 100, 70)}
    a = group("a", size=40, cluster_id="catclustera", gid="catgroupa", policy=(0, 1))
    b = group("b", size=20, cluster_id="catclusterb", gid="catgroupb", policy=(0, 1))
    quotas = {str(g.address): judge(g, 0, limits=shared) for g in (a, b)}
    advice = advise_groups([a, b], quotas=quotas, min_available=MinAvailable(percent=100))
    assert [pairs([g.recommended]) for g in advice.groups if g.recommended] == [
        [(20, 0)], [(20, 0)]]
    plan = advice.schedule
    assert [[(p.address, pairs([p.option.candidate])[0]) for p in st.groups]
            for st in plan.stages] == [[("yandex_kubernetes_node_group.a", (20, 0)),
                                        ("yandex_kubernetes_node_group.b", (10, 0))]]
    assert (plan.total_minutes, plan.sequential_minutes) == (12, 18)


def test_a_smaller_surge_that_adds_as_much_as_running_alone_waits() -> None:
    # Headroom 15: A (10 nodes) 10/0, 6 min on 10 VMs; beside it B fits only 5/0:
    # ceil(10/5) = 2 cycles = 12 min, adding 6 to the stage: no better than its own 6-min
    # stage, so it waits.
    shared = {INSTANCES: QuotaLimit(INSTANCES, 100, 85)}  # headroom 15
    a = group("a", size=10, cluster_id="catclustera", gid="catgroupa", policy=(0, 1))
    b = group("b", size=10, cluster_id="catclusterb", gid="catgroupb", policy=(0, 1))
    quotas = {str(g.address): judge(g, 0, limits=shared) for g in (a, b)}
    plan = advise_groups([a, b], quotas=quotas,
                         min_available=MinAvailable(percent=100)).schedule
    assert [len(st.groups) for st in plan.stages] == [1, 1]
    assert plan.total_minutes == 12
    assert plan.stages[1].why_new is not None


def test_active_operations_limit() -> None:
    gs = [group(f"g{i}", size=3, cluster_id=f"catcluster{i}", gid=f"catgroup{i}")
          for i in range(3)]
    plan = advise_groups(gs, max_parallel=2).schedule
    assert [len(st.groups) for st in plan.stages] == [2, 1]
    assert plan.stages[1].why_new is not None
    assert "2 operations already run in" in plan.stages[1].why_new


# --- calibration ----------------------------------------------------------------------------


def test_calibration_is_the_median_minutes_per_wave() -> None:
    p22, p10 = DeployPolicy(2, 2), DeployPolicy(1, 0)
    history = [
        PastUpgrade(0, 80 * 60, 20, p22),      # 10 waves in 80 min: 8 per cycle
        PastUpgrade(0, 18 * 60, 3, p10),       # 3 waves in 18 min: 6
        PastUpgrade(0, 300 * 60, 10, p10),     # 10 waves in 300 min: 30 (a PDB held it)
        PastUpgrade(100, 159, 5, p10),         # 59 s: a policy change, no node replaced
        PastUpgrade(0, 600, 0, p10),           # no node: left out
    ]
    cal = calibrate(history)
    assert (cal.source, cal.minutes_per_cycle, cal.operations) == ("history", 8, 3)
    assert cal.samples == (8, 6, 30)
    assert calibrate([]).source == "default" and calibrate([]).minutes_per_cycle == 6
    assert calibrate(history, override=4.5).source == "option"


# --- platforms ------------------------------------------------------------------------------


def test_selectel_bounds_and_where_to_change_the_strategy() -> None:
    from dataclasses import replace

    from ngupgrade.cli.render.advise import group_json

    # Seed 001 L30, L44: each knob 0..the node count; fixed N=5: 6 x 6 - 1 policies.
    assert len(list(cand.effective_policies(5, upper=5))) == 35
    g = replace(group("s", size=5), platform="selectel")
    doc = group_json(advise_group(g))
    assert (doc["recommended"]["max_expansion"], doc["recommended"]["max_unavailable"]) == (5, 0)
    assert doc["platform"] == "selectel"
    assert doc["set_policy"] is None and doc["terraform"] is None
    assert "Изменить стратегию обновления" in doc["change_hint"]


# --- workloads through the real drain check -------------------------------------------------


def test_a_pdb_keeps_u_at_one_through_the_drain_check() -> None:
    from ngupgrade.core.advise.workloads import DrainJudge
    from ngupgrade.core.drain.index import ClusterIndex
    from tests import drain_builders as d

    # 3 nodes of 4000m, 2 api pods of 1000m on each (6 replicas), PDB maxUnavailable 1
    # (allowed 1: seed 004 PDB arithmetic). No surge fits the quota.
    # 0/1: the 2 pods of the drained node go one by one onto the 2000m free on each other
    #      node: slower, never blocked.
    # 0/2: 4 pods leave 2 nodes; the 1 node left takes 2; the 3rd finds no room, the budget
    #      never recovers (5 healthy, 5 required) and the 4th eviction is refused.
    g = d.group(size=3, policy=(0, 1))
    pods = [d.pod(f"api-{n}-{k}", n, cpu=1000, app="api", owner=("ReplicaSet", "api-rs"))
            for n in ("n1", "n2", "n3") for k in range(2)]
    snap = d.cluster([d.node("n1"), d.node("n2"), d.node("n3")], pods,
                     workloads=d.deployment("api", 6),
                     pdbs=(d.pdb("api", "api", max_unavailable=1),))
    drain = DrainJudge(g, ClusterIndex.build(snap), nodes=3)
    shared = {INSTANCES: QuotaLimit(INSTANCES, 10, 10)}
    advice = advise_group(g, quota=QuotaJudge(g, CLOUD, INSTANCES_ONLY, shared),
                          workloads=drain)
    s = advice.search
    # With cluster objects the floor only forbids the whole group down: U' <= 2.
    assert (s.max_expansion, s.max_unavailable) == (0, 2)
    assert s.recommended is not None and pairs([s.recommended]) == [(0, 1)]
    assert advice.minutes(s.recommended) == (18, 18)
    # The front of 0/1 (3 cycles) and 0/2 (2 cycles): two drain simulations.
    assert drain.checked == 2
    blocked = next(r for r in s.rejected if pairs([r.candidate]) == [(0, 2)])
    codes = [x.code for x in blocked.reasons]
    assert "pdb-blocks-eviction" in codes and "pods-do-not-fit" in codes
    assert any("5 healthy, 5 required" in x.message for x in blocked.reasons)


# --- one group size, one set of warnings, the policy to apply ----------------------------------


def test_nodes_above_the_autoscaler_max_judge_the_quota_from_that_size() -> None:
    """auto 1..7, --nodes 20, headroom 13 VMs: the group has 20 nodes, so a surge of E' needs
    E' VMs (not the 7 + min(E, 7) - 1 = 13 of a group grown from its min to its max): E' up
    to 13; the fastest under it is ceil(20/13) = 2 cycles, first reached at 10/0 (20/10 = 2)."""
    g = group("batch", size=None, auto=(1, 7), policy=(2, 1))
    advice = advise_group(g, nodes_override=20, quota=judge(g, 13))
    assert advice.nodes == 20 and advice.search.max_expansion == 13
    assert advice.recommended is not None and pairs([advice.recommended]) == [(10, 0)]
    assert [w.code for w in advice.warnings if w.code == "current-size-assumed"] == [
        "current-size-assumed"]
    peak = next(w.message for w in advice.warnings if w.code == "peak-above-autoscaler-max")
    assert "reaches 30 nodes" in peak and "worst case" not in peak  # 20 + 10, never below


def test_at_current_size_offline_plans_and_judges_one_size() -> None:
    """auto 1..7 offline: N = 7 (the max). At the current size the quota is judged at those
    7 nodes too: 7/0 needs 7 VMs; with a headroom of 6 E' stops at 6 (ceil(7/6) = 2 cycles,
    first at 4/0). Worst case instead: 7 + min(E, 7) - 1 = 13 VMs for 7/0; headroom 13 lets
    7/0 through, with the min-assumed warning."""
    g = group("batch", size=None, auto=(1, 7), policy=(2, 1))
    at_now = QuotaJudge(g, CLOUD, INSTANCES_ONLY, {INSTANCES: QuotaLimit(INSTANCES, 100, 94)},
                        at_current_size=True)
    advice = advise_group(g, quota=at_now)
    assert advice.nodes == 7 and advice.search.max_expansion == 6
    assert advice.recommended is not None and pairs([advice.recommended]) == [(4, 0)]
    note = next(w.message for w in advice.warnings if w.code == "current-size-assumed")
    assert "planned and quota judged at 7 nodes" in note
    worst = advise_group(g, quota=judge(g, 13))
    assert worst.search.max_expansion == 7
    assert "autoscaler min 1 today" in next(
        w.message for w in worst.warnings if w.code == "current-size-assumed")


def test_a_floor_above_the_group_blocks_every_policy() -> None:
    """3 nodes, --min-available 4: not even 3/0 (3 of 3 Ready) keeps 4 Ready: none is safe."""
    g = group("workers", size=3)
    advice = advise_group(g, min_available=MinAvailable(count=4))
    assert advice.recommended is None and not advice.ok
    messages = [x.message for r in advice.search.rejected for x in r.reasons]
    assert messages and all("above the group's 3" in m for m in messages)


def test_advice_carries_the_plan_warnings_of_the_policy_to_apply() -> None:
    """3 nodes, --min-available 0, no quota: 0/3 ties 3/0 at one cycle and costs no surge:
    recommended 0/3, which drains the whole group at once (plan's whole-group-unavailable).
    40 nodes, headroom 1 VM, --cycle-minutes 6, floor 39: 1/1, ceil(40/2)..40 cycles,
    up to 240 min > 60: terraform-update-timeout-exceeded; --nodes on a fixed group unused."""
    small = advise_group(group("w", size=3), min_available=MinAvailable(count=0))
    assert small.recommended is not None and pairs([small.recommended]) == [(0, 3)]
    assert "whole-group-unavailable" in [w.code for w in small.warnings]
    big = group("big", size=40)
    slow = advise_group(big, quota=judge(big, 1), nodes_override=5)
    assert slow.recommended is not None and pairs([slow.recommended]) == [(0, 1)]
    codes = [w.code for w in slow.warnings]
    assert "terraform-update-timeout-exceeded" in codes and "nodes-override-unused" in codes


def test_the_policy_to_apply_is_the_one_the_schedule_runs() -> None:
    """The case of test_a_smaller_surge_joins_when_it_adds_less_than_running_alone: headroom
    30 VMs, A (40 nodes) 20/0; B (20 nodes) alone 20/0, but the schedule runs it at 10/0 beside
    A. The policy to apply (the printed command) is 10/0: both applied fit, 20 + 10 = 30."""
    shared = {INSTANCES: QuotaLimit(INSTANCES, 100, 70)}
    a = group("a", size=40, cluster_id="catclustera", gid="catgroupa", policy=(0, 1))
    b = group("b", size=20, cluster_id="catclusterb", gid="catgroupb", policy=(0, 1))
    quotas = {str(g.address): judge(g, 0, limits=shared) for g in (a, b)}
    advice = advise_groups([a, b], quotas=quotas, min_available=MinAvailable(percent=100))
    ga, gb = advice.groups
    assert ga.applied is not None and pairs([ga.applied]) == [(20, 0)] and ga.stage == 1
    assert gb.recommended is not None and pairs([gb.recommended]) == [(20, 0)]
    assert gb.applied is not None and pairs([gb.applied]) == [(10, 0)] and gb.stage == 1
    # applied together: 20 + 10 = 30 VMs = the headroom
    assert ga.applied.max_expansion + gb.applied.max_expansion == 30
