"""A stop request: SIGINT, SIGTERM or SIGHUP (or one stopped group of a scheduled run) asks
every runner of the process to stop, on whichever thread it runs.

One :class:`StopRequest` travels with the run's :class:`~ngupgrade.adapters.cloud.waiter.Timing`
(``timing.stop``). Two places look at it:

* :meth:`StopRequest.check`, right before every Update (the one mutation path,
  :class:`ngupgrade.upgrade.mutation.Mutation`): once a stop is requested no Update leaves;
* :meth:`StopRequest.interruptible`, the sleep of every wait: it returns within
  :data:`SLEEP_SLICE` virtual seconds (on real time at once) of the request.

Both raise :class:`Stopped`, a ``KeyboardInterrupt``: what Ctrl-C raises in the main thread,
so each runner ends as an interrupted run does (its journal left open for ``--resume``, exit
130, nothing in the cloud cancelled). Signals reach the main thread only (Python's ``signal``
module); a worker thread learns of one here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

SLEEP_SLICE = 1.0
"""Seconds a sleep on an injected clock (the fake's, a scaled one) sleeps at most before it
looks at the stop request; a sleep on real time wakes at the request itself."""


class Stopped(KeyboardInterrupt):
    """A stop was requested (``reason``: the signal's name, or what stopped the run)."""


class StopRequest:
    """Set once (:meth:`request`), seen by every thread of the run; never cleared."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason: str | None = None

    def request(self, reason: str) -> None:
        """Ask every runner to stop (safe in a signal handler: sets a flag, no lock held)."""
        if self.reason is None:
            self.reason = reason
        self._event.set()

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    def check(self, before: str) -> None:
        """Raise :class:`Stopped` when a stop was requested; ``before`` names what would
        come next (``NodeGroupService.Update of GROUP``), for the message."""
        if self._event.is_set():
            raise Stopped(f"{self.reason or 'stopped'}: stopped before {before}")

    def interruptible(self, sleep: Callable[[float], None]) -> Callable[[float], None]:
        """``sleep`` that raises :class:`Stopped` once a stop is requested: on real time
        (``time.sleep``) it waits on the request itself; on another clock in slices of
        :data:`SLEEP_SLICE` seconds of that clock."""
        if getattr(sleep, "stop_request", None) is self:
            return sleep  # already this request's
        event = self._event

        def nap(seconds: float) -> None:
            if sleep is time.sleep:
                if event.wait(max(0.0, seconds)):
                    self.check("the end of a wait")
                return
            left = seconds
            while True:
                self.check("the end of a wait")
                if left <= 0:
                    return
                step = min(SLEEP_SLICE, left)
                sleep(step)
                left -= step

        nap.stop_request = self  # type: ignore[attr-defined]
        return nap
