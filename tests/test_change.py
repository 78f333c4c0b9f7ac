"""core.change and core.plan_quota on plain values: the classification table and the demands."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ngupgrade.core.change import PlannedChange, classify, classify_plan
from ngupgrade.core.model import GIB, AutoScale, DeployPolicy, FixedScale, TfAddress
from ngupgrade.core.plan_quota import change_demand
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
