"""Test helpers for runbooks: a fake Yandex Cloud speaking the real gRPC API on 127.0.0.1.

Public surface::

    from ngupgrade.testing import FakeCloud, Scenario, Fault, VirtualClock, RealClock, node_group

The pytest plugin (entry point ``ngupgrade_fake_cloud``) gives the ``fake_cloud`` fixture;
see docs/cloud.md. Importing this package imports grpc and the SDK's protos.
"""

from ngupgrade.testing.builders import node_group
from ngupgrade.testing.fake_cloud import Call, FakeCloud, RealClock, VirtualClock
from ngupgrade.testing.scenario import Fault, Scenario

__all__ = ["Call", "FakeCloud", "Fault", "RealClock", "Scenario", "VirtualClock", "node_group"]
