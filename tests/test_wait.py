"""``ngupgrade wait`` and ``ngupgrade fake-cloud`` end to end over gRPC.

Waits run on the fake's virtual clock (``run_cli.timing``, main's one Timing seam); the one
test of the ``fake-cloud`` process runs it for real, at speed x600, for about a second.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ngupgrade.adapters.cloud.gateway import open_gateway
from ngupgrade.adapters.cloud.types import OperationState
from ngupgrade.app.settings import Settings
from ngupgrade.app.timing import Timing
from ngupgrade.cli._progress import Progress
from ngupgrade.core.errors import EXIT_OPERATION_FAILED, EXIT_TIMEOUT, EXIT_USAGE
from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.units import human_seconds
from ngupgrade.testing import FakeCloud, node_group

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / "terraform" / "examples" / "terraform.tfstate"
GID = "catgroup000000000001"


@pytest.fixture
def cloud(monkeypatch, run_cli):
    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    monkeypatch.delenv("YC_TOKEN", raising=False)
    monkeypatch.chdir("/")
    made: list[FakeCloud] = []

    def make(*faults, size=3, **scenario):
        fake = FakeCloud([node_group(GID, size=size, policy=DeployPolicy(1, 0))],
                         {**scenario, "faults": list(faults)}).start()
        run_cli.timing = Timing(fake.now, fake.sleep)
        made.append(fake)
        return fake

    yield make
    for fake in made:
        fake.stop()


def _wait(run_cli, fake, *args):
    return run_cli("--endpoint", fake.endpoint, "--insecure", "wait", *args)


def test_wait_by_group_attaches_to_the_running_update_without_a_second_update(cloud, run_cli):
    fake = cloud()
    fake.gateway().update_node_group(GID, version="1.30")
    res = _wait(run_cli, fake, "--group", GID)
    assert res.exit_code == 0, res.stderr
    assert f"operation op-1 done without error, node group {GID} RUNNING on 1.30" in res.stdout
    assert len(fake.calls_to("NodeGroupService.Update")) == 1
    assert "op-1 running (Update node group), waited 0s" in res.stderr  # plain progress lines
    listed = fake.calls_to("NodeGroupService.ListOperations")
    assert listed[-1].request.node_group_id == GID


def test_wait_by_operation(cloud, run_cli):
    fake = cloud()
    fake.gateway().update_node_group(GID, version="1.30")
    res = _wait(run_cli, fake, "--operation", "op-1", "--output", "json")
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["ngupgrade"]["inputs"]["options"]["operation"] == "op-1"
    del doc["ngupgrade"]  # the run's header: version, command, inputs (issue 11 item 14)
    assert doc == {"operation_id": "op-1", "done": True, "group": {
        "id": GID, "status": "RUNNING", "version": "1.30"}}


def test_c10_failed_operation_exits_5_with_code_and_message(cloud, run_cli):
    fake = cloud({"kind": "operation_error", "at_step": 2, "code": 9,
                  "message": "node version above master version"})
    fake.gateway().update_node_group(GID, version="1.30")
    res = _wait(run_cli, fake, "--group", GID)
    assert res.exit_code == EXIT_OPERATION_FAILED
    assert ("operation op-1 failed: FAILED_PRECONDITION (9): node version above master version"
            in res.stderr)
    assert "done without error" not in res.stdout
    assert fake.group(GID).version == "1.29"


def test_c11_still_running_at_600s_exits_6_with_resume_command(cloud, run_cli):
    fake = cloud({"kind": "stall", "at_step": 0})
    fake.gateway().update_node_group(GID, version="1.30")
    res = _wait(run_cli, fake, "--operation", "op-1", "--timeout", "600")
    assert res.exit_code == EXIT_TIMEOUT
    assert "operation op-1 (Update node group) still running after 10m" in res.stderr
    assert "ngupgrade wait --operation op-1" in res.stderr
    # the resume command must reach the same cloud: the hint repeats the connection flags
    (hint,) = [line for line in res.stderr.splitlines() if line.startswith("hint: ")]
    assert "ngupgrade wait --operation op-1" in hint  # one hint line, not two
    assert hint.endswith(f"(with the connection flags of this run: --endpoint {fake.endpoint} "
                         "--insecure)")
    assert fake.now() == pytest.approx(600)
    # re-attaching sends no Update either
    res = _wait(run_cli, fake, "--group", GID, "--timeout", "0")
    assert res.exit_code == EXIT_TIMEOUT and "did not wait (--timeout 0)" in res.stderr
    assert len(fake.calls_to("NodeGroupService.Update")) == 1


def test_nothing_running_reports_the_group_status(cloud, run_cli):
    fake = cloud()
    res = _wait(run_cli, fake, "--group", GID)
    assert res.exit_code == 0
    assert f"no unfinished operation on node group {GID} (status RUNNING)" in res.stdout


@pytest.mark.parametrize("args", [(), ("--group", GID, "--operation", "op-1")])
def test_exactly_one_of_group_or_operation(cloud, run_cli, args):
    res = _wait(run_cli, cloud(), *args)
    assert res.exit_code == EXIT_USAGE and "exactly one of --group or --operation" in res.stderr


def test_bad_timeout_is_a_usage_error(cloud, run_cli):
    res = _wait(run_cli, cloud(), "--operation", "op-1", "--timeout", "soon")
    assert res.exit_code == EXIT_USAGE and "not a duration" in res.stderr


def test_ctrl_c_prints_how_to_resume_and_cancels_nothing(cloud, run_cli, monkeypatch):
    fake = cloud()
    fake.gateway().update_node_group(GID, version="1.30")

    def interrupted(seconds):
        raise KeyboardInterrupt

    run_cli.timing = Timing(fake.now, interrupted)
    res = _wait(run_cli, fake, "--group", GID)
    assert res.exit_code == 130
    assert "interrupted: nothing was cancelled" in res.stderr
    assert "ngupgrade wait --operation op-1" in res.stderr
    assert not fake.operation("op-1").done


def test_human_seconds_of_wait_messages():
    assert [human_seconds(s) for s in (42, 330, 3720)] == ["42s", "5m30s", "1h02m"]


def test_progress_on_a_terminal_uses_a_live_status_line(capsys):
    with Progress("operation op-1", tty=True) as p:
        p.on_poll(OperationState("op-1", "Update node group", False), 62)
    assert p.polls == 1
    assert "op-1 running" not in capsys.readouterr().out


def test_fake_cloud_command_prints_endpoint_first_and_serves_until_interrupted(tmp_path):
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("step_seconds: 60\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ngupgrade", "fake-cloud", "--state", str(STATE),
         "--scenario", str(scenario), "--speed", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("endpoint: 127.0.0.1:")
        endpoint = first.split()[1]
        gw = open_gateway(Settings(endpoint=endpoint, insecure=True), environ={})
        assert gw.get_node_group("cat1ng0fixed0000abcd").name == "workers"
        assert gw.get_folder_cloud_id("b1gexamplefolder00001")
        gw.close()
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "fake cloud stopped" in err


def test_plan_uses_the_live_size_and_policy_when_an_endpoint_is_given(run_cli, monkeypatch):
    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    sc = {"node_groups": {"batch": {"nodes": 5, "policy": {"max_expansion": 1,
                                                            "max_unavailable": 0}}}}
    with FakeCloud.from_state(str(STATE), sc) as fake:
        res = run_cli("--endpoint", fake.endpoint, "--insecure", "--state", str(STATE),
                      "--output", "json", "plan", "--group", "batch")
        assert res.exit_code == 0, res.stderr
        (group,) = json.loads(res.stdout)["groups"]
        assert (group["nodes"], group["nodes_source"]) == (5, "live")
        assert group["effective_policy"] == {"max_expansion": 1, "max_unavailable": 0}
        assert [c.method for c in fake.calls] == ["NodeGroupService.Get",
                                                  "NodeGroupService.ListNodes"]
    res = run_cli("--state", str(STATE), "--output", "json", "plan", "--group", "batch")
    assert json.loads(res.stdout)["groups"][0]["nodes_source"] == "max"  # offline: worst case


def test_wait_exits_6_as_stalled_when_nodes_stop_changing(cloud, run_cli):
    fake = cloud({"kind": "stall", "at_step": 1}, step_seconds=600)
    fake.gateway().update_node_group(GID, version="1.30")
    res = _wait(run_cli, fake, "--group", GID, "--stall-after", "30m")
    assert res.exit_code == EXIT_TIMEOUT
    assert "operation op-1 stalled: no progress for 30m" in res.stderr
    res = _wait(run_cli, fake, "--group", GID, "--stall-timeout", "0", "--timeout", "1h")
    assert res.exit_code == EXIT_TIMEOUT and "still running after 1h" in res.stderr


@pytest.mark.parametrize(("status", "code", "needle"), [
    ("STOPPED", 1, "is STOPPED, and no operation runs on it"),
    ("RECONCILING", EXIT_TIMEOUT, "is RECONCILING, but no unfinished operation is listed"),
])
def test_nothing_running_and_not_running_is_no_success(cloud, run_cli, status, code, needle):
    """`wait -g X && next-step` must not carry on past a group that is not RUNNING."""
    fake = cloud(node_groups={GID: {"status": status}})
    res = _wait(run_cli, fake, "--group", GID)
    assert res.exit_code == code
    assert f"node group {GID} {needle}" in res.stderr


def test_fake_cloud_on_sigterm_stops_and_removes_its_kubeconfig(tmp_path):
    """A script stops a backgrounded fake with SIGTERM (or `kill %1`: a shell ignores SIGINT for
    `&` jobs): the servers stop, the scratch kubeconfig directory goes, exit 0. The default
    SIGTERM left the directory behind and exited 143."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ngupgrade", "fake-cloud", "--state", str(STATE)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("endpoint: 127.0.0.1:")
        kubeconfig = Path(proc.stdout.readline().split(": ", 1)[1].strip())
        assert kubeconfig.is_file()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "fake cloud stopped" in err
    assert not kubeconfig.parent.exists()
