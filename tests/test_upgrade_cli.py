"""``ngupgrade upgrade`` through the real entry point: output, NDJSON, exit codes, dry run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._upgrade_helpers import POLICY_MASK, cli, example_cloud, updates, version_updates

Capsys = pytest.CaptureFixture[str]


def test_apply_prints_progress_verdict_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: Capsys) -> None:
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--max-expansion", "2", "--max-unavailable", "1",
                             "--restore-policy", "--apply", "--journal",
                             str(tmp_path / "j.json"))
        assert code == 0, err
        assert updates(fake) == [POLICY_MASK, ["version"], POLICY_MASK]
    assert "== plan" in out and "== quota preflight" in out
    assert "-> set the deploy policy: 1/0 -> 2/1" in out
    assert "operation op-2 started" in out
    assert "3/3 nodes on the new version" in out and "cycle" in out and "expected" in out
    assert "verdict: OK, yandex_kubernetes_node_group.workers on 1.30, RUNNING, 3/3 nodes" in out
    assert "-> restore the deploy policy: 2/1 -> 1/0" in out
    assert 'terraform: set version = "1.30"' in out
    assert "== summary" in out and "update the version 7m" in out


def test_dry_run_prints_plan_preflight_calls_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--max-expansion", "2", "--max-unavailable", "1",
                             "--journal", str(tmp_path / "j.json"))
        assert code == 0, err
        assert updates(fake) == []
    assert "Quota preflight: PASS" in out
    assert "== API calls it would make" in out
    assert "NodeGroupService.Update: cat1ng0fixed0000abcd update_mask=[version] version=1.30" \
        in out
    assert "Terraform declares 1/0" in out
    assert "dry run: nothing was changed; add --apply to run it" in out
    assert not (tmp_path / "j.json").exists()


def test_dry_run_names_the_plan_s_cycles_and_minutes_as_the_plan_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    # Before: "expected 6..6 min, 1 cycles" for gpu, and "3 cycles" where the plan said 1..3.
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "gpu", "-g", "workers",
                             "--version", "1.30", "--max-expansion", "2",
                             "--max-unavailable", "1")
        assert code == 0, err
    waits = [line.strip() for line in out.splitlines() if "until done (expected" in line]
    assert waits == [
        "OperationService.Get + NodeGroupService.ListNodes: until done (expected 6 min, 1 "
        "cycle), then NodeGroupService.Get for the verdict",
        "OperationService.Get + NodeGroupService.ListNodes: until done (expected 6..18 min, "
        "1..3 cycles), then NodeGroupService.Get for the verdict"]  # plan: 1..3, 6..18 min


def test_c10_output_names_operation_code_message_and_unchanged_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    faults = [{"kind": "operation_error", "at_step": 3, "code": 9,
               "message": "<precondition text>"}]
    with example_cloud(faults=faults) as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--apply", "--journal", str(tmp_path / "j.json"))
    assert code == 5
    assert "error: operation op-1 failed: FAILED_PRECONDITION (9): <precondition text>" in err
    assert "version is unchanged: 1.29" in err
    assert "verdict: FAILED" in out
    assert "verdict: OK" not in out and "summary" not in out


def test_ndjson_events_for_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: Capsys) -> None:
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--apply", "-o", "json", "--journal", str(tmp_path / "j.json"))
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    kinds = [e["event"] for e in events]
    for kind in ("plan", "preflight", "calls", "group_started", "step_started", "operation",
                 "progress", "step_finished", "verdict", "summary"):
        assert kind in kinds, kind
    op = next(e for e in events if e["event"] == "operation")
    assert op["operation_id"] == "op-1" and op["group"] == "yandex_kubernetes_node_group.workers"
    progress = [e for e in events if e["event"] == "progress"]
    assert {"new_nodes", "total", "nodes", "status", "cycle", "cycles", "elapsed",
            "expected"} <= set(progress[0])
    verdict = next(e for e in events if e["event"] == "verdict")
    assert verdict["ok"] is True and verdict["version"] == "1.30"
    summary = events[-1]
    assert summary["event"] == "summary" and summary["groups"][0]["steps"]["version_update"] > 0


def test_ndjson_error_event_and_exit_6_then_resume(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: Capsys) -> None:
    journal = str(tmp_path / "j.json")
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--apply", "--timeout", "2m", "-o", "json", "--journal", journal)
        assert code == 6
        last = json.loads(out.splitlines()[-1])
        assert last["event"] == "error" and last["exit_code"] == 6
        assert last["operation_id"] == "op-1"
        assert "--resume" in err
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--apply", "--resume", "--journal", journal)
        assert code == 0, err
        assert "operation op-1 attached to" in out
        assert version_updates(fake) == 1


def test_interrupt_exits_130_with_resume_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: Capsys) -> None:
    import ngupgrade.cli._upgrade_display as cmd

    original = cmd.PlainDisplay.event

    def event(self: cmd.PlainDisplay, ev: object) -> None:
        original(self, ev)  # type: ignore[arg-type]
        if getattr(ev, "kind", "") == "progress":
            raise KeyboardInterrupt

    monkeypatch.setattr(cmd.PlainDisplay, "event", event)
    with example_cloud() as fake:
        code, _out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--apply", "--journal", str(tmp_path / "j.json"))
        assert code == 130
        assert "operation op-1 keeps running" in err and "--resume" in err
        assert str(tmp_path / "j.json") in err
        assert not fake.operation("op-1").done


@pytest.mark.parametrize(("args", "code", "text"), [
    (["-g", "workers"], 2, "exactly one of --version V and --latest-revision"),
    (["-g", "workers", "--version", "1.30", "--latest-revision"], 2, "exactly one"),
    (["--version", "1.30"], 2, "name the node groups"),
    (["-g", "workers", "--version", "1.30", "--timeout", "0"], 2, "positive duration"),
    (["-g", "workers", "--version", "1.30", "--timeout", "soon"], 2, "not a duration"),
    (["-g", "workers", "--version", "1.30", "--max-expansion", "0", "--max-unavailable", "0"],
     1, "must be > 0"),
    (["-g", "nope", "--version", "1.30"], 2, "no node group matches"),
    (["-g", "workers", "-g", "gpu", "--version", "1.30", "--journal", "j.json"], 2,
     "names the journal of one node group"),
    (["-g", "workers", "--version", "1.31"], 1, "ahead of the master 1.30"),
    (["-g", "workers", "--version", "one.thirty"], 2, "not a Kubernetes version"),
])
def test_bad_input_one_line_and_exit_code(monkeypatch: pytest.MonkeyPatch, capsys: Capsys,
                                          args: list[str], code: int, text: str) -> None:
    with example_cloud() as fake:
        got, _out, err = cli(fake, monkeypatch, capsys, *args)
        assert updates(fake) == []
    assert got == code, err
    assert text in err
    assert "Traceback" not in err


def test_help_lists_upgrade(capsys: Capsys) -> None:
    from ngupgrade.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    assert "upgrade" in capsys.readouterr().out


def test_a_node_removed_with_no_drain_seen_is_said_without_guessing(capsys: Capsys) -> None:
    # Only a node the upgrade created is reported (tests/test_removed_rule.py); who removed
    # it is not guessed as one cause.
    from ngupgrade.cli._upgrade_display import PlainDisplay
    from ngupgrade.upgrade import events as ev

    PlainDisplay().event(ev.NodeRemoved(group="yandex_kubernetes_node_group.workers",
                                        node="workers-0003", instance_id="fhm3", new=True))
    assert capsys.readouterr().out == (
        "!  workers-0003 (fhm3) removed with no drain seen: a node created by this upgrade "
        "(the cluster autoscaler, or the platform replacing it); progress counts old nodes "
        "only\n")
