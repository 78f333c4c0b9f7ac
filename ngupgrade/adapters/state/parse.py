"""Terraform state -> node groups: raw state v4 and ``terraform show -json`` output.

Only what is needed is decoded: the top level and each resource's header are typed, every
resource's ``instances`` stays an undecoded slice (:class:`msgspec.Raw`) until the resource
turns out to be a node group or a cluster. That keeps a state of tens of MB fast to read
(``bench/bench_state.py``); msgspec's typed decoding also reports the JSON path of a bad
value, which becomes the one-line error users see.

Format facts: ``hashicorp/terraform`` statefile/version4.go (v4) and jsonstate/state.go
(``show -json``). Nothing here writes to a state.

Node groups of both platforms are read: ``yandex_kubernetes_node_group`` by
:mod:`ngupgrade.adapters.state.yandex`, ``selectel_mks_nodegroup_v1`` by
:mod:`ngupgrade.adapters.state.selectel`; each group's
``platform`` comes from its resource type, unless the caller forces one (``--platform``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

import msgspec

from ngupgrade.adapters.state import selectel, yandex
from ngupgrade.adapters.state.encoding import PULL, encoding_named, refuse_other_encodings
from ngupgrade.adapters.state.yandex import ClusterInfo
from ngupgrade.core.address import IndexKey, ModuleStep, TfAddress
from ngupgrade.core.errors import BadInput
from ngupgrade.core.inputs import EMPTY_SHOW_JSON_KEYS, document_kind, wrong_input
from ngupgrade.core.model import NodeGroup, PlatformName

NODE_GROUP_TYPE = yandex.NODE_GROUP_TYPE
CLUSTER_TYPE = yandex.CLUSTER_TYPE
GROUP_TYPES = frozenset({NODE_GROUP_TYPE, selectel.NODE_GROUP_TYPE})
_CLUSTER_TYPES = frozenset({CLUSTER_TYPE, selectel.CLUSTER_TYPE})
_SIDE_TYPES = _CLUSTER_TYPES | {yandex.PLACEMENT_GROUP_TYPE}
"""Resources read for what they tell about the groups beside them (clusters, placement)."""
_INTERESTING = GROUP_TYPES | _SIDE_TYPES

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


# ---- results ----------------------------------------------------------------------------

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


@dataclass
class _Clusters:
    """The clusters beside the node groups, by id, one dict per platform; and the strategy of
    each compute placement group by id."""

    yandex: dict[str, ClusterInfo]
    selectel: dict[str, selectel.SelectelCluster]
    placement: dict[str, Literal["spread", "partition"]] = field(default_factory=dict)

    def add(self, rtype: str, raw: msgspec.Raw, source: str, path: str) -> None:
        if rtype == yandex.PLACEMENT_GROUP_TYPE:
            group = _decode(raw, yandex.PLACEMENT_GROUP_SHAPE, source, path)
            self.placement[group.id] = yandex.placement_strategy(group)
        elif rtype == CLUSTER_TYPE:
            found = yandex.cluster(_decode(raw, yandex.CLUSTER_SHAPE, source, path))
            self.yandex[found.id] = found
        else:
            attrs = _decode(raw, selectel.CLUSTER_SHAPE, source, path)
            self.selectel[attrs.id] = selectel.cluster(attrs)


# ---- entry point --------------------------------------------------------------------------

def parse_state(data: bytes, source: str, platform: PlatformName | None = None) -> ParsedState:
    """Parse a Terraform state and return every managed node-group instance.

    Args:
        data: the state document, UTF-8 JSON (raw v4 state or ``terraform show -json``).
        source: how to name the input in errors (a path, ``-``, ``tf:DIR``, ``s3://...``).
        platform: forces every group onto this platform's rules (``--platform``); None
            takes each group's from its resource type.

    Raises:
        BadInput: UTF-16 or a byte order mark (named, with how to convert), not JSON,
            truncated, an unsupported version (v3 and older, v5+), wrong
            types, or a node group without ``id`` or ``scale_policy``. The message names
            ``source`` and the JSON path.
    """
    if not data.strip():
        raise BadInput("empty input, no Terraform state", source=source,
                       hint="check that the workspace has a state (`terraform state pull`)")
    refuse_other_encodings(data, source)
    _refuse_other_files(data, source)
    with encoding_named(data, source, PULL):
        parsed = _parse(data, source)
    if platform is None:
        return parsed
    return replace(parsed, groups=tuple(replace(g, platform=platform) for g in parsed.groups))


def ui_log(data: bytes) -> bool:
    """Whether ``data`` opens with a message of Terraform's machine-readable UI (``terraform
    plan -json``, ``apply -json``): a JSON object a line with ``@message`` and ``type``
    (https://developer.hashicorp.com/terraform/internals/machine-readable-ui)."""
    first = data.lstrip()[:65536].split(b"\n", 1)[0]
    if b'"@message"' not in first:
        return False
    try:
        message = msgspec.json.decode(first)
    except msgspec.DecodeError:
        return False
    return isinstance(message, dict) and "@message" in message and "type" in message


_YAML_LINE = re.compile(rb"^(?:---|- |[\w.\"'-]+[ \t]*:(?:[ \t]|$))")
"""The first line of a YAML document (after comments): ``---``, a list item or ``key:``."""


def _refuse_other_files(data: bytes, source: str) -> None:
    """Name the file a state is cheaply told from, where JSON's error would say only "not
    valid JSON ... is the file complete?": the log of ``terraform plan -json``, or YAML (a
    scenario, a quota file).

    Raises:
        BadInput: one of those, with where it goes.
    """
    if ui_log(data):
        raise BadInput("the machine-readable log of `terraform plan -json` (one message a "
                       "line), not a Terraform state", source=source,
                       hint="pass a state (`terraform state pull > terraform.tfstate`); a "
                            "plan goes to --plan: terraform plan -out=tfplan && terraform "
                            "show -json tfplan > plan.json")
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        return
    lines = (line.strip() for line in data[:65536].splitlines())
    first = next((line for line in lines if line and not line.startswith(b"#")), b"")
    if _YAML_LINE.match(first):
        raise BadInput("this looks like YAML: a state is JSON", source=source,
                       hint="pass the state Terraform writes (`terraform state pull`, or "
                            "`terraform show -json`); a scenario goes to the fake cloud, a "
                            "quota file to --quotas")


def _parse(data: bytes, source: str) -> ParsedState:
    header = _decode(data, _Header, source, "$")
    if header.format_version is not None and header.values:
        return _parse_show_json(header.values, source)
    if header.version == 4:
        return _parse_v4(header.resources, source)
    if header.version is None:
        doc = msgspec.json.decode(data)
        kind = document_kind(doc)
        if kind not in (None, "terraform-state"):  # a plan would read as a state of no group
            raise wrong_input(kind, "--state", source)
        if header.format_version is not None and isinstance(doc, dict) and set(doc) <= (
                EMPTY_SHOW_JSON_KEYS):  # show -json of an empty state
            return ParsedState((), {}, "show-json")
        raise BadInput(_not_a_state(doc), source=source, path="$",
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


_OTHER_TERRAFORM_JSON = {
    "valid": "terraform validate -json",
    "diagnostics": "terraform validate -json",
    "provider_schemas": "terraform providers schema -json",
    "function_signatures": "terraform metadata functions -json",
}
"""A key of another ``terraform ... -json`` document that starts with ``format_version`` as
``show -json`` does (hashicorp/terraform ``internal/command/views/validate.go``,
``jsonprovider``, ``jsonfunction``), and the command that writes it."""


def _not_a_state(doc: object) -> str:
    """Why a document with no ``version`` is no state. ``terraform show -json`` of an empty
    state is ``format_version`` alone (``internal/command/jsonstate/state.go`` ``Marshal``);
    with other keys and no ``values`` it is another command's JSON, named when known."""
    if not isinstance(doc, dict) or "format_version" not in doc:
        return "not a Terraform state: no \"version\" key"
    for key, command in _OTHER_TERRAFORM_JSON.items():
        if key in doc:
            return f"not a Terraform state: the JSON of `{command}`"
    return ("not a Terraform state: format_version without values (the JSON of another "
            "terraform command?)")


def _parse_v4(resources_raw: msgspec.Raw, source: str) -> ParsedState:
    resources = (
        [] if not resources_raw
        else _decode(resources_raw, list[_ResourceV4], source, "$.resources")
    )
    instances: list[_RawInstance] = []
    clusters = _Clusters({}, {})
    skipped = 0
    for r_index, res in enumerate(resources):
        if res.type not in _INTERESTING or not res.instances:
            continue
        base = f"$.resources[{r_index}].instances"
        if res.mode != "managed":
            skipped += res.type in GROUP_TYPES
            continue
        module = _parse_module(res.module, source, f"$.resources[{r_index}].module")
        for i_index, inst in enumerate(_decode(res.instances, list[_InstanceV4], source, base)):
            path = f"{base}[{i_index}].attributes"
            if (res.type in GROUP_TYPES and inst.deposed is None and not inst.attributes
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
                skipped += res.type in GROUP_TYPES
                continue
            if res.type in _SIDE_TYPES:
                clusters.add(res.type, inst.attributes, source, path)
                continue
            address = TfAddress(res.type, res.name, inst.index_key, module, "managed")
            instances.append(_RawInstance(address, inst.attributes, inst.status == "tainted", path))
    return _build(instances, clusters, source, "v4", skipped)


def _parse_show_json(values_raw: msgspec.Raw, source: str) -> ParsedState:
    values = _decode(values_raw, _ShowValues, source, "$.values")
    instances: list[_RawInstance] = []
    clusters = _Clusters({}, {})
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
                skipped += res.type in GROUP_TYPES
                continue
            if res.type in _SIDE_TYPES:
                clusters.add(res.type, res.values, source, f"{path}.values")
                continue
            try:
                address = TfAddress.parse(res.address)
            except ValueError as err:
                raise BadInput(str(err), source=source, path=f"{path}.address") from err
            instances.append(_RawInstance(address, res.values, res.tainted, f"{path}.values"))
    return _build(instances, clusters, source, "show-json", skipped)


# ---- helpers -------------------------------------------------------------------------------

_AT_PATH = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)


def _decode(data: bytes | msgspec.Raw, shape: object, source: str, path: str,  # type: ignore[no-untyped-def]
            writer: str = "terraform state pull"):
    """Decode ``data`` as ``shape``, turning msgspec's errors into a BadInput at ``path``;
    ``writer`` is the command whose partial output the hint of JSON cut short names."""
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
                            f"partial `{writer}` looks like this") from err


def _one_instance_per_address(instances: Iterable[_RawInstance], source: str) -> None:
    """Refuse a node-group address held twice: `-g ADDRESS` would pick one silently.

    Terraform never writes two current instances at one address (deposed ones are skipped
    before this); a state that does was merged or edited by hand.

    Raises:
        BadInput: naming the address and the JSON path of its second instance.
    """
    seen: dict[str, str] = {}
    for inst in instances:
        address = str(inst.address)
        first = seen.setdefault(address, inst.path)
        if first != inst.path:
            raise BadInput(f"node group {address} appears twice (first at {first})",
                           source=source, path=inst.path,
                           hint="a state holds one instance per address; was it merged or "
                                "edited by hand? `terraform state list` shows what it holds")


def _parse_module(text: str | None, source: str, path: str) -> tuple[ModuleStep, ...]:
    if not text:
        return ()
    try:
        # Reuse the address grammar: "module.a["x"].module.b" + a dummy resource part.
        return TfAddress.parse(f"{text}.t.n").module
    except ValueError as err:
        raise BadInput(f"bad module path {text!r}", source=source, path=path) from err


def node_group_from_values(
    raw: bytes | msgspec.Raw, address: TfAddress, clusters: dict[str, ClusterInfo], source: str,
    path: str,
) -> NodeGroup:
    """One Yandex node group from its attribute object (a state's ``attributes``/``values``, or
    a plan's ``before``/``after``): the same reading as :func:`parse_state`.

    Raises:
        BadInput: wrong types or a missing ``id``/``scale_policy``, naming ``source`` and ``path``.
    """
    attrs = _decode(msgspec.Raw(raw), yandex.NODE_GROUP_SHAPE, source, path)
    return yandex.node_group(attrs, address, False, clusters, source, path)


def decode_json(data: bytes | msgspec.Raw, shape: object, source: str, path: str,  # type: ignore[no-untyped-def]
                writer: str = "terraform state pull"):
    """Decode ``data`` as ``shape``; bad input becomes a BadInput naming ``source`` and ``path``
    (JSON cut short: the hint names a partial output of ``writer``)."""
    return _decode(data, shape, source, path, writer)


def _build(
    instances: Iterable[_RawInstance], clusters: _Clusters, source: str,
    fmt: str, skipped: int,
) -> ParsedState:
    instances = list(instances)
    _one_instance_per_address(instances, source)
    groups = tuple(
        yandex.node_group(_decode(inst.attributes, yandex.NODE_GROUP_SHAPE, source, inst.path),
                          inst.address, inst.tainted, clusters.yandex, source, inst.path,
                          clusters.placement)
        if inst.address.type == NODE_GROUP_TYPE
        else selectel.node_group(_decode(inst.attributes, selectel.NODE_GROUP_SHAPE, source,
                                         inst.path),
                                 inst.address, inst.tainted, clusters.selectel, source,
                                 inst.path)
        for inst in instances)
    return ParsedState(groups, clusters.yandex, fmt, skipped)
