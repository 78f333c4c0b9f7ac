"""Limits beside the cloud-wide quotas, through `ngupgrade preflight` (issue 11 items 19-22).

The example state: cluster catq0n7i0h9ka1b2c3d4 holds gpu (fixed 1, an A100, zone
ru-central1-a), workers (fixed 3, 4 cores, 1/0, ru-central1-a) and batch (autoscaled 1..7).
Numbers by hand below; sources: reference yandex-and-terraform-facts.md section 2 (groupNodes,
clusterNodes, the zonal T4 quota), kubernetes-and-drain-facts.md section 1 (a spread
placement group holds at most 5 VMs; auto-upgrade windows in UTC).
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from ngupgrade.testing import TfState, weekly_window, yandex_placement_group
from tests.conftest import EXAMPLE_STATE, EXAMPLES

CLOUD = "b1gexamplecloud000001"
QUOTAS = yaml.safe_load((EXAMPLES / "quotas.yaml").read_text())[CLOUD]


def _state(tmp_path: Path, *, workers: dict[str, Any] | None = None,
           extra: list[dict[str, Any]] | None = None) -> str:
    doc = json.loads(EXAMPLE_STATE.read_text())
    attrs = next(r for r in doc["resources"] if r.get("name") == "workers")
    attrs["instances"][0]["attributes"].update(workers or {})
    doc["resources"] += extra or []
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


def _quotas(tmp_path: Path, **more: dict[str, int]) -> str:
    path = tmp_path / "quotas.json"
    path.write_text(json.dumps({CLOUD: {**QUOTAS, **more}}))
    return str(path)


def _preflight(run_cli, state: str, quotas: str, *argv: str):
    return run_cli("preflight", "--state", state, "--quotas", quotas, *argv, "-o", "json")


def _rows(result) -> dict[tuple[str, str | None], dict]:
    return {(q["quota_id"], q["scope"]): q for q in result.json()["clouds"][0]["quotas"]}


# ---- item 19: nodes per group and per cluster ------------------------------------------------

def test_group_and_cluster_node_limits(run_cli, tmp_path: Path) -> None:
    # Before: listed or not, groupNodes.count and clusterNodes.count were never looked at.
    quotas = _quotas(tmp_path, **{
        "managed-kubernetes.groupNodes.count": {"limit": 4, "usage": 0},
        "managed-kubernetes.clusterNodes.count": {"limit": 12, "usage": 0}})
    # workers at 2/1: peak 3 + 2 = 5 > 4 per group. The cluster: gpu 1 + batch 7 (its max)
    # + workers 3 = 11 nodes, + 2 surge = 13 > 12.
    result = _preflight(run_cli, str(EXAMPLE_STATE), quotas, "-g", "workers",
                        "--max-expansion", "2", "--max-unavailable", "1")
    assert result.exit_code == 1
    rows = _rows(result)
    group = rows[("managed-kubernetes.groupNodes.count",
                  "group yandex_kubernetes_node_group.workers")]
    assert (group["limit"], group["usage"], group["headroom"], group["demand"],
            group["status"]) == (4, 3, 1, 2, "short")
    cluster = rows[("managed-kubernetes.clusterNodes.count", "cluster catq0n7i0h9ka1b2c3d4")]
    assert (cluster["usage"], cluster["headroom"], cluster["demand"], cluster["status"]) == (
        11, 1, 2, "short")
    # at 1/0 both fit: peak 4 <= 4, cluster 12 <= 12
    fine = _preflight(run_cli, str(EXAMPLE_STATE), quotas, "-g", "workers")
    assert {q["status"] for k, q in _rows(fine).items() if k[1]} == {"ok"}


def test_node_limits_unlisted_are_not_invented(run_cli) -> None:
    result = _preflight(run_cli, str(EXAMPLE_STATE), str(EXAMPLES / "quotas.yaml"),
                        "-g", "workers")
    # the node limits only when listed; the spread placement group workers runs in has a
    # fixed limit (5 VMs), so its row is always there
    assert [k for k in _rows(result) if k[1] is not None] == [
        ("compute.placementGroupInstances.count", "placement group fd8examplespread0001")]


# ---- item 20: zonal GPU quotas ---------------------------------------------------------------

def test_a_zonal_gpu_quota_counts_the_groups_in_its_zone(run_cli, tmp_path: Path) -> None:
    # gpu (1 node, 1 A100, zone ru-central1-a, 3/0 assumed: surge 1) draws 1 A100 on the
    # cloud-wide quota and on the zonal one of its zone; not on another zone's.
    quotas = _quotas(tmp_path, **{
        "compute.instanceA100Gpus.count": {"limit": 4, "usage": 1},
        "compute.instanceA100Gpus.count.ru-central1-a": {"limit": 1, "usage": 1},
        "compute.instanceA100Gpus.count.ru-central1-d": {"limit": 0, "usage": 0}})
    result = _preflight(run_cli, str(EXAMPLE_STATE), quotas, "-g", "gpu")
    assert result.exit_code == 1
    rows = _rows(result)
    assert rows[("compute.instanceA100Gpus.count", None)]["status"] == "ok"
    zonal = rows[("compute.instanceA100Gpus.count.ru-central1-a", None)]
    assert (zonal["demand"], zonal["headroom"], zonal["status"], zonal["unit"]) == (
        1, 0, "short", "GPUs")
    assert ("compute.instanceA100Gpus.count.ru-central1-d", None) not in rows


# ---- item 21: a spread placement group holds at most 5 VMs -----------------------------------

def _in_placement_group(strategy: dict[str, Any] | None) -> tuple[dict, list]:
    template = json.loads(EXAMPLE_STATE.read_text())
    workers = next(r for r in template["resources"] if r.get("name") == "workers")
    tpl = workers["instances"][0]["attributes"]["instance_template"]
    tpl[0]["placement_policy"] = [{"placement_group_id": "fd8pg0example"}]
    extra = [] if strategy is None else TfState().add(
        "yandex_compute_placement_group", "pg",
        yandex_placement_group(id="fd8pg0example", **strategy)).to_v4()["resources"]
    return {"instance_template": tpl}, extra


def test_spread_placement_group_peak_above_5_warns(run_cli, tmp_path: Path) -> None:
    # workers: 3 nodes at 3/0 -> peak 6 > 5: at most 5 - 3 = 2 surge nodes fit.
    workers, extra = _in_placement_group({})
    state = _state(tmp_path, workers=workers, extra=extra)
    result = _preflight(run_cli, state, str(EXAMPLES / "quotas.yaml"), "-g", "workers",
                        "--max-expansion", "3")
    (warning,) = [w for w in result.json()["warnings"]
                  if w["code"] == "spread-placement-group-full"]
    assert warning["message"] == (
        "yandex_kubernetes_node_group.workers: its nodes run in spread placement group "
        "fd8pg0example, which holds at most 5 VMs; the upgrade's peak is 6 (3 nodes + 3 "
        "surge), so at most 2 surge node(s) can be placed: max_expansion 2 or less")
    fits = _preflight(run_cli, state, str(EXAMPLES / "quotas.yaml"), "-g", "workers",
                      "--max-expansion", "2")
    assert "spread-placement-group-full" not in [w["code"] for w in fits.json()["warnings"]]


def test_partition_placement_group_has_no_such_limit(run_cli, tmp_path: Path) -> None:
    workers, extra = _in_placement_group({"partitions": 3})
    state = _state(tmp_path, workers=workers, extra=extra)
    result = _preflight(run_cli, state, str(EXAMPLES / "quotas.yaml"), "-g", "workers",
                        "--max-expansion", "3")
    assert "spread-placement-group-full" not in [w["code"] for w in result.json()["warnings"]]


def test_a_placement_group_not_in_the_state_is_assumed_spread(run_cli, tmp_path: Path) -> None:
    workers, _ = _in_placement_group(None)
    state = _state(tmp_path, workers=workers)
    result = _preflight(run_cli, state, str(EXAMPLES / "quotas.yaml"), "-g", "workers",
                        "--max-expansion", "3")
    (warning,) = [w for w in result.json()["warnings"]
                  if w["code"] == "spread-placement-group-full"]
    assert "(spread assumed: the state does not hold it)" in warning["message"]


# ---- item 22: the service's own auto-upgrade window -------------------------------------------

def _policy(*windows: dict[str, str], auto_upgrade: bool = True) -> dict[str, Any]:
    """``maintenance_policy`` as the provider writes it, with these windows."""
    return {"maintenance_policy": [{"auto_repair": True, "auto_upgrade": auto_upgrade,
                                    "maintenance_window": list(windows)}]}


MONDAY_15 = weekly_window("monday", "15:00", timedelta(hours=3))
MONDAY_15_3H = _policy(MONDAY_15)


def _window_warnings(run_cli, state: str, start: str) -> list[str]:
    result = _preflight(run_cli, state, str(EXAMPLES / "quotas.yaml"), "-g", "workers",
                        "--start-at", start)
    assert result.exit_code == 0, result.stderr
    return [w["message"] for w in result.json()["warnings"] if w["code"] == "auto-upgrade-window"]


def test_auto_upgrade_window_opening_during_the_run_warns(run_cli, tmp_path: Path) -> None:
    # workers at 1/0: 3 cycles x 6 min = 18 min. 2025-03-17 is a Monday.
    state = _state(tmp_path, workers=MONDAY_15_3H)
    assert _window_warnings(run_cli, state, "2025-03-17T14:00") == []  # 14:00-14:18
    (late,) = _window_warnings(run_cli, state, "2025-03-17T14:50")  # 14:50-15:08
    assert late == (
        "yandex_kubernetes_node_group.workers: auto_upgrade is on and its maintenance window "
        "(monday 15:00 UTC for 3h00m) is open at 2025-03-17 15:00 UTC, during this upgrade "
        "(from 2025-03-17 14:50 UTC, up to 18 min at 6 min a cycle): the service may start its "
        "own upgrade of the group; set maintenance_policy.auto_upgrade = false for the run, or "
        "start it outside the window")
    (inside,) = _window_warnings(run_cli, state, "2025-03-17T17:55")  # open until 18:00
    assert "is open at 2025-03-17 17:55 UTC" in inside
    assert _window_warnings(run_cli, state, "2025-03-18T15:00") == []  # a Tuesday


def test_auto_upgrade_any_time_warns_and_off_does_not(run_cli, tmp_path: Path) -> None:
    anytime = _policy()
    (warning,) = _window_warnings(run_cli, _state(tmp_path, workers=anytime), "2025-03-17T14:00")
    assert "auto_upgrade is on with no maintenance window (any time)" in warning
    # the example's own workers: auto_upgrade false
    assert _window_warnings(run_cli, str(EXAMPLE_STATE), "2025-03-17T14:00") == []


def test_a_maintenance_window_that_is_not_a_time_is_noted(run_cli, tmp_path: Path) -> None:
    # Before: bad input (exit 3) for every command; the window only feeds a warning.
    bad = _policy({**MONDAY_15, "start_time": "25:00:00.000000000"})
    state = _state(tmp_path, workers=bad)
    result = run_cli("groups", "--state", state)
    assert result.exit_code == 0, result.stderr
    assert ("note: yandex_kubernetes_node_group.workers: auto-upgrade window not checked: "
            "maintenance_policy[0].maintenance_window[0].start_time '25:00:00.000000000' is not "
            "a time of day (HH:MM, HH:MM:SS or HH:MM:SS.fffffffff)\n") in result.stderr


@pytest.mark.parametrize("day", ["mon", "Funday", "7"])
def test_a_maintenance_window_day_that_is_no_weekday_is_noted(run_cli, tmp_path: Path,
                                                              day: str) -> None:
    bad = _policy({**MONDAY_15, "day": day})
    result = run_cli("groups", "--state", _state(tmp_path, workers=bad))
    assert result.exit_code == 0, result.stderr
    assert (f"auto-upgrade window not checked: maintenance_policy[0].maintenance_window[0].day "
            f"{day!r} is not a day of the week (one of monday, tuesday, wednesday, thursday, "
            "friday, saturday, sunday, in any case, or none for a daily window)") in result.stderr


def test_a_maintenance_window_day_in_capitals_is_that_day(run_cli, tmp_path: Path) -> None:
    # The form HCL holds (the provider lower-cases the day it reads back; a plan's `after`
    # and a hand-edited state keep what was typed): about that form, so written in it.
    policy = _policy({"day": "MONDAY", "start_time": "15:00", "duration": "3h"})
    (late,) = _window_warnings(run_cli, _state(tmp_path, workers=policy), "2025-03-17T14:50")
    assert "(monday 15:00 UTC for 3h00m) is open at 2025-03-17 15:00 UTC" in late


@pytest.mark.parametrize("start", ["2025-03-17T14:50", "2025-03-17 14:50",
                                   "2025-03-17T14:50:00Z",  # what `date -u +%FT%TZ` prints
                                   "2025-03-17T14:50:00", "2025-03-17T14:50:00+00:00",
                                   "2025-03-17T14:50Z", "2025-03-17T17:50:00+03:00"])
def test_start_at_takes_iso_8601_with_seconds_and_an_offset(run_cli, tmp_path: Path,
                                                             start: str) -> None:
    # every form is 14:50 UTC (+03:00 converted); the window opens at 15:00, during the run
    (late,) = _window_warnings(run_cli, _state(tmp_path, workers=MONDAY_15_3H), start)
    assert "during this upgrade (from 2025-03-17 14:50 UTC" in late
