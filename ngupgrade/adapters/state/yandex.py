"""Yandex's resources in a Terraform state: ``yandex_kubernetes_node_group`` and its
``yandex_kubernetes_cluster`` -> :class:`~ngupgrade.core.model.NodeGroup` on the Yandex
platform (reference sections 1.2-1.3: nested blocks are lists of one object; memory and disk
in GB = 2**30 bytes, provider ``toBytes``). :mod:`ngupgrade.adapters.state.parse` finds the
resources and decodes their attributes into the shapes here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

import msgspec

from ngupgrade.core.address import TfAddress
from ngupgrade.core.duration import DurationError, go_duration_seconds, parse_time_of_day
from ngupgrade.core.errors import BadInput
from ngupgrade.core.k8s import Taint, TaintEffect
from ngupgrade.core.model import (
    GIB,
    MAX_GROUP_NODES,
    WEEKDAYS,
    AutoScale,
    BootDisk,
    DeployPolicy,
    FixedScale,
    Maintenance,
    MaintenanceWindow,
    NodeGroup,
    NodeResources,
    PlacementGroup,
    ScalePolicy,
)
from ngupgrade.core.platform import YANDEX
from ngupgrade.core.text import printable_text

NODE_GROUP_TYPE = YANDEX.node_group_type
CLUSTER_TYPE = "yandex_kubernetes_cluster"

# Value ranges a real state holds; anything else is a damaged or hand-made state. A node count
# above MAX_GROUP_NODES would also make the plan's timeline grow without bound.
NodeCount = Annotated[int, msgspec.Meta(ge=0, le=MAX_GROUP_NODES)]
Count = Annotated[int, msgspec.Meta(ge=0)]
Gigabytes = Annotated[float, msgspec.Meta(ge=0, le=1 << 30)]  # finite: JSON 1e400 decodes to inf


class _Resources(msgspec.Struct):
    cores: Count
    memory: Gigabytes
    core_fraction: Count | None = None
    gpus: Count | None = None


class _BootDisk(msgspec.Struct):
    size: Count | None = None
    type: str | None = None


class _NetworkInterface(msgspec.Struct):
    nat: bool | None = None


class _Scheduling(msgspec.Struct):
    preemptible: bool | None = None


class _PlacementPolicy(msgspec.Struct):
    placement_group_id: str | None = None


class _Template(msgspec.Struct):
    resources: list[_Resources] | None = None
    placement_policy: list[_PlacementPolicy] | None = None
    platform_id: str | None = None
    nat: bool | None = None
    boot_disk: list[_BootDisk] | None = None
    network_interface: list[_NetworkInterface] | None = None
    scheduling_policy: list[_Scheduling] | None = None


class _Fixed(msgspec.Struct):
    size: NodeCount


class _Auto(msgspec.Struct):
    min: NodeCount
    max: NodeCount
    initial: NodeCount | None = None


class _Scale(msgspec.Struct):
    fixed_scale: list[_Fixed] | None = None
    auto_scale: list[_Auto] | None = None


class _Deploy(msgspec.Struct):
    max_expansion: int
    max_unavailable: int


class _VersionInfo(msgspec.Struct):
    current_version: str | None = None


class _Location(msgspec.Struct):
    zone: str | None = None


class _Allocation(msgspec.Struct):
    location: list[_Location] | None = None


class _Window(msgspec.Struct):
    start_time: str
    duration: str
    day: str | None = None


class _MaintenancePolicy(msgspec.Struct):
    auto_upgrade: bool | None = None
    maintenance_window: list[_Window] | None = None


class _NodeGroupAttrs(msgspec.Struct):
    id: str
    scale_policy: list[_Scale] | None = None
    cluster_id: str | None = None
    name: str | None = None
    version: str | None = None
    status: str | None = None
    deploy_policy: list[_Deploy] | None = None
    instance_template: list[_Template] | None = None
    version_info: list[_VersionInfo] | None = None
    labels: dict[str, str] | None = None
    node_labels: dict[str, str] | None = None
    node_taints: list[str] | None = None
    allocation_policy: list[_Allocation] | None = None
    maintenance_policy: list[_MaintenancePolicy] | None = None


class _PlacementGroupAttrs(msgspec.Struct):
    id: str
    placement_strategy_spread: bool | None = None
    placement_strategy_partitions: int | None = None


PLACEMENT_GROUP_TYPE = "yandex_compute_placement_group"
PLACEMENT_GROUP_SHAPE = _PlacementGroupAttrs


def placement_strategy(attrs: _PlacementGroupAttrs) -> Literal["spread", "partition"]:
    """A placement group's strategy: ``partition`` when it has partitions, else ``spread``
    (the provider's default; compute ``placement-groups`` docs)."""
    return "partition" if attrs.placement_strategy_partitions else "spread"


class _Master(msgspec.Struct):
    version: str | None = None


class _ClusterAttrs(msgspec.Struct):
    id: str
    folder_id: str | None = None
    master: list[_Master] | None = None


@dataclass(frozen=True)
class ClusterInfo:
    """The parts of a ``yandex_kubernetes_cluster`` the tool needs (reference section 1.3)."""

    id: str
    folder_id: str | None
    master_version: str | None


CLUSTER_SHAPE = _ClusterAttrs
NODE_GROUP_SHAPE = _NodeGroupAttrs


def cluster(attrs: _ClusterAttrs) -> ClusterInfo:
    """The cluster value of decoded attributes."""
    master = _first(attrs.master)
    return ClusterInfo(attrs.id, attrs.folder_id or None, master.version if master else None)


def _first(items: list | None):  # type: ignore[no-untyped-def,type-arg]
    """Terraform keeps a MaxItems-1 block as a list of one object, or ``[]``/``null`` unset."""
    return items[0] if items else None


def node_group(attrs: _NodeGroupAttrs, address: TfAddress, tainted: bool,
               clusters: dict[str, ClusterInfo], source: str, path: str,
               placement_groups: Mapping[str, Literal["spread", "partition"]] | None = None,
               ) -> NodeGroup:
    """One Yandex node group of decoded attributes (its cluster, when in the same state, gives
    ``folder_id`` and ``master_version``; ``placement_groups`` the strategy of its placement
    group by id).

    Raises:
        BadInput: no ``scale_policy``, an ``auto_scale`` min above its max, or a maintenance
            window :func:`window` does not read.
    """
    scale = _scale(attrs.scale_policy, source, path, address)
    deploy = _first(attrs.deploy_policy)
    cluster = clusters.get(attrs.cluster_id or "")
    version_info = _first(attrs.version_info)
    return NodeGroup(
        address=address,
        id=attrs.id,
        # The API allows [a-z][-a-z0-9]*; a hand-edited state may hold anything, and the
        # name is printed in every report.
        name=printable_text(attrs.name or ""),
        cluster_id=attrs.cluster_id or "",
        folder_id=cluster.folder_id if cluster else None,
        version=attrs.version or (version_info.current_version if version_info else None),
        status=attrs.status,
        policy=DeployPolicy(deploy.max_expansion, deploy.max_unavailable) if deploy else None,
        scale=scale,
        node=_node(_first(attrs.instance_template)),
        tainted=tainted,
        master_version=cluster.master_version if cluster else None,
        labels=dict(attrs.labels or {}),
        node_labels=dict(attrs.node_labels or {}),
        node_taints=_taints(attrs.node_taints or [], source, path),
        zones=tuple(dict.fromkeys(
            loc.zone for a in attrs.allocation_policy or [] for loc in a.location or []
            if loc.zone)),
        placement_group=_placement(_first(attrs.instance_template), placement_groups or {}),
        maintenance=_maintenance(_first(attrs.maintenance_policy), source,
                                 f"{path}.maintenance_policy[0]"),
    )


def _placement(template: _Template | None,
               strategies: Mapping[str, Literal["spread", "partition"]]
               ) -> PlacementGroup | None:
    policy = _first(template.placement_policy) if template is not None else None
    if policy is None or not policy.placement_group_id:
        return None
    return PlacementGroup(policy.placement_group_id, strategies.get(policy.placement_group_id))


def _maintenance(policy: _MaintenancePolicy | None, source: str, path: str
                 ) -> Maintenance | None:
    """``maintenance_policy``: ``auto_upgrade`` (the provider's default when unset: true) and
    its windows, UTC, in the forms :func:`window` reads."""
    if policy is None:
        return None
    windows = []
    for i, w in enumerate(policy.maintenance_window or []):
        try:
            windows.append(window(w.day, w.start_time, w.duration))
        except DurationError as err:
            raise BadInput(f"maintenance window {err}", source=source,
                           path=f"{path}.maintenance_window[{i}]",
                           hint="the provider writes start_time as HH:MM:SS.fffffffff and "
                                "duration as a Go duration such as 3h0m0s") from err
    auto = True if policy.auto_upgrade is None else policy.auto_upgrade
    return Maintenance(auto_upgrade=auto, windows=tuple(windows))


MAX_WINDOW_SECONDS = 24 * 3600
"""maintenance.proto: a window's ``duration`` is ``1h-24h``."""


def window(day: str | None, start_time: str, duration: str) -> MaintenanceWindow:
    """One ``maintenance_window`` entry as terraform-provider-yandex writes it and as HCL
    carries it (provider b52b1df: ``flattenMaintenanceWindow`` in ``yandex/structures.go``
    writes ``start_time`` with ``formatTimeOfDay``, ``"15:00:00.000000000"``, ``duration``
    with ``formatDuration``, Go's ``Duration.String()`` ``"3h0m0s"``, and ``day`` lower case;
    it reads HCL's ``"15:00"``, ``"3h"`` and a day in any case, ``parseDayOfWeek``). No day
    (or ``""``): a daily window.

    Raises:
        DurationError: ``start_time`` not a time of day, ``duration`` not a Go duration or
            not above zero and at most 24h, ``day`` not a day of the week; the message names
            the attribute and its value.
    """
    try:
        start = parse_time_of_day(start_time)
    except DurationError as err:
        raise DurationError(f"start_time {err}") from err
    try:
        seconds = go_duration_seconds(duration.strip())
    except DurationError as err:
        raise DurationError(f"duration {err}") from err
    if seconds <= 0:
        raise DurationError(f"duration {duration!r} is {'zero' if seconds == 0 else 'negative'}"
                            " (the API takes a window of 1h to 24h)")
    if seconds > MAX_WINDOW_SECONDS:
        raise DurationError(f"duration {duration!r} is longer than 24h (the API takes a "
                            "window of 1h to 24h)")
    name = (day or "").strip().lower() or None
    if name is not None and name not in WEEKDAYS:
        raise DurationError(f"day {day!r} is not a day of the week (one of "
                            f"{', '.join(WEEKDAYS)}, in any case, or none for a daily window)")
    return MaintenanceWindow(day=name, start_seconds=start, duration_seconds=seconds)


_TAINT = re.compile(r"^(?P<key>[^=:\s]+)(?:=(?P<value>[^:]*))?:(?P<effect>[A-Za-z]+)$")
_EFFECTS: dict[str, TaintEffect] = {"NoSchedule": "NoSchedule",
                                     "PreferNoSchedule": "PreferNoSchedule",
                                     "NoExecute": "NoExecute"}


def _taints(items: list[str], source: str, path: str) -> tuple[Taint, ...]:
    """``node_taints = ["key=value:Effect"]`` (the provider's format; value optional)."""
    taints = []
    for i, text in enumerate(items):
        match = _TAINT.match(text)
        effect = _EFFECTS.get(match.group("effect")) if match else None
        if match is None or effect is None:
            raise BadInput(f"node taint {text!r} is not key=value:Effect with Effect one of "
                           "NoSchedule, PreferNoSchedule, NoExecute",
                           source=source, path=f"{path}.node_taints[{i}]")
        taints.append(Taint(key=match.group("key"), value=match.group("value") or "",
                            effect=effect))
    return tuple(taints)


def _scale(
    items: list[_Scale] | None, source: str, path: str, address: TfAddress
) -> ScalePolicy:
    block = _first(items)
    fixed = _first(block.fixed_scale) if block else None
    auto = _first(block.auto_scale) if block else None
    if fixed is not None and auto is not None:
        # The provider's schema makes them exclusive: a state holding both was edited by hand
        # or damaged, and neither reading can be trusted (autoscaled was silently assumed).
        raise BadInput(
            f"node group {address} has both fixed_scale and auto_scale (the provider allows "
            "one)", source=source, path=f"{path}.scale_policy[0]",
            hint="refresh the state (`terraform apply -refresh-only`)",
        )
    if auto is not None:
        if auto.min > auto.max:
            raise BadInput(
                f"node group {address}: auto_scale min {auto.min} is above max {auto.max}",
                source=source, path=f"{path}.scale_policy[0].auto_scale[0]",
                hint="refresh the state (`terraform apply -refresh-only`)",
            )
        initial = auto.initial if auto.initial is not None else auto.min
        return AutoScale(min=auto.min, max=auto.max, initial=initial)
    if fixed is not None:
        return FixedScale(size=fixed.size)
    raise BadInput(
        f"node group {address} has no scale_policy (fixed_scale or auto_scale)",
        source=source, path=f"{path}.scale_policy",
        hint="refresh the state (`terraform apply -refresh-only`) so the provider fills it in",
    )


def _node(template: _Template | None) -> NodeResources | None:
    if template is None:
        return None
    resources = _first(template.resources)
    if resources is None:
        return None
    disk = _first(template.boot_disk)
    boot = (
        BootDisk(type=disk.type, size_bytes=disk.size * GIB)
        if disk is not None and disk.type and disk.size is not None else None
    )
    nat = bool(template.nat) or any(bool(ni.nat) for ni in template.network_interface or [])
    scheduling = _first(template.scheduling_policy)
    return NodeResources(
        platform_id=template.platform_id or None,
        cores=resources.cores,
        core_fraction=resources.core_fraction if resources.core_fraction is not None else 100,
        memory_bytes=round(resources.memory * GIB),
        gpus=resources.gpus or 0,
        boot_disk=boot,
        nat=nat,
        preemptible=bool(scheduling.preemptible) if scheduling else False,
    )
