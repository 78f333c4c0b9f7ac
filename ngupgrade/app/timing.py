"""Time as a dependency of the cloud use cases: one :class:`Timing` (clock, sleep, poll
policy), built once by the CLI and passed down to every use case; nothing reads a global.

Real time comes from :func:`real_time`; tests give the command line the fake cloud's virtual
clock (``ngupgrade.cli.main(argv, timing=Timing(fake.now, fake.sleep))``), so no test sleeps
real seconds.
"""

from __future__ import annotations

import time

from ngupgrade.adapters.cloud.waiter import Timing

__all__ = ["Timing", "real_time"]


def real_time(scale: float = 1.0) -> Timing:
    """Monotonic time; ``scale`` virtual seconds per real second (fake-cloud drills run the
    fake's clock faster than real time, ``upgrade --time-scale``)."""
    if scale == 1.0:
        return Timing()
    return Timing(lambda: time.monotonic() * scale, lambda seconds: time.sleep(seconds / scale),
                  virtual=True, scale=scale)
