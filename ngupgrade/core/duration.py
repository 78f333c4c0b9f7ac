"""Go durations and times of day, as Go and the Terraform providers write and read them. Pure.

One parser for every duration ngupgrade reads: a state's maintenance window (the provider
writes Go's ``Duration.String()``: ``"3h0m0s"``), what a user's HCL carries into a plan
(``"3h"``), and the command line's ``--timeout``. The grammar is Go's ``time.ParseDuration``
(https://pkg.go.dev/time#ParseDuration): an optional sign, then one or more decimal numbers,
each with an optional fraction and a unit ``ns``, ``us`` (or ``µs``, ``μs``), ``ms``, ``s``,
``m``, ``h``; ``"0"`` alone needs no unit. Values are whole nanoseconds, as Go's
``time.Duration``; a fraction finer than a nanosecond is dropped, as Go drops it.

Written here rather than taken from a library: the grammar is Go's exactly (units, sign,
``"0"``, the int64 range), which neither the standard library nor isodate/pytimeparse parse.
"""

from __future__ import annotations

import re

NANOSECOND = 1
MICROSECOND = 1000 * NANOSECOND
MILLISECOND = 1000 * MICROSECOND
SECOND = 1000 * MILLISECOND
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

_UNITS = {"ns": NANOSECOND, "us": MICROSECOND, "\u00b5s": MICROSECOND,
          "\u03bcs": MICROSECOND, "ms": MILLISECOND, "s": SECOND, "m": MINUTE, "h": HOUR}
_MAX = (1 << 63) - 1  # time.Duration is an int64 of nanoseconds
_PART = re.compile(r"(?P<int>\d*)(?:\.(?P<frac>\d*))?(?P<unit>[^\d.]*)")


class DurationError(ValueError):
    """Text that is not a Go duration or a time of day: ``text`` as given, ``why`` what is
    wrong with it (``is not a duration: ...``); the message is both."""

    def __init__(self, text: str, why: str) -> None:
        super().__init__(f"{text[:30]!r}{'...' if len(text) > 30 else ''} {why}")
        self.text = text
        self.why = why


def parse_go_duration(text: str) -> int:
    """Nanoseconds in ``text``, a Go duration: ``"3h"``, ``"3h0m0s"``, ``"1h30m"``,
    ``"90m"``, ``"1.5h"``, ``"5400s"``, ``"1h0m0.5s"``, ``"300ms"``, ``"-2m"``, ``"0"``.

    Case matters and no space is allowed, as in Go (``"3H"`` and ``"3 h"`` are refused).

    Raises:
        DurationError: empty text, a number without a unit, an unknown unit, a part with no
            digits, or a value beyond Go's int64 nanoseconds (about 292 years).
    """
    rest = text
    negative = rest[:1] == "-"
    if rest[:1] in ("-", "+"):
        rest = rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise DurationError(text, "is not a duration (use e.g. 3h, 1h30m, 90m, 5400s)")
    total, pos = 0, 0
    while pos < len(rest):
        part = _PART.match(rest, pos)
        assert part is not None  # every group is optional
        whole, frac, unit = part["int"], part["frac"], part["unit"]
        if not whole and not frac:
            raise DurationError(text, "is not a duration: a number is missing before "
                                f"{rest[pos:]!r}")
        if not unit:
            raise DurationError(text, f"is not a duration: {part.group()!r} has no unit "
                                "(ns, us, ms, s, m, h)")
        scale = _UNITS.get(unit)
        if scale is None:
            raise DurationError(text, f"is not a duration: unknown unit {unit!r} (ns, us, "
                                "ms, s, m, h)")
        total += int(whole or 0) * scale
        if frac:
            total += int(frac) * scale // 10 ** len(frac)
        if total > _MAX:
            raise DurationError(text, "is not a duration: longer than Go's int64 "
                                "nanoseconds (about 292 years)")
        pos = part.end()
    return -total if negative else total


def go_duration_seconds(text: str) -> float:
    """Seconds in ``text``, a Go duration (:func:`parse_go_duration`; same errors)."""
    return parse_go_duration(text) / SECOND


def format_go_duration(nanoseconds: int) -> str:
    """Go's ``time.Duration.String()``: ``"3h0m0s"``, ``"4h30m0s"``, ``"1h0m0.5s"``,
    ``"1.5s"``, ``"300ms"``, ``"2µs"``, ``"0s"``: what the Yandex provider writes for a
    window's duration (``formatDuration``, terraform-provider-yandex ``yandex/utils.go``)."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    u = abs(nanoseconds)
    if u < SECOND:
        for limit, unit, prec in ((MICROSECOND, "ns", 0), (MILLISECOND, "\u00b5s", 3),
                                  (SECOND, "ms", 6)):
            if u < limit:
                return f"{sign}{_fraction(u, prec)}{unit}"
    seconds, minutes, hours = _fraction(u % MINUTE, 9), u // MINUTE % 60, u // HOUR
    if hours:
        return f"{sign}{hours}h{minutes}m{seconds}s"
    if minutes:
        return f"{sign}{minutes}m{seconds}s"
    return f"{sign}{seconds}s"


def _fraction(value: int, prec: int) -> str:
    """``value / 10**prec`` with no trailing zeros and no point when whole (Go's fmtFrac)."""
    if prec == 0:
        return str(value)
    whole, frac = divmod(value, 10 ** prec)
    digits = f"{frac:0{prec}d}".rstrip("0")
    return f"{whole}.{digits}" if digits else str(whole)


_CLOCK = re.compile(r"(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)"
                    r"(?::(?P<s>[0-5]\d)(?:\.(?P<f>\d{1,9}))?)?")


def parse_time_of_day(text: str) -> float:
    """Seconds after midnight in ``text``: ``"15:00"``, ``"15:00:00"``,
    ``"15:00:00.000000000"`` (the forms terraform-provider-yandex reads, ``parseDayTime``,
    and writes, ``formatTimeOfDay``: ``time.Format("15:04:05.000000000")``, both in
    ``yandex/resource_yandex_kubernetes_cluster.go``). The hour may have one digit.

    Raises:
        DurationError: anything else, e.g. ``"25:00"``, ``"quarter past three"``.
    """
    clock = _CLOCK.fullmatch(text.strip())
    if clock is None:
        raise DurationError(text, "is not a time of day (HH:MM, HH:MM:SS or "
                            "HH:MM:SS.fffffffff)")
    frac = clock["f"] or ""
    return (int(clock["h"]) * 3600 + int(clock["m"]) * 60 + int(clock["s"] or 0)
            + (int(frac) / 10 ** len(frac) if frac else 0.0))
