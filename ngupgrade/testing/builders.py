"""Short constructors of domain values for tests that have no Terraform state at hand: the one
place tests build a ``NodeGroup`` (ngupgrade's own tests build on these too)."""

from __future__ import annotations

from ngupgrade.core.address import TfAddress
from ngupgrade.core.model import (
    GIB,
    AutoScale,
    BootDisk,
    DeployPolicy,
    FixedScale,
    NodeGroup,
    NodeResources,
    PlatformName,
    ScalePolicy,
)

_ONE_ZERO = DeployPolicy(1, 0)
RESOURCE_TYPE: dict[str, str] = {"yandex": "yandex_kubernetes_node_group",
                                 "selectel": "selectel_mks_nodegroup_v1"}
"""The Terraform resource type of a node group, per cloud platform."""


def node_resources(*, cores: int = 4, memory_gib: float = 8, disk_gib: int = 64,
                   disk_type: str | None = "network-ssd", platform: str | None = "standard-v3",
                   gpus: int = 0, nat: bool = False, core_fraction: int = 100) -> NodeResources:
    """One node's ``instance_template``: memory and disk in GiB, stored in bytes;
    ``disk_type`` None leaves the boot disk out (as a state without ``boot_disk``)."""
    return NodeResources(
        platform_id=platform, cores=cores, core_fraction=core_fraction,
        memory_bytes=int(memory_gib * GIB), gpus=gpus,
        boot_disk=BootDisk(disk_type, disk_gib * GIB) if disk_type else None,
        nat=nat, preemptible=False)


def node_group(
    id: str = "catgroup000000000001",
    *,
    name: str = "workers",
    cluster_id: str = "catq0n7i0h9ka1b2c3d4",
    folder_id: str | None = "b1gexamplefolder00001",
    version: str = "1.29",
    status: str = "running",
    size: int | None = 3,
    auto: tuple[int, int, int] | None = None,
    scale: ScalePolicy | None = None,
    policy: DeployPolicy | None = _ONE_ZERO,
    cores: int = 4,
    memory_gib: float = 8,
    disk_gib: int = 64,
    disk_type: str | None = "network-ssd",
    nat: bool = False,
    platform: str | None = "standard-v3",
    gpus: int = 0,
    resources: NodeResources | None = None,
    template: bool = True,
    cloud: PlatformName = "yandex",
) -> NodeGroup:
    """A ``yandex_kubernetes_node_group.<name>`` value (``selectel_mks_nodegroup_v1.<name>``
    with ``cloud="selectel"``): fixed ``size`` nodes, or ``auto`` = (min, max, initial), or
    any ``scale``. Node resources from the keywords (memory and disk in
    GiB, stored in bytes) or ``resources``; ``template=False`` is a state without
    ``instance_template`` (``node`` None)."""
    if scale is None:
        scale = AutoScale(*auto) if auto else FixedScale(size or 0)
    node = None
    if template:
        node = resources or node_resources(cores=cores, memory_gib=memory_gib, disk_gib=disk_gib,
                                           disk_type=disk_type, platform=platform, gpus=gpus,
                                           nat=nat)
    return NodeGroup(
        address=TfAddress(RESOURCE_TYPE[cloud], name), id=id, name=name,
        cluster_id=cluster_id, folder_id=folder_id, version=version, status=status,
        policy=policy, scale=scale, node=node, platform=cloud,
    )
