"""gRPC servicers of the fake cloud: each call is recorded, meets the scripted RPC faults, lets
the world catch up with the clock, and is answered from the world through the proto mapping.

Services: NodeGroupService (Get, Update, ListNodes, ListOperations), ClusterService (Get,
ListOperations), OperationService.Get, FolderService.Get, QuotaLimitService.List and
ApiEndpointService.List: what ngupgrade calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
from yandex.cloud.endpoint import api_endpoint_service_pb2 as endpoint_svc
from yandex.cloud.endpoint import api_endpoint_service_pb2_grpc as endpoint_grpc
from yandex.cloud.k8s.v1 import cluster_service_pb2 as cluster_svc
from yandex.cloud.k8s.v1 import cluster_service_pb2_grpc as cluster_grpc
from yandex.cloud.k8s.v1 import node_group_service_pb2 as ng_svc
from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as ng_grpc
from yandex.cloud.operation import operation_service_pb2_grpc as operation_grpc
from yandex.cloud.quotamanager.v1 import quota_limit_service_pb2 as quota_svc
from yandex.cloud.quotamanager.v1 import quota_limit_service_pb2_grpc as quota_grpc
from yandex.cloud.resourcemanager.v1 import folder_service_pb2_grpc as folder_grpc

from ngupgrade.testing import proto
from ngupgrade.testing.objects import FakeOperation, Refusal
from ngupgrade.testing.world import World

POLICY_PATHS = {"deploy_policy.max_expansion", "deploy_policy.max_unavailable"}
ALLOWED_PATHS = POLICY_PATHS | {"version"}


@dataclass
class Call:
    """One recorded RPC: ``method`` is ``Service.Method``, ``request`` a copy of the message,
    ``at`` the fake's clock, ``authorization`` whether the metadata carried a token,
    ``code`` the status name answered (``OK`` or the refusal's)."""

    method: str
    request: Any
    at: float
    authorization: bool
    code: str = "OK"


class Services:
    """The answers of each method, from ``world``; ``address()`` is what endpoint discovery
    names. Register them on a server with :meth:`add_to`; calls land in ``calls``."""

    def __init__(self, world: World, calls: list[Call], address: Callable[[], str]) -> None:
        self.world = world
        self.calls = calls
        self.address = address

    def served(self) -> list[str]:
        """``Service.Method`` of every method served (the scenario's ``METHODS``)."""
        return [f"{base.__name__.removesuffix('Servicer')}.{name}"
                for base, _, methods in self._table() for name in methods]

    def add_to(self, server: grpc.Server) -> None:
        """Add every servicer to ``server``."""
        for base, add, methods in self._table():
            service = base.__name__.removesuffix("Servicer")
            attrs = {name: self._wrap(f"{service}.{name}", fn) for name, fn in methods.items()}
            add(type(f"Fake{base.__name__}", (base,), attrs)(), server)

    def _table(self) -> list[tuple[type, Callable[[Any, grpc.Server], None],
                                   dict[str, Callable[[Any], Any]]]]:
        return [
            (ng_grpc.NodeGroupServiceServicer, ng_grpc.add_NodeGroupServiceServicer_to_server,
             {"Get": self.ng_get, "Update": self.ng_update, "ListNodes": self.ng_list_nodes,
              "ListOperations": self.ng_list_operations}),
            (cluster_grpc.ClusterServiceServicer, cluster_grpc.add_ClusterServiceServicer_to_server,
             {"Get": self.cluster_get, "ListOperations": self.cluster_list_operations,
              "ListNodeGroups": self.cluster_list_node_groups}),
            (operation_grpc.OperationServiceServicer,
             operation_grpc.add_OperationServiceServicer_to_server, {"Get": self.op_get}),
            (folder_grpc.FolderServiceServicer, folder_grpc.add_FolderServiceServicer_to_server,
             {"Get": self.folder_get}),
            (quota_grpc.QuotaLimitServiceServicer,
             quota_grpc.add_QuotaLimitServiceServicer_to_server, {"List": self.quota_list}),
            (endpoint_grpc.ApiEndpointServiceServicer,
             endpoint_grpc.add_ApiEndpointServiceServicer_to_server, {"List": self.endpoints}),
        ]

    def _wrap(self, method: str, fn: Callable[[Any], Any]) -> Callable[[Any, Any, Any], Any]:
        world = self.world

        def handler(_servicer: Any, request: Any, context: grpc.ServicerContext) -> Any:
            md = dict(context.invocation_metadata())
            copy = type(request)()
            copy.CopyFrom(request)
            call = Call(method, copy, world.clock.now(), "authorization" in md)
            with world.lock:
                self.calls.append(call)
                try:
                    target = world.find_group(getattr(request, "node_group_id", None))
                    refusal = world.book.rpc_refusal(method, target)
                    if refusal is not None:
                        raise refusal
                    world.tick()
                    result = fn(request)
                    world.tick()
                    return result
                except Refusal as err:
                    call.code = err.code
                    rid = f"fake-{md.get('x-client-request-id', 'none')}"
                    context.set_trailing_metadata((("x-request-id", rid),))
                    context.abort(grpc.StatusCode[err.code], err.message)
        return handler

    # -- NodeGroupService ---------------------------------------------------------------------

    def ng_get(self, req: Any) -> Any:
        g = self.world.group_or_404(req.node_group_id)
        return proto.group_message(g, self.world.group_status(g))

    def ng_update(self, req: Any) -> Any:
        paths = list(req.update_mask.paths)
        self.world.group_or_404(req.node_group_id)
        if not paths:
            raise Refusal("INVALID_ARGUMENT",
                          "update_mask is required (fields left out would be reset)")
        bad = [p for p in paths if p not in ALLOWED_PATHS]
        if bad:
            raise Refusal("INVALID_ARGUMENT",
                          f"fake supports only {sorted(ALLOWED_PATHS)}, got {bad}")
        policy = req.deploy_policy
        op = self.world.update(
            req.node_group_id,
            version=req.version.version if "version" in paths else None,
            latest="version" in paths and req.version.WhichOneof("specifier") != "version",
            max_expansion=policy.max_expansion if "deploy_policy.max_expansion" in paths
            else None,
            max_unavailable=policy.max_unavailable if "deploy_policy.max_unavailable" in paths
            else None)
        if self.world.book.take_deadline_after_apply(self.world.groups[req.node_group_id]):
            raise Refusal("DEADLINE_EXCEEDED", "Deadline Exceeded")
        return self._operation(op)

    def ng_list_nodes(self, req: Any) -> Any:
        g = self.world.group_or_404(req.node_group_id)
        nodes, token = _page(proto.node_messages(g), req)
        return ng_svc.ListNodeGroupNodesResponse(nodes=nodes, next_page_token=token)

    def ng_list_operations(self, req: Any) -> Any:
        ops = [self._operation(op) for op in self.world.group_operations(req.node_group_id)]
        page, token = _page(ops, req)
        return ng_svc.ListNodeGroupOperationsResponse(operations=page, next_page_token=token)

    # -- other services -----------------------------------------------------------------------

    def cluster_get(self, req: Any) -> Any:
        c = self.world.clusters.get(req.cluster_id)
        if c is None:
            raise Refusal("NOT_FOUND", f"Cluster {req.cluster_id} not found")
        return proto.cluster_message(req.cluster_id, c)

    def cluster_list_operations(self, req: Any) -> Any:
        ops = [self._operation(op) for op in self.world.cluster_operations(req.cluster_id)]
        page, token = _page(ops, req)
        return cluster_svc.ListClusterOperationsResponse(operations=page, next_page_token=token)

    def cluster_list_node_groups(self, req: Any) -> Any:
        groups = [proto.group_message(g, self.world.group_status(g))
                  for g in self.world.cluster_groups(req.cluster_id)]
        page, token = _page(groups, req)
        return cluster_svc.ListClusterNodeGroupsResponse(node_groups=page, next_page_token=token)

    def op_get(self, req: Any) -> Any:
        return self._operation(self.world.operation(req.operation_id, poll=True))

    def folder_get(self, req: Any) -> Any:
        w = self.world
        known = set(w.scenario.folders) | {c.get("folder_id") for c in w.clusters.values()}
        if req.folder_id not in known:
            raise Refusal("NOT_FOUND", f"Folder {req.folder_id} not found")
        return proto.folder_message(req.folder_id, w.cloud_of(req.folder_id))

    def quota_list(self, req: Any) -> Any:
        table = self.world.quotas.get(req.resource.id, {})
        prefix = f"{req.service}."
        items = [proto.quota_message(qid, lim, use)
                 for qid, (lim, use) in sorted(table.items()) if qid.startswith(prefix)]
        page, token = _page(items, req)
        return quota_svc.ListQuotaLimitsResponse(resource=req.resource, quota_limits=page,
                                                 next_page_token=token)

    def endpoints(self, req: Any) -> Any:
        return endpoint_svc.ListApiEndpointsResponse(
            endpoints=proto.endpoint_messages(self.address()))

    def _operation(self, op: FakeOperation) -> Any:
        group = None
        if op.done and op.error is None and op.group_id and op.kind != "blocker":
            g = self.world.groups[op.group_id]
            group = proto.group_message(g, self.world.group_status(g))
        return proto.operation_message(op, group)


def _page(items: list[Any], req: Any) -> tuple[list[Any], str]:
    try:
        return proto.page(items, req.page_size, req.page_token)
    except ValueError as err:
        raise Refusal("INVALID_ARGUMENT", f"bad page_token {req.page_token!r}") from err
