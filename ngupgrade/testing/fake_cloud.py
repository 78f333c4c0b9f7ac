"""A fake Yandex Cloud that speaks the real gRPC API on 127.0.0.1, for tests and runbook drills.

A real ``grpc.server`` implements the services ngupgrade uses: NodeGroupService (Get, Update,
ListNodes, ListOperations), ClusterService.Get, OperationService.Get, FolderService.Get,
QuotaLimitService.List and ApiEndpointService.List. It is seeded from node groups (read from a
Terraform state by :meth:`FakeCloud.from_state`, or given as ``NodeGroup``
values) plus a :class:`~ngupgrade.testing.scenario.Scenario`.

Time is the fake's own clock: :class:`VirtualClock` (tests move it; pass ``fake.sleep`` and
``fake.clock.now`` to the waiter and nothing sleeps for real) or :class:`RealClock` with a speed
factor (``ngupgrade fake-cloud --speed 60``). A version update follows the upgrade timeline of
:func:`ngupgrade.core.simulate.timeline` step by step, ``step_seconds`` per step: nodes created,
drained, updated in place or deleted; the group reads RECONCILING until the operation is done;
quota usage moves with the node count, and a step that would push a quota past its limit fails
the operation with RESOURCE_EXHAUSTED, as the cloud does. Scripted faults: see
:class:`~ngupgrade.testing.scenario.Fault`. Every call is recorded in :attr:`FakeCloud.calls`.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc
from google.protobuf import any_pb2, timestamp_pb2, wrappers_pb2
from google.rpc import code_pb2, status_pb2
from yandex.cloud.endpoint import api_endpoint_pb2, api_endpoint_service_pb2
from yandex.cloud.endpoint import api_endpoint_service_pb2_grpc as endpoint_grpc
from yandex.cloud.k8s.v1 import (
    cluster_pb2,
    node_group_pb2,
    node_pb2,
    version_pb2,
)
from yandex.cloud.k8s.v1 import cluster_service_pb2 as cluster_svc
from yandex.cloud.k8s.v1 import cluster_service_pb2_grpc as cluster_grpc
from yandex.cloud.k8s.v1 import node_group_service_pb2 as ng_svc
from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as ng_grpc
from yandex.cloud.operation import operation_pb2
from yandex.cloud.operation import operation_service_pb2_grpc as operation_grpc
from yandex.cloud.quotamanager.v1 import quota_limit_service_pb2 as quota_svc
from yandex.cloud.quotamanager.v1 import quota_limit_service_pb2_grpc as quota_grpc
from yandex.cloud.resourcemanager.v1 import folder_pb2
from yandex.cloud.resourcemanager.v1 import folder_service_pb2_grpc as folder_grpc

from ngupgrade.core.errors import UsageError
from ngupgrade.core.model import (
    PROVIDER_DEFAULT_POLICY,
    AutoScale,
    DeployPolicy,
    FixedScale,
    NodeGroup,
    NodeResources,
    QuotaLimit,
)
from ngupgrade.testing.scenario import Fault, Scenario

EPOCH = 1_800_000_000
"""Wall-clock seconds of the fake's time 0 (operation timestamps are EPOCH + clock time)."""
DEFAULT_CLOUD = "b1gfakecloud000000001"
POLICY_PATHS = {"deploy_policy.max_expansion", "deploy_policy.max_unavailable"}
ALLOWED_PATHS = POLICY_PATHS | {"version"}
SERVICE_IDS = ("managed-kubernetes", "operation", "resource-manager", "quota-manager",
               "endpoint", "iam", "compute", "vpc")


class StepLike(Protocol):
    """What the fake reads of a timeline step (``ngupgrade.core.simulate.Step``)."""

    @property
    def action(self) -> str: ...
    @property
    def nodes(self) -> int: ...
    @property
    def group_size(self) -> int: ...
    @property
    def new_nodes(self) -> int: ...


Timeline = Callable[[int, DeployPolicy], Sequence[StepLike]]


# -- clocks ---------------------------------------------------------------------------------

class VirtualClock:
    """Seconds that move only when told: ``advance`` (also usable as an injected ``sleep``)."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("time does not go back")
        with self._lock:
            self._now += seconds


class RealClock:
    """Real monotonic time multiplied by ``speed`` (60 = one virtual minute per real second)."""

    def __init__(self, speed: float = 1.0) -> None:
        if speed <= 0:
            raise ValueError("speed must be > 0")
        self.speed = speed
        self._start = time.monotonic()

    def now(self) -> float:
        return (time.monotonic() - self._start) * self.speed

    def advance(self, seconds: float) -> None:
        time.sleep(seconds / self.speed)


# -- the default timeline -------------------------------------------------------------------

def default_timeline(nodes: int, policy: DeployPolicy) -> Sequence[StepLike]:
    """The planner's timeline (:func:`ngupgrade.core.simulate.timeline`) of the clamped policy, so
    the fake upgrades exactly as ``ngupgrade plan`` says."""
    from ngupgrade.core.policy import clamp
    from ngupgrade.core.simulate import timeline

    return timeline(nodes, clamp(policy, nodes))


# -- state ----------------------------------------------------------------------------------

@dataclass
class Call:
    """One recorded RPC: ``method`` is ``Service.Method``, ``request`` a copy of the message."""

    method: str
    request: Any
    at: float
    authorization: bool
    code: str = "OK"


UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


@dataclass
class FakeNode:
    """One node of a fake group: a new instance id per created node; ``drained`` = cordoned."""

    instance_id: str
    version: str
    drained: bool = False


@dataclass
class FakeGroup:
    """The fake's live node group (read it in assertions through :meth:`FakeCloud.group`)."""

    id: str
    name: str
    cluster_id: str
    folder_id: str
    version: str
    status: str
    policy: DeployPolicy | None
    scale: FixedScale | AutoScale
    node: NodeResources | None
    nodes: int
    new_nodes: int = 0
    reconciling_until: float = -1.0
    address: str = ""
    members: list[FakeNode] = field(default_factory=list)
    created_nodes: int = 0

    def add_node(self, version: str) -> FakeNode:
        node = FakeNode(f"{self.id[:12]}n{self.created_nodes:04d}", version)
        self.created_nodes += 1
        self.members.append(node)
        return node

    def apply(self, action: str, count: int, target: str) -> None:
        """Apply one timeline step to the nodes: create, drain, update_in_place or delete."""
        old = [n for n in self.members if n.version != target]
        if action == "create":
            for _ in range(count):
                self.add_node(target)
        elif action == "drain":
            for n in [n for n in old if not n.drained][:count]:
                n.drained = True
        elif action == "update_in_place":
            for n in [n for n in old if n.drained][:count]:
                n.version, n.drained = target, False
        elif action == "delete":
            gone = {id(n) for n in [n for n in old if n.drained][:count]}
            self.members = [n for n in self.members if id(n) not in gone]
        self.nodes = len(self.members)
        self.new_nodes = sum(1 for n in self.members if n.version == target)


@dataclass
class FakeOperation:
    """One operation of the fake (``kind``: version, policy or blocker)."""

    id: str
    kind: str
    description: str
    group_id: str | None
    cluster_id: str
    created: float
    target_version: str = ""
    policy: DeployPolicy | None = None
    steps: tuple[StepLike, ...] = ()
    applied: int = 0
    done: bool = False
    error: tuple[int, str] | None = None
    finished: float = 0.0
    duration: float = 0.0
    polls_left: int | None = None
    ignore_policy: bool = False
    history: list[str] = field(default_factory=list)


def node_consumption(node: NodeResources | None) -> dict[str, float]:
    """What one node draws on quotas (DESIGN.md section 4; reference section 2.4), in API units."""
    if node is None:
        return {"compute.instances.count": 1, "managed-kubernetes.nodes.count": 1}
    out: dict[str, float] = {
        "compute.instances.count": 1,
        "compute.instanceCores.count": node.cores,
        "compute.instanceMemory.size": node.memory_bytes,
        "compute.disks.count": 1,
        "managed-kubernetes.nodes.count": 1,
        "managed-kubernetes.cores.count": node.cores,
        "managed-kubernetes.memory.size": node.memory_bytes,
    }
    if node.boot_disk is not None:
        disk_quota = {"network-hdd": "compute.hddDisks.size",
                      "network-ssd": "compute.ssdDisks.size",
                      "network-ssd-nonreplicated": "compute.ssdNonReplicatedDisks.size",
                      "network-ssd-io-m3": "compute.ssdIOM3Disks.size"}.get(node.boot_disk.type)
        if disk_quota:
            out[disk_quota] = node.boot_disk.size_bytes
        out["managed-kubernetes.disk.size"] = node.boot_disk.size_bytes
    if node.nat:
        out["vpc.externalAddresses.count"] = 1
    return out


class _Abort(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class FakeCloud:
    """The fake cloud. Use as a context manager, or :meth:`start` / :meth:`stop`.

    ``clock`` defaults to a :class:`VirtualClock` at 0; ``timeline`` to
    :func:`default_timeline` (the planner's, so the fake upgrades exactly as ``plan`` says).
    """

    def __init__(
        self,
        groups: Iterable[NodeGroup] = (),
        scenario: Scenario | Mapping[str, Any] | None = None,
        *,
        clock: VirtualClock | RealClock | None = None,
        timeline: Timeline = default_timeline,
    ) -> None:
        self.scenario = scenario if isinstance(scenario, Scenario) else \
            Scenario.from_mapping(scenario)
        self.clock = clock or VirtualClock()
        self.timeline = timeline
        self.calls: list[Call] = []
        self.groups: dict[str, FakeGroup] = {}
        self.operations: dict[str, FakeOperation] = {}
        self.faults: list[Fault] = list(self.scenario.faults)
        self.clusters: dict[str, dict[str, str]] = {}
        self.quotas: dict[str, dict[str, list[float | None]]] = {
            cloud: {q: [lim, use] for q, (lim, use) in table.items()}
            for cloud, table in self.scenario.quotas.items()}
        self._lock = threading.RLock()
        self._ids = itertools.count(1)
        self._server: grpc.Server | None = None
        self.port = 0
        for g in groups:
            self.add_group(g)
        for cid, over in self.scenario.clusters.items():
            self.clusters.setdefault(cid, {}).update(over)
        for f in self.faults:
            if f.kind == "operation_in_progress":
                self._start_blocker(f)

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: str, scenario: str | Scenario | Mapping[str, Any] | None = None,
                   **kwargs: Any) -> FakeCloud:
        """Seed from a Terraform state (path, ``-``, ``tf:DIR`` or ``s3://``) and a scenario.

        Raises BadInput for a state or scenario that cannot be read.
        """
        from ngupgrade.app.load import load_groups  # type: ignore[import-not-found]
        from ngupgrade.app.settings import Settings

        groups = load_groups(Settings(state=state))
        sc = Scenario.load(scenario) if isinstance(scenario, str) else scenario
        return cls(groups, sc, **kwargs)

    def add_group(self, g: NodeGroup) -> FakeGroup:
        """Add a node group seeded from a state value, with the scenario's overrides applied."""
        over = None
        for key in (g.id, g.name, str(g.address)):
            over = over or self.scenario.node_groups.get(key)
        nodes = g.scale.size if isinstance(g.scale, FixedScale) else g.scale.initial or g.scale.min
        policy = g.policy
        status = (g.status or "running").upper()
        version = g.version or "1.29"
        if over is not None:
            nodes = over.nodes if over.nodes is not None else nodes
            status = over.status or status
            version = over.version or version
            policy = over.policy if over.policy is not None else (None if over.policy_unset
                                                                  else policy)
        folder = g.folder_id or "b1gfakefolder00000001"
        fg = FakeGroup(id=g.id, name=g.name, cluster_id=g.cluster_id, folder_id=folder,
                       version=version, status=status, policy=policy, scale=g.scale,
                       node=g.node, nodes=nodes, address=str(g.address))
        for _ in range(nodes):
            fg.add_node(version)
        with self._lock:
            self.groups[g.id] = fg
            cl = self.clusters.setdefault(g.cluster_id, {})
            cl.setdefault("folder_id", folder)
            cl.setdefault("master_version", g.master_version or version)
            cl.setdefault("status", "RUNNING")
        return fg

    def add_fault(self, fault: Fault | Mapping[str, Any]) -> Fault:
        """Script one more fault (same keys as the scenario file)."""
        f = fault if isinstance(fault, Fault) else Fault.parse(fault)
        with self._lock:
            self.faults.append(f)
            if f.kind == "operation_in_progress":
                self._start_blocker(f)
        return f

    def _start_blocker(self, f: Fault) -> None:
        group = self._find_group(f.group) if f.group else next(iter(self.groups.values()), None)
        op = FakeOperation(
            id=f.operation_id, kind="blocker", description=f.description,
            group_id=group.id if group and f.scope == "node_group" else None,
            cluster_id=group.cluster_id if group else "", created=self.clock.now(),
            duration=f.seconds or math.inf, polls_left=f.polls)
        self.operations[op.id] = op

    # -- server -----------------------------------------------------------------------------

    def start(self, port: int = 0) -> FakeCloud:
        """Serve on 127.0.0.1:``port`` (0 picks a free port; see :attr:`endpoint`)."""
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8),
                             options=[("grpc.so_reuseport", 0)])
        handlers: list[tuple[Any, Callable[[Any, grpc.Server], None], dict[str, Callable]]] = [
            (ng_grpc.NodeGroupServiceServicer, ng_grpc.add_NodeGroupServiceServicer_to_server,
             {"Get": self._ng_get, "Update": self._ng_update, "ListNodes": self._ng_list_nodes,
              "ListOperations": self._ng_list_operations}),
            (cluster_grpc.ClusterServiceServicer, cluster_grpc.add_ClusterServiceServicer_to_server,
             {"Get": self._cluster_get, "ListOperations": self._cluster_list_operations}),
            (operation_grpc.OperationServiceServicer,
             operation_grpc.add_OperationServiceServicer_to_server, {"Get": self._op_get}),
            (folder_grpc.FolderServiceServicer, folder_grpc.add_FolderServiceServicer_to_server,
             {"Get": self._folder_get}),
            (quota_grpc.QuotaLimitServiceServicer,
             quota_grpc.add_QuotaLimitServiceServicer_to_server, {"List": self._quota_list}),
            (endpoint_grpc.ApiEndpointServiceServicer,
             endpoint_grpc.add_ApiEndpointServiceServicer_to_server, {"List": self._endpoints}),
        ]
        for base, add, methods in handlers:
            service = base.__name__.removesuffix("Servicer")
            attrs = {name: self._wrap(f"{service}.{name}", fn) for name, fn in methods.items()}
            add(type(f"Fake{base.__name__}", (base,), attrs)(), server)
        try:
            self.port = server.add_insecure_port(f"127.0.0.1:{port}")
        except RuntimeError as err:
            self.port = 0
            cause: Exception | None = err
        else:
            cause = None
        if not self.port:
            server.stop(None)
            raise UsageError(f"fake cloud cannot listen on 127.0.0.1:{port} (port in use?)",
                             hint="use --port 0 to pick a free port") from cause
        server.start()
        self._server = server
        return self

    def stop(self) -> None:
        """Stop serving (in-flight calls get a moment to finish)."""
        if self._server is not None:
            self._server.stop(grace=0.2).wait()
            self._server = None

    def __enter__(self) -> FakeCloud:
        return self.start() if self._server is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def endpoint(self) -> str:
        """``127.0.0.1:PORT`` of the running server."""
        return f"127.0.0.1:{self.port}"

    # -- helpers for tests ------------------------------------------------------------------

    def sleep(self, seconds: float) -> None:
        """Move the fake's clock (inject this as the waiter's ``sleep``)."""
        self.clock.advance(seconds)

    def now(self) -> float:
        """The fake's clock (inject this as the waiter's ``clock``)."""
        return self.clock.now()

    def settings(self) -> Any:
        """A :class:`~ngupgrade.app.settings.Settings` pointing at this fake (plain text)."""
        from ngupgrade.app.settings import Settings

        return Settings(endpoint=self.endpoint, insecure=True)

    def gateway(self, **kwargs: Any) -> Any:
        """A real ``CloudGateway`` over the SDK to this fake, with
        the fake's clock and sleep injected (override any gateway argument in ``kwargs``)."""
        from ngupgrade.adapters.cloud.gateway import open_gateway

        kwargs.setdefault("clock", self.now)
        kwargs.setdefault("sleep", self.sleep)
        return open_gateway(self.settings(), environ=kwargs.pop("environ", {}), **kwargs)

    def calls_to(self, method: str) -> list[Call]:
        """Recorded calls of ``Service.Method`` (e.g. ``NodeGroupService.Update``)."""
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def group(self, key: str) -> FakeGroup:
        """The live group by id, name or Terraform address (after catching up with the clock)."""
        with self._lock:
            self._tick()
            g = self._find_group(key)
            if g is None:
                raise KeyError(key)
            return g

    def operation(self, op_id: str) -> FakeOperation:
        """One operation (after catching up with the clock)."""
        with self._lock:
            self._tick()
            return self.operations[op_id]

    def quota(self, cloud_id: str, quota_id: str) -> QuotaLimit:
        """A quota of a cloud as the fake holds it now."""
        with self._lock:
            self._tick()
            lim, use = self.quotas.get(cloud_id, {}).get(quota_id, [None, None])
            return QuotaLimit(quota_id, lim, use)

    def cloud_of(self, folder_id: str) -> str:
        """The cloud of a folder (scenario ``clouds``; else the one cloud, else a default)."""
        if folder_id in self.scenario.folders:
            return self.scenario.folders[folder_id]
        if len(self.quotas) == 1:
            return next(iter(self.quotas))
        return DEFAULT_CLOUD

    def _find_group(self, key: str | None) -> FakeGroup | None:
        if key is None:
            return None
        if key in self.groups:
            return self.groups[key]
        for g in self.groups.values():
            if key in (g.name, g.address):
                return g
        return None

    # -- the clock: operations advance ------------------------------------------------------

    def _tick(self) -> None:
        now = self.clock.now()
        for op in self.operations.values():
            if op.done:
                continue
            if op.kind == "blocker":
                if now >= op.created + op.duration:
                    self._finish(op, now)
            elif op.kind == "policy":
                if now >= op.created + self.scenario.policy_seconds:
                    g = self.groups[op.group_id or ""]
                    if op.policy is not None and not op.ignore_policy:
                        g.policy = op.policy
                    self._finish(op, now)
            elif op.kind == "version":
                self._advance_version(op, now)

    def _advance_version(self, op: FakeOperation, now: float) -> None:
        g = self.groups[op.group_id or ""]
        step_s = self.scenario.step_seconds
        due = int((now - op.created) // step_s) if step_s > 0 else len(op.steps)
        while op.applied < min(due, len(op.steps)) and not op.done:
            number = op.applied + 1
            if self._fault_at(g, "stall", number - 1) is not None:
                return
            err = self._fault_at(g, "operation_error", number)
            if err is not None:
                code = err.code if isinstance(err.code, int) else code_pb2.Code.Value(err.code)
                op.error = (int(code), err.message)
                self._finish(op, op.created + number * step_s)
                return
            step = op.steps[op.applied]
            grow = {"create": step.nodes, "delete": -step.nodes}.get(step.action, 0)
            if grow > 0 and not self._take_quota(g, grow, op, op.created + number * step_s):
                return
            if grow < 0:
                self._move_quota(g, grow)
            g.apply(step.action, step.nodes, op.target_version)
            op.history.append(f"{step.action} {step.nodes} -> {step.group_size} nodes")
            op.applied += 1
        if op.applied == len(op.steps) and due >= max(1, len(op.steps)) and not op.done:
            g.version = op.target_version
            g.new_nodes = 0
            self._finish(op, op.created + max(1, len(op.steps)) * step_s)

    def _fault_at(self, g: FakeGroup, kind: str, step: int) -> Fault | None:
        for f in self.faults:
            if f.kind == kind and f.at_step == step and f.group in (None, g.id, g.name):
                return f
        return None

    def _finish(self, op: FakeOperation, at: float) -> None:
        op.done, op.finished = True, at
        if op.group_id and op.kind != "blocker":
            g = self.groups[op.group_id]
            lag = self._lag(g, "reconciling_after_done")
            g.reconciling_until = at + lag if lag else -1.0

    def _lag(self, g: FakeGroup, kind: str) -> float:
        for f in self.faults:
            if f.kind == kind and f.group in (None, g.id, g.name):
                return f.seconds
        return 0.0

    def _take_quota(self, g: FakeGroup, grow: int, op: FakeOperation, at: float) -> bool:
        table = self.quotas.get(self.cloud_of(g.folder_id), {})
        for qid, per in node_consumption(g.node).items():
            if qid not in table:
                continue
            limit, usage = table[qid]
            need = per * grow
            if limit is not None and (usage or 0) + need > limit:
                op.error = (code_pb2.RESOURCE_EXHAUSTED,
                            f"Quota limit {qid} exceeded: requested {need:g}, available "
                            f"{limit - (usage or 0):g} (limit {limit:g})")
                self._finish(op, at)
                return False
        self._move_quota(g, grow)
        return True

    def _move_quota(self, g: FakeGroup, delta: int) -> None:
        table = self.quotas.get(self.cloud_of(g.folder_id), {})
        for qid, per in node_consumption(g.node).items():
            if qid in table and table[qid][1] is not None:
                table[qid][1] = (table[qid][1] or 0) + per * delta

    def _group_status(self, g: FakeGroup) -> str:
        now = self.clock.now()
        running = [op for op in self.operations.values()
                   if op.group_id == g.id and not op.done and op.kind != "blocker"]
        if running:
            lag = self._lag(g, "running_after_update")
            if lag and now < running[-1].created + lag:
                return "RUNNING"
            return "RECONCILING"
        if now < g.reconciling_until:
            return "RECONCILING"
        return g.status

    # -- RPC plumbing -----------------------------------------------------------------------

    def _wrap(self, method: str, fn: Callable[[Any], Any]) -> Callable[[Any, Any, Any], Any]:
        def handler(_servicer: Any, request: Any, context: grpc.ServicerContext) -> Any:
            md = dict(context.invocation_metadata())
            rid = f"fake-{md.get('x-client-request-id', 'none')}"
            copy = type(request)()
            copy.CopyFrom(request)
            call = Call(method, copy, self.clock.now(), "authorization" in md)
            with self._lock:
                self.calls.append(call)
                try:
                    self._rpc_fault(method, request)
                    self._tick()
                    result = fn(request)
                    self._tick()
                    return result
                except _Abort as err:
                    call.code = err.code.name
                    context.set_trailing_metadata((("x-request-id", rid),))
                    context.abort(err.code, err.message)
        return handler

    def _rpc_fault(self, method: str, request: Any) -> None:
        for f in self.faults:
            if f.kind not in ("rpc_error", "permission_denied"):
                continue
            if f.method not in ("*", method):
                continue
            if f.group is not None:
                target = self._find_group(getattr(request, "node_group_id", None))
                if target is None or f.group not in (target.id, target.name):
                    continue
            if f.times is not None:
                if f.times <= 0:
                    continue
                f.times -= 1
            code = grpc.StatusCode[f.code] if isinstance(f.code, str) else \
                _code_from_int(f.code)
            raise _Abort(code, f.message or f"fake: {code.name}")

    # -- services ---------------------------------------------------------------------------

    def _group_or_404(self, group_id: str) -> FakeGroup:
        g = self.groups.get(group_id)
        if g is None:
            raise _Abort(grpc.StatusCode.NOT_FOUND, f"Node group {group_id} not found")
        return g

    def _ng_get(self, req: Any) -> Any:
        return self._group_message(self._group_or_404(req.node_group_id))

    def _group_message(self, g: FakeGroup) -> Any:
        msg = node_group_pb2.NodeGroup(
            id=g.id, cluster_id=g.cluster_id, name=g.name,
            status=node_group_pb2.NodeGroup.Status.Value(self._group_status(g)),
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

    def _ng_update(self, req: Any) -> Any:
        g = self._group_or_404(req.node_group_id)
        paths = list(req.update_mask.paths)
        if not paths:
            raise _Abort(grpc.StatusCode.INVALID_ARGUMENT,
                         "update_mask is required (fields left out would be reset)")
        bad = [p for p in paths if p not in ALLOWED_PATHS]
        if bad:
            raise _Abort(grpc.StatusCode.INVALID_ARGUMENT,
                         f"fake supports only {sorted(ALLOWED_PATHS)}, got {bad}")
        current = g.policy or PROVIDER_DEFAULT_POLICY
        policy = None
        if POLICY_PATHS & set(paths):
            policy = DeployPolicy(
                req.deploy_policy.max_expansion if "deploy_policy.max_expansion" in paths
                else current.max_expansion,
                req.deploy_policy.max_unavailable if "deploy_policy.max_unavailable" in paths
                else current.max_unavailable)
            for v in (policy.max_expansion, policy.max_unavailable):
                if not 0 <= v <= 100:
                    raise _Abort(grpc.StatusCode.INVALID_ARGUMENT,
                                 "deploy_policy values must be in 0..100")
            if policy.max_expansion == 0 and policy.max_unavailable == 0:
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT,
                             "max_expansion and max_unavailable cannot both be 0")
        target = ""
        if "version" in paths:
            target = req.version.version if req.version.WhichOneof("specifier") == "version" \
                else g.version
            if self.scenario.versions is not None and target not in self.scenario.versions:
                raise _Abort(grpc.StatusCode.INVALID_ARGUMENT,
                             f"version {target!r} is not available; available: "
                             f"{', '.join(self.scenario.versions)}")
        blocker = self._conflict(g)
        if blocker is not None:
            raise _Abort(grpc.StatusCode.FAILED_PRECONDITION,
                         f"Another operation is in progress: {blocker}")
        op = FakeOperation(
            id=self._next_id(), kind="version" if target else "policy",
            description="Update node group", group_id=g.id, cluster_id=g.cluster_id,
            created=self.clock.now(), target_version=target, policy=policy,
            ignore_policy=any(f.kind == "policy_ignored" and f.group in (None, g.id, g.name)
                              for f in self.faults))
        if target:
            if policy is not None and not op.ignore_policy:
                g.policy = policy
            eff = g.policy or PROVIDER_DEFAULT_POLICY
            op.steps = tuple(self.timeline(g.nodes, eff))
        self.operations[op.id] = op
        if any(f.kind == "deadline_after_apply" and (f.times is None or f.times > 0)
               for f in self.faults):
            for f in self.faults:
                if f.kind == "deadline_after_apply" and (f.times is None or f.times > 0):
                    if f.times is not None:
                        f.times -= 1
                    break
            raise _Abort(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")
        return self._op_message(op)

    def _conflict(self, g: FakeGroup) -> str | None:
        for op in self.operations.values():
            if not op.done and (op.cluster_id == g.cluster_id or op.group_id == g.id):
                return op.id
        for f in self.faults:
            if f.kind == "operation_in_progress" and f.times and f.times > 0:
                f.times -= 1
                return f.operation_id
        return None

    def _next_id(self) -> str:
        while True:
            op_id = f"op-{next(self._ids)}"
            if op_id not in self.operations:
                return op_id

    def _ng_list_nodes(self, req: Any) -> Any:
        g = self._group_or_404(req.node_group_id)
        nodes = []
        for n in g.members:
            taints = [node_pb2.Taint(key=UNSCHEDULABLE_TAINT,
                                     effect=node_pb2.Taint.Effect.NO_SCHEDULE)] if n.drained else []
            nodes.append(node_pb2.Node(
                status=node_pb2.Node.Status.READY,
                cloud_status=node_pb2.Node.CloudStatus(id=n.instance_id, status="RUNNING"),
                kubernetes_status=node_pb2.Node.KubernetesStatus(
                    id=f"{g.name}-{n.instance_id[-4:]}", taints=taints),
            ))
        page, token = _page(nodes, req.page_size, req.page_token)
        return ng_svc.ListNodeGroupNodesResponse(nodes=page, next_page_token=token)

    def _ng_list_operations(self, req: Any) -> Any:
        g = self._group_or_404(req.node_group_id)
        ops = [op for op in self.operations.values() if op.group_id == g.id]
        ops.sort(key=lambda op: op.created, reverse=True)
        page, token = _page([self._op_message(op, count_poll=False) for op in ops],
                            req.page_size, req.page_token)
        return ng_svc.ListNodeGroupOperationsResponse(operations=page, next_page_token=token)

    def _cluster_list_operations(self, req: Any) -> Any:
        if req.cluster_id not in self.clusters:
            raise _Abort(grpc.StatusCode.NOT_FOUND, f"Cluster {req.cluster_id} not found")
        ops = [op for op in self.operations.values() if op.cluster_id == req.cluster_id
               and (op.kind == "blocker" or op.group_id is None)]
        ops.sort(key=lambda op: op.created, reverse=True)
        page, token = _page([self._op_message(op, count_poll=False) for op in ops],
                            req.page_size, req.page_token)
        return cluster_svc.ListClusterOperationsResponse(operations=page, next_page_token=token)

    def _op_get(self, req: Any) -> Any:
        op = self.operations.get(req.operation_id)
        if op is None:
            raise _Abort(grpc.StatusCode.NOT_FOUND, f"Operation {req.operation_id} not found")
        return self._op_message(op)

    def _op_message(self, op: FakeOperation, count_poll: bool = True) -> Any:
        if op.kind == "blocker" and not op.done and op.polls_left is not None and count_poll:
            if op.polls_left <= 0:
                self._finish(op, self.clock.now())
            else:
                op.polls_left -= 1
        msg = operation_pb2.Operation(
            id=op.id, description=op.description, done=op.done,
            created_at=_ts(op.created), modified_at=_ts(op.finished if op.done else op.created),
        )
        if op.group_id:
            meta = any_pb2.Any()
            meta.Pack(ng_svc.UpdateNodeGroupMetadata(node_group_id=op.group_id))
            msg.metadata.CopyFrom(meta)
        if op.done:
            if op.error is not None:
                msg.error.CopyFrom(status_pb2.Status(code=op.error[0], message=op.error[1]))
            elif op.group_id and op.kind != "blocker":
                resp = any_pb2.Any()
                resp.Pack(self._group_message(self.groups[op.group_id]))
                msg.response.CopyFrom(resp)
        return msg

    def _cluster_get(self, req: Any) -> Any:
        c = self.clusters.get(req.cluster_id)
        if c is None:
            raise _Abort(grpc.StatusCode.NOT_FOUND, f"Cluster {req.cluster_id} not found")
        return cluster_pb2.Cluster(
            id=req.cluster_id, folder_id=c.get("folder_id", ""),
            status=cluster_pb2.Cluster.Status.Value(c.get("status", "RUNNING").upper()),
            master=cluster_pb2.Master(version=c.get("master_version", "")))

    def _folder_get(self, req: Any) -> Any:
        known = set(self.scenario.folders) | {c.get("folder_id") for c in self.clusters.values()}
        if req.folder_id not in known:
            raise _Abort(grpc.StatusCode.NOT_FOUND, f"Folder {req.folder_id} not found")
        return folder_pb2.Folder(id=req.folder_id, cloud_id=self.cloud_of(req.folder_id),
                                 name=req.folder_id, status=folder_pb2.Folder.Status.ACTIVE)

    def _quota_list(self, req: Any) -> Any:
        table = self.quotas.get(req.resource.id, {})
        prefix = f"{req.service}."
        items = []
        for qid, (lim, use) in sorted(table.items()):
            if not qid.startswith(prefix):
                continue
            q = quota_svc.QuotaLimit(quota_id=qid) if hasattr(quota_svc, "QuotaLimit") else None
            if q is None:  # pragma: no cover - message lives in quota_limit_pb2 in some SDKs
                raise _Abort(grpc.StatusCode.INTERNAL, "QuotaLimit message not found")
            if lim is not None:
                q.limit.CopyFrom(wrappers_pb2.DoubleValue(value=lim))
            if use is not None:
                q.usage.CopyFrom(wrappers_pb2.DoubleValue(value=use))
            items.append(q)
        page, token = _page(items, req.page_size, req.page_token)
        return quota_svc.ListQuotaLimitsResponse(resource=req.resource, quota_limits=page,
                                                 next_page_token=token)

    def _endpoints(self, req: Any) -> Any:
        return api_endpoint_service_pb2.ListApiEndpointsResponse(endpoints=[
            api_endpoint_pb2.ApiEndpoint(id=sid, address=self.endpoint) for sid in SERVICE_IDS])


def _code_from_int(code: int) -> grpc.StatusCode:
    for sc in grpc.StatusCode:
        if sc.value[0] == code:
            return sc
    return grpc.StatusCode.UNKNOWN


def _page(items: list[Any], page_size: int, token: str) -> tuple[list[Any], str]:
    start = int(token) if token else 0
    size = page_size or 100
    end = start + size
    return items[start:end], (str(end) if end < len(items) else "")


def _ts(seconds: float) -> timestamp_pb2.Timestamp:
    ts = timestamp_pb2.Timestamp()
    whole = EPOCH + seconds
    ts.seconds = int(whole)
    ts.nanos = int((whole - int(whole)) * 1e9)
    return ts
