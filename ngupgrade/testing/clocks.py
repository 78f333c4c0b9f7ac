"""The fake cloud's clocks: virtual time a test moves, or real time at a chosen speed.

Both give ``now()`` in seconds since the fake started and ``advance(seconds)``; the world reads
``now()`` on every call, so an operation progresses exactly as far as the clock says.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    """What the fake reads of a clock: seconds since its start, and a way to let time pass."""

    def now(self) -> float: ...

    def advance(self, seconds: float) -> None: ...


class VirtualClock:
    """Seconds that move only when told: ``advance`` (also usable as an injected ``sleep``)."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        """Seconds since the start; changes only through :meth:`advance`."""
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` at once. Raises ValueError for a negative value."""
        if seconds < 0:
            raise ValueError("time does not go back")
        with self._lock:
            self._now += seconds


class RealClock:
    """Real monotonic time multiplied by ``speed`` (60 = one virtual minute per real second)."""

    def __init__(self, speed: float = 1.0) -> None:
        if not speed > 0:  # also refuses nan
            raise ValueError("speed must be > 0")
        self.speed = speed
        self._start = time.monotonic()

    def now(self) -> float:
        """Virtual seconds since this clock was made."""
        return (time.monotonic() - self._start) * self.speed

    def advance(self, seconds: float) -> None:
        """Sleep for real until ``seconds`` virtual seconds have passed."""
        time.sleep(seconds / self.speed)
