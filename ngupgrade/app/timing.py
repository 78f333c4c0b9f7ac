"""Time as a dependency of the cloud use cases: the clock, the sleep and the poll policy.

Commands take :data:`CURRENT` (real monotonic time); tests replace it with the fake cloud's
virtual clock (``monkeypatch.setattr(timing, "CURRENT", Timing(fake.now, fake.sleep))``), so
no test sleeps real seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ngupgrade.adapters.cloud.waiter import PollPolicy


@dataclass(frozen=True)
class Timing:
    """``clock`` gives monotonic seconds, ``sleep`` waits seconds, ``poll`` the poll policy."""

    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    poll: PollPolicy = field(default_factory=PollPolicy)


CURRENT = Timing()
"""The timing every cloud use case runs on."""
