"""The fake cloud's scenario file (YAML or JSON): what the cloud holds beyond the Terraform state.

Format (a mapping; every key optional, unknown keys refused; see docs/cloud.md for the worked
example)::

    step_seconds: 60          # virtual seconds per timeline step of a version update
    policy_seconds: 5         # virtual seconds a deploy-policy update takes
    versions: ["1.29", "1.30"]  # versions an Update may ask for (any when absent)
    clouds:
      b1gcloud:
        folders: [b1gfolder]
        quotas:
          compute.instanceCores.count: {limit: 32, usage: 20}   # limit/usage may be null
    clusters:
      catq...: {folder_id: b1gfolder, master_version: "1.30", status: RUNNING}
    node_groups:              # keyed by id, name or Terraform address
      workers: {nodes: 5, status: RUNNING, version: "1.29",
                policy: {max_expansion: 2, max_unavailable: 0}}
    faults:
      - {kind: rpc_error, method: NodeGroupService.Get, code: UNAVAILABLE, times: 2}
      - {kind: deadline_after_apply}                  # Update applies, answers DEADLINE_EXCEEDED
      - {kind: operation_error, at_step: 3, code: 9, message: "drain failed"}
      - {kind: operation_in_progress, operation_id: op-9, description: master upgrade,
         polls: 2, seconds: 600, times: 1, scope: cluster}
      - {kind: stall, at_step: 1}                     # no progress after the first step
      - {kind: running_after_update, seconds: 30}     # group reads RUNNING for 30 s after Update
      - {kind: reconciling_after_done, seconds: 30}   # RECONCILING for 30 s after done
      - {kind: policy_ignored}                        # policy Update succeeds, nothing changes
      - {kind: permission_denied, method: NodeGroupService.Update}
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ngupgrade.core.errors import BadInput
from ngupgrade.core.model import DeployPolicy

FaultKind = Literal[
    "rpc_error", "permission_denied", "deadline_after_apply", "operation_error",
    "operation_in_progress", "stall", "running_after_update", "reconciling_after_done",
    "policy_ignored",
]
FAULT_KINDS: tuple[str, ...] = FaultKind.__args__  # type: ignore[attr-defined]

STATUS_CODES: tuple[str, ...] = (
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED")
"""gRPC status names; the index is the google.rpc.Code number (google/rpc/code.proto)."""


SCENARIO_KEYS: tuple[str, ...] = ("step_seconds", "policy_seconds", "versions", "clouds",
                                  "clusters", "node_groups", "faults")
CLUSTER_KEYS: tuple[str, ...] = ("folder_id", "master_version", "status")


def _check_keys(raw: Any, known: tuple[str, ...], where: str) -> None:
    """Refuse keys the fake does not read: a typo would silently change the scenario."""
    if not isinstance(raw, Mapping):
        raise BadInput(f"{where} must be a mapping, found {type(raw).__name__}")
    unknown = [str(k) for k in raw if k not in known]
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1)
        raise BadInput(f"unknown key{'s' if len(unknown) > 1 else ''} "
                       f"{', '.join(map(repr, unknown))} in {where} "
                       f"(known: {', '.join(known)})",
                       hint=f"did you mean {close[0]!r}?" if close else None)


def _finite(value: Any, where: str) -> float:
    """A finite number of seconds, quota limit or usage (``.inf``/``nan`` break the clock)."""
    try:
        number = float(value)
    except OverflowError as err:
        raise BadInput(f"expected a finite number, found an integer of {len(str(abs(value)))} "
                       "digits", path=where) from err
    if not math.isfinite(number):
        raise BadInput(f"expected a finite number, found {value!r}", path=where)
    return number


@dataclass
class Fault:
    """One scripted fault. ``times`` None means every time; ``group`` limits it to a node group.

    * ``rpc_error``: ``method`` (``Service.Method`` or ``*``) fails with ``code`` ``times`` times
      (default 1);
    * ``permission_denied``: as rpc_error with PERMISSION_DENIED, every time by default;
    * ``deadline_after_apply``: Update creates its operation, then answers DEADLINE_EXCEEDED;
    * ``operation_error``: the version update fails with google.rpc ``code`` and ``message``
      when it reaches step ``at_step`` (1-based; the step is not applied);
    * ``operation_in_progress``: operation ``operation_id`` runs on the cluster from the start,
      done after ``polls`` Get calls or ``seconds`` (whichever first); Update answers
      FAILED_PRECONDITION while it runs, and ``times`` more refusals when given (C13); it is
      listed by the node group's ListOperations, or with ``scope: cluster`` only by the
      cluster's (a master upgrade);
    * ``stall``: the version update stops after step ``at_step`` and never finishes;
    * ``running_after_update``: the group still reads RUNNING ``seconds`` after an Update;
    * ``reconciling_after_done``: the group reads RECONCILING ``seconds`` after its op is done;
    * ``policy_ignored``: a deploy-policy Update finishes fine but the policy stays (C16 A).
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

    @classmethod
    def parse(cls, raw: Mapping[str, Any], where: str = "faults") -> Fault:
        """Read one fault mapping; raises BadInput naming the bad key."""
        if not isinstance(raw, Mapping) or raw.get("kind") not in FAULT_KINDS:
            raise BadInput(f"fault kind must be one of {', '.join(FAULT_KINDS)}", path=where)
        known = set(cls.__dataclass_fields__)
        extra = set(raw) - known
        if extra:
            raise BadInput(f"unknown fault keys: {', '.join(sorted(extra))}", path=where)
        values = dict(raw)
        kind = values["kind"]
        if values.get("scope", "node_group") not in ("node_group", "cluster"):
            raise BadInput("fault scope must be node_group or cluster", path=where)
        if kind == "permission_denied":
            values.setdefault("code", "PERMISSION_DENIED")
            values.setdefault("times", None)
            values.setdefault("message", "Permission denied")
        if kind == "operation_in_progress":
            values.setdefault("times", 0)
        if kind == "operation_error":
            values.setdefault("code", 9)
            values.setdefault("message", "node group update failed")
        if kind in ("deadline_after_apply",):
            values.setdefault("method", "NodeGroupService.Update")
        return cls(**values)


@dataclass
class GroupOverride:
    """Live values of one node group that differ from the Terraform state."""

    nodes: int | None = None
    status: str | None = None
    version: str | None = None
    policy: DeployPolicy | None = None
    policy_unset: bool = False


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

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any] | None, source: str = "scenario") -> Scenario:
        """Build from parsed YAML/JSON (None, an empty file, is all defaults).

        Raises:
            BadInput: naming the file and the key: not a mapping, an unknown key (a typo such as
                ``fault:`` would silently drop every fault) or a bad value.
        """
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise BadInput(f"scenario must be a mapping of {', '.join(SCENARIO_KEYS)}, "
                           f"found {type(raw).__name__}", source=source)
        try:
            _check_keys(raw, SCENARIO_KEYS, "scenario")
            for cloud_id, cloud in (raw.get("clouds") or {}).items():
                _check_keys(cloud or {}, ("folders", "quotas"), f"clouds.{cloud_id}")
                for qid, q in ((cloud or {}).get("quotas") or {}).items():
                    _check_keys(q or {}, ("limit", "usage"), f"clouds.{cloud_id}.quotas.{qid}")
            for cid, c in (raw.get("clusters") or {}).items():
                _check_keys(c or {}, CLUSTER_KEYS, f"clusters.{cid}")
            for key, g in (raw.get("node_groups") or {}).items():
                _check_keys(g or {}, ("nodes", "status", "version", "policy"),
                            f"node_groups.{key}")
                if (g or {}).get("policy"):
                    _check_keys(g["policy"], ("max_expansion", "max_unavailable"),
                                f"node_groups.{key}.policy")
            sc = cls(
                step_seconds=_finite(raw.get("step_seconds", 60.0), "step_seconds"),
                policy_seconds=_finite(raw.get("policy_seconds", 5.0), "policy_seconds"),
                versions=[str(v) for v in raw["versions"]] if raw.get("versions") else None,
            )
            for cloud_id, cloud in (raw.get("clouds") or {}).items():
                cloud = cloud or {}
                for folder in cloud.get("folders") or ():
                    sc.folders[str(folder)] = str(cloud_id)
                table = sc.quotas.setdefault(str(cloud_id), {})
                for qid, q in (cloud.get("quotas") or {}).items():
                    q = q or {}
                    limit, usage = q.get("limit"), q.get("usage", 0)
                    where = f"clouds.{cloud_id}.quotas.{qid}"
                    table[str(qid)] = (
                        None if limit is None else _finite(limit, f"{where}.limit"),
                        None if usage is None else _finite(usage, f"{where}.usage"))
            for cid, c in (raw.get("clusters") or {}).items():
                sc.clusters[str(cid)] = {k: str(v) for k, v in (c or {}).items()}
            for key, g in (raw.get("node_groups") or {}).items():
                g = g or {}
                pol = g.get("policy")
                sc.node_groups[str(key)] = GroupOverride(
                    nodes=int(g["nodes"]) if g.get("nodes") is not None else None,
                    status=str(g["status"]).upper() if g.get("status") else None,
                    version=str(g["version"]) if g.get("version") else None,
                    policy=DeployPolicy(int(pol["max_expansion"]), int(pol["max_unavailable"]))
                    if pol else None,
                    policy_unset="policy" in g and pol is None,
                )
            for i, f in enumerate(raw.get("faults") or ()):
                sc.faults.append(Fault.parse(f, where=f"faults[{i}]"))
        except BadInput as err:
            raise BadInput(err.message, source=source, hint=err.hint) from err
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as err:
            raise BadInput(f"bad scenario value: {err}", source=source) from err
        return sc

    @classmethod
    def load(cls, path: str) -> Scenario:
        """Read a YAML (or JSON) scenario file. Raises BadInput."""
        import yaml

        from ngupgrade.adapters.files.quota_file import yaml_error_line

        try:
            with open(path, encoding="utf-8") as fh:
                raw = yaml.safe_load(fh)
        except OSError as err:
            raise BadInput(f"cannot read scenario: {err.strerror}", source=path) from err
        except RecursionError as err:  # lists nested thousands deep: no real scenario is
            raise BadInput("scenario nested too deeply", source=path) from err
        except UnicodeDecodeError as err:
            raise BadInput(f"scenario is not UTF-8 text (byte 0x{err.object[err.start]:02x} at "
                           f"offset {err.start})", source=path) from err
        except yaml.YAMLError as err:
            raise BadInput(f"scenario is not YAML: {yaml_error_line(err)}", source=path) from err
        return cls.from_mapping(raw, source=path)
