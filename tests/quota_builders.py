"""Builders of NodeGroup values for the quota preflight tests (no state file needed)."""

from __future__ import annotations

from ngupgrade.core.model import DeployPolicy, NodeGroup, NodeResources, QuotaLimit
from ngupgrade.testing import node_group
from ngupgrade.testing.builders import node_resources

CLOUD = "b1gcloud00000000000a"
FOLDER = "b1gfolder0000000000a"
CLUSTER = "catcluster000000000a"


def node(cores: int = 2, memory_gb: float = 4, disk_gb: int = 64, disk_type: str = "network-hdd",
         gpus: int = 0, nat: bool = False, platform: str | None = "standard-v3") -> NodeResources:
    """A node of 2 cores, 4 GiB and a 64 GiB network-hdd boot disk unless told otherwise."""
    return node_resources(cores=cores, memory_gib=memory_gb, disk_gib=disk_gb,
                          disk_type=disk_type or None, gpus=gpus, nat=nat, platform=platform)


def group(name: str = "workers", *, size: int | None = 3, auto: tuple[int, int] | None = None,
          policy: tuple[int, int] | None = (3, 0), res: NodeResources | None = None,
          no_node: bool = False, folder_id: str | None = FOLDER,
          cluster_id: str = CLUSTER, gid: str | None = None) -> NodeGroup:
    """A group of the quota tests (on 1.30, id ``cat<name>``), on ngupgrade.testing.node_group."""
    return node_group(gid or f"cat{name}", name=name, cluster_id=cluster_id,
                      folder_id=folder_id, version="1.30", size=size,
                      auto=(auto[0], auto[1], auto[0]) if auto is not None else None,
                      policy=DeployPolicy(*policy) if policy is not None else None,
                      resources=res or node(), template=not no_node)


def limits(**quotas: tuple[float | None, float | None]) -> dict[str, QuotaLimit]:
    """``limits(compute__instances__count=(4, 3))`` -> {quota id: QuotaLimit}."""
    out = {}
    for key, (limit, usage) in quotas.items():
        qid = key.replace("__", ".").replace("managed_kubernetes", "managed-kubernetes")
        out[qid] = QuotaLimit(qid, limit, usage)
    return out


def ql(qid: str, limit: float | None, usage: float | None) -> QuotaLimit:
    return QuotaLimit(qid, limit, usage)
