"""core.change and core.quota.plan on plain values: the classification table and the demands."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ngupgrade.core.address import TfAddress
from ngupgrade.core.change import PlannedChange, classify, classify_plan
from ngupgrade.core.model import GIB, AutoScale, DeployPolicy, FixedScale, QuotaLimit
from ngupgrade.core.quota.preflight import evaluate
from ngupgrade.core.quota.tfplan import change_demand
from ngupgrade.testing.builders import node_group

ADDR = TfAddress.parse("yandex_kubernetes_node_group.ng")


ONE_ZERO = DeployPolicy(1, 0)


def base(size: int = 5, policy: DeployPolicy | None = ONE_ZERO):  # type: ignore[no-untyped-def]
    return replace(node_group("ng", size=size), address=ADDR, policy=policy)


def update(*changed: str, unknown: tuple[str, ...] = (), after=None):  # type: ignore[no-untyped-def]
    before = base()
    return classify(PlannedChange(ADDR, ("update",), before, after or before, changed, unknown))


@pytest.mark.parametrize(("changed", "kind"), [
    (("version",), "roll"),
    (("instance_template.resources.cores",), "roll"),
    (("instance_template.metadata",), "roll"),
    (("allocation_policy.location.zone",), "roll"),
    (("scale_policy.fixed_scale.size",), "resize"),
    (("scale_policy.auto_scale.max",), "resize"),
    (("node_labels",), "in-place"),
    (("labels", "description"), "in-place"),
    (("deploy_policy.max_expansion",), "in-place"),
    (("maintenance_policy.auto_upgrade",), "in-place"),
    (("node_taints",), "replace"),
    (("workload_identity_federation.enabled",), "roll"),  # unknown to us: the worst update
    (("status", "version_info.current_version"), "none"),  # computed noise is no cause
])
def test_update_kinds(changed: tuple[str, ...], kind: str) -> None:
    assert update(*changed).kind == kind


def test_unclassified_attribute_is_named() -> None:
    change = update("workload_identity_federation.enabled")
    assert [f.code for f in change.findings] == ["unclassified-attribute"]
    assert "workload_identity_federation.enabled" in change.findings[0].message


def test_replace_names_terraform_replace_paths_or_the_force_new_attribute() -> None:
    before = base()
    explicit = classify(PlannedChange(ADDR, ("delete", "create"), before, before,
                                      ("cluster_id", "name"), (), ("cluster_id",)))
    assert explicit.attributes == ("cluster_id",)
    assert explicit.replace_order == "delete-first" and explicit.blocking
    guessed = classify(PlannedChange(ADDR, ("create", "delete"), before, before,
                                     ("name", "scale_policy.auto_scale")))
    assert guessed.attributes == ("scale_policy.auto_scale",)
    assert guessed.replace_order == "create-first"


def test_unknown_node_resources_block() -> None:
    change = update("version", unknown=("instance_template.resources.memory",))
    assert change.kind == "roll" and change.blocking
    assert [f.code for f in change.findings] == ["unknown-after-apply", "unknown-node-resources"]


def test_autoscaled_resize_demand() -> None:
    """auto 1..7 -> 2..10, offline (current assumed 2, the new min): compute/vpc 10 - 2 = 8,
    at the current size 0, managed-kubernetes 10 - 7 = 3 (it counts a group at its max)."""
    before = replace(base(), scale=AutoScale(min=1, max=7, initial=1))
    after = replace(before, scale=AutoScale(min=2, max=10, initial=2))
    change = classify(PlannedChange(ADDR, ("update",), before, after,
                                    ("scale_policy.auto_scale.min",
                                     "scale_policy.auto_scale.max")))
    assert change.kind == "resize"
    demand = change_demand(change, "cloud")
    extra = demand.extra
    assert (extra.worst_case, extra.at_current_size, extra.managed_kubernetes) == (8, 0, 3)
    cores = after.node.cores if after.node else 0
    assert demand.worst_case["compute.instanceCores.count"] == 8 * cores
    assert demand.worst_case["managed-kubernetes.nodes.count"] == 3
    assert demand.reducible is False


def test_delete_first_replace_with_bigger_nodes_counts_the_difference() -> None:
    """5 nodes replaced by 5 nodes with twice the memory: memory demand 5 x the growth."""
    before = base()
    assert before.node is not None
    after = replace(before, node=replace(before.node, memory_bytes=2 * before.node.memory_bytes),
                    scale=FixedScale(5))
    change = classify(PlannedChange(ADDR, ("delete", "create"), before, after,
                                    ("instance_template.nat",)))
    demand = change_demand(change, "cloud")
    assert demand.worst_case["compute.instanceMemory.size"] == 5 * before.node.memory_bytes
    assert demand.worst_case["compute.instances.count"] == 0
    assert before.node.memory_bytes % GIB == 0


def test_rolls_together_finding_only_for_several_groups() -> None:
    one = PlannedChange(ADDR, ("update",), base(), base(), ("version",))
    other_addr = TfAddress.parse("yandex_kubernetes_node_group.other")
    two = replace(one, address=other_addr)
    assert classify_plan([one]).findings == ()
    assert [f.code for f in classify_plan([one, two]).findings] == ["rolls-together"]


def _resized(cores: int | None = None, disk_gib: int | None = None, size: int = 3):  # type: ignore[no-untyped-def]
    group = base(size=3)
    assert group.node is not None and group.node.boot_disk is not None
    node = group.node
    if cores is not None:
        node = replace(node, cores=cores)
    if disk_gib is not None:
        node = replace(node, boot_disk=replace(node.boot_disk, size_bytes=disk_gib * GIB))
    return group, replace(group, node=node, scale=FixedScale(size))


def test_roll_to_bigger_nodes_counts_the_replaced_nodes_at_the_worst_moment() -> None:
    """3 nodes at 1/0, 4 -> 20 cores. Timeline: create1 (3 old + 1 new), delete1 (2 + 1),
    create1 (2 + 2), delete1 (1 + 2), create1 (1 + 3), delete1 (0 + 3). Worst: the last
    create, 1 x 4 + 3 x 20 = 64 cores against 3 x 4 = 12 today: +52 (the surge alone said 20).
    At 0/1 (in place, no surge): the end, 3 x 20 - 12 = +48."""
    before, after = _resized(cores=20)
    change = classify(PlannedChange(ADDR, ("update",), before, after,
                                    ("instance_template.resources.cores",)))
    demand = change_demand(change, "cloud")
    assert demand.worst_case["compute.instanceCores.count"] == 52
    assert demand.worst_case["managed-kubernetes.cores.count"] == 52
    assert demand.at_current_size["compute.instanceCores.count"] == 52
    assert demand.worst_case["compute.instances.count"] == 1
    assert demand.demand_with(DeployPolicy(0, 1))["compute.instanceCores.count"] == 48


def test_roll_to_bigger_disks_and_to_smaller_nodes() -> None:
    """Disk 64 -> 300 GiB, 3 nodes at 1/0: 1 x 64 + 3 x 300 - 3 x 64 = 772 GiB.
    Cores 4 -> 2: the worst moment is the first create, 3 x 4 + 2 - 12 = +2 (the surge)."""
    before, after = _resized(disk_gib=300)
    change = classify(PlannedChange(ADDR, ("update",), before, after,
                                    ("instance_template.boot_disk.size",)))
    assert change_demand(change, "c").worst_case["compute.ssdDisks.size"] == 772 * GIB
    before, after = _resized(cores=2)
    change = classify(PlannedChange(ADDR, ("update",), before, after,
                                    ("instance_template.resources.cores",)))
    assert change_demand(change, "c").worst_case["compute.instanceCores.count"] == 2


def test_grow_and_roll_suggestion_keeps_the_growth() -> None:
    """3 -> 6 nodes and a new version, 1/0, one public IP per node, 2 IPs free: grown first
    (6 nodes), then a surge of 1: 7 - 3 = 4 IPs. The smallest policy, 0/1, still needs the
    growth's 3 IPs > 2: the suggestion says it does not fit."""
    before = base(size=3)
    assert before.node is not None
    before = replace(before, node=replace(before.node, nat=True))
    after = replace(before, scale=FixedScale(6), version="1.30")
    change = classify(PlannedChange(ADDR, ("update",), before, after,
                                    ("version", "scale_policy.fixed_scale.size")))
    demand = change_demand(change, "cloud")
    assert demand.worst_case["vpc.externalAddresses.count"] == 4
    assert demand.demand_with(DeployPolicy(0, 1))["vpc.externalAddresses.count"] == 3
    limits = {"vpc.externalAddresses.count": QuotaLimit("vpc.externalAddresses.count", 8, 6)}
    result = evaluate([demand], {"cloud": limits})
    assert [q.quota_id for _, q in result.short] == ["vpc.externalAddresses.count"]
    assert [(s.max_expansion, s.max_unavailable, s.fits) for s in result.suggestions] == [
        (0, 1, False)]


@pytest.mark.parametrize("path", [
    "cluster_id", "allowed_unsafe_sysctls", "allocation_policy.location.subnet_id",
    "instance_template.nat", "instance_template.container_network.pod_mtu",
    "instance_template.container_network", "instance_template.gpu_settings.gpu_environment",
    "instance_template.gpu_settings", "scale_policy.auto_scale", "allocation_policy",
])
def test_force_new_attribute_in_an_update_is_a_blocking_replace(path: str) -> None:
    """ForceNew in the provider schema (resource_yandex_kubernetes_node_group.go @ b52b1df):
    Terraform would replace; a plan that says ["update"] is taken at that worst case, never
    in place or a roll."""
    change = update(path)
    assert change.kind == "replace" and change.blocking
    assert change.replace_order == "delete-first"
    assert change.attributes == (path,)


def test_fixed_to_auto_scale_is_a_replace_and_auto_scale_fields_resize() -> None:
    """fixed -> auto: the plan shows both blocks changed (list lengths differ); the auto_scale
    block is ForceNew. Its min/max/initial are not (ForceNew: false): a resize."""
    assert update("scale_policy.fixed_scale", "scale_policy.auto_scale").kind == "replace"
    assert update("scale_policy.auto_scale.max").kind == "resize"
    assert update("allocation_policy.location.zone").kind == "roll"
