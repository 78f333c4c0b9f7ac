"""The progress line of long waits (ngupgrade/cli/_progress.py)."""

from __future__ import annotations


def test_progress_line_shows_brackets_verbatim() -> None:
    # Before: an operation description or group address with "[/]" raised MarkupError on a tty.
    from ngupgrade.adapters.cloud.types import OperationState
    from ngupgrade.cli._progress import Progress

    with Progress('ng["x[/]"]', tty=True) as progress:
        progress.on_poll(OperationState("op-1", "update [/] [bold]", done=False), 3.0)
    assert progress.polls == 1
