"""The Kubernetes side of the fake cloud: nodes of its node groups plus the scenario's workloads.

:func:`cluster_objects` gives the objects the fake Kubernetes API
(:mod:`ngupgrade.testing.kube_api`) serves beside the fake cloud: for every node of every fake
group, a Kubernetes node named as the cloud's ``ListNodes`` names it (``proto.node_name``)
and labelled ``yandex.cloud/node-group-id=<group id>`` plus the template's ``node_labels``,
tainted with its ``node_taints``, with the allocatable Yandex reserves for its template
(``core.drain.resources.yandex_allocatable``: the one definition the drain check uses too).
The scenario's ``workloads`` (kubectl objects) come after; a group for which the workloads
hold nodes already (by that label) gets no generated ones.

The objects are made when the fake starts; from then on the served cluster follows the
upgrades the fake cloud runs (:mod:`ngupgrade.testing.kube_follow`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ngupgrade.core.drain.resources import DEFAULT_MAX_PODS, yandex_allocatable
from ngupgrade.core.k8s import NODE_GROUP_LABEL
from ngupgrade.testing import kube_objects as ko
from ngupgrade.testing.objects import FakeGroup
from ngupgrade.testing.proto import node_name

EPHEMERAL_SHARE = 0.9
"""Share of the boot disk a node offers as ``ephemeral-storage``: kubelet keeps 10 % back by
its default ``nodefs.available`` eviction threshold."""


def group_nodes(g: FakeGroup) -> list[dict[str, Any]]:
    """One Kubernetes node (kubectl JSON) per member of ``g``."""
    spec = g.spec
    labels = dict(spec.node_labels) if spec is not None else {}
    taints = [{"effect": t.effect, "key": t.key, **({"value": t.value} if t.value else {})}
              for t in (spec.node_taints if spec is not None else ())]
    template = g.node
    shape: dict[str, Any] = {}
    if template is not None:
        disk = template.boot_disk
        ephemeral = int(disk.size_bytes * EPHEMERAL_SHARE) if disk is not None else None
        alloc = yandex_allocatable(template.cores, template.memory_bytes, gpus=template.gpus,
                                   pods=DEFAULT_MAX_PODS, ephemeral_bytes=ephemeral)
        shape = {"cpu": f"{alloc['cpu']}m", "memory": str(alloc["memory"]),
                 "pods": str(alloc["pods"]), "cores": template.cores,
                 "memory_capacity": str(template.memory_bytes),
                 "platform": template.platform_id or "standard-v3"}
        if ephemeral is not None:
            shape["ephemeral"] = str(ephemeral)
        if template.gpus:
            shape["extra"] = {"nvidia.com/gpu": str(template.gpus)}
    return [ko.node(node_name(g, n.instance_id), group_id=g.id, labels=labels,
                    taints=taints, **shape) for n in g.members]


def cluster_objects(groups: Iterable[FakeGroup],
                    workloads: Sequence[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """Generated nodes of ``groups`` (those without nodes in ``workloads``), then
    ``workloads`` as given."""
    given = {((obj.get("metadata") or {}).get("labels") or {}).get(NODE_GROUP_LABEL)
             for obj in workloads if obj.get("kind") == "Node"}
    out: list[dict[str, Any]] = []
    for g in groups:
        if g.id not in given:
            out += group_nodes(g)
    return out + [dict(obj) for obj in workloads]
