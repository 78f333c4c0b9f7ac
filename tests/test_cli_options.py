"""Option types and shared options of the command line (ngupgrade/cli/_common.py): finite
numbers, bounded counts, single-target options given once, values from the environment named."""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLE_STATE


@pytest.mark.parametrize("command", [["plan"], ["upgrade", "-g", "workers", "--version", "1.30"]])
@pytest.mark.parametrize("value", ["nan", "inf", "1e400"])
def test_cycle_minutes_must_be_finite(run_cli, value: str, command: list[str]) -> None:
    # Before: nan and inf passed FloatRange and crashed the duration maths (exit 70).
    result = run_cli(*command, "--state", str(EXAMPLE_STATE), "--cycle-minutes", value)
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


def test_nodes_flag_is_bounded_like_the_state(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--nodes", "100000000")
    assert result.exit_code == 2, result.stderr
    assert "--nodes" in result.stderr


@pytest.mark.parametrize("args", [
    ("set-policy", "-g", "workers", "-g", "gpu", "--max-expansion", "2"),
    ("set-policy", "-g", "workers", "-g", "gpu", "--max-expansion", "2", "--apply"),
    ("wait", "-g", "workers", "-g", "gpu"),
    ("wait", "--operation", "op-1", "--operation", "op-2"),
])
def test_repeated_single_target_option_is_a_usage_error(run_cli, args: tuple[str, ...]) -> None:
    # Before: click kept the last --group silently, so `set-policy -g workers -g gpu --apply`
    # changed gpu alone while the user may have meant workers (or both).
    result = run_cli(*args, "--state", str(EXAMPLE_STATE), "--endpoint", "127.0.0.1:9",
                     "--insecure")
    assert result.exit_code == 2, result.stderr
    assert "given 2 times" in result.stderr
    assert "NodeGroupService" not in result.stderr  # refused before any cloud call


def test_bad_value_from_the_environment_names_the_variable(
        run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: "Invalid value for '--output'" although no --output was typed.
    result = run_cli("groups", "--state", str(EXAMPLE_STATE))
    assert result.exit_code == 0
    monkeypatch.setenv("NGUPGRADE_OUTPUT", "xml")
    result = run_cli("groups", "--state", str(EXAMPLE_STATE))
    assert result.exit_code == 2
    assert "(from the environment variable NGUPGRADE_OUTPUT)" in result.stderr
    monkeypatch.delenv("NGUPGRADE_OUTPUT")
    typed = run_cli("groups", "--state", str(EXAMPLE_STATE), "--output", "yaml")
    assert typed.exit_code == 2
    assert "environment" not in typed.stderr
