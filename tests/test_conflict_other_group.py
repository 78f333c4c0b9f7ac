"""Another group of the same cluster holds the cluster (field report C13, docs/cloud.md
"Another operation in progress"), on the fake cloud through the real SDK.

The cloud serializes the operations of a cluster (C13 (c)): while `workers` upgrades (op-1),
an Update of `gpu` is refused with FAILED_PRECONDITION. Neither gpu's ListOperations nor the
cluster's lists op-1 (it is workers' operation), so the one Update path used to give up at
once (exit 4, "wait for it by hand"). It now finds op-1 among the cluster's node groups
(ClusterService.ListNodeGroups, then their ListOperations), waits for it (30 min; set-policy
its --timeout) and then sends gpu's Update.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ngupgrade.cli import main
from ngupgrade.testing import FakeCloud
from ngupgrade.upgrade.mutation import Change, Mutation
from tests._upgrade_helpers import STATE, WORKERS_ID, example_cloud, fake_timing

GPU_ID = "cat3ng0gpu000000ijkl"
CLUSTER = "catq0n7i0h9ka1b2c3d4"
STALLED = {"kind": "stall", "at_step": 1, "group": "workers"}
WORKERS_DONE = 540.0
"""workers: 3 nodes at 1/0, 3 cycles of create, drain, delete at 60 s a step: 9 minutes."""


def _command(fake: FakeCloud, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             *args: str) -> tuple[int, str]:
    """``ngupgrade ARGS`` in process on the fake's virtual clock; (exit code, stderr)."""
    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    try:
        main([args[0], "--state", STATE, "--endpoint", fake.endpoint, "--insecure", *args[1:]],
             timing=fake_timing(fake))
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    return code, capsys.readouterr().err


def _updates(fake: FakeCloud, group_id: str) -> list[tuple[float, str]]:
    return [(c.at, c.code) for c in fake.calls_to("NodeGroupService.Update")
            if c.request.node_group_id == group_id]


# -- the one Update path ------------------------------------------------------------------

def test_mutation_waits_for_another_groups_operation_then_sends():
    with example_cloud() as fake:
        fake.update(WORKERS_ID, version="1.30")        # op-1, 9 virtual minutes
        gw = fake.gateway()
        sent = Mutation(gw, fake_timing(fake)).send(
            GPU_ID, Change(version="1.30"), current=gw.get_node_group(GPU_ID))
        gw.close()
        assert (sent.operation_id, sent.update_calls, sent.reached_by) == ("op-2", 2, None)
        assert fake.operation("op-1").finished == WORKERS_DONE
        (refused, accepted) = _updates(fake, GPU_ID)
        assert refused == (0.0, "FAILED_PRECONDITION")
        assert accepted[1] == "OK" and WORKERS_DONE <= accepted[0] <= WORKERS_DONE + 30
        (listed,) = fake.calls_to("ClusterService.ListNodeGroups")
        assert listed.request.cluster_id == CLUSTER
        assert {c.request.operation_id for c in fake.calls_to("OperationService.Get")} == {
            "op-1"}


def test_mutation_finds_a_blocker_of_another_group_its_cluster_does_not_list():
    """A scripted operation of workers (scope node_group: workers' ListOperations shows it,
    the cluster's does not) holds gpu's Update for its 600 s."""
    with example_cloud(faults=[{"kind": "operation_in_progress", "operation_id": "op-9",
                                "group": "workers", "description": "Auto-upgrade node group",
                                "seconds": 600}]) as fake:
        gw = fake.gateway()
        sent = Mutation(gw, fake_timing(fake)).send(
            GPU_ID, Change(version="1.30"), current=gw.get_node_group(GPU_ID))
        gw.close()
        assert sent.update_calls == 2 and sent.operation_id != "op-9"
        (refused, accepted) = _updates(fake, GPU_ID)
        assert refused == (0.0, "FAILED_PRECONDITION")
        assert accepted[1] == "OK" and 600 <= accepted[0] <= 630
        assert [c.request.node_group_id for c in fake.calls_to(
            "NodeGroupService.ListOperations")][:3] == [GPU_ID, GPU_ID, WORKERS_ID]


# -- the commands -------------------------------------------------------------------------

def test_upgrade_waits_for_the_other_group_then_upgrades(tmp_path: Path, monkeypatch, capsys,
                                                         caplog):
    monkeypatch.chdir(tmp_path)
    with example_cloud() as fake:
        fake.update(WORKERS_ID, version="1.30")
        with caplog.at_level(logging.WARNING, logger="ngupgrade.upgrade.mutation"):
            code, err = _command(fake, monkeypatch, capsys, "upgrade", "-g", "gpu",
                                 "--version", "1.30", "--apply")
        assert code == 0, err
        said = [r.getMessage() for r in caplog.records]
        assert said[0].endswith("another operation in progress; waiting for op-1 "
                                "(Update node group), at most 1800 s")
        # progress while it waits: a line a minute, until op-1 is done at 9 minutes
        assert said[1:] == [f"still waiting for op-1 (Update node group): {m}m of at most 30m"
                            for m in range(1, 9)]
        (refused, accepted) = _updates(fake, GPU_ID)
        assert refused[1] == "FAILED_PRECONDITION" and accepted[1] == "OK"
        assert WORKERS_DONE <= accepted[0] <= WORKERS_DONE + 30
        assert fake.group("gpu").version == "1.30"


def test_upgrade_past_the_bound_exits_4_naming_the_blocker(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with example_cloud(faults=[STALLED]) as fake:
        fake.update(WORKERS_ID, version="1.30")        # never finishes
        code, err = _command(fake, monkeypatch, capsys, "upgrade", "-g", "gpu",
                             "--version", "1.30", "--apply")
        assert code == 4
        assert ("another operation in progress: op-1 (Update node group) still running after "
                "1800 s; nothing was changed [FAILED_PRECONDITION]") in err
        assert "hint: wait for it (`ngupgrade wait --operation op-1`)" in err
        assert fake.now() == pytest.approx(1800.0)
        assert _updates(fake, GPU_ID) == [(0.0, "FAILED_PRECONDITION")]
        assert fake.group("gpu").version == "1.29"


def test_set_policy_waits_for_the_other_group_then_applies(monkeypatch, capsys):
    with example_cloud() as fake:
        fake.update(WORKERS_ID, version="1.30")
        code, err = _command(fake, monkeypatch, capsys, "set-policy", "-g", "gpu",
                             "--max-expansion", "1", "--max-unavailable", "0", "--apply")
        assert code == 0, err
        (refused, accepted) = _updates(fake, GPU_ID)
        assert refused[1] == "FAILED_PRECONDITION" and accepted[1] == "OK"
        assert WORKERS_DONE <= accepted[0] <= WORKERS_DONE + 30
        assert fake.group("gpu").policy is not None
        assert (fake.group("gpu").policy.max_expansion,
                fake.group("gpu").policy.max_unavailable) == (1, 0)


def test_set_policy_waits_at_most_its_timeout(monkeypatch, capsys):
    with example_cloud(faults=[STALLED]) as fake:
        fake.update(WORKERS_ID, version="1.30")
        code, err = _command(fake, monkeypatch, capsys, "set-policy", "-g", "gpu",
                             "--max-expansion", "1", "--apply", "--timeout", "5m")
        assert code == 4
        assert "op-1 (Update node group) still running after 300 s" in err
        assert fake.now() == pytest.approx(300.0)
        assert len(_updates(fake, GPU_ID)) == 1
