"""``ngupgrade upgrade --schedule advised`` (issue 14): the advisor's stages run on the fake
cloud through the real SDK. Two node groups in two clusters of one cloud (the cloud serializes
operations per cluster, C13/C25, so parallel groups need two clusters), 4-core nodes, the
state's policy 1/0, `--min-available 100%` (no node down: only surge policies), 6 minutes per
cycle; only `compute.instances.count` has a limit, so the headroom in VMs decides:

* together: A has 12 nodes, B 3, headroom 8 VMs. A alone: E' <= 8, ceil(12/E') = 2 cycles
  first at E' = 6: 6/0, 12 min on 6 VMs. B alone: 3/0, one 6-min cycle on 3 VMs, but only 2
  VMs are left beside A: 2/0, ceil(3/2) = 2 cycles = 12 min, within A's 12 min: one stage,
  A at 6/0 and B at 2/0 (not B's own 3/0);
* apart: A and B have 3 nodes each, headroom 3 VMs. Each alone 3/0 (6 min, 3 VMs); beside A
  nothing is left for B's surge (3, 2 or 1 VMs): B opens stage 2 at +6 min.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ngupgrade.adapters.files import journal as jr
from ngupgrade.app.scheduled import ScheduleInputs, run_scheduled
from ngupgrade.app.settings import Settings
from ngupgrade.app.upgrade_request import UpgradeRequest
from ngupgrade.cli._upgrade_display import PlainDisplay, ndjson
from ngupgrade.core.advise.judge import MinAvailable
from ngupgrade.core.errors import NgUpgradeError
from ngupgrade.testing import FakeCloud
from ngupgrade.testing.builders import node_group
from ngupgrade.upgrade.events import Event
from ngupgrade.upgrade.values import UpgradeOptions
from tests._upgrade_helpers import Outcome, fake_timing
from tests.test_events import documented

CLOUD = "b1gexamplecloud000001"
FOLDER = "b1gexamplefolder00001"
CLUSTER_A = "catclusteraaaaaaaaaa"
CLUSTER_B = "catclusterbbbbbbbbbb"
A_ID = "catgroupa00000000001"
B_ID = "catgroupb00000000001"
LIMIT = 100


def world(a_nodes: int, b_nodes: int, headroom: int, faults: list[Any] | None = None
          ) -> FakeCloud:
    """Groups A and B (clusters A and B), ``headroom`` VMs left under the instances limit."""
    groups = [node_group(A_ID, name="a", cluster_id=CLUSTER_A, size=a_nodes),
              node_group(B_ID, name="b", cluster_id=CLUSTER_B, size=b_nodes)]
    scenario = {
        "step_seconds": 60, "policy_seconds": 10, "versions": ["1.29", "1.30"],
        "clouds": {CLOUD: {"folders": [FOLDER], "quotas": {
            "compute.instances.count": {"limit": LIMIT, "usage": LIMIT - headroom}}}},
        "clusters": {CLUSTER_A: {"master_version": "1.30", "status": "RUNNING"},
                     CLUSTER_B: {"master_version": "1.30", "status": "RUNNING"}},
        "faults": faults or [],
    }
    fake = FakeCloud(groups, scenario).start()
    fake.state_groups = groups  # type: ignore[attr-defined]  # what the state says
    return fake


def run(fake: FakeCloud, tmp_path: Path, *, apply: bool = True, resume: bool = False,
        hook: Any = None) -> Outcome:
    """``upgrade -g a -g b --version 1.30 --schedule advised --min-available 100%
    --cycle-minutes 6`` on the fake's virtual clock (live quotas through the SDK)."""
    groups = fake.state_groups  # type: ignore[attr-defined]
    request = UpgradeRequest(selectors=("a", "b"),
                             options=UpgradeOptions(version="1.30", resume=resume),
                             apply=apply, journal_dir=str(tmp_path))
    out = Outcome(0)

    def emit(event: Event) -> None:
        out.events.append(event)
        if hook is not None:
            hook(event)

    try:
        out.report = run_scheduled(
            Settings(endpoint=fake.endpoint, insecure=True), request,
            ScheduleInputs(min_available=MinAvailable(percent=100), minutes_per_cycle=6),
            timing=fake_timing(fake), open_api=fake.gateway, emit=emit, groups=groups)
    except NgUpgradeError as err:
        out.code, out.error = err.exit_code, err
    return out


def sent_policies(fake: FakeCloud) -> dict[str, tuple[int, int]]:
    """Group id -> the deploy policy its policy Update sent."""
    out = {}
    for call in fake.calls_to("NodeGroupService.Update"):
        if "version" not in call.request.update_mask.paths:
            p = call.request.deploy_policy
            out[call.request.node_group_id] = (p.max_expansion, p.max_unavailable)
    return out


def ops_of(fake: FakeCloud, group_id: str) -> list[Any]:
    return sorted((op for op in fake.operations.values() if op.group_id == group_id),
                  key=lambda op: op.created)


def version_updates_of(fake: FakeCloud, group_id: str) -> int:
    return sum(1 for c in fake.calls_to("NodeGroupService.Update")
               if c.request.node_group_id == group_id and "version" in c.request.update_mask.paths)


def stages(out: Outcome, phase: str = "planned") -> list[list[tuple[str, Any, Any]]]:
    """Per stage event of ``phase``: (short name, policy, minutes) per group."""
    return [[(g["address"].rsplit(".", 1)[-1], g["policy"], g["minutes"]) for g in e.groups]
            for e in out.of("stage") if e.phase == phase]  # type: ignore[attr-defined]


def p(e: int, u: int) -> dict[str, int]:
    return {"max_expansion": e, "max_unavailable": u}


def test_two_groups_that_fit_run_together_with_the_schedules_policies(tmp_path: Path) -> None:
    with world(12, 3, headroom=8) as fake:
        out = run(fake, tmp_path)
        assert out.code == 0, out.error
        assert stages(out) == [[("a", p(6, 0), 12), ("b", p(2, 0), 12)]]
        assert sent_policies(fake) == {A_ID: (6, 0), B_ID: (2, 0)}
        assert version_updates_of(fake, A_ID) == 1 and version_updates_of(fake, B_ID) == 1
        a_version = next(op for op in ops_of(fake, A_ID) if op.kind == "version")
        b_version = next(op for op in ops_of(fake, B_ID) if op.kind == "version")
        # Both version operations ran at the same time.
        assert a_version.created < b_version.finished and b_version.created < a_version.finished
        assert fake.group(A_ID).version == fake.group(B_ID).version == "1.30"
        # The fake never went past the instances limit: 6 + 2 surge VMs fit the headroom 8.
        assert all(op.error is None for op in fake.operations.values())
        summary = out.of("summary")[0]
        assert [(r["stage"], r["outcome"]) for r in summary.schedule] == [  # type: ignore
            (1, "done"), (1, "done")]


def test_two_groups_that_do_not_fit_run_one_after_the_other(tmp_path: Path) -> None:
    with world(3, 3, headroom=3) as fake:
        out = run(fake, tmp_path)
        assert out.code == 0, out.error
        assert stages(out) == [[("a", p(3, 0), 6)], [("b", p(3, 0), 6)]]
        planned = [e for e in out.of("stage") if e.phase == "planned"]  # type: ignore
        assert [(e.start_minutes, e.minutes) for e in planned] == [(0, 6), (6, 6)]
        assert planned[1].why_new.startswith(
            f"with stage 1: cloud {CLOUD}: compute.instances.count headroom 3 VMs, 3 VMs "
            "taken by the stage, 3 VMs more needed")
        assert sent_policies(fake) == {A_ID: (3, 0), B_ID: (3, 0)}
        a_last = ops_of(fake, A_ID)[-1]
        b_first = ops_of(fake, B_ID)[0]
        assert b_first.created >= a_last.finished  # B starts after A has ended
        assert [(e.stage, e.phase) for e in out.of("stage")] == [  # type: ignore
            (1, "planned"), (2, "planned"), (1, "started"), (1, "finished"),
            (2, "started"), (2, "finished")]


def test_a_failing_group_stops_the_next_stage(tmp_path: Path) -> None:
    fault = {"kind": "operation_error", "at_step": 1, "code": 9, "message": "boom",
             "group": "a"}
    with world(3, 3, headroom=3, faults=[fault]) as fake:
        out = run(fake, tmp_path)
        assert out.code == 5  # the worst group's: its operation failed
        assert out.error is not None and "yandex_kubernetes_node_group.b (not_run: a group " \
            "of stage 1 failed)" in out.error.message
        assert version_updates_of(fake, A_ID) == 1
        assert not [c for c in fake.calls_to("NodeGroupService.Update")
                    if c.request.node_group_id == B_ID]
        summary = out.of("summary")[0]
        assert summary.ok is False  # type: ignore[attr-defined]
        assert [(r["stage"], r["address"].rsplit(".", 1)[-1], r["outcome"], r["exit_code"])
                for r in summary.schedule] == [  # type: ignore[attr-defined]
            (1, "a", "failed", 5), (2, "b", "not_run", None)]
        assert [(e.stage, e.phase) for e in out.of("stage")][-1] == (2, "not_run")  # type: ignore


def test_the_dry_run_lists_the_stages_and_the_calls_and_sends_nothing(
        tmp_path: Path) -> None:
    with world(3, 3, headroom=3) as fake:
        out = run(fake, tmp_path, apply=False)
        assert out.code == 0, out.error
        assert fake.calls_to("NodeGroupService.Update") == []
        assert stages(out) == [[("a", p(3, 0), 6)], [("b", p(3, 0), 6)]]
        calls = out.of("dry_run")[0].calls  # type: ignore[attr-defined]
        assert [c["method"] for c in calls["yandex_kubernetes_node_group.a"]] == [
            "NodeGroupService.Update", "OperationService.Get", "NodeGroupService.Update",
            "OperationService.Get + NodeGroupService.ListNodes"]
        assert "deploy_policy=3/0 (now 1/0)" in calls["yandex_kubernetes_node_group.b"][0][
            "detail"]
        assert not list(tmp_path.glob("*.json"))  # no journal in a dry run


def test_every_event_matches_the_documented_keys(tmp_path: Path) -> None:
    doc = documented()
    with world(12, 3, headroom=8) as fake:
        out = run(fake, tmp_path)
    assert out.code == 0
    for event in out.events:
        line = json.loads(json.dumps(ndjson(event), default=str))
        always, every = doc[line["event"]]
        assert always <= set(line) <= every, (line["event"], set(line) ^ always)


def test_plain_lines_of_parallel_groups_carry_the_group_name(tmp_path: Path,
                                                             capsys: Any) -> None:
    display = PlainDisplay()
    with world(12, 3, headroom=8) as fake:
        out = run(fake, tmp_path, hook=display.event)
    assert out.code == 0
    text = capsys.readouterr().out
    assert "  stage 1/1 at +0 min, 12 min expected: a (6/0, 12 min), b (2/0, 12 min)" in text
    assert "[a] -> update the version: 1.29 -> 1.30" in text
    assert "[b] -> update the version: 1.29 -> 1.30" in text


def test_interrupted_groups_keep_their_journals_and_resume(tmp_path: Path) -> None:
    with world(12, 3, headroom=8) as fake:
        seen = {"progress": 0}

        def ctrl_c(event: Event) -> None:
            if event.kind == "progress":
                seen["progress"] += 1
                if seen["progress"] == 3:
                    raise KeyboardInterrupt  # lands in one group's thread: it stops there

        out = run(fake, tmp_path, hook=ctrl_c)
        assert out.code == 130
        assert out.error is not None and "journal" in out.error.message
        journals = {g: jr.load(jr.default_path(g, "1.30", str(tmp_path))) for g in (A_ID, B_ID)}
        open_ones = [g for g, j in journals.items() if j is not None and j.outcome is None]
        assert open_ones, journals
        again = run(fake, tmp_path, resume=True)
        assert again.code == 0, again.error
        first = next(e for e in again.of("stage") if e.phase == "planned")  # type: ignore
        assert first.why_new.startswith("resumed")  # type: ignore[attr-defined]
        assert version_updates_of(fake, A_ID) == 1 and version_updates_of(fake, B_ID) == 1
        assert fake.group(A_ID).version == fake.group(B_ID).version == "1.30"
