"""Signals that end a command as Ctrl-C does, so its ``finally`` blocks run; for a command
that changes the cloud they also request the run's stop, which every Update checks."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ngupgrade.adapters.cloud.stop import StopRequest
    from ngupgrade.adapters.cloud.waiter import Timing


def stoppable(timing: Timing) -> Timing:
    """``timing`` with a fresh stop request (:mod:`ngupgrade.adapters.cloud.stop`: one per
    command run) and a sleep that ends at it; give its ``stop`` to
    :func:`signals_as_interrupt`."""
    from ngupgrade.adapters.cloud.stop import StopRequest

    return replace(timing, stop=StopRequest()).interruptible()


@contextlib.contextmanager
def signals_as_interrupt(stop: StopRequest | None = None) -> Iterator[None]:
    """SIGTERM (a cancelled CI job, ``systemctl stop``) and SIGHUP (a lost terminal) end the
    run as Ctrl-C does: exit 130, the journal kept, the resume command printed, nothing in
    the cloud cancelled; ``fake-cloud`` stops its servers and removes its scratch files. The
    default SIGTERM would kill the process with 143, no word and no clean-up.

    With ``stop`` (``upgrade``, ``set-policy``) SIGINT is taken too, and the handler first
    requests the stop, which every Update checks on every thread (the groups of a scheduled
    run run on their own), then raises KeyboardInterrupt in the main thread. A SIGINT the
    process ignores (a shell's ``&`` job) stays ignored. The previous handlers come back
    afterwards. Only the main thread may install handlers: elsewhere (an embedding program)
    nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        if stop is not None:
            stop.request(name)
        raise KeyboardInterrupt(name)

    wanted = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    if stop is not None and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        wanted.append(signal.SIGINT)
    previous = {s: signal.signal(s, interrupt) for s in wanted}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
