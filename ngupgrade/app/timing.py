"""Time as a dependency of the cloud use cases: the clock, the sleep and the poll policy.

Commands take :data:`CURRENT` (real monotonic time); tests replace it with the fake cloud's
virtual clock (``monkeypatch.setattr(timing, "CURRENT", Timing(fake.now, fake.sleep))``), so
no test sleeps real seconds.
"""

from __future__ import annotations

from ngupgrade.adapters.cloud.waiter import Timing

CURRENT = Timing()
"""The timing every cloud use case runs on."""
