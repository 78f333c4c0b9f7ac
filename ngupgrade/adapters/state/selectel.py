"""Selectel's resources in a Terraform state: ``selectel_mks_nodegroup_v1`` and its
``selectel_mks_cluster_v1`` -> :class:`~ngupgrade.core.model.NodeGroup` on the Selectel
platform.

Attributes read (``selectel/terraform-provider-selectel``, ``resource_selectel_mks_*_v1.go``):
``id`` (``<cluster_id>/<nodegroup_id>``), ``cluster_id``, ``project_id``, ``region``,
``availability_zone``, ``nodes_count`` (the node count at the last refresh: the provider writes
``len(nodes)``), ``enable_autoscale`` with ``autoscale_min_nodes`` / ``autoscale_max_nodes``,
``flavor_id`` or ``cpus`` / ``ram_mb`` (MB = 2**20 bytes) / ``volume_gb`` (GB = 2**30 bytes) /
``volume_type`` (``fast.ru-7a``: type and pool segment) / ``local_volume``, ``preemptible``,
``labels``, ``taints``, ``nodes[].hostname`` (the provider's ``flattenMKSNodegroupV1Nodes`` in
``selectel/mks.go``: ``id``, ``ip``, ``hostname`` of each node, from the MKS API's node view); of
the cluster, ``kube_version`` (node groups run the cluster's version: Selectel upgrades are
cluster-level).

The update strategy (E/U, the in-place method) is in neither the API nor the state: a group's
``policy`` is left unset (the platform's default 0/1 stands in, reported as assumed).
Unset optionals are written by the provider as zero values (``cpus: 0`` next to a
``flavor_id``, ``flavor_id: ""`` next to ``cpus``): both read as absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import msgspec

from ngupgrade.adapters.state.soft import ABSENT, Notes
from ngupgrade.core.address import TfAddress
from ngupgrade.core.errors import BadInput
from ngupgrade.core.k8s import Taint
from ngupgrade.core.model import (
    GIB,
    MAX_GROUP_NODES,
    AutoScale,
    BootDisk,
    FixedScale,
    NodeGroup,
    NodeResources,
    Placement,
    ScalePolicy,
    StateNote,
)
from ngupgrade.core.platform import SELECTEL

NODE_GROUP_TYPE = SELECTEL.node_group_type
CLUSTER_TYPE = "selectel_mks_cluster_v1"
MIB = 1 << 20
"""Bytes in one ``ram_mb`` unit."""
LOCAL_VOLUME = "local"
"""``BootDisk.type`` of a node on a local volume (``local_volume = true``)."""

NodeCount = Annotated[int, msgspec.Meta(ge=0, le=MAX_GROUP_NODES)]
Count = Annotated[int, msgspec.Meta(ge=0, le=1 << 40)]


class _Taint(msgspec.Struct):
    key: str
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
    value: str = ""


class _Node(msgspec.Struct):
    hostname: str = ""


class _NodeGroupAttrs(msgspec.Struct):
    id: str
    cluster_id: str | None = None
    project_id: str | None = None
    region: str | None = None
    availability_zone: str | None = None
    nodes_count: NodeCount | None = None
    enable_autoscale: bool | None = None
    autoscale_min_nodes: NodeCount | None = None
    autoscale_max_nodes: NodeCount | None = None
    flavor_id: str | None = None
    cpus: Count | None = None
    ram_mb: Count | None = None
    volume_gb: Count | None = None
    volume_type: str | None = None
    local_volume: bool | None = None
    preemptible: bool | None = None
    # Soft (adapters/state/soft.py): they feed the drain check's model and notes, never the
    # plan's or the preflight's figures.
    labels: msgspec.Raw = ABSENT  # dict[str, str]
    taints: msgspec.Raw = ABSENT  # list[_Taint]
    nodes: msgspec.Raw = ABSENT  # list[_Node]


class _ClusterAttrs(msgspec.Struct):
    id: str
    name: str | None = None
    project_id: str | None = None
    region: str | None = None
    kube_version: msgspec.Raw = ABSENT  # str, soft
    status: msgspec.Raw = ABSENT  # str, soft


@dataclass(frozen=True)
class SelectelCluster:
    """The parts of a ``selectel_mks_cluster_v1`` the tool needs; ``notes`` name what of it
    was not understood (given to each of its groups)."""

    id: str
    name: str
    kube_version: str | None
    status: str | None
    notes: tuple[StateNote, ...] = ()


def cluster(attrs: _ClusterAttrs) -> SelectelCluster:
    """The cluster value of decoded attributes."""
    notes = Notes()
    where = f"(of {CLUSTER_TYPE} {attrs.id})"
    version = notes.decode(attrs.kube_version, str, f"kube_version {where}",
                           "version not shown", "")
    status = notes.decode(attrs.status, str, f"status {where}", "status not shown", "")
    return SelectelCluster(attrs.id, attrs.name or "", version or None, status or None,
                           tuple(notes.items))


CLUSTER_SHAPE = _ClusterAttrs
NODE_GROUP_SHAPE = _NodeGroupAttrs


def node_group(attrs: _NodeGroupAttrs, address: TfAddress, tainted: bool,
               clusters: dict[str, SelectelCluster], source: str, path: str) -> NodeGroup:
    """One Selectel node group of decoded attributes.

    Raises:
        BadInput: no ``nodes_count`` (fixed group), autoscaling without a max, min above max,
            or no ``project_id``/``region``/``availability_zone`` (the provider requires them);
            the message names ``source``, the JSON path and the address.
    """
    cluster_id, _, group_id = attrs.id.rpartition("/")
    cluster_id = attrs.cluster_id or cluster_id
    missing = [k for k in ("project_id", "region", "availability_zone") if not getattr(attrs, k)]
    if missing:
        raise BadInput(f"node group {address} has no {', '.join(missing)}", source=source,
                       path=f"{path}.{missing[0]}",
                       hint="refresh the state (`terraform apply -refresh-only`)")
    assert attrs.project_id and attrs.region and attrs.availability_zone
    found = clusters.get(cluster_id)
    version = found.kube_version if found else None
    notes = Notes()
    labels = notes.decode(attrs.labels, dict[str, str], "labels", _MODEL_WITHOUT, {})
    taints = notes.decode(attrs.taints, list[_Taint], "taints", _MODEL_WITHOUT, [])
    nodes = notes.decode(attrs.nodes, list[_Node], "nodes",
                         "the group's nodes not found by hostname in the drain check", [])
    return NodeGroup(
        address=address,
        id=group_id,
        name="",
        cluster_id=cluster_id,
        folder_id=None,
        version=version,
        status=found.status if found else None,
        policy=None,  # the strategy lives in the control panel, not in the state
        scale=_scale(attrs, address, source, path),
        node=_node(attrs),
        tainted=tainted,
        master_version=version,
        platform="selectel",
        placement=Placement(attrs.project_id, attrs.region, attrs.availability_zone,
                            attrs.flavor_id or None),
        # Selectel's labels and taints are the Kubernetes ones every node gets
        node_labels=labels,
        node_taints=tuple(Taint(t.key, t.effect, t.value) for t in taints),
        # the drain check finds the group's Kubernetes nodes by these (core.membership)
        node_names=tuple(n.hostname for n in nodes if n.hostname),
        notes=tuple(notes.items) + (found.notes if found else ()),
    )


_MODEL_WITHOUT = "not given to the new nodes the drain check models"


def _scale(attrs: _NodeGroupAttrs, address: TfAddress, source: str, path: str
           ) -> ScalePolicy:
    if attrs.enable_autoscale:
        lo, hi = attrs.autoscale_min_nodes or 0, attrs.autoscale_max_nodes
        if not hi:
            raise BadInput(f"node group {address}: enable_autoscale without "
                           "autoscale_max_nodes", source=source,
                           path=f"{path}.autoscale_max_nodes",
                           hint="refresh the state (`terraform apply -refresh-only`)")
        if lo > hi:
            raise BadInput(f"node group {address}: autoscale_min_nodes {lo} is above "
                           f"autoscale_max_nodes {hi}", source=source,
                           path=f"{path}.autoscale_min_nodes")
        current = attrs.nodes_count if attrs.nodes_count is not None else lo
        return AutoScale(min=lo, max=hi, initial=current)
    if attrs.nodes_count is None:
        raise BadInput(f"node group {address} has no nodes_count", source=source,
                       path=f"{path}.nodes_count",
                       hint="refresh the state (`terraform apply -refresh-only`)")
    return FixedScale(size=attrs.nodes_count)


def _node(attrs: _NodeGroupAttrs) -> NodeResources | None:
    """The node shape when the state holds it (``cpus`` and ``ram_mb``); a group on a
    ``flavor_id`` alone gives None (the flavor's shape is Selectel's catalog, not the state)."""
    if not attrs.cpus or not attrs.ram_mb:
        return None
    disk_type = LOCAL_VOLUME if attrs.local_volume else (attrs.volume_type or None)
    boot = (BootDisk(type=disk_type, size_bytes=attrs.volume_gb * GIB)
            if disk_type and attrs.volume_gb else None)
    return NodeResources(
        platform_id=attrs.flavor_id or None,
        cores=attrs.cpus,
        core_fraction=100,
        memory_bytes=attrs.ram_mb * MIB,
        gpus=0,
        boot_disk=boot,
        nat=False,
        preemptible=bool(attrs.preemptible),
    )
