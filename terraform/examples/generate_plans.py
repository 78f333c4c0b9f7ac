"""Write plan-*.json: saved plans of main.tf as `terraform show -json PLANFILE` prints them.

No Terraform binary or provider can run here, so the plans are built from the example state
(generate_state.py) the way Terraform 1.9 marshals a plan (hashicorp/terraform
internal/command/jsonplan, format_version 1.2): every managed instance in `resource_changes`
(no-op ones too), `before`/`after` as the provider's attribute objects, values known only after
apply left out of `after` (object keys dropped, list elements null) and marked `true` in
`after_unknown` (known leaves omitted from objects, `false` in lists), `before_sensitive` /
`after_sensitive` in the same shape, `replace_paths` and `action_reason` for a replace,
`planned_values` and `prior_state` as `show -json` states, and the `configuration`.

    python terraform/examples/generate_plans.py

writes
  plan-roll.json     `version = "1.30"` on workers and on module.pools["prod"]...this["batch"]:
                     two groups roll in one apply (gpu unchanged);
  plan-replace.json  `allowed_unsafe_sysctls` added to workers (ForceNew in the provider):
                     Terraform replaces the group, deleting it first.
The tests build other plans with `build_plan` (create-before-destroy, unknown sizes, ...).
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from generate_state import (  # noqa: E402
    CLUSTER_ID,
    FOLDER_ID,
    build_state,
    to_show_json,
)

PROVIDER_NAME = "registry.terraform.io/yandex-cloud/yandex"
TIMESTAMP = "2025-06-02T10:00:00Z"
NEW_OBJECT_COMPUTED = ("id", "instance_group_id", "status", "created_at", "version_info")
"""Computed attributes of a node group that a new object (create, replace) knows only after
apply (provider schema: Computed, set by Read)."""

Path_ = tuple[str | int, ...]


@dataclass
class Edit:
    """What the plan does to one instance (by address): its actions, a function that edits a
    copy of the attributes into the planned `after`, the paths known only after apply, the
    replace paths and Terraform's action reason."""

    actions: list[str]
    change: Callable[[dict], None] | None = None
    unknown: list[Path_] = field(default_factory=list)
    replace_paths: list[list[str | int]] = field(default_factory=list)
    action_reason: str | None = None


def set_path(tree: Any, path: Path_, value: Any) -> None:
    for step in path[:-1]:
        tree = tree[step]
    tree[path[-1]] = value


def _as_bool(value: Any, marked: set[Path_], path: Path_ = ()) -> Any:
    """jsonplan unknownAsBool / jsonstate SensitiveAsBool: True at marked leaves; objects omit
    False members, sequences keep one entry per element."""
    if path in marked:
        return True
    if isinstance(value, dict):
        out = {}
        for key, sub in value.items():
            got = _as_bool(sub, marked, (*path, key))
            if got is not False:
                out[key] = got
        return out
    if isinstance(value, list):
        return [_as_bool(sub, marked, (*path, i)) for i, sub in enumerate(value)]
    return False


def _omit_unknowns(value: Any, marked: set[Path_], path: Path_ = ()) -> Any:
    """jsonplan omitUnknowns: unknown object members dropped, unknown list elements null."""
    if isinstance(value, dict):
        return {k: _omit_unknowns(v, marked, (*path, k)) for k, v in value.items()
                if (*path, k) not in marked}
    if isinstance(value, list):
        return [None if (*path, i) in marked else _omit_unknowns(v, marked, (*path, i))
                for i, v in enumerate(value)]
    return value


def _address(res: dict, inst: dict) -> str:
    key = inst.get("index_key")
    prefix = f"{res['module']}." if res.get("module") else ""
    suffix = "" if key is None else (f"[{key}]" if isinstance(key, int) else f"[{json.dumps(key)}]")
    return f"{prefix}{res['type']}.{res['name']}{suffix}"


def build_plan(state: dict, edits: dict[str, Edit]) -> dict:
    """The `terraform show -json PLANFILE` document of a plan that applies `edits` to `state`.

    Raises KeyError when an edit names an address the state does not hold (create a new
    instance by adding it to the state and editing it with actions ["create"]).
    """
    known = {_address(r, i) for r in state["resources"] for i in r["instances"]}
    missing = set(edits) - known
    if missing:
        raise KeyError(f"not in the state: {sorted(missing)}")
    changes = []
    planned = copy.deepcopy(state)
    planned["resources"] = []
    for res in state["resources"]:
        if res["mode"] != "managed":
            planned["resources"].append(copy.deepcopy(res))
            continue
        kept = []
        for inst in res["instances"]:
            address = _address(res, inst)
            edit = edits.get(address, Edit(["no-op"]))
            before = inst["attributes"]
            after: dict | None = copy.deepcopy(before)
            if edit.change is not None and after is not None:
                edit.change(after)
            marked = {tuple(p) for p in edit.unknown}
            if "create" in edit.actions and "delete" in edit.actions:
                marked |= {(name,) for name in NEW_OBJECT_COMPUTED
                           if res["type"] == "yandex_kubernetes_node_group"}
            if edit.actions == ["delete"]:
                after = None
            if edit.actions == ["create"]:
                before = None
                marked |= {(name,) for name in NEW_OBJECT_COMPUTED}
            entry: dict[str, Any] = {"address": address}
            if res.get("module"):
                entry["module_address"] = res["module"]
            entry.update({"mode": res["mode"], "type": res["type"], "name": res["name"]})
            if inst.get("index_key") is not None:
                entry["index"] = inst["index_key"]
            entry["provider_name"] = PROVIDER_NAME
            change: dict[str, Any] = {"actions": edit.actions, "before": before}
            change["after"] = None if after is None else _omit_unknowns(after, marked)
            change["after_unknown"] = {} if after is None or not marked else _as_bool(after, marked)
            change["before_sensitive"] = False if before is None else _as_bool(before, set())
            change["after_sensitive"] = False if after is None else _as_bool(after, set())
            if edit.replace_paths:
                change["replace_paths"] = edit.replace_paths
            entry["change"] = change
            if edit.action_reason:
                entry["action_reason"] = edit.action_reason
            changes.append(entry)
            if after is not None:
                kept.append(dict(inst, attributes=_omit_unknowns(after, marked)))
        if kept:
            planned["resources"].append(dict(res, instances=kept))
    planned_values = to_show_json(planned)["values"]
    planned_values["root_module"]["resources"] = [
        r for r in planned_values["root_module"]["resources"] if r["mode"] == "managed"]
    created = {a for a, e in edits.items() if e.actions == ["create"]}
    prior_state = copy.deepcopy(state)
    prior_state["resources"] = [
        dict(r, instances=[i for i in r["instances"] if _address(r, i) not in created])
        for r in state["resources"]]
    prior_state["resources"] = [r for r in prior_state["resources"] if r["instances"]]
    prior = to_show_json(prior_state)
    return {
        "format_version": "1.2",
        "terraform_version": state["terraform_version"],
        "variables": {"folder_id": {"value": FOLDER_ID}},
        "planned_values": planned_values,
        "resource_changes": changes,
        "output_changes": {"cluster_id": {
            "actions": ["no-op"], "before": CLUSTER_ID, "after": CLUSTER_ID,
            "after_unknown": False, "before_sensitive": False, "after_sensitive": False}},
        "prior_state": prior,
        "configuration": configuration(state, edits),
        "relevant_attributes": [],
        "timestamp": TIMESTAMP,
        "applyable": any(c["change"]["actions"] != ["no-op"] for c in changes),
        "complete": True,
        "errored": False,
    }


def configuration(state: dict, edits: dict[str, Edit]) -> dict:
    """The `configuration` block: providers, resources with their expressions, module calls."""
    def resource(res: dict) -> dict:
        expressions: dict[str, Any] = {}
        if res["type"] == "yandex_kubernetes_node_group":
            inst = res["instances"][0]
            attrs = copy.deepcopy(inst["attributes"])
            edit = edits.get(_address(res, inst))
            if edit is not None and edit.change is not None:
                edit.change(attrs)
            expressions = {
                "cluster_id": {"references": ["yandex_kubernetes_cluster.main.id",
                                              "yandex_kubernetes_cluster.main"]},
                "name": {"constant_value": attrs["name"]},
                "version": {"constant_value": attrs["version"]},
            }
        return {"address": f"{res['type']}.{res['name']}", "mode": "managed",
                "type": res["type"], "name": res["name"], "provider_config_key": "yandex",
                "expressions": expressions, "schema_version": 0}

    root = [resource(r) for r in state["resources"]
            if r["mode"] == "managed" and not r.get("module")]
    pools = [resource(r) for r in state["resources"] if r.get("module")]
    for entry in pools:
        entry["provider_config_key"] = "module.pools:yandex"
        entry["for_each_expression"] = {"references": ["var.pools"]}
    return {
        "provider_config": {"yandex": {
            "name": "yandex", "full_name": PROVIDER_NAME, "version_constraint": ">= 0.120",
            "expressions": {"folder_id": {"references": ["var.folder_id"]},
                            "zone": {"constant_value": "ru-central1-a"}}}},
        "root_module": {
            "outputs": {"cluster_id": {"expression": {"references": [
                "yandex_kubernetes_cluster.main.id", "yandex_kubernetes_cluster.main"]}}},
            "resources": root,
            "module_calls": {"pools": {
                "source": "./modules/pools",
                "expressions": {"cluster_id": {"references": [
                    "yandex_kubernetes_cluster.main.id", "yandex_kubernetes_cluster.main"]}},
                "for_each_expression": {"constant_value": {"prod": {"batch": {
                    "max": 7, "min": 1}}}},
                "module": {"resources": pools,
                           "variables": {"cluster_id": {}, "pools": {}, "subnet_id": {}}}}},
            "variables": {"folder_id": {"default": FOLDER_ID}},
        },
    }


WORKERS = "yandex_kubernetes_node_group.workers"
BATCH = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'


def new_version(version: str) -> Callable[[dict], None]:
    """`version = "<version>"` in HCL: the planned `version` (version_info stays as read)."""
    def change(attrs: dict) -> None:
        attrs["version"] = version
    return change


def roll_plan() -> dict:
    """Two groups move to 1.30 in one apply."""
    return build_plan(build_state(), {WORKERS: Edit(["update"], new_version("1.30")),
                                      BATCH: Edit(["update"], new_version("1.30"))})


def replace_plan() -> dict:
    """`allowed_unsafe_sysctls` (ForceNew) added to workers: delete, then create."""
    def sysctls(attrs: dict) -> None:
        attrs["allowed_unsafe_sysctls"] = ["net.core.somaxconn"]
    return build_plan(build_state(), {WORKERS: Edit(
        ["delete", "create"], sysctls, replace_paths=[["allowed_unsafe_sysctls"]],
        action_reason="replace_because_cannot_update")})


def main() -> None:
    (HERE / "plan-roll.json").write_text(json.dumps(roll_plan()) + "\n")
    (HERE / "plan-replace.json").write_text(json.dumps(replace_plan()) + "\n")


if __name__ == "__main__":
    main()
