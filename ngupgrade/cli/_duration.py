"""``--timeout DUR``: ``90s``, ``30m``, ``2h``, ``1h30m`` or plain seconds; ``0`` = don't wait."""

from __future__ import annotations

import re
from typing import Any

import click

_PART = re.compile(r"(\d+(?:\.\d+)?)([hms])")
_UNIT = {"h": 3600.0, "m": 60.0, "s": 1.0}


def parse_duration(text: str) -> float:
    """Seconds in ``text``. Raises ValueError for anything else (negative values included)."""
    text = text.strip().lower()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return _bounded(float(text), text)
    pos, total = 0, 0.0
    for m in _PART.finditer(text):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNIT[m.group(2)]
        pos = m.end()
    if pos != len(text) or not text:
        raise ValueError(f"not a duration: {text!r} (use e.g. 90s, 30m, 2h, 1h30m)")
    return _bounded(total, text)


MAX_SECONDS = 366 * 24 * 3600.0
"""A year: no wait is longer, and 400 digits of seconds would be an infinite float."""


def _bounded(seconds: float, text: str) -> float:
    if not seconds <= MAX_SECONDS:  # also catches inf
        raise ValueError(f"duration {text[:20]!r}{'...' if len(text) > 20 else ''} "
                         "is longer than a year")
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

