"""``--timeout DUR``: a Go duration (``90s``, ``30m``, ``2h``, ``1h30m``, ``1.5h``) or plain
seconds; ``0`` = don't wait. Parsed by :func:`ngupgrade.core.duration.parse_go_duration`."""

from __future__ import annotations

import re
from typing import Any

import click

from ngupgrade.core.duration import SECOND, DurationError, parse_go_duration


def parse_duration(text: str) -> float:
    """Seconds in ``text``: plain seconds (``600``, ``1.5``) or a Go duration, in any case
    (``2H`` is ``2h``).

    Raises:
        ValueError: not a duration, negative, or longer than a year.
    """
    text = text.strip().lower()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return _bounded(float(text), text)
    hint = "(use e.g. 90s, 30m, 2h, 1h30m)"
    if text.startswith("-"):
        raise ValueError(f"not a duration: {text!r} is negative {hint}")
    try:
        nanoseconds = parse_go_duration(text)
    except DurationError as err:
        if "int64" in str(err):
            raise ValueError(_too_long(text)) from err
        raise ValueError(f"not a duration: {text!r} {hint}") from err
    return _bounded(nanoseconds / SECOND, text)


MAX_SECONDS = 366 * 24 * 3600.0
"""A year: no wait is longer, and 400 digits of seconds would be an infinite float."""


def _too_long(text: str) -> str:
    return f"duration {text[:20]!r}{'...' if len(text) > 20 else ''} is longer than a year"


def _bounded(seconds: float, text: str) -> float:
    if not seconds <= MAX_SECONDS:  # also catches inf
        raise ValueError(_too_long(text))
    return seconds


class Duration(click.ParamType):
    """A click type for durations; bad values are usage errors (exit 2)."""

    name = "DUR"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        try:
            return parse_duration(str(value))
        except ValueError as err:
            self.fail(str(err), param, ctx)
