"""Pure parts of the runbook: durations, version rules, the stall watchdog, progress position,
and the journal file (atomic, 0600, readable after a crash)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import BadInput, CheckFailed, UsageError
from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.simulate import timeline
from ngupgrade.core.stall import StallWatchdog
from ngupgrade.core.units import human_seconds
from ngupgrade.upgrade.rules import (
    check_target_version,
    cycle_estimate,
    parse_version,
    timeline_position,
)


def test_human_seconds() -> None:
    assert [human_seconds(x) for x in (0, 45, 60, 425, 3600, 3900)] == [
        "0s", "45s", "1m", "7m05s", "1h", "1h05m"]


def test_version_rules() -> None:
    check_target_version("1.29", "1.30", "1.30", subject="g")           # one step, = master
    check_target_version("1.29.4", "1.30", "1.31", subject="g")         # patch parts ignored
    with pytest.raises(CheckFailed, match=r"ahead of the master 1\.30"):
        check_target_version("1.29", "1.31", "1.30", subject="g")
    with pytest.raises(CheckFailed, match="one minor version per step") as err:
        check_target_version("1.28", "1.30", "1.30", subject="g")
    assert err.value.hint == "upgrade to 1.29 first, then on"
    with pytest.raises(CheckFailed, match="downgrades"):
        check_target_version("1.30", "1.29", "1.30", subject="g")
    with pytest.raises(UsageError, match="not a Kubernetes version"):
        parse_version("latest")
    assert parse_version("1.30.2") == (1, 30)


def test_watchdog_c15_numbers() -> None:
    """C15: 1/3 new at +10 min, unchanged after; a 30-minute watchdog fires at +40 min."""
    dog = StallWatchdog(30 * 60, now=0)
    for t in range(0, 600, 30):
        dog.observe((0, "RECONCILING", 3 if t < 200 else 4), t)
    dog.observe((1, "RECONCILING", 3), 600)
    for t in range(630, 2400, 30):
        dog.observe((1, "RECONCILING", 3), t)
        assert not dog.stalled(t)
    assert dog.stalled(2400)
    assert dog.still_for(2400) == 1800


def test_watchdog_off_and_status_counts_as_progress() -> None:
    off = StallWatchdog(0, now=0)
    off.observe((0, "RECONCILING", 3), 0)
    assert not off.stalled(10**6)
    dog = StallWatchdog(100, now=0)
    dog.observe((3, "RECONCILING", 3), 0)
    dog.observe((3, "RUNNING", 3), 90)
    assert not dog.stalled(150)


def test_cycle_estimate_follows_the_timeline_forward() -> None:
    steps = timeline(3, DeployPolicy(2, 1))
    # create2(5,new2) drain1 uip1(5,new3) drain1(w2) delete1(4) drain1(w3) delete1(3)
    i, wave = cycle_estimate(steps, new_nodes=2, group_size=5)
    assert (i, wave) == (0, 1)
    i, wave = cycle_estimate(steps, new_nodes=3, group_size=5, start=i)
    assert wave == 1
    i, wave = cycle_estimate(steps, new_nodes=3, group_size=4, start=i)
    assert wave == 2
    i, wave = cycle_estimate(steps, new_nodes=3, group_size=3, start=i)
    assert wave == 3
    assert timeline_position((), 0, 0) == 0


def test_cycle_estimate_c15_one_by_one() -> None:
    steps = timeline(3, DeployPolicy(1, 0))
    assert cycle_estimate(steps, 1, 3)[1] == 1
    assert cycle_estimate(steps, 2, 4)[1] == 2
    assert cycle_estimate(steps, 3, 3)[1] == 3


def _journal(path: Path) -> jr.Journal:
    return jr.Journal(group_id="cat1", address="yandex_kubernetes_node_group.workers",
                      name="workers", target="1.30", latest_revision=False,
                      start_version="1.29", start_nodes=3, start_node_ids=["a", "b", "c"],
                      start_policy=DeployPolicy(1, 0), terraform_policy=DeployPolicy(1, 0),
                      override=DeployPolicy(2, 1), restore_policy=True, path=str(path))


def test_journal_round_trip_mode_0600_atomic(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "j.json"
    j = _journal(path)
    j.start_step(jr.STEP_VERSION, ["op-1"])
    j.set_operation(jr.STEP_VERSION, "op-2")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert os.listdir(path.parent) == ["j.json"]
    back = jr.load(str(path))
    assert back is not None
    assert back.step(jr.STEP_VERSION).operation_id == "op-2"           # type: ignore[union-attr]
    assert back.step(jr.STEP_VERSION).known_operations == ["op-1"]    # type: ignore[union-attr]
    assert (back.override, back.terraform_policy) == (DeployPolicy(2, 1), DeployPolicy(1, 0))
    assert back.outcome is None and not back.is_done(jr.STEP_VERSION)
    assert jr.default_path("cat1", None, "/j") == "/j/upgrade-cat1-latest-revision.json"


def test_journal_failed_write_keeps_the_old_file(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "j.json"
    j = _journal(path)
    j.save()
    before = path.read_text()

    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jr.os, "replace", refuse)
    with pytest.raises(BadInput, match="cannot write the journal: No space left"):
        j.finish("done")
    assert path.read_text() == before                  # the old journal is whole
    assert os.listdir(tmp_path) == ["j.json"]          # no temporary file left behind


def test_journal_unreadable_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "j.json"
    path.write_text("{not json")
    with pytest.raises(BadInput, match="journal is not JSON"):
        jr.load(str(path))
    path.write_text(json.dumps({"format": 99}))
    with pytest.raises(BadInput, match="unknown journal format"):
        jr.load(str(path))
    path.write_text(json.dumps({"format": 1, "group_id": "x"}))
    with pytest.raises(BadInput, match="journal not understood"):
        jr.load(str(path))
    assert jr.load(str(tmp_path / "none.json")) is None
