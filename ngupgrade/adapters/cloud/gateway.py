"""The cloud gateway: the one adapter over the ``yandexcloud`` SDK (reference section 3).

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

The SDK is imported lazily (:func:`open_gateway`), so commands that never talk to a cloud
do not pay for it (DESIGN.md section 7).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from ngupgrade.adapters.cloud.proto import live_group, mask_paths, operation_state
from ngupgrade.adapters.cloud.retry import RetryPolicy, call_with_retry, rpc_code_name
from ngupgrade.adapters.cloud.types import (
    LiveCluster,
    LiveNode,
    LiveNodeGroup,
    OperationRef,
    OperationState,
    newest,
)
from ngupgrade.core.errors import CloudApiError, UsageError
from ngupgrade.core.model import DeployPolicy, QuotaLimit

log = logging.getLogger("ngupgrade.adapters.cloud")

class EndpointSettings(Protocol):
    """The part of ``ngupgrade.app.settings.Settings`` the gateway reads (no import upward)."""

    endpoint: str | None
    insecure: bool
    ca_file: str | None


StubFactory = Callable[[Any], Any]
"""Gives a ready stub for a ``yandex.cloud.*_pb2_grpc.*Stub`` class (wraps ``sdk.client``)."""

DEFAULT_RETRY = RetryPolicy()

_HINTS = {
    "UNAUTHENTICATED": "set YC_IAM_TOKEN, YC_TOKEN or YC_SERVICE_ACCOUNT_KEY_FILE "
                       "(see docs/cloud.md)",
    "PERMISSION_DENIED": "the account needs k8s.viewer to read and k8s.editor to change node "
                         "groups, resource-manager.viewer for folders, quota-manager.viewer "
                         "for quotas",
    "NOT_FOUND": "check the id; the state may be older than the cloud",
}


def translate(err: BaseException, what: str, client_request_id: str | None = None
              ) -> CloudApiError:
    """A ``grpc.RpcError`` as a :class:`CloudApiError` naming the call, code and request id."""
    code = rpc_code_name(err) or "UNKNOWN"
    details = getattr(err, "details", None)
    message = (details() if callable(details) else None) or str(err)
    request_id = None
    for getter in ("trailing_metadata", "initial_metadata"):
        fn = getattr(err, getter, None)
        try:
            pairs = fn() if callable(fn) else None
        except Exception:
            pairs = None
        for key, value in pairs or ():
            if key == "x-request-id":
                request_id = str(value)
        if request_id:
            break
    return CloudApiError(f"{what}: {message}", code=code,
                         request_id=request_id or client_request_id, hint=_HINTS.get(code))


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
        self._stubs = stubs
        self._cache: dict[Any, Any] = {}
        # The preflight calls the gateway from a thread pool; the SDK's channel cache and
        # endpoint discovery are not thread-safe, so stubs are made under a lock.
        self._cache_lock = threading.Lock()
        self.call_timeout = call_timeout
        self.retry = retry
        self.clock = clock
        self.sleep = sleep
        self._metadata = tuple(metadata)
        self._close = close

    # -- plumbing ---------------------------------------------------------------------------

    def _stub(self, ctor: Any) -> Any:
        stub = self._cache.get(ctor)
        if stub is not None:
            return stub
        with self._cache_lock:
            stub = self._cache.get(ctor)
            if stub is not None:
                return stub
            try:
                stub = self._cache[ctor] = self._stubs(ctor)
            except Exception as err:
                # The SDK discovers service endpoints (ApiEndpointService.List) while making
                # the first client; a failure there is a transport error like any other.
                if rpc_code_name(err) is None:
                    raise
                api = translate(err, "API endpoint discovery")
                raise CloudApiError(
                    api.message, hint="check the network and credentials, or pass --endpoint "
                                      "HOST:PORT (the fake cloud: --endpoint 127.0.0.1:PORT "
                                      "--insecure)") from err
        return stub

    def _call(self, ctor: Any, method: str, request: Any, *, what: str) -> Any:
        """A read, retried on transient codes (mutations go through update_node_group)."""
        fn = getattr(self._stub(ctor), method)
        last_id: list[str] = []

        def once() -> Any:
            rid = str(uuid.uuid4())
            last_id.append(rid)
            md = (*self._metadata, ("x-client-request-id", rid))
            return fn(request, timeout=self.call_timeout, metadata=md)

        try:
            return call_with_retry(once, what=what, policy=self.retry, sleep=self.sleep)
        except Exception as err:
            if rpc_code_name(err) is None:
                raise
            raise translate(err, what, last_id[-1] if last_id else None) from err

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

        msg = self._call(grpc_svc.NodeGroupServiceStub, "Get",
                         svc.GetNodeGroupRequest(node_group_id=node_group_id),
                         what=f"NodeGroupService.Get({node_group_id})")
        return live_group(msg)

    def list_nodes(self, node_group_id: str) -> list[LiveNode]:
        """``NodeGroupService.ListNodes``, every page: status, cordon, the ``Ready`` condition
        and attached volumes of each node (one call per 1000 nodes)."""
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as grpc_svc

        nodes: list[LiveNode] = []
        for page in self._pages(lambda token: self._call(
                grpc_svc.NodeGroupServiceStub, "ListNodes",
                svc.ListNodeGroupNodesRequest(node_group_id=node_group_id, page_size=1000,
                                              page_token=token),
                what=f"NodeGroupService.ListNodes({node_group_id})")):
            for node in page.nodes:
                k8s = node.kubernetes_status
                ready = next((c for c in k8s.conditions if c.type == "Ready"), None)
                nodes.append(LiveNode(
                    instance_id=node.cloud_status.id,
                    status=type(node).Status.Name(node.status),
                    kubernetes_node_id=k8s.id,
                    unschedulable=any(t.key == "node.kubernetes.io/unschedulable"
                                      for t in k8s.taints),
                    ready=None if ready is None else ready.status == "True",
                    ready_message="" if ready is None or ready.status == "True"
                    else ready.message,
                    volumes=tuple(v.volume_handle for v in k8s.attached_volumes),
                ))
        return nodes

    def get_cluster(self, cluster_id: str) -> LiveCluster:
        """``ClusterService.Get``: folder id, status, master version."""
        from yandex.cloud.k8s.v1 import cluster_service_pb2 as svc
        from yandex.cloud.k8s.v1 import cluster_service_pb2_grpc as grpc_svc

        msg = self._call(grpc_svc.ClusterServiceStub, "Get",
                         svc.GetClusterRequest(cluster_id=cluster_id),
                         what=f"ClusterService.Get({cluster_id})")
        return LiveCluster(id=msg.id, folder_id=msg.folder_id,
                           status=type(msg).Status.Name(msg.status),
                           master_version=msg.master.version)

    def get_folder_cloud_id(self, folder_id: str) -> str:
        """``FolderService.Get(folder).cloud_id`` (quotas are per cloud; DESIGN.md section 4)."""
        from yandex.cloud.resourcemanager.v1 import folder_service_pb2 as svc
        from yandex.cloud.resourcemanager.v1 import folder_service_pb2_grpc as grpc_svc

        msg = self._call(grpc_svc.FolderServiceStub, "Get",
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
        out: list[QuotaLimit] = []
        for page in self._pages(lambda token: self._call(
                grpc_svc.QuotaLimitServiceStub, "List",
                svc.ListQuotaLimitsRequest(resource=resource, service=service, page_size=1000,
                                           page_token=token),
                what=f"QuotaLimitService.List({cloud_id}, {service})")):
            for q in page.quota_limits:
                out.append(QuotaLimit(
                    quota_id=q.quota_id,
                    limit=q.limit.value if q.HasField("limit") else None,
                    usage=q.usage.value if q.HasField("usage") else None,
                ))
        return out

    def get_operation(self, operation_id: str) -> OperationState:
        """``OperationService.Get`` (a poll: transient failures are retried)."""
        from yandex.cloud.operation import operation_service_pb2 as svc
        from yandex.cloud.operation import operation_service_pb2_grpc as grpc_svc

        msg = self._call(grpc_svc.OperationServiceStub, "Get",
                         svc.GetOperationRequest(operation_id=operation_id),
                         what=f"OperationService.Get({operation_id})")
        return operation_state(msg)

    def list_operations(self, node_group_id: str) -> list[OperationState]:
        """``NodeGroupService.ListOperations``, all pages, as the API orders them."""
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as grpc_svc

        out: list[OperationState] = []
        for page in self._pages(lambda token: self._call(
                grpc_svc.NodeGroupServiceStub, "ListOperations",
                svc.ListNodeGroupOperationsRequest(node_group_id=node_group_id, page_size=1000,
                                                   page_token=token),
                what=f"NodeGroupService.ListOperations({node_group_id})")):
            out.extend(operation_state(op) for op in page.operations)
        return out

    def list_cluster_operations(self, cluster_id: str) -> list[OperationState]:
        """``ClusterService.ListOperations``, all pages (master upgrades and the like)."""
        from yandex.cloud.k8s.v1 import cluster_service_pb2 as svc
        from yandex.cloud.k8s.v1 import cluster_service_pb2_grpc as grpc_svc

        out: list[OperationState] = []
        for page in self._pages(lambda token: self._call(
                grpc_svc.ClusterServiceStub, "ListOperations",
                svc.ListClusterOperationsRequest(cluster_id=cluster_id, page_size=1000,
                                                 page_token=token),
                what=f"ClusterService.ListOperations({cluster_id})")):
            out.extend(operation_state(op) for op in page.operations)
        return out

    def running_operation(self, node_group_id: str) -> OperationState | None:
        """The newest unfinished operation on the group, or None (resume by group, C11)."""
        return newest(op for op in self.list_operations(node_group_id) if not op.done)

    @staticmethod
    def _pages(fetch: Callable[[str], Any], limit: int = 1000) -> Any:
        token = ""
        for _ in range(limit):
            page = fetch(token)
            yield page
            token = page.next_page_token
            if not token:
                return
        raise CloudApiError(f"more than {limit} pages; giving up")

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
        from google.protobuf import field_mask_pb2
        from yandex.cloud.k8s.v1 import node_group_pb2
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as grpc_svc

        if current is None and policy is not None:
            current = self.get_node_group(node_group_id)
        paths = mask_paths(current.policy if current else None, policy, version, latest_revision)
        if not paths:
            raise UsageError(f"node group {node_group_id}: nothing to change")
        request = svc.UpdateNodeGroupRequest(
            node_group_id=node_group_id, update_mask=field_mask_pb2.FieldMask(paths=paths))
        if policy is not None:
            request.deploy_policy.CopyFrom(node_group_pb2.DeployPolicy(
                max_expansion=policy.max_expansion, max_unavailable=policy.max_unavailable))
        if version is not None:
            request.version.version = version
        elif latest_revision:
            request.version.latest_revision = True
        what = f"NodeGroupService.Update({node_group_id}, mask={','.join(paths)})"
        stub = self._stub(grpc_svc.NodeGroupServiceStub)
        rid = str(uuid.uuid4())
        md = (*self._metadata, ("x-client-request-id", rid))
        try:
            op = stub.Update(request, timeout=self.call_timeout, metadata=md)
        except Exception as err:
            if rpc_code_name(err) is None:
                raise
            raise translate(err, what, rid) from err
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
