"""The fake cloud's Kubernetes API follows its upgrade (issue 13 part 4), seen through the real
SDK and the real kube client by ``ngupgrade upgrade --kubeconfig``.

The example ``workers``: 3 nodes at 1/0, ``step_seconds`` 60: create at 60, drain
workers-0000 at 120, delete at 180, ... (9 steps, 540 s, when nothing holds a drain). The
scenario's ``workloads``: ``shop/api`` (1 replica, PDB minAvailable 1: 1 healthy - 1 desired
= 0 allowed, seed 001 case 2) on workers-0000; ``shop/web`` (2 replicas, no PDB) on
workers-0001 and workers-0002.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ngupgrade.testing import kube_objects as ko
from tests._upgrade_helpers import example_cloud, run, version_updates

ACCEPT = frozenset({"pdb-blocks-eviction", "forced-stop", "single-replica-disrupted"})


def _deploy(name: str, nodes: list[str], cpu: str = "100m") -> list[dict[str, Any]]:
    labels = {"app": name}
    spec = ko.pod_spec([ko.container(name, {"cpu": cpu, "memory": "128Mi"})])
    rs = ko.replicaset(name, "shop", len(nodes), labels, spec)
    h = rs["metadata"]["labels"]["pod-template-hash"]
    return [ko.deployment(name, "shop", len(nodes), labels, spec), rs,
            *(ko.pod(f"{rs['metadata']['name']}-{i}", "shop",
                     ko.pod_spec(spec["containers"], node_name=node),
                     labels={**labels, "pod-template-hash": h},
                     owner=("apps/v1", "ReplicaSet", rs["metadata"]["name"]))
              for i, node in enumerate(nodes))]


def workloads(*, api_cpu: str = "100m") -> list[dict[str, Any]]:
    return [*_deploy("api", ["workers-0000"], api_cpu),
            *_deploy("web", ["workers-0001", "workers-0002"]),
            ko.pdb("api", "shop", {"app": "api"}, min_available=1, healthy=1, desired=1,
                   expected=1)]


def test_a_pdb_blocked_drain_is_forced_at_7_minutes_and_the_upgrade_ends(tmp_path: Path
                                                                          ) -> None:
    """workers-0000 is cordoned at 120; shop/api cannot be evicted; at 120 + 420 = 540
    (08:09 UTC) Yandex stops the node with the pod; its replacement starts elsewhere; the
    delete step waits for that (6 steps after it: 540 + 6 * 60 = 900)."""
    api_pod = f"shop/api-{ko.pod_hash('api')}-0"
    with example_cloud(step_seconds=60, workloads=workloads()) as fake:
        config = str(fake.write_kubeconfig(tmp_path / "kubeconfig"))
        out = run(fake, tmp_path / "j.json", kubeconfig=config, accept=ACCEPT)
        assert out.code == 0, out.error
        assert version_updates(fake) == 1
        op = fake.operation("op-1")
        assert (op.done, op.error, op.finished) == (True, None, 900.0)
        follower = fake._world.kube
        assert follower is not None
        assert "540 stopped workers-0000 (drain timeout)" in follower.events
        assert f"540 stopped with {api_pod}" in follower.events
        # web terminates for its 30 s grace: the drain of workers-0001 ends at 690
        assert "690 drained workers-0001" in follower.events
        pods = {p["metadata"]["name"]: p for p in fake.kube.objects("Pod")}
        # every pod runs again, none on an old node (the example's other groups take some)
        shop = [p for p in pods.values() if p["metadata"]["namespace"] == "shop"]
        assert len(shop) == 3 and all(p["status"]["phase"] == "Running" for p in shop)
        assert not {p["spec"]["nodeName"] for p in shop} & {
            "workers-0000", "workers-0001", "workers-0002"}
    for p in out.of("progress"):
        assert p.done is None or p.done <= p.total == 3
    forced = [d for d in out.of("drain") if d.phase == "forced"]
    assert [(d.node, d.seconds) for d in forced] == [("workers-0000", 420.0)]
    (left, *_rest) = [d for d in out.of("drain") if d.phase == "pods_left"]
    assert (left.node, left.pods, left.blocked_by) == ("workers-0000", [api_pod], ["api"])
    (summary,) = out.of("drain_summary")
    assert summary.nodes[0] == {"node": "workers-0000", "seconds": 420.0, "forced": True,
                                "finished": True, "pods_stopped": [api_pod]}
    assert [n["forced"] for n in summary.nodes] == [True, False, False]
    assert {"workload": "shop/Deployment/api", "disruptions": 1} in summary.workloads
    assert out.of("verdict")[-1].ok


def test_a_pdb_blocked_drain_stalls_a_short_watchdog_naming_it(tmp_path: Path) -> None:
    """--stall-after 4m: the cordon at 120 was the last change; at 360 the diagnosis names
    the pod, the PDB, the node and the forced stop at 08:09 UTC, 3 minutes away."""
    api_pod = f"shop/api-{ko.pod_hash('api')}-0"
    with example_cloud(step_seconds=60, workloads=workloads()) as fake:
        config = str(fake.write_kubeconfig(tmp_path / "kubeconfig"))
        out = run(fake, tmp_path / "j.json", kubeconfig=config, accept=ACCEPT,
                  stall_after=240)
        assert out.code == 6, out.error
        assert not fake.operation("op-1").done
    (diag,) = out.of("diagnosis")
    assert (diag.cause, diag.message) == ("pdb-blocked", (
        f"blocked by a PodDisruptionBudget: node workers-0000 draining for 4m: {api_pod} "
        "(PDB api: 0 disruptions allowed: minAvailable 1 equals the 1 expected pod(s)); "
        "forced stop at 08:09 UTC (in 3m)"))


def test_pods_that_fit_nowhere_stay_pending_with_the_schedulers_reason(tmp_path: Path
                                                                        ) -> None:
    """shop/api is pinned by ``nodeSelector pool=legacy`` (a label no node has: the drain
    gate says pods-do-not-fit, accepted here): evicted at the cordon (t=120, no PDB), it
    terminates for 30 s and its replacement finds no node: Pending with the scheduler's
    reason. The drain ends at 150, before the delete step at 180, so the operation ends at 540
    as without it; the pod still Pending then is in the verdict, which fails (exit 1) naming
    it and the scheduler's reason."""
    objs = workloads()
    objs = [o for o in objs if o["kind"] != "PodDisruptionBudget"]
    for o in objs:
        if o["kind"] == "Pod" and o["metadata"]["name"].startswith("api-"):
            o["spec"]["nodeSelector"] = {"pool": "legacy"}
    api_pod = f"shop/api-{ko.pod_hash('api')}-0"
    with example_cloud(step_seconds=60, workloads=objs) as fake:
        config = str(fake.write_kubeconfig(tmp_path / "kubeconfig"))
        out = run(fake, tmp_path / "j.json", kubeconfig=config,
                  accept=ACCEPT | {"pods-do-not-fit"})
        assert out.code == 1
        assert "1 pod(s) of workloads the drains evicted still Pending: shop/api-" in str(
            out.error)
        assert fake.operation("op-1").finished == 540.0  # the 30 s grace holds nothing
        pending = [p for p in fake.kube.objects("Pod") if p["status"]["phase"] == "Pending"]
    (pod,) = pending
    assert pod["metadata"]["name"] == f"api-{ko.pod_hash('api')}-r1"
    # at the end: workers-0003..0005, gpu-0000, batch-0000; none labelled pool=legacy
    assert pod["status"]["conditions"][0]["message"] == (
        "0/5 nodes are available: 5 node(s) didn't match Pod's node affinity/selector.")
    (left, *_rest) = [d for d in out.of("drain") if d.phase == "pods_left"]
    assert (left.node, left.pods, left.blocked_by) == ("workers-0000", [api_pod], [])
    (summary,) = out.of("drain_summary")
    assert {"workload": "shop/Deployment/api", "disruptions": 1} in summary.workloads
