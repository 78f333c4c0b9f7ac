"""Write cluster.json: the Kubernetes side of terraform.tfstate (Selectel), as kubectl prints it.

What `kubectl get nodes,pods,pdb,deployments,replicasets,statefulsets,daemonsets,pvc,pv -A
-o json` would show on the example cluster "prod" of this directory:

* one node per entry of each group's ``nodes`` in the state, named by its ``hostname`` (the
  kubelet registers a node under its hostname; Selectel puts no label naming the group, so
  the drain check finds a group's nodes by these names: ngupgrade/core/membership.py), with
  the group's Kubernetes ``labels`` and ``taints``, the pool segment's zone label and an
  OpenStack provider id; allocatable from the group's ``cpus``/``ram_mb`` less Selectel's
  documented reservation (docs managed-kubernetes/node-groups/
  reserve-resources-for-system-daemons; the same bands as Yandex's), worked out below;
* workloads that give the drain check real findings on ``workers`` (5 nodes, Selectel's
  default strategy 0/1): ``shop/checkout`` 1 replica under a PDB minAvailable 1 on
  workers-3: never evictable, so the upgrade stops there with the cluster in ERROR (seed 001
  L88-L92); ``shop/session-cache`` with an emptyDir on workers-1 (its data goes with the pod;
  on the surge path, 2/0, workers-1 is deleted); ``shop/frontend`` 3 replicas under a PDB
  maxUnavailable 1; ``coredns`` with its PDB; DaemonSets on every node; a batch Job pod on
  the tainted ``batch`` group.

Run `python terraform/examples/selectel/generate_cluster.py` after changing it (or the
state); tests compare the committed file with its output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent))
sys.path.insert(0, str(HERE.parent))

from cluster_workloads import nightly_report, shop_workloads, system_workloads  # noqa: E402

from ngupgrade.testing import kube_objects as ko  # noqa: E402

KI = 1024
ZONE, REGION = "ru-7a", "ru-7"

# Allocatable = the state's cpus/ram_mb less Selectel's reservation (6% of core 1, 1% of
# core 2, 0.5% of cores 3-4, 0.25% above; 25% of the first 4 GB of RAM, 20% of the next 4,
# 10% of the next 8, ...; plus 100 MB for eviction; MB/GB read as MiB/GiB):
# workers, 4 cpus / 8192 MB: cpu 4000 - (60 + 10 + 5 + 5) = 3920m;
#   memory 8192 - (1024 + 819.2) - 100 = 6248.8 MiB = 6398771.2 Ki -> 6398771Ki.
# batch, 2 cpus / 4096 MB: cpu 2000 - 70 = 1930m; memory 4096 - 1024 - 100 = 2972 MiB.
# cache, flavor 1011 (the state holds no shape; this dump says 4 vCPU / 16 GiB): 3920m and
#   16384 - (1024 + 819.2 + 819.2) - 100 = 13621.6 MiB = 13948518.4 Ki -> 13948518Ki.
# ephemeral-storage: the boot volume less kubelet's 10% nodefs eviction threshold.
SHAPES: dict[str, dict[str, Any]] = {
    "workers": {"cpu": "3920m", "memory": "6398771Ki", "cores": 4,
                "memory_capacity": f"{8 * KI * KI}Ki",
                "ephemeral": str(32 * (1 << 30) * 9 // 10)},
    "batch": {"cpu": "1930m", "memory": f"{2972 * KI}Ki", "cores": 2,
              "memory_capacity": f"{4 * KI * KI}Ki",
              "ephemeral": str(20 * (1 << 30) * 9 // 10)},
    "cache": {"cpu": "3920m", "memory": "13948518Ki", "cores": 4,
              "memory_capacity": f"{16 * KI * KI}Ki",
              "ephemeral": str(64 * (1 << 30) * 9 // 10)},
}


def state_groups() -> dict[str, dict[str, Any]]:
    """Each node group's attributes in terraform.tfstate, by resource name."""
    state = json.loads((HERE / "terraform.tfstate").read_text())
    return {r["name"]: r["instances"][0]["attributes"] for r in state["resources"]
            if r["type"] == "selectel_mks_nodegroup_v1"}


GROUPS = state_groups()
NODES = {name: [n["hostname"] for n in attrs["nodes"]] for name, attrs in GROUPS.items()}
W0, W1, W2, W3, W4 = NODES["workers"]


def selectel_node(group: str, entry: dict[str, str]) -> dict[str, Any]:
    """A node as Selectel's kubelet registers it: no Yandex labels, the group's own labels
    and taints, the node's private IP and OpenStack server id from the state."""
    attrs = GROUPS[group]
    flavor = attrs["flavor_id"] or f"{attrs['cpus']}-{attrs['ram_mb']}"
    obj = ko.node(entry["hostname"], zone=ZONE, platform=flavor,
                  labels={"topology.kubernetes.io/region": REGION, **attrs["labels"]},
                  taints=attrs["taints"], pods="110", **SHAPES[group])
    labels = obj["metadata"]["labels"]
    for key in [k for k in labels if k.startswith("yandex.cloud/")]:
        del labels[key]
    obj["metadata"]["annotations"].pop("csi.volume.kubernetes.io/nodeid", None)
    obj["spec"]["providerID"] = f"openstack:///{ko.uid('server', group, entry['id'])}"
    obj["status"]["addresses"] = [{"address": entry["ip"], "type": "InternalIP"},
                                  {"address": entry["hostname"], "type": "Hostname"}]
    return obj


def build() -> dict[str, Any]:
    items: list[dict[str, Any]] = [selectel_node(group, entry)
                                   for group, attrs in GROUPS.items()
                                   for entry in attrs["nodes"]]
    items += system_workloads([n for names in NODES.values() for n in names], [W0, W2])
    # checkout, one replica under minAvailable 1 on W3: never evictable; Selectel retries,
    # then stops
    items += shop_workloads([W0, W2, W4], max_unavailable=1, checkout=W3, session_cache=W1)
    items.append(nightly_report(NODES["batch"][0]))
    return ko.as_list(items)


def main() -> None:
    (HERE / "cluster.json").write_text(json.dumps(build(), indent=4) + "\n")


if __name__ == "__main__":
    main()
