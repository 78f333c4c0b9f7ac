"""The fake cloud answers its RPCs promptly while its Kubernetes API follows an upgrade of a
mid-size cluster (bench/bench_fake_scale.py measures the platform's limits): 3 groups of 100
nodes, 10 pods on every node (``kube_cluster.filled_workloads``: 2 DaemonSet pods and 8 of
Deployments, a PDB on two Deployments of three), one group upgraded at 10/0, driven through
the SDK's stubs on the fake's virtual clock. Each advance of the clock makes the next RPC do
the steps that came due (10 nodes cordoned, their 80 pods evicted and placed on the 10 new
nodes), so each RPC carries the follower's work; the fake used to re-read the whole cluster
for every decision, and one RPC then took seconds.

Counts, not timings: no RPC may miss a 2-second deadline (20 times what the steps cost here on
a loaded host), and the work was done (every pod of the group evicted once, none left
Pending). After the upgrade the follower's index, kept change by change, equals one read
afresh from the API.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from yandex.cloud.k8s.v1 import node_group_service_pb2 as ng_svc
from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as ng_grpc
from yandex.cloud.operation import operation_service_pb2 as op_svc
from yandex.cloud.operation import operation_service_pb2_grpc as op_grpc

from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, Scenario, node_group
from ngupgrade.testing.kube_cluster import filled_workloads
from ngupgrade.testing.kube_index import ClusterIndex

DEADLINE = 2.0
CLUSTER = "catq0n7i0h9ka1b2c3d4"
GROUPS = [node_group(f"catgroup{g:012d}", name=f"pool{g}", size=100, cores=8, memory_gib=32,
                     cluster_id=CLUSTER, policy=DeployPolicy(10, 0)) for g in range(3)]
WORKLOADS = filled_workloads(GROUPS, 10)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeCloud]:
    monkeypatch.setattr(ClusterIndex, "verify", True)  # derived pod values == the reader's
    scenario = Scenario.from_mapping({"step_seconds": 60,
                                      "clusters": {CLUSTER: {"master_version": "1.30"}}})
    scenario.workloads = WORKLOADS  # the kit's builder: not the check of a hand-written file
    with FakeCloud(GROUPS, scenario) as cloud:
        yield cloud


def test_rpcs_meet_a_short_deadline_while_the_follower_drains_a_group(fake: FakeCloud) -> None:
    channel = grpc.insecure_channel(fake.endpoint)
    groups, operations = ng_grpc.NodeGroupServiceStub(channel), op_grpc.OperationServiceStub(
        channel)
    missed = 0
    op = groups.Update(ng_svc.UpdateNodeGroupRequest(
        node_group_id=GROUPS[0].id, update_mask={"paths": ["version"]},
        version={"version": "1.30"}), timeout=DEADLINE)
    for _ in range(400):
        fake.sleep(30)
        try:
            answer = operations.Get(op_svc.GetOperationRequest(operation_id=op.id),
                                    timeout=DEADLINE)
            groups.ListNodes(ng_svc.ListNodeGroupNodesRequest(node_group_id=GROUPS[0].id),
                             timeout=DEADLINE)
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED, err
            missed += 1
            break
        if answer.done:
            break
    channel.close()
    assert missed == 0
    assert answer.done and not answer.HasField("error")
    follower = fake._world.kube
    assert follower is not None
    evicted = [e for e in follower.events if " evicted " in e and " from pool0-" in e]
    assert len(evicted) == 100 * 8  # each old node's 8 Deployment pods, once
    pods = fake.kube.objects("Pod")
    assert [p["metadata"]["name"] for p in pods if p["status"]["phase"] == "Pending"] == []
    assert len(pods) == 3 * 100 * 10 - 100 * 2  # the old nodes' DaemonSet pods went with them


def test_the_index_kept_change_by_change_equals_one_read_afresh(fake: FakeCloud) -> None:
    op = fake.update(GROUPS[1].id, version="1.30")
    for _ in range(400):
        fake.sleep(30)
        if fake.operation(op.id).done:
            break
    follower = fake._world.kube
    assert follower is not None and fake.kube is not None
    kept, fresh = follower.cluster, ClusterIndex(fake.kube)
    fresh.sync()
    assert kept.pods == fresh.pods and kept.nodes == fresh.nodes
    assert kept.pending == fresh.pending
    assert {n: k for n, k in kept.on_node.items() if k} == {
        n: k for n, k in fresh.on_node.items() if k}
    assert {n: {k: v for k, v in b.items() if v} for n, b in kept.bound.items()
            if any(b.values())} == {n: b for n, b in fresh.bound.items() if any(b.values())}
    assert list(kept.ranked()) == list(fresh.ranked())
    assert {k: kept.budget(p) for k, p in kept.pdbs.items()} == {
        k: fresh.budget(p) for k, p in fresh.pdbs.items()}
