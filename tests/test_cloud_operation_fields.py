"""Operations as ``OperationService.Get`` and ``NodeGroupService.ListOperations`` return them,
with every field of ``operation.Operation`` (yandex-cloud/cloudapi
``yandex/cloud/operation/operation.proto``@aaa8655f12ffa5cf98dde235fb8b61feb45baa43: id,
description, created_at, created_by, modified_at, done, metadata (Any), and one of error
(google.rpc.Status with details) or response (Any)), as the REST reference lists them
(yandex-cloud/docs ``en/vpc/api-ref/Operation/index.md``).

The fake is asked over gRPC through the SDK's own stubs; the gateway and the waiter read what
it says. Reading tolerates every field: details of any type, metadata and responses of kinds
it does not read.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import any_pb2, timestamp_pb2
from google.rpc import error_details_pb2, status_pb2
from yandex.cloud.k8s.v1 import cluster_pb2, cluster_service_pb2, node_group_service_pb2
from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as ng_grpc
from yandex.cloud.operation import operation_pb2, operation_service_pb2
from yandex.cloud.operation import operation_service_pb2_grpc as op_grpc

from ngupgrade.adapters.cloud.proto import operation_state
from ngupgrade.adapters.cloud.waiter import wait_operation
from ngupgrade.core.errors import OperationFailed
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, node_group

GID = "catgroup000000000001"
CLUSTER = "catq0n7i0h9ka1b2c3d4"
ALWAYS = {"id", "description", "created_at", "created_by", "modified_at", "metadata"}


@pytest.fixture
def fake() -> Iterator[FakeCloud]:
    faults = [{"kind": "operation_error", "at_step": 1, "code": 9,
               "message": "node version above master version"}]
    with FakeCloud([node_group(GID, size=3, policy=DeployPolicy(1, 0))],
                   {"step_seconds": 2, "faults": faults}) as f:
        yield f


def _stubs(fake: FakeCloud) -> tuple[grpc.Channel, op_grpc.OperationServiceStub,
                                     ng_grpc.NodeGroupServiceStub]:
    channel = grpc.insecure_channel(fake.endpoint)
    return channel, op_grpc.OperationServiceStub(channel), ng_grpc.NodeGroupServiceStub(channel)


def _set(msg: operation_pb2.Operation) -> set[str]:
    return {field.name for field, _ in msg.ListFields()}


def test_the_fake_fills_every_field_the_api_does(fake: FakeCloud) -> None:
    channel, ops, groups = _stubs(fake)
    with channel:
        policy = groups.Update(node_group_service_pb2.UpdateNodeGroupRequest(
            node_group_id=GID, update_mask={"paths": ["deploy_policy.max_expansion"]},
            deploy_policy={"max_expansion": 2, "max_unavailable": 0}))
        running = ops.Get(operation_service_pb2.GetOperationRequest(operation_id=policy.id))
        assert _set(running) == ALWAYS  # done false is proto3's default: not on the wire
        assert running.created_by == "ajeng0pgrade0000test"
        meta = node_group_service_pb2.UpdateNodeGroupMetadata()
        assert running.metadata.Unpack(meta) and meta.node_group_id == GID
        fake.sleep(10)
        done = ops.Get(operation_service_pb2.GetOperationRequest(operation_id=policy.id))
        assert _set(done) == ALWAYS | {"done", "response"}
        assert done.response.type_url == "type.googleapis.com/yandex.cloud.k8s.v1.NodeGroup"
        assert done.modified_at.seconds > done.created_at.seconds

        version = groups.Update(node_group_service_pb2.UpdateNodeGroupRequest(
            node_group_id=GID, update_mask={"paths": ["version"]},
            version={"version": "1.30"}))
        fake.sleep(10)
        failed = ops.Get(operation_service_pb2.GetOperationRequest(operation_id=version.id))
        assert _set(failed) == ALWAYS | {"done", "error"}
        assert (failed.error.code, failed.error.message) == (
            9, "node version above master version")
        info = error_details_pb2.RequestInfo()
        assert len(failed.error.details) == 1 and failed.error.details[0].Unpack(info)

        listed = groups.ListOperations(node_group_service_pb2.ListNodeGroupOperationsRequest(
            node_group_id=GID)).operations
        assert sorted((op.id, _set(op)) for op in listed) == [
            (policy.id, ALWAYS | {"done", "response"}), (version.id, ALWAYS | {"done", "error"})]


def test_a_cluster_wide_operation_in_progress_has_the_cluster_s_metadata() -> None:
    faults = [{"kind": "operation_in_progress", "operation_id": "catop0master00000001",
               "description": "Update cluster", "scope": "cluster", "seconds": 600}]
    with FakeCloud([node_group(GID)], {"faults": faults}) as fake:
        channel = grpc.insecure_channel(fake.endpoint)
        with channel:
            op = op_grpc.OperationServiceStub(channel).Get(
                operation_service_pb2.GetOperationRequest(operation_id="catop0master00000001"))
        meta = cluster_service_pb2.UpdateClusterMetadata()
        assert _set(op) == ALWAYS and op.metadata.Unpack(meta) and meta.cluster_id == CLUSTER
        assert op.created_by == "ajecolleague00000001"
        state = fake.gateway().get_operation("catop0master00000001")
        assert (state.description, state.node_group_id, state.created_by, state.done) == (
            "Update cluster", None, "ajecolleague00000001", False)


def test_the_gateway_and_the_waiter_read_a_failed_operation_with_its_details(
        fake: FakeCloud) -> None:
    gw = fake.gateway()
    ref = gw.update_node_group(GID, version="1.30")
    with pytest.raises(OperationFailed) as info:
        wait_operation(gw, ref.id, timeout=3600, clock=fake.now, sleep=fake.sleep)
    assert str(info.value) == ("operation op-1 failed: FAILED_PRECONDITION (9): "
                               "node version above master version")
    (state,) = gw.list_operations(GID)
    assert (state.id, state.failed, state.created_by, state.node_group_id) == (
        "op-1", True, "ajeng0pgrade0000test", GID)


def _any(msg: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(msg)  # type: ignore[arg-type]
    return packed


def test_every_field_of_any_kind_is_tolerated() -> None:
    # metadata of a kind not read, error details of several kinds, a response that is not a
    # NodeGroup, nanosecond times: what a real ListOperations of a cluster may hold
    unknown = any_pb2.Any(type_url="type.googleapis.com/yandex.cloud.k8s.v1.SomeNewMetadata",
                          value=b"\x0a\x03abc\x12\x01x")
    failed = operation_pb2.Operation(
        id="catop0000000000000a1", description="Upgrade cluster",
        created_at=timestamp_pb2.Timestamp(seconds=1764633600, nanos=542_000_000),
        created_by="ajelprpohp7r8ddtcosr",
        modified_at=timestamp_pb2.Timestamp(seconds=1764634200, nanos=1), done=True,
        metadata=unknown,
        error=status_pb2.Status(code=13, message="internal error", details=[
            _any(error_details_pb2.RequestInfo(request_id="f1c0e5a2", serving_data="x")),
            _any(error_details_pb2.DebugInfo(detail="trace")),
            any_pb2.Any(type_url="type.googleapis.com/yandex.cloud.Unknown", value=b"\xff")]))
    state = operation_state(failed)
    assert (state.id, state.description, state.done, state.error_code, state.error_code_name,
            state.error_message, state.node_group_id, state.created_by, state.result) == (
        "catop0000000000000a1", "Upgrade cluster", True, 13, "INTERNAL", "internal error",
        None, "ajelprpohp7r8ddtcosr", None)
    assert (state.created_at, state.modified_at) == (1764633600.542, 1764634200.000000001)
    done = operation_pb2.Operation(
        id="catop0000000000000a2", done=True,
        metadata=_any(cluster_service_pb2.UpdateClusterMetadata(cluster_id=CLUSTER)),
        response=_any(cluster_pb2.Cluster(id=CLUSTER)))
    state = operation_state(done)
    assert (state.failed, state.node_group_id, state.result, state.created_by) == (
        False, None, None, "")
