"""Selectel node groups read from Terraform state (v4 and show -json), ``--platform``, and the
faults of a damaged Selectel state (one line naming the file and the JSON path)."""

from __future__ import annotations

import json

import pytest

from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.core.errors import BadInput
from ngupgrade.core.k8s import Taint
from ngupgrade.core.model import GIB, AutoScale, BootDisk, FixedScale, Placement
from ngupgrade.testing import TfState, selectel_cluster, selectel_node_group
from tests.conftest import EXAMPLE_STATE, EXAMPLES

SELECTEL_STATE = EXAMPLES / "selectel" / "terraform.tfstate"
SELECTEL_SHOW = EXAMPLES / "selectel" / "show.json"
PROJECT = "9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50"
CLUSTER = "b311ce58-2658-46b5-b733-7a0f418703f2"


def _state(attributes: dict, rtype: str = "selectel_mks_nodegroup_v1") -> bytes:
    return json.dumps(TfState().add(rtype, "ng", attributes).to_v4()).encode()


def _attrs(**over: object) -> dict:
    """A group as terraform-provider-selectel writes it (3 nodes of 2 vCPU, 4096 MB, a 20 GB
    basic.ru-7a volume), with ``over`` replacing attributes."""
    base = selectel_node_group(id="ng-1", cluster_id=CLUSTER, project_id=PROJECT,
                               nodes_count=3, cpus=2, ram_mb=4096, volume_gb=20,
                               volume_type="basic.ru-7a")
    base.update(over)
    return base


def test_example_state_has_three_selectel_groups_with_exact_values() -> None:
    parsed = parse_state(SELECTEL_STATE.read_bytes(), "example")
    batch, cache, workers = parsed.groups  # sorted by name, as Terraform writes them
    assert [str(g.address) for g in parsed.groups] == [
        "selectel_mks_nodegroup_v1.batch", "selectel_mks_nodegroup_v1.cache",
        "selectel_mks_nodegroup_v1.workers"]
    assert {g.platform for g in parsed.groups} == {"selectel"}
    assert workers.id == "63ed5342-b22c-4c7a-9d41-c1fe4a142c13"  # the part after "<cluster>/"
    assert workers.cluster_id == CLUSTER
    assert (workers.version, workers.master_version) == ("1.29.5", "1.29.5")  # the cluster's
    assert workers.policy is None  # the strategy is not in the state
    assert workers.scale == FixedScale(5)
    assert workers.node is not None
    assert workers.node.cores == 4
    assert workers.node.memory_bytes == 8192 * 2**20 == 8 * GIB
    assert workers.node.boot_disk == BootDisk("fast.ru-7a", 32 * GIB)
    assert workers.placement == Placement(PROJECT, "ru-7", "ru-7a", None)
    assert workers.node_labels == {"role": "workers"}
    assert batch.scale == AutoScale(min=1, max=5, initial=2)  # initial: nodes_count now
    assert batch.node_taints == (Taint("dedicated", "NoSchedule", "batch"),)
    assert batch.node is not None and batch.node.preemptible
    assert batch.node.boot_disk == BootDisk("universal.ru-7a", 20 * GIB)
    assert cache.node is None  # a flavor without cpus/ram_mb: its shape is not in the state
    assert cache.placement is not None and cache.placement.flavor_id == "1011"


def test_show_json_gives_the_same_selectel_groups() -> None:
    raw = parse_state(SELECTEL_STATE.read_bytes(), "raw")
    shown = parse_state(SELECTEL_SHOW.read_bytes(), "show")
    assert shown.format == "show-json"
    assert shown.groups == raw.groups


def test_platform_comes_from_the_resource_type_and_can_be_forced() -> None:
    yandex = parse_state(EXAMPLE_STATE.read_bytes(), "y")
    assert {g.platform for g in yandex.groups} == {"yandex"}
    forced = parse_state(EXAMPLE_STATE.read_bytes(), "y", platform="selectel")
    assert {g.platform for g in forced.groups} == {"selectel"}
    assert [g.id for g in forced.groups] == [g.id for g in yandex.groups]


def test_local_volume_is_charged_as_local() -> None:
    (group,) = parse_state(_state(_attrs(local_volume=True, volume_type="")), "s").groups
    assert group.node is not None and group.node.boot_disk == BootDisk("local", 20 * GIB)


def test_zero_values_the_provider_writes_read_as_absent() -> None:
    (group,) = parse_state(_state(_attrs(cpus=0, ram_mb=0, flavor_id="", volume_gb=0)),
                           "s").groups
    assert group.node is None
    assert group.placement is not None and group.placement.flavor_id is None
    assert group.scale == FixedScale(3)


@pytest.mark.parametrize(
    ("over", "message", "path"),
    [({"nodes_count": None}, "node group selectel_mks_nodegroup_v1.ng has no nodes_count",
      "$.resources[0].instances[0].attributes.nodes_count"),
     ({"enable_autoscale": True, "autoscale_min_nodes": 1, "autoscale_max_nodes": 0},
      "enable_autoscale without autoscale_max_nodes",
      "$.resources[0].instances[0].attributes.autoscale_max_nodes"),
     ({"enable_autoscale": True, "autoscale_min_nodes": 4, "autoscale_max_nodes": 2},
      "autoscale_min_nodes 4 is above autoscale_max_nodes 2",
      "$.resources[0].instances[0].attributes.autoscale_min_nodes"),
     ({"availability_zone": ""}, "has no availability_zone",
      "$.resources[0].instances[0].attributes.availability_zone"),
     ({"nodes_count": -1}, "Expected `int` >= 0",
      "$.resources[0].instances[0].attributes.nodes_count")],
)
def test_damaged_selectel_state_is_bad_input_naming_the_path(over: dict, message: str,
                                                             path: str) -> None:
    with pytest.raises(BadInput) as info:
        parse_state(_state(_attrs(**over)), "bad.tfstate")
    assert message in str(info.value)
    assert info.value.path == path
    assert info.value.exit_code == 3
    assert "\n" not in str(info.value)


def test_selectel_cluster_without_groups_gives_no_group() -> None:
    data = _state(selectel_cluster(id=CLUSTER), "selectel_mks_cluster_v1")
    assert parse_state(data, "s").groups == ()


def test_a_bad_taint_of_a_selectel_group_is_noted_not_bad_input() -> None:
    # Before: "Invalid enum value 'NoSchedul'", exit 3, for plan and preflight too.
    (group,) = parse_state(_state(_attrs(taints=[{"key": "k", "value": "v",
                                                  "effect": "NoSchedul"}])), "s").groups
    assert group.node_taints == ()
    assert [(n.attribute, n.value, n.not_checked) for n in group.notes] == [
        ("taints[0].effect", "'NoSchedul'", "not given to the new nodes the drain check models")]
    assert "(invalid enum value 'NoSchedul')" in group.notes[0].why


def test_a_selectel_cluster_version_not_understood_is_noted_on_its_group() -> None:
    doc = json.loads(_state(_attrs()))
    cluster = {**selectel_cluster(id=CLUSTER), "kube_version": 1.29}  # a number: damaged
    doc["resources"] += TfState().add("selectel_mks_cluster_v1", "c", cluster).to_v4()[
        "resources"]
    (group,) = parse_state(json.dumps(doc).encode(), "s").groups
    assert (group.version, group.status) == (None, "ACTIVE")
    assert [(n.attribute, n.value, n.not_checked) for n in group.notes] == [
        (f"kube_version (of selectel_mks_cluster_v1 {CLUSTER})", "1.29", "version not shown")]
