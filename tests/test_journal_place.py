"""The journal follows the group, not the working directory.

One journal per group and target in one directory per user: ``$NGUPGRADE_JOURNAL_DIR``, else
``$XDG_STATE_HOME/ngupgrade``, else ``~/.local/state/ngupgrade`` (the XDG Base Directory
Specification's state directory). Before, it was ``./.ngupgrade/``: a resume from another
directory worked from the cloud's record but wrote a second journal there, and left the first
"unfinished", so a later plain run in the first directory was refused. A journal left in the
old place is moved to the new one and used.

The example's workers upgrade at 2/1; ``--timeout 2m`` stops the first run mid-cycle (exit 6,
resumable), as in tests/test_upgrade_resume_output.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ngupgrade.adapters.files import journal as jr
from tests._upgrade_helpers import WORKERS_ID, cli, example_cloud

BASE = ("-g", "workers", "--version", "1.30", "--max-expansion", "2", "--max-unavailable", "1",
        "--apply")
NAME = f"upgrade-{WORKERS_ID}-1.30.json"


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """(the journal directory, working directory A, working directory B)."""
    state, a, b = tmp_path / "state" / "ngupgrade", tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.setenv("NGUPGRADE_JOURNAL_DIR", str(state))
    return state, a, b


def _journals(*where: Path) -> list[Path]:
    return sorted(p for d in where for p in d.rglob("*.json"))


def test_resuming_from_another_directory_writes_no_second_journal(dirs, monkeypatch,
                                                                  capsys) -> None:
    state, a, b = dirs
    with example_cloud() as fake:
        monkeypatch.chdir(a)
        code, _out, err = cli(fake, monkeypatch, capsys, *BASE, "--timeout", "2m")
        assert code == 6, err
        assert _journals(a, b, state) == [state / NAME]

        monkeypatch.chdir(b)
        code, _out, err = cli(fake, monkeypatch, capsys, *BASE, "--resume")
        assert code == 0, err
        assert _journals(a, b, state) == [state / NAME]
        assert json.loads((state / NAME).read_text())["outcome"] == "done"

        monkeypatch.chdir(a)  # before: refused, the journal here still "unfinished"
        code, _out, err = cli(fake, monkeypatch, capsys, *BASE)
        assert code == 0, err
        assert "unfinished" not in err


def test_a_journal_left_in_the_old_place_is_moved_and_used(dirs, monkeypatch, capsys) -> None:
    state, a, _b = dirs
    old = a / ".ngupgrade" / NAME
    with example_cloud() as fake:
        monkeypatch.chdir(a)
        # as an earlier version wrote it: ./.ngupgrade/upgrade-<id>-<version>.json
        code, _out, err = cli(fake, monkeypatch, capsys, *BASE, "--timeout", "2m",
                              "--journal", str(old))
        assert code == 6, err
        started = json.loads(old.read_text())
        assert started["steps"]["version_update"]["operation_id"] == "op-2"

        code, out, err = cli(fake, monkeypatch, capsys, *BASE, "--resume")
        assert code == 0, err
        assert f"the journal left at {old} moved to {state / NAME}" in out
        assert not old.exists()
        moved = json.loads((state / NAME).read_text())
        assert moved["steps"]["version_update"]["operation_id"] == "op-2"
        assert moved["outcome"] == "done"
        assert len(fake.calls_to("NodeGroupService.Update")) == 2  # policy, version: never twice


@pytest.mark.parametrize(("environ", "expected"), [
    ({"NGUPGRADE_JOURNAL_DIR": "/j", "XDG_STATE_HOME": "/x", "HOME": "/h"}, "/j"),
    ({"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/ngupgrade"),
    ({"XDG_STATE_HOME": "relative/x", "HOME": "/h"}, "/h/.local/state/ngupgrade"),
    ({"XDG_STATE_HOME": "", "HOME": "/h"}, "/h/.local/state/ngupgrade"),
    ({"HOME": "/h"}, "/h/.local/state/ngupgrade"),
], ids=["ours", "xdg", "xdg-relative-ignored", "xdg-empty", "home"])
def test_the_journal_directory(monkeypatch, environ: dict[str, str], expected: str) -> None:
    monkeypatch.setenv("HOME", environ["HOME"])  # what expanduser("~") reads
    assert jr.journal_dir(environ) == expected


def test_a_relative_journal_dir_is_made_absolute(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert jr.journal_dir({"NGUPGRADE_JOURNAL_DIR": "j"}) == str(tmp_path / "j")
    assert jr.default_path("cat1", "1.30", "j") == str(tmp_path / "j" / "upgrade-cat1-1.30.json")
