"""Calls per poll while ``ngupgrade upgrade`` waits with kube access, for a 20- and a 200-node
group, against the baselines, in one run (issue 13: "cloud and kube list calls per poll are
constant in the number of nodes").

Each group (policy 1/0, 30 pods per node, one PDB per 10 nodes) is upgraded on the fake cloud
(real SDK) with a fake Kubernetes API beside it (real client); the ``stall`` fault keeps the
first drained node cordoned, so every poll after the cordon looks at one draining node. Counted
per poll, from the cordon to the stall: the cloud calls (``Operation.Get``,
``NodeGroupService.Get``, ``ListNodes``) and the kube requests.

Baselines, counted on the same fake API: re-reading the cluster every poll (``read_live``:
every kind, every page), and listing the pods of every node of the group (one
``spec.nodeName`` list per node).

Target: the calls per poll are equal for 20 and 200 nodes, and below both baselines at 200.
Usage: ``python bench/bench_watch_calls.py``. Exits 1 when a target is missed.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))

from harness import record  # noqa: E402

from ngupgrade.app.drain_check import ClusterSource  # noqa: E402
from ngupgrade.app.settings import Settings  # noqa: E402
from ngupgrade.app.timing import Timing  # noqa: E402
from ngupgrade.app.upgrade import UpgradeRequest, run_upgrade  # noqa: E402
from ngupgrade.core.errors import Stalled  # noqa: E402
from ngupgrade.core.model import DeployPolicy  # noqa: E402
from ngupgrade.testing import FakeCloud, Scenario, node_group  # noqa: E402
from ngupgrade.testing import kube_objects as ko  # noqa: E402
from ngupgrade.testing.kube_api import FakeKubeApi  # noqa: E402
from ngupgrade.upgrade.events import Event, NodeDrainEvent, Progress  # noqa: E402
from ngupgrade.upgrade.values import UpgradeOptions  # noqa: E402

GROUP_ID = "cat1ng0bench00000001"
PODS_PER_NODE = 30


def cluster(nodes: int) -> list[dict[str, Any]]:
    """The group's Kubernetes nodes (named as the fake's ListNodes names them), 30 pods each
    in Deployments of 10 replicas, one PDB (maxUnavailable 1) per Deployment."""
    spec = ko.pod_spec([ko.container("app", {"cpu": "50m", "memory": "64Mi"})])
    objs: list[dict[str, Any]] = [ko.node(f"pool-{i:04d}", group_id=GROUP_ID)
                                  for i in range(nodes)]
    for d in range(nodes * PODS_PER_NODE // 10):
        labels = {"app": f"d{d}"}
        rs = ko.replicaset(f"d{d}", "bench", 10, labels, spec)
        objs += [ko.deployment(f"d{d}", "bench", 10, labels, spec), rs,
                 ko.pdb(f"d{d}", "bench", labels, max_unavailable=1, healthy=10, desired=9,
                        expected=10)]
        h = rs["metadata"]["labels"]["pod-template-hash"]
        for r in range(10):
            i = d * 10 + r
            objs.append(ko.pod(f"{rs['metadata']['name']}-{r}", "bench",
                               {**spec, "nodeName": f"pool-{i % nodes:04d}"},
                               labels={**labels, "pod-template-hash": h},
                               owner=("apps/v1", "ReplicaSet", rs["metadata"]["name"])))
    return objs


def measure(nodes: int, tmp: Path) -> dict[str, float]:
    """Calls per poll of one upgrade's wait, and the baselines on the same cluster."""
    from ngupgrade.adapters.kube.live import read_live

    group = node_group(GROUP_ID, name="pool", size=nodes, policy=DeployPolicy(1, 0))
    scenario = Scenario.from_mapping({
        "clusters": {"catq0n7i0h9ka1b2c3d4": {"master_version": "1.30"}},
        "faults": [{"kind": "stall", "at_step": 2}]})
    cordoned = [False]
    seen: list[tuple[int, int]] = []  # (kube requests, cloud calls) at each poll's progress
    with FakeKubeApi(cluster(nodes)) as kube, FakeCloud([group], scenario).start() as fake:
        config = str(kube.write_kubeconfig(tmp / f"kubeconfig-{nodes}"))

        def hook(event: Event) -> None:
            if isinstance(event, NodeDrainEvent) and event.phase == "started":
                cordoned[0] = True
            elif isinstance(event, Progress) and cordoned[0]:
                seen.append((len(kube.requests), len(fake.calls)))

        request = UpgradeRequest(
            selectors=("pool",), apply=True, journal=str(tmp / f"j-{nodes}.json"),
            options=UpgradeOptions(version="1.30", stall_after=600),
            cluster=ClusterSource(live=True, kubeconfig=config),
            accept=frozenset({"single-replica-disrupted", "pdb-slows-wave"}))
        gateway = fake.gateway()
        try:
            run_upgrade(Settings(), request, timing=Timing(fake.now, fake.sleep), api=gateway,
                        emit=hook, groups=[group])
            raise SystemExit(f"{nodes} nodes: expected a stall")
        except Stalled:
            pass
        finally:
            gateway.close()
        before = len(kube.requests)
        read_live(config)
        reread = len(kube.requests) - before
    # each poll between two progress events: its cloud calls and its kube look
    pairs = list(itertools.pairwise(seen))
    kube_per_poll = {b[0] - a[0] for a, b in pairs}
    cloud_per_poll = {b[1] - a[1] for a, b in pairs}
    per_node_lists = nodes + 1  # one pods list per node of the group, plus the PDBs
    return {"polls": len(seen) - 1, "kube": kube_per_poll, "cloud": cloud_per_poll,
            "reread": reread, "per_node": per_node_lists}


def main() -> int:
    ok = True
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for nodes in (20, 200):
            rows[nodes] = measure(nodes, Path(tmp))
    print("calls per poll while one node drains (policy 1/0, 30 pods per node):")
    for nodes, r in rows.items():
        print(f"  {nodes:3} nodes ({nodes * PODS_PER_NODE:5} pods): cloud "
              f"{'/'.join(map(str, sorted(r['cloud'])))}, kube "
              f"{'/'.join(map(str, sorted(r['kube'])))} per poll over {r['polls']} polls | "
              f"baselines: re-read the cluster {r['reread']}, pods of every node "
              f"{r['per_node']}")
    small, large = rows[20], rows[200]
    equal = small["kube"] == large["kube"] and small["cloud"] == large["cloud"] \
        and len(large["kube"]) == 1
    ok &= record("kube calls per poll, 200 nodes / 20 nodes",
                 max(large["kube"]) / min(small["kube"]) if equal else float("inf"), 1.0,
                 baseline="the same wait on 20 nodes (equal, one value per poll)")
    cheaper = min(large["reread"], large["per_node"])
    ok &= record("kube calls per poll at 200 nodes", max(large["kube"]), cheaper - 1, unit="",
                 baseline=f"below the cheaper of re-reading the cluster ({large['reread']}) "
                          f"and listing every node's pods ({large['per_node']})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
