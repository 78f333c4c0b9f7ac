"""Reports of ``ngupgrade groups``: the JSON document (stable keys) and the table rows.

Pure: values in, plain Python values out. JSON keys are stable (README.md):
add keys freely, never rename.
"""

from __future__ import annotations

from typing import Any

from ngupgrade.core.model import AutoScale, NodeGroup, ScalePolicy
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import policy_text, resolve
from ngupgrade.core.units import format_gib


def scale_json(scale: ScalePolicy) -> dict[str, Any]:
    """``{"type": "fixed", "size": N}`` or ``{"type": "auto", "min", "max", "initial"}``."""
    if isinstance(scale, AutoScale):
        return {"type": "auto", "min": scale.min, "max": scale.max, "initial": scale.initial}
    return {"type": "fixed", "size": scale.size}


def policy_json(group: NodeGroup) -> dict[str, Any]:
    """The deploy policy as the state declares it, in the vocabulary every report uses.

    ``{"max_expansion", "max_unavailable", "source": "state", "assumed": false}``; a policy the
    state leaves unset is the platform's default (Yandex 3/0, Selectel 0/1) with
    ``"source": "default"`` and ``"assumed": true``, never 0/0
    (stackitcloud/terraform-provider-stackit#530, yandex-cloud/terraform-provider-yandex PR #61).
    """
    resolved = resolve(group.policy, platform=platform_of(group))
    return {"max_expansion": resolved.policy.max_expansion,
            "max_unavailable": resolved.policy.max_unavailable, "source": resolved.source,
            "assumed": resolved.assumed}


def group_json(group: NodeGroup) -> dict[str, Any]:
    """One node group as ``ngupgrade groups --output json`` prints it (bytes for sizes)."""
    node = group.node
    return {
        "address": str(group.address),
        "id": group.id,
        "name": group.name,
        "cluster_id": group.cluster_id,
        "folder_id": group.folder_id,
        "version": group.version,
        # the API's enum name (RUNNING) as every other report says it; providers store it
        # lowercased in the state
        "status": group.status.upper() if group.status else None,
        "tainted": group.tainted,
        "scale": scale_json(group.scale),
        "policy": policy_json(group),
        "platform": group.platform,
        "placement": None if group.placement is None else {
            "project_id": group.placement.project_id, "region": group.placement.region,
            "zone": group.placement.zone, "flavor_id": group.placement.flavor_id},
        "node_labels": dict(group.node_labels),
        "node_taints": [{"key": t.key, "value": t.value, "effect": t.effect}
                        for t in group.node_taints],
        "node": None if node is None else {
            "platform_id": node.platform_id,
            "cores": node.cores,
            "core_fraction": node.core_fraction,
            "memory_bytes": node.memory_bytes,
            "gpus": node.gpus,
            "boot_disk": None if node.boot_disk is None else {
                "type": node.boot_disk.type, "size_bytes": node.boot_disk.size_bytes},
            "nat": node.nat,
            "preemptible": node.preemptible,
        },
    }


def groups_json(groups: list[NodeGroup]) -> dict[str, Any]:
    """``{"groups": [...]}`` for ``ngupgrade groups --output json``."""
    return {"groups": [group_json(g) for g in groups]}


def scale_text(scale: ScalePolicy) -> str:
    """``fixed 3`` or ``auto 1..7``."""
    if isinstance(scale, AutoScale):
        return f"auto {scale.min}..{scale.max}"
    return f"fixed {scale.size}"


def group_row(group: NodeGroup) -> list[str]:
    """One table row: address, name, id, version, scale, policy, node shape."""
    default = platform_of(group).default_policy
    policy = (f"unset ({policy_text(default)} assumed)" if group.policy is None
              else policy_text(group.policy))
    node = group.node
    flavor = group.placement.flavor_id if group.placement else None
    if node is None:
        shape = f"flavor {flavor}" if flavor else "?"
    else:
        parts = [f"{node.cores} cores"]
        if node.core_fraction != 100:
            parts[0] += f" @{node.core_fraction}%"
        parts.append(f"{format_gib(node.memory_bytes)} GiB")
        if node.gpus:
            parts.append(f"{node.gpus} GPU")
        if node.boot_disk is not None:
            parts.append(f"{format_gib(node.boot_disk.size_bytes)} GiB {node.boot_disk.type}")
        if node.nat:
            parts.append("NAT")
        if node.preemptible:
            parts.append("preemptible")
        prefix = "" if group.platform == "selectel" and not flavor else (
            f"{node.platform_id or '?'}: ")
        shape = prefix + ", ".join(parts)
    address = str(group.address) + (" (tainted)" if group.tainted else "")
    return [address, group.name, group.id, group.version or "?", scale_text(group.scale),
            policy, shape]


GROUP_COLUMNS = ["address", "name", "id", "version", "scale", "deploy policy E/U", "node"]
