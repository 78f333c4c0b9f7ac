"""A policy the advised schedule chose is labelled ``advised`` wherever the upgrade names a
policy's source, also when the upgrade is resumed from its journal (which records who chose
it: JSON ``override_source``); a flag's stays ``command-line override``.

The example cloud of the demo scenario (terraform/examples/scenario.yaml): workers (3 nodes,
1/0 in the state, in a spread placement group of at most 5 VMs) is advised 2/0, two 6-minute
cycles; ``--timeout 2m`` stops the run (exit 6)
with its operation still running, then ``--resume`` attaches to it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._upgrade_helpers import WORKERS_ID, cli, example_cloud

ADVISED = ("-g", "workers", "--version", "1.30", "--schedule", "advised", "--apply")
JOURNAL = Path(".ngupgrade") / f"upgrade-{WORKERS_ID}-1.30.json"


def _policy_line(out: str) -> str:
    return next(x for x in out.splitlines() if x.startswith("  deploy policy "))


def test_a_resumed_advised_group_keeps_its_label(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    with example_cloud() as fake:
        code, out, _ = cli(fake, monkeypatch, capsys, *ADVISED, "--timeout", "2m")
        assert code == 6
        assert _policy_line(out) == "  deploy policy   max_expansion 2, max_unavailable 0 (advised)"
        journal = json.loads(JOURNAL.read_text())
        assert (journal["override"], journal["override_source"]) == (
            {"max_expansion": 2, "max_unavailable": 0}, "advised")
        # Before: the resumed group's plan read "(command-line override)", though no flag
        # gave the policy.
        code, out, err = cli(fake, monkeypatch, capsys, *ADVISED, "--resume", "-o", "json")
        assert code == 0, err
    plan = next(json.loads(x) for x in out.splitlines() if '"event": "plan"' in x)
    group, = plan["plan"]["groups"]
    assert group["policy"] == {"max_expansion": 2, "max_unavailable": 0, "source": "advised",
                               "assumed": False}


def test_a_flag_override_resumed_stays_an_override(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ("-g", "workers", "--version", "1.30", "--apply")
    with example_cloud() as fake:
        code, _, _ = cli(fake, monkeypatch, capsys, *argv, "--max-expansion", "2",
                         "--timeout", "2m")
        assert code == 6
        assert json.loads(JOURNAL.read_text())["override_source"] == "override"
        code, out, err = cli(fake, monkeypatch, capsys, *argv, "--resume")
        assert code == 0, err
    assert _policy_line(out) == ("  deploy policy   max_expansion 2, max_unavailable 0 "
                                 "(command-line override)")


def test_a_journal_without_the_key_reads_as_an_override() -> None:
    from ngupgrade.adapters.files import journal as jr

    raw = {"format": 1, "group_id": WORKERS_ID, "target": "1.30",
           "start": {"version": "1.29", "nodes": 3},
           "override": {"max_expansion": 2, "max_unavailable": 0}}
    assert jr.Journal.from_json(raw).override_source == "override"
    assert jr.Journal.from_json({**raw, "override_source": "advised"}).override_source == (
        "advised")
