"""Maintenance windows in the form terraform-provider-yandex writes them into a state, and in
the form HCL carries them: both give the same auto-upgrade-window warning.

The provider's form (terraform-provider-yandex@b52b1df, ``flattenMaintenanceWindow`` in
``yandex/structures.go``, called by ``flattenKubernetesNodeGroupMaintenancePolicy`` in
``yandex/resource_yandex_kubernetes_node_group.go``): ``start_time`` from ``formatTimeOfDay``
(``time.Format("15:04:05.000000000")``, ``yandex/resource_yandex_kubernetes_cluster.go``),
``duration`` from ``formatDuration`` (Go's ``Duration.String()``, ``yandex/utils.go``) and
``day`` as ``strings.ToLower(d.String())``. HCL: whatever ``parseDayTime``/``parseDuration``/
``parseDayOfWeek`` accept (``"15:00"``, ``"3h"``, ``"MONDAY"``).

The example's workers: fixed 3 at 1/0, 3 cycles x 6 min = 18 min. 2025-03-17 is a Monday.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ngupgrade.testing import daily_window, weekly_window
from tests.conftest import EXAMPLE_STATE, EXAMPLES


def _state(tmp_path: Path, windows: list[dict[str, Any]], auto_upgrade: bool = True) -> str:
    doc = json.loads(EXAMPLE_STATE.read_text())
    workers = next(r for r in doc["resources"] if r.get("name") == "workers")
    workers["instances"][0]["attributes"]["maintenance_policy"] = [
        {"auto_repair": True, "auto_upgrade": auto_upgrade, "maintenance_window": windows}]
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


def _warnings(run_cli, state: str, start: str) -> list[str]:
    result = run_cli("preflight", "--state", state, "--quotas", str(EXAMPLES / "quotas.yaml"),
                     "-g", "workers", "--start-at", start, "-o", "json")
    assert result.exit_code == 0, result.stderr
    return [w["message"] for w in result.json()["warnings"] if w["code"] == "auto-upgrade-window"]


PROVIDER_WEEKLY = weekly_window("monday", "15:00", timedelta(hours=3))
HCL_WEEKLY = {"day": "MONDAY", "duration": "3h", "start_time": "15:00"}
LATE = ("yandex_kubernetes_node_group.workers: auto_upgrade is on and its maintenance window "
        "(monday 15:00 UTC for 3h00m) is open at 2025-03-17 15:00 UTC, during this upgrade "
        "(from 2025-03-17 14:50 UTC, up to 18 min at 6 min a cycle): the service may start its "
        "own upgrade of the group; set maintenance_policy.auto_upgrade = false for the run, or "
        "start it outside the window")


@pytest.mark.parametrize("window", [PROVIDER_WEEKLY, HCL_WEEKLY], ids=["provider", "hcl"])
def test_a_weekly_window_warns_in_either_form(run_cli, tmp_path: Path, window: dict) -> None:
    # Before: the provider's form was bad input (exit 3) for every command.
    state = _state(tmp_path, [window])
    assert _warnings(run_cli, state, "2025-03-17T14:50") == [LATE]
    assert _warnings(run_cli, state, "2025-03-17T14:00") == []  # 14:00-14:18
    assert _warnings(run_cli, state, "2025-03-18T15:00") == []  # a Tuesday


def test_the_providers_daily_window_and_half_hours(run_cli, tmp_path: Path) -> None:
    daily = daily_window("22:30", timedelta(hours=4, minutes=30))  # day "": every day
    (warning,) = _warnings(run_cli, _state(tmp_path, [daily]), "2025-03-19T02:55")
    assert "(every day 22:30 UTC for 4h30m) is open at 2025-03-19 02:55 UTC" in warning
    assert _warnings(run_cli, _state(tmp_path, [daily]), "2025-03-19T03:00") == []


@pytest.mark.parametrize("duration", ["5400s", "90m", "1.5h", "1h30m0s"])
def test_a_window_keeps_its_seconds(run_cli, tmp_path: Path, duration: str) -> None:
    # Before: "5400s" was read as 1 minute (seconds rounded up to one minute, hours and minutes
    # taken only from their own units), so a run at 16:00 met no window; "1.5h" was bad input.
    state = _state(tmp_path, [{"day": "monday", "duration": duration,
                               "start_time": "15:00:00.000000000"}])
    (warning,) = _warnings(run_cli, state, "2025-03-17T16:00")
    assert "(monday 15:00 UTC for 1h30m) is open at 2025-03-17 16:00 UTC" in warning
    assert _warnings(run_cli, state, "2025-03-17T16:30") == []


def test_two_weekly_windows_as_the_provider_writes_them(run_cli, tmp_path: Path) -> None:
    state = _state(tmp_path, [weekly_window("monday", "15:00", timedelta(hours=3)),
                              weekly_window("friday", "10:00", timedelta(hours=4.5))])
    (friday,) = _warnings(run_cli, state, "2025-03-21T14:20")
    assert "(friday 10:00 UTC for 4h30m) is open at 2025-03-21 14:20 UTC" in friday


@pytest.mark.parametrize(("start_time", "duration", "why"), [
    ("25:00", "3h", "start_time '25:00' is not a time of day"),
    ("15:00:00.000000000", "3 hours", "duration '3 hours' is not a duration"),
    ("15:00:00.000000000", "-3h0m0s", "duration '-3h0m0s' is negative"),
    ("15:00:00.000000000", "0s", "duration '0s' is zero"),
    ("15:00:00.000000000", "25h0m0s", "duration '25h0m0s' is longer than 24h"),
])
def test_a_window_that_is_not_one_says_which_attribute(run_cli, tmp_path: Path,
                                                      start_time: str, duration: str,
                                                      why: str) -> None:
    # The window only feeds a warning: the state is read, and the note says what was not
    # checked (tests/test_state_notes.py covers every report).
    state = _state(tmp_path, [{"day": "monday", "duration": duration, "start_time": start_time}])
    result = run_cli("groups", "--state", state)
    assert result.exit_code == 0, result.stderr
    assert ("note: yandex_kubernetes_node_group.workers: auto-upgrade window not checked: "
            f"maintenance_policy[0].maintenance_window[0].{why}") in result.stderr
