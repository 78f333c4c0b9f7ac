"""What a step of one group's upgrade works on and runs in: the prepared group
(:class:`Prepared`), the :class:`Step` Protocol, and the :class:`Context` a step runs in.

The three refer to each other (a prepared group lists its steps, a step runs in a context, the
context acts on a prepared group), so they live in one module, below the step kinds
(:mod:`ngupgrade.upgrade.steps`), the wait with progress (:mod:`ngupgrade.upgrade.progress`)
and the runbook, which all import them; this module imports none of those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ngupgrade.adapters.cloud.types import (
    LiveCluster,
    LiveNode,
    LiveNodeGroup,
    OperationState,
)
from ngupgrade.adapters.cloud.waiter import Timing, wait_reconciled
from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import CloudApiError, OutcomeUnknown
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.simulate import GroupPlan
from ngupgrade.upgrade import adopt
from ngupgrade.upgrade.events import Emit, Note, OperationSeen
from ngupgrade.upgrade.mutation import Change, Mutation
from ngupgrade.upgrade.values import (
    MIN_TIMEOUT_SECONDS,
    GroupResult,
    PlannedCall,
    UpgradeApi,
    UpgradeOptions,
)


@dataclass
class Prepared:
    """One group, read and checked, with its plan, its journal (not yet saved) and its steps.

    ``steps`` are the step objects :meth:`Runbook.run` runs; the dry run lists their planned
    calls, so what it shows and what ``--apply`` sends come from one decision per step.
    """

    group: NodeGroup
    live: LiveNodeGroup
    nodes: list[LiveNode]
    cluster: LiveCluster
    running: OperationState | None
    plan: GroupPlan
    override: DeployPolicy | None
    """The policy the user asked the upgrade to run with (--max-expansion/--max-unavailable),
    or None; whether an Update is needed for it is the policy step's decision."""
    terraform_policy: DeployPolicy | None
    journal: jr.Journal
    resumed: bool
    nothing_to_do: str | None = None
    """Why the group needs no upgrade (already at the target), or None."""
    restore_only: bool = False
    """Already at the target, but the group runs a deploy policy other than the one Terraform
    declares and ``--restore-policy`` was given: only the verdict and the restore run. Decided
    from the cloud and the state, so it holds without a journal."""
    tight_quota: str | None = None
    """The preflight's quota with the least room after the surge, as text (the watchdog
    names it when a surge node is not created)."""
    steps: list[Step] = field(default_factory=list)
    pod_watch: Any = None
    """The version step's pod watch (``upgrade.watch.PodWatch``, with kube access), kept for
    the verdict's look at the evicted pods still Pending; None without kube access."""

    @property
    def address(self) -> str:
        """The Terraform address."""
        return str(self.group.address)

    @property
    def needs_surge(self) -> bool:
        """True when the version update is still to be sent (the preflight gate counts it)."""
        return (self.nothing_to_do is None and not self.restore_only
                and self.journal.step(jr.STEP_VERSION) is None)


class Step(Protocol):
    """One step of the sequence: its journal name, its planned calls, its run."""

    name: str

    def planned_calls(self) -> list[PlannedCall]:
        """The calls ``--apply`` makes for this step; empty when it is not needed."""
        ...

    def run(self, ctx: Context, result: GroupResult) -> None:
        """Run (or resume, or skip) the step; record its seconds and operation in ``result``."""
        ...


@dataclass
class Context:
    """What a step needs while it runs: the cloud, the options, time and the event sink.

    ``emit(event)`` sends one event (the runbook stamps its ``at``). ``kube``: a read-only
    lister on the cluster (``upgrade --kubeconfig``; ``ngupgrade.upgrade.pods.PodLister``) or
    None: the wait then sees the pods of draining nodes.
    """

    api: UpgradeApi
    options: UpgradeOptions
    timing: Timing
    emit: Emit
    mutation: Mutation
    kube: Any = None
    provisional: dict[str, str] = field(default_factory=dict)
    """Operation id -> step: adopted while running, not yet confirmed as the step's."""

    def timeout(self, prep: Prepared) -> float:
        """``--timeout``, else twice the plan's longest estimate, at least an hour
        (terraform-google-modules/terraform-google-kubernetes-engine#939)."""
        if self.options.timeout is not None:
            return self.options.timeout
        return max(MIN_TIMEOUT_SECONDS, 2 * prep.plan.duration.max_minutes * 60)

    def wait_plain(self, prep: Prepared, op_id: str) -> LiveNodeGroup:
        """Wait for a policy operation (no progress to show), then for the group to read
        RUNNING again: the group as then read. A step is never "done" while the group still
        reconciles.

        Raises:
            OperationFailed: the operation failed.
            GroupNotRunning: it succeeded but the group is STOPPED, STOPPING or DELETING.
            OperationTimeout: still running, or still not RUNNING after the settle polls.
        """
        t = self.timing
        return wait_reconciled(self.api, prep.group.id, op_id, timeout=self.timeout(prep),
                               policy=t.poll, clock=t.clock, sleep=t.sleep,
                               again="run the same command again with --resume")

    def adopt(self, prep: Prepared, step: str) -> str | None:
        """The operation ``step``'s Update started, when its id never reached the journal
        (:mod:`ngupgrade.upgrade.adopt`): journaled at once when it is known to be the step's;
        a running one only once :meth:`confirm` has seen what it left.

        Raises:
            ForeignOperation: every operation new since the step's snapshot is someone else's.
        """
        found = adopt.match(self.api.list_operations(prep.group.id), prep.journal, step,
                            prep.group.id)
        if found is None:
            return None
        if found.provisional:
            self.provisional[found.operation_id] = step
        else:
            prep.journal.set_operation(step, found.operation_id)
        return found.operation_id

    def confirm(self, prep: Prepared, op_id: str) -> None:
        """After the wait for ``op_id``: when it was adopted provisionally, did it make its
        step's change? Then it is journaled as the step's.

        Raises:
            ForeignOperation: it did not (someone else's operation, named).
        """
        step = self.provisional.pop(op_id, None)
        if step is None:
            return
        adopt.confirm(self.api.get_operation(op_id), prep.journal, step)
        prep.journal.set_operation(step, op_id)

    def send(self, prep: Prepared, step: str, change: Change, *,
             current: LiveNodeGroup) -> str:
        """The step's one Update, journaled: the operation id to wait for.

        A step started before (a resumed run) attaches to its operation, by id or found
        through ``ListOperations``, and sends nothing. Otherwise :class:`Mutation` sends it;
        the step is journaled as started (with the operations already there) before each
        Update call. A definite refusal removes the step again (a rerun starts it); an
        unknown outcome keeps it started, so ``--resume`` looks for its operation first.
        """
        j = prep.journal
        rec = j.step(step)
        if rec is not None and rec.status != "done":
            op_id = rec.operation_id or self.adopt(prep, step)
            if op_id is not None:
                self.emit(OperationSeen(group=prep.address, step=step, operation_id=op_id,
                          attached=True))
                return op_id
        try:
            sent = self.mutation.send(prep.group.id, change, current=current,
                                      before_send=lambda known: j.start_step(step, known))
        except OutcomeUnknown:
            raise
        except CloudApiError:
            if j.steps.pop(step, None) is not None:
                j.save()
            raise
        if sent.reached_by is not None:
            self.emit(Note(group=prep.address,
                      message=f"{change.text()} already in place after operation "
                              f"{sent.reached_by} (not started by this run): nothing sent, "
                              "attaching to it"))
        j.set_operation(step, sent.operation_id)
        self.emit(OperationSeen(group=prep.address, step=step, operation_id=sent.operation_id,
                  attached=sent.attached, update_calls=sent.update_calls))
        return sent.operation_id
