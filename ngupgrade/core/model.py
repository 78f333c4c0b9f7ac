"""Plain values of the domain: node groups, their policies and per-node resources, quotas.

Pure: no I/O. Units are the API's: bytes for memory and disk, whole vCPUs for cores.
Terraform state stores memory and disk in GB = 2**30 bytes (provider ``toBytes``;
reference section 1.2); readers convert with :data:`GIB` before building these values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ngupgrade.core.k8s import Taint

GIB = 1 << 30
"""Bytes in one Terraform/Yandex "GB" (binary, 2**30)."""

MAX_GROUP_NODES = 5000
"""Most nodes a node group can hold: Kubernetes' scalability limit of 5,000 nodes per cluster
(kubernetes.io, "Considerations for large clusters"). Larger counts are bad input."""

IndexKey = int | str | None
"""``count`` gives an int, ``for_each`` a string, neither gives None (state v4 ``index_key``)."""


@dataclass(frozen=True)
class ModuleStep:
    """One ``module.NAME[KEY]`` step of a module path."""

    name: str
    key: IndexKey = None


def _format_key(key: IndexKey) -> str:
    if key is None:
        return ""
    if isinstance(key, bool):  # bool is an int subclass; a state never holds one here
        raise TypeError("index key must be int or str")
    if isinstance(key, int):
        return f"[{key}]"
    return f"[{hcl_quote(key)}]"


_HCL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


def hcl_quote(text: str) -> str:
    """A string key as Terraform prints it in an address (``addrs.StringKey.String``).

    HCL's quoted-string syntax: ``\\n \\r \\t \\" \\\\`` escaped; ``${`` and ``%{``
    doubled to ``$${`` / ``%%{`` (template introducers); any other non-printable character
    as ``\\uXXXX`` (or ``\\UXXXXXXXX`` above the BMP); everything else, non-ASCII letters
    included, as is. So ``terraform state list`` and ngupgrade print the same address.
    """
    out = ['"']
    for i, ch in enumerate(text):
        if ch in _HCL_ESCAPES:
            out.append(_HCL_ESCAPES[ch])
        elif ch in "$%":
            out.append(ch * 2 if text.startswith("{", i + 1) else ch)
        elif not ch.isprintable():
            code = ord(ch)
            out.append(f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


@dataclass(frozen=True)
class TfAddress:
    """An absolute Terraform resource-instance address.

    ``str(addr)`` gives e.g. ``module.k8s["prod"].yandex_kubernetes_node_group.ng["gpu.v100"]``;
    :meth:`parse` reads it back (round-trip). Keys may hold dots, quotes and spaces
    (field report C07), so an address is never split on dots.
    """

    type: str
    name: str
    index: IndexKey = None
    module: tuple[ModuleStep, ...] = ()
    mode: Literal["managed", "data"] = "managed"

    @property
    def module_path(self) -> str:
        """``module.a["x"].module.b``, or ``""`` for the root module."""
        return ".".join(f"module.{m.name}{_format_key(m.key)}" for m in self.module)

    def __str__(self) -> str:
        parts = [self.module_path] if self.module else []
        prefix = "data." if self.mode == "data" else ""
        parts.append(f"{prefix}{self.type}.{self.name}{_format_key(self.index)}")
        return ".".join(parts)

    @classmethod
    def parse(cls, text: str) -> TfAddress:
        """Parse an address as Terraform prints it.

        Raises:
            ValueError: the text is not a resource-instance address.
        """
        parser = _AddressParser(text)
        return parser.parse()


class _AddressParser:
    """A small recursive-descent reader for ``name[key]`` steps separated by dots."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> ValueError:
        return ValueError(f"not a Terraform address: {self.text!r} ({what} at {self.pos})")

    def ident(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "_-"
        ):
            self.pos += 1
        if start == self.pos:
            raise self.fail("name expected")
        return self.text[start:self.pos]

    def key(self) -> IndexKey:
        if self.pos >= len(self.text) or self.text[self.pos] != "[":
            return None
        self.pos += 1
        value: IndexKey
        if self.text.startswith('"', self.pos):
            value = self.string()
        else:
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos].isdigit():
                self.pos += 1
            if start == self.pos:
                raise self.fail("key expected")
            value = int(self.text[start:self.pos])
        if not self.text.startswith("]", self.pos):
            raise self.fail("']' expected")
        self.pos += 1
        return value

    def string(self) -> str:
        """An HCL quoted string (the inverse of :func:`hcl_quote`); also reads JSON escapes."""
        text, pos = self.text, self.pos + 1
        out: list[str] = []
        while pos < len(text):
            ch = text[pos]
            if ch == '"':
                self.pos = pos + 1
                return "".join(out)
            if ch in "$%" and text.startswith(ch + "{", pos + 1):
                out.append(ch)  # "$${" is a literal "${"
                pos += 2
                continue
            if ch != "\\":
                out.append(ch)
                pos += 1
                continue
            esc = text[pos + 1:pos + 2]
            simple = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "/": "/",
                      "b": "\b", "f": "\f"}
            if esc in simple:
                out.append(simple[esc])
                pos += 2
                continue
            width = {"u": 4, "U": 8}.get(esc)
            digits = text[pos + 2:pos + 2 + width] if width else ""
            if not width or len(digits) != width or not all(
                    c in "0123456789abcdefABCDEF" for c in digits):
                self.pos = pos
                raise self.fail("bad escape in string key")
            code = int(digits, 16)
            pos += 2 + width
            if 0xD800 <= code < 0xDC00 and text.startswith("\\u", pos):  # JSON surrogate pair
                low = text[pos + 2:pos + 6]
                if len(low) == 4 and all(c in "0123456789abcdefABCDEF" for c in low):
                    code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                    pos += 6
            if code > 0x10FFFF:
                self.pos = pos
                raise self.fail("bad escape in string key")
            out.append(chr(code))
        self.pos = pos
        raise self.fail("unterminated string key")

    def dot(self) -> None:
        if not self.text.startswith(".", self.pos):
            raise self.fail("'.' expected")
        self.pos += 1

    def parse(self) -> TfAddress:
        modules: list[ModuleStep] = []
        while self.text.startswith("module.", self.pos):
            self.pos += len("module.")
            name = self.ident()
            modules.append(ModuleStep(name, self.key()))
            self.dot()
        mode: Literal["managed", "data"] = "managed"
        if self.text.startswith("data.", self.pos):
            mode = "data"
            self.pos += len("data.")
        rtype = self.ident()
        self.dot()
        name = self.ident()
        index = self.key()
        if self.pos != len(self.text):
            raise self.fail("unexpected text")
        return TfAddress(rtype, name, index, tuple(modules), mode)


@dataclass(frozen=True)
class DeployPolicy:
    """``deploy_policy`` of a node group: nodes added (surge) and nodes down at once.

    Selectel calls them "Расширение размера группы, макс" and "Уменьшение размера группы,
    макс" (seed 001 L26, L40). Bounds and defaults are the platform's
    (:mod:`ngupgrade.core.platform`); validation lives in :mod:`ngupgrade.core.policy`; this
    value holds what was configured, valid or not.
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


@dataclass(frozen=True)
class AutoScale:
    """``scale_policy.auto_scale``: the cluster autoscaler keeps the group in ``min..max``."""

    min: int
    max: int
    initial: int
    type: Literal["auto"] = "auto"


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
    is then not in the state). Source: ``selectel_mks_nodegroup_v1`` (reference section 5).
    """

    project_id: str
    region: str
    zone: str
    flavor_id: str | None = None


@dataclass(frozen=True)
class MaintenanceWindow:
    """One window in which the service may start an automatic upgrade, in UTC
    (``maintenance_policy.maintenance_window``; maintenance.proto: daily or weekly, 1-24 h).

    ``day`` is ``monday``..``sunday``, None for every day; ``start_minutes`` after midnight;
    ``duration_minutes`` long.
    """

    day: str | None
    start_minutes: int
    duration_minutes: int


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
class NodeGroup:
    """One node group found in a Terraform state (``yandex_kubernetes_node_group`` or
    ``selectel_mks_nodegroup_v1``).

    ``policy`` is the deploy policy declared in state, or None when the state leaves it unset
    (attribute missing, ``[]`` or ``null``; field reports C05, C06): never read as 0/0.
    ``node`` is None when the state has no ``instance_template`` (plans still work; the quota
    preflight refuses such a group by name).
    ``folder_id`` comes from the cluster resource in the same state, when present.
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
    (None when the state has none).
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


@dataclass(frozen=True)
class QuotaLimit:
    """One quota of one cloud: ``limit`` and ``usage`` in the quota's unit (bytes for ``*.size``).

    Either may be None when the API leaves the wrapper unset; such a quota is ``unknown``,
    never unlimited (DESIGN.md section 4).
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
