"""The fake cloud's scenario file (YAML or JSON): what the cloud holds beyond the Terraform state.

A mapping with the optional keys ``step_seconds``, ``policy_seconds``, ``versions``,
``clouds`` (folders, quotas), ``clusters``, ``node_groups`` (live overrides of the state),
``faults`` and ``workloads`` (Kubernetes objects the fake Kubernetes API serves beside the
generated nodes, :mod:`ngupgrade.testing.kube_cluster`); the format with a worked example is
in docs/cloud.md ("Scenario file format"), and the file behind ``make demo`` ships as
``ngupgrade/testing/examples/scenario.yaml``.

Every value is checked against what the fake can do (:mod:`ngupgrade.testing.checks`): types,
ranges, method and status names, the keys each fault kind reads; names of node groups and
clusters are checked against the seeded groups when the world is built
(:meth:`Scenario.check_names`). Errors are :class:`BadInput` naming the file, the key and the
closest valid value.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ngupgrade.core.errors import BadInput, NotYaml
from ngupgrade.core.quota.catalog import SERVICES
from ngupgrade.core.text import LONE_SURROGATE_MESSAGE, lone_surrogate_path
from ngupgrade.testing import checks
from ngupgrade.testing.group_override import (
    GroupOverride,
    parse_status,
)
from ngupgrade.testing.kube_api import RESOURCES

FaultKind = Literal[
    "rpc_error", "permission_denied", "deadline_after_apply", "operation_error",
    "operation_in_progress", "stall", "running_after_update", "reconciling_after_done",
    "policy_ignored", "autoscaler_delete", "node_not_ready", "detach_stuck", "kube_error",
]
FAULT_KINDS: tuple[str, ...] = FaultKind.__args__  # type: ignore[attr-defined]

FAULT_KEYS: Mapping[str, tuple[str, ...]] = {
    "rpc_error": ("method", "code", "message", "times", "group"),
    "permission_denied": ("method", "message", "times", "group"),
    "deadline_after_apply": ("times", "group"),
    "operation_error": ("at_step", "code", "message", "group"),
    "operation_in_progress": ("operation_id", "description", "polls", "seconds", "times",
                              "scope", "group"),
    "stall": ("at_step", "group"),
    "running_after_update": ("seconds", "group"),
    "reconciling_after_done": ("seconds", "group"),
    "policy_ignored": ("group",),
    "autoscaler_delete": ("at_step", "group"),
    "node_not_ready": ("at_step", "group"),
    "detach_stuck": ("at_step", "group"),
    "kube_error": ("path", "status", "delay", "message", "times", "at_step", "group"),
}
"""The keys each fault kind reads (besides ``kind``): any other key is refused."""

STATUS_CODES: tuple[str, ...] = (
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED")
"""gRPC status names; the index is the google.rpc.Code number (google/rpc/code.proto)."""

METHODS: tuple[str, ...] = (
    "NodeGroupService.Get", "NodeGroupService.Update", "NodeGroupService.ListNodes",
    "NodeGroupService.ListOperations", "ClusterService.Get", "ClusterService.ListOperations",
    "ClusterService.ListNodeGroups",
    "OperationService.Get", "FolderService.Get", "QuotaLimitService.List",
    "ApiEndpointService.List")
"""The methods the fake serves (``ngupgrade.testing.servicers``); a fault's ``method``."""


KUBE_PATHS: tuple[str, ...] = tuple(r[0] for r in RESOURCES.values())
"""The list paths of the fake Kubernetes API; a ``kube_error`` fault's ``path``."""

SCENARIO_KEYS: tuple[str, ...] = ("step_seconds", "policy_seconds", "versions", "clouds",
                                  "clusters", "node_groups", "faults", "workloads")
CLUSTER_KEYS: tuple[str, ...] = ("folder_id", "master_version", "status")


@dataclass
class Fault:
    """One scripted fault. ``times`` None means every time; ``group`` limits it to a node group
    (id, name or Terraform address).

    * ``rpc_error``: ``method`` (``Service.Method`` or ``*``) fails with ``code`` ``times`` times
      (default 1);
    * ``permission_denied``: as rpc_error with PERMISSION_DENIED, every time by default;
    * ``deadline_after_apply``: Update creates its operation, then answers DEADLINE_EXCEEDED;
    * ``operation_error``: the version update fails with google.rpc ``code`` and ``message``
      when it reaches step ``at_step`` (1-based; the step is not applied);
    * ``operation_in_progress``: operation ``operation_id`` runs on the cluster from the start,
      done after ``polls`` Get calls or ``seconds`` (whichever first; neither: never); Update
      answers FAILED_PRECONDITION while it runs, and ``times`` more refusals when given
      (hashicorp/terraform-provider-google#3650); it is listed by the node group's ListOperations,
      or with ``scope: cluster`` only by the cluster's (a master upgrade);
    * ``stall``: the version update stops after step ``at_step`` (0: before the first) and
      never finishes;
    * ``running_after_update``: the group still reads RUNNING ``seconds`` after an Update;
    * ``reconciling_after_done``: the group reads RECONCILING ``seconds`` after its op is done;
    * ``policy_ignored``: a deploy-policy Update finishes fine but the policy stays
      (Azure/azure-cli#19902);
    * ``autoscaler_delete``: right before step ``at_step`` the cluster autoscaler deletes one
      Ready node already on the new version (Azure/AKS#5340);
    * ``node_not_ready``: the nodes created or updated in place by step ``at_step`` never
      turn Ready (the procedure goes on, as the platform's does);
    * ``detach_stuck``: the nodes drained by step ``at_step`` are stopped with their volume
      still attached, and the update goes no further;
    * ``kube_error``: once the version update applied step ``at_step``, the fake Kubernetes
      API answers the next ``times`` list calls of ``path`` (``/api/v1/pods``,
      ``/apis/policy/v1/poddisruptionbudgets``, ...) with HTTP ``status`` (400..599), after
      ``delay`` real seconds (longer than the client's timeout: a read timeout; ``status:
      null`` answers as usual after the delay).
    """

    kind: str
    method: str = "*"
    code: str | int = "UNAVAILABLE"
    message: str = ""
    times: int | None = 1
    at_step: int = 1
    seconds: float = 0.0
    polls: int | None = None
    operation_id: str = "op-9"
    description: str = "master upgrade"
    group: str | None = None
    scope: str = "node_group"
    path: str = "/api/v1/pods"
    status: int | None = 500
    delay: float = 0.0

    @classmethod
    def parse(cls, raw: Any, where: str = "faults") -> Fault:
        """Read one fault mapping. Raises BadInput naming the key and the closest valid value."""
        if not isinstance(raw, Mapping):
            raise BadInput(f"a fault must be a mapping with a kind ({', '.join(FAULT_KINDS)})",
                           path=where)
        kind = checks.choice(raw.get("kind"), f"{where}.kind", FAULT_KINDS)
        known = FAULT_KEYS[kind]
        extra = sorted(str(k) for k in raw if k != "kind" and k not in known)
        if extra:
            raise BadInput(f"unknown fault keys for kind {kind}: {', '.join(extra)} (known: "
                           f"{', '.join(known)})", path=where, hint=checks.closest(extra[0], known))
        values: dict[str, Any] = {"kind": kind}
        for key in known:
            if key in raw:
                values[key] = _FAULT_VALUES[key](raw[key], f"{where}.{key}", kind)
        if kind == "permission_denied":
            values.update(code="PERMISSION_DENIED")
            values.setdefault("times", None)
            values.setdefault("message", "Permission denied")
        if kind == "operation_in_progress":
            values.setdefault("times", 0)
        if kind == "operation_error":
            values.setdefault("code", 9)
            values.setdefault("message", "node group update failed")
        if kind in ("running_after_update", "reconciling_after_done") \
                and not values.get("seconds"):
            raise BadInput(f"a {kind} fault needs seconds > 0 (0 changes nothing)",
                           path=f"{where}.seconds")
        if kind == "deadline_after_apply":
            values["method"] = "NodeGroupService.Update"
        if kind == "kube_error" and values.get("status", 500) is None \
                and not values.get("delay"):
            raise BadInput("a kube_error fault with status null needs delay > 0 (else it "
                           "changes nothing)", path=f"{where}.delay")
        return cls(**values)


def _times(value: Any, where: str, kind: str) -> int | None:
    if value is None:
        return None  # every time
    # A fault that fires 0 times tests nothing; only a blocker's extra refusals may be 0.
    return checks.count(value, where, low=0 if kind == "operation_in_progress" else 1)


def _code(value: Any, where: str, kind: str) -> str | int:
    if isinstance(value, int) and not isinstance(value, bool):
        return checks.count(value, where, low=1, high=len(STATUS_CODES) - 1)
    names = STATUS_CODES[1:]  # OK is no fault
    if isinstance(value, str) and value.upper() in names and value != value.upper():
        raise BadInput(f"expected one of {', '.join(names)}, found {value!r}", path=where,
                       hint=f"did you mean {value.upper()!r}?")
    return checks.choice(value, where, names)


def _at_step(value: Any, where: str, kind: str) -> int:
    return checks.count(value, where, low=0 if kind == "stall" else 1)


_FAULT_VALUES: Mapping[str, Any] = {
    "method": lambda v, w, k: checks.choice(v, w, ("*", *METHODS)),
    "code": _code,
    "message": lambda v, w, k: checks.text(v, w, empty=True),
    "times": _times,
    "at_step": _at_step,
    "seconds": lambda v, w, k: checks.seconds(v, w),
    "polls": lambda v, w, k: None if v is None else checks.count(v, w),
    "operation_id": lambda v, w, k: checks.text(v, w),
    "description": lambda v, w, k: checks.text(v, w, empty=True),
    "group": lambda v, w, k: checks.text(v, w),
    "scope": lambda v, w, k: checks.choice(v, w, ("node_group", "cluster")),
    "path": lambda v, w, k: checks.choice(v, w, KUBE_PATHS),
    "status": lambda v, w, k: None if v is None else checks.count(v, w, low=400, high=599),
    "delay": lambda v, w, k: checks.seconds(v, w),
}
"""Key -> check(value, where, kind) of each fault key."""


@dataclass
class Scenario:
    """Everything a scenario file may say; defaults make a healthy, quota-less cloud."""

    step_seconds: float = 60.0
    policy_seconds: float = 5.0
    versions: list[str] | None = None
    folders: dict[str, str] = field(default_factory=dict)
    """folder id -> cloud id."""
    quotas: dict[str, dict[str, tuple[float | None, float | None]]] = field(default_factory=dict)
    """cloud id -> quota id -> (limit, usage)."""
    clusters: dict[str, dict[str, str]] = field(default_factory=dict)
    node_groups: dict[str, GroupOverride] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    workloads: list[dict[str, Any]] = field(default_factory=list)
    """Kubernetes objects as kubectl prints them (pods, PDBs, controllers, nodes...)."""
    source: str = field(default="scenario", compare=False)
    """The file it came from (error messages)."""

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any] | None, source: str = "scenario") -> Scenario:
        """Build from parsed YAML/JSON (None, an empty file, is all defaults).

        Raises:
            BadInput: naming the file and the key: not a mapping, an unknown key (a typo such as
                ``fault:`` would silently drop every fault) or a value the fake cannot act on.
        """
        if raw is not None and not isinstance(raw, Mapping):
            raise BadInput(f"scenario must be a mapping of {', '.join(SCENARIO_KEYS)}, "
                           f"found {type(raw).__name__}", source=source)
        try:
            top = checks.keys(raw, SCENARIO_KEYS, "scenario")
            sc = cls(source=source)
            if top.get("step_seconds") is not None:
                sc.step_seconds = checks.seconds(top["step_seconds"], "step_seconds")
            if top.get("policy_seconds") is not None:
                sc.policy_seconds = checks.seconds(top["policy_seconds"], "policy_seconds")
            if top.get("versions") is not None:
                sc.versions = _versions(top["versions"])
            _clouds(sc, top.get("clouds"))
            for cid, c in checks.keys(top.get("clusters"), (), "clusters", any_key=True).items():
                sc.clusters[checks.text(cid, "clusters")] = _cluster(c, f"clusters.{cid}")
            groups = checks.keys(top.get("node_groups"), (), "node_groups", any_key=True)
            for key, g in groups.items():
                name = checks.text(key, "node_groups")
                sc.node_groups[name] = GroupOverride.parse(g, f"node_groups.{name}")
            for i, f in enumerate(checks.items(top.get("faults"), "faults")):
                sc.faults.append(Fault.parse(f, where=f"faults[{i}]"))
            _unique_blockers(sc.faults)
            if top.get("workloads") is not None:
                sc.workloads = _workloads(top["workloads"])
        except BadInput as err:
            raise BadInput(err.message, source=source, hint=err.hint) from err
        return sc

    @classmethod
    def load(cls, path: str) -> Scenario:
        """Read a YAML (or JSON) scenario file. Raises BadInput."""
        from ngupgrade.adapters.documents import load_yaml, read_bounded

        data = read_bounded(path, "scenario")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise BadInput(f"scenario is not UTF-8 text (byte 0x{data[err.start]:02x} at "
                           f"offset {err.start})", source=path) from err
        try:
            raw = load_yaml(text, path)
        except NotYaml as err:
            raise BadInput(f"scenario is not YAML: {err.detail}", source=path) from err
        where = lone_surrogate_path(raw)
        if where is not None:
            raise BadInput(f"scenario {LONE_SURROGATE_MESSAGE}", source=path, path=where)
        return cls.from_mapping(raw, source=path)

    def check_names(self, groups: Collection[tuple[str, ...]], clusters: Collection[str]) -> None:
        """Refuse a ``node_groups`` key, a cluster id or a fault's ``group`` that names nothing
        seeded: ``groups`` holds each group's (id, name, address), ``clusters`` its clusters.

        Raises BadInput naming the key and the closest existing name.
        """
        names = [n for keys in groups for n in keys if n]
        shown = [keys[1] or keys[0] for keys in groups]

        def missing(what: str, where: str, valid: list[str], listed: list[str]) -> BadInput:
            return BadInput(f"{where}: no {what} {where.rsplit('.', 1)[-1]!r} in the fake "
                            f"(it holds: {', '.join(listed) or 'none'})", source=self.source,
                            hint=checks.closest(where.rsplit(".", 1)[-1], valid))

        for key in self.node_groups:
            if key not in names:
                raise missing("node group", f"node_groups.{key}", names, shown)
        for cid in self.clusters:
            if cid not in clusters:
                raise missing("cluster", f"clusters.{cid}", list(clusters), list(clusters))
        for i, f in enumerate(self.faults):
            if f.group is not None and f.group not in names:
                raise BadInput(f"faults[{i}].group: no node group {f.group!r} in the fake (it "
                               f"holds: {', '.join(shown) or 'none'})", source=self.source,
                               hint=checks.closest(f.group, names))


def _versions(raw: Any) -> list[str]:
    versions = [checks.text(v, f"versions[{i}]") for i, v in
                enumerate(checks.items(raw, "versions"))]
    if not versions:
        raise BadInput("an empty list offers no version at all", path="versions",
                       hint="list the versions an Update may ask for, or leave the key out")
    return versions


def _clouds(sc: Scenario, raw: Any) -> None:
    for cloud_id, cloud in checks.keys(raw, (), "clouds", any_key=True).items():
        where = f"clouds.{cloud_id}"
        cid = checks.text(cloud_id, "clouds")
        body = checks.keys(cloud, ("folders", "quotas"), where)
        for i, folder in enumerate(checks.items(body.get("folders"), f"{where}.folders")):
            name = checks.text(folder, f"{where}.folders[{i}]")
            if sc.folders.get(name, cid) != cid:
                raise BadInput(f"folder {name} is in cloud {sc.folders[name]} already",
                               path=f"{where}.folders[{i}]")
            sc.folders[name] = cid
        table = sc.quotas.setdefault(cid, {})
        for qid, q in checks.keys(body.get("quotas"), (), f"{where}.quotas",
                                  any_key=True).items():
            qwhere = f"{where}.quotas.{qid}"
            name = checks.text(qid, f"{where}.quotas")
            service = name.split(".", 1)[0]
            if "." not in name or service not in SERVICES:
                raise BadInput(f"quota id {name!r} is not of a service ngupgrade reads "
                               f"({', '.join(SERVICES)})", path=qwhere,
                               hint=checks.closest(service, SERVICES))
            values = checks.keys(q, ("limit", "usage"), qwhere)
            limit, usage = values.get("limit"), values.get("usage", 0)
            table[name] = (None if limit is None else checks.seconds(limit, f"{qwhere}.limit"),
                           None if usage is None else checks.seconds(usage, f"{qwhere}.usage"))


def _cluster(raw: Any, where: str) -> dict[str, str]:
    c = checks.keys(raw, CLUSTER_KEYS, where)
    out = {k: checks.text(c[k], f"{where}.{k}") for k in ("folder_id", "master_version")
           if c.get(k) is not None}
    if c.get("status") is not None:
        out["status"] = parse_status(c["status"], f"{where}.status")
    return out


def _unique_blockers(faults: list[Fault]) -> None:
    seen: set[str] = set()
    for i, f in enumerate(faults):
        if f.kind == "operation_in_progress":
            if f.operation_id in seen:
                raise BadInput(f"operation {f.operation_id} is scripted twice",
                               path=f"faults[{i}].operation_id",
                               hint="give each operation_in_progress its own operation_id")
            seen.add(f.operation_id)



def _workloads(raw: Any) -> list[dict[str, Any]]:
    """A list of Kubernetes objects, or a kubectl ``List`` (its ``items``), checked by the
    drain check's own reader (``ngupgrade.adapters.kube``) so a bad quantity or type fails
    here, at ``workloads[i].<path>``, not in the middle of a test. YAML timestamps (unquoted
    ``creationTimestamp: 2025-01-20T09:00:00Z``) become the API's strings."""
    import datetime
    import json

    from ngupgrade.adapters.kube import read_dump_bytes

    listed = raw.get("items") if isinstance(raw, Mapping) and "items" in raw else raw
    objects = checks.items(listed, "workloads")
    for i, obj in enumerate(objects):
        body = checks.keys(obj, (), f"workloads[{i}]", any_key=True)
        checks.text(body.get("kind"), f"workloads[{i}].kind")

    def stamp(value: Any) -> str:
        if isinstance(value, datetime.datetime):
            return value.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        if isinstance(value, datetime.date):
            return value.isoformat()
        raise BadInput(f"a value JSON cannot hold: {value!r}", path="workloads")

    data = json.dumps({"kind": "List", "apiVersion": "v1", "items": objects}, default=stamp)
    try:
        read_dump_bytes(data.encode(), "workloads")
    except BadInput as err:  # its message starts "workloads: $.items[i]...: "
        where = ": ".join(p for p in (err.source, err.path) if p)
        message = err.message.removeprefix(f"{where}: ")
        path = (err.path or "").removeprefix("$.items").removeprefix("$")
        raise BadInput(message, path="workloads" + path, hint=err.hint) from err
    normal: list[dict[str, Any]] = json.loads(data)["items"]
    return normal
