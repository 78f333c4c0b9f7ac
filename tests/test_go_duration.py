"""Go durations and times of day (ngupgrade/core/duration.py), in the forms their producers
write: Go's ``time.Duration.String()`` (what terraform-provider-yandex@b52b1df writes for a
maintenance window, ``formatDuration`` in ``yandex/utils.go``), ``time.ParseDuration``'s
grammar (what the provider reads from HCL, ``parseDuration`` in the same file), and
``formatTimeOfDay``/``parseDayTime`` in ``yandex/resource_yandex_kubernetes_cluster.go``.

Expected values are Go's own (https://pkg.go.dev/time#ParseDuration and ``Duration.String``
examples), worked by hand, not by this module.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ngupgrade.core.duration import (
    HOUR,
    MILLISECOND,
    MINUTE,
    SECOND,
    DurationError,
    format_go_duration,
    parse_go_duration,
    parse_time_of_day,
)


@pytest.mark.parametrize(("text", "nanoseconds"), [
    # the provider's own output (Duration.String())
    ("3h0m0s", 3 * HOUR), ("4h30m0s", 4 * HOUR + 30 * MINUTE), ("1h0m0s", HOUR),
    ("24h0m0s", 24 * HOUR), ("1h0m0.5s", HOUR + 500 * MILLISECOND),
    # what HCL carries
    ("3h", 3 * HOUR), ("1h30m", 90 * MINUTE), ("90m", 90 * MINUTE), ("1.5h", 90 * MINUTE),
    ("5400s", 90 * MINUTE), ("90s", 90 * SECOND), ("300ms", 300 * MILLISECOND),
    ("2us", 2000), ("2\u00b5s", 2000), ("2\u03bcs", 2000), ("7ns", 7), (".5h", 30 * MINUTE),
    ("1.h", HOUR), ("0", 0), ("+0", 0), ("-0", 0), ("0s", 0), ("-2m", -2 * MINUTE),
    ("+1h", HOUR), ("1m1m", 2 * MINUTE), ("1.0000000001s", SECOND),
])
def test_go_durations(text: str, nanoseconds: int) -> None:
    assert parse_go_duration(text) == nanoseconds


@pytest.mark.parametrize(("text", "why"), [
    ("", "is not a duration"), ("3", "has no unit"), ("1h30", "has no unit"),
    ("3H", "unknown unit 'H'"), ("3 h", "unknown unit ' h'"), ("1d", "unknown unit 'd'"),
    (".s", "a number is missing"), ("-", "is not a duration"), ("h", "a number is missing"),
    ("1h-2m", "unknown unit 'h-'"), ("2562048h", "int64"), ("9" * 30 + "ns", "int64"),
])
def test_not_go_durations(text: str, why: str) -> None:
    with pytest.raises(DurationError, match="not a duration") as err:
        parse_go_duration(text)
    assert why in str(err.value)


@pytest.mark.parametrize(("nanoseconds", "text"), [
    (3 * HOUR, "3h0m0s"), (4 * HOUR + 30 * MINUTE, "4h30m0s"), (HOUR + SECOND // 2, "1h0m0.5s"),
    (90 * SECOND, "1m30s"), (1500 * MILLISECOND, "1.5s"), (300 * MILLISECOND, "300ms"),
    (2000, "2\u00b5s"), (7, "7ns"), (0, "0s"), (-2 * MINUTE, "-2m0s"), (59 * SECOND, "59s"),
])
def test_format_is_go_duration_string(nanoseconds: int, text: str) -> None:
    assert format_go_duration(nanoseconds) == text


@given(st.integers(-(1 << 62), 1 << 62))
def test_format_then_parse_is_the_same_duration(nanoseconds: int) -> None:
    assert parse_go_duration(format_go_duration(nanoseconds)) == nanoseconds


@pytest.mark.parametrize(("text", "seconds"), [
    ("15:00:00.000000000", 15 * 3600), ("15:00", 15 * 3600), ("15:00:00", 15 * 3600),
    ("03:15:30", 3 * 3600 + 15 * 60 + 30), ("9:05", 9 * 3600 + 300), ("23:59:59.5", 86399.5),
    ("00:00:00.000000000", 0),
])
def test_times_of_day(text: str, seconds: float) -> None:
    assert parse_time_of_day(text) == seconds


@pytest.mark.parametrize("text", ["25:00", "15:60", "15", "quarter past three", "15:00:61",
                                  "15:00:00.0000000001", "", "15h"])
def test_not_times_of_day(text: str) -> None:
    with pytest.raises(DurationError, match="is not a time of day"):
        parse_time_of_day(text)
