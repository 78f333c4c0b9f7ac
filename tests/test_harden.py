"""Regression tests from the hostile-user pass (branch ``harden``): each one failed before its fix.

Bad input must give one clear line and the documented exit code (2 usage, 3 bad input),
never exit 70 (a bug) or a traceback; ``--output json`` prints valid JSON or nothing.
"""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLE_STATE


@pytest.mark.parametrize("value", ["nan", "inf", "1e400"])
def test_cycle_minutes_must_be_finite(run_cli, value: str) -> None:
    # Before: nan and inf passed FloatRange and crashed the duration maths (exit 70).
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--cycle-minutes", value)
    assert result.exit_code == 2, result.stderr
    assert "--cycle-minutes" in result.stderr
    assert "not a finite number" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_fake_cloud_speed_must_be_finite(run_cli, value: str) -> None:
    # Before: the fake cloud served "at speed xnan" with a broken virtual clock.
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--speed", value)
    assert result.exit_code == 2, result.stderr
    assert "--speed" in result.stderr
