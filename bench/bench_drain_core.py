"""Drain-check core cost, against baselines measured in the same run.

A generated cluster: one node group of ``--nodes`` nodes (default 200, the per-group limit)
with ``--pods`` pods each (default 30) in ``--apps`` Deployments with a PDB each, beside
another group of 4x as many nodes with the same load (the pods' other places). Measured:

1. ``ClusterIndex.build`` + ``DrainModel.build`` (once per cluster / group);
2. ``check_model(model, plan)`` for the policies an advisor tries (0/1, 0/2, 1/0, 3/0, 2/2,
   0/10),
   each running several orders of the group's nodes;
3. baselines: grouping the pod names by node in a dict (the least any reading of the pods
   costs, like the issue's ``jq`` baseline) and ``plan_group`` of the same group.

Target (exit 1 when missed): one ``check`` at most 200x the grouping baseline (it runs up to
10 orders, each placing every evicted pod). Prints a table.
Usage: ``python bench/bench_drain_core.py [--nodes N] [--pods P] [--runs R]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ngupgrade.core.address import TfAddress  # noqa: E402
from ngupgrade.core.drain.check import check_model  # noqa: E402
from ngupgrade.core.drain.group import DrainModel  # noqa: E402
from ngupgrade.core.drain.index import ClusterIndex  # noqa: E402
from ngupgrade.core.k8s import (  # noqa: E402
    NODE_GROUP_LABEL,
    ClusterSnapshot,
    Container,
    LabelSelector,
    Node,
    OwnerRef,
    Pod,
    PodDisruptionBudget,
    Workload,
)
from ngupgrade.core.model import GIB, DeployPolicy, FixedScale, NodeGroup, NodeResources  # noqa: E402
from ngupgrade.core.simulate import plan_group  # noqa: E402

MIB = 1 << 20
GROUP, OTHER = "catbenchgroup0000001", "catbenchgroup0000002"
POLICIES = [(0, 1), (0, 2), (1, 0), (3, 0), (2, 2), (0, 10)]


def snapshot(nodes: int, per_node: int, apps: int) -> ClusterSnapshot:
    node_list, pods, workloads, pdbs = [], [], [], []
    for gid, count, prefix in ((GROUP, nodes, "g"), (OTHER, nodes * 4, "o")):
        for i in range(count):
            name = f"{prefix}{i:05d}"
            node_list.append(Node(name, {NODE_GROUP_LABEL: gid, "kubernetes.io/hostname": name},
                                  {"cpu": 16000, "memory": 64 * GIB, "pods": 110}))
            for j in range(per_node):
                app = f"app{(i * per_node + j) % apps}"
                pods.append(Pod("bench", f"{name}-{j}", labels={"app": app}, node_name=name,
                                owner=OwnerRef("ReplicaSet", f"{app}-rs"),
                                containers=(Container("c", {"cpu": 250, "memory": 512 * MIB}),)))
    per_app = len(pods) // apps
    for a in range(apps):
        workloads += [Workload("Deployment", "bench", f"app{a}", replicas=per_app),
                      Workload("ReplicaSet", "bench", f"app{a}-rs", replicas=per_app,
                               owner=OwnerRef("Deployment", f"app{a}"))]
        pdbs.append(PodDisruptionBudget("bench", f"app{a}", LabelSelector({"app": f"app{a}"}),
                                        max_unavailable="10%"))
    return ClusterSnapshot(tuple(node_list), tuple(pods), tuple(pdbs), tuple(workloads))


def best(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return min(samples)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--pods", type=int, default=30)
    parser.add_argument("--apps", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    snap = snapshot(args.nodes, args.pods, args.apps)
    group = NodeGroup(TfAddress("yandex_kubernetes_node_group", "bench"), GROUP, "bench",
                      "catcluster", None, "1.30", "running", DeployPolicy(3, 0),
                      FixedScale(args.nodes),
                      NodeResources("standard-v3", 16, 100, 64 * GIB, 0, None, False, False))

    def grouping() -> None:
        by_node: dict[str, list[str]] = {}
        for p in snap.pods:
            by_node.setdefault(p.node_name or "", []).append(p.name)

    base = best(grouping, args.runs)
    plan_t = best(lambda: plan_group(group, live_size=args.nodes), args.runs)
    index_t = best(lambda: ClusterIndex.build(snap), 1)
    index = ClusterIndex.build(snap)
    model_t = best(lambda: DrainModel.build(group, index), 1)
    model = DrainModel.build(group, index)
    print(f"cluster: {len(snap.nodes)} nodes, {len(snap.pods)} pods, {len(snap.pdbs)} PDBs; "
          f"group of {args.nodes} nodes")
    print(f"{'what':34} {'seconds':>9} {'x grouping':>11} {'x plan':>9}")
    print(f"{'baseline: group pod names by node':34} {base:9.4f} {1:11.1f} {base / plan_t:9.0f}")
    print(f"{'baseline: plan_group':34} {plan_t:9.5f} {plan_t / base:11.3f} {1:9.0f}")
    print(f"{'ClusterIndex.build':34} {index_t:9.3f} {index_t / base:11.1f}")
    print(f"{'DrainModel.build':34} {model_t:9.3f} {model_t / base:11.1f}")
    worst = 0.0
    for e, u in POLICIES:
        plan = plan_group(group, live_size=args.nodes, max_expansion=e, max_unavailable=u)
        seconds = best(lambda p=plan: check_model(model, p), 1)
        report = check_model(model, plan)
        worst = max(worst, seconds / base)
        print(f"{f'check {e}/{u} ({report.orders} orders)':34} {seconds:9.3f} "
              f"{seconds / base:11.1f} {seconds / plan_t:9.0f}")
    target = 200.0
    verdict = "ok" if worst <= target else "MISSED"
    print(f"worst check / grouping: {worst:.1f}x (target <= {target:.0f}x): {verdict}")
    return 0 if worst <= target else 1


if __name__ == "__main__":
    sys.exit(main())
