"""Stall detection (field report C15): has the progress reading changed lately? Pure.

An upgrade whose drain is blocked (a PodDisruptionBudget that allows 0 disruptions, seeds
001 and 004) keeps its cloud operation running with nothing moving. Both the runbook
(``ngupgrade upgrade``) and ``ngupgrade wait`` feed readings of the group's nodes into one
:class:`StallWatchdog` and stop, without cancelling anything, when it says stalled.
"""

from __future__ import annotations


class StallWatchdog:
    """Says "stalled" when the reading has not changed for ``stall_after`` seconds.

    A reading is any comparable value (e.g. nodes on the new version, group status, node
    count, cordoned nodes). ``stall_after`` 0 switches the watchdog off. Times are seconds
    on the caller's monotonic clock, passed in.
    """

    def __init__(self, stall_after: float, now: float) -> None:
        self.stall_after = stall_after
        self.last_change = now
        self._reading: object = _NOTHING

    def observe(self, reading: object, now: float) -> None:
        """Record a reading; a different one restarts the window."""
        if reading != self._reading:
            self._reading = reading
            self.last_change = now

    def still_for(self, now: float) -> float:
        """Seconds since the reading last changed."""
        return now - self.last_change

    def stalled(self, now: float) -> bool:
        """True when on, and the reading has been the same for ``stall_after`` seconds."""
        return self.stall_after > 0 and self.still_for(now) >= self.stall_after


_NOTHING = object()
