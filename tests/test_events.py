"""The NDJSON events of ``ngupgrade upgrade -o json`` match docs/events.md, key for key.

Full runs on the fake cloud through the real CLI (dry run; override + restore with --apply;
a timeout then --resume; an operation that fails; nothing to do; a conflict); every line's
keys must hold the documented "always" keys and nothing undocumented.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ngupgrade.upgrade import events as ev
from tests._upgrade_helpers import POLICY_MASK, cli, example_cloud, run, updates
from tests.test_drain_check_cli import calm_cluster, dump

DOC = Path(__file__).resolve().parents[1] / "docs" / "events.md"
Capsys = pytest.CaptureFixture[str]


def documented() -> dict[str, tuple[set[str], set[str]]]:
    """event kind -> (keys always present, every documented key), read from docs/events.md."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    kind = None
    for line in DOC.read_text().splitlines():
        head = re.match(r"^## `(\w+)`", line)
        if head:
            kind = head.group(1)
            out[kind] = (set(), set())
            continue
        row = re.match(r"^\| `(\w+)` \| [^|]+ \| (always|when)", line)
        if row and kind is not None:
            always, every = out[kind]
            every.add(row.group(1))
            if row.group(2) == "always":
                always.add(row.group(1))
    return out


def test_every_event_type_has_a_section() -> None:
    kinds = set(documented())
    assert kinds == {t.kind for t in ev.KINDS} | {"error"}  # error: written by the CLI root


def _lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_every_line_of_full_runs_matches_the_documented_keys(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    doc = documented()
    seen: list[dict[str, object]] = []
    base = ("-g", "workers", "--version", "1.30", "-o", "json")
    override = ("--max-expansion", "2", "--max-unavailable", "1", "--restore-policy")
    cluster = dump(tmp_path, calm_cluster())
    with example_cloud() as fake:
        for args in [(*base, *override, "--cluster", cluster),
                     (*base, *override, "--apply", "--journal", str(tmp_path / "a.json")),
                     (*base, "--apply", "--journal", str(tmp_path / "b.json"))]:  # nothing to do
            code, out, err = cli(fake, monkeypatch, capsys, *args)
            assert code == 0, err
            seen += _lines(out)
    with example_cloud() as fake:
        journal = str(tmp_path / "c.json")
        code, out, _ = cli(fake, monkeypatch, capsys, *base, "--apply", "--timeout", "2m",
                           "--journal", journal)
        assert code == 6
        seen += _lines(out)
        code, out, err = cli(fake, monkeypatch, capsys, *base, "--apply", "--resume",
                             "--restore-policy", "--journal", journal)  # restore: skipped
        assert code == 0, err
        seen += _lines(out)
    faults = [{"kind": "operation_error", "at_step": 3, "code": 9, "message": "x"}]
    with example_cloud(faults=faults) as fake:
        code, out, _ = cli(fake, monkeypatch, capsys, *base, "--apply", "--journal",
                           str(tmp_path / "d.json"))
        assert code == 5
        seen += _lines(out)
    faults = [{"kind": "autoscaler_delete", "at_step": 2}, {"kind": "stall", "at_step": 3}]
    with example_cloud(faults=faults) as fake:  # node_removed, then diagnosis
        code, out, _ = cli(fake, monkeypatch, capsys, *base, "--apply", "--stall-after", "10m",
                           "--journal", str(tmp_path / "e.json"))
        assert code == 6
        seen += _lines(out)
    with example_cloud() as fake:  # issue 14: stage lines, the summary's schedule
        monkeypatch.chdir(tmp_path)  # the journals go under ./.ngupgrade
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "-g", "gpu",
                             "--version", "1.30", "-o", "json", "--schedule", "advised",
                             "--apply")
        assert code == 0, err
        seen += _lines(out)
    kinds = {str(e["event"]) for e in seen}
    assert {t.kind for t in ev.KINDS} - kinds == set(), "a kind no run emitted"
    for event in seen:
        always, every = doc[str(event["event"])]
        keys = set(event)
        assert always <= keys, (event["event"], always - keys)
        assert keys <= every, (event["event"], keys - every)


WORKERS = "yandex_kubernetes_node_group.workers"
STOPPED = ("operation op-1 finished without error, but node group cat1ng0fixed0000abcd is "
           "STOPPED: it does not come back to RUNNING by itself")


def test_a_group_stopped_after_a_good_operation_ends_with_its_verdict(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    """Was: step_started verify, then the error line; no verdict for the group."""
    import ngupgrade.cli._upgrade_display as cmd

    doc = documented()
    original = cmd.NdjsonDisplay.event
    with example_cloud() as fake:

        def event(self: cmd.NdjsonDisplay, e: ev.Event) -> None:
            original(self, e)
            if e.kind == "progress":
                fake.group("workers").status = "STOPPED"  # someone stops it meanwhile

        monkeypatch.setattr(cmd.NdjsonDisplay, "event", event)
        code, out, _ = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                           "-o", "json", "--apply", "--journal", str(tmp_path / "j.json"))
    assert code == 1
    lines = _lines(out)
    assert [e["event"] for e in lines][-4:] == ["step_finished", "step_started", "verdict",
                                                "error"]
    verdict = {k: v for k, v in lines[-2].items() if k != "at"}
    assert verdict == {"event": "verdict", "group": WORKERS, "ok": False,
                       "operation_id": "op-1", "status": "STOPPED", "version": "1.30",
                       "target": "1.30", "nodes": 3, "start_nodes": 3, "problems": [STOPPED]}
    assert lines[-1]["message"] == STOPPED
    for line in lines:
        always, every = doc[str(line["event"])]
        assert always <= set(line) <= every, line["event"]


def test_a_group_stopped_after_its_policy_update_ends_with_its_verdict(tmp_path: Path) -> None:
    """The policy step's operation succeeds, the group is STOPPED: the run stops before the
    version update (exit 1) and its last line about the group is the verdict."""
    with example_cloud() as fake:

        def stop(event: ev.Event) -> None:
            if event.kind == "operation":
                fake.group("workers").status = "STOPPED"

        out = run(fake, tmp_path / "j.json", max_expansion=2, max_unavailable=1, hook=stop)
        assert out.code == 1
        assert updates(fake) == [POLICY_MASK]
    assert out.kinds()[-3:] == ["step_started", "operation", "verdict"]
    verdict = out.events[-1]
    assert (verdict.group, verdict.data) == (WORKERS, {
        "ok": False, "operation_id": "op-1", "status": "STOPPED", "version": "1.29",
        "target": "1.30", "nodes": 3, "start_nodes": 3, "problems": [STOPPED]})
