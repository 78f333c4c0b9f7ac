"""A small cluster as kubectl prints it, shared by the dump and live reader tests."""

from __future__ import annotations

from typing import Any

from ngupgrade.testing import kube_objects as ko

GROUP = "cat1ng0fixed0000abcd"


def objects() -> list[dict[str, Any]]:
    """3 nodes, a Deployment (RS, 2 pods, PDB), a bare pod, a DaemonSet pod per node, a
    StatefulSet pod with a PVC on a local PV, a Ytsaurus with 5 http proxies."""
    out: list[dict[str, Any]] = []
    nodes = [f"node-{i}" for i in range(3)]
    for name in nodes:
        out.append(ko.node(name, group_id=GROUP))
    web = {"app": "web"}
    web_spec = ko.pod_spec([ko.container("web", {"cpu": "250m", "memory": "256Mi"})])
    out.append(ko.deployment("web", "shop", 2, web, web_spec))
    rs = ko.replicaset("web", "shop", 2, web, web_spec)
    out.append(rs)
    rs_name = rs["metadata"]["name"]
    for i in range(2):
        spec = ko.pod_spec([ko.container("web", {"cpu": "250m", "memory": "256Mi"})],
                           node_name=nodes[i])
        out.append(ko.pod(f"{rs_name}-x{i}", "shop", spec,
                          labels={**web, "pod-template-hash": ko.pod_hash("web")},
                          owner=("apps/v1", "ReplicaSet", rs_name)))
    out.append(ko.pdb("web", "shop", web, min_available=1, healthy=2, desired=1, expected=2))
    out.append(ko.pod("debug", "shop", ko.pod_spec(
        [ko.container("sh", {"cpu": "10m"})], node_name=nodes[2])))
    agent = {"app": "agent"}
    agent_spec = ko.pod_spec([ko.container("agent", {"cpu": "50m", "memory": "64Mi"})],
                             tolerations=[{"operator": "Exists"}])
    out.append(ko.daemonset("agent", "kube-system", agent, agent_spec, len(nodes)))
    for i, name in enumerate(nodes):
        spec = ko.pod_spec([ko.container("agent", {"cpu": "50m", "memory": "64Mi"})],
                           node_name=name, tolerations=[{"operator": "Exists"}])
        out.append(ko.pod(f"agent-{i}", "kube-system", spec, labels=agent,
                          owner=("apps/v1", "DaemonSet", "agent")))
    db = {"app": "db"}
    db_spec = ko.pod_spec([ko.container("db", {"cpu": "1", "memory": "2Gi"}, mounts=["data"])],
                          node_name=nodes[1], volumes=[{
                              "name": "data",
                              "persistentVolumeClaim": {"claimName": "data-db-0"}}])
    out.append(ko.statefulset("db", "shop", 1, db, db_spec, claim="data"))
    out.append(ko.pod("db-0", "shop", db_spec, labels=db, owner=("apps/v1", "StatefulSet", "db")))
    out.append(ko.pvc("data-db-0", "shop", "local-pv-1"))
    out.append(ko.pv("local-pv-1", claim=("shop", "data-db-0"), local_path="/mnt/disks/ssd0",
                     node_name=nodes[1]))
    out.append(ko.ytsaurus("yt", "yt", {"httpProxies": [
        {"instanceCount": 5, "minReadyInstanceCount": 3, "role": "default"}]}))
    for i in range(5):
        spec = ko.pod_spec([ko.container("ytserver", {"cpu": "100m"})], node_name=nodes[i % 3])
        out.append(ko.pod(f"hp-{i}", "yt", spec, labels={"yt_component": "yt-yt-http-proxy"},
                          owner=("apps/v1", "StatefulSet", "hp")))
    return out
