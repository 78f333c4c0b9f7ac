"""``ngupgrade upgrade --cluster``: the drain check joins the pre-change gate (issue 13 part 0).

The example state's ``workers`` is a fixed group of 3 nodes at deploy policy 1/0: 3 waves of
one node. ``blocked_cluster`` holds a 1-replica ``api`` under ``minAvailable: 1`` on ``w2``:
disruptionsAllowed = 1 healthy - 1 desired = 0 (seed 004), so its eviction never passes and
Yandex stops ``w2`` after 7 minutes with the pod on it (``forced-stop``). Such a run must stop
before any Update, as the quota gate does (exit 1).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._upgrade_helpers import cli, example_cloud, updates
from tests.test_drain_check_cli import blocked_cluster, calm_cluster, dump

Capsys = pytest.CaptureFixture[str]
BASE = ("-g", "workers", "--version", "1.30")


def _events(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_a_blocking_drain_finding_stops_the_upgrade_before_any_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    path = dump(tmp_path, blocked_cluster())
    with example_cloud() as fake:
        code, out, _ = cli(fake, monkeypatch, capsys, *BASE, "--apply", "--cluster", path,
                           "--journal", str(tmp_path / "j.json"), "-o", "json")
        assert code == 1
        assert updates(fake) == []  # nothing sent
        assert fake.group("workers").version == "1.29"
    events = _events(out)
    kinds = [e["event"] for e in events]
    assert kinds[:3] == ["plan", "preflight", "drain_check"]
    assert "calls" not in kinds and "group_started" not in kinds
    gate = events[2]
    assert gate["ok"] is False
    findings = gate["drain"]["groups"][0]["findings"]  # type: ignore[index]
    assert {(f["code"], f["pod"], f["pdb"]) for f in findings
            if f["severity"] == "blocking"} >= {("pdb-blocks-eviction", "app/api-0", "app/api")}
    assert any(f["code"] == "forced-stop" and f["node"] == "w2" for f in findings)
    error = events[-1]
    assert error["event"] == "error" and error["exit_code"] == 1
    assert "pdb-blocks-eviction (app/api-0)" in str(error["message"])
    assert "nothing was changed" in str(error["message"])
    assert "--accept" in str(error["hint"])
    assert not (tmp_path / "j.json").exists()


def test_the_dry_run_shows_the_drain_check_and_accept_proceeds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    path = dump(tmp_path, blocked_cluster())
    with example_cloud() as fake:
        code, out, _ = cli(fake, monkeypatch, capsys, *BASE, "--cluster", path)
        assert code == 1
        assert "== drain check" in out
        assert "pdb-blocks-eviction" in out and "api-0" in out
        assert "== API calls it would make" not in out  # the gate stopped the dry run
        code, out, err = cli(fake, monkeypatch, capsys, *BASE, "--cluster", path,
                             "--accept", "pdb-blocks-eviction", "--accept", "forced-stop")
        assert code == 0, err
        assert "accepted finding(s)" in out
        assert "== API calls it would make" in out
        assert updates(fake) == []


def test_a_calm_cluster_passes_the_gate_and_the_upgrade_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    path = dump(tmp_path, calm_cluster())
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, *BASE, "--apply", "--cluster", path,
                             "--journal", str(tmp_path / "j.json"), "-o", "json")
        assert code == 0, err
        assert updates(fake) == [["version"]]
        assert fake.group("workers").version == "1.30"
    gate = next(e for e in _events(out) if e["event"] == "drain_check")
    assert gate["ok"] is True
    # 3 waves of one node at 1/0, one web pod evicted in each (worked in test_drain_check_cli)
    waves = gate["drain"]["groups"][0]["waves"]  # type: ignore[index]
    assert [w["pods_evicted"] for w in waves] == [1, 1, 1]


def test_both_cluster_inputs_is_a_usage_error_before_any_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    path = dump(tmp_path, calm_cluster())
    with example_cloud() as fake:
        code, _, err = cli(fake, monkeypatch, capsys, *BASE, "--cluster", path,
                           "--kubeconfig", str(tmp_path / "kubeconfig"))
        assert code == 2
        assert "one way" in err
        assert fake.calls == []


def test_an_unknown_accept_code_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    with example_cloud() as fake:
        code, _, err = cli(fake, monkeypatch, capsys, *BASE, "--accept", "pdb-block-eviction")
        assert code == 2
        assert "did you mean pdb-blocks-eviction" in err
