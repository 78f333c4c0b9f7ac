"""Test helpers for runbooks: a fake Yandex Cloud speaking the real gRPC API on 127.0.0.1.

Public surface::

    from ngupgrade.testing import FakeCloud, Scenario, Fault, VirtualClock, RealClock, node_group

The pytest plugin (entry point ``ngupgrade_fake_cloud``) gives the ``fake_cloud`` fixture;
see docs/cloud.md. Importing this package imports grpc and the SDK's protos.

Modules: ``world`` (groups, nodes, operations, quota usage; no gRPC), ``procedure`` (the
platform's node-by-node upgrade), ``faults``, ``quotas``, ``proto`` (API messages),
``servicers``, ``fake_cloud`` (server and lifecycle), ``clocks``, ``scenario`` (the file),
``builders`` (``node_group``), ``pytest_plugin``.
"""

from pathlib import Path

from ngupgrade.testing.builders import node_group, node_resources
from ngupgrade.testing.clocks import RealClock, VirtualClock
from ngupgrade.testing.fake_cloud import FakeCloud
from ngupgrade.testing.scenario import Fault, Scenario
from ngupgrade.testing.servicers import Call
from ngupgrade.testing.world import World

EXAMPLES = Path(__file__).resolve().parent / "examples"
"""Example scenario files shipped with the kit (``scenario.yaml``: the fake behind make demo)."""

__all__ = ["EXAMPLES", "Call", "FakeCloud", "Fault", "RealClock", "Scenario", "VirtualClock",
           "World", "node_group", "node_resources"]
