"""Use case ``fake-cloud``: serve a fake Yandex Cloud seeded from a Terraform state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ngupgrade.app.load import load_groups
from ngupgrade.app.settings import Settings

if TYPE_CHECKING:
    from ngupgrade.testing.fake_cloud import FakeCloud


def start_fake_cloud(settings: Settings, scenario: str | None, port: int, speed: float
                     ) -> FakeCloud:
    """Start the fake on 127.0.0.1:``port`` with a real clock running ``speed`` times faster.

    Raises BadInput (state or scenario), UsageError (no state).
    """
    from ngupgrade.testing.fake_cloud import FakeCloud, RealClock
    from ngupgrade.testing.scenario import Scenario

    groups = load_groups(settings)
    sc = Scenario.load(scenario) if scenario else Scenario()
    return FakeCloud(groups, sc, clock=RealClock(speed)).start(port)
