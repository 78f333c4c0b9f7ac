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
from tests._upgrade_helpers import cli, example_cloud
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
