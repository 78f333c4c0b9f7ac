"""Upgrade simulation: the worked examples of seeds 000 and 001 with their exact numbers and
step sequences, field reports C04, C05, C12, and property tests of the invariants."""

from __future__ import annotations

import math

import pytest
from _plan_groups import auto, fixed
from hypothesis import given
from hypothesis import strategies as st

from ngupgrade.core import plan_warnings as warn
from ngupgrade.core import policy as pol
from ngupgrade.core.errors import PolicyInvalid
from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.simulate import (
    DEFAULT_MINUTES_PER_CYCLE,
    Cycles,
    Duration,
    Step,
    cycles,
    duration,
    min_available_nodes,
    peak_nodes,
    plan_group,
    surge_nodes,
    timeline,
)


def seq(steps: tuple[Step, ...]) -> list[tuple[str, int, int, int, int]]:
    return [(s.action, s.nodes, s.group_size, s.new_nodes, s.wave) for s in steps]


# --- seed 000: the three 5-node examples -----------------------------------------------------


def test_seed000_surge_only_5_nodes_2_0() -> None:
    """E=2, U=0: create 2, drain 2, delete 2; again; then 1 (3 cycles, 5 -> 7 -> 5 ...)."""
    assert seq(timeline(5, DeployPolicy(2, 0))) == [
        ("create", 2, 7, 2, 1), ("drain", 2, 7, 2, 1), ("delete", 2, 5, 2, 1),
        ("create", 2, 7, 4, 2), ("drain", 2, 7, 4, 2), ("delete", 2, 5, 4, 2),
        ("create", 1, 6, 5, 3), ("drain", 1, 6, 5, 3), ("delete", 1, 5, 5, 3),
    ]
    plan = plan_group(fixed(5, 2, 0))
    assert (plan.surge_nodes, plan.peak_nodes, plan.min_available_nodes) == (2, 7, 5)
    assert plan.cycles == Cycles(3, 3)
    assert [s.group_size for s in plan.timeline if s.action != "drain"] == [7, 5, 7, 5, 6, 5]
    assert plan.warnings == ()


def test_seed000_unavailable_only_5_nodes_0_2() -> None:
    """E=0, U=2: two nodes drained and updated in place at a time: 2, 2, 1."""
    assert seq(timeline(5, DeployPolicy(0, 2))) == [
        ("drain", 2, 5, 0, 1), ("update_in_place", 2, 5, 2, 1),
        ("drain", 2, 5, 2, 2), ("update_in_place", 2, 5, 4, 2),
        ("drain", 1, 5, 4, 3), ("update_in_place", 1, 5, 5, 3),
    ]
    plan = plan_group(fixed(5, 0, 2))
    assert (plan.surge_nodes, plan.peak_nodes, plan.min_available_nodes) == (0, 5, 3)
    assert plan.cycles == Cycles(3, 3)


def test_seed000_combined_5_nodes_2_2() -> None:
    """E=2, U=2: 5 -> 7 (2 new) -> drain waves 2, 2, 1 -> 7 -> 6 -> 5; 3 to 7 Ready nodes."""
    assert seq(timeline(5, DeployPolicy(2, 2))) == [
        ("create", 2, 7, 2, 1),
        ("drain", 2, 7, 2, 1), ("update_in_place", 2, 7, 4, 1),
        ("drain", 2, 7, 4, 2), ("update_in_place", 1, 7, 5, 2), ("delete", 1, 6, 5, 2),
        ("drain", 1, 6, 5, 3), ("delete", 1, 5, 5, 3),
    ]
    plan = plan_group(fixed(5, 2, 2))
    assert (plan.surge_nodes, plan.peak_nodes, plan.min_available_nodes) == (2, 7, 3)
    assert plan.cycles == Cycles(min=2, max=3)  # 3 drain waves fit the range
    # "two old nodes replaced by the surge nodes, three updated by reboot"
    assert sum(s.nodes for s in plan.timeline if s.action == "update_in_place") == 3
    assert sum(s.nodes for s in plan.timeline if s.action == "delete") == 2


def test_seed001_20_nodes_2_2_takes_about_5_cycles_instead_of_10() -> None:
    plan = plan_group(fixed(20, 2, 2))
    assert plan.cycles == Cycles(min=5, max=10)
    assert cycles(20, DeployPolicy(2, 0)) == Cycles(10, 10)
    assert cycles(20, DeployPolicy(0, 2)) == Cycles(10, 10)
    assert (plan.peak_nodes, plan.min_available_nodes) == (22, 18)
    assert max(s.wave for s in plan.timeline) == 10


# --- seed 001: autoscaling examples ----------------------------------------------------------


def test_seed001_example1_shrunk_group_makes_fewer_surge_nodes() -> None:
    """auto 1..5, E=3 U=0, shrunk to 2 nodes: 2 surge nodes, 1 cycle, peak 4."""
    plan = plan_group(auto(1, 5, 3, 0), live_size=2)
    assert plan.nodes_source == "live"
    assert plan.effective == DeployPolicy(2, 0)
    assert (plan.surge_nodes, plan.peak_nodes, plan.min_available_nodes) == (2, 4, 2)
    assert plan.cycles == Cycles(1, 1)
    assert seq(plan.timeline) == [
        ("create", 2, 4, 2, 1), ("drain", 2, 4, 2, 1), ("delete", 2, 2, 2, 1),
    ]
    assert plan.warning_codes == (warn.MAX_EXPANSION_CLAMPED,)


def test_seed001_example2_shrunk_group_is_drained_whole() -> None:
    """auto 1..5, E=0 U=3, shrunk to 2 nodes: both nodes drained at once."""
    plan = plan_group(auto(1, 5, 0, 3), live_size=2)
    assert plan.effective == DeployPolicy(0, 2)
    assert (plan.surge_nodes, plan.peak_nodes, plan.min_available_nodes) == (0, 2, 0)
    assert plan.cycles == Cycles(1, 1)
    assert seq(plan.timeline) == [("drain", 2, 2, 0, 1), ("update_in_place", 2, 2, 2, 1)]
    assert plan.warning_codes == (
        warn.MAX_UNAVAILABLE_CLAMPED, warn.WHOLE_GROUP_UNAVAILABLE,
        warn.MAX_UNAVAILABLE_AT_AUTOSCALER_MIN,
    )


def test_seed001_example3_max_unavailable_equals_group_size() -> None:
    """auto 1..5, E=4 U=4, 4 nodes: 4 created while all 4 old are drained: possible downtime."""
    plan = plan_group(auto(1, 5, 4, 4), live_size=4)
    assert plan.effective == DeployPolicy(4, 4)
    assert (plan.surge_nodes, plan.peak_nodes, plan.min_available_nodes) == (4, 8, 0)
    assert plan.cycles == Cycles(1, 1)
    assert seq(plan.timeline) == [
        ("create", 4, 8, 4, 1), ("drain", 4, 8, 4, 1), ("delete", 4, 4, 4, 1),
    ]
    assert plan.warning_codes == (
        warn.WHOLE_GROUP_UNAVAILABLE, warn.MAX_UNAVAILABLE_AT_AUTOSCALER_MIN,
        warn.PEAK_ABOVE_AUTOSCALER_MAX,
    )


def test_seed001_surge_up_to_twice_the_autoscaler_max() -> None:
    """max 7 and max_expansion 7: up to 14 nodes during the upgrade (offline: N = max)."""
    plan = plan_group(auto(1, 7, 7, 0))
    assert (plan.nodes, plan.nodes_source) == (7, "max")
    assert plan.peak_nodes == 14 == 2 * 7
    assert warn.PEAK_ABOVE_AUTOSCALER_MAX in plan.warning_codes


def test_autoscaled_nodes_source_live_then_override_then_max() -> None:
    group = auto(2, 10, 1, 0)
    assert (plan_group(group, live_size=4).nodes, plan_group(group, live_size=4).nodes_source) \
        == (4, "live")
    assert plan_group(group, nodes_override=6).nodes_source == "override"
    assert plan_group(group, nodes_override=6).nodes == 6
    assert (plan_group(group).nodes, plan_group(group).nodes_source) == (10, "max")
    both = plan_group(group, live_size=4, nodes_override=6)
    assert (both.nodes, both.nodes_source) == (4, "live")
    assert warn.NODES_OVERRIDE_UNUSED in both.warning_codes


def test_nodes_override_on_a_fixed_group_is_reported_unused() -> None:
    plan = plan_group(fixed(3, 1, 0), nodes_override=9)
    assert (plan.nodes, plan.nodes_source) == (3, "fixed")
    assert plan.warning_codes == (warn.NODES_OVERRIDE_UNUSED,)
    assert "--nodes 9 not used" in plan.warnings[0].message
    assert plan_group(fixed(3, 1, 0), nodes_override=3).warnings == ()


# --- C04: clamping to the group size ---------------------------------------------------------


def test_c04_a_surge_above_size_is_clamped_peak_6_not_8() -> None:
    plan = plan_group(fixed(3, 5, 0))
    assert plan.effective == DeployPolicy(3, 0)
    assert (plan.surge_nodes, plan.peak_nodes) == (3, 6)
    assert plan.cycles == Cycles(1, 1)
    assert plan.policy.policy == DeployPolicy(5, 0)  # the configured value is kept
    assert plan.warning_codes == (warn.MAX_EXPANSION_CLAMPED,)
    assert "max_expansion 5" in plan.warnings[0].message
    assert "at most 3" in plan.warnings[0].message


def test_c04_b_no_clamp() -> None:
    plan = plan_group(fixed(3, 2, 0))
    assert plan.effective == DeployPolicy(2, 0)
    assert (plan.surge_nodes, plan.peak_nodes) == (2, 5)
    assert plan.cycles == Cycles(2, 2)  # ceil(3/2)
    assert plan.warnings == ()


def test_c04_c_unavailable_above_a_one_node_group_is_valid_but_warned() -> None:
    plan = plan_group(fixed(1, 0, 2))
    assert plan.effective == DeployPolicy(0, 1)
    assert plan.min_available_nodes == 0
    assert plan.warning_codes == (warn.MAX_UNAVAILABLE_CLAMPED, warn.WHOLE_GROUP_UNAVAILABLE)
    assert seq(plan.timeline) == [("drain", 1, 1, 0, 1), ("update_in_place", 1, 1, 1, 1)]


@pytest.mark.parametrize(("e", "u", "n"), [(100, 0, 1), (0, 100, 7), (100, 100, 3), (50, 1, 49)])
def test_c04_kind_values_up_to_100_clamp_to_any_size(e: int, u: int, n: int) -> None:
    plan = plan_group(fixed(n, e, u))
    assert plan.effective == DeployPolicy(min(e, n), min(u, n))
    assert plan.peak_nodes <= 2 * n
    assert plan.min_available_nodes >= 0


# --- C05: validation before anything, and the unset default ---------------------------------


@pytest.mark.parametrize(
    ("e", "u", "match"),
    [(0, 0, "at least one of max_expansion / max_unavailable must be > 0"),
     (101, 0, "max_expansion 101 is out of range 0..100"),
     (-1, 1, "max_expansion -1 is out of range 0..100")],
)
def test_c05_abc_invalid_policy_fails_the_plan(e: int, u: int, match: str) -> None:
    with pytest.raises(PolicyInvalid, match=match) as info:
        plan_group(fixed(4, e, u))
    assert info.value.message.startswith("yandex_kubernetes_node_group.workers: ")


def test_c05_invalid_override_fails_even_on_a_valid_state() -> None:
    with pytest.raises(PolicyInvalid, match="at least one"):
        plan_group(fixed(4, 2, 0), max_expansion=0)
    with pytest.raises(PolicyInvalid, match="max_unavailable 101"):
        plan_group(fixed(4, 2, 0), max_unavailable=101)


def test_c05_d_unset_policy_plans_with_assumed_3_0() -> None:
    plan = plan_group(fixed(4, None))
    assert plan.policy == pol.ResolvedPolicy(DeployPolicy(3, 0), "default", assumed=True)
    assert plan.effective == DeployPolicy(3, 0)
    assert (plan.surge_nodes, plan.peak_nodes) == (3, 7)
    assert plan.cycles == Cycles(2, 2)
    assert plan.warning_codes == (warn.POLICY_ASSUMED,)


def test_c05_d_live_policy_beats_the_assumed_default() -> None:
    plan = plan_group(fixed(4, None), live_policy=DeployPolicy(1, 1))
    assert plan.policy == pol.ResolvedPolicy(DeployPolicy(1, 1), "live")
    assert plan.warnings == ()


# --- C12: duration and the Terraform update timeout -----------------------------------------


def test_default_minutes_per_cycle_is_c12s_six() -> None:
    assert DEFAULT_MINUTES_PER_CYCLE == 6


def test_c12_base_50_nodes_1_0_takes_300_minutes() -> None:
    plan = plan_group(fixed(50, 1, 0))
    assert plan.cycles == Cycles(50, 50)
    assert plan.duration == Duration(6, 300, 300)
    assert plan.warning_codes == (warn.UPDATE_TIMEOUT_EXCEEDED,)
    assert 'timeouts { update = "6h" }' in plan.warnings[0].message


def test_c12_variant_5_0_is_10_cycles_60_minutes_borderline() -> None:
    plan = plan_group(fixed(50, 5, 0))
    assert plan.cycles == Cycles(10, 10)
    assert plan.duration == Duration(6, 60, 60)
    assert plan.warning_codes == (warn.UPDATE_TIMEOUT_BORDERLINE,)
    assert "timeouts { update" in plan.warnings[0].message


def test_c12_variant_2_2_is_13_cycles_at_least() -> None:
    plan = plan_group(fixed(50, 2, 2))
    assert plan.cycles == Cycles(min=13, max=25)  # ceil(50/4), ceil(50/2)
    assert plan.duration == Duration(6, 78, 150)
    assert plan.warning_codes == (warn.UPDATE_TIMEOUT_EXCEEDED,)
    assert 'timeouts { update = "3h" }' in plan.warnings[0].message


def test_c12_kind_cycle_minutes_and_timeout_are_parameters() -> None:
    plan = plan_group(fixed(50, 5, 0), minutes_per_cycle=3)
    assert plan.duration == Duration(3, 30, 30)
    assert plan.warnings == ()
    plan = plan_group(fixed(50, 1, 0), update_timeout_minutes=600)
    assert plan.warnings == ()
    plan = plan_group(fixed(4, 1, 0), minutes_per_cycle=20)  # few nodes, slow cycles
    assert plan.duration.max_minutes == 80
    assert plan.warning_codes == (warn.UPDATE_TIMEOUT_EXCEEDED,)


def test_duration_rejects_non_positive_cycle_time() -> None:
    with pytest.raises(ValueError, match="minutes per cycle"):
        duration(Cycles(1, 1), 0)


# --- group node limit ------------------------------------------------------------------------


def test_peak_above_the_per_group_node_limit() -> None:
    assert plan_group(fixed(190, 10, 0)).warning_codes == (warn.UPDATE_TIMEOUT_EXCEEDED,)
    plan = plan_group(fixed(190, 11, 0))
    assert plan.peak_nodes == 201
    assert warn.PEAK_ABOVE_GROUP_NODE_LIMIT in plan.warning_codes
    assert warn.PEAK_ABOVE_GROUP_NODE_LIMIT in plan_group(
        fixed(10, 3, 0), group_node_limit=12).warning_codes


def test_autoscaled_worst_case_peak_above_the_limit() -> None:
    plan = plan_group(auto(1, 150, 100, 0), live_size=50)
    assert plan.peak_nodes == 100
    assert warn.PEAK_ABOVE_GROUP_NODE_LIMIT in plan.warning_codes  # 150 + 100 = 250 > 200


# --- edge cases ------------------------------------------------------------------------------


def test_empty_autoscaled_group() -> None:
    plan = plan_group(auto(0, 5, 3, 0), live_size=0)
    assert plan.timeline == ()
    assert plan.cycles == Cycles(0, 0)
    assert plan.duration == Duration(6, 0, 0)
    assert plan.effective == DeployPolicy(0, 0)
    assert warn.EMPTY_GROUP in plan.warning_codes


def test_timeline_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError):
        timeline(-1, DeployPolicy(1, 0))
    with pytest.raises(ValueError):
        timeline(3, DeployPolicy(0, 0))
    with pytest.raises(ValueError):
        cycles(3, DeployPolicy(0, 0))


# --- properties (issue 3 "Done when") --------------------------------------------------------

nodes_st = st.integers(min_value=1, max_value=250)
policy_st = st.tuples(st.integers(0, 100), st.integers(0, 100)).filter(lambda p: p != (0, 0))


@given(nodes_st, policy_st)
def test_properties_of_every_plan(n: int, knobs: tuple[int, int]) -> None:
    configured = DeployPolicy(*knobs)
    eff = pol.clamp(configured, n)
    steps = timeline(n, eff)
    span = cycles(n, eff)

    assert surge_nodes(eff) == eff.max_expansion
    assert peak_nodes(n, eff) == n + surge_nodes(eff)
    assert min_available_nodes(n, eff) == n - eff.max_unavailable
    assert 1 <= span.min <= span.max <= n
    assert span.min == math.ceil(n / (eff.max_expansion + eff.max_unavailable))

    # Ends with N nodes, all on the new version.
    assert steps[-1].group_size == n
    assert steps[-1].new_nodes == n
    # Waves: 1..cycles.max, in order.
    waves = [s.wave for s in steps]
    assert waves == sorted(waves)
    assert sorted(set(waves)) == list(range(1, span.max + 1))

    size, new, old, cordoned = n, 0, n, 0
    for step in steps:
        assert step.nodes >= 1
        if step.action == "create":
            size += step.nodes
            new += step.nodes
        elif step.action == "drain":
            assert cordoned == 0  # one wave drains at a time
            cordoned = step.nodes
            assert step.nodes <= (eff.max_unavailable or eff.max_expansion)
        elif step.action == "update_in_place":
            assert cordoned >= step.nodes
            cordoned -= step.nodes
            old -= step.nodes
            new += step.nodes
        else:  # delete
            assert cordoned >= step.nodes
            cordoned -= step.nodes
            old -= step.nodes
            size -= step.nodes
        assert (step.group_size, step.new_nodes) == (size, new)
        assert new + old == size
        # Never above the peak, never fewer Ready nodes than N - U'.
        assert size <= peak_nodes(n, eff)
        assert size - cordoned >= min_available_nodes(n, eff)
        assert size >= n - eff.max_unavailable
    assert old == 0 and cordoned == 0


@given(nodes_st, policy_st, st.floats(min_value=0.5, max_value=60))
def test_duration_is_cycles_times_minutes(n: int, knobs: tuple[int, int], m: float) -> None:
    eff = pol.clamp(DeployPolicy(*knobs), n)
    span = cycles(n, eff)
    got = duration(span, m)
    assert got.min_minutes == span.min * m <= got.max_minutes == span.max * m


@given(st.integers(1, 60), st.integers(1, 60), st.integers(0, 60), policy_st)
def test_autoscaled_plans_clamp_to_the_size_at_the_start(
    lo: int, span: int, live: int, knobs: tuple[int, int],
) -> None:
    hi = lo + span
    plan = plan_group(auto(lo, hi, *knobs), live_size=live)
    assert plan.nodes == live
    assert plan.effective == pol.clamp(DeployPolicy(*knobs), live)
    assert plan.peak_nodes <= live + min(knobs[0], live) <= 2 * max(live, 1) + live
    if plan.peak_nodes > hi:
        assert warn.PEAK_ABOVE_AUTOSCALER_MAX in plan.warning_codes
