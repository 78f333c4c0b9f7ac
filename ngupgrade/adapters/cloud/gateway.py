"""The cloud gateway: the one adapter over the ``yandexcloud`` SDK (``yandex-cloud/python-sdk``).

Use cases call :class:`CloudGateway` and get plain values (:mod:`ngupgrade.adapters.cloud.types`)
or the project's errors, never protobuf messages or ``grpc.RpcError``:

* reads and polls retry the transient codes (:mod:`ngupgrade.adapters.cloud.retry`);
* any other RPC failure becomes :class:`~ngupgrade.core.errors.CloudApiError` (exit 4) with the
  gRPC code, the message and the request id (``x-request-id`` from the answer, else the
  ``x-client-request-id`` we sent);
* ``Update`` is bare: one call, never retried, returning an operation handle; any failure is a
  :class:`~ngupgrade.core.errors.CloudApiError` with its gRPC code. Recovering from an
  ambiguous failure and waiting out another operation in progress are decisions, made in one
  place above the adapters (:mod:`ngupgrade.upgrade.mutation`); nothing here lists operations
  or waits inside a mutation;
* every Update carries an ``update_mask`` with only the changed paths
  (``deploy_policy.max_expansion``, ``deploy_policy.max_unavailable``, ``version``).

This module says which call answers which question; how a call is made (stubs, deadline,
request ids, retry, translation) is :mod:`ngupgrade.adapters.cloud.rpc`, and what the messages
look like is :mod:`ngupgrade.adapters.cloud.proto`.

The SDK is imported lazily (:func:`open_gateway`), so commands that never talk to a cloud
do not pay for it (bench/).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ngupgrade.adapters.cloud.proto import (
    live_cluster,
    live_group,
    live_node,
    mask_paths,
    operation_state,
    quota_limit,
    update_request,
)
from ngupgrade.adapters.cloud.retry import RetryPolicy
from ngupgrade.adapters.cloud.rpc import DEFAULT_RETRY, Rpc, StubFactory
from ngupgrade.adapters.cloud.types import (
    LiveCluster,
    LiveNode,
    LiveNodeGroup,
    OperationRef,
    OperationState,
    newest,
)
from ngupgrade.core.errors import UsageError
from ngupgrade.core.model import DeployPolicy, QuotaLimit

log = logging.getLogger("ngupgrade.adapters.cloud")


class EndpointSettings(Protocol):
    """The part of ``ngupgrade.app.settings.Settings`` the gateway reads (no import upward)."""

    endpoint: str | None
    insecure: bool
    ca_file: str | None


class CloudGateway:
    """Node groups, clusters, folders, quotas and operations of Yandex Cloud, as plain values.

    Build one with :func:`open_gateway`; tests build it over the fake cloud the same way.
    ``call_timeout`` (seconds) is the deadline of every single RPC (the SDK sets none).
    ``sleep`` drives the retry backoff (injected in tests); ``clock`` is kept with it so a
    caller can hand the gateway the same time source as everything else.
    """

    def __init__(
        self,
        stubs: StubFactory,
        *,
        call_timeout: float = 30.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        metadata: Sequence[tuple[str, str]] = (),
        close: Callable[[], None] | None = None,
    ) -> None:
        self._rpc = Rpc(stubs, call_timeout=call_timeout, retry=retry, sleep=sleep,
                        metadata=metadata)
        self.clock = clock
        self._close = close

    @property
    def call_timeout(self) -> float:
        """The deadline of every single RPC, seconds."""
        return self._rpc.call_timeout

    @property
    def retry(self) -> RetryPolicy:
        """The retry policy of reads and polls."""
        return self._rpc.retry

    @property
    def sleep(self) -> Callable[[float], None]:
        """What the retry backoff sleeps with."""
        return self._rpc.sleep

    def close(self) -> None:
        """Close the channels (the gateway is unusable afterwards)."""
        if self._close is not None:
            self._close()

    def __enter__(self) -> CloudGateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reads ------------------------------------------------------------------------------

    def get_node_group(self, node_group_id: str) -> LiveNodeGroup:
        """``NodeGroupService.Get``. Raises CloudApiError (e.g. NOT_FOUND)."""
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as grpc_svc

        return live_group(self._rpc.read(
            grpc_svc.NodeGroupServiceStub, "Get",
            svc.GetNodeGroupRequest(node_group_id=node_group_id),
            what=f"NodeGroupService.Get({node_group_id})"))

    def list_nodes(self, node_group_id: str) -> list[LiveNode]:
        """``NodeGroupService.ListNodes``, every page: status, cordon, the ``Ready`` condition
        and attached volumes of each node (one call per 1000 nodes)."""
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as grpc_svc

        return [live_node(node) for node in self._rpc.listed(
            grpc_svc.NodeGroupServiceStub, "ListNodes", svc.ListNodeGroupNodesRequest,
            {"node_group_id": node_group_id}, "nodes",
            what=f"NodeGroupService.ListNodes({node_group_id})")]

    def get_cluster(self, cluster_id: str) -> LiveCluster:
        """``ClusterService.Get``: folder id, status, master version."""
        from yandex.cloud.k8s.v1 import cluster_service_pb2 as svc
        from yandex.cloud.k8s.v1 import cluster_service_pb2_grpc as grpc_svc

        return live_cluster(self._rpc.read(
            grpc_svc.ClusterServiceStub, "Get", svc.GetClusterRequest(cluster_id=cluster_id),
            what=f"ClusterService.Get({cluster_id})"))

    def get_folder_cloud_id(self, folder_id: str) -> str:
        """``FolderService.Get(folder).cloud_id`` (quotas are per cloud;
        docs/quota-preflight.md)."""
        from yandex.cloud.resourcemanager.v1 import folder_service_pb2 as svc
        from yandex.cloud.resourcemanager.v1 import folder_service_pb2_grpc as grpc_svc

        msg = self._rpc.read(grpc_svc.FolderServiceStub, "Get",
                             svc.GetFolderRequest(folder_id=folder_id),
                             what=f"FolderService.Get({folder_id})")
        return str(msg.cloud_id)

    def list_quota_limits(self, cloud_id: str, service: str) -> list[QuotaLimit]:
        """``QuotaLimitService.List`` for a cloud and service (``compute``, ``vpc``...), all pages.

        An unset ``limit``/``usage`` wrapper stays None (unknown, never unlimited).
        """
        from yandex.cloud.quotamanager.v1 import quota_limit_service_pb2 as svc
        from yandex.cloud.quotamanager.v1 import quota_limit_service_pb2_grpc as grpc_svc
        from yandex.cloud.quotamanager.v1 import resource_pb2

        resource = resource_pb2.Resource(id=cloud_id, type="resource-manager.cloud")
        return [quota_limit(q) for q in self._rpc.listed(
            grpc_svc.QuotaLimitServiceStub, "List", svc.ListQuotaLimitsRequest,
            {"resource": resource, "service": service}, "quota_limits",
            what=f"QuotaLimitService.List({cloud_id}, {service})")]

    def get_operation(self, operation_id: str) -> OperationState:
        """``OperationService.Get`` (a poll: transient failures are retried)."""
        from yandex.cloud.operation import operation_service_pb2 as svc
        from yandex.cloud.operation import operation_service_pb2_grpc as grpc_svc

        return operation_state(self._rpc.read(
            grpc_svc.OperationServiceStub, "Get",
            svc.GetOperationRequest(operation_id=operation_id),
            what=f"OperationService.Get({operation_id})"))

    def list_operations(self, node_group_id: str) -> list[OperationState]:
        """``NodeGroupService.ListOperations``, all pages, as the API orders them."""
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as grpc_svc

        return [operation_state(op) for op in self._rpc.listed(
            grpc_svc.NodeGroupServiceStub, "ListOperations", svc.ListNodeGroupOperationsRequest,
            {"node_group_id": node_group_id}, "operations",
            what=f"NodeGroupService.ListOperations({node_group_id})")]

    def list_cluster_operations(self, cluster_id: str) -> list[OperationState]:
        """``ClusterService.ListOperations``, all pages (master upgrades and the like)."""
        from yandex.cloud.k8s.v1 import cluster_service_pb2 as svc
        from yandex.cloud.k8s.v1 import cluster_service_pb2_grpc as grpc_svc

        return [operation_state(op) for op in self._rpc.listed(
            grpc_svc.ClusterServiceStub, "ListOperations", svc.ListClusterOperationsRequest,
            {"cluster_id": cluster_id}, "operations",
            what=f"ClusterService.ListOperations({cluster_id})")]

    def list_cluster_node_groups(self, cluster_id: str) -> list[LiveNodeGroup]:
        """``ClusterService.ListNodeGroups``, all pages: every node group of the cluster."""
        from yandex.cloud.k8s.v1 import cluster_service_pb2 as svc
        from yandex.cloud.k8s.v1 import cluster_service_pb2_grpc as grpc_svc

        return [live_group(g) for g in self._rpc.listed(
            grpc_svc.ClusterServiceStub, "ListNodeGroups", svc.ListClusterNodeGroupsRequest,
            {"cluster_id": cluster_id}, "node_groups",
            what=f"ClusterService.ListNodeGroups({cluster_id})")]

    def running_operation(self, node_group_id: str) -> OperationState | None:
        """The newest unfinished operation on the group, or None (resume by group,
        yandex-cloud/python-sdk ``_operation_waiter.py``)."""
        return newest(op for op in self.list_operations(node_group_id) if not op.done)

    # -- mutation ---------------------------------------------------------------------------

    def update_node_group(
        self,
        node_group_id: str,
        *,
        policy: DeployPolicy | None = None,
        version: str | None = None,
        latest_revision: bool = False,
        current: LiveNodeGroup | None = None,
    ) -> OperationRef:
        """``NodeGroupService.Update`` with a mask of only the changed paths; returns the handle.

        ``current`` is the group as last read (read now when None and a policy is given); a
        policy value equal to the current one is left out of the mask. One call, never
        retried: after any failure the caller decides (:mod:`ngupgrade.upgrade.mutation`).
        Wait for the operation with :mod:`ngupgrade.adapters.cloud.waiter`.

        Raises:
            UsageError: nothing would change.
            CloudApiError: the call failed; ``code`` is the gRPC code name (DEADLINE_EXCEEDED
                and UNAVAILABLE leave it unknown whether the cloud applied it).
        """
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as grpc_svc

        if current is None and policy is not None:
            current = self.get_node_group(node_group_id)
        paths = mask_paths(current.policy if current else None, policy, version, latest_revision)
        if not paths:
            raise UsageError(f"node group {node_group_id}: nothing to change")
        request = update_request(node_group_id, paths, policy, version, latest_revision)
        op = self._rpc.once(grpc_svc.NodeGroupServiceStub, "Update", request,
                            what=f"NodeGroupService.Update({node_group_id}, "
                                 f"mask={','.join(paths)})")
        state = operation_state(op)
        return OperationRef(state.id, node_group_id, state.description)


def open_gateway(settings: EndpointSettings, *, environ: Mapping[str, str] | None = None,
                 **kwargs: Any) -> CloudGateway:
    """A gateway for the endpoint and credentials of this invocation (imports the SDK).

    * no ``--endpoint``: the public cloud, endpoints discovered from ``api.cloud.yandex.net``;
    * ``--endpoint HOST:PORT`` with TLS: discovery through that endpoint (``--ca-file``);
    * ``--endpoint 127.0.0.1:PORT --insecure``: every service on that address in plain text
      (the fake cloud). The SDK attaches no credentials there, so an IAM token from
      ``YC_IAM_TOKEN`` is sent as ``authorization`` metadata by the gateway itself.

    ``kwargs`` go to :class:`CloudGateway` (timeouts, policies, clock, sleep).

    Raises:
        UsageError: ``--insecure`` with a non-loopback endpoint. BadInput: unreadable key/CA.
    """
    from ngupgrade.adapters.cloud.auth import resolve_credentials, resolve_transport

    env = os.environ if environ is None else environ
    endpoint = settings.endpoint or env.get("YC_ENDPOINT") or None
    transport = resolve_transport(endpoint, bool(settings.insecure), settings.ca_file)
    creds = resolve_credentials(env)
    # gRPC core logs transport failures (TLS, DNS) to stderr itself, before the error that
    # ngupgrade turns into one line; users who want those lines set GRPC_VERBOSITY.
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    import yandexcloud

    sdk_kwargs: dict[str, Any] = dict(creds.sdk_kwargs())
    if transport.root_certificates is not None:
        sdk_kwargs["root_certificates"] = transport.root_certificates
    if transport.endpoint and not transport.insecure:
        sdk_kwargs["endpoint"] = transport.endpoint
    sdk = yandexcloud.SDK(user_agent="ngupgrade", **sdk_kwargs)
    metadata: list[tuple[str, str]] = []
    if transport.insecure:
        ep = transport.endpoint

        def stubs(ctor: Any) -> Any:
            return sdk.client(ctor, endpoint=ep, insecure=True)

        bearer = creds.bearer()
        if bearer:
            metadata.append(("authorization", f"Bearer {bearer}"))
    else:
        def stubs(ctor: Any) -> Any:
            return sdk.client(ctor)

    def close() -> None:
        channels = getattr(getattr(sdk, "_channels", None), "_channels", {})
        for channel in list(channels.values()):
            channel.close()
        channels.clear()

    log.debug("cloud gateway: endpoint %s, %s, credentials %s", endpoint or "public",
              "plain text" if transport.insecure else "TLS", creds)
    return CloudGateway(stubs, metadata=metadata, close=close, **kwargs)
