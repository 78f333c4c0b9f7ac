"""Terraform state -> node groups: raw state v4 and ``terraform show -json`` output.

Only what is needed is decoded: the top level and each resource's header are typed, every
resource's ``instances`` stays an undecoded slice (:class:`msgspec.Raw`) until the resource
turns out to be a node group or a cluster. That keeps a state of tens of MB fast to read
(``bench/bench_state.py``); msgspec's typed decoding also reports the JSON path of a bad
value, which becomes the one-line error users see.

Format facts: reference section 1.4 (v4, ``hashicorp/terraform`` statefile/version4.go) and
1.5 (``show -json``, jsonstate/state.go). Nothing here writes to a state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Annotated

import msgspec

from ngupgrade.core.errors import BadInput
from ngupgrade.core.k8s import Taint, TaintEffect
from ngupgrade.core.model import (
    GIB,
    MAX_GROUP_NODES,
    AutoScale,
    BootDisk,
    DeployPolicy,
    FixedScale,
    ModuleStep,
    NodeGroup,
    NodeResources,
    ScalePolicy,
    TfAddress,
)

NODE_GROUP_TYPE = "yandex_kubernetes_node_group"
CLUSTER_TYPE = "yandex_kubernetes_cluster"
_INTERESTING = frozenset({NODE_GROUP_TYPE, CLUSTER_TYPE})

IndexKey = int | str | None

# Value ranges a real state holds; anything else is a damaged or hand-made state. A node count
# above MAX_GROUP_NODES would also make the plan's timeline grow without bound.
NodeCount = Annotated[int, msgspec.Meta(ge=0, le=MAX_GROUP_NODES)]
Count = Annotated[int, msgspec.Meta(ge=0)]
Gigabytes = Annotated[float, msgspec.Meta(ge=0, le=1 << 30)]  # finite: JSON 1e400 decodes to inf


_ABSENT = msgspec.Raw(b"")
"""Default of an undecoded field the document left out (msgspec cannot type ``Raw | None``)."""


# ---- typed shapes (only the fields ngupgrade reads; everything else is skipped) -----------

class _Header(msgspec.Struct):
    version: int | None = None
    format_version: str | None = None
    resources: msgspec.Raw = _ABSENT
    values: msgspec.Raw = _ABSENT


class _ResourceV4(msgspec.Struct):
    type: str
    name: str
    mode: str = "managed"
    module: str | None = None
    instances: msgspec.Raw = _ABSENT


class _InstanceV4(msgspec.Struct):
    attributes: msgspec.Raw = _ABSENT
    attributes_flat: msgspec.Raw = _ABSENT
    index_key: IndexKey = None
    status: str | None = None
    deposed: str | None = None


class _ShowResource(msgspec.Struct):
    address: str
    type: str
    mode: str = "managed"
    values: msgspec.Raw = _ABSENT
    tainted: bool = False
    deposed_key: str | None = None


class _ShowModule(msgspec.Struct):
    resources: list[msgspec.Raw] = []
    child_modules: list[_ShowModule] = []


class _ShowValues(msgspec.Struct):
    root_module: _ShowModule | None = None


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


class _Template(msgspec.Struct):
    resources: list[_Resources] | None = None
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


class _Master(msgspec.Struct):
    version: str | None = None


class _ClusterAttrs(msgspec.Struct):
    id: str
    folder_id: str | None = None
    master: list[_Master] | None = None


# ---- results ----------------------------------------------------------------------------

@dataclass(frozen=True)
class ClusterInfo:
    """The parts of a ``yandex_kubernetes_cluster`` the tool needs (reference section 1.3)."""

    id: str
    folder_id: str | None
    master_version: str | None


@dataclass(frozen=True)
class ParsedState:
    """Node groups found in one state, in state order, plus the clusters beside them.

    ``format`` is ``"v4"`` or ``"show-json"``; ``skipped`` counts data sources and deposed
    objects of the node-group type that were left out on purpose.
    """

    groups: tuple[NodeGroup, ...]
    clusters: dict[str, ClusterInfo]
    format: str
    skipped: int = 0


@dataclass(frozen=True)
class _RawInstance:
    address: TfAddress
    attributes: msgspec.Raw
    tainted: bool
    path: str


# ---- entry point --------------------------------------------------------------------------

def parse_state(data: bytes, source: str) -> ParsedState:
    """Parse a Terraform state and return every managed node-group instance.

    Args:
        data: the state document, UTF-8 JSON (raw v4 state or ``terraform show -json``).
        source: how to name the input in errors (a path, ``-``, ``tf:DIR``, ``s3://...``).

    Raises:
        BadInput: not JSON, truncated, an unsupported version (v3 and older, v5+), wrong
            types, or a node group without ``id`` or ``scale_policy``. The message names
            ``source`` and the JSON path.
    """
    if not data.strip():
        raise BadInput("empty input, no Terraform state", source=source,
                       hint="check that the workspace has a state (`terraform state pull`)")
    header = _decode(data, _Header, source, "$")
    if header.format_version is not None and header.values:
        return _parse_show_json(header.values, source)
    if header.version == 4:
        return _parse_v4(header.resources, source)
    if header.version is None:
        if header.format_version is not None:  # `terraform show -json` of an empty state
            return ParsedState((), {}, "show-json")
        raise BadInput("not a Terraform state: no \"version\" key", source=source, path="$",
                       hint="pass a raw state (`terraform state pull`) or `terraform show -json`")
    if header.version < 4:
        raise BadInput(
            f"unsupported state version {header.version} (written by Terraform before 0.12)",
            source=source, path="$.version",
            hint="refresh it with Terraform >= 0.12 (`terraform state pull` writes version 4)",
        )
    raise BadInput(
        f"unknown state version {header.version}; this ngupgrade reads version 4",
        source=source, path="$.version",
        hint="pipe `terraform show -json` instead, or upgrade ngupgrade",
    )


def _parse_v4(resources_raw: msgspec.Raw, source: str) -> ParsedState:
    resources = (
        [] if not resources_raw
        else _decode(resources_raw, list[_ResourceV4], source, "$.resources")
    )
    instances: list[_RawInstance] = []
    clusters: dict[str, ClusterInfo] = {}
    skipped = 0
    for r_index, res in enumerate(resources):
        if res.type not in _INTERESTING or not res.instances:
            continue
        base = f"$.resources[{r_index}].instances"
        if res.mode != "managed":
            skipped += res.type == NODE_GROUP_TYPE
            continue
        module = _parse_module(res.module, source, f"$.resources[{r_index}].module")
        for i_index, inst in enumerate(_decode(res.instances, list[_InstanceV4], source, base)):
            path = f"{base}[{i_index}].attributes"
            if (res.type == NODE_GROUP_TYPE and inst.deposed is None and not inst.attributes
                    and inst.attributes_flat):
                address = TfAddress(res.type, res.name, inst.index_key, module, "managed")
                raise BadInput(
                    f"node group {address} has only attributes_flat (a state upgraded from "
                    "version 3 and never refreshed since)", source=source,
                    path=f"{base}[{i_index}].attributes_flat",
                    hint="refresh it with Terraform >= 0.12 (`terraform apply -refresh-only`) "
                         "so the provider writes the attributes",
                )
            if inst.deposed is not None or not inst.attributes:
                skipped += res.type == NODE_GROUP_TYPE
                continue
            if res.type == CLUSTER_TYPE:
                cluster = _cluster(inst.attributes, source, path)
                clusters[cluster.id] = cluster
                continue
            address = TfAddress(res.type, res.name, inst.index_key, module, "managed")
            instances.append(_RawInstance(address, inst.attributes, inst.status == "tainted", path))
    return _build(instances, clusters, source, "v4", skipped)


def _parse_show_json(values_raw: msgspec.Raw, source: str) -> ParsedState:
    values = _decode(values_raw, _ShowValues, source, "$.values")
    instances: list[_RawInstance] = []
    clusters: dict[str, ClusterInfo] = {}
    skipped = 0

    def walk(module: _ShowModule, path: str) -> Iterator[tuple[msgspec.Raw, str]]:
        for i, raw in enumerate(module.resources):
            yield raw, f"{path}.resources[{i}]"
        for j, child in enumerate(module.child_modules):
            yield from walk(child, f"{path}.child_modules[{j}]")

    if values.root_module is not None:
        for raw, path in walk(values.root_module, "$.values.root_module"):
            res = _decode(raw, _ShowResource, source, path)
            if res.type not in _INTERESTING:
                continue
            if res.mode != "managed" or res.deposed_key is not None or not res.values:
                skipped += res.type == NODE_GROUP_TYPE
                continue
            if res.type == CLUSTER_TYPE:
                cluster = _cluster(res.values, source, f"{path}.values")
                clusters[cluster.id] = cluster
                continue
            try:
                address = TfAddress.parse(res.address)
            except ValueError as err:
                raise BadInput(str(err), source=source, path=f"{path}.address") from err
            instances.append(_RawInstance(address, res.values, res.tainted, f"{path}.values"))
    return _build(instances, clusters, source, "show-json", skipped)


# ---- helpers -------------------------------------------------------------------------------

_AT_PATH = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)


def _decode(data: bytes | msgspec.Raw, shape: object, source: str, path: str):  # type: ignore[no-untyped-def]
    """Decode ``data`` as ``shape``, turning msgspec's errors into a BadInput at ``path``."""
    try:
        return msgspec.json.decode(data, type=shape)
    except msgspec.ValidationError as err:
        match = _AT_PATH.match(str(err))
        assert match is not None
        inner = match.group("path") or ""
        raise BadInput(match.group("msg"), source=source, path=path + inner) from err
    except RecursionError as err:  # arrays/objects nested thousands deep: no real state is
        raise BadInput("JSON nested too deeply to be a Terraform state", source=source,
                       path=path) from err
    except msgspec.DecodeError as err:
        raise BadInput(f"not valid JSON: {err}", source=source, path=path,
                       hint="is the file complete? a truncated download or a "
                            "partial `terraform state pull` looks like this") from err


def _parse_module(text: str | None, source: str, path: str) -> tuple[ModuleStep, ...]:
    if not text:
        return ()
    try:
        # Reuse the address grammar: "module.a["x"].module.b" + a dummy resource part.
        return TfAddress.parse(f"{text}.t.n").module
    except ValueError as err:
        raise BadInput(f"bad module path {text!r}", source=source, path=path) from err


def _cluster(raw: msgspec.Raw, source: str, path: str) -> ClusterInfo:
    attrs = _decode(raw, _ClusterAttrs, source, path)
    master = _first(attrs.master)
    return ClusterInfo(attrs.id, attrs.folder_id or None, master.version if master else None)


def _first(items: list | None):  # type: ignore[no-untyped-def,type-arg]
    """Terraform keeps a MaxItems-1 block as a list of one object, or ``[]``/``null`` unset."""
    return items[0] if items else None


def node_group_from_values(
    raw: bytes | msgspec.Raw, address: TfAddress, clusters: dict[str, ClusterInfo], source: str,
    path: str,
) -> NodeGroup:
    """One node group from its attribute object (a state's ``attributes``/``values``, or a
    plan's ``before``/``after``): the same reading as :func:`parse_state`.

    Raises:
        BadInput: wrong types or a missing ``id``/``scale_policy``, naming ``source`` and ``path``.
    """
    return _node_group(_RawInstance(address, msgspec.Raw(raw), False, path), clusters, source)


def decode_json(data: bytes | msgspec.Raw, shape: object, source: str, path: str):  # type: ignore[no-untyped-def]
    """Decode ``data`` as ``shape``; bad input becomes a BadInput naming ``source`` and ``path``."""
    return _decode(data, shape, source, path)


def _build(
    instances: Iterable[_RawInstance], clusters: dict[str, ClusterInfo], source: str,
    fmt: str, skipped: int,
) -> ParsedState:
    groups = tuple(_node_group(inst, clusters, source) for inst in instances)
    return ParsedState(groups, clusters, fmt, skipped)


def _node_group(inst: _RawInstance, clusters: dict[str, ClusterInfo], source: str) -> NodeGroup:
    attrs = _decode(inst.attributes, _NodeGroupAttrs, source, inst.path)
    scale = _scale(attrs.scale_policy, source, inst.path, inst.address)
    deploy = _first(attrs.deploy_policy)
    cluster = clusters.get(attrs.cluster_id or "")
    version_info = _first(attrs.version_info)
    return NodeGroup(
        address=inst.address,
        id=attrs.id,
        name=attrs.name or "",
        cluster_id=attrs.cluster_id or "",
        folder_id=cluster.folder_id if cluster else None,
        version=attrs.version or (version_info.current_version if version_info else None),
        status=attrs.status,
        policy=DeployPolicy(deploy.max_expansion, deploy.max_unavailable) if deploy else None,
        scale=scale,
        node=_node(_first(attrs.instance_template)),
        tainted=inst.tainted,
        master_version=cluster.master_version if cluster else None,
        labels=dict(attrs.labels or {}),
        node_labels=dict(attrs.node_labels or {}),
        node_taints=_taints(attrs.node_taints or [], source, inst.path),
    )


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
