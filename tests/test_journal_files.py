"""The journal and its lock on disk: never through a link, only regular files, private modes,
and every unreadable journal is bad input (exit 3), never a bug (exit 70).

Before: a symbolic link planted at ``<journal>.lock`` was followed, and its target truncated
and overwritten with the holder's "pid ... host ... command" line; a journal holding an integer
of more than 4300 digits made every run exit 70 (the ValueError of Python's int-conversion
limit escaped ``journal.load``), with or without ``--resume``.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tests._upgrade_helpers import cli
from tests.test_reader_text_fuzz import JOURNAL

UPGRADE = ("-g", "workers", "--version", "1.30", "--apply")


@pytest.fixture(scope="module")
def idle_cloud():
    """The example state served by a fake cloud; every case here is refused before a change."""
    from tests._upgrade_helpers import example_cloud

    with example_cloud() as fake:
        yield fake


def _refused(fake, code: int, err: str, path: Path, said: str) -> None:
    assert code == 3, err
    assert err.splitlines()[0] == f"error: {path}: {said}", err
    assert "Traceback" not in err
    assert fake.calls_to("NodeGroupService.Update") == []


def test_a_link_at_the_lock_is_refused_and_its_target_untouched(idle_cloud, monkeypatch, capsys,
                                                               tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    journal = tmp_path / "journal.json"
    Path(f"{journal}.lock").symlink_to(precious)
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, *UPGRADE, "--journal", str(journal))
    _refused(idle_cloud, code, err, Path(f"{journal}.lock"),
             "journal lock is a symbolic link: refused (ngupgrade never follows a link at its "
             "journal or lock, which it writes)")
    assert precious.read_text() == "keep me\n"
    assert not journal.exists()


def test_a_dangling_link_at_the_lock_creates_nothing(idle_cloud, monkeypatch, capsys,
                                                    tmp_path: Path) -> None:
    # O_CREAT through a dangling link would create its target: a file of the attacker's choice.
    target = tmp_path / "elsewhere" / "created"
    target.parent.mkdir()
    journal = tmp_path / "journal.json"
    Path(f"{journal}.lock").symlink_to(target)
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, *UPGRADE, "--journal", str(journal))
    assert code == 3, err
    assert "journal lock is a symbolic link: refused" in err.splitlines()[0]
    assert not target.exists()


def test_a_link_at_the_journal_is_refused_and_its_target_untouched(idle_cloud, monkeypatch,
                                                                  capsys, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps(JOURNAL))
    journal = tmp_path / "journal.json"
    journal.symlink_to(other)
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, *UPGRADE, "--resume",
                          "--journal", str(journal))
    _refused(idle_cloud, code, err, journal,
             "journal is a symbolic link: refused (ngupgrade never follows a link at its "
             "journal or lock, which it writes)")
    assert json.loads(other.read_text()) == JOURNAL
    assert journal.is_symlink()


def test_a_fifo_at_the_lock_is_refused_without_blocking(idle_cloud, monkeypatch, capsys,
                                                       tmp_path: Path) -> None:
    journal = tmp_path / "journal.json"
    os.mkfifo(f"{journal}.lock")
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, *UPGRADE, "--journal", str(journal))
    _refused(idle_cloud, code, err, Path(f"{journal}.lock"),
             "journal lock is not a regular file: refused")


def test_a_fifo_at_the_journal_is_refused_without_blocking(idle_cloud, monkeypatch, capsys,
                                                          tmp_path: Path) -> None:
    journal = tmp_path / "journal.json"
    os.mkfifo(journal)
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, *UPGRADE, "--resume",
                          "--journal", str(journal))
    _refused(idle_cloud, code, err, journal, "journal is not a regular file: refused")


def test_the_journal_directory_is_0700_and_the_lock_0600(tmp_path: Path) -> None:
    from ngupgrade.adapters.files import journal as jr

    os.umask(0o022)
    path = tmp_path / "state" / "ngupgrade" / "upgrade-x-1.30.json"
    with jr.JournalLock(str(path), "pid 1 on host h since now: ngupgrade upgrade"):
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(path.parent.parent).st_mode) == 0o700
        lock = Path(f"{path}.lock")
        assert stat.S_IMODE(os.stat(lock).st_mode) == 0o600
        assert lock.read_text() == "pid 1 on host h since now: ngupgrade upgrade"
        jr.write_atomic(str(path), "{}\n")
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert not lock.exists()


def test_a_lock_left_by_a_killed_run_is_taken_again(tmp_path: Path) -> None:
    from ngupgrade.adapters.files import journal as jr

    path = tmp_path / "journal.json"
    Path(f"{path}.lock").write_text("pid 99999 on host gone since then: ngupgrade upgrade")
    with jr.JournalLock(str(path), "pid 2 on host h since now: ngupgrade upgrade"):
        assert Path(f"{path}.lock").read_text() == "pid 2 on host h since now: ngupgrade upgrade"


@pytest.mark.parametrize("resume", [False, True], ids=["plain", "resume"])
def test_a_journal_with_a_huge_integer_is_bad_input(idle_cloud, monkeypatch, capsys,
                                                    tmp_path: Path, resume: bool) -> None:
    journal = tmp_path / "journal.json"
    text = json.dumps(JOURNAL).replace('"nodes": 3', '"nodes": 1' + "0" * 5000)
    journal.write_text(text)
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, *UPGRADE, *(["--resume"] * resume),
                          "--journal", str(journal))
    _refused(idle_cloud, code, err, journal,
             "journal holds an integer of more than 4300 digits, which no producer writes and "
             "Python refuses to read")


def test_a_journal_nested_past_the_bound_is_bad_input(idle_cloud, monkeypatch, capsys,
                                                      tmp_path: Path) -> None:
    journal = tmp_path / "journal.json"
    doc = dict(JOURNAL, note=json.loads("[" * 500 + "]" * 500))
    journal.write_text(json.dumps(doc))
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, *UPGRADE, "--resume",
                          "--journal", str(journal))
    assert code == 3, err
    assert err.splitlines()[0].startswith(
        f"error: {journal}: $.note{'[0]' * 99}: journal nested more than 100 levels deep")
