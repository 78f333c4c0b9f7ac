"""The fake cloud's world without any server: seed 000's node-by-node procedure written out by
hand, quota charges from the core's catalog, time moved only by the clock."""

from __future__ import annotations

import pytest

from ngupgrade.core.model import GIB, DeployPolicy
from ngupgrade.testing import VirtualClock, node_group
from ngupgrade.testing.objects import Refusal
from ngupgrade.testing.world import World

GID = "catgroup000000000001"


def _upgrade(world: World, version: str = "1.30") -> list[tuple[str, int, int, int]]:
    """Run one version update step by step; (action, nodes, group size, new nodes) per step."""
    op = world.update(GID, version=version)
    group = world.groups[GID]
    for _ in range(40):
        world.clock.advance(world.scenario.step_seconds)
        world.tick()
        if op.done:
            break
        assert world.group_status(group) == "RECONCILING"
    assert op.done and op.error is None
    assert world.group_status(group) == "RUNNING" and group.version == version
    return [(s.action, s.nodes, s.group_size, s.new_nodes) for s in op.steps]


def _world(nodes: int, e: int, u: int, scenario: dict | None = None) -> World:
    return World(scenario, VirtualClock(),
                 [node_group(GID, size=nodes, policy=DeployPolicy(e, u))])


def _sizes(steps: list[tuple[str, int, int, int]], start: int) -> list[int]:
    """The group size each time it changes."""
    out = [start]
    for _, _, size, _ in steps:
        if size != out[-1]:
            out.append(size)
    return out


def test_seed_000_n5_e2_u0_expands_by_two_then_deletes_the_drained_old_nodes():
    """Seed 000 L86-L90: two new nodes, load of two old moved onto them, two deleted; again;
    then one new node for the last old one. Sizes 5 -> 7 -> 5 -> 7 -> 5 -> 6 -> 5."""
    world = _world(5, 2, 0)
    before = {m.instance_id for m in world.groups[GID].members}
    steps = _upgrade(world)
    assert steps == [
        ("create", 2, 7, 2), ("drain", 2, 7, 2), ("delete", 2, 5, 2),
        ("create", 2, 7, 4), ("drain", 2, 7, 4), ("delete", 2, 5, 4),
        ("create", 1, 6, 5), ("drain", 1, 6, 5), ("delete", 1, 5, 5),
    ]
    assert _sizes(steps, 5) == [5, 7, 5, 7, 5, 6, 5]
    after = {m.instance_id for m in world.groups[GID].members}
    assert len(after) == 5 and not before & after  # every node replaced (L13: new nodes)
    assert world.operations["op-1"].finished == 9 * 60  # 9 steps of 60 s


def test_seed_000_n5_e0_u2_updates_two_at_a_time_in_place():
    """Seed 000 L52-L56: waves of 2, 2, 1, each updated and rebooted in place; the group
    stays at 5 nodes (created 0, deleted 0)."""
    world = _world(5, 0, 2)
    before = {m.instance_id for m in world.groups[GID].members}
    steps = _upgrade(world)
    assert steps == [
        ("drain", 2, 5, 0), ("update_in_place", 2, 5, 2),
        ("drain", 2, 5, 2), ("update_in_place", 2, 5, 4),
        ("drain", 1, 5, 4), ("update_in_place", 1, 5, 5),
    ]
    assert _sizes(steps, 5) == [5]
    assert {m.instance_id for m in world.groups[GID].members} == before  # same instances


def test_seed_000_n5_e2_u2_grows_by_two_and_drains_two_at_a_time():
    """Seed 000 L114-L119: two new nodes while two old drain; those two updated in place
    (7 = 4 new / 3 old); two more drained: one updated in place, one deleted (6 = 5/1); the
    last drained and deleted (5). Created 2, deleted 2, in place 3."""
    world = _world(5, 2, 2)
    before = {m.instance_id for m in world.groups[GID].members}
    steps = _upgrade(world)
    assert steps == [
        ("create", 2, 7, 2), ("drain", 2, 7, 2), ("update_in_place", 2, 7, 4),
        ("drain", 2, 7, 4), ("update_in_place", 1, 7, 5), ("delete", 1, 6, 5),
        ("drain", 1, 6, 5), ("delete", 1, 5, 5),
    ]
    assert _sizes(steps, 5) == [5, 7, 6, 5]
    kept = {m.instance_id for m in world.groups[GID].members} & before
    assert len(kept) == 3  # the three nodes updated in place keep their instances


def test_the_fake_does_not_take_its_steps_from_the_planner(monkeypatch):
    """A planner that predicts nonsense does not change what the fake does."""
    import ngupgrade.core.simulate as simulate

    def wrong(*args, **kwargs):
        raise AssertionError("the fake asked the planner")

    monkeypatch.setattr(simulate, "timeline", wrong)
    steps = _upgrade(_world(5, 2, 0))
    assert _sizes(steps, 5) == [5, 7, 5, 7, 5, 6, 5]


def test_the_policy_is_clamped_to_the_group_size():
    """DESIGN.md section 3: E' = min(E, N). 2 nodes at 5/0: one wave of 2 (2 -> 4 -> 2)."""
    steps = _upgrade(_world(2, 5, 0))
    assert steps == [("create", 2, 4, 2), ("drain", 2, 4, 2), ("delete", 2, 2, 2)]


def test_nothing_moves_until_the_clock_does():
    world = _world(5, 2, 0)
    op = world.update(GID, version="1.30")
    for _ in range(3):
        world.tick()
    assert (op.applied, world.groups[GID].nodes) == (0, 5)
    world.clock.advance(59.9)
    world.tick()
    assert op.applied == 0
    world.clock.advance(0.1)
    world.tick()
    assert (op.applied, world.groups[GID].nodes, world.groups[GID].new_nodes) == (1, 7, 2)


def test_quotas_are_charged_per_node_with_gpus_by_the_core_catalog():
    """One node of gpu-standard-v3 with 1 GPU, 8 cores, 96 GiB and a 64 GiB SSD draws 1 on
    compute.instanceA100Gpus.count (reference 2.4); 1/0 on 2 nodes adds one node at a time."""
    quotas = {"compute.instanceA100Gpus.count": {"limit": 4, "usage": 2},
              "compute.instanceCores.count": {"limit": 100, "usage": 16},
              "compute.ssdDisks.size": {"limit": 1024 * GIB, "usage": 128 * GIB},
              "managed-kubernetes.disk.size": {"limit": 1024 * GIB, "usage": 128 * GIB}}
    world = World({"clouds": {"c1": {"folders": ["b1gexamplefolder00001"], "quotas": quotas}}},
                  VirtualClock(),
                  [node_group(GID, size=2, policy=DeployPolicy(1, 0), platform="gpu-standard-v3",
                              gpus=1, cores=8, memory_gib=96)])
    world.update(GID, version="1.30")
    world.clock.advance(60)
    world.tick()  # one node created
    assert world.ledger.quota("c1", "compute.instanceA100Gpus.count").usage == 3
    assert world.ledger.quota("c1", "compute.instanceCores.count").usage == 24
    assert world.ledger.quota("c1", "compute.ssdDisks.size").usage == 192 * GIB
    assert world.ledger.quota("c1", "managed-kubernetes.disk.size").usage == 192 * GIB
    world.clock.advance(600)
    world.tick()
    assert world.operations["op-1"].done
    assert world.ledger.quota("c1", "compute.instanceA100Gpus.count").usage == 2


def test_a_surge_past_the_gpu_quota_fails_the_operation_and_creates_nothing():
    """Seed 000 L71: short resources stop the expansion. 2 GPU nodes at 2/0 need 2 more A100
    GPUs; the limit 2 with usage 1 leaves 1."""
    world = World({"clouds": {"c1": {"folders": ["b1gexamplefolder00001"], "quotas": {
        "compute.instanceA100Gpus.count": {"limit": 2, "usage": 1}}}}}, VirtualClock(),
        [node_group(GID, size=2, policy=DeployPolicy(2, 0), platform="gpu-standard-v3", gpus=1)])
    op = world.update(GID, version="1.30")
    world.clock.advance(60)
    world.tick()
    assert op.done and op.error == (8, "Quota limit compute.instanceA100Gpus.count exceeded: "
                                       "requested 2, available 1 (limit 2)")
    assert world.groups[GID].nodes == 2
    assert world.ledger.quota("c1", "compute.instanceA100Gpus.count").usage == 1
    assert world.groups[GID].version == "1.29"


@pytest.mark.parametrize("kwargs, code", [
    ({"max_expansion": 0, "max_unavailable": 0}, "INVALID_ARGUMENT"),
    ({"max_expansion": 101}, "INVALID_ARGUMENT"),
])
def test_the_world_refuses_what_the_api_refuses(kwargs, code):
    """Seed 000 L15, L20, L25: each value 0..100, not both 0."""
    world = _world(3, 1, 0)
    with pytest.raises(Refusal) as err:
        world.update(GID, **kwargs)
    assert err.value.code == code
    with pytest.raises(Refusal, match="not found"):
        world.update("catnosuchgroup", version="1.30")


def test_a_second_update_while_one_runs_is_failed_precondition():
    world = _world(3, 1, 0)
    op = world.update(GID, version="1.30")
    with pytest.raises(Refusal, match=f"Another operation is in progress: {op.id}") as err:
        world.update(GID, max_expansion=2)
    assert err.value.code == "FAILED_PRECONDITION"
