"""Signals that end a command as Ctrl-C does, so its ``finally`` blocks run."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def signals_as_interrupt() -> Iterator[None]:
    """SIGTERM (a cancelled CI job, ``systemctl stop``) and SIGHUP (a lost terminal) end the
    run as Ctrl-C does: exit 130, the journal kept, the resume command printed, nothing in
    the cloud cancelled; ``fake-cloud`` stops its servers and removes its scratch files. The
    default SIGTERM would kill the process with 143, no word and no clean-up. The previous
    handlers come back afterwards. Only the main thread may install handlers: elsewhere
    (an embedding program) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    wanted = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    previous = {s: signal.signal(s, interrupt) for s in wanted}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
