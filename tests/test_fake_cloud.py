"""The fake Yandex Cloud itself: timeline-driven updates, quotas, scenario file, faults, plugin.

Reached through the real SDK (the gateway) or the SDK's own stubs; never patched.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ngupgrade.adapters.cloud.waiter import wait_operation, wait_reconciled
from ngupgrade.core.errors import BadInput, CloudApiError, OperationFailed
from ngupgrade.core.model import GIB, DeployPolicy
from ngupgrade.testing import FakeCloud, Fault, Scenario, node_group
from ngupgrade.testing.pytest_plugin import fake_cloud  # noqa: F401  (the plugin's fixture)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_STATE = ROOT / "terraform" / "examples" / "terraform.tfstate"
GID = "catgroup000000000001"


def _sizes_during_update(fake: FakeCloud, gid: str, version: str) -> list[int]:
    gw = fake.gateway()
    ref = gw.update_node_group(gid, version=version)
    sizes = []
    while not fake.operation(ref.id).done:
        sizes.append(len(gw.list_nodes(gid)))
        assert gw.get_node_group(gid).status == "RECONCILING"
        fake.sleep(fake.scenario.step_seconds)
    sizes.append(len(gw.list_nodes(gid)))
    assert gw.get_node_group(gid).status == "RUNNING"
    assert gw.get_node_group(gid).version == version
    return sizes


def test_version_update_follows_the_timeline_n5_e2_u0():
    """DESIGN.md section 3: 5 -> 7 -> 5 -> 7 -> 5 -> 6 -> 5 (create, drain, delete per wave)."""
    with FakeCloud([node_group(GID, size=5, policy=DeployPolicy(2, 0))]) as fake:
        sizes = _sizes_during_update(fake, GID, "1.30")
        assert sizes == [5, 7, 7, 5, 7, 7, 5, 6, 6, 5]
        assert fake.operation("op-1").history[:3] == [
            "create 2 -> 7 nodes", "drain 2 -> 7 nodes", "delete 2 -> 5 nodes"]


def test_version_update_follows_the_timeline_n5_e2_u2():
    with FakeCloud([node_group(GID, size=5, policy=DeployPolicy(2, 2))]) as fake:
        sizes = _sizes_during_update(fake, GID, "1.30")
        assert sizes == [5, 7, 7, 7, 7, 7, 6, 6, 5]


def test_an_unset_policy_upgrades_with_the_server_default_3_0():
    """Seed 000 L15, L20: unset means max_expansion 3, max_unavailable 0. N=4: one wave of 3
    surge nodes, then one of 1 (4 -> 7 -> 4 -> 5 -> 4)."""
    with FakeCloud([node_group(GID, size=4, policy=None)]) as fake:
        sizes = _sizes_during_update(fake, GID, "1.30")
        assert sizes == [4, 7, 7, 4, 5, 5, 4]
        assert fake.group(GID).policy is None  # the fake never writes the default back


def test_default_timeline_clamps_the_policy_to_the_group_size():
    with FakeCloud([node_group(GID, size=2, policy=DeployPolicy(5, 0))]) as fake:
        sizes = _sizes_during_update(fake, GID, "1.30")
        assert sizes == [2, 4, 4, 2]  # E'=min(5, 2)=2: one wave


def test_quota_usage_moves_with_nodes_and_a_surge_beyond_headroom_fails_the_operation():
    # 4 cores per node; 3 nodes use 12 of a 16-core limit: headroom 4 = one surge node of 1/0,
    # but E=2 needs 8 cores and fails at the first create, as the cloud does.
    sc = {"clouds": {"b1gcloud": {"folders": ["b1gexamplefolder00001"], "quotas": {
        "compute.instanceCores.count": {"limit": 16, "usage": 12},
        "compute.instanceMemory.size": {"limit": 64 * GIB, "usage": 24 * GIB}}}}}
    with FakeCloud([node_group(GID, size=3, policy=DeployPolicy(1, 0))], sc) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        fake.sleep(60)
        assert fake.quota("b1gcloud", "compute.instanceCores.count").usage == 16
        assert fake.quota("b1gcloud", "compute.instanceMemory.size").usage == 32 * GIB
        wait_reconciled(gw, GID, ref.id, timeout=3600, clock=fake.now, sleep=fake.sleep)
        assert fake.quota("b1gcloud", "compute.instanceCores.count").usage == 12
    with FakeCloud([node_group(GID, size=3, policy=DeployPolicy(2, 0))], sc) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        with pytest.raises(OperationFailed) as exc:
            wait_operation(gw, ref.id, timeout=3600, clock=fake.now, sleep=fake.sleep)
        assert exc.value.code_name == "RESOURCE_EXHAUSTED"
        assert "compute.instanceCores.count exceeded: requested 8, available 4" in str(exc.value)
        assert len(gw.list_nodes(GID)) == 3
        assert gw.get_node_group(GID).version == "1.29"


def test_stall_stops_progress_and_never_finishes():
    with FakeCloud([node_group(GID, size=3)], {"faults": [{"kind": "stall", "at_step": 1}]}) as f:
        f.gateway().update_node_group(GID, version="1.30")
        f.sleep(90 * 60)
        op = f.operation("op-1")
        assert (op.done, op.applied, f.group(GID).nodes) == (False, 1, 4)


def test_versions_not_offered_are_refused_and_mask_is_required():
    with FakeCloud([node_group(GID)], {"versions": ["1.29", "1.30"]}) as fake:
        with pytest.raises(CloudApiError, match="INVALID_ARGUMENT"):
            fake.gateway().update_node_group(GID, version="1.31")
        import grpc
        import yandexcloud
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as stubs

        stub = yandexcloud.SDK().client(stubs.NodeGroupServiceStub, endpoint=fake.endpoint,
                                        insecure=True)
        with pytest.raises(grpc.RpcError) as exc:
            stub.Update(svc.UpdateNodeGroupRequest(node_group_id=GID), timeout=5)
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "update_mask is required" in exc.value.details()


def test_endpoint_discovery_lists_the_fake_for_every_service():
    import yandexcloud
    from yandex.cloud.endpoint import api_endpoint_service_pb2 as svc
    from yandex.cloud.endpoint import api_endpoint_service_pb2_grpc as stubs

    with FakeCloud([node_group()]) as fake:
        stub = yandexcloud.SDK().client(stubs.ApiEndpointServiceStub, endpoint=fake.endpoint,
                                        insecure=True)
        resp = stub.List(svc.ListApiEndpointsRequest(), timeout=5)
        found = {e.id: e.address for e in resp.endpoints}
        assert found["managed-kubernetes"] == fake.endpoint
        assert found["quota-manager"] == fake.endpoint and found["operation"] == fake.endpoint


def test_seeded_from_the_example_terraform_state_with_a_scenario_file(tmp_path):
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(textwrap.dedent("""\
        step_seconds: 30
        clouds:
          b1gexamplecloud000001:
            folders: [b1gexamplefolder00001]
            quotas:
              compute.instanceCores.count: {limit: 96, usage: 40}
        node_groups:
          workers: {nodes: 4, version: "1.28"}
          'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]': {nodes: 5}
        faults:
          - {kind: rpc_error, method: FolderService.Get, code: UNAVAILABLE, times: 1}
        """))
    with FakeCloud.from_state(str(EXAMPLE_STATE), str(scenario)) as fake:
        gw = fake.gateway(sleep=lambda s: None)
        workers = gw.get_node_group("cat1ng0fixed0000abcd")
        assert (workers.version, len(gw.list_nodes(workers.id))) == ("1.28", 4)
        assert len(gw.list_nodes("cat2ng0auto00000efgh")) == 5
        assert gw.get_cluster(workers.cluster_id).master_version == "1.30"
        assert gw.get_folder_cloud_id("b1gexamplefolder00001") == "b1gexamplecloud000001"
        assert [c.code for c in fake.calls_to("FolderService.Get")] == ["UNAVAILABLE", "OK"]
        assert gw.list_quota_limits("b1gexamplecloud000001", "compute")[0].limit == 96


@pytest.mark.parametrize("raw, match", [
    ({"faults": [{"kind": "meteor"}]}, r"faults\[0\]\.kind: expected one of rpc_error, "),
    ({"faults": [{"kind": "stall", "when": 3}]}, "unknown fault keys for kind stall: when"),
    ({"step_seconds": "fast"}, "step_seconds: expected a number, found 'fast'"),
    ([1, 2], "scenario must be a mapping"),
])
def test_bad_scenario_is_bad_input(raw, match):
    with pytest.raises(BadInput, match=match):
        Scenario.from_mapping(raw, source="scenario.yaml")


def test_bad_scenario_file_names_the_file(tmp_path):
    bad = tmp_path / "s.yaml"
    bad.write_text("faults: [unclosed")
    with pytest.raises(BadInput, match=r"s\.yaml: scenario is not YAML"):
        Scenario.load(str(bad))


def test_permission_denied_fault_holds_every_time():
    with FakeCloud([node_group(GID)]) as fake:
        fake.add_fault(Fault.parse({"kind": "permission_denied", "method": "ClusterService.Get"}))
        gw = fake.gateway()
        for _ in range(3):
            with pytest.raises(CloudApiError, match="PERMISSION_DENIED"):
                gw.get_cluster("catq0n7i0h9ka1b2c3d4")
        assert gw.get_node_group(GID).id == GID


def test_calls_are_recorded_with_requests(fake_cloud):  # noqa: F811
    gw = fake_cloud.gateway()
    gw.update_node_group("catgroup000000000001", policy=DeployPolicy(2, 1))
    (update,) = fake_cloud.calls_to("NodeGroupService.Update")
    assert list(update.request.update_mask.paths) == [
        "deploy_policy.max_expansion", "deploy_policy.max_unavailable"]
    assert update.request.deploy_policy.max_unavailable == 1


def test_the_scenario_example_in_the_docs_parses():
    text = (ROOT / "docs" / "cloud.md").read_text()
    block = text.split("### Scenario file format", 1)[1].split("```yaml\n", 1)[1].split("```")[0]
    import yaml

    sc = Scenario.from_mapping(yaml.safe_load(block), source="docs/cloud.md")
    assert [f.kind for f in sc.faults] == [
        "rpc_error", "permission_denied", "deadline_after_apply", "operation_error",
        "operation_in_progress", "stall", "running_after_update", "reconciling_after_done",
        "policy_ignored", "autoscaler_delete", "node_not_ready", "detach_stuck", "kube_error"]
    assert sc.quotas["b1gexamplecloud000001"]["compute.instanceCores.count"] == (96.0, 40.0)
    assert sc.node_groups["workers"].policy == DeployPolicy(2, 0)
    with FakeCloud.from_state(str(EXAMPLE_STATE), sc) as fake:
        assert fake.group("workers").nodes == 4


def test_nodes_are_created_cordoned_and_deleted_step_by_step():
    """The live node list changes at every step: a stall watchdog can see progress."""
    with FakeCloud([node_group(GID, size=2, policy=DeployPolicy(1, 0))]) as fake:
        gw = fake.gateway()
        before = {n.instance_id for n in gw.list_nodes(GID)}
        gw.update_node_group(GID, version="1.30")
        seen = []
        for _ in range(6):
            fake.sleep(60)
            nodes = gw.list_nodes(GID)
            seen.append((len(nodes), sum(n.unschedulable for n in nodes)))
        assert seen == [(3, 0), (3, 1), (2, 0), (3, 0), (3, 1), (2, 0)]
        after = {n.instance_id for n in gw.list_nodes(GID)}
        assert not before & after  # every old node replaced by a new instance
        group = fake.group(GID)
        assert group.version == "1.30" and {n.version for n in group.members} == {"1.30"}


@settings(max_examples=25, deadline=None)
@given(nodes=st.integers(1, 12), e=st.integers(0, 15), u=st.integers(0, 15))
def test_any_valid_update_ends_whole_with_quota_back_and_peak_n_plus_e(nodes, e, u):
    """Property: every version update ends with N nodes, all new; usage returns to the start;
    the group never exceeds N + min(E, N) (peak_nodes, DESIGN.md section 3)."""
    assume(e or u)
    sc = {"step_seconds": 1, "clouds": {"c": {"folders": ["b1gexamplefolder00001"], "quotas": {
        "compute.instanceCores.count": {"limit": 10_000, "usage": 4 * nodes}}}}}
    with FakeCloud([node_group(GID, size=nodes, policy=DeployPolicy(e, u))], sc) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        peak = nodes
        while not fake.operation(ref.id).done:
            fake.sleep(1)
            peak = max(peak, fake.group(GID).nodes)
        group = fake.group(GID)
        assert fake.operation(ref.id).error is None
        assert group.nodes == nodes and {n.version for n in group.members} == {"1.30"}
        assert peak == nodes + min(e, nodes)
        assert fake.quota("c", "compute.instanceCores.count").usage == 4 * nodes
