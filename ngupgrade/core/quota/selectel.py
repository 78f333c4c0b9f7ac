"""What one Selectel node costs on its project's quotas. Pure.

Selectel counts quotas per project and per pool segment (``availability_zone``): the provider
checks a new node group against ``compute_cores`` (vCPUs), ``compute_ram`` (MB) and
``volume_gigabytes_<type>`` (GB; ``fast``, ``universal``, ``basic``, or ``local`` for a
local volume), each in the group's zone (``selectel/terraform-provider-selectel``,
``checkQuotasForNodegroup``). The Selectel strategy page, "Параметры обновления нод"; "Обновление с
дополнительными нодами"; "Особенности обновления нод при автомасштабировании": extra nodes need free
quota, up to twice the autoscaler max.

A quota id here is ``<resource>.<zone>`` (``compute_cores.ru-7a``), so the quota math of
:mod:`ngupgrade.core.quota` (extra nodes, demand, verdict, suggestions) runs unchanged with
the project id in the place of Yandex's cloud id.
"""

from __future__ import annotations

from ngupgrade.core.model import GIB, NodeGroup

CORES = "compute_cores"
RAM = "compute_ram"
VOLUME_PREFIX = "volume_gigabytes_"
VOLUME_TYPES = ("fast", "universal", "basic", "local")
"""Volume families with a quota of their own (``volume_type`` is ``<family>.<zone>``)."""
RESOURCES = (CORES, RAM, *(VOLUME_PREFIX + t for t in VOLUME_TYPES))
"""Every quota resource this module charges (the keys a project quota file may hold)."""
MIB = 1 << 20


def quota_id(resource: str, zone: str) -> str:
    """``compute_cores.ru-7a``: one resource of one pool segment."""
    return f"{resource}.{zone}"


def consumption(group: NodeGroup) -> tuple[dict[str, int], list[str]]:
    """What one node of a Selectel ``group`` consumes (quota id -> vCPUs, MB or GB), and the
    problems that keep an amount unknown (each names the group; the caller fails closed)."""
    where = f"node group {group.address}"
    placement = group.placement
    if placement is None:
        return {}, [f"{where}: no project_id/availability_zone in state"]
    node = group.node
    if node is None:
        if placement.flavor_id:
            return {}, [f"{where}: flavor_id {placement.flavor_id!r} without cpus/ram_mb: its "
                        "vCPUs and RAM are in Selectel's flavor catalog, not in the state"]
        return {}, [f"{where}: no cpus/ram_mb in state, so what a node consumes is unknown"]
    zone = placement.zone
    per_node = {quota_id(CORES, zone): node.cores,
                quota_id(RAM, zone): node.memory_bytes // MIB}
    problems: list[str] = []
    disk = node.boot_disk
    if disk is None:
        problems.append(f"{where}: no volume_gb/volume_type in state, so its volume quota is "
                        "unknown")
    else:
        family = disk.type.split(".", 1)[0]
        if family not in VOLUME_TYPES:
            problems.append(f"{where}: volume type {disk.type!r} has no known quota (known: "
                            f"{', '.join(VOLUME_TYPES)})")
        else:
            per_node[quota_id(VOLUME_PREFIX + family, zone)] = disk.size_bytes // GIB
    return per_node, problems
