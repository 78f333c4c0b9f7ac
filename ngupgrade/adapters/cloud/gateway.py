"""The cloud gateway: the one adapter over the ``yandexcloud`` SDK (reference section 3).

Use cases call :class:`CloudGateway` and get plain values (:mod:`ngupgrade.adapters.cloud.types`)
or the project's errors, never protobuf messages or ``grpc.RpcError``:

* reads and polls retry the transient codes (:mod:`ngupgrade.adapters.cloud.retry`);
* any other RPC failure becomes :class:`~ngupgrade.core.errors.CloudApiError` (exit 4) with the
  gRPC code, the message and the request id (``x-request-id`` from the answer, else the
  ``x-client-request-id`` we sent);
* ``Update`` is never retried blindly: after an ambiguous failure (DEADLINE_EXCEEDED or
  UNAVAILABLE) the operation it may have started is looked up with ``ListOperations`` and
  attached to, so exactly one Update reaches the cloud; a refusal because another operation is
  in progress (FAILED_PRECONDITION, field report C13) waits for that operation within a bound
  and tries again, at most :attr:`ConflictPolicy.attempts` Update calls in all;
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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ngupgrade.adapters.cloud.retry import RetryPolicy, call_with_retry, rpc_code_name
from ngupgrade.adapters.cloud.types import (
    LiveCluster,
    LiveNode,
    LiveNodeGroup,
    OperationRef,
    OperationState,
    newest,
)
from ngupgrade.core.errors import CloudApiError, OperationFailed, OperationTimeout, UsageError
from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale, QuotaLimit, ScalePolicy

if TYPE_CHECKING:
    from ngupgrade.adapters.cloud.waiter import PollPolicy

log = logging.getLogger("ngupgrade.adapters.cloud")

class EndpointSettings(Protocol):
    """The part of ``ngupgrade.app.settings.Settings`` the gateway reads (no import upward)."""

    endpoint: str | None
    insecure: bool
    ca_file: str | None


StubFactory = Callable[[Any], Any]
"""Gives a ready stub for a ``yandex.cloud.*_pb2_grpc.*Stub`` class (wraps ``sdk.client``)."""

POLICY_PATHS = ("deploy_policy.max_expansion", "deploy_policy.max_unavailable")
VERSION_PATH = "version"
DEFAULT_RETRY = RetryPolicy()
AMBIGUOUS_CODES = frozenset({"DEADLINE_EXCEEDED", "UNAVAILABLE"})
"""An Update that failed with one of these may have reached the cloud."""

_HINTS = {
    "UNAUTHENTICATED": "set YC_IAM_TOKEN, YC_TOKEN or YC_SERVICE_ACCOUNT_KEY_FILE "
                       "(see docs/cloud.md)",
    "PERMISSION_DENIED": "the account needs k8s.viewer to read and k8s.editor to change node "
                         "groups, resource-manager.viewer for folders, quota-manager.viewer "
                         "for quotas",
    "NOT_FOUND": "check the id; the state may be older than the cloud",
}


@dataclass(frozen=True)
class ConflictPolicy:
    """What to do when Update is refused because another operation runs (field report C13).

    At most ``attempts`` Update calls in all (the first plus ``attempts - 1`` retries); between
    them wait for the blocking operation at most ``wait_seconds``; past that bound, stop and
    name the blocker.
    """

    attempts: int = 2
    wait_seconds: float = 1800.0


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
    ``clock`` / ``sleep`` drive the conflict wait and the retry backoff (injected in tests).
    """

    def __init__(
        self,
        stubs: StubFactory,
        *,
        call_timeout: float = 30.0,
        retry: RetryPolicy = DEFAULT_RETRY,
        conflict: ConflictPolicy = ConflictPolicy(),
        poll: PollPolicy | None = None,
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
        self.conflict = conflict
        self.poll = poll
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
        return _live_group(msg)

    def list_nodes(self, node_group_id: str) -> list[LiveNode]:
        """``NodeGroupService.ListNodes``, every page."""
        from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
        from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as grpc_svc

        nodes: list[LiveNode] = []
        for page in self._pages(lambda token: self._call(
                grpc_svc.NodeGroupServiceStub, "ListNodes",
                svc.ListNodeGroupNodesRequest(node_group_id=node_group_id, page_size=1000,
                                              page_token=token),
                what=f"NodeGroupService.ListNodes({node_group_id})")):
            for node in page.nodes:
                nodes.append(LiveNode(
                    instance_id=node.cloud_status.id,
                    status=type(node).Status.Name(node.status),
                    kubernetes_node_id=node.kubernetes_status.id,
                    unschedulable=any(t.key == "node.kubernetes.io/unschedulable"
                                      for t in node.kubernetes_status.taints),
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

        ``current`` is the group as last read (read now when None); a policy value equal to the
        current one is left out of the mask. Wait with :mod:`ngupgrade.adapters.cloud.waiter`.

        Raises:
            UsageError: nothing would change.
            CloudApiError: the call failed (after an ambiguous failure, only when no operation
                it started is found; with another operation in progress, when the bound or the
                attempts run out, naming the blocking operation).
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
        known = {op.id for op in self.list_operations(node_group_id)}
        blocker: OperationState | None = None
        stub = self._stub(grpc_svc.NodeGroupServiceStub)
        for attempt in range(1, max(1, self.conflict.attempts) + 1):
            rid = str(uuid.uuid4())
            md = (*self._metadata, ("x-client-request-id", rid))
            try:
                op = stub.Update(request, timeout=self.call_timeout, metadata=md)
            except Exception as err:
                code = rpc_code_name(err)
                if code is None:
                    raise
                if code in AMBIGUOUS_CODES:
                    found = self._find_started(node_group_id, known)
                    if found is not None:
                        log.warning("%s answered %s but started operation %s; attaching",
                                    what, code, found.id)
                        return OperationRef(found.id, node_group_id, found.description,
                                            attached=True, update_calls=attempt)
                    raise CloudApiError(
                        f"{what}: {code}; no operation was started on the group, nothing "
                        "was sent twice", code=code, request_id=rid,
                        hint="run the command again") from err
                if code == "FAILED_PRECONDITION":
                    found_blocker = self._find_blocker(node_group_id, current)
                    blocker = found_blocker or blocker
                    if found_blocker is None and blocker is None:
                        raise translate(err, what, rid) from err
                    if attempt >= self.conflict.attempts:
                        name = blocker.id if blocker else "?"
                        raise CloudApiError(
                            f"{what}: refused {attempt} times, another operation in progress "
                            f"(blocking operation {name}); nothing was changed",
                            code=code, request_id=rid,
                            hint=f"wait for it (`ngupgrade wait --operation {name}`), then run "
                                 "again") from err
                    if found_blocker is not None:
                        self._wait_blocker(found_blocker, what)
                    else:
                        self.sleep(self._conflict_backoff())
                    known = {op.id for op in self.list_operations(node_group_id)}
                    continue
                raise translate(err, what, rid) from err
            state = operation_state(op)
            return OperationRef(state.id, node_group_id, state.description,
                                update_calls=attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def _find_blocker(self, node_group_id: str, current: LiveNodeGroup | None
                      ) -> OperationState | None:
        """The unfinished operation in the way: on the group, else on its cluster (C13)."""
        found = self.running_operation(node_group_id)
        if found is not None:
            return found
        cluster_id = (current or self.get_node_group(node_group_id)).cluster_id
        return newest(op for op in self.list_cluster_operations(cluster_id) if not op.done)

    def _conflict_backoff(self) -> float:
        return self.poll.initial if self.poll is not None else 5.0

    def _wait_blocker(self, blocker: OperationState, what: str) -> None:
        from ngupgrade.adapters.cloud.waiter import PollPolicy, wait_operation

        log.warning("%s: another operation in progress; waiting for %s (%s), at most %.0f s",
                    what, blocker.id, blocker.description or "no description",
                    self.conflict.wait_seconds)
        try:
            wait_operation(self, blocker.id, timeout=self.conflict.wait_seconds,
                           policy=self.poll or PollPolicy(), clock=self.clock, sleep=self.sleep)
        except OperationFailed:
            pass  # the blocker's own failure is not ours; the retry decides
        except OperationTimeout as err:
            raise CloudApiError(
                f"{what}: another operation in progress: {blocker.id} "
                f"({blocker.description or 'no description'}) still running after "
                f"{self.conflict.wait_seconds:.0f} s; nothing was changed",
                code="FAILED_PRECONDITION",
                hint=f"wait for it (`ngupgrade wait --operation {blocker.id}`), then run again",
            ) from err

    def _find_started(self, node_group_id: str, known: set[str]) -> OperationState | None:
        """After an ambiguous Update: the new operation on the group, if the call started one."""
        for delay in (0.0, 1.0, 2.0, 4.0):
            if delay:
                self.sleep(delay)
            fresh = newest(op for op in self.list_operations(node_group_id)
                           if op.id not in known)
            if fresh is not None:
                return fresh
        return None


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


def _live_group(msg: Any) -> LiveNodeGroup:
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
    return OperationState(
        id=op.id, description=op.description, done=op.done, error_code=code,
        error_code_name=code_name, error_message=message, node_group_id=group_id or None,
        created_at=op.created_at.seconds + op.created_at.nanos / 1e9,
        modified_at=op.modified_at.seconds + op.modified_at.nanos / 1e9,
    )


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
