"""Progress of a wait: a live status line on a terminal (rich), plain lines otherwise.

Everything goes to stderr, so stdout keeps only the verdict (and JSON under --output json).
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any

from ngupgrade.adapters.cloud.types import OperationState
from ngupgrade.cli._common import echo_report
from ngupgrade.core.units import human_seconds


class Progress(AbstractContextManager["Progress"]):
    """Use ``with Progress(what) as p:`` and pass ``p.on_poll`` to the waiter."""

    def __init__(self, what: str, *, tty: bool | None = None) -> None:
        self.what = what
        self.tty = sys.stderr.isatty() if tty is None else tty
        self._status: Any = None
        self._text: Any = str
        self.polls = 0

    def __enter__(self) -> Progress:
        if self.tty:
            from rich.console import Console
            from rich.text import Text

            # Text, not str: a group address or an operation description may hold "[...]",
            # which rich would read as markup (and "[/]" would raise).
            self._text = Text
            self._status = Console(stderr=True).status(Text(f"waiting for {self.what}"))
            self._status.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._status is not None:
            self._status.__exit__(exc_type, exc, tb)

    def on_poll(self, state: OperationState, waited: float) -> None:
        self.polls += 1
        verdict = "done" if state.done else "running"
        what = state.description or "operation"
        line = f"{state.id} {verdict} ({what}), waited {human_seconds(waited)}"
        if self._status is not None:
            self._status.update(self._text(line))
        else:
            echo_report(line, err=True)
