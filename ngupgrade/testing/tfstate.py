"""Terraform state documents as Terraform writes them: the raw v4 state (``terraform state
pull``, a ``.tfstate`` file) and ``terraform show -json`` (format 1.0), around resource
attributes built by :mod:`ngupgrade.testing.tfstate_yandex` and
:mod:`ngupgrade.testing.tfstate_selectel`.

The v4 layout follows ``hashicorp/terraform`` ``internal/states/statefile/version4.go``
(resources sorted by module, mode, type, name; instances by key; ``schema_version``,
``attributes``, ``sensitive_attributes``, ``private``, ``dependencies``); the JSON view
follows ``internal/command/jsonstate/state.go`` (one entry per instance with ``address``,
``index``, ``provider_name``, ``values``, ``sensitive_values``, ``depends_on``; child modules
nested and sorted by address) and ``SensitiveAsBool`` for ``sensitive_values`` (a mirror of
``values`` keeping lists, maps and objects, dropping non-sensitive scalars).

Usage::

    state = TfState()
    state.add("yandex_kubernetes_node_group", "workers", yandex_node_group(...))
    state.write(path)                      # raw v4
    state.write_show_json(path)            # terraform show -json
"""

from __future__ import annotations

import base64
import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

YANDEX_PROVIDER = "registry.terraform.io/yandex-cloud/yandex"
SELECTEL_PROVIDER = "registry.terraform.io/selectel/selectel"

_PROVIDER_OF_PREFIX = {"yandex_": YANDEX_PROVIDER, "selectel_": SELECTEL_PROVIDER}


def sdk_timeouts_private(create_min: int, update_min: int, delete_min: int,
                         read_min: int | None = None) -> str:
    """The ``private`` blob terraform-plugin-sdk v2 writes for a resource with a ``Timeouts``
    block: base64 of ``{"e2bfb730-ecaa-11e6-8f88-34363bc7c4c0": {op: nanoseconds}}``
    (``helper/schema/resource_timeout.go``, ``TimeoutKey``)."""
    minute = 60 * 10**9
    ops = {"create": create_min, "delete": delete_min, "update": update_min}
    if read_min is not None:
        ops["read"] = read_min
    blob = {"e2bfb730-ecaa-11e6-8f88-34363bc7c4c0": {k: v * minute for k, v in sorted(ops.items())}}
    return base64.b64encode(json.dumps(blob, separators=(",", ":")).encode()).decode()


_PRIVATE: dict[str, str] = {
    # yandex/resource_yandex_kubernetes_node_group.go: 60m create/update, 20m delete, 10m read
    "yandex_kubernetes_node_group": sdk_timeouts_private(60, 60, 20, 10),
    # yandex/resource_yandex_kubernetes_cluster.go: 30m create/update, 20m delete, 5m read
    "yandex_kubernetes_cluster": sdk_timeouts_private(30, 30, 20, 5),
    "yandex_vpc_subnet": sdk_timeouts_private(3, 3, 3),  # resource_yandex_vpc_subnet.go
    "yandex_vpc_network": sdk_timeouts_private(1, 1, 1),  # resource_yandex_vpc_network.go
    "yandex_compute_placement_group": sdk_timeouts_private(1, 1, 1),
    # selectel/resource_selectel_mks_*_v1.go: 60m create/update/delete
    "selectel_mks_nodegroup_v1": sdk_timeouts_private(60, 60, 60),
    "selectel_mks_cluster_v1": sdk_timeouts_private(60, 60, 60),
}

SCHEMA_VERSION: dict[str, int] = {"yandex_compute_placement_group": 1}
"""``SchemaVersion`` of a resource type where it is not 0
(``yandex/resource_yandex_compute_placement_group.go``)."""


@dataclass
class Instance:
    """One resource instance: its attributes and, for ``count``/``for_each``, its key."""

    attributes: dict[str, Any]
    index_key: int | str | None = None
    dependencies: tuple[str, ...] = ()
    tainted: bool = False
    deposed: str | None = None


@dataclass
class Resource:
    """One resource block (``module`` None at the root; ``mode`` ``managed`` or ``data``)."""

    type: str
    name: str
    module: str | None = None
    mode: str = "managed"
    instances: list[Instance] = field(default_factory=list)

    @property
    def provider_name(self) -> str:
        """The provider's source address (``registry.terraform.io/yandex-cloud/yandex``)."""
        for prefix, provider in _PROVIDER_OF_PREFIX.items():
            if self.type.startswith(prefix):
                return provider
        raise ValueError(f"no provider known for resource type {self.type!r}")


@dataclass
class TfState:
    """A Terraform state under construction; :meth:`to_v4` and :meth:`to_show_json` give the
    two documents Terraform writes of it. ``legacy_012`` writes a Terraform 0.12 state
    (``provider.yandex`` addresses, no ``sensitive_attributes``, no ``check_results``)."""

    terraform_version: str = "1.9.8"
    serial: int = 1
    lineage: str = "3f0c2a54-8a51-4c47-9d0e-5b7f3c1e2d90"
    outputs: dict[str, Any] = field(default_factory=dict)
    resources: list[Resource] = field(default_factory=list)
    legacy_012: bool = False

    def add(self, type: str, name: str, attributes: dict[str, Any], *,
            module: str | None = None, index_key: int | str | None = None,
            dependencies: tuple[str, ...] | list[str] = (), mode: str = "managed",
            tainted: bool = False, deposed: str | None = None) -> TfState:
        """Add one instance (joined to an existing resource of the same module, type and
        name, as ``count``/``for_each`` instances are); ``deposed`` the 8-character key of a
        deposed object (``create_before_destroy``). Returns ``self``."""
        res = next((r for r in self.resources if (r.module, r.mode, r.type, r.name)
                    == (module, mode, type, name)), None)
        if res is None:
            res = Resource(type, name, module, mode)
            self.resources.append(res)
        res.instances.append(Instance(attributes, index_key, tuple(dependencies), tainted,
                                      deposed))
        return self

    @classmethod
    def from_v4(cls, doc: dict[str, Any]) -> TfState:
        """The state of a raw v4 document (one this writer wrote, perhaps edited since): to
        give the ``terraform show -json`` view of an edited state."""
        state = cls(terraform_version=doc.get("terraform_version", "1.9.8"),
                    serial=doc.get("serial", 1), lineage=doc.get("lineage", ""),
                    outputs={k: v["value"] for k, v in (doc.get("outputs") or {}).items()},
                    legacy_012="check_results" not in doc)
        for res in doc.get("resources", []):
            for inst in res.get("instances", []):
                state.add(res["type"], res["name"], inst["attributes"],
                          module=res.get("module"), index_key=inst.get("index_key"),
                          dependencies=inst.get("dependencies", ()), mode=res["mode"],
                          tainted=inst.get("status") == "tainted")
        return state

    def _sorted(self) -> list[Resource]:
        return sorted(self.resources, key=lambda r: (r.module or "", r.mode, r.type, r.name))

    def to_v4(self) -> dict[str, Any]:
        """The raw v4 state document (``version: 4``)."""
        doc: dict[str, Any] = {
            "version": 4, "terraform_version": self.terraform_version, "serial": self.serial,
            "lineage": self.lineage,
            "outputs": {k: {"value": v, "type": _cty_type(v)} for k, v in self.outputs.items()},
            "resources": [self._v4_resource(r) for r in self._sorted()],
        }
        if not self.legacy_012:
            doc["check_results"] = None
        return doc

    def _v4_resource(self, res: Resource) -> dict[str, Any]:
        out: dict[str, Any] = {} if res.module is None else {"module": res.module}
        provider = (f"provider.{res.provider_name.rsplit('/', 1)[1]}" if self.legacy_012
                    else f'provider["{res.provider_name}"]')
        out.update({"mode": res.mode, "type": res.type, "name": res.name, "provider": provider,
                    "instances": [self._v4_instance(res, i) for i in _instances(res)]})
        return out

    def _v4_instance(self, res: Resource, inst: Instance) -> dict[str, Any]:
        out: dict[str, Any] = {} if inst.index_key is None else {"index_key": inst.index_key}
        if inst.tainted:
            out["status"] = "tainted"
        if inst.deposed:
            out["deposed"] = inst.deposed
        out["schema_version"] = SCHEMA_VERSION.get(res.type, 0)
        out["attributes"] = copy.deepcopy(inst.attributes)
        if not self.legacy_012:
            out["sensitive_attributes"] = []
        if res.mode == "managed" and res.type in _PRIVATE:
            out["private"] = _PRIVATE[res.type]
        if inst.dependencies:
            out["dependencies"] = sorted(inst.dependencies)
        return out

    def to_show_json(self) -> dict[str, Any]:
        """The ``terraform show -json`` document (``format_version`` 1.0, ``values``)."""
        root: dict[str, Any] = {"resources": []}
        modules: dict[str, list[dict[str, Any]]] = {}
        for res in self._sorted():
            target = root["resources"] if res.module is None else modules.setdefault(
                res.module, [])
            target.extend(_show_instance(res, inst) for inst in _instances(res))
        root["child_modules"] = _nest_modules(modules)
        if not root["child_modules"]:
            del root["child_modules"]
        outputs = {k: {"sensitive": False, "value": v, "type": _cty_type(v)}
                   for k, v in self.outputs.items()}
        return {"format_version": "1.0", "terraform_version": self.terraform_version,
                "values": {"outputs": outputs, "root_module": root}}

    def write(self, path: Path | str) -> Path:
        """Write the raw v4 state as Terraform does (two-space indent, trailing newline)."""
        p = Path(path)
        p.write_text(json.dumps(self.to_v4(), indent=2) + "\n")
        return p

    def write_show_json(self, path: Path | str) -> Path:
        """Write the ``terraform show -json`` document (one line, as Terraform prints it)."""
        p = Path(path)
        p.write_text(json.dumps(self.to_show_json()) + "\n")
        return p

    def node_group_attributes(self, name: str) -> dict[str, Any]:
        """The attributes of the one instance of a resource called ``name`` (to change one
        value for a test of a broken state)."""
        (res,) = [r for r in self.resources if r.name == name]
        (inst,) = res.instances
        return inst.attributes


def _instances(res: Resource) -> list[Instance]:
    """Instances in key order, a deposed object after the current one of its key."""
    return sorted(res.instances, key=lambda i: (
        i.index_key is not None, str(type(i.index_key)), i.index_key if i.index_key is not
        None else 0, i.deposed or ""))


def _show_instance(res: Resource, inst: Instance) -> dict[str, Any]:
    prefix = f"{res.module}." if res.module else ""
    mode = "data." if res.mode == "data" else ""
    key = inst.index_key
    suffix = "" if key is None else (f"[{key}]" if isinstance(key, int) else f"[{json.dumps(key)}]")
    entry: dict[str, Any] = {"address": f"{prefix}{mode}{res.type}.{res.name}{suffix}",
                             "mode": res.mode, "type": res.type, "name": res.name}
    if key is not None:
        entry["index"] = key
    entry.update({"provider_name": res.provider_name,
                  "schema_version": SCHEMA_VERSION.get(res.type, 0),
                  "values": copy.deepcopy(inst.attributes),
                  "sensitive_values": sensitive_as_bool(inst.attributes)})
    if inst.dependencies:
        entry["depends_on"] = sorted(inst.dependencies)
    if inst.tainted:
        entry["tainted"] = True
    if inst.deposed:
        entry["deposed_key"] = inst.deposed
    return entry


def _nest_modules(flat: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """``child_modules`` as Terraform nests them: ``module.a.module.b`` inside
    ``module.a``, each level sorted by address."""
    nodes: dict[str, dict[str, Any]] = {}
    for address in sorted(flat):
        parts = _module_parts(address)
        for depth in range(1, len(parts) + 1):
            addr = ".".join(parts[:depth])
            nodes.setdefault(addr, {"resources": [], "address": addr})
        nodes[address]["resources"] = flat[address]
    children: dict[str, list[str]] = {}
    top: list[str] = []
    for addr in nodes:
        parts = _module_parts(addr)
        (top if len(parts) == 1 else children.setdefault(".".join(parts[:-1]), [])).append(addr)

    def build(addr: str) -> dict[str, Any]:
        node = nodes[addr]
        if addr in children:
            node["child_modules"] = [build(c) for c in sorted(children[addr])]
        return node
    return [build(a) for a in sorted(top)]


def _module_parts(address: str) -> list[str]:
    """``module.a["x"].module.b`` -> ``['module.a["x"]', 'module.b']``."""
    parts: list[str] = []
    rest = address
    while rest:
        nxt = rest.find(".module.", 1)
        if nxt < 0:
            parts.append(rest)
            break
        parts.append(rest[:nxt])
        rest = rest[nxt + 1:]
    return parts


def sensitive_as_bool(value: Any) -> Any:
    """``values`` with nothing sensitive, as ``jsonstate`` marks it: lists keep their
    length (each scalar ``false``), maps and objects keep their keys that hold a list, map or
    object, scalars are dropped."""
    if isinstance(value, dict):
        return {k: sensitive_as_bool(v) for k, v in value.items() if isinstance(v, (dict, list))}
    if isinstance(value, list):
        return [sensitive_as_bool(v) if isinstance(v, (dict, list)) else False for v in value]
    return False


def _cty_type(value: Any) -> Any:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "string"
