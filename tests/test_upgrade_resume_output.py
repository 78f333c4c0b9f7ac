"""What `upgrade --resume` says while it attaches to a running upgrade (issue 11 items 1, 2).

The example's workers: fixed 3 nodes, upgraded at 2/1 (N=3, E'=2, U'=1: peak 5, cycles
ceil(3/3)=1 .. ceil(3/1)=3, 6..18 min at 6 min a cycle). `--timeout 2m` stops the first run
mid-cycle with the 2 surge nodes up (5 nodes live), exit 6; the resumed run must plan the 3
nodes the group had, never the 5 the upgrade itself created.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ngupgrade.app.timing import Timing
from tests._upgrade_helpers import cli, example_cloud

BASE = ("-g", "workers", "--version", "1.30", "--max-expansion", "2", "--max-unavailable", "1")


@pytest.fixture
def interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    """A fake cloud whose workers upgrade (op-2, after the policy's op-1) runs, 5 nodes."""
    journal = str(tmp_path / "j.json")
    with example_cloud() as fake:
        code, _out, err = cli(fake, monkeypatch, capsys, *BASE, "--apply", "--timeout", "2m",
                              "--journal", journal)
        assert code == 6, err
        assert len(fake.gateway().list_nodes("cat1ng0fixed0000abcd")) == 5
        yield fake, journal


def _resume(interrupted, monkeypatch, capsys, *more: str) -> tuple[int, str, str]:
    fake, journal = interrupted
    return cli(fake, monkeypatch, capsys, *BASE, "--resume", "--journal", journal, *more)


def test_resume_plans_the_size_before_the_upgrade(interrupted, monkeypatch, capsys) -> None:
    # Before: "nodes 5 (live node count)", cycles 2..5, 12..30 min, a false fixed-size-drift.
    code, out, err = _resume(interrupted, monkeypatch, capsys, "-o", "json")
    assert code == 0, err
    plan = json.loads(out.splitlines()[0])["plan"]["groups"][0]
    assert (plan["nodes"], plan["peak_nodes"]) == (3, 5)
    assert plan["cycles"] == {"min": 1, "max": 3}
    assert (plan["duration"]["min_minutes"], plan["duration"]["max_minutes"]) == (6, 18)
    assert "fixed-size-drift" not in [w["code"] for w in plan["warnings"]]


def test_resume_lists_the_attach_not_an_update(interrupted, monkeypatch, capsys) -> None:
    # Before: "API calls it would make: NodeGroupService.Update ... version=1.30".
    code, out, err = _resume(interrupted, monkeypatch, capsys)
    assert code == 0, err
    calls = out.split("== API calls it would make", 1)[1].split("\n!", 1)[0]
    assert "NodeGroupService.Update" not in calls
    assert "attach to op-2 (version_update), no Update: wait until done" in calls


def test_resume_apply_waits_once_and_says_so(interrupted, monkeypatch, capsys) -> None:
    # Before: after the wait, "-> update the version: 1.30 -> 1.30", "done in 0s", and the
    # summary "update the version 0s".
    fake, _ = interrupted
    code, out, err = _resume(interrupted, monkeypatch, capsys, "--apply")
    assert code == 0, err
    assert "1.30 -> 1.30" not in out
    assert "-> update the version: skipped (done: attached to op-2 above)" in out
    # Before: "(done: attached to op-1 above)" for the first run's policy step, and the
    # header counted the 2 surge nodes (5) where the plan says 3
    assert "-> set the deploy policy: skipped (done in the earlier run (op-1))" in out
    assert "(resumed): 1.29 -> 1.30, 3 nodes" in out
    assert ", cycle 1/3," in out  # progress against the 3 cycles of the 3-node plan
    summary = out.split("== summary", 1)[1]
    assert "update the version 0s" not in summary
    # op-2 from its start (0m14s) to its end (7m14s), not only the 5 minutes this run waited
    assert "update the version 7m" in summary
    assert "set the deploy policy 14s" in summary  # the first run's step, from the journal
    updates = [c for c in fake.calls_to("NodeGroupService.Update")
               if "version" in c.request.update_mask.paths]
    assert len(updates) == 1


def test_resume_from_the_clouds_record_plans_the_configured_size(
        interrupted, monkeypatch, capsys) -> None:
    fake, journal = interrupted
    Path(journal).unlink()  # another runner: no journal, the cloud's ListOperations only
    code, out, err = cli(fake, monkeypatch, capsys, *BASE, "--resume", "-o", "json",
                         "--journal", journal)
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    plan = lines[0]["plan"]["groups"][0]
    assert (plan["nodes"], plan["nodes_source"]) == (3, "fixed")  # not the 5 listed now
    dry = next(x for x in lines if x["event"] == "dry_run")["calls"]
    assert [c["method"] for c in dry["yandex_kubernetes_node_group.workers"]] == [
        "OperationService.Get + NodeGroupService.ListNodes"]


def test_resume_with_nothing_to_resume_says_it_starts(tmp_path: Path, monkeypatch,
                                                       capsys) -> None:
    # Before: a fresh upgrade started without a word.
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, *BASE, "--resume",
                             "--journal", str(tmp_path / "none.json"))
    assert code == 0, err
    assert ("note: yandex_kubernetes_node_group.workers: nothing to resume: no unfinished "
            "journal and no operation running on the group; "
            "starting the upgrade") in out


def test_resume_continues_progress_and_summary_from_the_journal(
        tmp_path: Path, monkeypatch, capsys) -> None:
    # --timeout 4m stops the wait with 1 of the 3 old nodes done (updated in place, so it
    # keeps its id: the cloud's node list alone cannot tell it is done), 4 virtual minutes
    # into op-2. The resumed run showed 0/3 and 0 s, and its summary only its own 3 minutes.
    journal = str(tmp_path / "j.json")
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, *BASE, "--apply", "--timeout", "4m",
                             "--journal", journal, "-o", "json")
        assert code == 6, err
        assert "last seen 1/3 nodes done" in out.splitlines()[-1]
        assert json.loads(Path(journal).read_text())["done_node_ids"] != []
        code, out, err = cli(fake, monkeypatch, capsys, *BASE, "--apply", "--resume",
                             "--journal", journal, "-o", "json")
        assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    first = next(e for e in events if e["event"] == "progress")
    assert (first["done"], first["total"]) == (1, 3)
    assert first["elapsed"] >= 240                   # op-2's age, not the attach's 0
    (summary,) = [e for e in events if e["event"] == "summary"]
    steps = summary["groups"][0]["steps"]
    assert set(steps) == {"policy_update", "version_update", "verify"}  # the first run's too
    assert steps["version_update"] >= 400           # op-2 from its start: 7 minutes
    assert summary["seconds"] >= steps["policy_update"] + steps["version_update"]


def _drill_timing(fake) -> Timing:
    """What `upgrade --time-scale 60` against `ngupgrade fake-cloud --speed 60` runs on: the
    fake's clock (its own epoch, EPOCH in ngupgrade/testing/proto.py) 60 times faster than the
    host's wall clock, which is a year before it (the journal's times)."""
    host0 = 1_764_000_000.0
    return Timing(fake.now, fake.sleep, wall=lambda: host0 + fake.now() / 60, virtual=True,
                  scale=60.0)


@pytest.mark.parametrize("how", [BASE, ("-g", "workers", "--version", "1.30",
                                          "--schedule", "advised")])
def test_resume_of_a_drill_counts_from_the_operation_on_the_fakes_clock(
        tmp_path: Path, monkeypatch, capsys, how) -> None:
    # Before: the resumed run's host wall clock was a year from the fake's created_at, so it
    # anchored on the attach: "elapsed 0s", "update the version 4m08s", "== summary (4m12s)".
    monkeypatch.setenv("NGUPGRADE_JOURNAL_DIR", str(tmp_path))
    with example_cloud() as fake:
        timing = _drill_timing(fake)
        code, out, err = cli(fake, monkeypatch, capsys, *how, "--apply",
                             "--timeout", "4m", timing=timing)
        assert code == 6, err
        code, out, err = cli(fake, monkeypatch, capsys, *how, "--apply",
                             "--resume", "-o", "json", timing=timing)
        assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    first = next(e for e in events if e["event"] == "progress")
    # op-2 is 4 virtual minutes old at the attach; the journal's seconds are whole host
    # seconds (one virtual minute each at x60)
    assert 180 <= first["elapsed"] <= 300
    (summary,) = [e for e in events if e["event"] == "summary"]
    steps = summary["groups"][0]["steps"]
    last = [e for e in events if e["event"] == "progress"][-1]
    assert steps["version_update"] >= last["elapsed"] > first["elapsed"]  # from op-2's start
    assert summary["seconds"] >= steps["policy_update"] + steps["version_update"]


def test_a_resumed_advised_schedule_numbers_the_advisors_stages_after_the_resumed_one(
        tmp_path: Path, monkeypatch, capsys) -> None:
    # workers (stage 1) interrupted; on --resume it runs first (stage 1), batch and gpu are
    # advised again as stages 2 and 3 in one cluster that runs one operation at a time.
    # Before: stage 3 said "with stage 1: ... it would wait for ...batch" (batch is stage 2).
    monkeypatch.setenv("NGUPGRADE_JOURNAL_DIR", str(tmp_path))
    how = ("-g", "workers", "-g", "batch", "-g", "gpu", "--version", "1.30",
           "--schedule", "advised", "--apply")
    with example_cloud() as fake:
        code, _out, err = cli(fake, monkeypatch, capsys, *how, "--timeout", "4m")
        assert code == 6, err
        code, out, err = cli(fake, monkeypatch, capsys, *how, "--resume", "-o", "json")
        assert code == 0, err
    planned = [e for e in map(json.loads, out.splitlines())
               if e["event"] == "stage" and e["phase"] == "planned"]
    assert [[g["address"].rsplit(".", 1)[-1] for g in e["groups"]] for e in planned] == [
        ["workers"], ['this["batch"]'], ["gpu"]]
    why = planned[2]["why_new"]
    assert why.startswith("with stage 2: ") and "wait for module.pools" in why
    assert "joining stage 2 at 1/0" in why
