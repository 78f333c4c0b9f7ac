"""Which operation did a step's Update start? Telling ours from someone else's.

A step is journaled as started, with the ids of the operations the group already had, before
its Update is sent (:mod:`ngupgrade.adapters.files.journal`). When the run stops before the
operation id reaches the journal (a crash, an ambiguous answer), ``--resume`` looks for it in
``ListOperations``: an operation not in that snapshot. But someone else (another operator, a
CI job, ``terraform apply``) may have started one since, and adopting theirs as ours ends in
a wait for the wrong change and a verdict that cannot pass. So each new operation is matched
to the step by what can be known of it:

* **what it changes**: the API does not echo an Update's mask or values in the operation's
  metadata (``UpdateNodeGroupMetadata`` holds only ``node_group_id``), but a finished Update
  answers with the node group it left (``response``). One that did not bring the group where
  the step takes it (its version, its deploy policy in force) is not this step's;
* **timing**: one created before the step began (with :data:`CLOCK_SKEW_SECONDS` for the
  host's clock against the cloud's) is not its either: it was only missing from the snapshot
  (the operation list can lag);
* **the group's state** while it runs cannot tell a policy change from a version update, so a
  running candidate is adopted only provisionally: the caller waits for it and
  :func:`confirm` judges what it left before it is journaled as the step's.

Refusing names the operation (id, description, when it started, what it changed) and what to
do; nothing is sent in its place (one mutation per intent).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from ngupgrade.adapters.cloud.types import LiveNodeGroup, OperationState
from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import ForeignOperation
from ngupgrade.core.policy import in_force, policy_text
from ngupgrade.upgrade.mutation import Change

CLOCK_SKEW_SECONDS = 600.0
"""How far the host's clock (the journal's ``started_at``) may be from the cloud's (an
operation's ``created_at``) before an operation created earlier than the step is judged to
predate it. NTP keeps both within a second; ten minutes leaves room for a VM that drifted."""


@dataclass(frozen=True)
class Match:
    """The step's operation: ``provisional`` while it runs and what it changes is unknown."""

    operation_id: str
    provisional: bool


def step_change(journal: jr.Journal, step: str) -> Change:
    """What ``step``'s Update asks for, from the journal: the override, the version, or the
    policy to restore (Terraform's, else the one before)."""
    if step == jr.STEP_POLICY:
        return Change(policy=journal.override)
    if step == jr.STEP_RESTORE:
        return Change(policy=journal.terraform_policy or journal.start_policy)
    return Change(version=journal.target, latest_revision=journal.latest_revision)


def epoch_of(iso: str) -> float | None:
    """Seconds since the epoch of a journal timestamp (``...+00:00`` or ``...Z``); None when
    it cannot be read (an older or hand-edited journal: no timing evidence then)."""
    try:
        stamp = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    return stamp.timestamp()


def when(seconds: float) -> str:
    """An operation's ``created_at`` as UTC ISO text (``unknown`` when the API left it unset)."""
    if seconds <= 0:
        return "at an unknown time"
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def left_text(journal: jr.Journal, group: LiveNodeGroup) -> str:
    """What a finished operation left, against the journal's start: ``version 1.29 (unchanged),
    deploy policy 1/0 -> 3/1``."""
    version = (f"version {group.version} (unchanged)" if group.version == journal.start_version
               else f"version {journal.start_version} -> {group.version}")
    before, after = in_force(journal.start_policy), in_force(group.policy)
    policy = (f"deploy policy {policy_text(after)} (unchanged)" if before == after
              else f"deploy policy {policy_text(before)} -> {policy_text(after)}")
    return f"{version}, {policy}"


def why_not_ours(op: OperationState, change: Change, journal: jr.Journal,
                 started: float | None) -> str | None:
    """Why ``op`` cannot be the operation of a step asking for ``change`` that began at
    ``started`` (epoch seconds), or None when it may be."""
    if started is not None and 0 < op.created_at < started - CLOCK_SKEW_SECONDS:
        return "it started before this step began (it was only missing from the snapshot)"
    if op.done and op.result is not None and not change.reached(op.result):
        return (f"it changed {left_text(journal, op.result)}, not {change.text()} as this "
                "step asks")
    return None


def match(ops: Iterable[OperationState], journal: jr.Journal, step: str,
          group_id: str) -> Match | None:
    """The operation ``step``'s Update started, among ``ops`` (the group's ``ListOperations``).

    Returns None when no operation is new since the step's snapshot; the oldest candidate that
    may be the step's (a running one provisionally).

    Raises:
        ForeignOperation: every new operation is someone else's; the newest is named.
    """
    rec = journal.step(step)
    known = set(rec.known_operations) if rec is not None else set()
    started = epoch_of(rec.started_at) if rec is not None else None
    fresh = sorted((op for op in ops if op.id not in known
                    and op.node_group_id in (None, group_id)),
                   key=lambda op: (op.created_at, op.id))
    if not fresh:
        return None
    change = step_change(journal, step)
    refused: list[tuple[OperationState, str]] = []
    for op in fresh:
        why = why_not_ours(op, change, journal, started)
        if why is None:
            return Match(op.id, provisional=not op.done or op.result is None)
        refused.append((op, why))
    op, why = refused[-1]
    raise refusal(op, why, journal, step)


def confirm(op: OperationState, journal: jr.Journal, step: str) -> None:
    """After waiting for a provisionally adopted operation: did it make the step's change?

    Raises:
        ForeignOperation: it finished without bringing the group where the step takes it.
    """
    why = why_not_ours(op, step_change(journal, step), journal, None)
    if why is not None:
        raise refusal(op, why, journal, step)


def refusal(op: OperationState, why: str, journal: jr.Journal, step: str) -> ForeignOperation:
    """The refusal naming ``op``: id, description, when it started, what it changed; and what
    to do (nothing of this step was sent, so the journal's step has no operation of its own)."""
    rec = journal.step(step)
    began = f" (the step began {rec.started_at})" if rec is not None and rec.started_at else ""
    state = "still runs" if not op.done else ("failed" if op.failed else "finished")
    by = f" by {op.created_by}" if op.created_by else ""
    who = (f"{op.created_by} started it (the operation's created_by)" if op.created_by
           else f"the console shows who started {op.id}")
    return ForeignOperation(
        f"{journal.address}: operation {op.id} ({op.description or 'no description'}, "
        f"started {when(op.created_at)}{by}, {state}) is not the operation of step {step}"
        f"{began}: {why}. Someone else started it; it was not adopted, and nothing was sent",
        operation_id=op.id,
        hint=f"find out who changed the group ({who}); "
             f"wait for it if it still runs (`ngupgrade wait --operation {op.id}`). This "
             "step's own Update left no operation, and the journal is closed: run the same "
             "command again without --resume; its steps start from the live group and send "
             "only what is still needed")
