"""The steps of one group's upgrade, each deciding once whether it is needed.

A step object answers two questions with the same rule: :meth:`planned_calls` (what a dry run
lists, judged from the group as read when the run was prepared and what the steps before it
leave) and :meth:`run` (judged from the group as read at its turn). The dry run and
``--apply`` therefore cannot disagree about a step.

The steps, in order (each journaled):

* :class:`PolicyStep` ``policy_update``: the override alone (masked), wait, verify it took
  (Azure/azure-cli#19902 variant A: abort before the version when it did not);
* :class:`VersionStep` ``version_update``: ``version`` alone, wait with progress;
* :class:`VerifyStep` ``verify``: done without error, RUNNING, on the target, back to size;
* :class:`PolicyStep` ``restore_policy``: put back what Terraform declares, and verify.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ngupgrade.adapters.cloud.proto import mask_paths
from ngupgrade.adapters.cloud.types import LiveNode
from ngupgrade.adapters.cloud.waiter import wait_reconciled
from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import CheckFailed, NotVerified
from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale
from ngupgrade.core.policy import in_force, policy_text
from ngupgrade.core.stall import PendingPod
from ngupgrade.core.units import span_text
from ngupgrade.upgrade.context import Context, Prepared, Step
from ngupgrade.upgrade.events import StepFinished, StepSkipped, StepStarted, Verdict
from ngupgrade.upgrade.mutation import Change
from ngupgrade.upgrade.progress import wait_with_progress
from ngupgrade.upgrade.values import GroupResult, PlannedCall, UpgradeOptions
from ngupgrade.upgrade.watch import node_view


def done_reason(step: str, result: GroupResult) -> str:
    """Why a done step is skipped: done by this run's attach to its operation (a resumed run
    waited for it before the steps), or by an earlier run (its operation, when recorded)."""
    op_id = result.operations.get(step)
    if step in result.earlier:
        return f"done in the earlier run ({op_id})" if op_id else "done in the earlier run"
    if step in result.steps and op_id is not None:
        return f"done: attached to {op_id} above"
    return "done before"


@dataclass
class PolicyStep:
    """Set the deploy policy alone (masked), wait, verify it took (Azure/azure-cli#19902).

    ``name`` is ``policy_update`` (the override) or ``restore_policy`` (what Terraform
    declares, else the policy before). ``expected`` is the policy the group should run when
    this step's turn comes, as far as the dry run can tell (the live one, or the override).
    """

    prep: Prepared
    name: str
    want: DeployPolicy | None
    expected: DeployPolicy | None

    def _settled(self) -> str | None:
        """A reason to skip that needs no read of the group."""
        if self.prep.journal.is_done(self.name):
            return "done before"
        if self.want is None:
            return "Terraform declares no deploy_policy and the group had none"
        return None

    def skip_reason(self, have: DeployPolicy | None) -> str | None:
        """The one decision: why no Update is needed, or None when it is.

        ``have`` is the group's policy as the API shows it; None is the server default 3/0
        (:func:`ngupgrade.core.policy.in_force`, the Yandex deploy-policy page). A step whose Update
        already has an operation is never skipped: it attaches to it.
        """
        settled = self._settled()
        if settled is not None:
            return settled
        rec = self.prep.journal.step(self.name)
        if in_force(have) == self.want and (rec is None or rec.operation_id is None):
            return f"deploy policy already {policy_text(self.want)}"
        return None

    def planned_calls(self) -> list[PlannedCall]:
        if self.skip_reason(self.expected) is not None or self.want is None:
            return []
        gid = self.prep.group.id
        mask = ", ".join(mask_paths(self.expected, self.want, None, False))
        why = ("restore what Terraform declares" if self.name == jr.STEP_RESTORE
               else f"now {policy_text(self.expected)}")
        return [
            PlannedCall("NodeGroupService.Update",
                        f"{gid} update_mask=[{mask}] deploy_policy={policy_text(self.want)} "
                        f"({why})"),
            PlannedCall("OperationService.Get",
                        f"until done, then NodeGroupService.Get to verify "
                        f"{policy_text(self.want)} took"),
        ]

    def run(self, ctx: Context, result: GroupResult) -> None:
        prep, j, addr = self.prep, self.prep.journal, self.prep.address
        settled = self._settled()
        if settled == "done before":
            settled = done_reason(self.name, result)
        if settled is not None:
            if not j.is_done(self.name):
                j.finish_step(self.name)
            ctx.emit(StepSkipped(group=addr, step=self.name, reason=settled))
            return
        assert self.want is not None
        t = ctx.timing.clock()
        live = ctx.api.get_node_group(prep.group.id)
        reason = self.skip_reason(live.policy)
        if reason is not None:
            j.finish_step(self.name)
            ctx.emit(StepSkipped(group=addr, step=self.name, reason=reason))
            return
        ctx.emit(StepStarted(group=addr, step=self.name, policy=jr.policy_json(self.want),
                 before=jr.policy_json(live.policy)))
        op_id = ctx.send(prep, self.name, Change(policy=self.want), current=live)
        result.operations[self.name] = op_id
        group = ctx.wait_plain(prep, op_id)
        ctx.confirm(prep, op_id)
        have = in_force(group.policy)
        if have != self.want:
            what = "restored" if self.name == jr.STEP_RESTORE else "applied"
            after = ("the version was not touched" if self.name == jr.STEP_POLICY
                     else "the upgrade itself is done")
            raise CheckFailed(
                f"{addr}: deploy policy not {what} (have {policy_text(have)}, want "
                f"{policy_text(self.want)}) after operation {op_id}; {after}",
                hint="look at the group in the console; set the policy again, then run again")
        j.finish_step(self.name)
        result.steps[self.name] = ctx.timing.clock() - t
        ctx.emit(StepFinished(group=addr, step=self.name, operation_id=op_id,
                 seconds=result.steps[self.name], policy=jr.policy_json(have),
                 virtual_clock=ctx.timing.virtual))


@dataclass
class VersionStep:
    """Update ``version`` alone (or ``version.latest_revision``), then wait with progress."""

    prep: Prepared
    options: UpgradeOptions
    name: str = jr.STEP_VERSION

    def skip_reason(self, version: str, new_revision_available: bool) -> str | None:
        """The one decision: why no version Update is needed, or None when it is.

        Already on the target (or, for ``--latest-revision`` on a resumed run whose policy
        step never started, no newer revision offered), and no Update of this step on record.
        """
        j = self.prep.journal
        if j.is_done(self.name):
            return "done before"
        target = self.options.version
        if j.step(self.name) is None and (
                (target is not None and version == target)
                or (target is None and j.steps.get(jr.STEP_POLICY) is None
                    and not new_revision_available and self.prep.resumed)):
            return f"already on {version}"
        return None

    def planned_calls(self) -> list[PlannedCall]:
        live = self.prep.live
        if self.skip_reason(live.version, live.new_revision_available) is not None:
            return []
        spec = (f"version={self.options.version}" if self.options.version
                else "version.latest_revision=true")
        d, cycles = self.prep.plan.duration, self.prep.plan.cycles
        return [
            PlannedCall("NodeGroupService.Update",
                        f"{self.prep.group.id} update_mask=[version] {spec}"),
            PlannedCall("OperationService.Get + NodeGroupService.ListNodes",
                        f"until done (expected {span_text(d.min_minutes, d.max_minutes, 'min')}, "
                        f"{span_text(cycles.min, cycles.max, 'cycle')}), then "
                        "NodeGroupService.Get for "
                        "the verdict"),
        ]

    def run(self, ctx: Context, result: GroupResult) -> None:
        prep, j, addr = self.prep, self.prep.journal, self.prep.address
        if j.is_done(self.name):
            ctx.emit(StepSkipped(group=addr, step=self.name,
                                 reason=done_reason(self.name, result)))
            return
        live = ctx.api.get_node_group(prep.group.id)
        reason = self.skip_reason(live.version, live.new_revision_available)
        if reason is not None:
            j.finish_step(self.name)
            ctx.emit(StepSkipped(group=addr, step=self.name, reason=reason))
            return
        t = ctx.timing.clock()
        opts = self.options
        ctx.emit(StepStarted(group=addr, step=self.name, version=opts.version,
                 latest_revision=opts.latest_revision, before=live.version,
                 expected_minutes={"min": prep.plan.duration.min_minutes,
                                   "max": prep.plan.duration.max_minutes},
                 cycles=prep.plan.cycles.max))
        op_id = ctx.send(prep, self.name, Change(version=opts.version,
                                                 latest_revision=opts.latest_revision),
                         current=live)
        result.operations[self.name] = op_id
        wait_with_progress(ctx, prep, op_id, result)
        ctx.confirm(prep, op_id)
        j.finish_step(self.name)
        result.steps[self.name] = ctx.timing.clock() - t
        ctx.emit(StepFinished(group=addr, step=self.name, operation_id=op_id,
                 seconds=result.steps[self.name], virtual_clock=ctx.timing.virtual))


@dataclass
class VerifyStep:
    """The verdict: done without error, RUNNING, on the target, back to the starting size,
    every node Ready and schedulable (:func:`unfit_nodes`)."""

    prep: Prepared
    options: UpgradeOptions
    name: str = jr.STEP_VERIFY

    def planned_calls(self) -> list[PlannedCall]:
        return []  # reads only; the version step's entry names the verdict's Get

    def run(self, ctx: Context, result: GroupResult) -> None:
        prep, j, addr = self.prep, self.prep.journal, self.prep.address
        api, timing = ctx.api, ctx.timing
        gid = prep.group.id
        t = timing.clock()
        ctx.emit(StepStarted(group=addr, step=self.name))
        rec = j.step(jr.STEP_VERSION)
        op_id = result.operations.get(jr.STEP_VERSION) or (rec.operation_id if rec else None)
        if op_id:
            group = wait_reconciled(api, gid, op_id, timeout=ctx.timeout(prep),
                                    policy=timing.poll, clock=timing.clock, sleep=timing.sleep,
                                    again="run the same command again with --resume")
        else:
            group = api.get_node_group(gid)
        nodes = api.list_nodes(gid)
        scale = prep.group.scale
        pending = _pending(prep)
        for _ in range(timing.poll.settle_polls):
            if _size_ok(len(nodes), j.start_nodes, scale) and not unfit_nodes(nodes) \
                    and not pending:
                break
            timing.sleep(timing.poll.settle_interval)
            nodes = api.list_nodes(gid)
            pending = _pending(prep)
        problems = []
        if group.status != "RUNNING":
            problems.append(f"status {group.status}, not RUNNING")
        target = self.options.version
        if target is not None and group.version != target:
            problems.append(f"version {group.version}, not {target} "
                            "(version_info.current_version)")
        if target is None and group.new_revision_available:
            problems.append(f"a newer revision of {group.version} is still available")
        if not _size_ok(len(nodes), j.start_nodes, scale):
            problems.append(f"{len(nodes)} nodes, not back to the starting {j.start_nodes}")
        unfit = unfit_nodes(nodes)
        if unfit:
            problems.append(f"{len(unfit)} node(s) not Ready and schedulable: "
                            + ", ".join(unfit))
        if pending:
            problems.append(f"{len(pending)} pod(s) of workloads the drains evicted still "
                            "Pending: " + ", ".join(f"{p.pod} ({p.reason})" for p in pending))
        ok = not problems
        ctx.emit(Verdict(group=addr, ok=ok, operation_id=op_id, status=group.status,
                 version=group.version, target=target, nodes=len(nodes),
                 start_nodes=j.start_nodes, problems=problems))
        if not ok:
            raise NotVerified(f"{addr}: the upgrade did not verify: {'; '.join(problems)}",
                              operation_id=op_id,
                              hint="look at the group in the console; nothing was rolled back")
        j.finish_step(self.name)
        result.steps[self.name] = timing.clock() - t
        result.nodes = len(nodes)
        result.version_after = group.version
        ctx.emit(StepFinished(group=addr, step=self.name, seconds=result.steps[self.name],
                              virtual_clock=timing.virtual))


def unfit_nodes(nodes: Sequence[LiveNode]) -> list[str]:
    """The nodes of ``ListNodes`` that do not take pods, each as ``name (why)``: not Ready
    (the Kubernetes Ready condition, else the platform's READY status; a STOPPED node) or
    cordoned (the ``node.kubernetes.io/unschedulable`` taint). An upgrade is done when every
    node of the group is back Ready and schedulable: the version alone says nothing of them."""
    out = []
    for n in nodes:
        view = node_view(n)
        why = [w for w, bad in (("not Ready", not view.ready), ("cordoned", view.cordoned))
               if bad]
        if why:
            out.append(f"{view.label} ({', '.join(why)})")
    return out


def _pending(prep: Prepared) -> tuple[PendingPod, ...]:
    """With kube access: the pods of workloads seen on a draining node that no node took,
    read now (an upgrade that leaves one Pending took it down for good); () without."""
    watch = prep.pod_watch
    return () if watch is None else tuple(watch.pending())


def _size_ok(count: int, start: int, scale: FixedScale | AutoScale) -> bool:
    if isinstance(scale, AutoScale):
        return count == start or scale.min <= count <= scale.max
    return count == start


def restore_target(prep: Prepared) -> DeployPolicy | None:
    """The policy ``--restore-policy`` puts back: Terraform's, else the one before."""
    return prep.journal.terraform_policy or prep.journal.start_policy


def build_steps(prep: Prepared, options: UpgradeOptions) -> list[Step]:
    """The step objects of one prepared group, in order; none when there is nothing to do."""
    if prep.nothing_to_do:
        return []
    if prep.restore_only:
        # Already on the target: judge the group as it is, then put Terraform's policy back.
        return [VerifyStep(prep, options),
                PolicyStep(prep, jr.STEP_RESTORE, restore_target(prep), prep.live.policy)]
    steps: list[Step] = []
    if prep.override is not None:
        steps.append(PolicyStep(prep, jr.STEP_POLICY, prep.override, prep.live.policy))
    steps += [VersionStep(prep, options), VerifyStep(prep, options)]
    if options.restore_policy:
        # When the restore's turn comes the group runs the override, else what it ran.
        steps.append(PolicyStep(prep, jr.STEP_RESTORE, restore_target(prep),
                                prep.override or prep.live.policy))
    return steps
