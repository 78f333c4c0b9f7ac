"""Durations on the command line (ngupgrade/cli/_duration.py: parse_duration): Go durations
(``90s``, ``30m``, ``1h30m``, ``1h0m0.5s``, ``300ms``), plain seconds; bounded to a year."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ngupgrade.cli._duration import parse_duration
from tests.conftest import EXAMPLE_STATE


@pytest.mark.parametrize(("text", "seconds"), [
    ("45s", 45), ("90m", 5400), ("2h", 7200), ("1h30m", 5400), ("600", 600), ("1.5h", 5400),
    ("0", 0), ("1h0m0.5s", 3600.5), ("300ms", 0.3), ("2H", 7200), ("1.5s", 1.5),
])
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "soon", "10x", "h", "-5m", "5 m"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


@given(st.integers(0, 48), st.integers(0, 59), st.integers(0, 59))
def test_parse_duration_sums_units(h: int, m: int, s: int) -> None:
    assert parse_duration(f"{h}h{m}m{s}s") == h * 3600 + m * 60 + s


@pytest.mark.parametrize("text", ["-5", "5d", "m", "1h 2m"])
def test_parse_duration_rejects_negative_days_and_spaces(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize("text", ["9" * 400, "9" * 400 + "h", "31708800", "9000h"])
def test_duration_longer_than_a_year_is_refused(text: str) -> None:
    # Before: 400 nines parsed to float('inf'); human() then raised OverflowError (exit 70 from
    # `set-policy --timeout 999...`).
    with pytest.raises(ValueError, match="longer than a year"):
        parse_duration(text)


def test_set_policy_with_an_endless_timeout_is_a_usage_error(run_cli) -> None:
    result = run_cli("set-policy", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--max-expansion", "2", "--timeout", "9" * 400)
    assert result.exit_code == 2, result.stderr
    assert "longer than a year" in result.stderr
