"""Yandex's resources in a Terraform state: ``yandex_kubernetes_node_group`` and its
``yandex_kubernetes_cluster`` -> :class:`~ngupgrade.core.model.NodeGroup` on the Yandex
platform (terraform-provider-yandex: nested blocks are lists of one object; memory and disk
in GB = 2**30 bytes, provider ``toBytes``). :mod:`ngupgrade.adapters.state.parse` finds the
resources and decodes their attributes into the shapes here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec

from ngupgrade.adapters.state.soft import ABSENT, Notes
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
    StateNote,
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
    placement_policy: msgspec.Raw = ABSENT  # list[_PlacementPolicy], soft
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
    auto_upgrade: msgspec.Raw = ABSENT  # bool, soft
    maintenance_window: msgspec.Raw = ABSENT  # list[_Window], soft


class _NodeGroupAttrs(msgspec.Struct):
    id: str
    scale_policy: list[_Scale] | None = None
    cluster_id: str | None = None
    name: str | None = None
    deploy_policy: list[_Deploy] | None = None
    instance_template: list[_Template] | None = None
    # Soft (adapters/state/soft.py): they feed warnings and notes, never the math.
    version: msgspec.Raw = ABSENT  # str
    status: msgspec.Raw = ABSENT  # str
    version_info: msgspec.Raw = ABSENT  # list[_VersionInfo]
    labels: msgspec.Raw = ABSENT  # dict[str, str]
    node_labels: msgspec.Raw = ABSENT  # dict[str, str]
    node_taints: msgspec.Raw = ABSENT  # list[str]
    allocation_policy: msgspec.Raw = ABSENT  # list[_Allocation]
    maintenance_policy: msgspec.Raw = ABSENT  # list[_MaintenancePolicy]


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
    master: msgspec.Raw = ABSENT  # list[_Master], soft


@dataclass(frozen=True)
class ClusterInfo:
    """The parts of a ``yandex_kubernetes_cluster`` the tool needs (terraform-provider-yandex);
    ``notes`` name what of it was not understood (given to each of its groups)."""

    id: str
    folder_id: str | None
    master_version: str | None
    notes: tuple[StateNote, ...] = ()


CLUSTER_SHAPE = _ClusterAttrs
NODE_GROUP_SHAPE = _NodeGroupAttrs


def cluster(attrs: _ClusterAttrs) -> ClusterInfo:
    """The cluster value of decoded attributes."""
    notes = Notes()
    master = _first(notes.decode(attrs.master, list[_Master],
                                 f"master (of {CLUSTER_TYPE} {attrs.id})",
                                 "master version not shown", None))
    return ClusterInfo(attrs.id, attrs.folder_id or None, master.version if master else None,
                       tuple(notes.items))


def _first(items: list | None):  # type: ignore[no-untyped-def,type-arg]
    """Terraform keeps a MaxItems-1 block as a list of one object, or ``[]``/``null`` unset."""
    return items[0] if items else None


def node_group(attrs: _NodeGroupAttrs, address: TfAddress, tainted: bool,
               clusters: dict[str, ClusterInfo], source: str, path: str,
               placement_groups: Mapping[str, Literal["spread", "partition"]] | None = None,
               ) -> NodeGroup:
    """One Yandex node group of decoded attributes (its cluster, when in the same state, gives
    ``folder_id`` and ``master_version``; ``placement_groups`` the strategy of its placement
    group by id). Attributes that only feed warnings are read by :func:`_soft`: one not
    understood is left out, and the group's ``notes`` say so.

    Raises:
        BadInput: no ``scale_policy``, an ``auto_scale`` min above its max, or a value of the
            wrong type where the math reads (scale, deploy policy, resources, ids).
    """
    scale = _scale(attrs.scale_policy, source, path, address)
    deploy = _first(attrs.deploy_policy)
    cluster = clusters.get(attrs.cluster_id or "")
    template = _first(attrs.instance_template)
    notes = Notes()
    soft = _soft(attrs, template, notes)
    return NodeGroup(
        address=address,
        id=attrs.id,
        # The API allows [a-z][-a-z0-9]*; a hand-edited state may hold anything, and the
        # name is printed in every report.
        name=printable_text(attrs.name or ""),
        cluster_id=attrs.cluster_id or "",
        folder_id=cluster.folder_id if cluster else None,
        version=soft.version,
        status=soft.status,
        policy=DeployPolicy(deploy.max_expansion, deploy.max_unavailable) if deploy else None,
        scale=scale,
        node=_node(template),
        tainted=tainted,
        master_version=cluster.master_version if cluster else None,
        labels=soft.labels,
        node_labels=soft.node_labels,
        node_taints=soft.node_taints,
        zones=soft.zones,
        placement_group=_placement(soft.placement_group_id, placement_groups or {}),
        maintenance=soft.maintenance,
        notes=tuple(notes.items) + (cluster.notes if cluster else ()),
    )


@dataclass(frozen=True)
class _SoftParts:
    version: str | None
    status: str | None
    labels: dict[str, str]
    node_labels: dict[str, str]
    node_taints: tuple[Taint, ...]
    zones: tuple[str, ...]
    placement_group_id: str | None
    maintenance: Maintenance | None


def _soft(attrs: _NodeGroupAttrs, template: _Template | None, notes: Notes) -> _SoftParts:
    """The attributes of a group that feed warnings and notes only, each read or noted."""
    version = notes.decode(attrs.version, str, "version", "version not shown", "")
    info = _first(notes.decode(attrs.version_info, list[_VersionInfo], "version_info",
                               "version not shown", None))
    zones = notes.decode(attrs.allocation_policy, list[_Allocation], "allocation_policy",
                         "zonal quotas not checked", [])
    placement = None
    if template is not None:
        placement = _first(notes.decode(
            template.placement_policy, list[_PlacementPolicy],
            "instance_template[0].placement_policy", "placement group limit not checked", None))
    return _SoftParts(
        version=version or (info.current_version if info else None),
        status=notes.decode(attrs.status, str, "status", "status not shown", "") or None,
        labels=notes.decode(attrs.labels, dict[str, str], "labels", "labels not read", {}),
        node_labels=notes.decode(attrs.node_labels, dict[str, str], "node_labels",
                                 _MODEL_WITHOUT, {}),
        # each entry on its own (list[Any]): one that is not a string is noted, not the list
        node_taints=_taints(notes.decode(attrs.node_taints, list[Any], "node_taints",
                                         _MODEL_WITHOUT, []), notes),
        zones=tuple(dict.fromkeys(loc.zone for a in zones for loc in a.location or []
                                  if loc.zone)),
        placement_group_id=placement.placement_group_id if placement else None,
        maintenance=_maintenance(_first(notes.decode(
            attrs.maintenance_policy, list[_MaintenancePolicy], "maintenance_policy",
            AUTO_UPGRADE_NOT_CHECKED, None)), notes, "maintenance_policy[0]"),
    )


_MODEL_WITHOUT = "not given to the new nodes the drain check models"
AUTO_UPGRADE_NOT_CHECKED = "auto-upgrade window not checked"


def _placement(group_id: str | None,
               strategies: Mapping[str, Literal["spread", "partition"]]
               ) -> PlacementGroup | None:
    if not group_id:
        return None
    return PlacementGroup(group_id, strategies.get(group_id))


def _maintenance(policy: _MaintenancePolicy | None, notes: Notes, path: str
                 ) -> Maintenance | None:
    """``maintenance_policy``: ``auto_upgrade`` (the provider's default when unset: true) and
    its windows, UTC, in the forms :func:`window` reads. Either not understood: None (the
    auto-upgrade window is not checked) and a note, unless ``auto_upgrade`` is false (then
    the windows do not matter)."""
    if policy is None:
        return None
    held = len(notes.items)
    auto: bool | None = notes.decode(policy.auto_upgrade, bool, f"{path}.auto_upgrade",  # type: ignore[arg-type]
                                     AUTO_UPGRADE_NOT_CHECKED, None)
    entries = notes.decode(policy.maintenance_window, list[_Window],
                           f"{path}.maintenance_window", AUTO_UPGRADE_NOT_CHECKED, [])
    windows = []
    for i, w in enumerate(entries):
        try:
            windows.append(window(w.day, w.start_time, w.duration))
        except WindowError as err:
            for bad in err.problems:
                notes.add(f"{path}.maintenance_window[{i}].{bad.field}", bad.value, bad.why,
                          AUTO_UPGRADE_NOT_CHECKED)
    if auto is False:
        del notes.items[held:]  # auto_upgrade off: no window is checked anyway
        return Maintenance(auto_upgrade=False, windows=tuple(windows))
    if len(notes.items) > held:
        return None
    return Maintenance(auto_upgrade=True, windows=tuple(windows))


class WindowError(ValueError):
    """A ``maintenance_window`` entry :func:`window` cannot read: ``field`` (``start_time``,
    ``duration`` or ``day``), its ``value``, and ``why``."""

    def __init__(self, field: str, value: str | None, why: str,
                 others: tuple[WindowError, ...] = ()) -> None:
        super().__init__(f"{field} {value!r} {why}")
        self.field, self.value, self.why = field, value, why
        self.problems: tuple[WindowError, ...] = (self, *others)
        """Every field of the entry that cannot be read, this one first."""


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
        WindowError: ``start_time`` not a time of day, ``duration`` not a Go duration or
            not above zero and at most 24h, ``day`` not a day of the week; the first of
            them, with every one in ``problems`` (start_time, duration, day).
    """
    problems: list[WindowError] = []
    start, seconds = 0.0, 0.0
    try:
        start = parse_time_of_day(start_time)
    except DurationError as err:
        problems.append(WindowError("start_time", start_time, err.why))
    try:
        seconds = _window_seconds(duration)
    except WindowError as err:
        problems.append(err)
    name = (day or "").strip().lower() or None
    if name is not None and name not in WEEKDAYS:
        problems.append(WindowError(
            "day", day, f"is not a day of the week (one of {', '.join(WEEKDAYS)}, in any "
                        "case, or none for a daily window)"))
    if problems:
        first = problems[0]
        raise WindowError(first.field, first.value, first.why, tuple(problems[1:]))
    return MaintenanceWindow(day=name, start_seconds=start, duration_seconds=seconds)


def _window_seconds(duration: str) -> float:
    """A window's ``duration`` in seconds, above zero and at most 24h.

    Raises:
        WindowError: not a Go duration, or out of that range.
    """
    try:
        seconds = go_duration_seconds(duration.strip())
    except DurationError as err:
        raise WindowError("duration", duration, err.why) from err
    if seconds <= 0:
        raise WindowError("duration", duration, f"is {'zero' if seconds == 0 else 'negative'}"
                          " (the API takes a window of 1h to 24h)")
    if seconds > MAX_WINDOW_SECONDS:
        raise WindowError("duration", duration, "is longer than 24h (the API takes a window "
                          "of 1h to 24h)")
    return seconds


_TAINT = re.compile(r"^(?P<key>[^=:\s]+)(?:=(?P<value>[^:]*))?:(?P<effect>[A-Za-z]+)$")
_EFFECTS: dict[str, TaintEffect] = {"NoSchedule": "NoSchedule",
                                     "PreferNoSchedule": "PreferNoSchedule",
                                     "NoExecute": "NoExecute"}


def _taints(items: list[Any], notes: Notes) -> tuple[Taint, ...]:
    """``node_taints = ["key=value:Effect"]`` (the provider's format; value optional); an
    entry that is not one (or not a string) is left out, and noted; the others are kept."""
    taints = []
    for i, text in enumerate(items):
        if not isinstance(text, str):
            notes.add(f"node_taints[{i}]", text, "is not a string key=value:Effect",
                      _MODEL_WITHOUT)
            continue
        match = _TAINT.match(text)
        effect = _EFFECTS.get(match.group("effect")) if match else None
        if match is None or effect is None:
            notes.add(f"node_taints[{i}]", text, "is not key=value:Effect with Effect one of "
                      "NoSchedule, PreferNoSchedule, NoExecute", _MODEL_WITHOUT)
            continue
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
