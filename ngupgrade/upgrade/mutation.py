"""The one path by which ngupgrade sends an Update: ``Mutation.send``.

The gateway (:mod:`ngupgrade.adapters.cloud.gateway`) sends a bare ``NodeGroupService.Update``
and returns an operation handle; everything a mutation must decide around it lives here, in
one place, for the runbook's steps and for ``set-policy`` alike:

* **before**: one ``ListOperations`` (the operations already there, so that an operation this
  Update starts can be told apart). The caller passes the group as it just read it (one
  ``Get``), so one Update costs at most one Get and one ListOperations before it;
* **ambiguous failure** (:data:`AMBIGUOUS_CODES`: the call may or may not have reached the
  cloud): look for the operation it may have started with ``ListOperations`` and attach to
  it. Never resend, and never claim a negative that was not established: when nothing is
  listed yet the outcome is unknown (:class:`OutcomeUnknown`), and the caller keeps its step
  open so that ``--resume`` looks again;
* **another operation in progress** (``FAILED_PRECONDITION``,
  hashicorp/terraform-provider-google#3650): wait for the
  blocking operation within :attr:`ConflictPolicy.wait_seconds`, then read the group again and
  send only what is still needed. When the group is already where the user wants it (the
  blocker was the same change: a second operator, a CI job, ``terraform apply``), say so and
  attach to that operation instead of starting a second one. At most
  :attr:`ConflictPolicy.attempts` Update calls in all.

Waiting for the mutation's own operation is the caller's business (explicit, never inside).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ngupgrade.adapters.cloud.types import LiveNodeGroup, OperationRef, OperationState, newest
from ngupgrade.adapters.cloud.waiter import Timing, wait_operation
from ngupgrade.core.errors import CloudApiError, OperationFailed, OperationTimeout, OutcomeUnknown
from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.policy import in_force, policy_text
from ngupgrade.core.units import human_seconds

log = logging.getLogger("ngupgrade.upgrade.mutation")

AMBIGUOUS_CODES = frozenset({"DEADLINE_EXCEEDED", "UNAVAILABLE"})
"""gRPC codes after which an Update may or may not have reached the cloud."""

LOOKUP_DELAYS = (0.0, 1.0, 2.0, 4.0)
"""Seconds between the ListOperations looks after an ambiguous Update (7 s in all): the
operation list of Yandex Cloud can lag the Update by a few seconds."""


class MutationApi(Protocol):
    """What a mutation needs of the cloud (``adapters.cloud.gateway.CloudGateway``)."""

    def get_node_group(self, node_group_id: str) -> LiveNodeGroup: ...

    def list_operations(self, node_group_id: str) -> list[OperationState]: ...

    def list_cluster_operations(self, cluster_id: str) -> list[OperationState]: ...

    def list_cluster_node_groups(self, cluster_id: str) -> list[LiveNodeGroup]: ...

    def get_operation(self, operation_id: str) -> OperationState: ...

    def update_node_group(self, node_group_id: str, *, policy: DeployPolicy | None = None,
                          version: str | None = None, latest_revision: bool = False,
                          current: LiveNodeGroup | None = None) -> OperationRef: ...


LIMIT_RETRY_SECONDS = 5.0
"""After "the limit on maximum number of active operations has exceeded", try again every 5 s
(arenadata/ansible-module-yandex-cloud PR #9: its retry interval), within
``ConflictPolicy.limit_seconds``."""


def is_operations_limit(err: CloudApiError) -> bool:
    """The cloud refused because too many operations are active
    (arenadata/ansible-module-yandex-cloud PR #9; its gRPC code is not documented, so the
    message decides, whatever the code)."""
    return "limit on maximum number of active operations" in err.message.lower()


@dataclass(frozen=True)
class ConflictPolicy:
    """What to do when Update is refused because another operation runs
    (hashicorp/terraform-provider-google#3650).

    At most ``attempts`` Update calls in all (the first plus ``attempts - 1`` retries); between
    them wait for the blocking operation at most ``wait_seconds``; past that bound, stop and
    name the blocker.
    """

    attempts: int = 2
    wait_seconds: float = 1800.0
    limit_seconds: float = 60.0
    """How long to keep retrying a refusal by the active-operations limit."""


DEFAULT_CONFLICT = ConflictPolicy()


@dataclass(frozen=True)
class Change:
    """What one Update is for: a deploy policy, or a version (or the latest revision)."""

    policy: DeployPolicy | None = None
    version: str | None = None
    latest_revision: bool = False

    def reached(self, group: LiveNodeGroup) -> bool:
        """True when ``group`` already is where this change would take it.

        A policy compares as in force (unset is the server default 3/0, the deploy-policy
        page); a version compares with ``version_info.current_version``; the latest revision
        is reached when no newer one is offered.
        """
        if self.policy is not None:
            return in_force(group.policy) == self.policy
        if self.version is not None:
            return group.version == self.version
        return self.latest_revision and not group.new_revision_available

    def text(self) -> str:
        """``deploy policy 2/1``, ``version 1.30`` or ``the latest revision``."""
        if self.policy is not None:
            return f"deploy policy {policy_text(self.policy)}"
        return f"version {self.version}" if self.version else "the latest revision"


@dataclass(frozen=True)
class Sent:
    """How a mutation ended: the operation to wait for.

    ``attached``: the operation was found rather than answered by our Update (after an
    ambiguous failure, or another operation that took the group there). ``reached_by``: the
    id of another operation that brought the group where it should be; no Update of ours did.
    """

    operation_id: str
    attached: bool = False
    update_calls: int = 1
    reached_by: str | None = None


class Mutation:
    """Sends Updates over a :class:`MutationApi` on one :class:`Timing`."""

    def __init__(self, api: MutationApi, timing: Timing,
                 conflict: ConflictPolicy = DEFAULT_CONFLICT) -> None:
        self.api = api
        self.timing = timing
        self.conflict = conflict

    def send(self, group_id: str, change: Change, *, current: LiveNodeGroup,
             before_send: Callable[[list[str]], object] | None = None) -> Sent:
        """Send ``change`` to the group as ``current`` shows it; the operation to wait for.

        ``before_send(known)`` runs before each Update call with the ids of the operations the
        group already had (the journal records them, so a crash right after the call is
        recovered from ``ListOperations``).

        Raises:
            Stopped: a stop was requested (``timing.stop``) before an Update call; nothing
                more is sent.
            OutcomeUnknown: an ambiguous failure and no new operation listed (exit 4).
            CloudApiError: a definite refusal (nothing was changed), including another
                operation in the way past the bound or the attempts, named with its id.
        """
        known = [op.id for op in self.api.list_operations(group_id)]
        blocker: OperationState | None = None
        attempts = max(1, self.conflict.attempts)
        attempt = calls = refused_for_limit = 0
        while attempt < attempts:
            attempt += 1
            calls += 1
            if before_send is not None:
                before_send(known)
            # The last thing before the call: once a stop is requested (a signal, on any
            # thread) no Update leaves; the step stays journaled as started, which --resume
            # looks up in ListOperations before it sends anything.
            self.timing.stop.check(f"NodeGroupService.Update of {group_id}")
            try:
                ref = self.api.update_node_group(
                    group_id, policy=change.policy, version=change.version,
                    latest_revision=change.latest_revision, current=current)
            except CloudApiError as err:
                if is_operations_limit(err):
                    # A definite refusal under load: retry within a bound, but only while
                    # no operation of ours shows up.
                    if refused_for_limit * LIMIT_RETRY_SECONDS >= self.conflict.limit_seconds:
                        raise _wrap(
                            err, f"{err.message}; not submitted: refused {calls} times in "
                                 f"{refused_for_limit * LIMIT_RETRY_SECONDS:g} s by the cloud's "
                                 "limit on active operations; no operation was started",
                            "wait for some of the cloud's operations to finish, then run the "
                            "same command again") from err
                    self.timing.sleep(LIMIT_RETRY_SECONDS)
                    refused_for_limit += 1
                    fresh = newest(op for op in self.api.list_operations(group_id)
                                   if op.id not in known and op.node_group_id in (None, group_id))
                    if fresh is not None:
                        return Sent(fresh.id, attached=True, update_calls=calls)
                    attempt -= 1  # not a conflict attempt
                    continue
                if err.code in AMBIGUOUS_CODES:
                    return self._recover(group_id, known, err, calls)
                if err.code != "FAILED_PRECONDITION":
                    raise
                found = self._find_blocker(group_id, current)
                blocker = found or blocker
                if blocker is None:
                    raise _wrap(err, f"{err.message}; nothing was changed by this step",
                                "another operation holds the cluster or the group (its id is "
                                "in the message): wait for it (`ngupgrade wait --operation "
                                "ID`), then run the same command again") from err
                if attempt >= attempts:
                    raise CloudApiError(
                        f"{_call(err)}: refused {attempt} times, another operation in "
                        f"progress (blocking operation {blocker.id}); nothing was changed",
                        code=err.code, request_id=err.request_id,
                        hint=f"wait for it (`ngupgrade wait --operation {blocker.id}`), then "
                             "run again") from err
                if found is not None:
                    self._wait_blocker(found, err)
                else:
                    self.timing.sleep(self.timing.poll.initial)
                # What was in the way may have been this very change (another operator, a CI
                # job, terraform apply): read the group again before sending anything.
                current = self.api.get_node_group(group_id)
                if change.reached(current):
                    log.warning("%s: node group %s already has %s after operation %s; "
                                "nothing sent", err.message, group_id, change.text(),
                                blocker.id)
                    return Sent(blocker.id, attached=True, update_calls=calls,
                                reached_by=blocker.id)
                known = [op.id for op in self.api.list_operations(group_id)]
                continue
            return Sent(ref.id, update_calls=calls)
        raise AssertionError("unreachable")  # pragma: no cover

    def _recover(self, group_id: str, known: list[str], err: CloudApiError,
                 attempt: int) -> Sent:
        """After an ambiguous Update: attach to the operation it started, or say unknown."""
        for delay in LOOKUP_DELAYS:
            if delay:
                self.timing.sleep(delay)
            fresh = newest(op for op in self.api.list_operations(group_id)
                           if op.id not in known and op.node_group_id in (None, group_id))
            if fresh is not None:
                log.warning("%s answered %s but started operation %s; attaching",
                            err.message, err.code, fresh.id)
                return Sent(fresh.id, attached=True, update_calls=attempt)
        raise _wrap(
            err, f"{err.message}; the outcome is unknown: no new operation is listed on the "
                 f"group after {sum(LOOKUP_DELAYS):g} s, but the Update may still have started "
                 "one (nothing was sent twice)",
            f"look again before anything else: `ngupgrade wait --group {group_id}` attaches "
            "to an operation if one started", cls=OutcomeUnknown) from err

    def _find_blocker(self, group_id: str, current: LiveNodeGroup) -> OperationState | None:
        """The unfinished operation in the way (the cloud serializes the operations of a cluster:
        hashicorp/terraform-provider-google#3650): on the group
        (``NodeGroupService.ListOperations``), else on its cluster
        (``ClusterService.ListOperations``: a master upgrade), else on another group of the cluster
        (``ClusterService.ListNodeGroups``, then each group's ``ListOperations``: another group's
        upgrade, which the cluster's list need not show). None when nothing unfinished is listed
        anywhere. Costs at most 3 + (groups - 1) calls, only after a refusal."""
        found = newest(op for op in self.api.list_operations(group_id) if not op.done)
        if found is not None:
            return found
        cluster = current.cluster_id
        found = newest(op for op in self.api.list_cluster_operations(cluster) if not op.done)
        if found is not None:
            return found
        others = [g.id for g in self.api.list_cluster_node_groups(cluster) if g.id != group_id]
        return newest(op for other in others for op in self.api.list_operations(other)
                      if not op.done)

    def _wait_blocker(self, blocker: OperationState, err: CloudApiError) -> None:
        log.warning("%s: another operation in progress; waiting for %s (%s), at most %.0f s",
                    err.message, blocker.id, blocker.description or "no description",
                    self.conflict.wait_seconds)
        t = self.timing
        said = [0]

        def progress(state: OperationState, elapsed: float) -> None:
            # one line a minute at most (polls are <= 30 s apart): the wait is visible
            if not state.done and elapsed >= 60 * (said[0] + 1):
                said[0] = int(elapsed // 60)
                log.warning("still waiting for %s (%s): %s of at most %s", blocker.id,
                            blocker.description or "no description", human_seconds(elapsed),
                            human_seconds(self.conflict.wait_seconds))

        try:
            wait_operation(self.api, blocker.id, timeout=self.conflict.wait_seconds,
                           policy=t.poll, clock=t.clock, sleep=t.sleep, on_poll=progress)
        except OperationFailed:
            pass  # the blocker's own failure is not ours; the group is read again next
        except OperationTimeout as late:
            raise CloudApiError(
                f"{_call(err)}: another operation in progress: {blocker.id} "
                f"({blocker.description or 'no description'}) still running after "
                f"{self.conflict.wait_seconds:.0f} s; nothing was changed",
                code="FAILED_PRECONDITION",
                hint=f"wait for it (`ngupgrade wait --operation {blocker.id}`), then run again",
            ) from late


def _call(err: CloudApiError) -> str:
    """The call an error names (``NodeGroupService.Update(id, mask=...)``), without details."""
    return err.message.split(": ", 1)[0]


def _wrap(err: CloudApiError, text: str, hint: str,
          cls: type[CloudApiError] = CloudApiError) -> CloudApiError:
    """``err`` said again with what it means; ``text`` already carries its code and request id."""
    again = cls(text, hint=err.hint or hint)
    again.code, again.request_id = err.code, err.request_id
    return again
