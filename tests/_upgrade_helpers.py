"""Shared set-up of the ``ngupgrade upgrade`` tests: the fake cloud seeded from the example
Terraform state (or from builder groups), the use case run on the fake's virtual clock, and
the command line with its Timing seam on the fake's virtual clock."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from ngupgrade.app.drain_check import ClusterSource
from ngupgrade.app.settings import Settings
from ngupgrade.app.timing import Timing
from ngupgrade.app.upgrade import run_upgrade
from ngupgrade.app.upgrade_request import UpgradeRequest
from ngupgrade.core.errors import NgUpgradeError
from ngupgrade.core.model import NodeGroup
from ngupgrade.testing import FakeCloud, Scenario
from ngupgrade.testing.proto import EPOCH
from ngupgrade.upgrade.events import Event
from ngupgrade.upgrade.values import UpgradeOptions

ROOT = Path(__file__).resolve().parents[1]
STATE = str(ROOT / "terraform" / "examples" / "terraform.tfstate")
SCENARIO = ROOT / "terraform" / "examples" / "scenario.yaml"
WORKERS_ID = "cat1ng0fixed0000abcd"


def scenario(**changes: Any) -> Scenario:
    """The demo scenario with top-level keys replaced (``faults=[...]`` etc.)."""
    raw = yaml.safe_load(SCENARIO.read_text())
    raw = copy.deepcopy(raw)
    raw.update(changes)
    return Scenario.from_mapping(raw)


def example_cloud(**changes: Any) -> FakeCloud:
    """A started fake cloud seeded from the example state and the demo scenario."""
    return FakeCloud.from_state(STATE, scenario(**changes)).start()


@dataclass
class Outcome:
    """How one run ended: the exit code, the error, the events, the report."""

    code: int
    error: NgUpgradeError | None = None
    events: list[Event] = field(default_factory=list)
    report: Any = None

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


def run(
    fake: FakeCloud,
    journal: Path,
    *,
    group: str | tuple[str, ...] = "workers",
    version: str | None = "1.30",
    latest_revision: bool = False,
    max_expansion: int | None = None,
    max_unavailable: int | None = None,
    restore: bool = False,
    apply: bool = True,
    resume: bool = False,
    timeout: float | None = None,
    stall_after: float = 1800.0,
    groups: Sequence[NodeGroup] | None = None,
    hook: Callable[[Event], None] | None = None,
    api: Any = None,
    quotas_file: str | None = None,
    cloud_id: str | None = None,
    kubeconfig: str | None = None,
    accept: frozenset[str] = frozenset(),
) -> Outcome:
    """Run the use case on the fake's virtual clock; errors become their exit codes.
    ``kubeconfig``: kube access (the drain gate and the pods of draining nodes)."""
    options = UpgradeOptions(version=version, latest_revision=latest_revision,
                             max_expansion=max_expansion, max_unavailable=max_unavailable,
                             restore_policy=restore, timeout=timeout, stall_after=stall_after,
                             resume=resume)
    several = isinstance(group, tuple)
    request = UpgradeRequest(selectors=group if isinstance(group, tuple) else (group,),
                             options=options, apply=apply,
                             journal=None if several else str(journal),
                             journal_dir=str(journal.parent),
                             quotas_file=quotas_file, cloud_id=cloud_id,
                             cluster=ClusterSource(live=kubeconfig is not None,
                                                   kubeconfig=kubeconfig),
                             accept=accept)
    out = Outcome(0)

    def emit(event: Event) -> None:
        out.events.append(event)
        if hook is not None:
            hook(event)

    gateway = api if api is not None else fake.gateway()
    try:
        out.report = run_upgrade(Settings(state=STATE), request,
                                 timing=fake_timing(fake), api=gateway, emit=emit,
                                 groups=groups)
    except NgUpgradeError as err:
        out.code, out.error = err.exit_code, err
    except KeyboardInterrupt:
        out.code = 130
    finally:
        if api is None:
            gateway.close()
    return out


def fake_timing(fake: FakeCloud) -> Timing:
    """The fake's virtual clock, and its wall clock as its operation timestamps show it."""
    return Timing(fake.now, fake.sleep, wall=lambda: EPOCH + fake.now())


def updates(fake: FakeCloud) -> list[list[str]]:
    """The update_mask paths of every NodeGroupService.Update the fake received."""
    return [list(c.request.update_mask.paths) for c in fake.calls_to("NodeGroupService.Update")]


def version_updates(fake: FakeCloud) -> int:
    """How many Update calls asked for a version change."""
    return sum(1 for paths in updates(fake) if "version" in paths)


POLICY_MASK = ["deploy_policy.max_expansion", "deploy_policy.max_unavailable"]


def cli(fake: FakeCloud, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        *args: str, timing: Timing | None = None) -> tuple[int, str, str]:
    """Run ``ngupgrade ARGS`` in process on the fake's virtual clock (main's Timing seam), or
    on ``timing``."""
    from ngupgrade.cli import main

    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    try:
        main(["upgrade", "--state", STATE, "--endpoint", fake.endpoint, "--insecure", *args],
             timing=timing or fake_timing(fake))
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err
