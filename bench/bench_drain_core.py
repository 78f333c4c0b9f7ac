"""Drain-check core cost, against a plain loop over the same pods, in pairs in one run.

A generated cluster: one node group of ``--nodes`` nodes (default 200, the per-group limit)
with about ``--pods`` pods each (default 30, +-20% per node) of ``--apps`` Deployments with a
PDB each, beside another group of 4x as many nodes with a like load (the pods' other places).
Each node draws its pods from a few apps, so the orders the check samples differ.

* A: ``check_model(model, plan)`` for the policies an advisor tries (0/1, 0/2, 1/0, 3/0, 2/2,
  0/10), each walking the sampled orders of the group's nodes wave by wave;
* B (the floor): a loop grouping the pod names by node in a dict (the least any reading of
  the pods costs; the in-process twin of the ``jq`` baseline of ``bench_drain_check.py``).

Targets: each check at most 200x B (CPU time, median of the pairs); and 10 distinct orders
evaluated per policy (name order, reverse, heaviest first, lightest first, and the nodes
holding most of each of the 6 riskiest PDBs' pods first), so the figure is for the orders it
claims. Building the index and model is printed for information.
Usage: ``python bench/bench_drain_core.py [--nodes N] [--pods P] [--runs R]``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from harness import pair_calls, record  # noqa: E402

from ngupgrade.core.address import TfAddress  # noqa: E402
from ngupgrade.core.drain.check import check_model  # noqa: E402
from ngupgrade.core.drain.drain_model import DrainModel  # noqa: E402
from ngupgrade.core.drain.index import ClusterIndex  # noqa: E402
from ngupgrade.core.drain.waves import CONCERN_ORDERS  # noqa: E402
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
TARGET = 200.0
ORDERS = 4 + CONCERN_ORDERS
"""Name order, reverse, heaviest first, lightest first, and one per riskiest concern."""


def snapshot(nodes: int, per_node: int, apps: int) -> ClusterSnapshot:
    """Nodes of unequal load (``per_node`` +- 20% pods) whose apps cluster unevenly (each
    node draws its pods from a few apps, skewed towards some nodes), so that the check's
    adversarial orders differ: name order, its reverse, heaviest and lightest first, and the
    nodes holding most of each riskiest PDB's pods first. (Uniform nodes make them all one
    order: the bench would then time 4 orders while saying 10.)"""
    rng = random.Random(25)
    node_list, pods, workloads, pdbs = [], [], [], []
    spread = max(1, per_node // 5)
    for gid, count, prefix in ((GROUP, nodes, "g"), (OTHER, nodes * 4, "o")):
        for i in range(count):
            name = f"{prefix}{i:05d}"
            node_list.append(Node(name, {NODE_GROUP_LABEL: gid, "kubernetes.io/hostname": name},
                                  {"cpu": 16000, "memory": 64 * GIB, "pods": 110}))
            home = rng.sample(range(apps), k=min(apps, 6))
            for j in range(per_node + rng.randint(-spread, spread)):
                app = f"app{home[min(int(rng.expovariate(0.7)), len(home) - 1)]}"
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

    index = ClusterIndex.build(snap)
    model = DrainModel.build(group, index)
    print(f"cluster: {len(snap.nodes)} nodes, {len(snap.pods)} pods, {len(snap.pdbs)} PDBs; "
          f"group of {args.nodes} nodes")
    build = pair_calls(lambda: DrainModel.build(group, ClusterIndex.build(snap)), grouping,
                       runs=args.runs)
    print(f"  ClusterIndex.build + DrainModel.build: {build.ratio:.1f}x grouping "
          f"({build.a * 1000:.0f} ms vs {build.b * 1000:.1f} ms; information)")
    ok = True
    for e, u in POLICIES:
        plan = plan_group(group, live_size=args.nodes, max_expansion=e, max_unavailable=u)
        report = check_model(model, plan)
        pair = pair_calls(lambda p=plan: check_model(model, p), grouping, runs=args.runs)
        ok &= record(f"check {e}/{u} of {args.nodes} nodes / grouping", pair.ratio, TARGET,
                     baseline="a loop grouping the pod names by node",
                     detail=f"{pair.a * 1000:.0f} ms vs {pair.b * 1000:.1f} ms, "
                            f"{report.orders} distinct orders, {pair.spread()}")
        ok &= record(f"distinct orders evaluated at {e}/{u}", report.orders, ORDERS,
                     at_least=True, unit="", baseline="the sampled family's size")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
