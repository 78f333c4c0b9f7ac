"""terraform/examples/cluster.json: the Kubernetes side of the example state, as kubectl prints
it; its nodes match the state's node groups and its workloads carry the drain findings the demo
shows."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter

from conftest import EXAMPLE_STATE, EXAMPLES

from ngupgrade.adapters.kube import read_dumps
from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.core import k8s
from ngupgrade.core.model import AutoScale, FixedScale

CLUSTER = EXAMPLES / "cluster.json"
MIB = 1 << 20


def _snapshot() -> k8s.ClusterSnapshot:
    return read_dumps([str(CLUSTER)]).snapshot


def test_the_file_is_what_its_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("generate_cluster",
                                                  EXAMPLES / "generate_cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert json.loads(CLUSTER.read_text()) == module.build()
    doc = json.loads(CLUSTER.read_text())
    assert (doc["apiVersion"], doc["kind"]) == ("v1", "List")
    assert all({"apiVersion", "kind", "metadata"} <= set(item) for item in doc["items"])


def test_nodes_match_the_state_groups() -> None:
    groups = parse_state(EXAMPLE_STATE.read_bytes(), "terraform.tfstate").groups
    per_group = Counter(n.node_group_id for n in _snapshot().nodes)
    sizes = {g.id: g.scale.size if isinstance(g.scale, FixedScale) else
             g.scale.initial if isinstance(g.scale, AutoScale) else None for g in groups}
    assert per_group == sizes == {"cat1ng0fixed0000abcd": 3, "cat3ng0gpu000000ijkl": 1,
                                  "cat2ng0auto00000efgh": 1}


def test_allocatable_follows_each_template() -> None:
    # Yandex's reservation (allocatable-resources.md), worked out by hand:
    # 4 cores/16 GiB: 4000 - 80 = 3920m; 16384 - 2662.4 - 100 = 13621.6 MiB (13948518 Ki)
    # 28 cores/119 GiB: 28000 - 140 = 27860m; 121856 - 8990.72 - 100 = 112765.28 MiB
    # 2 cores/4 GiB: 2000 - 70 = 1930m; 4096 - 1024 - 100 = 2972 MiB
    by_group = {n.node_group_id: n for n in _snapshot().nodes}
    workers = by_group["cat1ng0fixed0000abcd"].allocatable
    assert (workers["cpu"], workers["memory"], workers["pods"]) == (3920, 13948518 * 1024, 110)
    gpu = by_group["cat3ng0gpu000000ijkl"].allocatable
    assert (gpu["cpu"], gpu["memory"], gpu["nvidia.com/gpu"]) == (27860, 115471646 * 1024, 1)
    batch = by_group["cat2ng0auto00000efgh"]
    assert (batch.allocatable["cpu"], batch.allocatable["memory"]) == (1930, 2972 * MIB)
    assert batch.taints == (k8s.Taint("dedicated", "NoSchedule", "batch"),)


def test_workloads_that_give_the_drain_check_its_findings() -> None:
    snap = _snapshot()
    pdbs = {p.ref: p for p in snap.pdbs}
    assert (pdbs["shop/frontend"].min_available, pdbs["shop/frontend"].disruptions_allowed) == (
        2, 1)
    assert (pdbs["shop/checkout"].min_available, pdbs["shop/checkout"].disruptions_allowed) == (
        1, 0)
    frontend = Counter(p.node_name for p in snap.pods
                       if p.labels.get("app.kubernetes.io/name") == "frontend")
    assert sorted(frontend.values()) == [1, 2]      # two evictions in one wave, budget 1
    pods = {p.ref: p for p in snap.pods}
    assert pods["shop/debug-shell"].owner is None
    cache = [p for p in snap.pods if p.labels.get("app.kubernetes.io/name") == "session-cache"]
    assert [v.source for v in cache[0].volumes] == ["emptyDir", "other"]
    nodes = [n.name for n in snap.nodes]
    for ds in ("kube-proxy", "node-exporter"):
        on = sorted(p.node_name or "" for p in snap.pods
                    if p.owner == k8s.OwnerRef("DaemonSet", ds, p.owner.uid if p.owner else ""))
        assert on == sorted(nodes)
    (yt,) = snap.ytsaurus
    (proxies,) = [c for c in yt.components if c.kind == "httpProxies"]
    assert (proxies.instance_count, proxies.min_ready_instance_count) == (5, 3)
    on_nodes = Counter(p.node_name for p in snap.pods
                       if all(p.labels.get(k) == v for k, v in proxies.pod_labels.items()))
    assert sorted(on_nodes.values()) == [1, 1, 3]   # 3 > max(1, 5 - 3) = 2 on one node


def test_the_drain_check_finds_on_workers_what_the_dump_was_made_for() -> None:
    from ngupgrade.core.drain.check import check_groups
    from ngupgrade.core.simulate import plan_group

    snap = _snapshot()
    groups = parse_state(EXAMPLE_STATE.read_bytes(), "terraform.tfstate").groups
    live = Counter(n.node_group_id for n in snap.nodes)
    report = check_groups([(g, plan_group(g, live_size=live[g.id])) for g in groups], snap)
    (workers,) = [r for r in report.groups if r.group_id == "cat1ng0fixed0000abcd"]
    codes = {f.code for f in workers.findings}
    assert {"pdb-slows-wave", "pdb-blocks-eviction", "forced-stop", "bare-pod-lost",
            "emptydir-data-lost", "ytsaurus-below-min-ready"} <= codes
