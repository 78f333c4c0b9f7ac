"""``upgrade --schedule advised`` runs the pre-change gate of a sequential ``upgrade`` (one
path, app/upgrade.py ``gate``): the quota preflight with the limits and the state's other groups,
the drain gate with ``--accept``, the placement-group and auto-upgrade-window warnings, each
group judged with the policy its stage gives it, before any Update.

Through the real CLI on the fake cloud (real gRPC, the SDK), the example state and the demo
scenario's quotas. The fake's wall clock starts at 2027-01-15 08:00 UTC, a Friday. With no
cluster objects the advisor gives workers (fixed 3) 3/0, one 6-minute cycle, and gpu (fixed 1,
the same cluster) 1/0 in a stage of its own after it: workers 08:00..08:06, gpu 08:06..08:12.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ngupgrade.testing import weekly_window
from tests._upgrade_helpers import STATE, cli, example_cloud, updates
from tests.test_drain_check_cli import calm_cluster, dump, spread_cluster

Capsys = pytest.CaptureFixture[str]
WORKERS = "yandex_kubernetes_node_group.workers"
GPU = "yandex_kubernetes_node_group.gpu"
ADVISED = ("--version", "1.30", "--schedule", "advised")

H = timedelta(hours=1)


def _lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _with_windows(tmp_path: Path, name: str, *windows: dict[str, str]) -> str:
    doc = json.loads(Path(STATE).read_text())
    res = next(r for r in doc["resources"] if r.get("name") == name
               and r["type"] == "yandex_kubernetes_node_group")
    res["instances"][0]["attributes"]["maintenance_policy"] = [
        {"auto_repair": True, "auto_upgrade": True, "maintenance_window": list(windows)}]
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


def test_a_drain_finding_the_advisor_lets_pass_stops_the_schedule_before_any_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # web-1 requires anti-affinity to the other web pods: the drain check does not model it.
    # The advisor only warns (its recommendation is not cleared for that pod); the gate of a
    # sequential upgrade refuses it unless --accept constraint-not-modelled. Before, the
    # advised run sent its Updates.
    monkeypatch.chdir(tmp_path)  # the journals under .ngupgrade/
    cluster = dump(tmp_path, spread_cluster())
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", *ADVISED,
                             "--cluster", cluster, "--apply", "-o", "json")
        assert code == 1, err
        assert updates(fake) == []
        assert fake.group("workers").version == "1.29"
    events = _lines(out)
    kinds = [e["event"] for e in events]
    assert kinds[:4] == ["plan", "stage", "preflight", "drain_check"]
    assert "calls" not in kinds and "group_started" not in kinds
    drain = events[3]
    assert drain["ok"] is False
    assert [f["code"] for g in drain["drain"]["groups"] for f in g["findings"]
            if f["code"] == "constraint-not-modelled"] == ["constraint-not-modelled"]
    last = events[-1]
    assert (last["event"], last["exit_code"], last["error"]["code"]) == (
        "error", 1, "check-failed")
    assert "constraint-not-modelled" in last["message"]
    assert last["message"].endswith("; nothing was changed")
    assert "then --accept constraint-not-modelled" in last["hint"]
    assert not list((tmp_path / ".ngupgrade").glob("*.json"))
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", *ADVISED,
                             "--cluster", cluster, "--accept", "constraint-not-modelled",
                             "--apply", "-o", "json")
        assert code == 0, err
        assert fake.group("workers").version == "1.30"
    drain = next(e for e in _lines(out) if e["event"] == "drain_check")
    assert drain["ok"] is True


def test_the_drain_gate_judges_the_policy_the_stage_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # calm: 3 web pods (one per node) under minAvailable 2. The advisor gives workers the
    # fastest policy whose drain passes; the gate checks that same policy (not the state's
    # 1/0): one wave per node the policy drains at once.
    monkeypatch.chdir(tmp_path)
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", *ADVISED,
                             "--cluster", dump(tmp_path, calm_cluster()), "-o", "json")
        assert code == 0, err
    events = _lines(out)
    (stage,) = [e for e in events if e["event"] == "stage"]
    policy = stage["groups"][0]["policy"]
    (plan,) = next(e for e in events if e["event"] == "plan")["plan"]["groups"]
    assert plan["policy"] == {**policy, "source": "advised", "assumed": False}
    drain = next(e for e in events if e["event"] == "drain_check")
    (group,) = drain["drain"]["groups"]
    assert group["policy"] == policy
    assert group["configured_policy"] == {**policy, "source": "advised", "assumed": False}


def test_an_auto_upgrade_window_is_judged_from_the_groups_stage_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # gpu runs in stage 2, 08:12..08:18 (workers first at 2/0, two 6-min cycles: 3 surge
    # nodes do not fit its spread placement group): its window from 08:08 is open then; the
    # one that closes at 08:03 is over. Before, the advised run showed no window warning.
    monkeypatch.chdir(tmp_path)
    state = _with_windows(tmp_path, "gpu",
                          weekly_window("friday", "07:30", timedelta(minutes=33)),
                          weekly_window("friday", "08:08", H))
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", state, "-g", "workers",
                             "-g", "gpu", *ADVISED, "-o", "json")
        assert code == 0, err
    events = _lines(out)
    starts = [(e["start_minutes"], [g["address"] for g in e["groups"]])
              for e in events if e["event"] == "stage"]
    assert starts == [(0, [WORKERS]), (12, [GPU])]
    warnings = [e for e in events if e["event"] == "warning"
                and e["code"] == "auto-upgrade-window"]
    assert [w["group"] for w in warnings] == [GPU]
    assert warnings[0]["message"] == (
        "yandex_kubernetes_node_group.gpu: auto_upgrade is on and its maintenance window "
        "(friday 08:08 UTC for 1h00m) is open at 2027-01-15 08:12 UTC, during this upgrade "
        "(from 2027-01-15 08:12 UTC, up to 6 min at 6 min a cycle): the service may start its "
        "own upgrade of the group; set maintenance_policy.auto_upgrade = false for the run, or "
        "start it outside the window")
    kinds = [e["event"] for e in events]
    assert kinds.index("dry_run") < kinds.index("warning")  # shown with the calls
    # in text, the same warning line (with the group's name: groups run in parallel)
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", state, "-g", "workers",
                             "-g", "gpu", *ADVISED)
        assert code == 0, err
    assert f"[gpu] ! {warnings[0]['message']}" in out.splitlines()


def test_the_advised_schedule_keeps_a_surge_its_spread_placement_group_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # workers in a spread placement group (at most 5 VMs): 3/0 would peak at 6. Was: the
    # advisor chose 3/0 and the run only warned spread-placement-group-full; now the advisor
    # judges the placement group like the gate does and keeps 2 surge nodes.
    monkeypatch.chdir(tmp_path)
    doc = json.loads(Path(STATE).read_text())
    workers = next(r for r in doc["resources"] if r.get("name") == "workers")
    tpl = workers["instances"][0]["attributes"]["instance_template"]
    tpl[0]["placement_policy"] = [{"placement_group_id": "fd8pg0example"}]
    doc["resources"].append({
        "mode": "managed", "type": "yandex_compute_placement_group", "name": "pg",
        "instances": [{"attributes": {"id": "fd8pg0example",
                                      "placement_strategy_spread": True}}]})
    state = tmp_path / "state.tfstate"
    state.write_text(json.dumps(doc))
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "--state", str(state), "-g", "workers",
                             *ADVISED, "-o", "json")
        assert code == 0, err
    events = _lines(out)
    assert [e for e in events if e["event"] == "warning"
            and e["code"] == "spread-placement-group-full"] == []
    (stage,) = [e for e in events if e["event"] == "stage"]
    policy = stage["groups"][0]["policy"]
    assert (policy["max_expansion"], policy["max_unavailable"]) == (2, 0)


def test_the_gate_counts_the_states_other_groups_and_labels_the_advised_policy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # clusterNodes 13 with the cluster's 11 nodes (gpu 1 + workers 3 + batch at its max 7):
    # the advisor keeps workers' surge to 2 (2/0); the gate's row counts the other groups too.
    monkeypatch.chdir(tmp_path)
    with example_cloud() as fake:
        fake.set_quota("b1gexamplecloud000001", "managed-kubernetes.clusterNodes.count", 13.0,
                       0.0)
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", *ADVISED, "-o", "json")
        assert code == 0, err
        events = _lines(out)
        (stage,) = [e for e in events if e["event"] == "stage"]
        policy = stage["groups"][0]["policy"]
        assert policy["max_expansion"] == 2
        gate = next(e for e in events if e["event"] == "preflight")["preflight"]
        (row,) = [q for q in gate["clouds"][0]["quotas"]
                  if q["quota_id"] == "managed-kubernetes.clusterNodes.count"]
        assert (row["scope"], row["usage"], row["demand"], row["status"]) == (
            "cluster catq0n7i0h9ka1b2c3d4", 11, 2, "ok")
        (group,) = gate["groups"]
        assert group["policy"] == {**policy, "source": "advised", "assumed": False}
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", *ADVISED)
        assert code == 0, err
    lines = out.splitlines()
    e, u = policy["max_expansion"], policy["max_unavailable"]
    assert f"  deploy policy   max_expansion {e}, max_unavailable {u} (advised)" in lines
    assert any(line.startswith(f"  {WORKERS}  b1gexamplecloud000001  {e}/{u} (advised)")
               for line in lines), out
    assert "command-line override" not in out
    assert ("== quota preflight (each group with its stage's policy; the schedule counts a "
            "stage's groups together)") in lines
