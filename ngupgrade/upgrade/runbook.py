"""The runbook upgrade of one node group: checks, policy override, version update, verdict.

The sequence per group (issue 6; each step journaled in :mod:`ngupgrade.adapters.files.journal`):

1. read the live group (version, status, size, policy), its nodes, its cluster's master and
   its operations (:meth:`Runbook.prepare`);
2. refuse a group that is not RUNNING or that has an unfinished operation (attach to it with
   ``--resume`` when it is this upgrade's, else wait for it: ``ngupgrade wait``);
3. the target version against the master: a node group is never ahead of its master, and
   moves one minor version per step (reference section 3.1, ``update-kubernetes.md``);
4. plan (:func:`ngupgrade.core.simulate.plan_group`); the preflight gate runs in the use case
   (:mod:`ngupgrade.app.upgrade`) across all groups before any change;
5. with a policy override: ``Update`` with a mask of the deploy-policy paths only, wait, read
   the group back and abort before the version update when the values did not take (C16
   variant A: exactly one Update in total);
6. ``Update`` of ``version`` only (or ``version.latest_revision``), then wait with progress:
   nodes on the new version out of the total (``ListNodes``: instances that were not there at
   the start), the cycle estimate from the plan's timeline, elapsed against expected; a stall
   watchdog raises :class:`~ngupgrade.core.errors.Stalled` when nothing moves (C15); the cloud
   operation is never cancelled;
7. the verdict: operation done without error (C10), status RUNNING,
   ``version_info.current_version`` equal to the target, node count back to the start;
8. with ``restore_policy``: put back the policy Terraform declares, and verify it.

Every step converges: before an Update it looks at the live group and at the journal, so a
resumed run attaches to the operation it started (found by id, or through ``ListOperations``
when the crash came between the Update and the journal write) and never sends a step's
Update twice. Time is injected (``clock``, ``sleep``); events go to an ``emit`` callback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ngupgrade.adapters.cloud.types import (
    LiveCluster,
    LiveNode,
    LiveNodeGroup,
    OperationRef,
    OperationState,
    newest,
)
from ngupgrade.adapters.cloud.waiter import PollPolicy, wait_operation, wait_reconciled
from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import (
    CheckFailed,
    CloudApiError,
    OperationFailed,
    OperationTimeout,
    Stalled,
    UsageError,
)
from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale, NodeGroup
from ngupgrade.core.policy import in_force
from ngupgrade.core.simulate import GroupPlan, Step, plan_group
from ngupgrade.core.stall import StallWatchdog
from ngupgrade.core.units import human_seconds

DEFAULT_STALL_SECONDS = 30 * 60.0
AMBIGUOUS_CODES = frozenset({"DEADLINE_EXCEEDED", "UNAVAILABLE"})
"""gRPC codes after which a mutation may or may not have reached the cloud."""
"""No progress for this long means stalled (C15: "watchdog 30 min")."""
MIN_TIMEOUT_SECONDS = 60 * 60.0
"""The default wait is twice the plan's longest estimate, and never under an hour (C12)."""

PDB_HINT = (
    "the usual cause is a PodDisruptionBudget that allows no eviction (seeds 001, 004): "
    "`kubectl get pdb --all-namespaces` and look for ALLOWED DISRUPTIONS 0 (maxUnavailable: 0, "
    "or minAvailable equal to the replicas); allow one eviction (more replicas, or relax the "
    "PDB). Managed Kubernetes retries the eviction rather than deleting the pod, and stops a "
    "node only after its drain timeout (about 7 minutes). Also check the operation's log in "
    "the console (quota, instance errors)."
)


class UpgradeApi(Protocol):
    """What the runbook needs of the cloud (``adapters.cloud.gateway.CloudGateway``)."""

    def get_node_group(self, node_group_id: str) -> LiveNodeGroup: ...

    def list_nodes(self, node_group_id: str) -> list[LiveNode]: ...

    def get_cluster(self, cluster_id: str) -> LiveCluster: ...

    def list_operations(self, node_group_id: str) -> list[OperationState]: ...

    def get_operation(self, operation_id: str) -> OperationState: ...

    def update_node_group(self, node_group_id: str, *, policy: DeployPolicy | None = None,
                          version: str | None = None, latest_revision: bool = False,
                          current: LiveNodeGroup | None = None) -> OperationRef: ...


# -- events ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Event:
    """One thing that happened, for the progress display and the NDJSON log.

    ``kind``: ``group_started``, ``step_started``, ``step_finished``, ``step_skipped``,
    ``operation`` (an Update answered, or an operation attached), ``progress``, ``note``,
    ``reminder`` (keep Terraform in step), ``verdict``. ``group`` is the Terraform address;
    ``at`` the seconds since the run began (injected clock); ``data`` the kind's fields.
    """

    kind: str
    group: str
    at: float
    data: dict[str, Any] = field(default_factory=dict)


Emit = Callable[[Event], None]


# -- pure rules ------------------------------------------------------------------------------

def parse_version(text: str) -> tuple[int, int]:
    """``"1.30"`` (or ``"1.30.2"``) as ``(1, 30)``. Raises UsageError for anything else."""
    parts = text.strip().split(".")
    try:
        if len(parts) < 2:
            raise ValueError(text)
        return int(parts[0]), int(parts[1])
    except ValueError as err:
        raise UsageError(f"not a Kubernetes version: {text!r} (expected MAJOR.MINOR, e.g. 1.30)"
                         ) from err


def check_target_version(current: str, target: str, master: str, *, subject: str) -> None:
    """A node group moves one minor version per step and never ahead of its master.

    Source: reference section 3.1 (``update-kubernetes.md``: "first update the cluster and
    then its node group"; one minor version per step).

    Raises:
        CheckFailed: target ahead of the master, a downgrade, or more than one minor step.
        UsageError: a version string that is not MAJOR.MINOR.
    """
    cur, tgt = parse_version(current), parse_version(target)
    if master:
        mst = parse_version(master)
        if tgt > mst:
            raise CheckFailed(
                f"{subject}: version {target} is ahead of the master {master}; a node group "
                "is never ahead of its master",
                hint=f"upgrade the cluster's master to {target} first, then the node groups")
    if tgt < cur:
        raise CheckFailed(f"{subject}: version {target} is older than the current {current}; "
                          "downgrades are not possible")
    if tgt[0] != cur[0] or tgt[1] - cur[1] > 1:
        step = f"{cur[0]}.{cur[1] + 1}"
        raise CheckFailed(
            f"{subject}: {current} -> {target} skips minor versions; one minor version per step",
            hint=f"upgrade to {step} first, then on")


def policy_text(policy: DeployPolicy | None) -> str:
    """``2/1`` (max_expansion/max_unavailable), or ``unset``."""
    return "unset" if policy is None else f"{policy.max_expansion}/{policy.max_unavailable}"


def timeline_position(steps: Sequence[Step], new_nodes: int, group_size: int,
                      start: int = 0) -> int:
    """The index of the plan step that best matches what the cloud shows (0 when no steps).

    The step whose (nodes on the new version, group size) is nearest to the reading, the
    earliest one at or after ``start`` on a tie: progress only moves forward.
    """
    if not steps:
        return 0
    best, best_distance = start, None
    for i in range(min(start, len(steps) - 1), len(steps)):
        step = steps[i]
        distance = abs(step.new_nodes - new_nodes) + abs(step.group_size - group_size)
        if best_distance is None or distance < best_distance:
            best, best_distance = i, distance
    return best


def cycle_estimate(steps: Sequence[Step], new_nodes: int, group_size: int,
                   start: int = 0) -> tuple[int, int]:
    """``(step index, cycle)``: where in the plan's timeline the upgrade is (cycle 1-based)."""
    if not steps:
        return 0, 1
    i = timeline_position(steps, new_nodes, group_size, start)
    return i, steps[i].wave


# -- values ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class UpgradeOptions:
    """What the user asked for (issue 6 command line), in seconds where it is a duration.

    ``version`` or ``latest_revision``; ``max_expansion`` / ``max_unavailable`` override the
    policy for the upgrade; ``timeout`` None means twice the plan's longest estimate, at least
    an hour; ``stall_after`` 0 turns the watchdog off.
    """

    version: str | None = None
    latest_revision: bool = False
    max_expansion: int | None = None
    max_unavailable: int | None = None
    restore_policy: bool = False
    timeout: float | None = None
    stall_after: float = DEFAULT_STALL_SECONDS
    resume: bool = False
    minutes_per_cycle: float = 6.0

    @property
    def target_label(self) -> str:
        """The version, or ``latest revision``."""
        return self.version or "latest revision"


@dataclass
class Prepared:
    """One group, read and checked, with its plan and its journal (not yet saved)."""

    group: NodeGroup
    live: LiveNodeGroup
    nodes: list[LiveNode]
    cluster: LiveCluster
    running: OperationState | None
    plan: GroupPlan
    override: DeployPolicy | None
    """The policy to set before the version update; None when no change is needed."""
    terraform_policy: DeployPolicy | None
    journal: jr.Journal
    resumed: bool
    nothing_to_do: str | None = None
    """Why the group needs no upgrade (already at the target), or None."""

    @property
    def address(self) -> str:
        """The Terraform address."""
        return str(self.group.address)

    @property
    def needs_surge(self) -> bool:
        """True when the version update is still to be sent (the preflight gate counts it)."""
        return self.nothing_to_do is None and self.journal.step(jr.STEP_VERSION) is None


@dataclass(frozen=True)
class PlannedCall:
    """One API call a dry run would make: ``method`` and what it carries."""

    method: str
    detail: str


@dataclass
class GroupResult:
    """How one group's upgrade ended."""

    address: str
    group_id: str
    ok: bool
    version_before: str
    version_after: str
    nodes: int
    steps: dict[str, float] = field(default_factory=dict)
    """Step name -> seconds it took in this run."""
    operations: dict[str, str] = field(default_factory=dict)
    """Step name -> operation id."""
    note: str | None = None
    reminders: list[str] = field(default_factory=list)
    journal_path: str | None = None


# -- the runbook -----------------------------------------------------------------------------

class Runbook:
    """Runs the sequence against an :class:`UpgradeApi` with injected time and an event sink."""

    def __init__(
        self,
        api: UpgradeApi,
        options: UpgradeOptions,
        *,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        emit: Emit | None = None,
        poll: PollPolicy | None = None,
        journal_writer: Callable[[str, str], None] | None = None,
    ) -> None:
        self.api = api
        self.options = options
        self.clock = clock
        self.sleep = sleep
        self._emit = emit or (lambda event: None)
        self.poll = poll or PollPolicy()
        self.journal_writer = journal_writer
        self.t0 = clock()

    def emit(self, kind: str, group: str, **data: Any) -> None:
        """Send one event (``at`` = seconds since the runbook began)."""
        self._emit(Event(kind, group, self.clock() - self.t0, data))

    # -- 1-4: read, check, plan ---------------------------------------------------------------

    def prepare(self, group: NodeGroup, journal_path: str | None) -> Prepared:
        """Read the live group, check it may be upgraded, plan it, open its journal.

        ``journal_path`` None keeps the journal in memory (dry run).

        Raises:
            UsageError: an unfinished journal without ``--resume``; a bad version string.
            CheckFailed: not RUNNING, an unfinished operation (without ``--resume``), target
                ahead of the master or more than one minor step, an invalid policy.
            CloudApiError: a read failed.
        """
        opts = self.options
        subject = f"{group.address} ({group.id})"
        if not group.id:
            raise UsageError(f"{group.address}: the state has no id for this node group")
        live = self.api.get_node_group(group.id)
        nodes = self.api.list_nodes(group.id)
        cluster = self.api.get_cluster(live.cluster_id or group.cluster_id)
        ops = self.api.list_operations(group.id)
        unfinished = [op for op in ops if not op.done]
        running = newest(unfinished)

        existing = jr.load(journal_path) if journal_path else None
        if existing is not None and existing.outcome is None and not opts.resume:
            raise UsageError(
                f"{subject}: an unfinished upgrade is recorded in {journal_path}",
                hint="run the same command with --resume to continue it (it re-attaches to "
                     "the running operation), or delete the journal to start over")
        resumed = bool(opts.resume and existing is not None and existing.outcome is None)
        if resumed and existing is not None and existing.group_id != group.id:
            raise UsageError(f"{journal_path} is the journal of node group {existing.group_id}, "
                             f"not {group.id}", hint="pass the right --journal")
        if resumed and existing is not None and existing.target != opts.version:
            raise UsageError(
                f"{journal_path} records an upgrade to {existing.target or 'the latest revision'}"
                f", not {opts.version or 'the latest revision'}",
                hint="resume with the same --version, or delete the journal to start over")

        if running is not None and not opts.resume:
            raise CheckFailed(
                f"{subject}: another operation is in progress on this node group: {running.id} "
                f"({running.description or 'no description'}); nothing was changed",
                hint=f"if it is an upgrade this tool started, run the same command with "
                     f"--resume to attach to it; otherwise wait for it (`ngupgrade wait "
                     f"--operation {running.id}`) and run again")
        if running is None and live.status != "RUNNING" and not resumed:
            raise CheckFailed(f"{subject}: the node group is {live.status}, not RUNNING; "
                              "nothing was changed",
                              hint="an upgrade starts only from RUNNING; look at the group in "
                                   "the console")

        start_version = existing.start_version if resumed and existing else live.version
        nothing: str | None = None
        if opts.version is not None:
            if not resumed and live.version == opts.version and running is None:
                nothing = f"already on {opts.version}"
            else:
                check_target_version(start_version, opts.version, cluster.master_version,
                                     subject=subject)
        elif not resumed and not live.new_revision_available and running is None:
            nothing = f"no newer revision of {live.version} is available"

        plan = plan_group(group, live_size=len(nodes), live_policy=live.policy,
                          max_expansion=opts.max_expansion, max_unavailable=opts.max_unavailable,
                          minutes_per_cycle=opts.minutes_per_cycle)
        override = None
        if plan.policy.source == "override" and plan.policy.policy != live.policy:
            override = plan.policy.policy
        if resumed and existing is not None:
            journal = existing
            journal.writer = self.journal_writer
        else:
            start_nodes, start_ids = len(nodes), [n.instance_id for n in nodes]
            if running is not None:
                # Resume from the cloud's own record, mid-upgrade: the size to come back to is
                # the configured one, and which nodes are new cannot be told.
                scale = live.scale or group.scale
                start_nodes = scale.size if isinstance(scale, FixedScale) else len(nodes)
                start_ids = []
            journal = jr.Journal(
                group_id=group.id, address=str(group.address), name=group.name,
                target=opts.version, latest_revision=opts.latest_revision,
                start_version=live.version, start_nodes=start_nodes,
                start_node_ids=start_ids, start_policy=live.policy,
                terraform_policy=group.policy, override=override,
                restore_policy=opts.restore_policy, path=journal_path,
                writer=self.journal_writer)
        if resumed and journal.override is not None:
            override = journal.override
        return Prepared(group=group, live=live, nodes=nodes, cluster=cluster, running=running,
                        plan=plan, override=override, terraform_policy=group.policy,
                        journal=journal, resumed=resumed, nothing_to_do=nothing)

    def restore_target(self, prep: Prepared) -> DeployPolicy | None:
        """The policy ``--restore-policy`` puts back: Terraform's, else the one before."""
        j = prep.journal
        return j.terraform_policy or j.start_policy

    def planned_calls(self, prep: Prepared) -> list[PlannedCall]:
        """The calls an ``--apply`` run would make for this group (the dry run prints them)."""
        gid = prep.group.id
        if prep.nothing_to_do:
            return []
        calls: list[PlannedCall] = []
        if prep.override is not None:
            calls += [
                PlannedCall("NodeGroupService.Update",
                            f"{gid} update_mask=[deploy_policy.max_expansion, "
                            f"deploy_policy.max_unavailable] deploy_policy="
                            f"{policy_text(prep.override)} (now {policy_text(prep.live.policy)})"),
                PlannedCall("OperationService.Get", "until done, then NodeGroupService.Get to "
                            f"verify {policy_text(prep.override)} took"),
            ]
        spec = (f"version={self.options.version}" if self.options.version
                else "version.latest_revision=true")
        d = prep.plan.duration
        calls += [
            PlannedCall("NodeGroupService.Update", f"{gid} update_mask=[version] {spec}"),
            PlannedCall("OperationService.Get + NodeGroupService.ListNodes",
                        f"until done (expected {d.min_minutes:g}..{d.max_minutes:g} min, "
                        f"{prep.plan.cycles.max} cycles), then NodeGroupService.Get for the "
                        "verdict"),
        ]
        restore = self.restore_target(prep)
        in_force = prep.override or prep.live.policy  # the policy when the restore step comes
        # The same rule as _restore: an Update only when the target differs from what is set.
        if self.options.restore_policy and restore is not None and restore != in_force:
            calls += [
                PlannedCall("NodeGroupService.Update",
                            f"{gid} update_mask=[deploy_policy.*] deploy_policy="
                            f"{policy_text(restore)} (restore what Terraform declares)"),
                PlannedCall("OperationService.Get", f"until done, then verify "
                            f"{policy_text(restore)}"),
            ]
        return calls

    # -- 5-8: the changes -----------------------------------------------------------------------

    def run(self, prep: Prepared) -> GroupResult:
        """Run (or resume) the sequence for one prepared group.

        Raises:
            CheckFailed: the policy did not take (C16 A), or the verdict failed.
            OperationFailed: an operation ended in error (C10); the group's version is named.
            OperationTimeout / Stalled: the wait ended while the operation still runs.
            CloudApiError: a call failed.
        """
        addr = prep.address
        j = prep.journal
        result = GroupResult(address=addr, group_id=prep.group.id, ok=False,
                             version_before=j.start_version, version_after=prep.live.version,
                             nodes=len(prep.nodes), journal_path=j.path)
        self.emit("group_started", addr, group_id=prep.group.id, target=self.options.target_label,
                  version=prep.live.version, nodes=len(prep.nodes), resumed=prep.resumed,
                  journal=j.path)
        if prep.nothing_to_do:
            self.emit("note", addr, message=f"nothing to do: {prep.nothing_to_do}")
            result.ok = True
            result.note = prep.nothing_to_do
            self.emit("verdict", addr, ok=True, version=prep.live.version,
                      status=prep.live.status, nodes=len(prep.nodes), note=prep.nothing_to_do)
            return result
        j.save()
        try:
            self._attach_running(prep, result)
            if prep.override is not None:
                self._policy_step(prep, jr.STEP_POLICY, prep.override, result)
            self._version_step(prep, result)
            final = self._verify(prep, result)
            if self.options.restore_policy:
                self._restore(prep, result)
        except (OperationFailed, CheckFailed):
            j.finish("failed")
            raise
        except CloudApiError as err:
            # A call that failed past its retries says nothing about a cloud operation this
            # run started, which may still run: then keep the journal open for --resume.
            if all(rec.status == "done" for rec in j.steps.values()):
                j.finish("failed")
                raise
            err.hint = ((err.hint + "; ") if err.hint else "") + (
                "nothing was cancelled: once the API answers again, run the same command "
                "with --resume to attach to any operation still running")
            raise
        j.finish("done")
        result.ok = True
        result.version_after = final.version
        result.reminders = self._reminders(prep)
        for text in result.reminders:
            self.emit("reminder", addr, message=text)
        return result

    def _attach_running(self, prep: Prepared, result: GroupResult) -> None:
        """On resume: wait for the operation that runs on the group (ours, found by id or list)."""
        if not prep.resumed and not self.options.resume:
            return
        j = prep.journal
        op_id: str | None = None
        step_name = "unknown"
        for name in jr.STEPS:
            rec = j.step(name)
            if rec is None or rec.status == "done":
                continue
            op_id = rec.operation_id or self._started_by(prep, rec.known_operations)
            step_name = name
            if op_id is not None and rec.operation_id is None:
                j.set_operation(name, op_id)
            break
        if op_id is None and prep.running is not None:
            op_id = prep.running.id  # no journal: the cloud's own record (ListOperations)
            step_name = jr.STEP_VERSION if prep.live.status == "RECONCILING" else "unknown"
        if op_id is None:
            return
        state = self.api.get_operation(op_id)
        if step_name in jr.STEPS:
            result.operations[step_name] = op_id  # the verdict names the operation it judged
        self.emit("operation", prep.address, step=step_name, operation_id=op_id, attached=True,
                  done=state.done)
        if step_name in (jr.STEP_POLICY, jr.STEP_RESTORE):
            self._wait_plain(prep, op_id)
        else:
            self._wait_progress(prep, op_id, result)

    def _started_by(self, prep: Prepared, known: list[str]) -> str | None:
        """The operation a step's Update started, when its id never reached the journal."""
        fresh = newest(op for op in self.api.list_operations(prep.group.id) if op.id not in known)
        return fresh.id if fresh is not None else None

    def _send(self, prep: Prepared, step: str, *, policy: DeployPolicy | None = None,
              version: str | None = None, latest_revision: bool = False) -> str:
        """Journal the step as started, send its one Update, journal the operation id."""
        j = prep.journal
        rec = j.step(step)
        if rec is not None and rec.status != "done":
            op_id = rec.operation_id or self._started_by(prep, rec.known_operations)
            if op_id is not None:
                if rec.operation_id is None:
                    j.set_operation(step, op_id)
                self.emit("operation", prep.address, step=step, operation_id=op_id,
                          attached=True)
                return op_id
        known = [op.id for op in self.api.list_operations(prep.group.id)]
        j.start_step(step, known)
        current = self.api.get_node_group(prep.group.id) if policy is not None else None
        try:
            ref = self.api.update_node_group(prep.group.id, policy=policy, version=version,
                                             latest_revision=latest_revision, current=current)
        except CloudApiError as err:
            if err.code in AMBIGUOUS_CODES:
                # The Update may have landed and its operation not be listed yet: keep the
                # step as started (with the operations known before it), so --resume finds
                # a late operation instead of sending a second Update.
                raise
            # A definite refusal: the step never began, and a rerun starts it again.
            del j.steps[step]
            j.save()
            if err.code == "FAILED_PRECONDITION" and err.hint is None:
                again = CloudApiError(
                    f"{prep.address}: {err.message}; nothing was changed by this step",
                    hint="another operation holds the cluster or the group (its id is in the "
                         "message): wait for it (`ngupgrade wait --operation ID`), then run "
                         "the same command again")
                again.code, again.request_id = err.code, err.request_id
                raise again from err
            raise
        j.set_operation(step, ref.id)
        self.emit("operation", prep.address, step=step, operation_id=ref.id,
                  attached=ref.attached, update_calls=ref.update_calls)
        return ref.id

    def _timeout(self, prep: Prepared) -> float:
        if self.options.timeout is not None:
            return self.options.timeout
        return max(MIN_TIMEOUT_SECONDS, 2 * prep.plan.duration.max_minutes * 60)

    def _wait_plain(self, prep: Prepared, op_id: str) -> None:
        wait_operation(self.api, op_id, timeout=self._timeout(prep), policy=self.poll,
                       clock=self.clock, sleep=self.sleep)

    def _policy_step(self, prep: Prepared, step: str, want: DeployPolicy,
                     result: GroupResult) -> None:
        """Set the deploy policy alone (masked), wait, verify it took (C16)."""
        j = prep.journal
        addr = prep.address
        if j.is_done(step):
            self.emit("step_skipped", addr, step=step, reason="done before")
            return
        t = self.clock()
        rec = j.step(step)
        live = self.api.get_node_group(prep.group.id)
        # An API answer without deploy_policy means the server default 3/0 (seed 000), as
        # set-policy reads it too.
        if in_force(live.policy) == want and (rec is None or rec.operation_id is None):
            j.finish_step(step)
            self.emit("step_skipped", addr, step=step,
                      reason=f"deploy policy already {policy_text(want)}")
            return
        self.emit("step_started", addr, step=step, policy=jr.policy_json(want),
                  before=jr.policy_json(live.policy))
        op_id = self._send(prep, step, policy=want)
        result.operations[step] = op_id
        self._wait_plain(prep, op_id)
        have = in_force(self.api.get_node_group(prep.group.id).policy)
        if have != want:
            what = "restored" if step == jr.STEP_RESTORE else "applied"
            after = ("the version was not touched" if step == jr.STEP_POLICY
                     else "the upgrade itself is done")
            raise CheckFailed(
                f"{addr}: deploy policy not {what} (have {policy_text(have)}, want "
                f"{policy_text(want)}) after operation {op_id}; {after}",
                hint="look at the group in the console; set the policy again, then run again")
        j.finish_step(step)
        result.steps[step] = self.clock() - t
        self.emit("step_finished", addr, step=step, operation_id=op_id,
                  seconds=result.steps[step], policy=jr.policy_json(have))

    def _version_step(self, prep: Prepared, result: GroupResult) -> None:
        j = prep.journal
        addr = prep.address
        step = jr.STEP_VERSION
        if j.is_done(step):
            self.emit("step_skipped", addr, step=step, reason="done before")
            return
        rec = j.step(step)
        live = self.api.get_node_group(prep.group.id)
        target = self.options.version
        if rec is None and ((target is not None and live.version == target)
                            or (target is None and j.steps.get(jr.STEP_POLICY) is None
                                and not live.new_revision_available and prep.resumed)):
            j.finish_step(step)
            self.emit("step_skipped", addr, step=step, reason=f"already on {live.version}")
            return
        t = self.clock()
        self.emit("step_started", addr, step=step, version=target,
                  latest_revision=self.options.latest_revision, before=live.version,
                  expected_minutes={"min": prep.plan.duration.min_minutes,
                                    "max": prep.plan.duration.max_minutes},
                  cycles=prep.plan.cycles.max)
        op_id = self._send(prep, step, version=target,
                           latest_revision=self.options.latest_revision)
        result.operations[step] = op_id
        self._wait_progress(prep, op_id, result)
        j.finish_step(step)
        result.steps[step] = self.clock() - t
        self.emit("step_finished", addr, step=step, operation_id=op_id,
                  seconds=result.steps[step])

    def _wait_progress(self, prep: Prepared, op_id: str, result: GroupResult) -> None:
        """Wait for a version operation with progress events and the stall watchdog."""
        addr = prep.address
        gid = prep.group.id
        j = prep.journal
        start_ids = set(j.start_node_ids)
        total = j.start_nodes
        expected = (prep.plan.duration.min_minutes * 60, prep.plan.duration.max_minutes * 60)
        started = self.clock()
        watchdog = StallWatchdog(self.options.stall_after, started)
        last: dict[str, Any] = {}
        position = [0]
        drained: set[str] = set()

        def count_new(nodes: Sequence[LiveNode]) -> int | None:
            """Nodes on the new version: instances created since the start, and old ones that
            were cordoned for a drain and are schedulable again (updated in place)."""
            if not start_ids:
                return None
            new = 0
            for n in nodes:
                cordoned = getattr(n, "unschedulable", False)
                if cordoned:
                    drained.add(n.instance_id)
                if n.instance_id not in start_ids or (n.instance_id in drained and not cordoned):
                    new += 1
            return new

        def on_poll(state: OperationState, waited: float) -> None:
            if state.done:
                return
            group = self.api.get_node_group(gid)
            nodes = self.api.list_nodes(gid)
            new = count_new(nodes)
            cordoned = sum(1 for n in nodes if getattr(n, "unschedulable", False))
            now = self.clock()
            last.update(new_nodes=new, nodes=len(nodes), status=group.status)
            if new is not None and (new or len(nodes) != total):
                position[0], cycle = cycle_estimate(prep.plan.timeline, new, len(nodes),
                                                    position[0])
            else:
                cycle = prep.plan.timeline[position[0]].wave if prep.plan.timeline else 1
            self.emit("progress", addr, operation_id=op_id, new_nodes=new, total=total,
                      nodes=len(nodes), status=group.status, cycle=cycle,
                      cycles=prep.plan.cycles.max, elapsed=now - started,
                      expected={"min": expected[0], "max": expected[1]})
            watchdog.observe((new, group.status, len(nodes), cordoned), now)
            if watchdog.stalled(now):
                shown = "?" if new is None else str(new)
                raise Stalled(
                    f"{addr}: stalled: no progress for {human_seconds(watchdog.still_for(now))} "
                    f"({shown}/{total} nodes on the new version, {len(nodes)} nodes, "
                    f"{group.status}); drain likely blocked by a PodDisruptionBudget. "
                    f"Operation {op_id} still runs and was NOT cancelled",
                    operation_id=op_id,
                    hint=f"{PDB_HINT} Then attach again: the same command with --resume")

        try:
            wait_operation(self.api, op_id, timeout=self._timeout(prep), policy=self.poll,
                           clock=self.clock, sleep=self.sleep, on_poll=on_poll)
        except OperationFailed as err:
            live = self.api.get_node_group(gid)
            nodes = self.api.list_nodes(gid)
            new = count_new(nodes)
            unchanged = live.version == j.start_version
            state = (f"the node group's version is unchanged: {live.version} "
                     "(version_info.current_version)" if unchanged
                     else f"the node group reports version {live.version}")
            replaced = "" if new is None else f"; {new} of {total} nodes had been replaced"
            policy_note = ""
            if prep.override is not None:
                policy_note = (f"; the deploy policy is still {policy_text(prep.override)} "
                               f"(Terraform declares {policy_text(j.terraform_policy)})")
            self.emit("verdict", addr, ok=False, operation_id=err.operation_id,
                      error={"code": err.code, "code_name": err.code_name,
                             "message": err.error_message},
                      version=live.version, version_unchanged=unchanged, status=live.status,
                      nodes=len(nodes))
            raise OperationFailed(
                err.operation_id, err.code, err.code_name,
                f"{err.error_message}; {state}{replaced}{policy_note}",
                hint="nothing was rolled back; fix the cause (see the operation's message), "
                     "then run the same command again") from err
        except OperationTimeout as err:
            if isinstance(err, Stalled):
                raise
            raise OperationTimeout(
                f"{addr}: {err.message}; last seen "
                f"{last.get('new_nodes', '?')}/{total} nodes on the new version",
                operation_id=op_id,
                hint="nothing was cancelled; the operation still runs. Attach again with the "
                     "same command and --resume (add a longer --timeout)") from err

    def _verify(self, prep: Prepared, result: GroupResult) -> LiveNodeGroup:
        """The verdict: done without error, RUNNING, on the target, back to the starting size."""
        j = prep.journal
        addr = prep.address
        gid = prep.group.id
        step = jr.STEP_VERIFY
        t = self.clock()
        self.emit("step_started", addr, step=step)
        rec = j.step(jr.STEP_VERSION)
        op_id = result.operations.get(jr.STEP_VERSION) or (rec.operation_id if rec else None)
        if op_id:
            group = wait_reconciled(self.api, gid, op_id, timeout=self._timeout(prep),
                                    policy=self.poll, clock=self.clock, sleep=self.sleep)
        else:
            group = self.api.get_node_group(gid)
        nodes = self.api.list_nodes(gid)
        scale = prep.group.scale
        for _ in range(self.poll.settle_polls):
            if self._size_ok(len(nodes), j.start_nodes, scale):
                break
            self.sleep(self.poll.settle_interval)
            nodes = self.api.list_nodes(gid)
        problems = []
        if group.status != "RUNNING":
            problems.append(f"status {group.status}, not RUNNING")
        target = self.options.version
        if target is not None and group.version != target:
            problems.append(f"version {group.version}, not {target} "
                            "(version_info.current_version)")
        if target is None and group.new_revision_available:
            problems.append(f"a newer revision of {group.version} is still available")
        if not self._size_ok(len(nodes), j.start_nodes, scale):
            problems.append(f"{len(nodes)} nodes, not back to the starting {j.start_nodes}")
        ok = not problems
        self.emit("verdict", addr, ok=ok, operation_id=op_id, status=group.status,
                  version=group.version, target=target, nodes=len(nodes),
                  start_nodes=j.start_nodes, problems=problems)
        if not ok:
            raise CheckFailed(f"{addr}: the upgrade did not verify: {'; '.join(problems)}",
                              hint="look at the group in the console; nothing was rolled back")
        j.finish_step(step)
        result.steps[step] = self.clock() - t
        result.nodes = len(nodes)
        self.emit("step_finished", addr, step=step, seconds=result.steps[step])
        return group

    @staticmethod
    def _size_ok(count: int, start: int, scale: FixedScale | AutoScale) -> bool:
        if isinstance(scale, AutoScale):
            return count == start or scale.min <= count <= scale.max
        return count == start

    def _restore(self, prep: Prepared, result: GroupResult) -> None:
        want = self.restore_target(prep)
        live = self.api.get_node_group(prep.group.id)
        if want is None:
            self.emit("step_skipped", prep.address, step=jr.STEP_RESTORE,
                      reason="Terraform declares no deploy_policy and the group had none")
            prep.journal.finish_step(jr.STEP_RESTORE)
            return
        if live.policy == want and prep.journal.step(jr.STEP_RESTORE) is None:
            self.emit("step_skipped", prep.address, step=jr.STEP_RESTORE,
                      reason=f"deploy policy already {policy_text(want)}")
            prep.journal.finish_step(jr.STEP_RESTORE)
            return
        self._policy_step(prep, jr.STEP_RESTORE, want, result)

    def _reminders(self, prep: Prepared) -> list[str]:
        """Keep Terraform in step (C16): the version, and a policy that differs from the HCL."""
        out: list[str] = []
        addr = prep.address
        live = self.api.get_node_group(prep.group.id)
        j = prep.journal
        if live.version != j.start_version or self.options.version:
            out.append(f'set version = "{live.version}" in {addr} (the state says '
                       f'{prep.group.version or "nothing"}), then `terraform plan` shows no '
                       "change for it")
        tf = j.terraform_policy
        if tf is not None and live.policy != tf:
            out.append(f"Terraform declares deploy_policy {policy_text(tf)} for {addr} but the "
                       f"group now runs {policy_text(live.policy)}: the next `terraform apply` "
                       f"sets it back to {policy_text(tf)}; write {policy_text(live.policy)} in "
                       "the HCL to keep it, or run with --restore-policy")
        elif tf is None and j.override is not None and live.policy == j.override:
            out.append(f"Terraform does not set deploy_policy for {addr}; the group keeps "
                       f"{policy_text(live.policy)} (write it in the HCL to make it explicit)")
        return out

