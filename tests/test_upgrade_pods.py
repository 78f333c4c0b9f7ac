"""During the upgrade, with kube access (issue 13 part 3): the pods left on each draining node,
the PDB that refuses each, evicted pods Pending with the scheduler's reason, and the forced
stop; through the fake cloud (real SDK) and a fake Kubernetes API on loopback (real client).

The example ``workers``: 3 nodes at 1/0, ``step_seconds`` 60; the ``stall`` fault at step 2
keeps ``workers-0000`` cordoned from t=120 (seen by the poll at 120) with nothing moving after.
The fake's time 0 is 08:00 UTC, so Yandex's forced stop is 08:02 + 7 min = 08:09 UTC.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ngupgrade.core.errors import Stalled
from ngupgrade.testing import kube_objects as ko
from ngupgrade.testing.kube_api import FakeKubeApi
from tests._upgrade_helpers import WORKERS_ID, example_cloud, run, version_updates

STALL_AT_DRAIN = [{"kind": "stall", "at_step": 2}]
ACCEPT = frozenset({"pdb-blocks-eviction", "forced-stop", "single-replica-disrupted"})


def _deploy(name: str, replicas: int, nodes: list[str | None], *, ns: str = "shop"
            ) -> list[dict[str, Any]]:
    """A Deployment, its ReplicaSet and one pod per entry of ``nodes`` (None: Pending,
    PodScheduled=False "0/3 nodes are available: 3 Insufficient cpu.")."""
    labels = {"app": name}
    spec = ko.pod_spec([ko.container(name, {"cpu": "100m", "memory": "128Mi"})])
    rs = ko.replicaset(name, ns, replicas, labels, spec)
    rs_name = rs["metadata"]["name"]
    h = rs["metadata"]["labels"]["pod-template-hash"]
    pods = [ko.pod(f"{rs_name}-{i}", ns, ko.pod_spec(spec["containers"], node_name=node),
                   labels={**labels, "pod-template-hash": h},
                   owner=("apps/v1", "ReplicaSet", rs_name),
                   phase="Running" if node else "Pending")
            for i, node in enumerate(nodes)]
    return [ko.deployment(name, ns, replicas, labels, spec), rs, *pods]


def _cluster(*, api_pdb_allows: int) -> list[dict[str, Any]]:
    nodes = [ko.node(f"workers-000{i}", group_id=WORKERS_ID) for i in range(3)]
    ds_spec = ko.pod_spec([ko.container("agent", {"cpu": "50m"})], node_name="workers-0000")
    agent = ko.pod("agent-x1", "kube-system", ds_spec, labels={"app": "agent"},
                   owner=("apps/v1", "DaemonSet", "agent"))
    return [*nodes, agent,
            *_deploy("api", 1, ["workers-0000"]),
            *_deploy("web", 2, ["workers-0000", None]),
            *_deploy("batch", 1, [None], ns="jobs"),   # Pending, but not this drain's doing
            ko.pdb("api", "shop", {"app": "api"}, min_available=1, healthy=1, desired=1,
                   expected=1, allowed=api_pdb_allows)]


def _hash(name: str) -> str:
    return ko.pod_hash(name)


def test_a_pdb_blocked_drain_names_pod_pdb_node_and_the_forced_stop(tmp_path: Path) -> None:
    """shop/api (1 replica, minAvailable 1: 1 healthy - 1 desired = 0 allowed, seed 001 case
    2) holds workers-0000. --stall-after 5m: the wait stops at t=420, the drain 5m old, the
    forced stop at 08:09 UTC in 2m."""
    api_pod = f"shop/api-{_hash('api')}-0"
    web_pod = f"shop/web-{_hash('web')}-0"
    with FakeKubeApi(_cluster(api_pdb_allows=0)) as kube, \
            example_cloud(step_seconds=60, faults=STALL_AT_DRAIN) as fake:
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        before = len(kube.requests)
        out = run(fake, tmp_path / "j.json", stall_after=300, kubeconfig=kubeconfig,
                  accept=ACCEPT)
        assert out.code == 6, out.error
        assert version_updates(fake) == 1
        # after the drain gate's one full read (no selector): the looks
        looks = [r for r in kube.requests[before:]
                 if r.path == "/api/v1/pods" and "fieldSelector" in r.query]
    assert isinstance(out.error, Stalled)
    (diag,) = out.of("diagnosis")
    assert diag.cause == "pdb-blocked"
    assert diag.message == (
        f"blocked by a PodDisruptionBudget: node workers-0000 draining for 5m: {api_pod} "
        "(PDB api: 0 disruptions allowed: minAvailable 1 equals the 1 expected pod(s)); "
        "forced stop at 08:09 UTC (in 2m)")
    assert "forced stop at 08:09 UTC (in 2m)" in out.error.message
    (left,) = [d for d in out.of("drain") if d.phase == "pods_left"]
    # the DaemonSet's agent is not evicted by a drain: not a pod left
    assert (left.node, left.pods, left.blocked_by) == ("workers-0000",
                                                       [api_pod, web_pod], ["api"])
    # polls from the cordon on: t=120, 150, ..., 420 = 11 looks of 2 pod lists each
    node_lists = [r for r in looks if r.query.get("fieldSelector") == "spec.nodeName=workers-0000"]
    assert len(node_lists) == 11 and len(looks) == 22


def test_evicted_pods_without_a_place_are_named_with_the_schedulers_reason(tmp_path: Path
                                                                           ) -> None:
    """The PDB now allows 1: nothing refuses an eviction; shop/web's second pod is Pending
    (its workload had a pod on the draining node), jobs/batch's Pending pod is not this
    drain's doing and is left out."""
    web_pending = f"shop/web-{_hash('web')}-1"
    with FakeKubeApi(_cluster(api_pdb_allows=1)) as kube, \
            example_cloud(step_seconds=60, faults=STALL_AT_DRAIN) as fake:
        kubeconfig = str(kube.write_kubeconfig(tmp_path / "kubeconfig"))
        out = run(fake, tmp_path / "j.json", stall_after=300, kubeconfig=kubeconfig,
                  accept=ACCEPT)
        assert out.code == 6, out.error
    (diag,) = out.of("diagnosis")
    assert diag.cause == "pods-unplaced"
    assert diag.message == (f"evicted pods with no place: {web_pending}: 0/3 nodes are "
                            "available: 3 Insufficient cpu.")
    (summary,) = out.of("drain_summary")
    assert summary.workloads == []  # nothing left the node yet
    assert summary.nodes == [{"node": "workers-0000", "seconds": 300.0, "forced": False,
                              "finished": False}]


def test_without_kube_access_no_pod_is_listed(tmp_path: Path) -> None:
    with FakeKubeApi(_cluster(api_pdb_allows=0)) as kube, \
            example_cloud(step_seconds=60, faults=STALL_AT_DRAIN) as fake:
        out = run(fake, tmp_path / "j.json", stall_after=300)
        assert out.code == 6
        assert kube.requests == []
    (diag,) = out.of("diagnosis")
    assert diag.cause == "drain-stuck"
