"""The upgrade's quota gate runs the limits `ngupgrade preflight` checks (core/quota/limits.py):
nodes per group and per cluster (the cluster's other groups counted), the zonal quotas, a
spread placement group's peak, the auto-upgrade window while the upgrade runs.

Through the real CLI on the fake cloud (real gRPC, the SDK). The example state: cluster
catq0n7i0h9ka1b2c3d4 holds gpu (fixed 1), workers (fixed 3, 1/0) and batch (autoscaled 1..7).
The fake's wall clock starts at 2027-01-15 08:00 UTC, a Friday.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ngupgrade.testing import weekly_window
from tests._upgrade_helpers import STATE, cli, example_cloud, updates

CLOUD = "b1gexamplecloud000001"
WORKERS = "yandex_kubernetes_node_group.workers"
Capsys = pytest.CaptureFixture[str]

H = timedelta(hours=1)


def _state(tmp_path: Path, workers: dict[str, Any],
           extra: list[dict[str, Any]] | None = None) -> str:
    doc = json.loads(Path(STATE).read_text())
    attrs = next(r for r in doc["resources"] if r.get("name") == "workers")
    attrs["instances"][0]["attributes"].update(workers)
    doc["resources"] += extra or []
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


def _lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_cluster_node_limit_counts_the_other_groups_and_refuses_before_any_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # workers at 2/1: 3 nodes + 2 surge. The cluster: gpu 1 + batch 7 (its max) + workers 3
    # = 11 nodes, + 2 = 13 > 12. Before, the gate counted workers alone (3 + 2 <= 12) and the
    # upgrade went on.
    with example_cloud() as fake:
        fake.set_quota(CLOUD, "managed-kubernetes.clusterNodes.count", 12.0, 0.0)
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--max-expansion", "2", "--max-unavailable", "1", "--apply",
                             "--journal", str(tmp_path / "j.json"), "-o", "json")
        assert updates(fake) == []
    assert code == 1, err
    events = _lines(out)
    gate = next(e for e in events if e["event"] == "preflight")
    assert gate["ok"] is False
    (row,) = [q for q in gate["preflight"]["clouds"][0]["quotas"]
              if q["quota_id"] == "managed-kubernetes.clusterNodes.count"]
    assert (row["scope"], row["limit"], row["usage"], row["headroom"], row["demand"],
            row["status"]) == ("cluster catq0n7i0h9ka1b2c3d4", 12, 11, 1, 2, "short")
    last = events[-1]
    assert (last["event"], last["exit_code"], last["error"]["code"]) == (
        "error", 1, "check-failed")
    assert last["message"] == (
        "quota preflight failed: b1gexamplecloud000001: managed-kubernetes.clusterNodes.count "
        "(cluster catq0n7i0h9ka1b2c3d4) needs 2 nodes, headroom 1 node; nothing was changed")
    assert "calls" not in [e["event"] for e in events]
    assert not (tmp_path / "j.json").exists()


def test_group_node_limit_refuses_in_text_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: Capsys) -> None:
    with example_cloud() as fake:
        fake.set_quota(CLOUD, "managed-kubernetes.groupNodes.count", 4.0, 0.0)
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--max-expansion", "2", "--max-unavailable", "1", "--apply",
                             "--journal", str(tmp_path / "j.json"))
        assert updates(fake) == []
    assert code == 1
    assert ("managed-kubernetes.groupNodes.count (group yandex_kubernetes_node_group.workers)"
            "  4 nodes    3 nodes   1 node     2 nodes  SHORT by 1 node") in out
    assert ("error: quota preflight failed: b1gexamplecloud000001: "
            "managed-kubernetes.groupNodes.count (group yandex_kubernetes_node_group.workers) "
            "needs 2 nodes, headroom 1 node; nothing was changed") in err


MONDAY_15 = weekly_window("monday", "15:00", 3 * H)
FRIDAY_08_10 = weekly_window("friday", "08:10", H)


def _maintenance(*windows: dict[str, str]) -> dict[str, Any]:
    return {"maintenance_policy": [{"auto_repair": True, "auto_upgrade": True,
                                    "maintenance_window": list(windows)}]}


def test_an_auto_upgrade_window_during_the_run_is_a_warning_event(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # workers at 1/0: 3 cycles x 6 min = 18 min from Friday 08:00; a window at 08:10 opens
    # during the run, one on Monday does not.
    opening = _state(tmp_path, _maintenance(MONDAY_15, FRIDAY_08_10))
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", opening, "-g", "workers",
                             "--version", "1.30", "-o", "json")
        assert code == 0, err
    warnings = [e for e in _lines(out) if e["event"] == "warning"]
    assert [(w["group"], w["code"]) for w in warnings] == [(WORKERS, "auto-upgrade-window")]
    assert warnings[0]["message"] == (
        "yandex_kubernetes_node_group.workers: auto_upgrade is on and its maintenance window "
        "(friday 08:10 UTC for 1h00m) is open at 2027-01-15 08:10 UTC, during this upgrade "
        "(from 2027-01-15 08:00 UTC, up to 18 min at 6 min a cycle): the service may start its "
        "own upgrade of the group; set maintenance_policy.auto_upgrade = false for the run, or "
        "start it outside the window")
    # --cycle-minutes is the run's own estimate: 3 x 2 min ends before 08:10
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", opening, "-g", "workers",
                             "--version", "1.30", "--cycle-minutes", "2", "-o", "json")
        assert code == 0, err
    assert [e for e in _lines(out) if e["event"] == "warning"] == []


def test_a_full_spread_placement_group_stops_the_gate_like_preflight(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    template = json.loads(Path(STATE).read_text())
    workers = next(r for r in template["resources"] if r.get("name") == "workers")
    tpl = workers["instances"][0]["attributes"]["instance_template"]
    tpl[0]["placement_policy"] = [{"placement_group_id": "fd8pg0example"}]
    pg = {"mode": "managed", "type": "yandex_compute_placement_group", "name": "pg",
          "instances": [{"attributes": {"id": "fd8pg0example",
                                        "placement_strategy_spread": True}}]}
    state = _state(tmp_path, {"instance_template": tpl}, [pg])
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", state, "-g", "workers",
                             "--version", "1.30", "--max-expansion", "3", "--max-unavailable",
                             "0")
        # the gate refuses what preflight refuses (was exit 0 with a warning line): the surge
        # nodes cannot be placed, nothing is sent
        assert code == 1, err
        assert updates(fake) == []
    assert ("error: quota preflight failed: b1gexamplecloud000001: "
            "compute.placementGroupInstances.count (placement group fd8pg0example) needs 3 "
            "VMs, headroom 2 VMs; nothing was changed") in err
    assert ("yandex_kubernetes_node_group.workers: max_expansion=2 max_unavailable=0: peak 5 "
            "nodes") in out
    # at the policy it suggests, the run passes its gate and the warning is gone
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", state, "-g", "workers",
                             "--version", "1.30", "--max-expansion", "2", "--max-unavailable",
                             "0")
        assert code == 0, err
    assert "spread placement group" not in out


def _group_windows(tmp_path: Path, name: str, *windows: dict[str, str]) -> str:
    doc = json.loads(Path(STATE).read_text())
    res = next(r for r in doc["resources"] if r.get("name") == name
               and r["type"] == "yandex_kubernetes_node_group")
    res["instances"][0]["attributes"].update(_maintenance(*windows))
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


def test_a_group_run_after_another_is_judged_from_its_own_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # -g workers -g gpu: workers first, 3 cycles x 6 min = 08:00..08:18; gpu (1 node, one
    # 6-min cycle) then runs 08:18..08:24. Its window friday 07:30 for 40 min (closes 08:10)
    # is over by then; the one at 08:20 opens during its run. Before, every group was judged
    # from the run's start: gpu 08:00..08:06 met the first window and missed the second.
    state = _group_windows(tmp_path, "gpu",
                           weekly_window("friday", "07:30", timedelta(minutes=40)),
                           weekly_window("friday", "08:20", H))
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", state, "-g", "workers",
                             "-g", "gpu", "--version", "1.30", "-o", "json")
        assert code == 0, err
    warnings = [e for e in _lines(out) if e["event"] == "warning"]
    assert [(w["group"], w["code"]) for w in warnings] == [
        ("yandex_kubernetes_node_group.gpu", "auto-upgrade-window")]
    assert warnings[0]["message"] == (
        "yandex_kubernetes_node_group.gpu: auto_upgrade is on and its maintenance window "
        "(friday 08:20 UTC for 1h00m) is open at 2027-01-15 08:20 UTC, during this upgrade "
        "(from 2027-01-15 08:18 UTC, up to 6 min at 6 min a cycle): the service may start its "
        "own upgrade of the group; set maintenance_policy.auto_upgrade = false for the run, or "
        "start it outside the window")
    # gpu first: it runs 08:00..08:06, inside the 07:30 window
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", state, "-g", "gpu",
                             "-g", "workers", "--version", "1.30", "-o", "json")
        assert code == 0, err
    (first,) = [e for e in _lines(out) if e["event"] == "warning"]
    assert "(friday 07:30 UTC for 0h40m) is open at 2027-01-15 08:00 UTC, during this " \
        "upgrade (from 2027-01-15 08:00 UTC, up to 6 min" in first["message"]


def test_the_gate_names_where_the_policy_came_from(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # The gate judges workers with the policy it will run with. Before, its table showed the
    # policy bare ("2/1", "1/0"), as if the state's: now as the plan names it.
    from tests.test_drain_check_cli import calm_cluster, dump

    cluster = dump(tmp_path, calm_cluster())
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--max-expansion", "2", "--max-unavailable", "1",
                             "--cluster", cluster, "--accept", "pdb-blocks-eviction")
        assert code == 0, err
        lines = out.splitlines()
        assert ("  deploy policy   max_expansion 2, max_unavailable 1 (command-line override)"
                in lines)
        assert any(line.startswith(f"  {WORKERS}  {CLOUD}  2/1 (override)  3 fixed")
                   for line in lines), out
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--cluster", cluster, "-o", "json")
        assert code == 0, err
    events = _lines(out)
    (group,) = next(e for e in events if e["event"] == "preflight")["preflight"]["groups"]
    live = {"max_expansion": 1, "max_unavailable": 0, "source": "live", "assumed": False}
    assert group["policy"] == live
    drain = next(e for e in events if e["event"] == "drain_check")["drain"]["groups"][0]
    assert drain["configured_policy"] == live


BATCH = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'


def _batch_windows(tmp_path: Path, *windows: dict[str, str]) -> str:
    doc = json.loads(Path(STATE).read_text())
    (batch,) = [i for r in doc["resources"] if r["type"] == "yandex_kubernetes_node_group"
                for i in r["instances"] if i.get("index_key") == "batch"]
    batch["attributes"].update(_maintenance(*windows))
    path = tmp_path / f"batch-{len(windows)}.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


def test_an_autoscaled_group_s_window_is_judged_for_the_plan_shown_and_said_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # batch: auto 1..7, 1 node live on the fake, 2/1: the plan shows 1 cycle, 6 min. A window
    # at 08:10 opens after that run. Before, the gate took the autoscaler max (7 cycles, 42
    # min), warned, and the dry run printed the warning twice (the preflight table and '!').
    state = _batch_windows(tmp_path, weekly_window("friday", "08:10", H))
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", state, "-g", "batch",
                             "--version", "1.30")
        assert code == 0, err
    assert "  duration        6 min at 6 min per cycle" in out
    assert "auto_upgrade" not in out
    anytime = _batch_windows(tmp_path)  # no window: any time
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", anytime, "-g", "batch",
                             "--version", "1.30")
        assert code == 0, err
    said = [line for line in out.splitlines() if "auto_upgrade is on" in line]
    assert said == [
        f"! {BATCH}: auto_upgrade is on with no maintenance window (any time): the service may "
        "start its own upgrade of the group during this upgrade (from 2027-01-15 08:00 UTC, up "
        "to 6 min at 6 min a cycle); set maintenance_policy.auto_upgrade = false for the run, "
        "or start it outside the window"]
