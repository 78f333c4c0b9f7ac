"""Value checks of the scenario file: each names the key (a dotted path) and, where a set of
valid values exists, the closest one. A value the fake cannot act on is refused, never
ignored: a typo that silently disabled a fault would let a drill pass without testing anything.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from typing import Any

from ngupgrade.core.errors import BadInput


def closest(value: object, valid: Iterable[str]) -> str | None:
    """``did you mean 'X'?`` for the valid value nearest ``value``, or None."""
    match = difflib.get_close_matches(str(value), list(valid), n=1, cutoff=0.6)
    return f"did you mean {match[0]!r}?" if match else None


def keys(raw: Any, known: tuple[str, ...], where: str, *,
         any_key: bool = False) -> Mapping[str, Any]:
    """``raw`` as a mapping with no key outside ``known`` (None reads as empty; ``any_key``:
    the keys are names, any goes).

    Raises BadInput naming the unknown keys, the known ones and the closest.
    """
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise BadInput(f"{where} must be a mapping, found {type(raw).__name__}")
    if any_key:
        return raw
    unknown = [str(k) for k in raw if k not in known]
    if unknown:
        raise BadInput(f"unknown key{'s' if len(unknown) > 1 else ''} "
                       f"{', '.join(map(repr, unknown))} in {where} "
                       f"(known: {', '.join(known)})", hint=closest(unknown[0], known))
    return raw


def seconds(value: Any, where: str) -> float:
    """A finite number >= 0 (seconds, or a quota amount). Raises BadInput."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadInput(f"expected a number, found {_shown(value)}", path=where)
    try:
        number = float(value)
    except OverflowError as err:
        raise BadInput(f"expected a finite number, found {_shown(value)}", path=where) from err
    if not math.isfinite(number):
        raise BadInput(f"expected a finite number, found {value!r}", path=where)
    if number < 0:
        raise BadInput(f"expected a number >= 0, found {value!r}", path=where)
    return number


def count(value: Any, where: str, low: int = 0, high: int | None = None) -> int:
    """A whole number in ``low..high``. Raises BadInput (``"1"`` and ``1.5`` are refused)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(f"expected a whole number, found {_shown(value)}", path=where)
    if value < low or (high is not None and value > high):
        span = f"{low}..{high}" if high is not None else f">= {low}"
        raise BadInput(f"expected a whole number {span}, found {_shown(value)}", path=where)
    return value


def text(value: Any, where: str, *, empty: bool = False) -> str:
    """A string (non-empty unless ``empty``). A YAML number is refused: ``1.30`` reads as
    1.3, so a version must be quoted. Raises BadInput."""
    if not isinstance(value, str):
        hint = "quote it: a YAML number loses its trailing zeros (1.30 reads as 1.3)" \
            if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        raise BadInput(f"expected a string, found {_shown(value)}", path=where, hint=hint)
    if not empty and not value.strip():
        raise BadInput("expected a non-empty string", path=where)
    return value


def choice(value: Any, where: str, valid: Iterable[str]) -> str:
    """One of ``valid``. Raises BadInput listing them, with the closest as the hint."""
    options = list(valid)
    if not isinstance(value, str) or value not in options:
        raise BadInput(f"expected one of {', '.join(options)}, found {_shown(value)}",
                       path=where, hint=closest(value, options))
    return value


def items(raw: Any, where: str) -> list[Any]:
    """A list (None reads as empty). Raises BadInput."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise BadInput(f"expected a list, found {type(raw).__name__}", path=where)
    return raw


def _shown(value: Any) -> str:
    """A short picture of a bad value for a one-line error."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10 ** 18:
        try:
            return f"an integer of {len(str(abs(value)))} digits"
        except ValueError:  # past Python's int-to-text limit (4300 digits)
            return "an integer of thousands of digits"
    if isinstance(value, (str, int, float, bool)) or value is None:
        text = repr(value)
        return text if len(text) <= 40 else f"{text[:37]}..."
    return f"a {type(value).__name__}"
