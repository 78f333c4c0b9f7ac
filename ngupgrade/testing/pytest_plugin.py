"""pytest plugin (entry point ``pytest11: ngupgrade_fake_cloud``): the ``fake_cloud`` fixture.

Use in a runbook test::

    @pytest.mark.fake_cloud(state="terraform.tfstate", scenario="scenario.yaml")
    def test_upgrade(fake_cloud):
        gw = fake_cloud.gateway()          # a real CloudGateway over the SDK, virtual clock
        ...
        assert len(fake_cloud.calls_to("NodeGroupService.Update")) == 1

Beside the cloud it serves a fake Kubernetes API (nodes of the groups, labelled
``yandex.cloud/node-group-id``, plus the scenario's ``workloads``); ``fake_cloud.kubeconfig``
is a kubeconfig file for it (token-less, current context ``fake-cloud``), e.g. for
``ngupgrade.adapters.kube.live.read_live(str(fake_cloud.kubeconfig))``.

The marker takes keywords only: ``state`` (a Terraform state: a path, ``-``, ``tf:DIR`` or
``s3://...``), ``groups`` (NodeGroup values), ``scenario`` (a path, a mapping or a Scenario)
and ``speed`` (None: a :class:`~ngupgrade.testing.VirtualClock` that moves only through
``fake_cloud.sleep``; a number: real time that many times faster). Relative paths are read
from the test file's folder. Without the marker the fake holds one 3-node group ``workers``
(:func:`ngupgrade.testing.node_group`). Any other argument fails the test at setup, naming the
closest known one: a misspelt ``scenarios=`` must not run a failure test without its faults.
See docs/cloud.md.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ngupgrade.testing.fake_cloud import FakeCloud

MARKER_ARGS = ("state", "groups", "scenario", "speed")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fake_cloud(state=None, groups=None, scenario=None, speed=None): seed the "
                   "fake_cloud fixture (ngupgrade; docs/cloud.md)")


def marker_arguments(marker: pytest.Mark | None) -> dict[str, Any]:
    """The marker's keywords, checked: no positional argument, no unknown keyword, ``speed``
    a finite number > 0. Fails the test (at setup) naming the closest known argument."""
    if marker is None:
        return {}
    if marker.args:
        pytest.fail(f"fake_cloud marker: arguments are keywords only ({', '.join(MARKER_ARGS)}); "
                    f"got {len(marker.args)} positional: {marker.args[0]!r}", pytrace=False)
    for key in marker.kwargs:
        if key not in MARKER_ARGS:
            close = difflib.get_close_matches(key, MARKER_ARGS, n=1)
            pytest.fail(f"fake_cloud marker: unknown argument {key!r} (known: "
                        f"{', '.join(MARKER_ARGS)})"
                        + (f"; did you mean {close[0]!r}?" if close else ""), pytrace=False)
    speed = marker.kwargs.get("speed")
    if speed is not None and (isinstance(speed, bool) or not isinstance(speed, (int, float))
                              or not math.isfinite(speed) or speed <= 0):
        pytest.fail(f"fake_cloud marker: speed must be a number > 0 (virtual seconds per real "
                    f"second), got {speed!r}", pytrace=False)
    if "state" in marker.kwargs and "groups" in marker.kwargs:
        pytest.fail("fake_cloud marker: give state= or groups=, not both", pytrace=False)
    return dict(marker.kwargs)


def resolve(value: Any, base: Path) -> Any:
    """A marker path relative to the test file's folder ``base``; other values as given.
    ``-`` (stdin) and ``s3://`` stay; ``tf:DIR`` resolves ``DIR``."""
    if not isinstance(value, (str, os.PathLike)):
        return value
    text = os.fspath(value)
    if text == "-" or "://" in text:
        return text
    if text.startswith("tf:"):
        return "tf:" + str(base / text[3:])
    return str(base / text)


@pytest.fixture
def fake_cloud(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FakeCloud]:
    """A started :class:`FakeCloud` on 127.0.0.1 (port 0), stopped after the test, with its
    fake Kubernetes API's kubeconfig at ``fake_cloud.kubeconfig`` (in ``tmp_path``)."""
    # imported here: grpc and the SDK protos load only in tests that use the fixture
    from ngupgrade.core.errors import NgUpgradeError
    from ngupgrade.testing.builders import node_group
    from ngupgrade.testing.clocks import RealClock, VirtualClock
    from ngupgrade.testing.fake_cloud import FakeCloud
    from ngupgrade.testing.scenario import Scenario

    kwargs = marker_arguments(request.node.get_closest_marker("fake_cloud"))
    base = Path(str(request.node.path)).parent
    scenario = resolve(kwargs.get("scenario"), base)
    speed = kwargs.get("speed")
    clock = VirtualClock() if speed is None else RealClock(speed)
    problem = None
    try:
        if isinstance(scenario, str):
            scenario = Scenario.load(scenario)
        elif scenario is not None and not isinstance(scenario, (Scenario, Mapping)):
            pytest.fail(f"fake_cloud marker: scenario must be a path, a mapping or a Scenario, "
                        f"got {type(scenario).__name__}", pytrace=False)
        if kwargs.get("state") is not None:
            fake = FakeCloud.from_state(resolve(kwargs["state"], base), scenario, clock=clock)
        else:
            fake = FakeCloud(kwargs.get("groups") or [node_group()], scenario, clock=clock)
    except NgUpgradeError as err:  # a bad state or scenario: one line, as the CLI says it
        problem = f"fake_cloud marker: {err}" + (f" ({err.hint})" if err.hint else "")
    if problem is not None:
        pytest.fail(problem, pytrace=False)
    with fake:
        fake.write_kubeconfig(tmp_path / "fake-cloud.kubeconfig")
        yield fake
