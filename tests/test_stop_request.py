"""A stop request (SIGINT, SIGTERM, SIGHUP) stops every runner before its next Update: the
advised schedule over many groups (a thread per lane), the sequential runbook and
``set-policy``. Each run goes through the command line (its signal handlers) against the
fake cloud through the real SDK; the Updates are counted on the fake after the signal, and a
``--resume`` afterwards converges with no Update sent twice.

The state is the example one (terraform/examples/terraform.tfstate, written as the provider
writes it) with its ``workers`` group and ``main`` cluster copied under new ids: 8 groups in
4 clusters, two per cluster (one lane each in a stage).
"""

from __future__ import annotations

import copy
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, Scenario
from ngupgrade.upgrade.events import Event
from tests._upgrade_helpers import SCENARIO, STATE, fake_timing

Capsys = pytest.CaptureFixture[str]
CLUSTERS, PER_CLUSTER = 4, 2
HANDLER_RAN = 0.3
"""Real seconds the signalling thread waits for the main thread to run the handler."""


def many_groups_state(path: Path) -> Path:
    """The example state with ``main`` and ``workers`` copied: CLUSTERS clusters of
    PER_CLUSTER 3-node groups each (``g00`` .. ``g19``)."""
    doc = json.loads(Path(STATE).read_text())
    cluster = next(r for r in doc["resources"] if r["type"] == "yandex_kubernetes_cluster")
    workers = next(r for r in doc["resources"] if r["name"] == "workers")
    doc["resources"] = [r for r in doc["resources"]
                        if r["type"] not in ("yandex_kubernetes_node_group",
                                             "yandex_kubernetes_cluster")]
    for c in range(CLUSTERS):
        cl = copy.deepcopy(cluster)
        cl["name"] = f"c{c:02d}"
        cl["instances"][0]["attributes"]["id"] = cluster_id(c)
        doc["resources"].append(cl)
        for k in range(PER_CLUSTER):
            n = c * PER_CLUSTER + k
            g = copy.deepcopy(workers)
            g["name"] = f"g{n:02d}"
            attrs = g["instances"][0]["attributes"]
            attrs.update(id=group_id(n), name=f"g{n:02d}", cluster_id=cluster_id(c),
                         instance_group_id=f"cl1ig{n:015d}")
            # out of workers' spread placement group (5 VMs: not for 8 groups of 3)
            attrs["instance_template"][0]["placement_policy"] = []
            g["dependencies"] = [f"yandex_kubernetes_cluster.c{c:02d}"]
            doc["resources"].append(g)
    path.write_text(json.dumps(doc, indent=2))
    return path


def cluster_id(c: int) -> str:
    return f"catcluster{c:010d}"


def group_id(n: int) -> str:
    return f"catgroup{n:012d}"


def many_groups_cloud(state: Path) -> FakeCloud:
    """The fake seeded from that state; every cluster's master on 1.30, quotas for all."""
    raw = yaml.safe_load(SCENARIO.read_text())
    folder = raw["clouds"]["b1gexamplecloud000001"]["folders"][0]
    raw["clusters"] = {cluster_id(c): {"master_version": "1.30", "status": "RUNNING",
                                       "folder_id": folder} for c in range(CLUSTERS)}
    raw["clouds"]["b1gexamplecloud000001"]["quotas"] = {
        "compute.instances.count": {"limit": 1000, "usage": 60}}
    return FakeCloud.from_state(str(state), Scenario.from_mapping(raw)).start()


def version_updates(fake: FakeCloud) -> list[str]:
    return [c.request.node_group_id for c in fake.calls_to("NodeGroupService.Update")
            if "version" in c.request.update_mask.paths]


def run_cli(fake: FakeCloud, monkeypatch: pytest.MonkeyPatch, capsys: Capsys, state: Path,
            *args: str) -> tuple[int, str, str]:
    from ngupgrade.cli import main

    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    try:
        main(["upgrade", "--state", str(state), "--endpoint", fake.endpoint, "--insecure",
              *args], timing=fake_timing(fake))
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def signal_on(monkeypatch: pytest.MonkeyPatch, signum: int, when: Any) -> dict[str, int]:
    """Send ``signum`` to this process from the display (a group's thread in a scheduled
    run) at the first event ``when(event)`` is true for; wait for the main thread to run the
    handler, then note the Updates the fake had. Returns {"updates": count} once sent (on
    the main thread the handler's KeyboardInterrupt comes out of ``os.kill``: the count
    before it)."""
    import ngupgrade.cli._upgrade_display as cmd

    seen: dict[str, int] = {}
    original = cmd.PlainDisplay.event

    def event(self: Any, ev: Event) -> None:
        original(self, ev)
        if not seen and when(ev):
            seen["updates"] = len(FAKE[0].calls_to("NodeGroupService.Update"))
            os.kill(os.getpid(), signum)  # on the main thread the handler raises right here
            time.sleep(HANDLER_RAN)
            seen["updates"] = len(FAKE[0].calls_to("NodeGroupService.Update"))

    monkeypatch.setattr(cmd.PlainDisplay, "event", event)
    return seen


FAKE: list[FakeCloud] = []


def _original_event() -> Any:
    import ngupgrade.cli._upgrade_display as cmd

    return cmd.PlainDisplay.event


ORIGINAL_EVENT = _original_event()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_a_stop_request_stops_the_advised_schedule_before_its_next_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys, signum: int) -> None:
    state = many_groups_state(tmp_path / "terraform.tfstate")
    argv = (*[a for n in range(CLUSTERS * PER_CLUSTER) for a in ("-g", f"g{n:02d}")],
            "--version", "1.30", "--schedule", "advised", "--cycle-minutes", "6", "--apply")
    with many_groups_cloud(state) as fake:
        FAKE[:] = [fake]
        # a version step starts after 3 version Updates were answered: its group sends its
        # Update next, with no wait between; the other lanes are in their waits or calls
        answered = {"n": 0}

        def version_step_after_three(ev: Event) -> bool:
            if ev.kind == "operation" and getattr(ev, "step", "") == jr.STEP_VERSION:
                answered["n"] += 1
            return (answered["n"] >= 3 and ev.kind == "step_started"
                    and getattr(ev, "step", "") == jr.STEP_VERSION)

        seen = signal_on(monkeypatch, signum, version_step_after_three)
        code, _out, err = run_cli(fake, monkeypatch, capsys, state, *argv)
        assert code == 130, err
        assert seen, "the signal was never sent"
        assert len(fake.calls_to("NodeGroupService.Update")) == seen["updates"]  # none after
        assert "interrupted" in err and "--resume" in err
        assert len(set(version_updates(fake))) >= 3
        touched = {c.request.node_group_id for c in fake.calls_to("NodeGroupService.Update")}
        outcomes = {g: jr.load(jr.default_path(g, "1.30")) for g in touched}
        # each group that was sent an Update is done or left open for --resume
        assert all(j is not None for j in outcomes.values()), outcomes
        assert {j.outcome for j in outcomes.values()} <= {None, "done"}      # type: ignore
        assert None in {j.outcome for j in outcomes.values()}                 # type: ignore
        monkeypatch.setattr("ngupgrade.cli._upgrade_display.PlainDisplay.event", ORIGINAL_EVENT)
        code, _out, err = run_cli(fake, monkeypatch, capsys, state, *argv, "--resume")
        assert code == 0, err
        assert sorted(version_updates(fake)) == sorted(
            group_id(n) for n in range(CLUSTERS * PER_CLUSTER))   # each exactly once
        assert {g.version for g in fake.groups.values()} == {"1.30"}


# -- set-policy and the sequential runbook's restore step --------------------------------------

@pytest.fixture
def guarded_sigterm() -> Any:
    """A SIGTERM handler of the test's own while the command runs, so that a command which
    installs none does not kill the test runner: it counts the signal and goes on."""
    got: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
    yield got
    signal.signal(signal.SIGTERM, previous)


def test_sigterm_stops_set_policy_before_its_update(
        monkeypatch: pytest.MonkeyPatch, capsys: Capsys, guarded_sigterm: list[int]) -> None:
    import ngupgrade.cli._progress as cmd
    from ngupgrade.cli import main
    from tests._upgrade_helpers import example_cloud

    class SignalledProgress(cmd.Progress):  # type: ignore[misc]
        def __enter__(self) -> Any:     # the wait display opens right before the Update
            os.kill(os.getpid(), signal.SIGTERM)
            return super().__enter__()

    monkeypatch.setattr(cmd, "Progress", SignalledProgress)
    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    with example_cloud() as fake:
        with pytest.raises(SystemExit) as done:
            main(["set-policy", "--state", STATE, "--endpoint", fake.endpoint, "--insecure",
                  "-g", "workers", "--max-expansion", "3", "--apply"], timing=fake_timing(fake))
        err = capsys.readouterr().err
        assert done.value.code == 130, err                 # was: the Update sent, exit 0
        assert fake.calls_to("NodeGroupService.Update") == []
        assert "interrupted" in err
        assert fake.group("workers").policy == DeployPolicy(1, 0)
    assert guarded_sigterm == []                            # the command's handler took it


def test_a_stop_request_stops_the_restore_step_before_its_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Capsys) -> None:
    import ngupgrade.cli._upgrade_display as cmd
    from tests._upgrade_helpers import cli, example_cloud

    def at_restore(ev: Event) -> bool:
        return ev.kind == "step_started" and getattr(ev, "step", "") == jr.STEP_RESTORE

    journal = tmp_path / "j.json"
    with example_cloud() as fake:
        FAKE[:] = [fake]
        seen = signal_on(monkeypatch, signal.SIGTERM, at_restore)
        # 2: workers' spread placement group holds 5 VMs (3 nodes + 3 would not pass the gate)
        argv = ("-g", "workers", "--version", "1.30", "--max-expansion", "2", "--restore-policy",
                "--apply", "--journal", str(journal))
        code, _out, err = cli(fake, monkeypatch, capsys, *argv)
        assert code == 130, err
        assert seen["updates"] == 2                         # the policy and the version
        assert len(fake.calls_to("NodeGroupService.Update")) == 2
        assert str(journal) in err and "--resume" in err
        monkeypatch.setattr(cmd.PlainDisplay, "event", ORIGINAL_EVENT)
        code, _out, err = cli(fake, monkeypatch, capsys, *argv, "--resume")
        assert code == 0, err
        assert len(fake.calls_to("NodeGroupService.Update")) == 3   # the restore, once
        assert fake.group("workers").policy == DeployPolicy(1, 0)
