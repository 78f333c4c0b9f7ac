"""The runbook upgrade of one node group: prepare (read, check, plan) and run (the steps).

The sequence per group (each step journaled in :mod:`ngupgrade.adapters.files.journal`):

1. to 4. read the live group, its nodes, its cluster and its operations; refuse a group that
   is not RUNNING or has an unfinished operation (without ``--resume``) and a journal of
   another run; check the target against the master; plan; build the steps
   (:mod:`ngupgrade.upgrade.prepare`, through :meth:`Runbook.prepare`). The preflight gate
   runs in the use case (:mod:`ngupgrade.app.upgrade`) across all groups before any change;
5. to 8. the steps of :mod:`ngupgrade.upgrade.steps` (policy override, version with progress,
   verdict, restore), built once per prepared group: the dry run lists their planned calls,
   ``--apply`` runs the same objects.

Every step converges: before an Update it looks at the live group and at the journal, so a
resumed run attaches to the operation it started (found by id, or through ``ListOperations``
when the crash came between the Update and the journal write) and never sends a step's
Update twice. Time is one injected :class:`~ngupgrade.adapters.cloud.waiter.Timing`; events
go to an ``emit`` callback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ngupgrade.adapters.cloud.waiter import Timing
from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import (
    BadInput,
    CheckFailed,
    CloudApiError,
    KubeApiError,
    OperationFailed,
)
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.policy import in_force, policy_text
from ngupgrade.upgrade.context import Context, Prepared
from ngupgrade.upgrade.events import (
    Emit,
    Event,
    GroupStarted,
    Note,
    OperationSeen,
    Reminder,
    StepFinished,
    Verdict,
)
from ngupgrade.upgrade.mutation import DEFAULT_CONFLICT, ConflictPolicy, Mutation
from ngupgrade.upgrade.prepare import prepare_group
from ngupgrade.upgrade.progress import wait_with_progress
from ngupgrade.upgrade.values import GroupResult, PlannedCall, UpgradeApi, UpgradeOptions
from ngupgrade.upgrade.verdicts import stopped_verdict


class Runbook:
    """Prepares and runs groups against an :class:`UpgradeApi`, on one Timing, to one sink.

    ``journal_writer(path, text)`` replaces the atomic file write of the journal (tests).
    ``kube``: a read-only pod lister (``upgrade --kubeconfig``), or None.
    """

    def __init__(self, api: UpgradeApi, options: UpgradeOptions, *, timing: Timing,
                 emit: Emit | None = None,
                 journal_writer: Callable[[str, str], None] | None = None,
                 conflict: ConflictPolicy = DEFAULT_CONFLICT, kube: Any = None) -> None:
        self.api = api
        self.options = options
        self.timing = timing
        self._emit = emit or (lambda event: None)
        self.journal_writer = journal_writer
        self.t0 = timing.clock()
        self.judged: set[str] = set()
        """Groups whose ``verdict`` event was sent (each run ends with one)."""
        self.ctx = Context(api, options, timing, self.emit, Mutation(api, timing, conflict),
                           kube)

    def emit(self, event: Event) -> None:
        """Send one event, stamped with ``at`` = seconds since the runbook began."""
        if isinstance(event, Verdict):
            self.judged.add(event.group)
        self._emit(replace(event, at=self.timing.clock() - self.t0))

    # -- 1-4: read, check, plan ---------------------------------------------------------------

    def prepare(self, group: NodeGroup, journal_path: str | None) -> Prepared:
        """Steps 1 to 4 for one group (:func:`ngupgrade.upgrade.prepare.prepare_group`): read,
        check, plan, open its journal (``journal_path`` None: in memory, a dry run).

        Raises:
            UsageError, CheckFailed, CloudApiError: as :func:`prepare_group`.
        """
        return prepare_group(self.api, self.options, group, journal_path, timing=self.timing,
                             emit=self.emit, journal_writer=self.journal_writer)

    @staticmethod
    def planned_calls(prep: Prepared) -> list[PlannedCall]:
        """The calls an ``--apply`` run makes for this group: on resume first the wait for
        the operation it attaches to (no Update: that step's own calls are left out), then
        those of its step objects."""
        target = Runbook._attach_target(prep)
        if target is None:
            return [call for step in prep.steps for call in step.planned_calls()]
        step_name, op_id = target
        found = op_id or "the step's operation, found through ListOperations (else its Update)"
        calls = [PlannedCall("OperationService.Get + NodeGroupService.ListNodes",
                             f"attach to {found} ({step_name}), no Update: wait until done")]
        return calls + [call for step in prep.steps if step.name != step_name
                        for call in step.planned_calls()]

    @staticmethod
    def _attach_target(prep: Prepared) -> tuple[str, str | None] | None:
        """What a resumed run attaches to before its steps: (step, operation id or None when
        ``ListOperations`` must find it), or None when nothing is to be attached to.

        The first journaled step not done; else (no journal) the group's unfinished operation,
        the version step's when the group reconciles. (An unfinished operation gets this far
        only with ``--resume``: :meth:`prepare` refuses it otherwise.)
        """
        if not prep.resumed and prep.running is None:
            return None
        for name in jr.STEPS:
            rec = prep.journal.step(name)
            if rec is not None and rec.status != "done":
                return name, rec.operation_id
        if prep.running is not None:
            step = jr.STEP_VERSION if prep.live.status == "RECONCILING" else "unknown"
            return step, prep.running.id
        return None

    # -- 5-8: the changes -----------------------------------------------------------------------

    def run(self, prep: Prepared) -> GroupResult:
        """Run (or resume) the sequence for one prepared group.

        Raises:
            CheckFailed: the policy did not take (Azure/azure-cli#19902), or the verdict failed.
            OperationFailed: an operation ended in error (hashicorp/terraform#15601); the group's
                version is named.
            OperationTimeout / Stalled: the wait ended while the operation still runs.
            CloudApiError: a call failed.
        """
        addr = prep.address
        j = prep.journal
        result = GroupResult(address=addr, group_id=prep.group.id, ok=False,
                             version_before=j.start_version, version_after=prep.live.version,
                             nodes=len(prep.nodes), journal_path=j.path)
        # resumed: the size the journal recorded at the start, never the surge nodes the
        # interrupted upgrade created (the plan block's figure)
        size = j.start_nodes if prep.resumed and j.start_nodes else len(prep.nodes)
        self.emit(GroupStarted(group=addr, group_id=prep.group.id, target=self.options.target_label,
                  version=prep.live.version, nodes=size, resumed=prep.resumed,
                  journal=j.path))
        if prep.nothing_to_do:
            self.emit(Note(group=addr, message=f"nothing to do: {prep.nothing_to_do}"))
            result.ok = True
            result.note = prep.nothing_to_do
            self.emit(Verdict(group=addr, ok=True, version=prep.live.version,
                      status=prep.live.status, nodes=len(prep.nodes), note=prep.nothing_to_do))
            return result
        j.save()
        self.judged.discard(addr)
        _carry_over(j, result)
        try:
            self._attach_running(prep, result)
            for step in prep.steps:
                step.run(self.ctx, result)
        except (OperationFailed, CheckFailed) as err:
            j.finish("failed")
            if addr not in self.judged:  # the run ends with its verdict (docs/events.md)
                closing = stopped_verdict(self.api, prep, err, self.options.version)
                if closing is not None:
                    self.emit(closing)
            raise
        except (CloudApiError, KubeApiError) as err:
            # A call that failed past its retries says nothing about a cloud operation this
            # run started, which may still run: then keep the journal open for --resume, and
            # name the operation (the error's JSON ``operation_id`` too).
            if all(rec.status == "done" for rec in j.steps.values()):
                j.finish("failed")
                raise
            running = [rec.operation_id for rec in j.steps.values()
                       if rec.operation_id and rec.status != "done"]
            if running and getattr(err, "operation_id", None) is None:
                err.operation_id = running[-1]  # type: ignore[union-attr]
            which = f"operation {running[-1]}" if running else "any operation"
            err.hint = ((err.hint + "; ") if err.hint else "") + (
                f"nothing was cancelled: once the API answers again, run the same command "
                f"with --resume to attach to {which} still running")
            raise
        j.finish("done")
        result.ok = True
        result.reminders = self._reminders(prep)
        for text in result.reminders:
            self.emit(Reminder(group=addr, message=text))
        return result

    def _attach_running(self, prep: Prepared, result: GroupResult) -> None:
        """On resume: wait for the operation that runs on the group (ours, found by id or list)."""
        target = self._attach_target(prep)
        if target is None:
            return
        j = prep.journal
        step_name, op_id = target
        if op_id is None:
            op_id = self.ctx.adopt(prep, step_name)
        if op_id is None:
            return  # the step's Update never reached the cloud: the step sends it
        try:
            state = self.api.get_operation(op_id)
        except CloudApiError as err:
            if err.code != "NOT_FOUND" or j.path is None:
                raise
            # Not a transient failure to resume from (that loops between two hints): the
            # journal names an operation the cloud has forgotten.
            raise BadInput(
                f"records operation {op_id} for step {step_name}, which the cloud does not "
                "know (NOT_FOUND)", source=j.path,
                hint=f"look at the group (`ngupgrade wait --group {prep.group.id}`), then "
                     "delete the journal and run the same command with --resume: without a "
                     "journal the steps converge on the live group") from err
        if step_name in jr.STEPS:
            result.operations[step_name] = op_id  # the verdict names the operation it judged
        self.emit(OperationSeen(group=prep.address, step=step_name, operation_id=op_id,
                                attached=True, done=state.done))
        t = self.timing.clock()
        if step_name in (jr.STEP_POLICY, jr.STEP_RESTORE):
            self.ctx.wait_plain(prep, op_id)
        else:
            t = wait_with_progress(self.ctx, prep, op_id, result)  # from the operation's start
        self.ctx.confirm(prep, op_id)
        if step_name in jr.STEPS and j.step(step_name) is not None:
            # The step is done by this wait: its turn says so instead of starting it again
            # ("1.30 -> 1.30", "done in 0s"), and the summary counts the operation's time.
            j.finish_step(step_name)
            result.steps[step_name] = self.timing.clock() - t
            self.emit(StepFinished(group=prep.address, step=step_name, operation_id=op_id,
                                   seconds=result.steps[step_name],
                                   virtual_clock=self.timing.virtual))

    def _reminders(self, prep: Prepared) -> list[str]:
        """Keep Terraform in step (Azure/azure-cli#19902): the version, and a policy that differs
        from the HCL."""
        out: list[str] = []
        addr = prep.address
        live = self.api.get_node_group(prep.group.id)
        j = prep.journal
        if live.version != j.start_version or self.options.version:
            out.append(f'set version = "{live.version}" in {addr} (the state says '
                       f'{prep.group.version or "nothing"}), then `terraform plan` shows no '
                       "change for it")
        tf = j.terraform_policy
        # An unset policy in the API is the server default 3/0 (in_force), as the steps read it.
        if tf is not None and in_force(live.policy) != tf:
            out.append(f"Terraform declares deploy_policy {policy_text(tf)} for {addr} but the "
                       f"group now runs {policy_text(live.policy)}: the next `terraform apply` "
                       f"sets it back to {policy_text(tf)}; write {policy_text(live.policy)} in "
                       "the HCL to keep it, or run with --restore-policy")
        elif tf is None and j.override is not None and in_force(live.policy) == j.override:
            out.append(f"Terraform does not set deploy_policy for {addr}; the group keeps "
                       f"{policy_text(live.policy)} (write it in the HCL to make it explicit)")
        return out


def _carry_over(j: jr.Journal, result: GroupResult) -> None:
    """What a resumed run keeps from the journal for its summary: the seconds and operation
    of each step an earlier run finished, and when the first step started."""
    starts = [t for t in (jr.iso_seconds(rec.started_at) for rec in j.steps.values())
              if t is not None]
    result.since = min(starts, default=None)
    for name, rec in j.steps.items():
        seconds = rec.seconds() if rec.status == "done" else None
        if seconds is not None:
            result.steps[name] = seconds
            result.earlier.add(name)
            if rec.operation_id:
                result.operations[name] = rec.operation_id
