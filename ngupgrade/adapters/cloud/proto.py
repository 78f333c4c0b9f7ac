"""Protobuf to plain values and back: the one place that knows the SDK's message shapes.

``Get`` answers become :class:`~ngupgrade.adapters.cloud.types.LiveNodeGroup`,
:class:`~ngupgrade.adapters.cloud.types.LiveCluster`, nodes
:class:`~ngupgrade.adapters.cloud.types.LiveNode`, quotas
:class:`~ngupgrade.core.model.QuotaLimit`, operations
:class:`~ngupgrade.adapters.cloud.types.OperationState`; a change becomes its ``update_mask``
paths and its ``UpdateNodeGroupRequest``. The SDK modules are imported inside the functions
(commands without a cloud never pay).
"""

from __future__ import annotations

from typing import Any

from ngupgrade.adapters.cloud.types import LiveCluster, LiveNode, LiveNodeGroup, OperationState
from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale, QuotaLimit, ScalePolicy

POLICY_PATHS = ("deploy_policy.max_expansion", "deploy_policy.max_unavailable")
VERSION_PATH = "version"


def mask_paths(current: DeployPolicy | None, policy: DeployPolicy | None, version: str | None,
               latest_revision: bool) -> list[str]:
    """The ``update_mask`` paths for a change: only what differs from ``current``.

    ``current`` None (policy unset in the API) compares against nothing: both policy paths go.
    """
    paths: list[str] = []
    if policy is not None:
        if current is None or current.max_expansion != policy.max_expansion:
            paths.append(POLICY_PATHS[0])
        if current is None or current.max_unavailable != policy.max_unavailable:
            paths.append(POLICY_PATHS[1])
    if version is not None or latest_revision:
        paths.append(VERSION_PATH)
    return paths


def update_request(node_group_id: str, paths: list[str], policy: DeployPolicy | None,
                   version: str | None, latest_revision: bool) -> Any:
    """The ``UpdateNodeGroupRequest`` for a change whose mask is ``paths`` (:func:`mask_paths`).

    The policy goes in whole (the mask says which of its fields count); ``version`` wins over
    ``latest_revision``.
    """
    from google.protobuf import field_mask_pb2
    from yandex.cloud.k8s.v1 import node_group_pb2
    from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc

    request = svc.UpdateNodeGroupRequest(
        node_group_id=node_group_id, update_mask=field_mask_pb2.FieldMask(paths=paths))
    if policy is not None:
        request.deploy_policy.CopyFrom(node_group_pb2.DeployPolicy(
            max_expansion=policy.max_expansion, max_unavailable=policy.max_unavailable))
    if version is not None:
        request.version.version = version
    elif latest_revision:
        request.version.latest_revision = True
    return request


def live_group(msg: Any) -> LiveNodeGroup:
    """A ``node_group_pb2.NodeGroup`` as :class:`LiveNodeGroup` (no deploy_policy: None)."""
    scale: ScalePolicy | None = None
    if msg.HasField("scale_policy"):
        sp = msg.scale_policy
        if sp.HasField("auto_scale"):
            scale = AutoScale(min=sp.auto_scale.min_size, max=sp.auto_scale.max_size,
                              initial=sp.auto_scale.initial_size)
        elif sp.HasField("fixed_scale"):
            scale = FixedScale(size=sp.fixed_scale.size)
    policy = None
    if msg.HasField("deploy_policy"):
        policy = DeployPolicy(msg.deploy_policy.max_expansion, msg.deploy_policy.max_unavailable)
    return LiveNodeGroup(
        id=msg.id, name=msg.name, cluster_id=msg.cluster_id,
        status=type(msg).Status.Name(msg.status),
        version=msg.version_info.current_version or msg.node_version,
        policy=policy, scale=scale,
        new_revision_available=msg.version_info.new_revision_available,
    )


def live_node(node: Any) -> LiveNode:
    """A ``node_group_service_pb2.Node`` (``ListNodes``) as :class:`LiveNode`: status, cordon
    (the ``node.kubernetes.io/unschedulable`` taint), the ``Ready`` condition (None when the
    node reports none; its message only when not ready) and the attached volume handles."""
    k8s = node.kubernetes_status
    ready = next((c for c in k8s.conditions if c.type == "Ready"), None)
    return LiveNode(
        instance_id=node.cloud_status.id,
        status=type(node).Status.Name(node.status),
        kubernetes_node_id=k8s.id,
        unschedulable=any(t.key == "node.kubernetes.io/unschedulable" for t in k8s.taints),
        ready=None if ready is None else ready.status == "True",
        ready_message="" if ready is None or ready.status == "True" else ready.message,
        volumes=tuple(v.volume_handle for v in k8s.attached_volumes),
    )


def live_cluster(msg: Any) -> LiveCluster:
    """A ``cluster_pb2.Cluster`` as :class:`LiveCluster`: folder id, status, master version."""
    return LiveCluster(id=msg.id, folder_id=msg.folder_id,
                       status=type(msg).Status.Name(msg.status),
                       master_version=msg.master.version)


def quota_limit(q: Any) -> QuotaLimit:
    """A ``quota_limit_service_pb2.QuotaLimit`` as :class:`QuotaLimit`; an unset ``limit`` or
    ``usage`` wrapper stays None (unknown, never unlimited)."""
    return QuotaLimit(
        quota_id=q.quota_id,
        limit=q.limit.value if q.HasField("limit") else None,
        usage=q.usage.value if q.HasField("usage") else None,
    )


def operation_state(op: Any) -> OperationState:
    """An ``operation_pb2.Operation`` as :class:`OperationState`."""
    from google.rpc import code_pb2

    code = code_name = message = None
    if op.done and op.WhichOneof("result") == "error":
        code = int(op.error.code)
        try:
            code_name = code_pb2.Code.Name(code)
        except ValueError:
            code_name = str(code)
        message = op.error.message
    group_id = None
    if op.HasField("metadata") and "k8s.v1." in op.metadata.type_url \
            and op.metadata.type_url.endswith("NodeGroupMetadata"):
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        try:
            group_id = svc.UpdateNodeGroupMetadata.FromString(op.metadata.value).node_group_id
        except Exception:  # a metadata shape we do not know: leave it out
            group_id = None
    result = None
    if op.done and op.WhichOneof("result") == "response" \
            and op.response.type_url.endswith("k8s.v1.NodeGroup"):
        from yandex.cloud.k8s.v1 import node_group_pb2

        try:
            result = live_group(node_group_pb2.NodeGroup.FromString(op.response.value))
        except Exception:  # a response we cannot read says nothing: leave it out
            result = None
    return OperationState(
        id=op.id, description=op.description, done=op.done, error_code=code,
        error_code_name=code_name, error_message=message, node_group_id=group_id or None,
        created_at=op.created_at.seconds + op.created_at.nanos / 1e9,
        modified_at=op.modified_at.seconds + op.modified_at.nanos / 1e9, result=result,
        created_by=op.created_by,
    )
