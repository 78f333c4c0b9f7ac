"""core/drain/waves.py on its own: the waves a timeline folds into, and the node orders the
drain check evaluates (DESIGN.md section 3's worked timelines: N=5 at 2/0 and at 2/2)."""

from __future__ import annotations

from ngupgrade.core.drain.waves import (
    EXHAUSTIVE_LIMIT,
    WaveShape,
    assignment_count,
    orders,
    split,
    wave_shapes,
)
from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.simulate import timeline


def test_surge_only_five_nodes_at_2_0_drain_2_2_1_each_after_its_ready_surge() -> None:
    shapes = wave_shapes(timeline(5, DeployPolicy(2, 0)), 0)
    assert shapes == (WaveShape(1, drain=2, in_place=0, created=2, surge_ready=True),
                      WaveShape(2, drain=2, in_place=0, created=2, surge_ready=True),
                      WaveShape(3, drain=1, in_place=0, created=1, surge_ready=True))


def test_combined_five_nodes_at_2_2_drain_while_the_surge_is_created_then_update_in_place() -> None:
    shapes = wave_shapes(timeline(5, DeployPolicy(2, 2)), 2)
    assert [(s.drain, s.in_place, s.created) for s in shapes] == [(2, 2, 2), (2, 1, 0),
                                                                  (1, 0, 0)]
    # the first wave drains while its surge nodes are still being created
    assert [s.surge_ready for s in shapes] == [False, True, True]


def test_in_place_only_three_nodes_at_0_1_update_one_node_per_wave() -> None:
    shapes = wave_shapes(timeline(3, DeployPolicy(0, 1)), 1)
    assert [(s.number, s.drain, s.in_place, s.created) for s in shapes] == [
        (1, 1, 1, 0), (2, 1, 1, 0), (3, 1, 1, 0)]


def test_assignment_count_is_the_multinomial() -> None:
    assert assignment_count([1, 1, 1, 1, 1]) == 120 == EXHAUSTIVE_LIMIT
    assert assignment_count([2, 2, 1]) == 30
    assert assignment_count([3]) == 1


def test_split_cuts_an_order_into_waves() -> None:
    assert split(["a", "b", "c", "d", "e"], [2, 2, 1]) == (("a", "b"), ("c", "d"), ("e",))
    assert split(["a", "b", "c"], [2]) == (("a", "b"),)


def test_few_nodes_are_enumerated_every_way() -> None:
    found, exhaustive = orders(["n2", "n1", "n3"], [2, 1], load={}, concerns=[])
    assert exhaustive
    assert found == [(("n1", "n2"), ("n3",)), (("n1", "n3"), ("n2",)),
                     (("n2", "n3"), ("n1",))]


def test_many_nodes_get_the_adversarial_family_with_a_concern_sharing_a_wave() -> None:
    nodes = [f"n{i:02}" for i in range(8)]          # 8! orders in waves of 1: too many
    load = {"n05": 9.0, "n06": 8.0}
    concern = {"n03": 2, "n07": 2}                  # a PDB's pods on n03 and n07
    found, exhaustive = orders(nodes, [2, 2, 2, 2], load=load, concerns=[concern])
    assert not exhaustive
    assert found[0] == (("n00", "n01"), ("n02", "n03"), ("n04", "n05"), ("n06", "n07"))
    assert found[1] == (("n06", "n07"), ("n04", "n05"), ("n02", "n03"), ("n00", "n01"))
    assert found[2][0] == ("n05", "n06")            # heaviest first
    assert (("n03", "n07")) in [w for order in found for w in order[:1]]  # they share wave 1
    assert len(found) == len(set(found)) <= 5
