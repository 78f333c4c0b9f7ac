"""A managed-Kubernetes platform's upgrade rules as one value: :class:`Platform`.

Pure: no I/O. Yandex Managed Service for Kubernetes (:data:`YANDEX`) and Selectel Managed
Kubernetes (:data:`SELECTEL`) side by side, so the core reads a rule from the platform instead
of a constant. Sources (each rule with its figure in ``docs/sources.md``): for Yandex, the
Yandex Cloud docs page "Node group deploy policy" (Managed Service for Kubernetes > Concepts >
Node group, https://yandex.cloud/en/docs/managed-kubernetes/concepts/node-group/deploy-policy;
"the deploy-policy page" below) and the node-drain page next to it; for Selectel, the docs page
"Стратегия обновления версии Kubernetes в группе нод Managed Kubernetes" ("the Selectel
strategy page" below, its sections quoted):

============================  ===========================  ==================================
rule                          Yandex (deploy-policy page)  Selectel (strategy page)
============================  ===========================  ==================================
default E/U                   3/0 (parameter table)        0/1 ("Параметры обновления нод")
bounds of each knob           0..100 (parameter table)     0..node count; the autoscaler max
                                                           for an autoscaled group (same
                                                           section)
not both 0                    yes (below the table)        yes (same section)
reduced to the current size   yes (as on Selectel)         yes ("Особенности обновления нод
                                                           при автомасштабировании")
surge outside the autoscaler  yes (as on Selectel)         yes: up to twice its max (same
                                                           section: max 7 with 7 gives 14)
a cycle                       E new nodes stay, as many    up to E+U nodes: the extras stay,
                              old go, the rest updated in  as many old nodes are deleted, the
                              place (the three examples    rest updated in place
                              with 5 nodes)                ("Комбинированный сценарий")
in-place method               reboot (the example with 5   reboot (default) or reinstall,
                              nodes at 0/2)                fixed at creation ("Способы
                                                           обновления нод")
blocked drain                 node stopped after 7 min     eviction retried, then the upgrade
                              (the node-drain page)        stops, cluster ERROR ("Если PDB не
                                                           дает вытеснить поды")
ngupgrade applies changes     yes (SDK, ``set-policy``)    no: the strategy lives in the
                                                           control panel ("Изменить параметры
                                                           обновления нод"; no API or
                                                           Terraform field)
============================  ===========================  ==================================

How to take it (for ``plan``, ``preflight``, the drain check and the advisor)::

    from ngupgrade.core.platform import platform_of
    platform = platform_of(group)            # NodeGroup.platform is "yandex" or "selectel"
    platform.default_policy                  # DeployPolicy(3, 0) / DeployPolicy(0, 1)
    platform.upper_bound(group.scale)        # 100 / the node count or the autoscaler max
    platform.in_force(group.policy)          # an unset policy is the platform's default
    platform.applies_changes                 # False: refuse to change anything, point at
    platform.change_hint                     #   where the user changes it instead
    platform.data_notes(deleted, in_place, method)   # what data the plan loses
    platform.drain                           # the drain check's DrainRules: Yandex stops the
                                             # node after 7 minutes, Selectel retries a
                                             # PDB-blocked eviction and stops in ERROR

The drain check and the advisor take ``platform.drain`` (``check_group(..., rules=
platform_of(group).drain)``) and the bounds and default above; ``--platform`` forces one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ngupgrade.core.model import (
    AutoScale,
    DeployPolicy,
    NodeGroup,
    PlatformName,
    ScalePolicy,
)


@dataclass(frozen=True)
class InPlaceMethod:
    """How an old node that is not deleted gets the new version.

    ``keeps_boot_disk`` is False when the node is recreated and its boot-disk data lost
    (Selectel "переустановка", the strategy page, "Способы обновления нод"); True for a reboot
    (same section: "данные на дисках сохранятся"; the Yandex deploy-policy page, the example
    with 5 nodes at 0/2: "обновлены, перезагружены").
    """

    name: str
    keeps_boot_disk: bool
    source: str


REBOOT = InPlaceMethod(
    "reboot", keeps_boot_disk=True,
    source="Selectel strategy page, Способы обновления нод; Yandex deploy-policy page")
REINSTALL = InPlaceMethod(
    "reinstall", keeps_boot_disk=False, source="Selectel strategy page, Способы обновления нод")

# Stable codes of the data notes (scripts match on them).
DELETED_NODES_LOSE_DATA = "deleted-nodes-lose-local-data"
NEW_PRIVATE_IPS = "new-private-ips"
REINSTALL_WIPES_BOOT_DISK = "reinstall-wipes-boot-disk"
IN_PLACE_METHOD_UNKNOWN = "in-place-method-unknown"


@dataclass(frozen=True)
class DataNote:
    """What an upgrade does to data on the nodes: a stable ``code`` and a one-line message."""

    code: str
    message: str


@dataclass(frozen=True)
class DrainRules:
    """How a platform drains the nodes of a wave, and what it does when a drain hangs.

    * ``drain_timeout_seconds``: how long a node may drain before the platform acts (Yandex:
      420 s, docs ``managed-kubernetes/concepts/node-group/node-drain``: "таймаут до
      остановки узла (7 минут)"); None when the platform waits for ever.
    * ``on_blocked_eviction``: ``force-stop`` (Yandex: the node is stopped "несмотря на
      оставшиеся поды", the pods go down) or ``stop-upgrade`` (Selectel, the strategy page,
      "Если PDB не дает вытеснить поды": no forced delete, retries, then the upgrade stops
      with the cluster in ERROR; the blocked node stays on the old version, later waves
      never run).
    * ``nodes_at_once``: ``wave`` drains the wave's nodes together (the deploy-policy page:
      "max_unavailable узлов за раз"), ``one`` drains them one after another (the Yandex
      node-drain page: "по одному"). The two pages disagree: both are modelled; the report
      names the one used.
    """

    platform: str
    drain_timeout_seconds: int | None
    on_blocked_eviction: Literal["force-stop", "stop-upgrade"]
    nodes_at_once: Literal["wave", "one"] = "wave"


YANDEX_DRAIN_RULES = DrainRules("yandex", 420, "force-stop", "wave")
"""Yandex Managed Kubernetes: 7-minute drain timeout, then the node is stopped."""

SELECTEL_DRAIN_RULES = DrainRules("selectel", None, "stop-upgrade", "wave")
"""Selectel Managed Kubernetes: a blocked eviction is retried, then the upgrade stops (ERROR)."""


@dataclass(frozen=True)
class Platform:
    """One platform's node-group upgrade rules (see the module docstring for the table).

    Attributes:
        name: ``yandex`` or ``selectel`` (what ``--platform`` takes, what JSON reports say).
        title: the product name for messages.
        vendor: the short name (``Yandex``, ``Selectel``): "the Yandex default".
        node_group_type: the Terraform resource type of a node group.
        default_policy: E/U when nothing sets them (never 0/0).
        knob_max: a fixed upper bound of each knob (Yandex 100), or None when the bound is
            the group's node count or autoscaler max (:meth:`upper_bound`).
        reduces_to_current_size: E and U above the node count at the start are reduced to
            it (a warning, not an error).
        surge_outside_autoscaler: surge nodes are not counted against the autoscaler max,
            so an autoscaled group can reach ``max + min(E, max)`` nodes.
        in_place_methods: the methods a group can have; the first is the default.
        data_notes_source: where the data rules come from, or None when the platform's
            documentation says nothing about data (then :meth:`data_notes` gives none).
        policy_noun: what the platform calls the E/U pair in a state or a message.
        unset_hint: what to do when the state leaves the policy unset.
        applies_changes: ngupgrade can change the strategy and start the upgrade here.
        change_hint: where a user changes the strategy (for a refusal or a suggestion).
        group_node_limit: nodes a group can hold by default, or None when unknown.
        terraform_update_timeout_minutes: the node-group resource's default update timeout
            in minutes, or None when Terraform does not run the upgrade.
        drain: how the platform drains a wave and reacts to a blocked eviction
            (:class:`DrainRules`).
    """

    name: PlatformName
    title: str
    vendor: str
    node_group_type: str
    default_policy: DeployPolicy
    knob_max: int | None
    reduces_to_current_size: bool
    surge_outside_autoscaler: bool
    in_place_methods: tuple[InPlaceMethod, ...]
    data_notes_source: str | None
    policy_noun: str
    unset_hint: str
    applies_changes: bool
    change_hint: str
    group_node_limit: int | None
    terraform_update_timeout_minutes: int | None
    drain: DrainRules
    cluster_groups: Literal["one-at-a-time", "together"] = "together"
    """What "several groups of one cluster upgraded together" can mean on this platform
    (:func:`ngupgrade.core.quota.demand.concurrency`): ``one-at-a-time``, the service runs one
    operation of a cluster at a time (a second node-group Update, such as the ones one
    ``terraform apply`` sends in parallel, waits or is refused), so at most one group of a
    cluster surges at once; ``together``, every group of a cluster may surge at once."""

    @property
    def default_method(self) -> InPlaceMethod:
        """The in-place method a group gets unless chosen otherwise at creation."""
        return self.in_place_methods[0]

    def method(self, name: str) -> InPlaceMethod:
        """The in-place method called ``name``.

        Raises:
            ValueError: the platform has no such method (the message lists the known ones).
        """
        for method in self.in_place_methods:
            if method.name == name:
                return method
        known = ", ".join(m.name for m in self.in_place_methods)
        raise ValueError(f"{self.title} has no in-place method {name!r} (known: {known})")

    def upper_bound(self, scale: ScalePolicy) -> int:
        """The largest value of each knob for a group of this scale.

        Yandex: 100 whatever the size. Selectel: the node count of a fixed group (the strategy page,
        "Параметры обновления нод": "от нуля до числа, которое вы указали в поле Количество
        нод"), the autoscaler max of an autoscaled one (same section).
        """
        if self.knob_max is not None:
            return self.knob_max
        if isinstance(scale, AutoScale):
            return scale.max
        return scale.size

    def in_force(self, policy: DeployPolicy | None) -> DeployPolicy:
        """The policy a group runs with: an unset one is this platform's default, never 0/0."""
        return policy if policy is not None else self.default_policy

    def worst_case_peak(self, policy: DeployPolicy, scale: AutoScale) -> int:
        """Most nodes of an autoscaled group grown to its max: ``max + min(E, max)``.

        The Selectel strategy page, "Особенности обновления нод при автомасштабировании":
        surge nodes are outside the autoscaler's limits, up to twice its max (max 7 with E 7
        gives 14). Without that rule the group stays within ``max``.
        """
        if not self.surge_outside_autoscaler:
            return scale.max
        return scale.max + min(policy.max_expansion, scale.max)

    def data_notes(self, deleted: int, in_place: int,
                   method: InPlaceMethod | None = None) -> tuple[DataNote, ...]:
        """What the upgrade does to data, for ``deleted`` old nodes deleted and ``in_place``
        updated in place by ``method`` (None: the group's method is not known).

        The Selectel strategy page: deleted old nodes lose their local disks and emptyDir
        volumes, and the nodes that replace them get new private IPs ("Обновление с
        дополнительными нодами"); a reinstall wipes the boot disk, a reboot keeps the disks
        ("Способы обновления нод"). Empty for a platform whose documentation is silent
        (``data_notes_source`` None).
        """
        if self.data_notes_source is None:
            return ()
        out: list[DataNote] = []
        if deleted:
            out.append(DataNote(
                DELETED_NODES_LOSE_DATA,
                f"{deleted} old {_nodes(deleted)} deleted with {_their(deleted)} local disks and "
                "emptyDir volumes (keep data on persistent volumes)"))
            out.append(DataNote(
                NEW_PRIVATE_IPS,
                f"the {deleted} new {_nodes(deleted)} that replace them get other private IP "
                "addresses"))
        if in_place:
            if method is None and len(self.in_place_methods) > 1:
                names = " or ".join(m.name for m in self.in_place_methods)
                out.append(DataNote(
                    IN_PLACE_METHOD_UNKNOWN,
                    f"{in_place} {_nodes(in_place)} updated in place by the group's method "
                    f"({names}; the state does not say which): a reboot keeps the disks, a "
                    "reinstall wipes the boot disk"))
            elif method is not None and not method.keeps_boot_disk:
                out.append(DataNote(
                    REINSTALL_WIPES_BOOT_DISK,
                    f"{in_place} {_nodes(in_place)} reinstalled in place: boot-disk data is "
                    "lost"))
        return tuple(out)


def _nodes(count: int) -> str:
    return "node" if count == 1 else "nodes"


def _their(count: int) -> str:
    return "its" if count == 1 else "their"


YANDEX = Platform(
    name="yandex",
    title="Yandex Managed Service for Kubernetes",
    vendor="Yandex",
    node_group_type="yandex_kubernetes_node_group",
    default_policy=DeployPolicy(max_expansion=3, max_unavailable=0),  # deploy-policy page, table
    knob_max=100,  # deploy-policy page, table; proto ``value: "0-100"``
    reduces_to_current_size=True,  # as on Selectel (docs/sources.md)
    surge_outside_autoscaler=True,  # as on Selectel (docs/sources.md)
    in_place_methods=(REBOOT,),  # deploy-policy page: "будут обновлены, перезагружены"
    data_notes_source=None,  # the Yandex pages say nothing about data on the nodes
    policy_noun="deploy_policy",
    unset_hint="set deploy_policy in Terraform to make it explicit",
    applies_changes=True,
    change_hint="deploy_policy of yandex_kubernetes_node_group in Terraform, or "
                "`ngupgrade set-policy`",
    group_node_limit=200,  # managed-kubernetes.groupNodes.count default (quota tables)
    terraform_update_timeout_minutes=60,  # the provider's yandexKubernetesNodeGroupUpdateTimeout
    drain=YANDEX_DRAIN_RULES,  # 7-minute drain timeout, then the node is stopped
    # A node-group Update while another operation runs on the cluster is refused with
    # FAILED_PRECONDITION, and the provider sends each group's Update with no retry
    # (terraform-provider-yandex resource_yandex_kubernetes_node_group.go, Update): the
    # cluster's operations run one at a time (the conflict of
    # hashicorp/terraform-provider-google#3650, handled in upgrade/mutation.py)
    cluster_groups="one-at-a-time",
)
"""Yandex Managed Service for Kubernetes (the deploy-policy and node-drain pages)."""

SELECTEL = Platform(
    name="selectel",
    title="Selectel Managed Kubernetes",
    vendor="Selectel",
    node_group_type="selectel_mks_nodegroup_v1",
    default_policy=DeployPolicy(max_expansion=0, max_unavailable=1),  # strategy page, Параметры
    knob_max=None,  # strategy page, Параметры: the node count, or the autoscaler max
    reduces_to_current_size=True,  # strategy page, автомасштабирование
    surge_outside_autoscaler=True,  # strategy page, автомасштабирование
    in_place_methods=(REBOOT, REINSTALL),  # Способы обновления нод: reboot is the default
    data_notes_source="Selectel strategy page: Способы обновления нод; Обновление с "
                      "дополнительными нодами",
    policy_noun="the update strategy",
    unset_hint="Selectel keeps it in the control panel, not in Terraform: pass "
               "--max-expansion and --max-unavailable with the values it shows",
    applies_changes=False,  # no strategy field in the API or Terraform
    # the strategy page, "Изменить параметры обновления нод": where it is changed
    change_hint="the Selectel control panel: Managed Kubernetes -> the cluster -> Состав "
                "кластера -> the node group's menu -> Изменить стратегию обновления",
    group_node_limit=None,  # not documented by Selectel
    terraform_update_timeout_minutes=None,  # upgrades are cluster-level, not a Terraform update
    drain=SELECTEL_DRAIN_RULES,  # Если PDB не дает вытеснить поды: retries, then ERROR
    # upgrades are cluster-level (UpgradePatchVersion/UpgradeMinorVersion in the
    # Selectel MKS API): one operation upgrades every group of the cluster, in no documented order,
    # so its groups are counted at once (the worst case)
    cluster_groups="together",
)
"""Selectel Managed Kubernetes (the strategy page); read, planned and checked only."""

PLATFORMS: Mapping[PlatformName, Platform] = {p.name: p for p in (YANDEX, SELECTEL)}
"""Every platform by name, in ``--platform`` order."""

_BY_TYPE: Mapping[str, Platform] = {p.node_group_type: p for p in PLATFORMS.values()}


def get(name: str) -> Platform:
    """The platform called ``name`` (``yandex`` or ``selectel``).

    Raises:
        ValueError: an unknown name (the message lists the known ones).
    """
    for platform in PLATFORMS.values():
        if platform.name == name:
            return platform
    raise ValueError(f"unknown platform {name!r} (known: {', '.join(PLATFORMS)})")


def for_resource_type(resource_type: str) -> Platform | None:
    """The platform whose node groups have this Terraform resource type, or None."""
    return _BY_TYPE.get(resource_type)


def platform_of(group: NodeGroup) -> Platform:
    """The rules a node group is upgraded under (``NodeGroup.platform`` names them)."""
    return get(group.platform)
