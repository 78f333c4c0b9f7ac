"""The densest node group as a ``kubectl get ... -A -o json`` dump, for the drain benches.

One group of ``nodes`` nodes (default 200, the per-group node limit,
``managed-kubernetes.groupNodes.count``; or ``groups`` groups sharing them), each holding
``per_node`` pods (default 110, as many as the kubelet's default ``maxPods`` allows): 2
DaemonSet pods and ``per_node - 2`` pods of Deployments.
Node slot ``j`` of node ``n`` holds a pod of Deployment ``2 * j + n // (nodes // 2)``, so
every Deployment has ``nodes / 2`` replicas, one per node of its half. A third of the
Deployments have a PDB of ``maxUnavailable: 1``, a third one of ``10%``, a third none.

Nodes are 8 vCPU / 32 GiB (7910m, Yandex's allocatable) with ``maxPods`` raised to 256, so
the cpu ``fill`` (the share of allocatable cpu the pods request, default 0.5) decides where
evicted pods fit, not the pod count. With ``half_unplaced`` the pods of even slots also request
memory that fills each node exactly, and the others request none: an evicted pod of an even
slot finds no node with memory (until nodes come back), one of an odd slot fits on cpu.
Objects are as the API prints them (``ngupgrade.testing.kube_objects``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from ngupgrade.testing import kube_objects as ko

NODE_CPU_MILLI = 7910
NODE_MEMORY = 30432359874  # bytes: Yandex's allocatable of 8 vCPU / 32 GiB (docs/drain.md)
DAEMONSETS = 2
DAEMON_CPU = 50


def group_id(g: int) -> str:
    """The node-group id of group ``g`` (the form ``bench_drain_check.make_state`` writes)."""
    return f"catgroup{g:012d}"


def node_names(nodes: int) -> list[str]:
    """The group's node names, in slot order."""
    return [f"cl1dense-node-{i:05d}" for i in range(nodes)]


def make_dense_dump(path: Path, nodes: int = 200, per_node: int = 110, fill: float = 0.5,
                    half_unplaced: bool = False, groups: int = 1) -> dict[str, int]:
    """Write the dump to ``path``; return how many objects of each kind it holds. With
    ``groups`` > 1 the nodes are cut into that many groups of ``nodes // groups`` in name
    order (node ``i`` in group ``i // (nodes // groups)``)."""
    names = node_names(nodes)
    size = max(1, nodes // groups)
    items: list[Any] = [ko.node(n, group_id=group_id(min(i // size, groups - 1)),
                                cpu=f"{NODE_CPU_MILLI}m", memory=f"{NODE_MEMORY // 1024}Ki",
                                pods="256", cores=8, memory_capacity="33554432Ki")
                        for i, n in enumerate(names)]
    counts = {"Node": nodes, "Pod": 0, "DaemonSet": DAEMONSETS, "Deployment": 0,
              "ReplicaSet": 0, "PodDisruptionBudget": 0}
    for d in range(DAEMONSETS):
        labels = {"app.kubernetes.io/name": f"agent-{d}"}
        spec = ko.pod_spec([ko.container("agent", {"cpu": f"{DAEMON_CPU}m", "memory": "0"},
                                         image="cr.yandex/agent:2.1", port=None)],
                           tolerations=[{"operator": "Exists"}])
        items.append(ko.daemonset(f"agent-{d}", "kube-system", labels, spec, nodes))
        for i, node in enumerate(names):
            items.append(ko.pod(f"agent-{d}-{ko.pod_hash(node)[:5]}{i}", "kube-system",
                                {**spec, "nodeName": node}, labels=labels,
                                owner=("apps/v1", "DaemonSet", f"agent-{d}")))
    counts["Pod"] += DAEMONSETS * nodes
    slots = per_node - DAEMONSETS
    cpu = int((fill * NODE_CPU_MILLI - DAEMONSETS * DAEMON_CPU) // slots)
    heavy = (slots + 1) // 2  # even slots
    memory = NODE_MEMORY // heavy if half_unplaced else 128 << 20
    half = max(1, nodes // 2)
    for j in range(slots):
        for part in range(2 if nodes > 1 else 1):
            first, last = part * half, nodes if part else min(nodes, half)
            if first >= last:
                continue
            w = 2 * j + part
            namespace, name = f"team-{w % 20:02d}", f"svc-{w:04d}"
            labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": namespace}
            requests = {"cpu": f"{cpu}m"}
            if not half_unplaced or j % 2 == 0:
                requests["memory"] = str(memory)
            spec = ko.pod_spec([ko.container("app", requests)])
            n = last - first
            items += [ko.deployment(name, namespace, n, labels, spec),
                      ko.replicaset(name, namespace, n, labels, spec)]
            counts["Deployment"] += 1
            counts["ReplicaSet"] += 1
            if w % 3 != 2:
                items.append(ko.pdb(name, namespace, labels,
                                    max_unavailable=1 if w % 3 == 0 else "10%", healthy=n,
                                    desired=n - (1 if w % 3 == 0 else max(1, n // 10)),
                                    expected=n))
                counts["PodDisruptionBudget"] += 1
            rs = f"{name}-{ko.pod_hash(name)}"
            pod_labels = {**labels, "pod-template-hash": ko.pod_hash(name)}
            for r, node in enumerate(names[first:last]):
                items.append(ko.pod(f"{rs}-{r:05x}", namespace, {**spec, "nodeName": node},
                                    labels=pod_labels, owner=("apps/v1", "ReplicaSet", rs)))
            counts["Pod"] += n
    path.write_bytes(msgspec.json.encode(ko.as_list(items)))
    return counts


def main() -> int:
    """``python bench/drain_dense.py --generate PATH [--nodes N --per-node P --fill F
    --half-unplaced --groups G]``: write the dump, print its counts as JSON (the benches
    generate in a child, so their own process stays small: a child's peak memory counts its
    parent's)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--generate", type=Path, required=True)
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--per-node", type=int, default=110)
    parser.add_argument("--fill", type=float, default=0.5)
    parser.add_argument("--half-unplaced", action="store_true")
    parser.add_argument("--groups", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(make_dense_dump(args.generate, args.nodes, args.per_node, args.fill,
                                     args.half_unplaced, args.groups)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
