"""Minimal Terraform states (v4) of one node group ``yandex_kubernetes_node_group.bad``, for
tests of values no real state holds."""

from __future__ import annotations


def state_doc(scale: dict, resources: dict | None = None) -> bytes:
    """A state whose one group has ``scale_policy`` ``scale`` and node ``resources`` (2 cores,
    4 GB by default), a 64 GB network-hdd boot disk and deploy policy 1/0."""
    import json

    attrs = {
        "id": "catngbad", "name": "bad", "cluster_id": "catcl",
        "scale_policy": [scale],
        "deploy_policy": [{"max_expansion": 1, "max_unavailable": 0}],
        "instance_template": [{
            "platform_id": "standard-v3",
            "resources": [resources or {"cores": 2, "memory": 4, "core_fraction": 100}],
            "boot_disk": [{"size": 64, "type": "network-hdd"}],
        }],
    }
    return json.dumps({"version": 4, "resources": [{
        "mode": "managed", "type": "yandex_kubernetes_node_group", "name": "bad",
        "instances": [{"attributes": attrs}]}]}).encode()


FIXED_SCALE = {"fixed_scale": [{"size": 3}], "auto_scale": []}
"""A 3-node fixed ``scale_policy``."""
