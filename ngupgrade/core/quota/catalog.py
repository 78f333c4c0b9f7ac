"""The catalog: which quota ids one node of a group consumes, and how much. Pure.

Rules (docs/quota-preflight.md; quota ids and units from the Yandex Cloud docs' quota tables). One
node consumes, per cloud:

* compute: ``compute.instances.count`` 1, ``compute.instanceCores.count`` cores (whole vCPUs,
  whatever the ``core_fraction``), ``compute.instanceMemory.size`` bytes, ``compute.disks.count``
  1, the disk-size quota of its boot disk type (bytes), and ``gpus`` on the GPU quota of its
  platform;
* managed-kubernetes: ``nodes.count`` 1, ``cores.count``, ``memory.size``, ``disk.size``;
* vpc: ``vpc.externalAddresses.count`` 1 when the node has a public NAT address.

A Selectel group consumes its project's quotas instead (:mod:`ngupgrade.core.quota.selectel`).
Anything the mapping cannot place (a GPU platform without a known GPU quota, a boot disk type
without a known size quota, a group without ``instance_template``) fails closed with
:class:`QuotaMappingUnknown`, naming the group and the value: nothing is skipped silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from ngupgrade.core.errors import QuotaMappingUnknown
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.quota import selectel

Service = Literal["compute", "managed-kubernetes", "vpc"]
SERVICES: tuple[Service, ...] = ("compute", "managed-kubernetes", "vpc")

# Quota ids (the Yandex Cloud docs' quota tables). Counts are plain numbers, ``*.size`` are bytes.
INSTANCES = "compute.instances.count"
INSTANCE_CORES = "compute.instanceCores.count"
HIGH_FREQ_CORES = "compute.instanceHighFreqCores.count"
INSTANCE_MEMORY = "compute.instanceMemory.size"
DISKS = "compute.disks.count"
MK8S_NODES = "managed-kubernetes.nodes.count"
MK8S_CORES = "managed-kubernetes.cores.count"
MK8S_MEMORY = "managed-kubernetes.memory.size"
MK8S_DISK = "managed-kubernetes.disk.size"
EXTERNAL_ADDRESSES = "vpc.externalAddresses.count"

DISK_SIZE_QUOTA: Mapping[str, str] = {
    "network-hdd": "compute.hddDisks.size",
    "network-ssd": "compute.ssdDisks.size",
    "network-ssd-nonreplicated": "compute.ssdNonReplicatedDisks.size",
    "network-ssd-io-m3": "compute.ssdIOM3Disks.size",
}
"""Boot disk type id -> its disk-size quota (the quota tables; ``network-nvme`` has none known)."""

GPU_QUOTA: Mapping[str, str] = {
    "gpu-standard-v1": "compute.instanceGpus.count",
    "gpu-standard-v2": "compute.instanceGpus.count",
    "gpu-standard-v3": "compute.instanceA100Gpus.count",
    "gpu-standard-v3i": "compute.instanceV3IGpus.count",
    "standard-v3-t4": "compute.instanceT4Gpus.count",
    "standard-v3-t4i": "compute.instanceT4IGpus.count",
}
"""GPU platform id -> its GPU quota (the quota tables; ``gpu-standard-v4`` has none known)."""

PLATFORM_CORE_QUOTA: Mapping[str, str] = {"highfreq-v3": HIGH_FREQ_CORES}
"""Platforms whose vCPUs also count on a platform-specific core quota (the quota tables).

Their cores are charged on ``compute.instanceCores.count`` ("vCPUs, all VMs") as well: counting
on both can only make the check stricter."""

PLATFORM_SPECIFIC_CORE_PREFIXES: tuple[str, ...] = ("highfreq-",)
"""An unknown platform with one of these prefixes has a core quota of its own that we cannot
name: it fails closed."""


def service_of(quota_id: str) -> str:
    """The Quota Manager service of a quota id: the part before the first dot."""
    return quota_id.split(".", 1)[0]


def place_node(group: NodeGroup) -> tuple[dict[str, int], list[str]]:
    """What one node of ``group`` consumes (quota id -> amount, bytes for ``*.size``), and the
    problems that keep an amount unknown, each naming the group (the caller fails closed)."""
    if group.platform == "selectel":  # project quotas per zone (core.quota.selectel)
        return selectel.consumption(group)
    node = group.node
    where = f"node group {group.address}"
    if node is None:
        return {}, [f"{where}: no instance_template in state, so what a node consumes is unknown"]
    problems: list[str] = []
    per_node: dict[str, int] = {
        INSTANCES: 1,
        INSTANCE_CORES: node.cores,
        INSTANCE_MEMORY: node.memory_bytes,
        DISKS: 1,
        MK8S_NODES: 1,
        MK8S_CORES: node.cores,
        MK8S_MEMORY: node.memory_bytes,
    }
    platform = node.platform_id
    if platform is not None and platform in PLATFORM_CORE_QUOTA:
        per_node[PLATFORM_CORE_QUOTA[platform]] = node.cores
    elif platform is not None and platform.startswith(PLATFORM_SPECIFIC_CORE_PREFIXES):
        problems.append(f"{where}: platform_id {platform!r} has a core quota of its own that "
                        "ngupgrade does not know")
    if node.gpus > 0:
        gpu_quota = GPU_QUOTA.get(platform) if platform is not None else None
        if gpu_quota is None:
            problems.append(f"{where}: {node.gpus} GPU(s) on platform_id {platform!r}, which has "
                            f"no known GPU quota (known: {', '.join(sorted(GPU_QUOTA))})")
        else:
            per_node[gpu_quota] = node.gpus
    disk = node.boot_disk
    if disk is None:
        problems.append(f"{where}: no boot_disk in state, so its disk-size quota is unknown")
    else:
        disk_quota = DISK_SIZE_QUOTA.get(disk.type)
        if disk_quota is None:
            problems.append(f"{where}: boot disk type {disk.type!r} has no known disk-size quota "
                            f"(known: {', '.join(sorted(DISK_SIZE_QUOTA))})")
        else:
            per_node[disk_quota] = disk.size_bytes
        per_node[MK8S_DISK] = disk.size_bytes
    if node.nat:
        per_node[EXTERNAL_ADDRESSES] = 1
    return per_node, problems


def node_consumption(group: NodeGroup) -> dict[str, int]:
    """What one node of ``group`` consumes: quota id -> amount (bytes for ``*.size``).

    Raises:
        QuotaMappingUnknown: no node resources in state, an unknown boot disk type, GPUs on a
            platform without a known GPU quota, or an unknown platform with its own core quota.
    """
    per_node, problems = place_node(group)
    if problems:
        raise QuotaMappingUnknown("; ".join(problems),
                                  hint="ngupgrade never skips a quota it cannot place")
    return per_node
