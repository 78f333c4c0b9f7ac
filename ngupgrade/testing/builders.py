"""Short constructors of domain values for tests that have no Terraform state at hand."""

from __future__ import annotations

from ngupgrade.core.model import (
    GIB,
    AutoScale,
    BootDisk,
    DeployPolicy,
    FixedScale,
    NodeGroup,
    NodeResources,
    TfAddress,
)

_ONE_ZERO = DeployPolicy(1, 0)


def node_group(
    id: str = "catgroup000000000001",
    *,
    name: str = "workers",
    cluster_id: str = "catq0n7i0h9ka1b2c3d4",
    folder_id: str | None = "b1gexamplefolder00001",
    version: str = "1.29",
    size: int | None = 3,
    auto: tuple[int, int, int] | None = None,
    policy: DeployPolicy | None = _ONE_ZERO,
    cores: int = 4,
    memory_gib: int = 8,
    disk_gib: int = 64,
    disk_type: str = "network-ssd",
    nat: bool = False,
    platform: str | None = "standard-v3",
    gpus: int = 0,
) -> NodeGroup:
    """A ``yandex_kubernetes_node_group.<name>`` value: fixed ``size`` nodes, or ``auto`` =
    (min, max, initial). Memory and disk are given in GiB and stored in bytes."""
    scale = AutoScale(*auto) if auto else FixedScale(size or 0)
    return NodeGroup(
        address=TfAddress("yandex_kubernetes_node_group", name), id=id, name=name,
        cluster_id=cluster_id, folder_id=folder_id, version=version, status="running",
        policy=policy, scale=scale,
        node=NodeResources(platform, cores, 100, memory_gib * GIB, gpus,
                           BootDisk(disk_type, disk_gib * GIB), nat, False),
    )
