"""The fake cloud's objects as Yandex Cloud API messages (the SDK's protobuf classes).

Pure mapping: world values in, messages out; the servicers decide what to answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from google.protobuf import any_pb2, timestamp_pb2, wrappers_pb2
from google.rpc import error_details_pb2, status_pb2
from yandex.cloud.endpoint import api_endpoint_pb2
from yandex.cloud.k8s.v1 import cluster_pb2, node_group_pb2, node_pb2, version_pb2
from yandex.cloud.k8s.v1 import cluster_service_pb2 as cluster_svc
from yandex.cloud.k8s.v1 import node_group_service_pb2 as ng_svc
from yandex.cloud.operation import operation_pb2
from yandex.cloud.quotamanager.v1 import quota_limit_service_pb2 as quota_svc
from yandex.cloud.resourcemanager.v1 import folder_pb2

from ngupgrade.core.model import FixedScale
from ngupgrade.testing.objects import FakeGroup, FakeOperation

EPOCH = 1_800_000_000
"""Wall-clock seconds of the fake's time 0 (operation timestamps are EPOCH + clock time)."""
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
SERVICE_IDS = ("managed-kubernetes", "operation", "resource-manager", "quota-manager",
               "endpoint", "iam", "compute", "vpc")
"""Services ApiEndpointService.List names: all of them on the fake's one address."""

T = TypeVar("T")


def group_message(g: FakeGroup, status: str) -> Any:
    """``k8s.v1.NodeGroup``: id, names, ``status``, version, deploy policy (absent when unset,
    as the API leaves it) and scale policy."""
    msg = node_group_pb2.NodeGroup(
        id=g.id, cluster_id=g.cluster_id, name=g.name,
        status=node_group_pb2.NodeGroup.Status.Value(status),
        node_version=g.version,
        version_info=version_pb2.VersionInfo(current_version=g.version),
    )
    if g.policy is not None:
        msg.deploy_policy.CopyFrom(node_group_pb2.DeployPolicy(
            max_expansion=g.policy.max_expansion, max_unavailable=g.policy.max_unavailable))
    if isinstance(g.scale, FixedScale):
        msg.scale_policy.fixed_scale.size = g.scale.size
    else:
        msg.scale_policy.auto_scale.min_size = g.scale.min
        msg.scale_policy.auto_scale.max_size = g.scale.max
        msg.scale_policy.auto_scale.initial_size = g.scale.initial
    return msg


def node_messages(g: FakeGroup) -> list[Any]:
    """``k8s.v1.Node`` of each member: its status (READY, NOT_READY, STOPPED), instance id,
    the Kubernetes ``Ready`` condition, cordoned ones tainted
    ``node.kubernetes.io/unschedulable:NoSchedule`` (what ``kubectl cordon`` sets), and the
    volumes attached."""
    out = []
    for n in g.members:
        taints = [node_pb2.Taint(key=UNSCHEDULABLE_TAINT,
                                 effect=node_pb2.Taint.Effect.NO_SCHEDULE)] if n.drained else []
        status = (node_pb2.Node.Status.STOPPED if n.stopped
                  else node_pb2.Node.Status.READY if n.ready else node_pb2.Node.Status.NOT_READY)
        ready = node_pb2.Condition(
            type="Ready", status="True" if n.ready and not n.stopped else "False",
            message="kubelet is posting ready status" if n.ready and not n.stopped
            else "container runtime network not ready: cni plugin not initialized")
        out.append(node_pb2.Node(
            status=status,
            cloud_status=node_pb2.Node.CloudStatus(
                id=n.instance_id, status="STOPPED" if n.stopped else "RUNNING"),
            kubernetes_status=node_pb2.Node.KubernetesStatus(
                id=node_name(g, n.instance_id), taints=taints, conditions=[ready],
                attached_volumes=[node_pb2.AttachedVolume(
                    driver_name="disk-csi-driver.mks.ycloud.io", volume_handle=v)
                    for v in n.volumes]),
        ))
    return out


def node_name(g: FakeGroup, instance_id: str) -> str:
    """The Kubernetes node name of a fake node: ``<group name>-<last 4 of the instance id>``
    (the fake kube API names its nodes the same way)."""
    return f"{g.name}-{instance_id[-4:]}"


def operation_message(op: FakeOperation, group: Any | None) -> Any:
    """``operation.Operation`` with every field the API fills (yandex-cloud/cloudapi
    ``yandex/cloud/operation/operation.proto``): id, description, created_at, created_by (the
    IAM subject that started it), modified_at, done, metadata (``UpdateNodeGroupMetadata``
    naming the group; a cluster-wide blocker's ``UpdateClusterMetadata``), and once done its
    error (google.rpc.Status with a ``google.rpc.RequestInfo`` in ``details``, so a reader
    meets details at all) or ``group`` (a NodeGroup message) as its response."""
    msg = operation_pb2.Operation(
        id=op.id, description=op.description, done=op.done, created_by=op.created_by,
        created_at=timestamp(op.created), modified_at=timestamp(op.finished if op.done
                                                                else op.created),
    )
    meta = any_pb2.Any()
    if op.group_id:
        meta.Pack(ng_svc.UpdateNodeGroupMetadata(node_group_id=op.group_id))
        msg.metadata.CopyFrom(meta)
    elif op.cluster_id:
        meta.Pack(cluster_svc.UpdateClusterMetadata(cluster_id=op.cluster_id))
        msg.metadata.CopyFrom(meta)
    if op.done:
        if op.error is not None:
            detail = any_pb2.Any()
            detail.Pack(error_details_pb2.RequestInfo(request_id=f"{op.id}-request"))
            msg.error.CopyFrom(status_pb2.Status(code=op.error[0], message=op.error[1],
                                                 details=[detail]))
        elif group is not None:
            resp = any_pb2.Any()
            resp.Pack(group)
            msg.response.CopyFrom(resp)
    return msg


def cluster_message(cluster_id: str, c: dict[str, str]) -> Any:
    """``k8s.v1.Cluster``: folder, status and master version."""
    return cluster_pb2.Cluster(
        id=cluster_id, folder_id=c.get("folder_id", ""),
        status=cluster_pb2.Cluster.Status.Value(c.get("status", "RUNNING").upper()),
        master=cluster_pb2.Master(version=c.get("master_version", "")))


def folder_message(folder_id: str, cloud_id: str) -> Any:
    """``resourcemanager.v1.Folder`` (ACTIVE) of ``cloud_id``."""
    return folder_pb2.Folder(id=folder_id, cloud_id=cloud_id, name=folder_id,
                             status=folder_pb2.Folder.Status.ACTIVE)


def quota_message(quota_id: str, limit: float | None, usage: float | None) -> Any:
    """``quotamanager.v1.QuotaLimit``; an unset limit or usage is left out."""
    q = quota_svc.QuotaLimit(quota_id=quota_id)
    if limit is not None:
        q.limit.CopyFrom(wrappers_pb2.DoubleValue(value=limit))
    if usage is not None:
        q.usage.CopyFrom(wrappers_pb2.DoubleValue(value=usage))
    return q


def endpoint_messages(address: str) -> list[Any]:
    """``endpoint.ApiEndpoint`` of every service, all at ``address``."""
    return [api_endpoint_pb2.ApiEndpoint(id=sid, address=address) for sid in SERVICE_IDS]


def page(items: Sequence[T], page_size: int, token: str) -> tuple[list[T], str]:
    """One page of a List answer: ``page_token`` is the offset; 100 per page by default."""
    start = int(token) if token else 0
    end = start + (page_size or 100)
    return list(items[start:end]), (str(end) if end < len(items) else "")


def timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    """A protobuf Timestamp of fake time ``seconds`` (EPOCH + seconds)."""
    ts = timestamp_pb2.Timestamp()
    whole = EPOCH + seconds
    ts.seconds = int(whole)
    ts.nanos = int((whole - int(whole)) * 1e9)
    return ts
