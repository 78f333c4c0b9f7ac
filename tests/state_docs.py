"""Terraform states (v4) of one node group ``yandex_kubernetes_node_group.bad``, for tests of
values no real state holds: written by the test kit's state writer (every attribute as
terraform-provider-yandex writes it), then the one block under test replaced."""

from __future__ import annotations

import json

from ngupgrade.testing import TfState, yandex_node_group


def state_doc(scale: dict, resources: dict | None = None) -> bytes:
    """A state whose one group has ``scale_policy`` ``[scale]`` and node ``resources`` (the
    writer's 2 cores, 4 GB, 100 % by default), a 64 GB network-hdd boot disk and deploy policy
    1/0."""
    attrs = yandex_node_group(id="catngbad", name="bad", cluster_id="catcl", deploy=(1, 0),
                              cores=2, memory=4, disk_type="network-hdd", disk_size=64)
    attrs["scale_policy"] = [scale]
    if resources is not None:
        attrs["instance_template"][0]["resources"] = [resources]
    state = TfState().add("yandex_kubernetes_node_group", "bad", attrs)
    return json.dumps(state.to_v4()).encode()


FIXED_SCALE = {"fixed_scale": [{"size": 3}], "auto_scale": []}
"""A 3-node fixed ``scale_policy``."""
