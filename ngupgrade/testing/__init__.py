"""Test helpers for runbooks: a fake Yandex Cloud speaking the real gRPC API on 127.0.0.1.

Public surface::

    from ngupgrade.testing import FakeCloud, Scenario, Fault, VirtualClock, RealClock, node_group
    from ngupgrade.testing import TfState, yandex_node_group, weekly_window  # state writer

The pytest plugin (entry point ``ngupgrade_fake_cloud``) gives the ``fake_cloud`` fixture;
see docs/cloud.md. Importing this package imports grpc and the SDK's protos.

Modules: ``world`` (groups, nodes, operations, quota usage; no gRPC), ``procedure`` (the
platform's node-by-node upgrade), ``faults``, ``quotas``, ``proto`` (API messages),
``servicers``, ``fake_cloud`` (server and lifecycle), ``clocks``, ``scenario`` (the file),
``builders`` (``node_group``), ``pytest_plugin``; the state writer: ``tfstate`` (the v4
state and ``terraform show -json`` documents), ``tfstate_yandex`` and ``tfstate_selectel``
(each resource's attributes exactly as the provider's flatten functions write them; their
docstrings name the functions, files and provider commits).
"""

from pathlib import Path

from ngupgrade.testing.builders import node_group, node_resources
from ngupgrade.testing.clocks import RealClock, VirtualClock
from ngupgrade.testing.fake_cloud import FakeCloud
from ngupgrade.testing.scenario import Fault, Scenario
from ngupgrade.testing.servicers import Call
from ngupgrade.testing.tfstate import TfState
from ngupgrade.testing.tfstate_selectel import selectel_cluster, selectel_node_group
from ngupgrade.testing.tfstate_yandex import (
    daily_window,
    instance_template,
    network_interface,
    weekly_window,
    yandex_cluster,
    yandex_node_group,
    yandex_node_group_v035,
    yandex_placement_group,
    yandex_subnet,
)
from ngupgrade.testing.world import World

EXAMPLES = Path(__file__).resolve().parent / "examples"
"""Example scenario files shipped with the kit (``scenario.yaml``: the fake behind make demo)."""

__all__ = ["EXAMPLES", "Call", "FakeCloud", "Fault", "RealClock", "Scenario", "TfState",
           "VirtualClock", "World", "daily_window", "instance_template", "network_interface",
           "node_group", "node_resources", "selectel_cluster", "selectel_node_group",
           "weekly_window", "yandex_cluster", "yandex_node_group", "yandex_node_group_v035",
           "yandex_placement_group",
           "yandex_subnet"]
