"""Steps 1 to 4 of one group's upgrade: read the live group, check it may be upgraded, plan
it, open its journal (:func:`prepare_group`; :meth:`ngupgrade.upgrade.runbook.Runbook.prepare`).

1. read the live group (version, status, size, policy), its nodes, its cluster's master and
   its operations;
2. refuse a group that is not RUNNING or that has an unfinished operation (attach to it with
   ``--resume`` when it is this upgrade's, else wait for it: ``ngupgrade wait``), and a
   journal that does not match the run (another group, target or policy);
3. the target version against the master: a node group is never ahead of its master, and
   moves one minor version per step (the Yandex Cloud docs, ``update-kubernetes``);
4. plan (:func:`ngupgrade.core.simulate.plan_group`) with the size before the upgrade, then
   build the group's steps once: the dry run lists their calls, ``--apply`` runs them.

And what a prepared group tells the user about Terraform before any change: the policy it
runs when Terraform declares another (:func:`policy_drift`, :func:`drift_notice`), and the
override the next ``terraform apply`` reverts (:func:`terraform_warning`, Azure/azure-cli#19902).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ngupgrade.adapters.cloud.types import LiveNode, LiveNodeGroup, OperationState, newest
from ngupgrade.adapters.cloud.waiter import Timing
from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import CheckFailed, UsageError
from ngupgrade.core.model import DeployPolicy, FixedScale, NodeGroup
from ngupgrade.core.policy import in_force, policy_text
from ngupgrade.core.simulate import plan_group
from ngupgrade.upgrade.context import Prepared
from ngupgrade.upgrade.events import Emit, Note, Warned
from ngupgrade.upgrade.rules import check_target_version
from ngupgrade.upgrade.steps import build_steps
from ngupgrade.upgrade.values import UpgradeApi, UpgradeOptions


def policy_drift(live: LiveNodeGroup, group: NodeGroup) -> DeployPolicy | None:
    """The policy in force on the live group when Terraform declares another one, else None.

    An unset policy in the API is the server default 3/0 (:func:`in_force`, the Yandex deploy-policy
    page); a state with no ``deploy_policy`` declares nothing, so nothing drifts (the provider's
    Optional + Computed attribute keeps what the group runs).
    """
    have = in_force(live.policy)
    if group.policy is None or have == group.policy:
        return None
    return have


def drift_notice(prep: Prepared, event: Emit) -> None:
    """A group already on the target that still runs a policy other than
    Terraform's (an upgrade stopped before its restore; its journal gone or elsewhere) is
    never "nothing to do" in silence: with --restore-policy it is put back (a ``note`` event
    says why), without it a ``warned`` event (``policy-differs-from-terraform``) names it and
    the command that puts it back. Sends nothing for any other prepared group."""
    have = policy_drift(prep.live, prep.group)
    tf = prep.group.policy
    if have is None or tf is None or not (prep.nothing_to_do or prep.restore_only):
        return
    version = prep.live.version
    if prep.restore_only:
        event(Note(group=prep.address,
                   message=f"already on {version}, but the group runs deploy policy "
                           f"{policy_text(have)} while Terraform declares {policy_text(tf)} "
                           f"for {prep.address}: --restore-policy puts {policy_text(tf)} back"))
        return
    event(Warned(group=prep.address, code="policy-differs-from-terraform",
                 message=f"{prep.address} is on {version} but runs deploy policy "
                         f"{policy_text(have)}, while Terraform declares {policy_text(tf)} (an "
                         "upgrade's temporary policy left in place?); the next `terraform "
                         f"apply` sets it back. Put it back now: `ngupgrade set-policy -g "
                         f"{prep.address} --max-expansion {tf.max_expansion} --max-unavailable "
                         f"{tf.max_unavailable} --apply` (or run this command with "
                         "--restore-policy), or write the new deploy_policy in the HCL"))


def terraform_warning(prep: Prepared, event: Emit, restore: bool) -> None:
    """Azure/azure-cli#19902: an override that differs from the HCL is reverted by the next
    terraform apply.

    When the upgrade runs with an override (``--max-expansion``/``--max-unavailable``) other
    than the policy Terraform declares: without ``restore`` (``--restore-policy``) one
    ``warned`` event (``policy-differs-from-terraform``) that names the way back; with it, a
    ``note`` that the run puts Terraform's policy back (nothing is left to warn about).
    """
    tf = prep.terraform_policy
    if prep.override is None or tf is None or prep.override == tf:
        return
    if restore:
        # the drift is taken care of: a remark, not a warning to act on
        event(Note(group=prep.address,
                   message=f"the upgrade runs with deploy policy {policy_text(prep.override)}; "
                           f"Terraform declares {policy_text(tf)} for {prep.address}: "
                           f"--restore-policy puts {policy_text(tf)} back after the upgrade"))
        return
    event(Warned(group=prep.address, code="policy-differs-from-terraform",
                 message=f"the upgrade runs with deploy policy {policy_text(prep.override)}; "
                         f"Terraform declares {policy_text(tf)} for {prep.address}, and the next "
                         "`terraform apply` sets it back (pass --restore-policy to put it back "
                         "right after the upgrade)"))


def prepare_group(api: UpgradeApi, options: UpgradeOptions, group: NodeGroup,
                  journal_path: str | None, *, timing: Timing, emit: Emit,
                  journal_writer: Callable[[str, str], None] | None = None) -> Prepared:
    """Read the live group, check it may be upgraded, plan it, open its journal, build its
    steps (:func:`ngupgrade.upgrade.steps.build_steps`).

    ``journal_path`` None keeps the journal in memory (dry run); ``journal_writer(path, text)``
    replaces its atomic file write (tests); ``timing.wall`` stamps it; ``emit`` gets the note
    when ``--resume`` finds nothing to resume.

    Raises:
        UsageError: an unfinished journal without ``--resume``; a bad version string.
        CheckFailed: not RUNNING, an unfinished operation (without ``--resume``), target
            ahead of the master or more than one minor step, an invalid policy.
        CloudApiError: a read failed.
    """
    subject = f"{group.address} ({group.id})"
    if not group.id:
        raise UsageError(f"{group.address}: the state has no id for this node group")
    seen = _read(api, group)
    previous = _journal_to_resume(options, group, journal_path, subject)
    _check_may_start(seen, options, previous, subject)
    nothing, restore_only = _nothing_to_do(seen, group, options, previous, subject)
    max_e, max_u, chosen_by = _policy_to_plan(options, previous)
    start_nodes = _start_nodes(seen, group, previous)
    if options.resume and previous is None and seen.running is None and nothing is None:
        emit(Note(group=str(group.address), message=(
            "nothing to resume: no unfinished journal"
            + (f" at {journal_path}" if journal_path else "")
            + " and no operation running on the group; starting the upgrade")))
    for note in group.notes:  # an attribute of the state not understood: what is not checked
        emit(Note(group=str(group.address), message=note.message))
    plan = plan_group(group, live_size=start_nodes, live_policy=seen.live.policy,
                      max_expansion=max_e, max_unavailable=max_u,
                      minutes_per_cycle=options.minutes_per_cycle, chosen=chosen_by)
    # The policy the user (or the advised schedule) asked for; whether it needs an Update is
    # the policy step's decision (one rule for the dry run and --apply: the policy in force).
    override = plan.policy.policy if plan.policy.source in ("override", "advised") else None
    _check_resumed_policy(previous, options, override, journal_path)
    if previous is not None:
        journal = previous
        journal.writer = journal_writer
        journal.clock = timing.wall
    else:
        # Resume from the cloud's own record, mid-upgrade: the size to come back to is
        # the configured one (start_nodes, above), and which nodes are new cannot be told.
        start_ids = [] if seen.running is not None else [n.instance_id for n in seen.nodes]
        journal = jr.Journal(
            group_id=group.id, address=str(group.address), name=group.name,
            target=options.version, latest_revision=options.latest_revision,
            start_version=seen.live.version, start_nodes=start_nodes,
            start_node_ids=start_ids, start_policy=seen.live.policy,
            terraform_policy=group.policy, override=override,
            override_source=chosen_by, restore_policy=options.restore_policy,
            path=journal_path, writer=journal_writer, clock=timing.wall)
    prep = Prepared(group=group, live=seen.live, nodes=seen.nodes, cluster=seen.cluster,
                    running=seen.running, plan=plan, override=override,
                    terraform_policy=group.policy, journal=journal,
                    resumed=previous is not None, nothing_to_do=nothing,
                    restore_only=restore_only)
    prep.steps = build_steps(prep, options)
    return prep


@dataclass(frozen=True)
class _Seen:
    """Step 1's reads: the live group, its nodes, its cluster, its newest unfinished
    operation (None: none runs)."""

    live: LiveNodeGroup
    nodes: list[LiveNode]
    cluster: Any
    running: OperationState | None


def _read(api: UpgradeApi, group: NodeGroup) -> _Seen:
    """Read the live group, its nodes, its cluster's master and its operations (4 calls)."""
    live = api.get_node_group(group.id)
    nodes = api.list_nodes(group.id)
    cluster = api.get_cluster(live.cluster_id or group.cluster_id)
    ops = api.list_operations(group.id)
    return _Seen(live, nodes, cluster, newest([op for op in ops if not op.done]))


def _journal_to_resume(options: UpgradeOptions, group: NodeGroup, journal_path: str | None,
                       subject: str) -> jr.Journal | None:
    """The unfinished journal this run resumes (``--resume``), else None: the one owner of
    "is this a resume?". Refuses an unfinished journal without ``--resume``, and one of
    another group or another target.

    Raises:
        UsageError: naming the journal and what to do.
    """
    existing = jr.load(journal_path) if journal_path else None
    if existing is not None and existing.outcome is None and not options.resume:
        raise UsageError(
            f"{subject}: an unfinished upgrade is recorded in {journal_path}",
            hint="run the same command with --resume to continue it (it re-attaches to "
                 "the running operation), or delete the journal to start over")
    if not (options.resume and existing is not None and existing.outcome is None):
        return None
    advised = options.schedule == "advised"  # it takes no --journal and no policy flags
    if existing.group_id != group.id:
        raise UsageError(
            f"{journal_path} is the journal of node group {existing.group_id}, not {group.id}",
            hint=(f"the file holds {existing.group_id}'s journal under {group.id}'s name "
                  "(copied or moved by hand): put it back where it was, or delete it to "
                  f"start {group.id} over, then run the same command again") if advised
            else "pass the right --journal")
    if existing.target != options.version:
        raise UsageError(
            f"{journal_path} records an upgrade to {existing.target or 'the latest revision'}"
            f", not {options.version or 'the latest revision'}",
            hint="resume with the same --version, or delete the journal to start over")
    return existing


def _check_may_start(seen: _Seen, options: UpgradeOptions, previous: jr.Journal | None,
                     subject: str) -> None:
    """An upgrade starts only from RUNNING with no other operation, unless it resumes.

    Raises:
        CheckFailed: another operation runs (without ``--resume``); the group is not RUNNING.
    """
    running = seen.running
    if running is not None and not options.resume:
        raise CheckFailed(
            f"{subject}: another operation is in progress on this node group: {running.id} "
            f"({running.description or 'no description'}); nothing was changed",
            hint=f"if it is an upgrade this tool started, run the same command with "
                 f"--resume to attach to it; otherwise wait for it (`ngupgrade wait "
                 f"--operation {running.id}`) and run again")
    if running is None and seen.live.status != "RUNNING" and previous is None:
        raise CheckFailed(f"{subject}: the node group is {seen.live.status}, not RUNNING; "
                          "nothing was changed",
                          hint="an upgrade starts only from RUNNING; look at the group in "
                               "the console")


def _nothing_to_do(seen: _Seen, group: NodeGroup, options: UpgradeOptions,
                   previous: jr.Journal | None, subject: str) -> tuple[str | None, bool]:
    """Why the group needs no version update (None: it does), and whether only its policy is
    to be put back (``--restore-policy`` on a group already there that still runs a
    temporary policy). The target is checked against the master on the way.

    Raises:
        CheckFailed: the target is ahead of the master or more than one minor step.
        UsageError: a bad version string.
    """
    live, running = seen.live, seen.running
    start_version = previous.start_version if previous is not None else live.version
    nothing: str | None = None
    if options.version is not None:
        if previous is None and live.version == options.version and running is None:
            nothing = f"already on {options.version}"
        else:
            check_target_version(start_version, options.version, seen.cluster.master_version,
                                 subject=subject)
    elif previous is None and not live.new_revision_available and running is None:
        nothing = f"no newer revision of {live.version} is available"
    # Already there, but still on a temporary policy (an upgrade whose journal is gone,
    # or ran on another runner, stopped before its restore): with --restore-policy put
    # back what Terraform declares; without it the use case names the drift.
    restore_only = bool(nothing is not None and options.restore_policy
                        and policy_drift(live, group) is not None)
    return (None if restore_only else nothing), restore_only


def _policy_to_plan(options: UpgradeOptions, previous: jr.Journal | None
                    ) -> tuple[int | None, int | None, Literal["override", "advised"]]:
    """The knobs to plan with and where they came from: the flags (or the advised stage's),
    else, resuming with none, the journal's override, named as it was chosen."""
    asked = options.max_expansion is not None or options.max_unavailable is not None
    if previous is not None and not asked and previous.override is not None:
        # --resume alone continues with the journal's policy, explicitly: the plan and
        # the quota gate judge what the steps will send
        return (previous.override.max_expansion, previous.override.max_unavailable,
                previous.override_source)
    return options.max_expansion, options.max_unavailable, options.policy_source


def _start_nodes(seen: _Seen, group: NodeGroup, previous: jr.Journal | None) -> int:
    """The size to plan with: the group's before this upgrade. Mid-upgrade the live count
    includes the surge nodes the upgrade itself created (3 nodes at 2/1 read as 5: a false
    fixed-size drift, 5 nodes, 5 cycles), so the journal's record of the start wins; without
    one, while an operation runs, the configured fixed size."""
    if previous is not None:
        return previous.start_nodes
    scale = seen.live.scale or group.scale
    if seen.running is not None and isinstance(scale, FixedScale):
        return scale.size
    return len(seen.nodes)


def _check_resumed_policy(previous: jr.Journal | None, options: UpgradeOptions,
                          override: DeployPolicy | None, journal_path: str | None) -> None:
    """A resumed upgrade keeps the policy it started with.

    Raises:
        UsageError: policy flags that differ from the journal's override.
    """
    asked = options.max_expansion is not None or options.max_unavailable is not None
    if previous is None or not asked or override == previous.override:
        return
    recorded = ("no deploy policy override" if previous.override is None
                else f"deploy policy {policy_text(previous.override)}")
    raise UsageError(
        f"{journal_path} records this upgrade with {recorded}, not "
        f"{policy_text(override)}; a resumed upgrade keeps the policy it started with",
        hint="delete the journal to start over: a resumed group keeps its journal's "
             "policy" if options.schedule == "advised" else
             "resume without --max-expansion/--max-unavailable (the journal's policy "
             "is used) or with the same values, or delete the journal to start over")
