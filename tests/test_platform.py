"""Selectel's rules beside Yandex's (core.platform), and every worked example of seed 001 on a
Selectel group, with the seed's exact numbers (``Lnn`` = line of seed 001)."""

from __future__ import annotations

import pytest
from _plan_groups import fixed, sel_auto, sel_fixed

from ngupgrade.core import plan_warnings as warn
from ngupgrade.core import platform as plat
from ngupgrade.core import policy as pol
from ngupgrade.core.errors import PolicyInvalid, UsageError
from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale
from ngupgrade.core.platform import REBOOT, REINSTALL, SELECTEL, YANDEX
from ngupgrade.core.quota.demand import extra_nodes
from ngupgrade.core.simulate import Cycles, GroupPlan, Step, plan_group


def seq(steps: tuple[Step, ...]) -> list[tuple[str, int, int, int, int]]:
    return [(s.action, s.nodes, s.group_size, s.new_nodes, s.wave) for s in steps]


def total(plan: GroupPlan, action: str) -> int:
    return sum(s.nodes for s in plan.timeline if s.action == action)


def note_codes(plan: GroupPlan) -> list[str]:
    return [n.code for n in plan.data_notes]


# --- the rules side by side --------------------------------------------------------------------


def test_defaults_yandex_3_0_selectel_0_1() -> None:
    """Seed 000 L15, L20: 3 and 0; seed 001 L34, L46: 0 and 1."""
    assert YANDEX.default_policy == DeployPolicy(3, 0)
    assert SELECTEL.default_policy == DeployPolicy(0, 1)
    assert SELECTEL.in_force(None) == DeployPolicy(0, 1)
    assert YANDEX.in_force(None) == DeployPolicy(3, 0)
    assert SELECTEL.in_force(DeployPolicy(2, 2)) == DeployPolicy(2, 2)


def test_lookups_by_name_resource_type_and_group() -> None:
    assert plat.get("selectel") is SELECTEL and plat.get("yandex") is YANDEX
    with pytest.raises(ValueError, match=r"unknown platform 'aws' \(known: yandex, selectel\)"):
        plat.get("aws")
    assert plat.for_resource_type("selectel_mks_nodegroup_v1") is SELECTEL
    assert plat.for_resource_type("yandex_kubernetes_node_group") is YANDEX
    assert plat.for_resource_type("selectel_mks_cluster_v1") is None
    assert plat.platform_of(sel_fixed(3, 1, 0)) is SELECTEL
    assert plat.platform_of(fixed(3, 1, 0)) is YANDEX


def test_drain_reaction_yandex_stops_the_node_selectel_stops_the_upgrade() -> None:
    """Reference section 1: 7 minutes, then the node stops; seed 001 L80, L88-L92: retried,
    then the upgrade stops with the cluster in ERROR."""
    assert (YANDEX.drain.drain_timeout_seconds, YANDEX.drain.on_blocked_eviction) == (
        7 * 60, "force-stop")
    assert (SELECTEL.drain.drain_timeout_seconds, SELECTEL.drain.on_blocked_eviction) == (
        None, "stop-upgrade")
    assert (YANDEX.drain.platform, SELECTEL.drain.platform) == ("yandex", "selectel")


def test_only_yandex_is_changed_by_ngupgrade() -> None:
    assert YANDEX.applies_changes and not SELECTEL.applies_changes
    assert "control panel" in SELECTEL.change_hint
    assert "Изменить стратегию обновления" in SELECTEL.change_hint  # seed 001 L56


def test_in_place_methods_reboot_keeps_disks_reinstall_wipes_the_boot_disk() -> None:
    """Seed 001 L19-L20; reboot is the default; Yandex reboots in place (seed 000 L53)."""
    assert SELECTEL.default_method is REBOOT and REBOOT.keeps_boot_disk
    assert SELECTEL.method("reinstall") is REINSTALL and not REINSTALL.keeps_boot_disk
    assert YANDEX.in_place_methods == (REBOOT,)
    with pytest.raises(ValueError, match="no in-place method 'reinstall'"):
        YANDEX.method("reinstall")


def test_selectel_bounds_3_nodes_surge_3_valid_4_invalid() -> None:
    """Seed 001 L30: "в группе из трех нод при значении 3 все ноды заменяются за один цикл, а
    четвертой дополнительной ноде было бы нечего заменять"; the same bound for U (L44)."""
    three = FixedScale(3)
    pol.validate(DeployPolicy(3, 0), platform=SELECTEL, scale=three)
    pol.validate(DeployPolicy(0, 3), platform=SELECTEL, scale=three)
    pol.validate(DeployPolicy(3, 3), platform=SELECTEL, scale=three)
    with pytest.raises(PolicyInvalid, match=r"max_expansion 4 is out of range 0\.\.3 \(the node "
                                            r"count\)"):
        pol.validate(DeployPolicy(4, 0), platform=SELECTEL, scale=three)
    with pytest.raises(PolicyInvalid, match=r"max_unavailable 4 is out of range 0\.\.3"):
        pol.validate(DeployPolicy(0, 4), platform=SELECTEL, scale=three)
    assert SELECTEL.upper_bound(three) == 3


def test_selectel_bounds_of_an_autoscaled_group_are_its_max() -> None:
    """Seed 001 L32, L44: the autoscaler max (1..5: 5 valid, 6 not)."""
    one_to_five = AutoScale(1, 5, 1)
    assert SELECTEL.upper_bound(one_to_five) == 5
    pol.validate(DeployPolicy(5, 5), platform=SELECTEL, scale=one_to_five)
    with pytest.raises(PolicyInvalid, match=r"max_expansion 6 is out of range 0\.\.5 \(the "
                                            r"autoscaler max\)"):
        pol.validate(DeployPolicy(6, 0), platform=SELECTEL, scale=one_to_five)


def test_yandex_bounds_stay_0_100_whatever_the_size() -> None:
    assert YANDEX.upper_bound(FixedScale(3)) == 100
    pol.validate(DeployPolicy(100, 100), platform=YANDEX, scale=FixedScale(3))
    with pytest.raises(PolicyInvalid, match=r"max_expansion 101 is out of range 0\.\.100"):
        pol.validate(DeployPolicy(101, 0), platform=YANDEX, scale=FixedScale(300))


@pytest.mark.parametrize("platform", [YANDEX, SELECTEL])
def test_not_both_zero_on_either_platform(platform: plat.Platform) -> None:
    """Seed 000 L25; seed 001 L36, L48."""
    with pytest.raises(PolicyInvalid, match=pol.BOTH_ZERO_MESSAGE):
        pol.validate(DeployPolicy(0, 0), platform=platform, scale=FixedScale(5))


def test_selectel_overrides_above_100_wait_for_the_group_size() -> None:
    """Selectel's bound is the group's: the check before the state is read lets 150 pass."""
    pol.check_overrides(150, None, SELECTEL)
    # a value the platform takes for no group is a usage error (exit 2)
    with pytest.raises(UsageError, match=r"--max-expansion 150 is out of range 0\.\.100"):
        pol.check_overrides(150, None)
    with pytest.raises(UsageError, match="--max-unavailable -1 must be >= 0"):
        pol.check_overrides(None, -1, SELECTEL)
    assert plan_group(sel_fixed(200, 150, 0)).peak_nodes == 350
    with pytest.raises(PolicyInvalid, match=r"max_expansion 150 is out of range 0\.\.100 "):
        plan_group(sel_fixed(100, 150, 0))


def test_policy_text_is_e_slash_u() -> None:
    assert pol.policy_text(DeployPolicy(2, 1)) == "2/1"
    assert pol.policy_text(None) == "unset"


# --- seed 001 worked examples on a Selectel group ---------------------------------------------


def test_s_ex1_5_nodes_0_2_three_cycles_at_least_three_ready() -> None:
    """L128-L142: waves of 2, 2, 1; pods go to 3 old, then 2 updated + 1 old, then 4 updated;
    all 5 updated by reboot in place; the pods of the group must fit on 3 nodes (L124)."""
    plan = plan_group(sel_fixed(5, 0, 2), method=REBOOT)
    assert seq(plan.timeline) == [
        ("drain", 2, 5, 0, 1), ("update_in_place", 2, 5, 2, 1),
        ("drain", 2, 5, 2, 2), ("update_in_place", 2, 5, 4, 2),
        ("drain", 1, 5, 4, 3), ("update_in_place", 1, 5, 5, 3),
    ]
    assert plan.cycles == Cycles(3, 3)
    assert (plan.surge_nodes, plan.peak_nodes, plan.min_available_nodes) == (0, 5, 3)
    # schedulable nodes while each wave drains: 3, 3, 4 (L138, L141, L142)
    assert [s.group_size - s.nodes for s in plan.timeline if s.action == "drain"] == [3, 3, 4]
    assert (total(plan, "create"), total(plan, "delete"), total(plan, "update_in_place")) == \
        (0, 0, 5)
    assert plan.data_notes == ()  # a reboot keeps the disks (L19, L122)
    assert plan.warnings == ()


def test_s_ex2_5_nodes_2_0_three_cycles_five_to_seven_nodes() -> None:
    """L161-L180: "Обновление занимает три цикла. В группе всегда не меньше пяти нод в статусе
    Ready, а во время обновления — до семи"; old nodes deleted with their data, new IPs."""
    plan = plan_group(sel_fixed(5, 2, 0))
    assert plan.cycles == Cycles(3, 3)
    assert (plan.peak_nodes, plan.min_available_nodes) == (7, 5)
    assert [s.group_size for s in plan.timeline if s.action != "drain"] == [7, 5, 7, 5, 6, 5]
    assert [s.nodes for s in plan.timeline if s.action == "create"] == [2, 2, 1]
    assert (total(plan, "create"), total(plan, "delete"), total(plan, "update_in_place")) == \
        (5, 5, 0)
    assert note_codes(plan) == [plat.DELETED_NODES_LOSE_DATA, plat.NEW_PRIVATE_IPS]
    assert "5 old nodes deleted" in plan.data_notes[0].message


def test_s_ex3_5_nodes_2_2_three_to_seven_ready_two_replaced_three_rebooted() -> None:
    """L205-L223: 7 = 4 updated + 3 old (L216), 6 = 5 + 1 (L218), 5 updated (L219);
    "две старые ноды заменены дополнительными, три обновлены перезагрузкой. Во время обновления
    в группе было от трех до семи нод в статусе Ready" (L221)."""
    plan = plan_group(sel_fixed(5, 2, 2), method=REBOOT)
    assert (plan.min_available_nodes, plan.peak_nodes) == (3, 7)
    after_wave = {s.wave: (s.group_size, s.new_nodes, s.group_size - s.new_nodes)
                  for s in plan.timeline}
    assert after_wave == {1: (7, 4, 3), 2: (6, 5, 1), 3: (5, 5, 0)}
    assert (total(plan, "create"), total(plan, "delete"), total(plan, "update_in_place")) == \
        (2, 2, 3)
    assert [s.nodes for s in plan.timeline if s.action == "drain"] == [2, 2, 1]
    assert plan.cycles == Cycles(min=2, max=3)  # as the Yandex 2/2 test: 3 waves in the range
    assert note_codes(plan) == [plat.DELETED_NODES_LOSE_DATA, plat.NEW_PRIVATE_IPS]
    assert "2 old nodes deleted" in plan.data_notes[0].message


def test_s_ex3_with_reinstall_the_three_in_place_nodes_lose_the_boot_disk() -> None:
    """L20: reinstall deletes boot-disk data; L191: "остальные ... обновляются выбранным
    способом"; unknown method: both outcomes are named."""
    plan = plan_group(sel_fixed(5, 2, 2), method=REINSTALL)
    assert note_codes(plan)[-1] == plat.REINSTALL_WIPES_BOOT_DISK
    assert plan.data_notes[-1].message.startswith("3 nodes reinstalled in place")
    unknown = plan_group(sel_fixed(5, 2, 2))
    assert note_codes(unknown)[-1] == plat.IN_PLACE_METHOD_UNKNOWN
    assert "reboot or reinstall" in unknown.data_notes[-1].message


def test_s_ex4_20_nodes_2_2_about_5_cycles_instead_of_10() -> None:
    """L201. The repository models cycles as {min, max}: min = ceil(20 / (2+2)) = 5, max = the
    drain waves ceil(20 / 2) = 10 (the same range the Yandex test asserts; the seed's "about
    5" is the lower end, see seed-examples S-EX4)."""
    plan = plan_group(sel_fixed(20, 2, 2))
    assert plan.cycles == Cycles(min=5, max=10)
    assert plan_group(sel_fixed(20, 2, 0)).cycles == Cycles(10, 10)
    assert plan_group(sel_fixed(20, 0, 2)).cycles == Cycles(10, 10)
    assert (plan.peak_nodes, plan.min_available_nodes) == (22, 18)
    # the extras are created once (L191: as many old nodes deleted, the rest in place)
    assert (total(plan, "create"), total(plan, "delete"), total(plan, "update_in_place")) == \
        (2, 2, 18)


def test_autoscaling_example1_shrunk_to_2_makes_2_extra_nodes_one_cycle_peak_4() -> None:
    """L244-L260: 1..5, E=3 U=0, shrunk from 4 to 2: "вместо трех будет создано две";
    "Обновление проходит за один цикл. В пике в группе четыре ноды"."""
    plan = plan_group(sel_auto(1, 5, 3, 0), live_size=2)
    assert plan.effective == DeployPolicy(2, 0)
    assert plan.cycles == Cycles(1, 1)
    assert (plan.surge_nodes, plan.peak_nodes, plan.min_available_nodes) == (2, 4, 2)
    assert seq(plan.timeline) == [
        ("create", 2, 4, 2, 1), ("drain", 2, 4, 2, 1), ("delete", 2, 2, 2, 1)]
    assert plan.warning_codes == (warn.MAX_EXPANSION_CLAMPED,)


def test_autoscaling_example2_shrunk_to_2_drains_the_whole_group() -> None:
    """L262-L278: 1..5, E=0 U=3, 2 nodes: "вместо трех недоступными станут две ноды — вся
    группа"; advice (L278): with min 1 use the surge scenario."""
    plan = plan_group(sel_auto(1, 5, 0, 3), live_size=2)
    assert plan.effective == DeployPolicy(0, 2)
    assert plan.cycles == Cycles(1, 1)
    assert (plan.peak_nodes, plan.min_available_nodes) == (2, 0)
    assert seq(plan.timeline) == [("drain", 2, 2, 0, 1), ("update_in_place", 2, 2, 2, 1)]
    assert plan.warning_codes == (warn.MAX_UNAVAILABLE_CLAMPED, warn.WHOLE_GROUP_UNAVAILABLE,
                                  warn.MAX_UNAVAILABLE_AT_AUTOSCALER_MIN)
    advice = plan.warnings[-1].message
    assert "use max_unavailable=0 with max_expansion >= 1" in advice


def test_autoscaling_example3_4_nodes_4_4_drains_all_while_4_extras_start() -> None:
    """L280-L295: "одновременно создаются четыре дополнительные ноды и с четырех старых нод
    вытесняются поды — то есть со всех нод группы"."""
    plan = plan_group(sel_auto(1, 5, 4, 4), live_size=4)
    assert plan.effective == DeployPolicy(4, 4)
    assert (plan.peak_nodes, plan.min_available_nodes) == (8, 0)
    assert plan.cycles == Cycles(1, 1)
    assert seq(plan.timeline) == [
        ("create", 4, 8, 4, 1), ("drain", 4, 8, 4, 1), ("delete", 4, 4, 4, 1)]
    assert warn.WHOLE_GROUP_UNAVAILABLE in plan.warning_codes
    assert warn.MAX_UNAVAILABLE_AT_AUTOSCALER_MIN in plan.warning_codes


def test_max_7_with_7_extra_gives_up_to_14() -> None:
    """L234, L238: "при максимуме 7 нод и значении 7 ... может быть до 14 нод"."""
    assert SELECTEL.worst_case_peak(DeployPolicy(7, 0), AutoScale(1, 7, 1)) == 14
    assert SELECTEL.worst_case_peak(DeployPolicy(3, 0), AutoScale(1, 5, 1)) == 8
    plan = plan_group(sel_auto(1, 7, 7, 0))
    assert (plan.nodes, plan.nodes_source, plan.peak_nodes) == (7, "max", 14)
    assert (total(plan, "create"), total(plan, "delete"), plan.cycles) == (7, 7, Cycles(1, 1))
    extra = extra_nodes(sel_auto(1, 7, 7, 0), current=7)
    assert extra.worst_case == 7 and extra.nodes + extra.worst_case == 14


# --- what differs in a Selectel plan -------------------------------------------------------


def test_unset_selectel_strategy_is_planned_as_0_1_assumed() -> None:
    plan = plan_group(sel_fixed(5, None))
    assert plan.policy == pol.ResolvedPolicy(DeployPolicy(0, 1), "default", assumed=True)
    assert (plan.cycles, plan.peak_nodes, plan.min_available_nodes) == (Cycles(5, 5), 5, 4)
    (assumed,) = [w for w in plan.warnings if w.code == warn.POLICY_ASSUMED]
    assert "Selectel default max_expansion=0, max_unavailable=1" in assumed.message
    assert "control panel" in assumed.message


def test_selectel_plan_has_no_terraform_timeout_or_yandex_node_limit() -> None:
    """Selectel upgrades are cluster-level (no node-group update timeout); Yandex's
    200-node quota is not Selectel's."""
    long_selectel = plan_group(sel_fixed(50, 0, 1), minutes_per_cycle=25)
    assert long_selectel.warning_codes == ()
    long_yandex = plan_group(fixed(50, 0, 1), minutes_per_cycle=25)
    assert long_yandex.warning_codes == (warn.UPDATE_TIMEOUT_EXCEEDED,)
    big = plan_group(sel_fixed(199, 150, 0))
    assert big.peak_nodes == 349
    assert warn.PEAK_ABOVE_GROUP_NODE_LIMIT not in big.warning_codes


def test_selectel_plan_refuses_a_surge_above_the_node_count() -> None:
    with pytest.raises(PolicyInvalid, match=r"^selectel_mks_nodegroup_v1\.workers: deploy "
                                            r"policy: max_expansion 4 is out of range 0\.\.3"):
        plan_group(sel_fixed(3, 4, 0))
    assert plan_group(sel_fixed(3, 3, 0)).cycles == Cycles(1, 1)  # all replaced in one cycle


def test_selectel_extra_nodes_with_the_default_strategy_are_none() -> None:
    extra = extra_nodes(sel_fixed(5, None))
    assert (extra.worst_case, extra.policy, extra.policy_assumed, extra.policy_source) == \
        (0, DeployPolicy(0, 1), True, "default")
    auto = extra_nodes(sel_auto(1, 7, 7, 0))  # offline: the autoscaler min assumed
    assert (auto.current, auto.worst_case, auto.at_current_size) == (1, 13, 1)
