"""Events of an upgrade run: one frozen dataclass per event kind.

The displays (``ngupgrade.cli.upgrade``) dispatch on the type; the NDJSON log writes
``{"event": kind, "group": address, "at": seconds, **event.data}`` (``group`` only when the
event is about one group), plus the rendered plan or preflight for :class:`PlanReady` and
:class:`PreflightDone`, whose live objects never go into ``data``. The keys of every kind are
written down in ``docs/events.md`` and checked against a full run by ``tests/test_events.py``;
keys are added, never renamed.

``at`` (seconds since the run began, on the injected clock) is stamped by whoever emits the
event (:meth:`ngupgrade.upgrade.runbook.Runbook.emit`), so the steps build events without a
clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ngupgrade.adapters.files import journal as jr

Json = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Event:
    """The common part: ``group`` (Terraform address, "" for the whole run) and ``at``."""

    kind: ClassVar[str] = ""
    group: str = ""
    at: float = 0.0

    @property
    def data(self) -> Json:
        """The kind's own NDJSON keys (everything but ``event``, ``group`` and ``at``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("group", "at")}


Emit = Callable[[Event], None]


# -- the run as a whole (ngupgrade.app.upgrade) -----------------------------------------------

@dataclass(frozen=True, kw_only=True)
class PlanReady(Event):
    """The plans of the selected groups (``plans``: ``core.simulate.GroupPlan`` values)."""

    kind: ClassVar[str] = "plan"
    plans: tuple[Any, ...] = ()

    @property
    def data(self) -> Json:
        return {}  # the NDJSON writer renders the plans (cli/render/upgrade_plan.py)


@dataclass(frozen=True, kw_only=True)
class PreflightDone(Event):
    """The quota gate's verdict (``report``: ``core.quota.preflight.Preflight``)."""

    kind: ClassVar[str] = "preflight"
    ok: bool
    report: Any = None

    @property
    def data(self) -> Json:
        return {"ok": self.ok}  # the NDJSON writer renders the report (cli/render/quota.py)


@dataclass(frozen=True, kw_only=True)
class DrainGateDone(Event):
    """The drain check's verdict on the groups to upgrade (``upgrade --cluster`` or
    ``--kubeconfig``): ``result`` is an ``app.drain_check.DrainCheckResult`` (``ok`` after
    ``--accept`` and ``--strict``)."""

    kind: ClassVar[str] = "drain_check"
    ok: bool
    result: Any = None

    @property
    def data(self) -> Json:
        return {"ok": self.ok}  # the NDJSON writer renders the report (cli/drain_check.py)


@dataclass(frozen=True, kw_only=True)
class DryRun(Event):
    """The calls ``--apply`` would make, per group address: ``[{"method", "detail"}]``."""

    kind: ClassVar[str] = "dry_run"
    calls: dict[str, list[dict[str, str]]]


@dataclass(frozen=True, kw_only=True)
class CallsToMake(Event):
    """The same list, in an ``--apply`` run, before the first change."""

    kind: ClassVar[str] = "calls"
    calls: dict[str, list[dict[str, str]]]


@dataclass(frozen=True, kw_only=True)
class Warned(Event):
    """Something to know before the change (``code``, e.g. policy-differs-from-terraform)."""

    kind: ClassVar[str] = "warning"
    code: str
    message: str


@dataclass(frozen=True, kw_only=True)
class Note(Event):
    """A remark for people: nothing to do, preflight skipped, another operation's result."""

    kind: ClassVar[str] = "note"
    message: str


@dataclass(frozen=True, kw_only=True)
class Summary(Event):
    """The end of an ``--apply`` run: per group versions, step seconds, operation ids."""

    kind: ClassVar[str] = "summary"
    ok: bool
    groups: list[Json]
    seconds: float
    duration: str
    schedule: list[Json] | None = None
    """``--schedule advised``: per group ``{"stage", "address", "policy", "outcome",
    "exit_code", "reason"}`` (which ran, which not, and why); None otherwise (no key)."""
    virtual_clock: bool = False
    """The seconds are on a virtual clock (``Timing.virtual``: ``upgrade --time-scale``, the
    fake cloud's), not real time."""
    time_scale: float = 1.0
    """Virtual seconds per real second (``Timing.scale``; 1 on real time)."""

    @property
    def data(self) -> Json:
        out: Json = {"ok": self.ok, "groups": self.groups, "seconds": self.seconds,
                     "duration": self.duration, "virtual_clock": self.virtual_clock,
                     "time_scale": self.time_scale}
        if self.schedule is not None:
            out["schedule"] = self.schedule
        return out


@dataclass(frozen=True, kw_only=True)
class StageEvent(Event):
    """One stage of ``upgrade --schedule advised``: ``planned`` (before any change,
    also in a dry run: its groups, their policies and expected minutes, and ``why_new``),
    ``started``, ``finished`` (``ok``, ``seconds``) or ``not_run`` (``reason``).

    ``groups``: per group ``{"address", "cluster_id", "policy", "minutes"}``; ``policy`` is
    the schedule's (null for a group resumed with its journal's policy), ``minutes`` the
    advisor's upper bound (null when resumed)."""

    kind: ClassVar[str] = "stage"
    stage: int
    stages: int
    phase: str
    groups: list[Json]
    start_minutes: float | None = None
    minutes: float | None = None
    why_new: str | None = None
    ok: bool | None = None
    seconds: float | None = None
    reason: str | None = None

    @property
    def data(self) -> Json:
        out: Json = {"stage": self.stage, "stages": self.stages, "phase": self.phase,
                     "groups": self.groups}
        if self.phase == "planned":
            out.update(start_minutes=self.start_minutes, minutes=self.minutes,
                       why_new=self.why_new)
        elif self.phase == "finished":
            out.update(ok=self.ok, seconds=self.seconds)
        elif self.phase == "not_run":
            out["reason"] = self.reason
        return out


# -- one group (ngupgrade.upgrade.runbook and steps) ------------------------------------------

@dataclass(frozen=True, kw_only=True)
class GroupStarted(Event):
    """A group's turn: its id, target, version and node count now, resumed or not."""

    kind: ClassVar[str] = "group_started"
    group_id: str
    target: str
    version: str
    nodes: int
    resumed: bool
    journal: str | None


@dataclass(frozen=True, kw_only=True)
class StepStarted(Event):
    """A step sends its change. Policy steps carry ``policy`` and ``before`` (policy JSON);
    the version step ``version``, ``latest_revision``, ``before`` (a version),
    ``expected_minutes`` and ``cycles``; ``verify`` only its name."""

    kind: ClassVar[str] = "step_started"
    step: str
    policy: Json | None = None
    before: Any = None
    version: str | None = None
    latest_revision: bool = False
    expected_minutes: Json | None = None
    cycles: int | None = None

    @property
    def data(self) -> Json:
        if self.step in (jr.STEP_POLICY, jr.STEP_RESTORE):
            return {"step": self.step, "policy": self.policy, "before": self.before}
        if self.step == jr.STEP_VERSION:
            return {"step": self.step, "version": self.version,
                    "latest_revision": self.latest_revision, "before": self.before,
                    "expected_minutes": self.expected_minutes, "cycles": self.cycles}
        return {"step": self.step}


@dataclass(frozen=True, kw_only=True)
class StepSkipped(Event):
    """A step not needed, and why."""

    kind: ClassVar[str] = "step_skipped"
    step: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class OperationSeen(Event):
    """An Update answered (``update_calls``: Update requests it took) or an operation
    attached to (``attached``; ``done`` when attached on resume)."""

    kind: ClassVar[str] = "operation"
    step: str
    operation_id: str
    attached: bool
    update_calls: int | None = None
    done: bool | None = None

    @property
    def data(self) -> Json:
        out: Json = {"step": self.step, "operation_id": self.operation_id,
                     "attached": self.attached}
        if self.update_calls is not None:
            out["update_calls"] = self.update_calls
        if self.done is not None:
            out["done"] = self.done
        return out


@dataclass(frozen=True, kw_only=True)
class Progress(Event):
    """One poll of the version update: nodes on the new version (None: cannot be told) of
    ``total``, the node count, status, cycle of cycles, seconds elapsed and expected;
    ``done``: old nodes gone or updated and Ready (never above ``total``; None: cannot be
    told), ``cordoned`` and ``ready`` (Ready and schedulable) nodes now."""

    kind: ClassVar[str] = "progress"
    operation_id: str
    new_nodes: int | None
    total: int
    nodes: int
    status: str
    cycle: int
    cycles: int
    elapsed: float
    expected: Json
    done: int | None = None
    cordoned: int = 0
    ready: int = 0
    virtual_clock: bool = False
    """``elapsed`` is on a virtual clock (``Timing.virtual``), not real time."""


@dataclass(frozen=True, kw_only=True)
class NodeDrainEvent(Event):
    """One node's drain: ``phase`` ``started`` (cordoned; ``forced_stop_at``
    HH:MM UTC when the platform stops it anyway), ``pods_left`` (kube access: ``pods``
    still on it, ``blocked_by`` the PDBs refusing them), ``finished`` or ``forced`` (gone or
    back after ``seconds``, past the drain timeout when forced)."""

    kind: ClassVar[str] = "drain"
    node: str
    phase: str
    seconds: float = 0.0
    pods: list[str] | None = None
    blocked_by: list[str] | None = None
    forced_stop_at: str | None = None

    @property
    def data(self) -> Json:
        out: Json = {"node": self.node, "phase": self.phase, "seconds": self.seconds}
        if self.forced_stop_at is not None:
            out["forced_stop_at"] = self.forced_stop_at
        if self.pods is not None:
            out["pods"] = self.pods
            out["blocked_by"] = self.blocked_by or []
        return out


@dataclass(frozen=True, kw_only=True)
class NodeRemoved(Event):
    """A node gone without a drain (Azure/AKS#5340: the autoscaler deleted a new node)."""

    kind: ClassVar[str] = "node_removed"
    node: str
    instance_id: str
    new: bool


@dataclass(frozen=True, kw_only=True)
class Diagnosed(Event):
    """The watchdog stopped the wait: ``cause`` (``core.stall.CAUSES``) and what it rests on."""

    kind: ClassVar[str] = "diagnosis"
    operation_id: str
    cause: str
    message: str


@dataclass(frozen=True, kw_only=True)
class DrainSummary(Event):
    """After the version wait (however it ended): per node its drain time and whether it was
    forced; per workload the disruptions seen (None without kube access); nodes removed."""

    kind: ClassVar[str] = "drain_summary"
    nodes: list[Json]
    workloads: list[Json] | None
    removed: list[Json]


@dataclass(frozen=True, kw_only=True)
class StepFinished(Event):
    """A step done in ``seconds``; its operation, and for policy steps the policy read back."""

    kind: ClassVar[str] = "step_finished"
    step: str
    seconds: float
    operation_id: str | None = None
    policy: Json | None = None
    virtual_clock: bool = False
    """``seconds`` are on a virtual clock (``Timing.virtual``), not real time."""

    @property
    def data(self) -> Json:
        out: Json = {"step": self.step}
        if self.operation_id is not None:
            out["operation_id"] = self.operation_id
        out["seconds"] = self.seconds
        out["virtual_clock"] = self.virtual_clock
        if self.policy is not None:
            out["policy"] = self.policy
        return out


@dataclass(frozen=True, kw_only=True)
class Verdict(Event):
    """How a group ended. Three shapes: nothing to do (``note``); an operation that failed
    (``error``: code, code_name, message; ``version_unchanged``); the verify step's verdict
    (``target``, ``start_nodes``, ``problems``)."""

    kind: ClassVar[str] = "verdict"
    ok: bool
    version: str
    status: str
    nodes: int
    operation_id: str | None = None
    note: str | None = None
    error: Json | None = None
    version_unchanged: bool | None = None
    target: str | None = None
    start_nodes: int | None = None
    problems: list[str] | None = None

    @property
    def data(self) -> Json:
        if self.note is not None:
            return {"ok": self.ok, "version": self.version, "status": self.status,
                    "nodes": self.nodes, "note": self.note}
        if self.error is not None:
            return {"ok": self.ok, "operation_id": self.operation_id, "error": self.error,
                    "version": self.version, "version_unchanged": self.version_unchanged,
                    "status": self.status, "nodes": self.nodes}
        return {"ok": self.ok, "operation_id": self.operation_id, "status": self.status,
                "version": self.version, "target": self.target, "nodes": self.nodes,
                "start_nodes": self.start_nodes, "problems": list(self.problems or ())}


@dataclass(frozen=True, kw_only=True)
class Reminder(Event):
    """Keep Terraform in step (Azure/azure-cli#19902): what to write in the HCL."""

    kind: ClassVar[str] = "reminder"
    message: str


KINDS: tuple[type[Event], ...] = (
    PlanReady, PreflightDone, DrainGateDone, DryRun, CallsToMake, Warned, Note, Summary,
    StageEvent, GroupStarted, StepStarted, StepSkipped, OperationSeen, Progress, NodeDrainEvent,
    NodeRemoved, Diagnosed, DrainSummary, StepFinished, Verdict, Reminder)
"""Every event type, in the order docs/events.md lists them."""
