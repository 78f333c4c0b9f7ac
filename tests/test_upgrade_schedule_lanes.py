"""``advise`` and ``upgrade --schedule advised`` agree on a stage holding two groups of one
cluster: the advisor's minutes are what the run takes on the fake cloud's virtual clock.

The cloud runs one operation at a time per cluster (field report C13; the fake refuses a second
Update with FAILED_PRECONDITION), so the run upgrades a stage's groups of one cluster one after
another, and the advisor counts them so. The groups (the numbers of
tests/test_advise_schedule.py::test_node_groups_and_the_report): a (cluster A, 11 nodes), b
(cluster B, 12), c (cluster A, 11); 10 VMs of headroom; ``--min-available 100%`` (surge
only); 6 minutes per cycle. Advised: one stage of 24 min: a at 6/0 (2 cycles, 12 min), b
beside it at 4/0 (3 cycles, 18 min), c at 6/0 behind a (12 min, from 12 to 24): lane A
12 + 12 = 24, lane B 18. The former model said max(12, 18, 12) = 18.

The fake's clock: a surge-only cycle is three steps (create, drain, delete the old nodes;
testing/procedure.py), so at 120 s a step a cycle is the advisor's 6 minutes, and a group's
version update lasts exactly its advised minutes. Around them the run has steps of its own
that the advisor does not count (each group's policy update, ``policy_seconds`` 10; polls at
most 30 s apart; the verify), so the stage takes the advised 24 min plus those.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from ngupgrade.app.advise import AdviseRequest, advise
from ngupgrade.app.scheduled import ScheduleInputs, run_scheduled
from ngupgrade.app.settings import Settings
from ngupgrade.app.upgrade_request import UpgradeRequest
from ngupgrade.cli._upgrade_display import PlainDisplay
from ngupgrade.cli.render.advise import advise_json
from ngupgrade.core.advise.judge import MinAvailable
from ngupgrade.testing import FakeCloud
from ngupgrade.testing.builders import node_group
from ngupgrade.upgrade.events import Event
from ngupgrade.upgrade.values import UpgradeOptions
from tests._upgrade_helpers import Outcome, fake_timing

CLOUD = "b1gexamplecloud000001"
FOLDER = "b1gexamplefolder00001"
CLUSTER_A = "catclusteraaaaaaaaaa"
CLUSTER_B = "catclusterbbbbbbbbbb"
IDS = {"a": "catgroupa00000000001", "b": "catgroupb00000000001", "c": "catgroupc00000000001"}
LIMIT = 100
HEADROOM = 10
NOTICED = 60  # seconds: the waiter sees an operation done within one poll (<= 30 s) + verify


def world() -> FakeCloud:
    groups = [node_group(IDS["a"], name="a", cluster_id=CLUSTER_A, size=11),
              node_group(IDS["b"], name="b", cluster_id=CLUSTER_B, size=12),
              node_group(IDS["c"], name="c", cluster_id=CLUSTER_A, size=11)]
    scenario = {
        "step_seconds": 120, "policy_seconds": 10, "versions": ["1.29", "1.30"],
        "clouds": {CLOUD: {"folders": [FOLDER], "quotas": {
            "compute.instances.count": {"limit": LIMIT, "usage": LIMIT - HEADROOM}}}},
        "clusters": {CLUSTER_A: {"master_version": "1.30", "status": "RUNNING"},
                     CLUSTER_B: {"master_version": "1.30", "status": "RUNNING"}},
    }
    fake = FakeCloud(groups, scenario).start()
    fake.state_groups = groups  # type: ignore[attr-defined]
    return fake


def short(address: str | None) -> str | None:
    return None if address is None else address.rsplit(".", 1)[-1]


def version_op(fake: FakeCloud, name: str) -> Any:
    return next(op for op in fake.operations.values()
                if op.group_id == IDS[name] and op.kind == "version")


def test_the_run_takes_what_advise_says(tmp_path: Path, capsys: Any) -> None:
    with world() as fake:
        groups = fake.state_groups  # type: ignore[attr-defined]
        settings = Settings(endpoint=fake.endpoint, insecure=True)
        floor = MinAvailable(percent=100)
        with contextlib.closing(fake.gateway()) as cloud:  # what `ngupgrade advise` prints
            advised = advise_json(advise(settings, AdviseRequest(
                selectors=("a", "b", "c"), min_available=floor, minutes_per_cycle=6,
                live=True), groups=groups, cloud=cloud))
        assert advised["schedule_minutes"] == {"total": 24, "sequential": 36}
        stage, = advised["schedule"]
        plan = [(short(g["address"]), g["max_expansion"], g["minutes"], short(g["after"]))
                for g in stage["groups"]]
        assert plan == [("a", 6, 12, None), ("b", 4, 18, None), ("c", 6, 12, "a")]
        assert [g["start_minutes"] for g in stage["groups"]] == [0, 0, 12]
        assert stage["minutes"] == 24

        out, display = Outcome(0), PlainDisplay()

        def emit(event: Event) -> None:
            out.events.append(event)
            display.event(event)

        out.report = run_scheduled(
            settings, UpgradeRequest(selectors=("a", "b", "c"),
                                     options=UpgradeOptions(version="1.30"), apply=True,
                                     journal_dir=str(tmp_path)),
            ScheduleInputs(min_available=floor, minutes_per_cycle=6),
            timing=fake_timing(fake), open_api=fake.gateway, emit=emit,
            groups=groups)
        planned, = [e for e in out.of("stage") if e.phase == "planned"]  # type: ignore
        # The run's stage is the advised one: same groups, order, policies, minutes, lanes.
        assert [(short(g["address"]), g["policy"]["max_expansion"], g["minutes"],
                 short(g["after"])) for g in planned.groups] == plan  # type: ignore
        assert (planned.start_minutes, planned.minutes) == (0, 24)  # type: ignore
        assert ("  stage 1/1 at +0 min, 24 min expected: a (6/0, 12 min), b (4/0, 18 min), "
                "c (6/0, 12 min, after a)") in capsys.readouterr().out.splitlines()

        a, b, c = (version_op(fake, n) for n in "abc")
        # Each version update lasted its advised minutes on the fake's clock ...
        assert [op.finished - op.created for op in (a, b, c)] == [12 * 60, 18 * 60, 12 * 60]
        assert a.created < b.finished and b.created < a.finished  # lanes A and B together
        assert c.created >= a.finished  # c waited for a: one operation per cluster
        assert all(op.error is None for op in fake.operations.values())  # within the quota
        # ... lane A's two add up to the advised stage, and it is the longest lane, as advised
        # (the former model's 18 min, b's, ended at b.finished, before c) ...
        assert (a.finished - a.created) + (c.finished - c.created) == planned.minutes * 60
        assert b.finished < c.finished
        # ... so the stage took the advised 24 min plus the run's own steps between the
        # version updates (policy updates, polls, the verify), and ended with c.
        finished, = [e for e in out.of("stage") if e.phase == "finished"]  # type: ignore
        assert finished.ok  # type: ignore[attr-defined]
        assert finished.seconds >= 24 * 60  # type: ignore[attr-defined]
        assert c.finished <= finished.at <= c.finished + NOTICED  # type: ignore[attr-defined]
        assert {fake.group(i).version for i in IDS.values()} == {"1.30"}
