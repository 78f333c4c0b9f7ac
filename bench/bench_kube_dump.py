"""Reading a cluster dump at Kubernetes' published scalability limits, against jq, in one run.

1. A generated ``kubectl get ... -A -o json`` dump of 5,000 nodes, 150,000 pods and 3,000
   PodDisruptionBudgets (the limits of kubernetes.io/docs/setup/best-practices/cluster-large:
   5,000 nodes, 150,000 pods), with 3,000 Deployments and their ReplicaSets (one PDB each,
   45 replicas) and 3 DaemonSets on every node. Objects are as the API prints them
   (``ngupgrade.testing.kube_objects``): metadata, defaulted specs, statuses.
   Timed: a whole process reading it into a ClusterSnapshot (``read_dumps``) next to ``jq``
   grouping pod names by node on the same file, in pairs A B A B (CPU seconds, the median of
   the pairs). Target: at most 2x jq (the drain check that
   reads it must also fit under 2x, so reading alone should leave room). Peak memory of that
   process against the file's size: target under 3x.
2. The live path's list calls against the fake Kubernetes API (real client) for a small
   cluster and one 10x larger: calls must equal one per kind plus one per extra page.

Prints figures and baselines side by side; exits 1 when a target is missed.
Usage: ``python bench/bench_kube_dump.py [--nodes 5000 --pods 150000
--pdbs 3000 --runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from harness import child_env, find_jq, pair_processes, record  # noqa: E402

from ngupgrade.testing import kube_objects as ko  # noqa: E402

# group_by, not `reduce ... += [...]`: jq 1.6 copies the growing object on every step of such a
# reduce (177 s on the full dump, against 15-20 s for this), which would flatter us.
JQ_FILTER = ('[.items[] | select(.kind == "Pod") | {n: (.spec.nodeName // "-"), '
             'p: .metadata.name}] | group_by(.n) | map({key: .[0].n, value: map(.p)}) '
             '| from_entries')
# The reader reports its own peak (VmHWM: the high-water mark of this process's memory map,
# reset by exec; ru_maxrss is not, so a child forked from a big parent would read big).
READER = ("import sys; from ngupgrade.adapters.kube import read_dumps; "
          "r = read_dumps([sys.argv[1]]); "
          "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
          "print(len(r.snapshot.pods), int(hwm.split()[1]) * 1024)")
DAEMONSETS = 3
GROUPS = 10


def _pods_of(name: str, namespace: str, labels: dict[str, str], spec: dict[str, Any],
             owner: tuple[str, str, str], node: str, ready: bool = True) -> dict[str, Any]:
    return ko.pod(name, namespace, {**spec, "nodeName": node}, labels=labels, owner=owner,
                  ready=ready)


def make_dump(path: Path, nodes: int, pods: int, pdbs: int, groups: int = GROUPS
              ) -> dict[str, int]:
    """Write the dump (node ``i`` in group ``i % groups``); return how many objects of each
    kind it holds."""
    node_names = [f"cl1abc{g:02d}-node-{i:05d}" for i in range(nodes) for g in [i % groups]]
    # 8-vCPU nodes (7910m allocatable, Yandex's reservation): 30 pods of 150m and 3 agents of
    # 50m use 4650m, so the cluster is not overcommitted and evicted pods have room
    items: list[Any] = [ko.node(n, group_id=f"catgroup{i % groups:012d}", cpu="7910m",
                                cores=8)
                        for i, n in enumerate(node_names)]
    counts = Counter({"Node": nodes})
    daemon_pods = DAEMONSETS * nodes
    replicas = max(1, (pods - daemon_pods) // max(1, pdbs))
    for d in range(DAEMONSETS):
        labels = {"app.kubernetes.io/name": f"agent-{d}"}
        spec = ko.pod_spec([ko.container("agent", {"cpu": "50m", "memory": "64Mi"},
                                         image="cr.yandex/agent:2.1")],
                           tolerations=[{"operator": "Exists"}])
        items.append(ko.daemonset(f"agent-{d}", "kube-system", labels, spec, nodes))
        owner = ("apps/v1", "DaemonSet", f"agent-{d}")
        for i, node in enumerate(node_names):
            items.append(_pods_of(f"agent-{d}-{ko.pod_hash(node)[:5]}{i}", "kube-system",
                                  labels, spec, owner, node))
    counts.update({"DaemonSet": DAEMONSETS, "Pod": daemon_pods})
    made = daemon_pods
    for w in range(pdbs):
        namespace = f"team-{w % 100:02d}"
        name = f"svc-{w:04d}"
        labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": namespace}
        spec = ko.pod_spec([ko.container("app", {"cpu": "100m", "memory": "128Mi"},
                                         limits={"memory": "256Mi"}),
                            ko.container("envoy", {"cpu": "50m", "memory": "64Mi"}, port=9901)])
        n = replicas if w < pdbs - 1 else pods - made
        items += [ko.deployment(name, namespace, n, labels, spec),
                  ko.replicaset(name, namespace, n, labels, spec),
                  ko.pdb(name, namespace, labels, max_unavailable=1, healthy=n,
                         desired=max(0, n - 1), expected=n)]
        rs = f"{name}-{ko.pod_hash(name)}"
        pod_labels = {**labels, "pod-template-hash": ko.pod_hash(name)}
        owner = ("apps/v1", "ReplicaSet", rs)
        for r in range(n):
            items.append(_pods_of(f"{rs}-{r:05x}", namespace, pod_labels, spec, owner,
                                  node_names[(w * 7 + r * 13) % nodes]))
        made += n
        counts.update({"Deployment": 1, "ReplicaSet": 1, "PodDisruptionBudget": 1, "Pod": n})
    path.write_bytes(msgspec.json.encode(ko.as_list(items)))
    return dict(counts)


def live_calls(nodes: int, pods_per_node: int, page_size: int) -> tuple[int, int, Counter]:
    """List calls of one live read over a generated cluster; and the calls expected from
    kinds and pages alone."""
    from ngupgrade.adapters.kube.live import LIST_CALLS, read_live
    from ngupgrade.testing.kube_api import FakeKubeApi

    spec = ko.pod_spec([ko.container("app", {"cpu": "100m"})])
    objs: list[Any] = [ko.node(f"n{i}") for i in range(nodes)]
    objs += [ko.pod(f"p{i}", "ns", {**spec, "nodeName": f"n{i % nodes}"})
             for i in range(nodes * pods_per_node)]
    objs += [ko.pdb(f"b{i}", "ns", {"app": f"b{i}"}, max_unavailable=1, healthy=1, desired=0,
                    expected=1) for i in range(nodes // 10)]
    with tempfile.TemporaryDirectory() as tmp, FakeKubeApi(objs) as api:
        read_live(str(api.write_kubeconfig(Path(tmp) / "config")), page_size=page_size)
        per_path = Counter(r.path for r in api.requests)
    sizes = {"/api/v1/nodes": nodes, "/api/v1/pods": nodes * pods_per_node,
             "/apis/policy/v1/poddisruptionbudgets": nodes // 10}
    expected = len(LIST_CALLS) + 1 + sum(
        max(1, math.ceil(n / page_size)) - 1 for n in sizes.values())
    return sum(per_path.values()), expected, per_path


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--pdbs", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--generate", metavar="PATH", help=argparse.SUPPRESS)
    parser.add_argument("--groups", type=int, default=GROUPS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate:
        print(json.dumps(make_dump(Path(args.generate), args.nodes, args.pods, args.pdbs,
                                   groups=args.groups)))
        return 0
    jq = find_jq()
    if jq is None:
        return 0
    env = child_env(PYTHONPATH=str(ROOT))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        dump = Path(tmp) / "cluster.json"
        started = time.perf_counter()
        # generated in a child: this process stays small, so the processes it starts do too
        counts = json.loads(subprocess.run(
            [sys.executable, __file__, "--generate", str(dump), "--nodes", str(args.nodes),
             "--pods", str(args.pods), "--pdbs", str(args.pdbs)],
            check=True, capture_output=True, env=env).stdout)
        size = dump.stat().st_size
        print(f"dump: {size / 1e6:.0f} MB, " + ", ".join(f"{n} {k}" for k, n in
                                                          sorted(counts.items()))
              + f" (generated in {time.perf_counter() - started:.0f} s)")
        reader = [sys.executable, "-c", READER, str(dump)]
        pair = pair_processes(reader, [jq, "-c", JQ_FILTER, str(dump)], runs=args.runs,
                              warmup=0, env=env)
        pods, m_py = (int(x) for x in pair.a_runs[-1].out.split())
        assert pods == counts["Pod"], "the dump was read wrongly"
        ok &= record(f"read_dumps / jq, {args.nodes} nodes", pair.ratio, 2.0,
                     baseline="jq grouping pod names by node",
                     detail=f"{pair.a:.1f} s vs {pair.b:.1f} s CPU, {pair.spread()}")
        ok &= record("read_dumps peak memory / dump size", m_py / size, 3.0,
                     baseline="the dump's size", detail=f"{m_py / 1e6:.0f} MB, jq's "
                                                       f"{pair.b_peak / 1e6:.0f} MB")
    print("live list calls (page size 500), against the fake Kubernetes API:")
    for nodes in (50, 500):
        calls, expected, per_path = live_calls(nodes, 30, 500)
        ok &= record(f"live list calls, {nodes} nodes, {nodes * 30} pods", calls, expected,
                     unit="", baseline="one per kind plus one per extra page",
                     detail=f"pods: {per_path['/api/v1/pods']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
