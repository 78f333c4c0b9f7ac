"""Plain values of the domain: node groups, their policies and per-node resources, quotas.

Pure: no I/O. Units are the API's: bytes for memory and disk, whole vCPUs for cores.
Terraform state stores memory and disk in GB = 2**30 bytes (terraform-provider-yandex ``toBytes``);
readers convert with :data:`GIB` before building these values. A group's Terraform address is a
:class:`~ngupgrade.core.address.TfAddress`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from ngupgrade.core.address import TfAddress

if TYPE_CHECKING:
    # an annotation only: the Kubernetes vocabulary is not loaded by every command that
    # reads a node group (start-up time of `--help`)
    from ngupgrade.core.k8s import Taint

GIB = 1 << 30
"""Bytes in one Terraform/Yandex "GB" (binary, 2**30)."""

MAX_GROUP_NODES = 5000
"""Most nodes a node group can hold: Kubernetes' scalability limit of 5,000 nodes per cluster
(kubernetes.io, "Considerations for large clusters"). Larger counts are bad input."""


@dataclass(frozen=True)
class DeployPolicy:
    """``deploy_policy`` of a node group: nodes added (surge) and nodes down at once.

    Selectel calls them "Расширение размера группы, макс" and "Уменьшение размера группы,
    макс" (the Selectel strategy page, "Параметры обновления нод"). Bounds and defaults are the
    platform's (:mod:`ngupgrade.core.platform`); validation lives in :mod:`ngupgrade.core.policy`;
    this value holds what was configured, valid or not.
    """

    max_expansion: int
    max_unavailable: int


PlatformName = Literal["yandex", "selectel"]
"""Which platform's rules a node group is upgraded under (:mod:`ngupgrade.core.platform`)."""


@dataclass(frozen=True)
class FixedScale:
    """``scale_policy.fixed_scale``: a group of exactly ``size`` nodes."""

    size: int
    type: Literal["fixed"] = "fixed"

    @property
    def most_nodes(self) -> int:
        """Nodes the group may hold outside an upgrade: ``size`` (the worst case quotas count)."""
        return self.size


@dataclass(frozen=True)
class AutoScale:
    """``scale_policy.auto_scale``: the cluster autoscaler keeps the group in ``min..max``."""

    min: int
    max: int
    initial: int
    type: Literal["auto"] = "auto"

    @property
    def most_nodes(self) -> int:
        """Nodes the group may hold outside an upgrade: the autoscaler ``max`` (its worst case)."""
        return self.max


ScalePolicy = FixedScale | AutoScale


@dataclass(frozen=True)
class BootDisk:
    """Boot disk of one node: ``type`` is the disk type id (``network-ssd``...), size in bytes."""

    type: str
    size_bytes: int


@dataclass(frozen=True)
class NodeResources:
    """What one node of a group is made of (``instance_template``), in API units.

    ``memory_bytes`` and ``boot_disk.size_bytes`` are bytes; ``cores`` whole vCPUs;
    ``core_fraction`` a percent; ``nat`` True when the node gets a public IPv4 address
    (either the deprecated template-level ``nat`` or any ``network_interface[*].nat``).
    ``platform_id`` and ``boot_disk`` are None when the state leaves them out; the quota
    math then fails closed for the quotas they decide instead of guessing.
    """

    platform_id: str | None
    cores: int
    core_fraction: int
    memory_bytes: int
    gpus: int
    boot_disk: BootDisk | None
    nat: bool
    preemptible: bool


@dataclass(frozen=True)
class Placement:
    """Where a Selectel node group's nodes live and what they are billed against.

    ``project_id`` (quotas are per project and per pool segment), ``region`` (the pool, e.g.
    ``ru-7``), ``zone`` (the pool segment, ``availability_zone``, e.g. ``ru-7a``), and
    ``flavor_id`` when the group uses a fixed flavor instead of ``cpus``/``ram_mb`` (its shape
    is then not in the state). Source: ``selectel_mks_nodegroup_v1``
    (``selectel/terraform-provider-selectel``).
    """

    project_id: str
    region: str
    zone: str
    flavor_id: str | None = None


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""The days a weekly maintenance window names (maintenance.proto ``DayOfWeek``, lower case as
the Terraform provider writes them), Monday first as ``datetime.weekday()``."""


@dataclass(frozen=True)
class MaintenanceWindow:
    """One window in which the service may start an automatic upgrade, in UTC
    (``maintenance_policy.maintenance_window``; maintenance.proto: daily or weekly, 1-24 h).

    ``day`` is one of :data:`WEEKDAYS`, None for every day; it opens ``start_seconds`` after
    midnight and stays open ``duration_seconds`` (seconds kept: a Go duration such as
    ``"1h0m30s"`` is not rounded to minutes).
    """

    day: str | None
    start_seconds: float
    duration_seconds: float


@dataclass(frozen=True)
class Maintenance:
    """A Yandex node group's ``maintenance_policy``: ``auto_upgrade`` on or off, and its
    ``windows`` (empty: any time, the API's ``anytime``)."""

    auto_upgrade: bool
    windows: tuple[MaintenanceWindow, ...] = ()


@dataclass(frozen=True)
class PlacementGroup:
    """The compute placement group a Yandex group's nodes run in
    (``instance_template.placement_policy.placement_group_id``). ``strategy`` is ``spread``
    (the default: at most 5 VMs, compute limits) or ``partition``, from the
    ``yandex_compute_placement_group`` in the same state; None when the state does not hold it.
    """

    id: str
    strategy: Literal["spread", "partition"] | None = None


@dataclass(frozen=True)
class StateNote:
    """An attribute of a node group's state that was not understood, and what was therefore
    not checked. Only attributes that feed a warning or a note are read this way (the
    maintenance window, ``auto_upgrade``, labels, taints, placement, version info); one the
    math needs (scale, deploy policy, resources, ids) is bad input instead.

    ``attribute`` is its path inside the resource's attributes
    (``maintenance_policy[0].maintenance_window[0].start_time``), ``value`` the value as
    written (quoted, shortened), ``why`` what is wrong with it (``is not a time of day ...``),
    ``not_checked`` what the reports could not do without it (``auto-upgrade window not
    checked``).
    """

    attribute: str
    value: str
    why: str
    not_checked: str

    @property
    def message(self) -> str:
        """``auto-upgrade window not checked: maintenance_policy[0]...start_time 'quarter
        past three' is not a time of day (...)``."""
        return f"{self.not_checked}: {self.attribute} {self.value} {self.why}"


@dataclass(frozen=True)
class NodeGroup:
    """One node group found in a Terraform state (``yandex_kubernetes_node_group`` or
    ``selectel_mks_nodegroup_v1``).

    ``policy`` is the deploy policy declared in state, or None when the state leaves it unset
    (attribute missing, ``[]`` or ``null``; stackitcloud/terraform-provider-stackit#530,
    yandex-cloud/terraform-provider-yandex PR #61): never read as 0/0. ``node`` is None when the
    state has no ``instance_template`` (plans still work; the quota preflight refuses such a group
    by name). ``folder_id`` comes from the cluster resource in the same state, when present.
    ``master_version`` likewise (the cluster's ``master[0].version``).
    ``platform`` names the rules it is upgraded under (from the resource type, or forced by
    ``--platform``).
    ``labels`` are the cloud labels of the resource; ``node_labels`` and ``node_taints`` are
    the Kubernetes labels and taints every node of the group gets (top-level ``node_labels``
    and ``node_taints = ["key=value:Effect"]`` of ``yandex_kubernetes_node_group``): the drain
    check gives them to the surge nodes it models; a Selectel group's ``labels`` and
    ``taints`` are Kubernetes ones and land in ``node_labels``/``node_taints``.
    ``placement`` is a Selectel group's project, pool and segment (None for Yandex, whose
    ``folder_id`` places it).
    ``node_names`` are the hostnames of the group's nodes as the state lists them (Selectel's
    ``nodes[].hostname``; empty for Yandex, whose state lists no nodes): which Kubernetes
    nodes are the group's is decided by :mod:`ngupgrade.core.membership`.
    ``zones`` are the availability zones of a Yandex group's ``allocation_policy.location``;
    ``placement_group`` its compute placement group; ``maintenance`` its maintenance policy
    (None when the state has none, or when it was not understood: then a note says so).
    ``notes`` name the attributes that only feed warnings and were not understood
    (:class:`StateNote`); every report that shows the group shows them.
    """

    address: TfAddress
    id: str
    name: str
    cluster_id: str
    folder_id: str | None
    version: str | None
    status: str | None
    policy: DeployPolicy | None
    scale: ScalePolicy
    node: NodeResources | None
    tainted: bool = False
    master_version: str | None = None
    platform: PlatformName = "yandex"
    placement: Placement | None = None
    labels: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    node_labels: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    node_taints: tuple[Taint, ...] = ()
    node_names: tuple[str, ...] = field(default=(), compare=False)
    zones: tuple[str, ...] = ()
    placement_group: PlacementGroup | None = None
    maintenance: Maintenance | None = None
    notes: tuple[StateNote, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class QuotaLimit:
    """One quota of one cloud: ``limit`` and ``usage`` in the quota's unit (bytes for ``*.size``).

    Either may be None when the API leaves the wrapper unset; such a quota is ``unknown``,
    never unlimited (docs/quota-preflight.md).
    """

    quota_id: str
    limit: float | None
    usage: float | None

    @property
    def headroom(self) -> float | None:
        """``limit - usage``, or None when either is unknown."""
        if self.limit is None or self.usage is None:
            return None
        return self.limit - self.usage
