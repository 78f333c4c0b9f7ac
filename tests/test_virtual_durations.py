"""Durations of a run on a virtual clock (``upgrade --time-scale``, the fake cloud's clock) say
they are virtual time, as ``make demo`` says: the summary header once ("of virtual time at
x60"), each progress line's elapsed time and each step's "done in"; NDJSON adds
``virtual_clock`` (and ``time_scale`` on the summary). Real time reads as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ngupgrade.adapters.cloud.waiter import Timing
from tests._upgrade_helpers import EPOCH, cli, example_cloud

Capsys = pytest.CaptureFixture[str]
ARGS = ("-g", "workers", "--version", "1.30", "--max-expansion", "2", "--max-unavailable", "1",
        "--restore-policy", "--apply")


def _scaled(fake) -> Timing:  # type: ignore[no-untyped-def]
    # what `upgrade --time-scale=60` builds (app.timing.real_time), on the fake's own clock
    return Timing(fake.now, fake.sleep, wall=lambda: EPOCH + fake.now(), virtual=True, scale=60)


def test_text_says_the_durations_are_virtual(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: Capsys) -> None:
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, *ARGS, "--journal",
                             str(tmp_path / "j.json"), timing=_scaled(fake))
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("== summary"))
    assert header.endswith(" of virtual time at x60)"), header
    progress = [line for line in out.splitlines() if "elapsed" in line]
    assert progress and all(line.endswith("expected (virtual time)") for line in progress)
    done = [line for line in out.splitlines() if line.startswith("   done in")]
    assert done and all(line.endswith(" of virtual time") for line in done)


def test_real_time_reads_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: Capsys) -> None:
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, *ARGS, "--journal",
                             str(tmp_path / "j.json"))
    assert code == 0, err
    assert "virtual" not in out


def test_ndjson_says_the_clock_was_virtual(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: Capsys) -> None:
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, *ARGS, "--journal",
                             str(tmp_path / "j.json"), "-o", "json", timing=_scaled(fake))
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    summary = next(e for e in events if e["event"] == "summary")
    assert (summary["virtual_clock"], summary["time_scale"]) == (True, 60)
    assert all(e["virtual_clock"] is True for e in events
               if e["event"] in ("progress", "step_finished"))
    assert any(e["event"] == "progress" for e in events)
