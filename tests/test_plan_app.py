"""Use case ``plan`` over NodeGroup values: validation first, live-size seam, overrides."""

from __future__ import annotations

import pytest
from _plan_groups import auto, fixed

from ngupgrade.app.upgrade_plan import UpgradePlanRequest, plan_node_groups
from ngupgrade.core import plan_warnings as warn
from ngupgrade.core import policy as pol
from ngupgrade.core.errors import PolicyInvalid, UsageError
from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.simulate import Cycles


def test_every_group_is_planned_in_order() -> None:
    groups = [fixed(5, 2, 0, name="a"), fixed(5, 0, 2, name="b")]
    plans = plan_node_groups(groups, UpgradePlanRequest())
    assert [p.group.name for p in plans] == ["a", "b"]
    assert [p.peak_nodes for p in plans] == [7, 5]


def test_overrides_compare_policies_without_editing_terraform() -> None:
    (plan,) = plan_node_groups([fixed(20, 1, 0)],
                               UpgradePlanRequest(max_expansion=2, max_unavailable=2))
    assert plan.policy == pol.ResolvedPolicy(DeployPolicy(2, 2), "override")
    assert plan.cycles == Cycles(5, 10)


@pytest.mark.parametrize(
    ("e", "u", "match", "error", "code"),
    [(0, 0, "at least one of max_expansion / max_unavailable must be > 0", PolicyInvalid, 1),
     # values Yandex takes for no group: usage errors (tests/test_verdicts_flags.py)
     (101, None, "--max-expansion 101 is out of range 0..100", UsageError, 2),
     (None, -1, "--max-unavailable -1 is out of range 0..100", UsageError, 2)],
)
def test_c05_bad_overrides_fail_before_any_group_is_read(e: int | None, u: int | None,
                                                          match: str, error: type,
                                                          code: int) -> None:
    with pytest.raises(error, match=match) as info:
        plan_node_groups([], UpgradePlanRequest(max_expansion=e, max_unavailable=u))
    assert info.value.exit_code == code


def test_c05_one_invalid_group_fails_the_whole_plan_naming_it() -> None:
    groups = [fixed(3, 1, 0, name="good"), fixed(3, 0, 0, name="bad")]
    with pytest.raises(PolicyInvalid, match=r"yandex_kubernetes_node_group\.bad: .*at least"):
        plan_node_groups(groups, UpgradePlanRequest())


def test_half_override_making_zero_zero_is_caught_per_group() -> None:
    with pytest.raises(PolicyInvalid, match="at least one"):
        plan_node_groups([fixed(3, 0, 1)], UpgradePlanRequest(max_unavailable=0))


def test_live_sizes_by_group_id_beat_nodes_and_max() -> None:
    groups = [auto(1, 7, 3, 0, gid="ng-live"), auto(1, 7, 3, 0, gid="ng-offline")]
    plans = plan_node_groups(groups, UpgradePlanRequest(nodes=4), live_sizes={"ng-live": 2})
    assert [(p.nodes, p.nodes_source) for p in plans] == [(2, "live"), (4, "override")]
    plans = plan_node_groups(groups, UpgradePlanRequest())
    assert [(p.nodes, p.nodes_source) for p in plans] == [(7, "max"), (7, "max")]


def test_live_policies_replace_the_state_policy() -> None:
    (plan,) = plan_node_groups([fixed(4, None, gid="ng1")], UpgradePlanRequest(),
                               live_policies={"ng1": DeployPolicy(1, 1)})
    assert plan.policy.source == "live"
    assert warn.POLICY_ASSUMED not in plan.warning_codes


def test_cycle_minutes_and_limits_reach_the_plan() -> None:
    (plan,) = plan_node_groups([fixed(10, 1, 0)],
                               UpgradePlanRequest(minutes_per_cycle=7, group_node_limit=10))
    assert plan.duration.max_minutes == 70
    assert plan.warning_codes == (warn.PEAK_ABOVE_GROUP_NODE_LIMIT, warn.UPDATE_TIMEOUT_EXCEEDED)


def test_fixed_group_with_live_drift_is_planned_from_the_cloud_and_warned() -> None:
    """Out-of-band resize: the state says 3 nodes, the cloud has 5; the upgrade starts from 5."""
    group = fixed(3, 2, 0, name="drifted")
    (plan,) = plan_node_groups([group], UpgradePlanRequest(), live_sizes={group.id: 5})
    assert (plan.nodes, plan.nodes_source, plan.peak_nodes) == (5, "live", 7)
    assert plan.cycles == Cycles(3, 3)
    drift = [w for w in plan.warnings if w.code == warn.FIXED_SIZE_DRIFT]
    assert len(drift) == 1 and "the cloud has 5 nodes" in drift[0].message
    (same,) = plan_node_groups([group], UpgradePlanRequest(), live_sizes={group.id: 3})
    assert same.nodes_source == "fixed"
    assert not any(w.code == warn.FIXED_SIZE_DRIFT for w in same.warnings)
