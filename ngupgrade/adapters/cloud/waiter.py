"""The operation waiter: is the operation done, and did the node group reconcile?

Not the SDK's waiter (yandex-cloud/python-sdk ``_operation_waiter.py``): that one polls every
second, cannot reach a custom endpoint, and on timeout returns an unfinished operation as if it were
a result. Here:

* polling is its own policy (:class:`PollPolicy`), separate from RPC retry: the interval
  starts at ``initial`` seconds and grows by ``factor`` to a cap (default **30 s**), so a
  30-minute operation costs about 65 polls instead of 1800, and completion is noticed at most
  one interval (<= 30 s) after it happens;
* the deadline is monotonic (an injected ``clock``; ``sleep`` is injected too, so tests wait
  in microseconds on the fake cloud's virtual clock);
* a finished operation with an error raises :class:`~ngupgrade.core.errors.OperationFailed`
  (operation id, google.rpc code and message; hashicorp/terraform#15601); a deadline raises
  :class:`~ngupgrade.core.errors.OperationTimeout` whose hint says how to attach again
  (yandex-cloud/python-sdk ``_operation_waiter.py``,
  terraform-google-modules/terraform-google-kubernetes-engine#939). ``timeout=0`` means "don't
  wait": one look, then done or OperationTimeout. Nothing here ever passes a timeout to the SDK,
  where 0 would mean "wait forever";
* the reconcile verdict (:func:`wait_reconciled`): the operation is done without error AND the
  group status is RUNNING, with at most ``settle_polls`` extra looks after done; STOPPING,
  STOPPED or DELETING is an error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from ngupgrade.adapters.cloud.stop import StopRequest
from ngupgrade.adapters.cloud.types import BROKEN_STATUSES, LiveNode, LiveNodeGroup, OperationState
from ngupgrade.core.errors import (
    GroupNotRunning,
    OperationFailed,
    OperationTimeout,
    Stalled,
    UsageError,
)
from ngupgrade.core.stall import StallWatchdog
from ngupgrade.core.units import human_seconds


class NodeApi(Protocol):
    """What :func:`node_progress` needs: ``list_nodes`` (the gateway has it)."""

    def list_nodes(self, node_group_id: str) -> list[LiveNode]: ...


class OperationApi(Protocol):
    """What the waiter needs: the gateway, or anything that reads operations and groups."""

    def get_operation(self, operation_id: str) -> OperationState: ...

    def get_node_group(self, node_group_id: str) -> LiveNodeGroup: ...


@dataclass(frozen=True)
class PollPolicy:
    """How often to ask whether an operation is done (seconds).

    Intervals: ``initial``, ``initial*factor``, ... capped at ``cap`` (documented cap: 30 s;
    yandex-cloud/python-sdk ``_operation_waiter.py`` asks for >= 10 s on multi-hour upgrades, which
    the cap gives after the first minute). ``settle_polls``: extra group reads after the operation
    is done, ``settle_interval`` apart, before a group still not RUNNING is reported as not
    reconciled.
    """

    initial: float = 2.0
    factor: float = 2.0
    cap: float = 30.0
    settle_polls: int = 10
    settle_interval: float = 10.0

    def __post_init__(self) -> None:
        if self.initial <= 0 or self.cap < self.initial or self.factor < 1:
            raise ValueError("poll policy needs 0 < initial <= cap and factor >= 1")


@dataclass(frozen=True)
class Timing:
    """Time as one dependency: ``clock`` gives monotonic seconds, ``sleep`` waits seconds,
    ``poll`` is the poll policy, ``wall`` seconds since the epoch (the journal's timestamps,
    compared with an operation's ``created_at``), ``stop`` the run's stop request
    (:mod:`ngupgrade.adapters.cloud.stop`: the signals set it, every Update checks it). The
    CLI builds one (real time, or the fake cloud's virtual clock in tests) and passes it down
    to every use case; nothing reads time from a global."""

    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    poll: PollPolicy = field(default_factory=PollPolicy)
    wall: Callable[[], float] = time.time
    stop: StopRequest = field(default_factory=StopRequest)
    virtual: bool = False
    """The clock is not the wall's (the fake cloud's, ``upgrade --time-scale``): wall-clock
    times derived from it (a node's forced stop at HH:MM) say so."""
    scale: float = 1.0
    """Seconds of ``clock`` per second of ``wall`` (``upgrade --time-scale``: the fake's
    virtual seconds per real second): a time between two runs on ``wall`` (the journal's)
    is ``scale`` times as long on ``clock``."""

    def interruptible(self) -> Timing:
        """This Timing whose sleep raises :class:`~ngupgrade.adapters.cloud.stop.Stopped`
        once :attr:`stop` is requested (:meth:`StopRequest.interruptible`)."""
        return replace(self, sleep=self.stop.interruptible(self.sleep))


def resume_hint(operation_id: str) -> str:
    """How to attach again to an operation that still runs."""
    return (f"nothing was cancelled; the operation still runs in the cloud. Attach again with "
            f"`ngupgrade wait --operation {operation_id}`")


class Watchdog:
    """Stall detection while waiting (aws/containers-roadmap#1282), on :class:`StallWatchdog`.

    ``progress`` returns anything comparable that changes when the upgrade moves, e.g.
    :func:`node_progress` (the group's nodes: created, cordoned, deleted). It is read on each
    poll while the operation runs; ``Stalled`` (exit 6, nothing cancelled) is raised when it
    has not changed for ``stall_seconds`` (default 30 min).
    """

    def __init__(self, progress: Callable[[], object], stall_seconds: float = 1800.0,
                 what: str = "nodes unchanged") -> None:
        self.progress = progress
        self.stall_seconds = stall_seconds
        self.what = what
        self._watch: StallWatchdog | None = None

    def check(self, operation_id: str, now: float) -> None:
        """Read progress once; raise Stalled when it has not moved for the window."""
        if self._watch is None:
            self._watch = StallWatchdog(self.stall_seconds, now)
        self._watch.observe(self.progress(), now)
        if self._watch.stalled(now):
            raise Stalled(
                f"operation {operation_id} stalled: no progress for "
                f"{human_seconds(self._watch.still_for(now))} ({self.what}); a drain may be "
                f"blocked by a PodDisruptionBudget that allows 0 disruptions",
                operation_id=operation_id, hint=resume_hint(operation_id))


def node_progress(api: NodeApi, node_group_id: str) -> Callable[[], object]:
    """A progress probe for :class:`Watchdog`: the group's nodes as (instance, status, cordoned)."""

    def probe() -> object:
        return frozenset((n.instance_id, n.status, n.unschedulable)
                         for n in api.list_nodes(node_group_id))

    return probe


OnPoll = Callable[[OperationState, float], None]
"""Progress callback: the operation as just read and the seconds waited so far."""


def wait_operation(
    api: OperationApi,
    operation_id: str,
    *,
    timeout: float,
    policy: PollPolicy = PollPolicy(),
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    on_poll: OnPoll | None = None,
    watchdog: Watchdog | None = None,
) -> OperationState:
    """Poll ``OperationService.Get`` until the operation is done or ``timeout`` seconds pass.

    Returns the finished, successful operation.

    Raises:
        UsageError: negative ``timeout``.
        OperationFailed: done with an error (hashicorp/terraform#15601).
        OperationTimeout: still running at the deadline (yandex-cloud/python-sdk
        ``_operation_waiter.py``); the hint says how to resume. Stalled: the ``watchdog`` saw no
        progress for its window (aws/containers-roadmap#1282). CloudApiError: the poll itself failed
        past the RPC retry policy.
    """
    if timeout < 0:
        raise UsageError(f"timeout must be >= 0 seconds, not {timeout:g}")
    start = clock()
    deadline = start + timeout
    interval = policy.initial
    while True:
        state = api.get_operation(operation_id)
        now = clock()
        if on_poll is not None:
            on_poll(state, now - start)
        if state.done:
            if state.error_code is not None:
                raise OperationFailed(operation_id, state.error_code,
                                      state.error_code_name or str(state.error_code),
                                      state.error_message or "")
            return state
        if watchdog is not None:
            watchdog.check(operation_id, now)
        remaining = deadline - now
        if remaining <= 0:
            waited = "did not wait (--timeout 0)" if timeout == 0 else \
                f"still running after {human_seconds(timeout)}"
            raise OperationTimeout(
                f"operation {operation_id} ({state.description or 'no description'}) {waited}",
                operation_id=operation_id, hint=resume_hint(operation_id))
        sleep(min(interval, remaining))
        interval = min(policy.cap, interval * policy.factor)


def wait_reconciled(
    api: OperationApi,
    node_group_id: str,
    operation_id: str,
    *,
    timeout: float,
    policy: PollPolicy = PollPolicy(),
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    on_poll: OnPoll | None = None,
    watchdog: Watchdog | None = None,
    again: str = "run the same command again",
) -> LiveNodeGroup:
    """Wait for the operation, then for the group to be RUNNING again: the reconcile verdict.

    Returns the group as read when it is RUNNING. When it is still not RUNNING because
    another operation started on it after this one (a second run that won a race, an
    operator), the timeout names that operation and how to attach to it; ``again`` is how
    the hint says to go on after it (the command's own words: ``upgrade`` adds
    ``--resume``).

    Raises:
        OperationFailed: the operation failed (hashicorp/terraform#15601).
        GroupNotRunning: the operation succeeded but the group is STOPPING, STOPPED or
            DELETING after it (exit 1: not an operation failure).
        OperationTimeout: the operation still runs at the deadline, or the group is still not
            RUNNING after ``policy.settle_polls`` extra reads.
    """
    start = clock()
    wait_operation(api, operation_id, timeout=timeout, policy=policy, clock=clock, sleep=sleep,
                   on_poll=on_poll, watchdog=watchdog)
    group = api.get_node_group(node_group_id)
    for extra in range(policy.settle_polls + 1):
        if group.status == "RUNNING":
            return group
        if group.status in BROKEN_STATUSES:
            raise GroupNotRunning(
                f"operation {operation_id} finished without error, but node group "
                f"{node_group_id} is {group.status}: it does not come back to RUNNING by "
                "itself", operation_id=operation_id,
                hint="something else stopped the group or is deleting it (a stopped cluster "
                     "stops its node groups: see the cluster's and the group's operations in "
                     "the console); once it is RUNNING again, check it with `ngupgrade wait "
                     f"--group {node_group_id}`")
        if extra == policy.settle_polls:
            break
        remaining = start + timeout - clock()
        if remaining <= 0 and timeout > 0:
            break
        sleep(max(0.0, min(policy.settle_interval, remaining)) if timeout > 0 else 0.0)
        group = api.get_node_group(node_group_id)
    still = (f"operation {operation_id} is done but node group {node_group_id} is still "
             f"{group.status} (not RUNNING) after {policy.settle_polls} extra checks")
    other = _running_other(api, node_group_id, operation_id)
    if other is not None:
        raise OperationTimeout(
            f"{still}: operation {other.id} ({other.description or 'no description'}) runs "
            f"on it now, started after {operation_id} (another run or operator)",
            operation_id=other.id,
            hint=f"attach to it: `ngupgrade wait --operation {other.id}`; once it is done, "
                 f"{again}")
    raise OperationTimeout(still, operation_id=operation_id,
                           hint=f"check again later with `ngupgrade wait --group {node_group_id}`")


def _running_other(api: OperationApi, node_group_id: str,
                   operation_id: str) -> OperationState | None:
    """The newest unfinished operation on the group other than ``operation_id``
    (``NodeGroupService.ListOperations``, when ``api`` has it), else None."""
    lister = getattr(api, "list_operations", None)
    if lister is None:
        return None
    running = [op for op in lister(node_group_id) if not op.done and op.id != operation_id]
    return max(running, key=lambda op: op.created_at) if running else None
