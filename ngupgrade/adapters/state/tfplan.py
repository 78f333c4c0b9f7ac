"""A saved Terraform plan as ``terraform show -json PLANFILE`` prints it -> node-group changes.

Format facts (``hashicorp/terraform`` ``internal/command/jsonplan/plan.go``, format version
1.2): top level ``format_version``, ``terraform_version``, ``planned_values``,
``resource_changes``, ``prior_state`` (a ``show -json`` state),
``configuration``; each ``resource_changes[]`` entry has ``address``, ``mode``, ``type``,
``deposed``, ``action_reason`` and ``change`` {``actions``, ``before``, ``after``,
``after_unknown`` (the shape of ``after`` with ``true`` at each value known only after apply),
``replace_paths``}.

Fails closed (:class:`~ngupgrade.core.errors.BadInput`, exit 3) on a plan that cannot be
trusted: ``errored: true``, ``applyable: false`` with node-group changes, an action list outside
Terraform's set, one resource instance listed twice, an ``after_unknown`` that is not an object.

Lazy like :mod:`.parse`: every resource change is decoded only down to its header;
``change`` stays undecoded unless the resource is a node group or a cluster. Unknown values are
replaced here by the worst cases :mod:`ngupgrade.core.change` names, so the plan's ``after`` can
be read as a :class:`~ngupgrade.core.model.NodeGroup`; the paths stay listed so that every report
names them. Nothing here writes anything.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import msgspec

from ngupgrade.adapters.state.encoding import encoding_named
from ngupgrade.adapters.state.parse import (
    CLUSTER_TYPE,
    NODE_GROUP_TYPE,
    ClusterInfo,
    decode_json,
    node_group_from_values,
    parse_state,
    ui_log,
)
from ngupgrade.core.address import TfAddress
from ngupgrade.core.bounds import too_deep, too_deep_message
from ngupgrade.core.change import (
    KNOWN_ACTIONS,
    NO_CHANGE_ACTIONS,
    NODE_RESOURCES,
    UNKNOWN_POLICY_KNOB,
    UNKNOWN_SIZE,
    PlannedChange,
)
from ngupgrade.core.errors import BadInput
from ngupgrade.core.inputs import document_kind, wrong_input
from ngupgrade.core.model import NodeGroup

_ABSENT = msgspec.Raw(b"")
Step = str | int


class _Header(msgspec.Struct):
    format_version: str | None = None
    terraform_version: str | None = None
    resource_changes: list[msgspec.Raw] = []
    prior_state: msgspec.Raw = _ABSENT
    planned_values: msgspec.Raw = _ABSENT
    configuration: msgspec.Raw = _ABSENT
    values: msgspec.Raw = _ABSENT
    version: int | None = None
    errored: Any = False
    applyable: Any = None


class _ResourceChange(msgspec.Struct):
    address: str
    type: str
    mode: str = "managed"
    deposed: str | None = None
    action_reason: str | None = None
    change: msgspec.Raw = _ABSENT


class _Change(msgspec.Struct):
    actions: list[str]
    before: Any = None
    after: Any = None
    after_unknown: Any = None
    replace_paths: list[list[str | int]] | None = None


@dataclass(frozen=True)
class ClusterChange:
    """A ``yandex_kubernetes_cluster`` in the plan: its actions and changed attributes."""

    address: str
    id: str | None
    actions: tuple[str, ...]
    changed: tuple[str, ...]


@dataclass(frozen=True)
class ParsedPlan:
    """Node-group changes in plan order, the clusters beside them, and the plan's versions;
    ``prior_groups``: the node groups of ``prior_state`` (those the plan lists in
    ``resource_changes`` too, and any it leaves out, as with ``-target``)."""

    changes: tuple[PlannedChange, ...]
    clusters: tuple[ClusterChange, ...]
    terraform_version: str | None
    format_version: str
    prior_groups: tuple[NodeGroup, ...] = ()


def parse_plan(data: bytes, source: str) -> ParsedPlan:
    """Parse ``terraform show -json PLANFILE`` output.

    Raises:
        BadInput: not JSON, a binary saved plan, the log of ``terraform plan -json``
            (:func:`~ngupgrade.adapters.state.parse.ui_log`), a state instead of a plan, an
            unsupported ``format_version`` (:func:`readable_format_version`), or a group whose
            values do not read; the message names ``source`` and the JSON path.
    """
    if data[:2] == b"PK":  # a saved plan file is a zip archive
        raise BadInput("a binary saved plan, not its JSON", source=source,
                       hint="pass `terraform show -json PLANFILE > plan.json`, or let ngupgrade "
                            "run it: --plan tf:DIR (or tf:DIR/PLANFILE)")
    if not data.strip():
        raise BadInput("empty input, no Terraform plan", source=source,
                       hint="terraform show -json PLANFILE > plan.json")
    if ui_log(data):
        raise BadInput("the machine-readable log of `terraform plan -json` (one message a "
                       "line), not the JSON of a saved plan", source=source,
                       hint="save the plan and show it: terraform plan -out=tfplan && "
                            "terraform show -json tfplan > plan.json (or let ngupgrade run it: "
                            "--plan tf:DIR)")
    with encoding_named(data, source, "terraform show -json PLANFILE > plan.json"):
        return _parse_plan(data, source)


def _parse_plan(data: bytes, source: str) -> ParsedPlan:
    header = decode_json(data, _Header, source, "$", writer="terraform show -json PLANFILE")
    plan_keys = (header.resource_changes or header.prior_state or header.planned_values
                 or header.configuration)  # jsonplan writes planned_values at least
    if (header.format_version is None or header.values or header.version is not None
            or not plan_keys):
        kind = document_kind(msgspec.json.decode(data))
        if kind is not None and kind != "terraform-plan":
            raise wrong_input(kind, "--plan", source)
        raise BadInput("not a Terraform plan (no format_version and resource_changes; a state?)",
                       source=source, path="$",
                       hint="pass the JSON of a saved plan: terraform plan -out=tfplan && "
                            "terraform show -json tfplan > plan.json")
    if not readable_format_version(header.format_version):
        raise BadInput(f"unsupported plan format_version {header.format_version!r}; this "
                       "ngupgrade reads 0.1 to 1.x", source=source, path="$.format_version")
    if header.errored is not False:
        raise BadInput("the plan errored (`terraform plan` failed): it cannot be applied and "
                       "says nothing reliable", source=source, path="$.errored",
                       hint="fix the errors of `terraform plan`, then gate the new plan")
    clusters: dict[str, ClusterInfo] = {}
    prior_groups: tuple[NodeGroup, ...] = ()
    if header.prior_state and bytes(header.prior_state) != b"null":
        prior = parse_state(bytes(header.prior_state), f"{source} $.prior_state")
        clusters = dict(prior.clusters)
        prior_groups = tuple(prior.groups)
    changes: list[PlannedChange] = []
    cluster_changes: list[ClusterChange] = []
    seen: dict[tuple[str, str | None], int] = {}
    changing = False
    for i, raw in enumerate(header.resource_changes):
        path = f"$.resource_changes[{i}]"
        rc = decode_json(raw, _ResourceChange, source, path)
        if rc.type not in (NODE_GROUP_TYPE, CLUSTER_TYPE) or rc.mode != "managed":
            continue
        change = decode_json(rc.change, _Change, source, f"{path}.change")
        _check_change(rc, change, seen, i, source, path)
        changing = changing or tuple(change.actions) not in NO_CHANGE_ACTIONS
        if rc.type == CLUSTER_TYPE:
            cluster_changes.append(_cluster_change(rc, change, clusters))
            continue
        changes.append(_node_group_change(rc, change, clusters, source, path))
    if changing and header.applyable is not None and header.applyable is not True:
        raise BadInput("the plan is not applyable (applyable: false) yet changes node groups",
                       source=source, path="$.applyable",
                       hint="gate the plan `terraform plan` makes without errors")
    return ParsedPlan(tuple(changes), tuple(cluster_changes), header.terraform_version,
                      header.format_version, prior_groups)


_FORMAT_VERSION = re.compile(r"(?P<major>[0-9]+)\.(?P<minor>[0-9]+)")


def readable_format_version(version: str) -> bool:
    """Whether a plan of this ``format_version`` reads: ``0.1`` and ``0.2`` (Terraform 0.12 to
    0.15) and every ``1.x`` (1.0 and later; a minor version only adds keys).

    The range is hashicorp/terraform-json's ``PlanFormatVersionConstraints = ">= 0.1, < 2.0"``
    (``plan.go``); the JSON format page says to reject only an unsupported major version
    (https://developer.hashicorp.com/terraform/internals/json-format). Every key this reader
    needs is in 0.1 already; the later ones (``replace_paths``, ``action_reason``,
    ``errored``, ``applyable``) may be absent, and then read as their defaults.
    """
    match = _FORMAT_VERSION.fullmatch(version)
    if match is None:
        return False
    major, minor = int(match["major"]), int(match["minor"])
    return major == 1 or (major == 0 and minor >= 1)


def _check_change(rc: _ResourceChange, change: _Change,
                  seen: dict[tuple[str, str | None], int], index: int, source: str,
                  path: str) -> None:
    """Fail closed on what Terraform never writes: an action list outside its set, an
    address (and deposed key) twice, an ``after_unknown`` that is not an object."""
    if tuple(change.actions) not in KNOWN_ACTIONS:
        known = "; ".join(str(list(a)) for a in KNOWN_ACTIONS)
        raise BadInput(f"unknown actions {change.actions!r} (Terraform writes one of: {known})",
                       source=source, path=f"{path}.change.actions")
    key = (rc.address, rc.deposed)
    if key in seen:
        raise BadInput(f"{rc.address} appears twice (also $.resource_changes[{seen[key]}]): "
                       "a plan lists each resource instance once", source=source,
                       path=f"{path}.address")
    seen[key] = index
    for part in ("before", "after", "after_unknown"):  # before the diff and deep copies
        deep = too_deep(getattr(change, part), root=f"{path}.change.{part}")
        if deep is not None:
            raise BadInput(too_deep_message(), source=source, path=deep)
    if change.after_unknown not in (None, False) and not isinstance(change.after_unknown, dict):
        raise BadInput("change.after_unknown must be an object (the shape of after with true "
                       f"at each unknown value), got {change.after_unknown!r}", source=source,
                       path=f"{path}.change.after_unknown")


def _cluster_change(rc: _ResourceChange, change: _Change,
                    clusters: dict[str, ClusterInfo]) -> ClusterChange:
    after = change.after if isinstance(change.after, dict) else {}
    before = change.before if isinstance(change.before, dict) else {}
    cid = after.get("id") or before.get("id")
    folder = after.get("folder_id") or before.get("folder_id")
    if isinstance(cid, str) and cid and cid not in clusters and isinstance(folder, str):
        clusters[cid] = ClusterInfo(cid, folder, None)
    changed = tuple(_name(p) for p in _diff(change.before, change.after, change.after_unknown))
    return ClusterChange(rc.address, cid if isinstance(cid, str) else None,
                         tuple(change.actions), tuple(dict.fromkeys(changed)))


def _node_group_change(rc: _ResourceChange, change: _Change, clusters: dict[str, ClusterInfo],
                       source: str, path: str) -> PlannedChange:
    try:
        address = TfAddress.parse(rc.address)
    except ValueError as err:
        raise BadInput(str(err), source=source, path=f"{path}.address") from err
    before = after = None
    if isinstance(change.before, dict):
        before = node_group_from_values(msgspec.json.encode(change.before), address, clusters,
                                        source, f"{path}.change.before")
    unknown_paths = list(_unknown_leaves(change.after_unknown, ()))
    if isinstance(change.after, dict):
        filled = _worst_case(change.after, unknown_paths, change.before)
        after = node_group_from_values(msgspec.json.encode(filled), address, clusters, source,
                                       f"{path}.change.after")
        if before is not None and after.id == "":
            after = _with_id(after, before.id)
    elif change.after is not None:
        raise BadInput("change.after must be an object or null", source=source,
                       path=f"{path}.change.after")
    changed = [] if before is None or after is None else [
        _name(p) for p in _diff(change.before, change.after, change.after_unknown)]
    return PlannedChange(
        address=address, actions=tuple(change.actions), before=before, after=after,
        changed=tuple(dict.fromkeys(changed)),
        unknown=tuple(dict.fromkeys(_name(p) for p in unknown_paths)),
        replace_paths=tuple(dict.fromkeys(_name(tuple(p)) for p in change.replace_paths or ())),
        action_reason=rc.action_reason, deposed=rc.deposed)


def _with_id(group: NodeGroup, ng_id: str) -> NodeGroup:
    return replace(group, id=ng_id)


def _name(path: tuple[Step, ...]) -> str:
    """``("instance_template", 0, "resources", 0, "cores")`` ->
    ``instance_template.resources.cores`` (list indices left out)."""
    return ".".join(str(s) for s in path if not isinstance(s, int))


def _unknown_leaves(tree: Any, path: tuple[Step, ...]) -> Iterator[tuple[Step, ...]]:
    if tree is True:
        yield path
    elif isinstance(tree, dict):
        for key, sub in tree.items():
            yield from _unknown_leaves(sub, (*path, key))
    elif isinstance(tree, list):
        for i, sub in enumerate(tree):
            yield from _unknown_leaves(sub, (*path, i))


def _diff(before: Any, after: Any, unknown: Any, path: tuple[Step, ...] = ()
          ) -> Iterator[tuple[Step, ...]]:
    """Paths whose known values differ (unknown ones are reported apart).

    Objects are entered only at the top and inside lists (nested blocks are lists of objects
    in the v4 format); an object elsewhere is a map attribute (``labels``) and differs as
    a whole.
    """
    if unknown is True:
        return
    block = not path or isinstance(path[-1], int)
    if isinstance(before, dict) and isinstance(after, dict) and block:
        for key in dict.fromkeys([*before, *after]):
            sub = unknown.get(key) if isinstance(unknown, dict) else None
            yield from _diff(before.get(key), after.get(key), sub, (*path, key))
    elif (isinstance(before, list) and isinstance(after, list) and len(before) == len(after)
          and all(isinstance(x, dict) for x in [*before, *after])):
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            sub = unknown[i] if isinstance(unknown, list) and i < len(unknown) else None
            yield from _diff(b, a, sub, (*path, i))
    elif before != after:
        yield path


def _get(tree: Any, path: tuple[Step, ...]) -> Any:
    for step in path:
        if isinstance(step, int):
            if not isinstance(tree, list) or step >= len(tree):
                return None
        elif not isinstance(tree, dict):
            return None
        tree = tree[step] if isinstance(step, int) else tree.get(step)
    return tree


def _set(tree: Any, path: tuple[Step, ...], value: Any) -> None:
    for step in path[:-1]:
        if isinstance(step, int):
            while len(tree) <= step:
                tree.append({})
            tree = tree[step]
        else:
            if not isinstance(tree.get(step), (dict, list)):
                tree[step] = [] if isinstance(path[path.index(step) + 1], int) else {}
            tree = tree[step]
    last = path[-1]
    if isinstance(last, int):
        while len(tree) <= last:
            tree.append(None)
    tree[last] = value


def _worst_case(after: dict[str, Any], unknown: list[tuple[Step, ...]], before: Any
                ) -> dict[str, Any]:
    """``after`` with each unknown value replaced by its worst case (core.change docstring)."""
    filled = copy.deepcopy(after)
    for path in unknown:
        name = _name(path)
        if name == "scale_policy":
            prior = _get(before, path)
            _set(filled, path, copy.deepcopy(prior) if prior is not None else
                 [{"fixed_scale": [{"size": UNKNOWN_SIZE}], "auto_scale": []}])
            scale = _get(filled, ("scale_policy", 0)) or {}
            for fixed in scale.get("fixed_scale") or []:
                fixed["size"] = UNKNOWN_SIZE
            for auto in scale.get("auto_scale") or []:
                auto.update(min=0, initial=0, max=UNKNOWN_SIZE)
        elif name in ("scale_policy.fixed_scale.size", "scale_policy.auto_scale.max",
                      "scale_policy.fixed_scale"):
            _set(filled, path, UNKNOWN_SIZE if name.endswith(("size", "max"))
                 else [{"size": UNKNOWN_SIZE}])
        elif name in ("scale_policy.auto_scale.min", "scale_policy.auto_scale.initial"):
            _set(filled, path, 0)
        elif name.startswith("deploy_policy"):
            if name == "deploy_policy":
                _set(filled, path, [{"max_expansion": UNKNOWN_POLICY_KNOB,
                                     "max_unavailable": UNKNOWN_POLICY_KNOB}])
            else:
                _set(filled, path, UNKNOWN_POLICY_KNOB)
        elif any(name == p or name.startswith(p + ".") for p in NODE_RESOURCES):
            prior = _get(before, path)
            if prior is not None:  # the figures use the value before apply; the finding blocks
                _set(filled, path, copy.deepcopy(prior))
            else:  # no value at all: the node is unknown and the quota check fails closed
                template = _get(filled, ("instance_template", 0))
                if isinstance(template, dict):
                    template["resources"] = None
        elif name == "id":
            _set(filled, path, _get(before, path) or "")
    return filled
