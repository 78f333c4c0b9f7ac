"""Builders of NodeGroup values for the quota preflight tests (no state file needed)."""

from __future__ import annotations

from ngupgrade.core.model import (
    GIB,
    AutoScale,
    BootDisk,
    DeployPolicy,
    FixedScale,
    NodeGroup,
    NodeResources,
    QuotaLimit,
    TfAddress,
)

CLOUD = "b1gcloud00000000000a"
FOLDER = "b1gfolder0000000000a"
CLUSTER = "catcluster000000000a"


def node(cores: int = 2, memory_gb: float = 4, disk_gb: int = 64, disk_type: str = "network-hdd",
         gpus: int = 0, nat: bool = False, platform: str | None = "standard-v3") -> NodeResources:
    return NodeResources(platform_id=platform, cores=cores, core_fraction=100,
                         memory_bytes=int(memory_gb * GIB), gpus=gpus,
                         boot_disk=BootDisk(disk_type, disk_gb * GIB) if disk_type else None,
                         nat=nat, preemptible=False)


def group(name: str = "workers", *, size: int | None = 3, auto: tuple[int, int] | None = None,
          policy: tuple[int, int] | None = (3, 0), res: NodeResources | None = None,
          no_node: bool = False, folder_id: str | None = FOLDER,
          cluster_id: str = CLUSTER, gid: str | None = None) -> NodeGroup:
    scale = (AutoScale(min=auto[0], max=auto[1], initial=auto[0]) if auto is not None
             else FixedScale(size=size or 0))
    return NodeGroup(
        address=TfAddress("yandex_kubernetes_node_group", name),
        id=gid or f"cat{name}", name=name, cluster_id=cluster_id, folder_id=folder_id,
        version="1.30", status="running",
        policy=DeployPolicy(*policy) if policy is not None else None,
        scale=scale, node=None if no_node else (res or node()),
    )


def limits(**quotas: tuple[float | None, float | None]) -> dict[str, QuotaLimit]:
    """``limits(compute__instances__count=(4, 3))`` -> {quota id: QuotaLimit}."""
    out = {}
    for key, (limit, usage) in quotas.items():
        qid = key.replace("__", ".").replace("managed_kubernetes", "managed-kubernetes")
        out[qid] = QuotaLimit(qid, limit, usage)
    return out


def ql(qid: str, limit: float | None, usage: float | None) -> QuotaLimit:
    return QuotaLimit(qid, limit, usage)
