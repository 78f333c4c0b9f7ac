"""Deploy-policy validation, defaults, clamping, resolution and warnings.

Sources: seed 000 (ranges, default 3/0, not both 0), seed 001 (clamp, autoscaling examples),
field reports C04 (clamp direction), C05 (0/0, out of range, unset read as 0/0), C12 (timeout).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ngupgrade.core import plan_warnings as warn
from ngupgrade.core import policy as pol
from ngupgrade.core.errors import EXIT_CHECK_FAILED, CheckFailed, PolicyInvalid
from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale

# --- validation (seed 000; C05) -------------------------------------------------------------


def test_c05_a_both_zero_rejected_with_the_documented_message() -> None:
    with pytest.raises(PolicyInvalid) as info:
        pol.validate(DeployPolicy(0, 0))
    assert pol.BOTH_ZERO_MESSAGE == "at least one of max_expansion / max_unavailable must be > 0"
    assert pol.BOTH_ZERO_MESSAGE in str(info.value)
    assert isinstance(info.value, CheckFailed)
    assert info.value.exit_code == EXIT_CHECK_FAILED == 1


@pytest.mark.parametrize(
    ("policy", "named"),
    [
        (DeployPolicy(101, 0), "max_expansion 101 is out of range 0..100"),  # C05 B
        (DeployPolicy(-1, 1), "max_expansion -1 is out of range 0..100"),  # C05 C
        (DeployPolicy(1, 101), "max_unavailable 101 is out of range 0..100"),
        (DeployPolicy(0, -5), "max_unavailable -5 is out of range 0..100"),
    ],
)
def test_c05_bc_out_of_range_rejected_naming_the_knob(policy: DeployPolicy, named: str) -> None:
    with pytest.raises(PolicyInvalid, match=named):
        pol.validate(policy)


def test_both_knobs_out_of_range_are_both_named() -> None:
    with pytest.raises(PolicyInvalid) as info:
        pol.validate(DeployPolicy(200, -3))
    assert "max_expansion 200" in info.value.message
    assert "max_unavailable -3" in info.value.message


def test_subject_prefixes_the_message() -> None:
    with pytest.raises(PolicyInvalid, match=r"^yandex_kubernetes_node_group\.ng: deploy policy"):
        pol.validate(DeployPolicy(0, 0), subject="yandex_kubernetes_node_group.ng")


@pytest.mark.parametrize("bad", [True, 2.0, "3", None])
def test_non_integers_rejected(bad: object) -> None:
    with pytest.raises(PolicyInvalid, match="max_expansion must be an integer"):
        pol.validate(DeployPolicy(bad, 1))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "policy",
    [DeployPolicy(0, 1), DeployPolicy(1, 0), DeployPolicy(100, 100), DeployPolicy(3, 0),
     DeployPolicy(0, 2)],  # the last is C04 C: above a 1-node group, still valid
)
def test_edges_and_values_above_the_group_size_are_valid(policy: DeployPolicy) -> None:
    pol.validate(policy)


@given(st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_validate_accepts_exactly_the_documented_domain(e: int, u: int) -> None:
    ok = 0 <= e <= 100 and 0 <= u <= 100 and (e, u) != (0, 0)
    try:
        pol.validate(DeployPolicy(e, u))
    except PolicyInvalid:
        assert not ok
    else:
        assert ok


# --- defaults and resolution (C05 D, C06) ---------------------------------------------------


def test_c05_d_unset_is_the_assumed_default_never_zero() -> None:
    resolved = pol.resolve(None)
    assert resolved == pol.ResolvedPolicy(DeployPolicy(3, 0), "default", assumed=True)
    assert resolved.policy == DeployPolicy(3, 0)  # seed 000 L15, L20
    pol.validate(resolved.policy)


def test_resolution_precedence_override_live_state_default() -> None:
    state = DeployPolicy(2, 1)
    live = DeployPolicy(4, 0)
    assert pol.resolve(state) == pol.ResolvedPolicy(state, "state")
    assert pol.resolve(state, live=live) == pol.ResolvedPolicy(live, "live")
    assert pol.resolve(None, live=live) == pol.ResolvedPolicy(live, "live")
    assert pol.resolve(state, live=live, max_expansion=1, max_unavailable=1) == \
        pol.ResolvedPolicy(DeployPolicy(1, 1), "override")


def test_resolve_names_the_source_its_caller_gives_so_nobody_relabels_it() -> None:
    """A Terraform plan's declared policy is the plan's; the advised stage's knobs are advised;
    the live policy and the default keep their own names whatever the caller says."""
    state = DeployPolicy(2, 1)
    assert pol.resolve(state, declared="plan") == pol.ResolvedPolicy(state, "plan")
    assert pol.resolve(state, max_expansion=1, max_unavailable=0, chosen="advised") == \
        pol.ResolvedPolicy(DeployPolicy(1, 0), "advised")
    assert pol.resolve(state, live=DeployPolicy(4, 0), declared="plan") == \
        pol.ResolvedPolicy(DeployPolicy(4, 0), "live")
    assert pol.resolve(None, max_expansion=2, chosen="advised") == \
        pol.ResolvedPolicy(DeployPolicy(2, 0), "advised", assumed=True)


def test_half_override_keeps_the_other_knob() -> None:
    assert pol.resolve(DeployPolicy(2, 1), max_unavailable=0) == \
        pol.ResolvedPolicy(DeployPolicy(2, 0), "override")
    # On an unset policy the other knob is still the assumed default.
    assert pol.resolve(None, max_unavailable=2) == \
        pol.ResolvedPolicy(DeployPolicy(3, 2), "override", assumed=True)
    assert pol.resolve(None, max_expansion=0, max_unavailable=1) == \
        pol.ResolvedPolicy(DeployPolicy(0, 1), "override", assumed=False)


def test_override_to_zero_zero_is_resolved_then_rejected() -> None:
    resolved = pol.resolve(DeployPolicy(0, 1), max_unavailable=0)
    assert resolved.policy == DeployPolicy(0, 0)
    with pytest.raises(PolicyInvalid, match="at least one"):
        pol.validate(resolved.policy)


# --- clamp (C04; seed 001) ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "nodes", "effective"),
    [
        (DeployPolicy(5, 0), 3, DeployPolicy(3, 0)),  # C04 A: clamped down to the size
        (DeployPolicy(2, 0), 3, DeployPolicy(2, 0)),  # C04 B: below the size: unchanged
        (DeployPolicy(0, 2), 1, DeployPolicy(0, 1)),  # C04 C
        (DeployPolicy(3, 0), 2, DeployPolicy(2, 0)),  # seed 001 example 1
        (DeployPolicy(0, 3), 2, DeployPolicy(0, 2)),  # seed 001 example 2
        (DeployPolicy(4, 4), 4, DeployPolicy(4, 4)),  # seed 001 example 3
        (DeployPolicy(3, 0), 0, DeployPolicy(0, 0)),  # empty group: nothing to do
    ],
)
def test_clamp(policy: DeployPolicy, nodes: int, effective: DeployPolicy) -> None:
    assert pol.clamp(policy, nodes) == effective


def test_clamp_rejects_negative_sizes() -> None:
    with pytest.raises(ValueError, match="node count"):
        pol.clamp(DeployPolicy(1, 0), -1)


@given(st.integers(0, 100), st.integers(0, 100), st.integers(0, 300))
def test_clamp_never_raises_a_value_and_never_exceeds_the_size(e: int, u: int, n: int) -> None:
    got = pol.clamp(DeployPolicy(e, u), n)
    assert got.max_expansion == min(e, n) <= e
    assert got.max_unavailable == min(u, n) <= u
    assert got.max_expansion <= n and got.max_unavailable <= n


# --- warnings -------------------------------------------------------------------------------


def _codes(warnings: list[warn.PlanWarning]) -> list[str]:
    return [w.code for w in warnings]


def test_c04_a_clamp_warning_shows_both_numbers() -> None:
    resolved = pol.ResolvedPolicy(DeployPolicy(5, 0), "state")
    warnings = warn.policy_warnings(resolved, DeployPolicy(3, 0), 3, FixedScale(3))
    assert _codes(warnings) == [warn.MAX_EXPANSION_CLAMPED]
    assert "max_expansion 5" in warnings[0].message
    assert "group size 3" in warnings[0].message
    assert "at most 3 surge nodes" in warnings[0].message


def test_c04_b_no_clamp_no_warning() -> None:
    resolved = pol.ResolvedPolicy(DeployPolicy(2, 0), "state")
    assert warn.policy_warnings(resolved, DeployPolicy(2, 0), 3, FixedScale(3)) == []


def test_c04_c_whole_group_unavailable() -> None:
    resolved = pol.ResolvedPolicy(DeployPolicy(0, 2), "state")
    warnings = warn.policy_warnings(resolved, DeployPolicy(0, 1), 1, FixedScale(1))
    assert _codes(warnings) == [warn.MAX_UNAVAILABLE_CLAMPED, warn.WHOLE_GROUP_UNAVAILABLE]
    assert "max_unavailable 2 is above the group size 1" in warnings[0].message
    assert "at most 1 node is down at once" in warnings[0].message
    assert "whole group" in warnings[1].message


def test_c05_d_assumed_default_is_a_warning() -> None:
    warnings = warn.policy_warnings(pol.default_policy(), DeployPolicy(3, 0), 4, FixedScale(4))
    assert _codes(warnings) == [warn.POLICY_ASSUMED]
    assert "max_expansion=3, max_unavailable=0" in warnings[0].message


def test_seed001_example2_max_unavailable_at_autoscaler_min() -> None:
    # auto 1..5, E=0 U=3, shrunk to 2 nodes: the whole group is drained.
    resolved = pol.ResolvedPolicy(DeployPolicy(0, 3), "state")
    warnings = warn.policy_warnings(resolved, DeployPolicy(0, 2), 2, AutoScale(1, 5, 1))
    assert _codes(warnings) == [
        warn.MAX_UNAVAILABLE_CLAMPED, warn.WHOLE_GROUP_UNAVAILABLE,
        warn.MAX_UNAVAILABLE_AT_AUTOSCALER_MIN,
    ]
    advice = warnings[2].message
    assert "max_unavailable 3 is at or above the autoscaler min 1" in advice
    assert "max_unavailable=0 with max_expansion >= 1" in advice  # min is 1 (seed 001)


def test_autoscaler_min_advice_names_min_minus_one() -> None:
    resolved = pol.ResolvedPolicy(DeployPolicy(1, 3), "state")
    warnings = warn.policy_warnings(resolved, DeployPolicy(1, 3), 5, AutoScale(3, 6, 3))
    assert _codes(warnings) == [warn.MAX_UNAVAILABLE_AT_AUTOSCALER_MIN]
    assert "at most 2" in warnings[0].message


def test_max_unavailable_below_autoscaler_min_is_quiet() -> None:
    resolved = pol.ResolvedPolicy(DeployPolicy(1, 2), "state")
    assert warn.policy_warnings(resolved, DeployPolicy(1, 2), 5, AutoScale(3, 6, 3)) == []


def test_seed001_example3_peak_above_autoscaler_max() -> None:
    # auto 1..5, E=4 U=4, 4 nodes at the start: 8 nodes at the peak, above max 5.
    resolved = pol.ResolvedPolicy(DeployPolicy(4, 4), "state")
    warnings = warn.policy_warnings(resolved, DeployPolicy(4, 4), 4, AutoScale(1, 5, 1))
    assert _codes(warnings) == [
        warn.WHOLE_GROUP_UNAVAILABLE, warn.MAX_UNAVAILABLE_AT_AUTOSCALER_MIN,
        warn.PEAK_ABOVE_AUTOSCALER_MAX,
    ]
    peak = warnings[2].message
    assert "max - current = 5 - 4 = 1" in peak
    assert "reaches 8 nodes" in peak
    assert "worst case 9 nodes" in peak  # max 5 + min(E=4, 5)


def test_expansion_within_autoscaler_headroom_is_quiet() -> None:
    resolved = pol.ResolvedPolicy(DeployPolicy(2, 0), "state")
    assert warn.policy_warnings(resolved, DeployPolicy(2, 0), 3, AutoScale(1, 5, 1)) == []


def test_nodes_outside_the_autoscaler_range() -> None:
    resolved = pol.ResolvedPolicy(DeployPolicy(1, 0), "state")
    warnings = warn.policy_warnings(resolved, DeployPolicy(1, 0), 9, AutoScale(1, 5, 1))
    assert warn.NODES_OUTSIDE_AUTOSCALER_RANGE in _codes(warnings)


def test_empty_group_warns_and_stops() -> None:
    resolved = pol.ResolvedPolicy(DeployPolicy(0, 3), "state")
    warnings = warn.policy_warnings(resolved, DeployPolicy(0, 0), 0, AutoScale(0, 5, 0))
    assert _codes(warnings) == [warn.EMPTY_GROUP]


def test_peak_above_group_node_limit() -> None:
    assert warn.peak_warnings(200) == []
    warnings = warn.peak_warnings(201)
    assert _codes(warnings) == [warn.PEAK_ABOVE_GROUP_NODE_LIMIT]
    assert "peak 201 nodes" in warnings[0].message
    assert "limit 200 (managed-kubernetes.groupNodes.count)" in warnings[0].message
    assert _codes(warn.peak_warnings(12, limit=10)) == [warn.PEAK_ABOVE_GROUP_NODE_LIMIT]
    worst = warn.peak_warnings(100, worst_case_peak=250)
    assert _codes(worst) == [warn.PEAK_ABOVE_GROUP_NODE_LIMIT]
    assert "250 nodes" in worst[0].message


# --- C12: duration against Terraform's update timeout --------------------------------------


def test_c12_base_300_minutes_exceeds_and_names_the_timeouts_block() -> None:
    warnings = warn.duration_warnings(300)
    assert _codes(warnings) == [warn.UPDATE_TIMEOUT_EXCEEDED]
    assert 'timeouts { update = "6h" }' in warnings[0].message
    assert "300 min" in warnings[0].message and "60 min" in warnings[0].message
    assert "ngupgrade upgrade" in warnings[0].message


def test_c12_variant_60_minutes_is_borderline() -> None:
    warnings = warn.duration_warnings(60)
    assert _codes(warnings) == [warn.UPDATE_TIMEOUT_BORDERLINE]
    assert 'timeouts { update = "2h" }' in warnings[0].message


@pytest.mark.parametrize(
    ("minutes", "codes"),
    [(47.9, []), (48, [warn.UPDATE_TIMEOUT_BORDERLINE]), (60, [warn.UPDATE_TIMEOUT_BORDERLINE]),
     (60.5, [warn.UPDATE_TIMEOUT_EXCEEDED]), (150, [warn.UPDATE_TIMEOUT_EXCEEDED])],
)
def test_c12_whole_kind_thresholds(minutes: float, codes: list[str]) -> None:
    assert _codes(warn.duration_warnings(minutes)) == codes


def test_c12_custom_timeout() -> None:
    assert _codes(warn.duration_warnings(100, timeout_minutes=360)) == []
    assert _codes(warn.duration_warnings(400, timeout_minutes=360)) == [
        warn.UPDATE_TIMEOUT_EXCEEDED]


@pytest.mark.parametrize(
    ("minutes", "suggested"), [(1, "1h"), (50, "1h"), (60, "2h"), (150, "3h"), (300, "6h")],
)
def test_suggested_update_timeout(minutes: float, suggested: str) -> None:
    assert warn.suggested_update_timeout(minutes) == suggested


def test_warning_codes_are_unique_and_kebab_case() -> None:
    assert len(set(warn.WARNING_CODES)) == len(warn.WARNING_CODES)
    for code in warn.WARNING_CODES:
        assert code == code.lower() and " " not in code and "_" not in code
