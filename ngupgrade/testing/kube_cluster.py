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

from ngupgrade.core.drain.resources import CPU, DEFAULT_MAX_PODS, yandex_allocatable
from ngupgrade.core.k8s import NODE_GROUP_LABEL
from ngupgrade.core.model import GIB, FixedScale, NodeGroup
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


def filled_workloads(groups: Iterable[NodeGroup], per_node: int, *, cpu_share: float = 0.5,
                     daemonsets: int = 2) -> list[dict[str, Any]]:
    """Workloads that fill every node of ``groups`` with ``per_node`` pods (kubectl JSON, for a
    scenario's ``workloads``), as a cluster at the platform's limits holds them: ``daemonsets``
    DaemonSet pods on every node, the rest of each node's slots Deployment pods, slot ``j`` of
    the first half of a group's nodes one Deployment, of the second half another (each of
    ``nodes / 2`` replicas, one a node); a PDB of ``maxUnavailable: 1`` on a third of the
    Deployments, of ``10%`` on a third. The pods together request ``cpu_share`` of each
    node's allocatable cpu (Yandex's reservation for the group's template) and 64 MiB each.

    Nodes are named as the fake names a group's seeded nodes (``<group name>-0000`` on,
    :func:`ngupgrade.testing.proto.node_name`); the fake generates the nodes themselves.
    110 pods a node is the kubelet's default ``maxPods`` (``DEFAULT_MAX_PODS``), 200 nodes
    Yandex's per-group limit: every old node is then full by pod count, and an evicted pod
    finds room only on a node the upgrade created or updated.
    """
    out: list[dict[str, Any]] = []
    for g in groups:
        size = g.scale.size if isinstance(g.scale, FixedScale) else (g.scale.initial
                                                                    or g.scale.min)
        cores = g.node.cores if g.node is not None else 4
        memory = g.node.memory_bytes if g.node is not None else 8 * GIB
        cpu = int(cpu_share * yandex_allocatable(cores, memory)[CPU] // max(1, per_node))
        names = [f"{g.name}-{i:04d}" for i in range(size)]
        out += _daemon_pods(g.name, names, daemonsets)
        out += _deployment_pods(g.name, names, per_node - daemonsets, f"{cpu}m")
    return out


def _daemon_pods(group: str, names: Sequence[str], count: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for d in range(count):
        name, labels = f"{group}-agent-{d}", {"app.kubernetes.io/name": f"{group}-agent-{d}"}
        spec = ko.pod_spec([ko.container("agent", {"cpu": "10m", "memory": "32Mi"},
                                         port=None)], tolerations=[{"operator": "Exists"}])
        out.append(ko.daemonset(name, "kube-system", labels, spec, len(names)))
        out += [ko.pod(f"{name}-{ko.pod_hash(node)[:5]}", "kube-system",
                       {**spec, "nodeName": node}, labels=labels,
                       owner=("apps/v1", "DaemonSet", name)) for node in names]
    return out


def _deployment_pods(group: str, names: Sequence[str], slots: int, cpu: str
                     ) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    half = max(1, len(names) // 2)
    spec = ko.pod_spec([ko.container("app", {"cpu": cpu, "memory": "64Mi"}, port=None)])
    for j in range(slots):
        for part, nodes in enumerate((names[:half], names[half:])):
            if not nodes:
                continue
            w = 2 * j + part
            namespace, name = f"team-{w % 20:02d}", f"{group}-svc-{w:04d}"
            labels = {"app.kubernetes.io/name": name}
            rs = ko.replicaset(name, namespace, len(nodes), labels, spec)
            out += [ko.deployment(name, namespace, len(nodes), labels, spec), rs]
            if w % 3 != 2:
                unavailable: int | str = 1 if w % 3 == 0 else "10%"
                down = 1 if w % 3 == 0 else max(1, len(nodes) // 10)
                out.append(ko.pdb(name, namespace, labels, max_unavailable=unavailable,
                                  healthy=len(nodes), desired=len(nodes) - down,
                                  expected=len(nodes)))
            rs_name = rs["metadata"]["name"]
            pod_labels = rs["metadata"]["labels"]
            out += [ko.pod(f"{rs_name}-{r:05x}", namespace, {**spec, "nodeName": node},
                           labels=pod_labels, owner=("apps/v1", "ReplicaSet", rs_name))
                    for r, node in enumerate(nodes)]
    return out
