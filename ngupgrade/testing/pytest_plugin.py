"""pytest plugin (entry point ``pytest11: ngupgrade_fake_cloud``): the ``fake_cloud`` fixture.

Use in a runbook test::

    @pytest.mark.fake_cloud(state="terraform.tfstate", scenario="scenario.yaml")
    def test_upgrade(fake_cloud):
        gw = fake_cloud.gateway()          # a real CloudGateway over the SDK, virtual clock
        ...
        assert len(fake_cloud.calls_to("NodeGroupService.Update")) == 1

The marker takes ``state`` (a Terraform state path), ``groups`` (NodeGroup values),
``scenario`` (a path, a mapping or a Scenario). Without the marker the fake holds one
3-node group ``workers`` (:func:`ngupgrade.testing.node_group`). The fake runs on a
:class:`~ngupgrade.testing.VirtualClock`; ``fake_cloud.sleep`` moves it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ngupgrade.testing.fake_cloud import FakeCloud


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "fake_cloud(state=None, groups=None, scenario=None): seed the fake_cloud "
                   "fixture (ngupgrade)")


@pytest.fixture
def fake_cloud(request: pytest.FixtureRequest) -> Iterator[FakeCloud]:
    """A started :class:`FakeCloud` on 127.0.0.1 (port 0), stopped after the test."""
    # imported here: grpc and the SDK protos load only in tests that use the fixture
    from ngupgrade.testing.builders import node_group
    from ngupgrade.testing.fake_cloud import FakeCloud
    from ngupgrade.testing.scenario import Scenario

    marker = request.node.get_closest_marker("fake_cloud")
    kwargs: dict[str, Any] = dict(marker.kwargs) if marker else {}
    scenario = kwargs.get("scenario")
    if isinstance(scenario, str):
        scenario = Scenario.load(scenario)
    if kwargs.get("state"):
        fake = FakeCloud.from_state(kwargs["state"], scenario)
    else:
        fake = FakeCloud(kwargs.get("groups") or [node_group()], scenario)
    with fake:
        yield fake
