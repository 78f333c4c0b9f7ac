"""The workloads both example cluster dumps hold (Yandex's here, Selectel's in selectel/).

``generate_cluster.py`` of either directory places them on its own nodes: the system pods
(kube-proxy and node-exporter DaemonSets on every node, coredns with its PDB), the shop (frontend
under a PDB, checkout under minAvailable 1, session-cache with an emptyDir) and the nightly
batch Job's pod. Each helper returns kubectl objects in the order the dumps list them. The
generators put the repository root on ``sys.path`` before importing this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ngupgrade.testing import kube_objects as ko

Obj = dict[str, Any]


def deployment_with_pods(name: str, namespace: str, nodes: Sequence[str],
                         requests: dict[str, str], *, volumes: list[Obj] | None = None,
                         mounts: tuple[str, ...] = (), **spec_args: Any) -> list[Obj]:
    """A Deployment, its ReplicaSet and one pod on each of ``nodes``."""
    labels = {"app.kubernetes.io/name": name}
    template = ko.pod_spec([ko.container(name, requests, mounts=mounts)], volumes=volumes or (),
                           **spec_args)
    rs = ko.replicaset(name, namespace, len(nodes), labels, template)
    rs_name, rs_labels = rs["metadata"]["name"], rs["metadata"]["labels"]
    pods = [ko.pod(f"{rs_name}-{ko.pod_hash(name + str(i))[:5]}", namespace,
                   {**template, "nodeName": node}, labels=rs_labels,
                   owner=("apps/v1", "ReplicaSet", rs_name)) for i, node in enumerate(nodes)]
    return [ko.deployment(name, namespace, len(nodes), labels, template), rs, *pods]


def daemonset_with_pods(name: str, namespace: str, requests: dict[str, str],
                        nodes: Sequence[str]) -> list[Obj]:
    """A DaemonSet tolerating every taint, with one pod on each of ``nodes``."""
    labels = {"app.kubernetes.io/name": name}
    template = ko.pod_spec([ko.container(name, requests, port=None)],
                           tolerations=[{"operator": "Exists"}], priority=2000001000,
                           extra={"priorityClassName": "system-node-critical"})
    pods = [ko.pod(f"{name}-{ko.pod_hash(name + node)[:5]}", namespace,
                   {**template, "nodeName": node}, labels=labels,
                   owner=("apps/v1", "DaemonSet", name)) for node in nodes]
    return [ko.daemonset(name, namespace, labels, template, len(nodes)), *pods]


def system_workloads(every_node: Sequence[str], coredns: Sequence[str]) -> list[Obj]:
    """kube-proxy and node-exporter on every node; coredns (2 replicas, on ``coredns``) under
    a PDB maxUnavailable 1."""
    items = daemonset_with_pods("kube-proxy", "kube-system", {"cpu": "100m"}, every_node)
    items += daemonset_with_pods("node-exporter", "monitoring",
                                 {"cpu": "50m", "memory": "50Mi"}, every_node)
    items += deployment_with_pods("coredns", "kube-system", coredns,
                                  {"cpu": "100m", "memory": "70Mi"},
                                  priority=2000000000,
                                  extra={"priorityClassName": "system-cluster-critical"})
    items.append(ko.pdb("coredns", "kube-system", {"app.kubernetes.io/name": "coredns"},
                        max_unavailable=1, healthy=2, desired=1, expected=2))
    return items


def shop_workloads(frontend: Sequence[str], *, checkout: str, session_cache: str,
                   min_available: int | None = None,
                   max_unavailable: int | None = None) -> list[Obj]:
    """Namespace ``shop``: frontend (one replica on each of ``frontend``) under a PDB of
    ``min_available`` or ``max_unavailable``; checkout, 1 replica on ``checkout`` under
    minAvailable 1 (never evictable); session-cache on ``session_cache`` with an emptyDir (its
    data goes with the pod)."""
    items = deployment_with_pods("frontend", "shop", frontend,
                                 {"cpu": "500m", "memory": "512Mi"})
    items.append(ko.pdb("frontend", "shop", {"app.kubernetes.io/name": "frontend"},
                        min_available=min_available, max_unavailable=max_unavailable,
                        healthy=3, desired=2, expected=3))
    items += deployment_with_pods("checkout", "shop", [checkout],
                                  {"cpu": "250m", "memory": "256Mi"})
    items.append(ko.pdb("checkout", "shop", {"app.kubernetes.io/name": "checkout"},
                        min_available=1, healthy=1, desired=1, expected=1))
    items += deployment_with_pods("session-cache", "shop", [session_cache],
                                  {"cpu": "200m", "memory": "1Gi"},
                                  volumes=[{"emptyDir": {}, "name": "cache"}], mounts=("cache",))
    return items


def nightly_report(node: str, node_selector: Mapping[str, str] = {}) -> Obj:
    """The pod of the batch Job ``nightly-report-28950840`` on ``node`` (tainted
    ``dedicated=batch:NoSchedule``), tolerating that taint."""
    spec = ko.pod_spec([ko.container("report", {"cpu": "500m", "memory": "1Gi"}, port=None)],
                       node_name=node,
                       tolerations=[{"effect": "NoSchedule", "key": "dedicated",
                                     "operator": "Equal", "value": "batch"}],
                       node_selector=node_selector, extra={"restartPolicy": "Never"})
    return ko.pod("nightly-report-28950840-x7k2p", "batch", spec,
                  labels={"job-name": "nightly-report-28950840"},
                  owner=("batch/v1", "Job", "nightly-report-28950840"))
