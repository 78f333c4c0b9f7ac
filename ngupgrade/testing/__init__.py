"""Test helpers for runbooks: a fake Yandex Cloud speaking the real gRPC API on 127.0.0.1.

The stable surface is :data:`__all__` (docs/cloud.md, "The stable surface"): the fake
(:class:`FakeCloud`, :class:`Scenario`, :class:`Fault`, :class:`Call`, the clocks, ``EXAMPLES``),
``node_group`` and ``node_resources`` to build groups, and the state writer (:class:`TfState`
and the resource builders), plus the ``fake_cloud`` pytest fixture (entry point
``ngupgrade_fake_cloud``) and the ``kube_objects`` module of Kubernetes object builders.
Everything else in this package is internal and may change. Importing this package imports
grpc and the SDK's protos.

Internal modules: ``world`` (groups, nodes, operations, quota usage; no gRPC), ``procedure`` (the
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

EXAMPLES = Path(__file__).resolve().parent / "examples"
"""Example scenario files shipped with the kit (``scenario.yaml``: the fake behind make demo)."""

__all__ = [  # the fake cloud (FakeCloud ... node_resources) and the state writer
    "EXAMPLES",
    "Call",
    "FakeCloud",
    "Fault",
    "RealClock",
    "Scenario",
    "TfState",
    "VirtualClock",
    "daily_window",
    "instance_template",
    "network_interface",
    "node_group",
    "node_resources",
    "selectel_cluster",
    "selectel_node_group",
    "weekly_window",
    "yandex_cluster",
    "yandex_node_group",
    "yandex_node_group_v035",
    "yandex_placement_group",
    "yandex_subnet",
]
