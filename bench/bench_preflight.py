"""Bench: quota preflight over many node groups in many clouds, against a slow quota API.

A generated Terraform state (raw v4: 10 clusters, each in its own folder and cloud, 200 node
groups; every 8th group autoscaled, every 3rd with a public NAT address) is parsed with the real
state parser, then preflighted against fake sources that sleep ``--latency-ms`` per call
(QuotaLimitService.List, FolderService.Get, NodeGroupService.ListNodes).

Printed next to each other, in the same run:

* ``ngupgrade``: the use case (``run_preflight``), offline-size mode and with live node counts;
* ``naive``: per group, one after another: FolderService.Get, then List for each service.

Targets (DESIGN.md section 7): QuotaLimitService.List calls = clouds x services (never per
group); wall time within 3 round trips plus local work (the budget, measured in the same run:
the use case at 0 ms latency and the start of its thread pool). The naive baseline's time is
printed for information.

Wall times are medians of ``--repeat`` runs (the naive baseline runs once: 40 s at 50 ms).

Run: ``python bench/bench_preflight.py [--groups 200 --clouds 10 --latency-ms 50]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import record

from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.app.preflight import DEFAULT_MAX_WORKERS, run_preflight
from ngupgrade.core.model import GIB, NodeGroup, QuotaLimit
from ngupgrade.core.quota.catalog import (
    DISKS,
    EXTERNAL_ADDRESSES,
    INSTANCE_CORES,
    INSTANCE_MEMORY,
    INSTANCES,
    MK8S_CORES,
    MK8S_DISK,
    MK8S_MEMORY,
    MK8S_NODES,
    SERVICES,
)
from ngupgrade.core.quota.demand import group_demand, required_services
from ngupgrade.core.quota.preflight import Preflight, evaluate
from ngupgrade.testing import TfState, yandex_cluster, yandex_node_group


def generate_state(groups: int, clouds: int, with_clusters: bool = True) -> bytes:
    """A raw v4 state: ``clouds`` clusters (folder ``fold<i>``), ``groups`` node groups,
    written by the test kit's state writer (every attribute as the provider writes it).

    Without ``with_clusters`` the cluster resources are left out (clusters managed in another
    state), so every cluster's folder must come from ``ClusterService.Get``."""
    state = TfState(lineage="bench")
    for c in range(clouds if with_clusters else 0):
        state.add("yandex_kubernetes_cluster", f"k{c}", yandex_cluster(
            id=f"cluster{c:04d}", folder_id=f"fold{c:04d}", name=f"k{c}", version="1.30"))
    for g in range(groups):
        scale: dict[str, Any] = {"auto": (1, 6, 1)} if g % 8 == 0 else {"fixed": 3 + g % 4}
        state.add("yandex_kubernetes_node_group", "this", yandex_node_group(
            id=f"ng{g:04d}", name=f"ng{g:04d}", cluster_id=f"cluster{g % clouds:04d}",
            version="1.30", deploy=(1 + g % 3, 0), **scale, cores=2 + 2 * (g % 2),
            memory=4 + 4 * (g % 2), disk_type="network-ssd" if g % 2 else "network-hdd",
            nat=g % 3 == 0, subnet_ids=["e9b"]), module="module.pools", index_key=f"ng{g:04d}")
    return json.dumps(state.to_v4()).encode()


class SlowCloud:
    """Quota source, cloud directory and node lister that sleep ``latency`` s per call."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _call(self, name: str) -> None:
        with self._lock:
            self.calls[name] += 1
        if self.latency:
            time.sleep(self.latency)

    def list_quota_limits(self, cloud_id: str, service: str) -> list[QuotaLimit]:
        self._call("QuotaLimitService.List")
        big = 10**6 * GIB
        return [QuotaLimit(q, big, 0) for q in ALL_QUOTAS if q.startswith(service + ".")]

    def get_cluster(self, cluster_id: str) -> object:
        self._call("ClusterService.Get")
        return argparse.Namespace(folder_id="fold" + cluster_id[7:])

    def get_folder_cloud_id(self, folder_id: str) -> str:
        self._call("FolderService.Get")
        return "cloud" + folder_id[4:]

    def list_nodes(self, node_group_id: str) -> list[object]:
        self._call("NodeGroupService.ListNodes")
        return [object()] * 2


ALL_QUOTAS = sorted({
    INSTANCES, INSTANCE_CORES, INSTANCE_MEMORY, DISKS,
    "compute.hddDisks.size", "compute.ssdDisks.size", MK8S_NODES, MK8S_CORES,
    MK8S_MEMORY, MK8S_DISK, EXTERNAL_ADDRESSES})


def thread_startup(count: int) -> float:
    """Seconds to start and join ``count`` idle threads here (part of the local work: with
    0 ms latency the pool reuses a few threads, with real latency it starts them all)."""
    start = time.perf_counter()
    threads = [threading.Thread(target=int) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def naive(groups: Sequence[NodeGroup], cloud: SlowCloud) -> Preflight:
    """One group at a time: its folder's cloud, then every service's List, sequentially."""
    demands = []
    limits: dict[str, dict[str, QuotaLimit]] = {}
    for g in groups:
        assert g.folder_id is not None
        cloud_id = cloud.get_folder_cloud_id(g.folder_id)
        gd = group_demand(g, cloud_id)
        for service in SERVICES:
            for q in cloud.list_quota_limits(cloud_id, service):
                limits.setdefault(cloud_id, {})[q.quota_id] = q
        demands.append(gd)
    return evaluate(demands, limits)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--groups", type=int, default=200)
    ap.add_argument("--clouds", type=int, default=10)
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--repeat", type=int, default=5, help="median of this many runs")
    ap.add_argument("--skip-naive", action="store_true")
    args = ap.parse_args()
    rtt = args.latency_ms / 1000

    t0 = time.perf_counter()
    data = generate_state(args.groups, args.clouds)
    t1 = time.perf_counter()
    groups = parse_state(data, "bench").groups
    t2 = time.perf_counter()
    print(f"state: {len(data) / 1e6:.1f} MB, {len(groups)} node groups in {args.clouds} clouds "
          f"(generated {t1 - t0:.3f} s, parsed {t2 - t1:.3f} s); latency {args.latency_ms:g} ms")

    def measure(label: str, fn, repeat: int = args.repeat
                ) -> tuple[float, Preflight, Counter[str]]:
        walls = []
        for _ in range(repeat):
            cloud = SlowCloud(rtt)
            start = time.perf_counter()
            result = fn(cloud)
            walls.append(time.perf_counter() - start)
        wall = statistics.median(walls)
        calls = ", ".join(f"{n} {k}" for k, n in sorted(cloud.calls.items()))
        print(f"{label:<34} wall {wall * 1000:8.1f} ms   calls {sum(cloud.calls.values()):4d}"
              f"  ({calls})")
        return wall, result, cloud.calls

    local, _, _ = measure("local work only (0 ms latency)",
                          lambda c: (setattr(c, "latency", 0), run_preflight(groups, c,
                                                                             directory=c))[1])
    wall, result, calls = measure("ngupgrade (state folders)",
                                  lambda c: run_preflight(groups, c, directory=c))
    wall_nodes, _, _ = measure("ngupgrade (+ live node counts)",
                               lambda c: run_preflight(groups, c, directory=c, nodes=c))
    bare = parse_state(generate_state(args.groups, args.clouds, with_clusters=False),
                       "bench").groups
    wall_bare, _, _ = measure("ngupgrade (no clusters in state)",
                              lambda c: run_preflight(bare, c, directory=c))
    services = sum(len(s) for s in required_services(result.groups).values())
    ok = record("QuotaLimitService.List calls", calls["QuotaLimitService.List"], services,
                unit="", baseline="clouds x services (never per group)")
    spawn = thread_startup(DEFAULT_MAX_WORKERS)
    budget = 3 * rtt + local + spawn
    budget_text = (f"3 x {args.latency_ms:g} ms + local {local * 1000:.1f} ms + starting "
                   f"{DEFAULT_MAX_WORKERS} threads {spawn * 1000:.1f} ms = "
                   f"{budget * 1000:.1f} ms")
    for label, seconds in (("state folders", wall), ("+ live node counts", wall_nodes),
                           ("no clusters in the state", wall_bare)):
        ok &= record(f"preflight wall / budget, {label}", seconds / budget, 1.0,
                     baseline=budget_text, detail=f"{seconds * 1000:.1f} ms")
    if not args.skip_naive:
        naive_wall, naive_result, _ = measure("naive per-group sequential",
                                              lambda c: naive(groups, c), repeat=1)
        assert naive_result.ok == result.ok
        print(f"speed-up vs naive: {naive_wall / wall:.0f}x (information)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
