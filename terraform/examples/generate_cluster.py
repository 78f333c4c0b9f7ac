"""Write cluster.json: the Kubernetes side of terraform.tfstate, as kubectl prints it.

What `kubectl get nodes,pods,pdb,deployments,replicasets,statefulsets,daemonsets,pvc,pv -A
-o json` plus `kubectl get ytsaurus -A -o json` would show on the example cluster "prod":

* nodes labelled ``yandex.cloud/node-group-id`` with the state's group ids, as many as each
  group has (workers: fixed 3; gpu: fixed 1; batch: autoscaled, initial 1), allocatable from
  each group's template by Yandex's reservation formula (docs managed-kubernetes/concepts/
  node-group/allocatable-resources; worked out below), the batch node tainted as its template;
* workloads that give the drain check real findings on ``workers`` (1 surge node, 0 down):
  ``shop/frontend`` 3 replicas under a PDB minAvailable 2, two of them on one node (one
  eviction at a time: slows that wave); ``shop/checkout`` 1 replica under a PDB
  minAvailable 1 (never evictable: the node is stopped after 7 minutes with it); a bare
  pod ``shop/debug-shell`` (deleted for good);
  ``shop/session-cache`` with an emptyDir (its data is lost); ``shop/postgres`` a StatefulSet
  on network disks; ``coredns`` with its PDB; DaemonSets on every node; a Ytsaurus "yt" with
  5 HTTP proxies (minReadyInstanceCount 3), three of them on one worker node.

Run `python terraform/examples/generate_cluster.py` after changing it; tests compare the
committed file with its output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

from cluster_workloads import (  # noqa: E402
    deployment_with_pods,
    nightly_report,
    shop_workloads,
    system_workloads,
)

from ngupgrade.testing import kube_objects as ko  # noqa: E402

WORKERS, GPU, BATCH = "cat1ng0fixed0000abcd", "cat3ng0gpu000000ijkl", "cat2ng0auto00000efgh"
KI = 1024

# Allocatable = template - Yandex's reservation (allocatable-resources.md):
#   cpu: 6% of core 1, 1% of core 2, 0.5% of cores 3-4, 0.25% of each core above 4;
#   memory: 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112,
#   2% above 128, then 100 MiB for the eviction threshold (MiB/GiB read as binary).
# workers, 4 cores / 16 GiB: cpu 4000 - (60 + 10 + 2*5) = 3920m;
#   memory 16384 MiB - (1024 + 819.2 + 819.2) - 100 = 13621.6 MiB = 13948518.4 Ki.
# gpu, 28 cores / 119 GiB: cpu 28000 - (60 + 10 + 10 + 24*2.5) = 27860m;
#   memory 121856 MiB - (1024 + 819.2 + 819.2 + 0.06*105472) - 100 = 112765.28 MiB
#   = 115471646.72 Ki.
# batch, 2 cores (50%) / 4 GiB: cpu 2000 - 70 = 1930m; memory 4096 - 1024 - 100 = 2972 MiB.
# ephemeral-storage: the boot disk less kubelet's 10% nodefs eviction threshold.
NODE_SHAPES: dict[str, dict[str, Any]] = {
    WORKERS: {"cpu": "3920m", "memory": "13948518Ki", "cores": 4,
              "memory_capacity": f"{16 * KI * KI}Ki",
              "ephemeral": str(64 * (1 << 30) * 9 // 10), "platform": "standard-v3"},
    GPU: {"cpu": "27860m", "memory": "115471646Ki", "cores": 28,
          "memory_capacity": f"{119 * KI * KI}Ki", "extra": {"nvidia.com/gpu": "1"},
          "ephemeral": str(186 * (1 << 30) * 9 // 10), "platform": "gpu-standard-v3"},
    BATCH: {"cpu": "1930m", "memory": f"{2972 * KI}Ki", "cores": 2,
            "memory_capacity": f"{4 * KI * KI}Ki",
            "ephemeral": str(96 * (1 << 30) * 9 // 10), "platform": "standard-v3",
            "taints": [{"effect": "NoSchedule", "key": "dedicated", "value": "batch"}]},
}
# The node_labels of terraform.tfstate: Yandex puts a group's node_labels on its nodes.
NODE_SHAPES[WORKERS]["labels"] = {"role": "workers"}
NODE_SHAPES[GPU]["labels"] = {"accelerator": "a100"}
NODES = {
    WORKERS: ["cl1wrk0fixed0abcd-ahyg", "cl1wrk0fixed0abcd-ekov", "cl1wrk0fixed0abcd-uzip"],
    GPU: ["cl1gpu0fixed0ijkl-ocyf"],
    BATCH: ["cl1bat0auto00efgh-ytep"],
}
W1, W2, W3 = NODES[WORKERS]


def statefulset_with_pods(name: str, namespace: str, nodes: list[str],
                          requests: dict[str, str]) -> list[dict[str, Any]]:
    labels = {"app.kubernetes.io/name": name}
    out: list[dict[str, Any]] = []
    for i, node in enumerate(nodes):
        claim, volume = f"data-{name}-{i}", f"pvc-{ko.uid('pv', namespace, f'{name}-{i}')}"
        spec = ko.pod_spec([ko.container(name, requests, mounts=("data",), port=5432)],
                           node_name=node, volumes=[
                               {"name": "data", "persistentVolumeClaim": {"claimName": claim}}])
        out += [ko.pod(f"{name}-{i}", namespace, spec, labels=labels,
                       owner=("apps/v1", "StatefulSet", name)),
                ko.pvc(claim, namespace, volume, storage="20Gi"),
                ko.pv(volume, claim=(namespace, claim), storage="20Gi")]
    template = ko.pod_spec([ko.container(name, requests, mounts=("data",), port=5432)])
    return [ko.statefulset(name, namespace, len(nodes), labels, template, claim="data",
                           storage="20Gi"), *out]


def ytsaurus_with_pods() -> list[dict[str, Any]]:
    """Ytsaurus "yt" (useShortNames): StatefulSets hp and ms owned by it, pods labelled as the
    operator labels them (pkg/labeller/labeller.go GetMetaLabelMap)."""
    out: list[dict[str, Any]] = [ko.ytsaurus("yt", "yt", {
        "primaryMasters": {"cellTag": 1, "instanceCount": 1, "locations": [
            {"locationType": "MasterChangelogs", "path": "/yt/master-data"}]},
        "httpProxies": [{"instanceCount": 5, "minReadyInstanceCount": 3,
                         "role": "default", "serviceType": "NodePort"}],
    })]
    for short, label, placement in (("hp", "yt-http-proxy", [W1, W1, W1, W2, W3]),
                                    ("ms", "yt-master", [W2])):
        labels = {"app.kubernetes.io/component": label, "app.kubernetes.io/managed-by":
                  "ytsaurus-k8s-operator", "app.kubernetes.io/name": label,
                  "app.kubernetes.io/part-of": "yt-yt", "ytsaurus.tech/cluster-name": "yt",
                  "yt_component": f"yt-{label}"}
        template = ko.pod_spec([ko.container("ytserver", {"cpu": "500m", "memory": "1Gi"},
                                             image="ghcr.io/ytsaurus/ytsaurus:stable-24.2.0",
                                             port=80)])
        sts = ko.statefulset(short, "yt", len(placement), labels, template)
        sts["metadata"]["ownerReferences"] = [{
            "apiVersion": "cluster.ytsaurus.tech/v1", "blockOwnerDeletion": True,
            "controller": True, "kind": "Ytsaurus", "name": "yt",
            "uid": ko.uid("Ytsaurus", "yt", "yt")}]
        out.append(sts)
        out += [ko.pod(f"{short}-{i}", "yt", {**template, "nodeName": node}, labels=labels,
                       owner=("apps/v1", "StatefulSet", short)) for i, node in enumerate(placement)]
    return out


def build() -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for group, names in NODES.items():
        shape = dict(NODE_SHAPES[group])
        for name in names:
            items.append(ko.node(name, group_id=group, pods="110", **shape))
    small = {"cpu": "100m", "memory": "128Mi"}
    items += system_workloads([n for names in NODES.values() for n in names], [W1, W3])
    # two frontend pods share a node: its wave evicts them one at a time (budget 1)
    items += shop_workloads([W1, W3, W3], min_available=2, checkout=W2, session_cache=W3)
    items.append(ko.pod("debug-shell", "shop", ko.pod_spec(
        [ko.container("shell", small, image="busybox:1.36", port=None)], node_name=W1),
        labels={"run": "debug-shell"}))
    items += statefulset_with_pods("postgres", "shop", [W2, W3], {"cpu": "1", "memory": "2Gi"})
    items += deployment_with_pods("inference", "ml", [NODES[GPU][0]],
                                  {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1"})
    items.append(nightly_report(NODES[BATCH][0], {"yandex.cloud/node-group-id": BATCH}))
    items += ytsaurus_with_pods()
    return ko.as_list(items)


def main() -> None:
    (HERE / "cluster.json").write_text(json.dumps(build(), indent=4) + "\n")


if __name__ == "__main__":
    main()
