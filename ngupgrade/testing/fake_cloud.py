"""A fake Yandex Cloud that speaks the real gRPC API on 127.0.0.1, for tests and runbook drills.

:class:`FakeCloud` is the server and its lifecycle around a :class:`~ngupgrade.testing.world.
World` (groups, nodes, operations, quota usage, faults; no gRPC), the servicers
(:mod:`ngupgrade.testing.servicers`) and the proto mapping (:mod:`ngupgrade.testing.proto`).
It is seeded from node groups (read from a Terraform state by :meth:`FakeCloud.from_state`,
or given as ``NodeGroup`` values) plus a :class:`~ngupgrade.testing.scenario.Scenario`.

Time is the fake's own clock: :class:`VirtualClock` (tests move it; pass ``fake.sleep`` and
``fake.now`` to the waiter and nothing sleeps for real) or :class:`RealClock` with a speed
factor (``ngupgrade fake-cloud --speed 60``). A version update follows the platform's
node-by-node procedure (:mod:`ngupgrade.testing.procedure`, from seed 000, not from the
planner), one step per ``step_seconds``; the group reads RECONCILING until the operation is
done; quota usage moves with the node count, and a create that would pass a quota's limit
fails the operation with RESOURCE_EXHAUSTED. Every call is recorded in :attr:`FakeCloud.calls`.

Beside it, while it runs, :attr:`FakeCloud.kube` serves a fake Kubernetes API
(:mod:`ngupgrade.testing.kube_api`) holding a Kubernetes node for every node of the fake's
groups, labelled with its group id, and the scenario's ``workloads``
(:mod:`ngupgrade.testing.kube_cluster`); :meth:`FakeCloud.write_kubeconfig` points the
``kubernetes`` client at it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from ngupgrade.core.errors import UsageError
from ngupgrade.core.k8s import NODE_GROUP_LABEL
from ngupgrade.core.model import NodeGroup, QuotaLimit
from ngupgrade.testing.clocks import Clock, RealClock, VirtualClock
from ngupgrade.testing.kube_api import FakeKubeApi
from ngupgrade.testing.kube_cluster import cluster_objects
from ngupgrade.testing.objects import FakeGroup, FakeOperation
from ngupgrade.testing.scenario import Fault, Scenario
from ngupgrade.testing.servicers import Call, Services
from ngupgrade.testing.world import World

__all__ = ["Call", "FakeCloud", "RealClock", "VirtualClock"]


@dataclass
class _Endpoint:
    """What ``open_gateway`` reads of ngupgrade's settings (its ``EndpointSettings``):
    plain text to the fake on loopback."""

    endpoint: str | None
    insecure: bool = True
    ca_file: str | None = None


class FakeCloud:
    """The fake cloud. Use as a context manager, or :meth:`start` / :meth:`stop`.

    ``clock`` defaults to a :class:`VirtualClock` at 0. The world's live tables are here too:
    ``groups``, ``operations``, ``clusters``, ``quotas`` (cloud -> quota id ->
    ``[limit, usage]``, editable), ``faults``, and ``calls`` (every :class:`Call`).
    ``kube`` is the fake Kubernetes API while the fake runs (None before :meth:`start`);
    ``kubeconfig`` the last file :meth:`write_kubeconfig` wrote.
    """

    def __init__(
        self,
        groups: Iterable[NodeGroup] = (),
        scenario: Scenario | Mapping[str, Any] | None = None,
        *,
        clock: Clock | None = None,
    ) -> None:
        self.world = World(scenario, clock, groups)
        self.calls: list[Call] = []
        self._server: grpc.Server | None = None
        self.port = 0
        self.kube: FakeKubeApi | None = None
        self.kubeconfig: Path | None = None

    @classmethod
    def from_state(cls, state: str, scenario: str | Scenario | Mapping[str, Any] | None = None,
                   **kwargs: Any) -> FakeCloud:
        """Seed from a Terraform state (path, ``-``, ``tf:DIR`` or ``s3://``) and a scenario
        (a path, a mapping or a :class:`Scenario`); ``kwargs`` go to the constructor.

        Raises BadInput for a state or scenario that cannot be read.
        """
        from ngupgrade.adapters.state.parse import parse_state
        from ngupgrade.adapters.state.sources import StateRequest, read_state_bytes

        data, label = read_state_bytes(StateRequest(spec=state))
        groups = parse_state(data, label).groups
        sc = Scenario.load(scenario) if isinstance(scenario, str) else scenario
        return cls(groups, sc, **kwargs)

    # -- the world's tables ---------------------------------------------------------------------

    @property
    def scenario(self) -> Scenario:
        return self.world.scenario

    @property
    def clock(self) -> Clock:
        return self.world.clock

    @property
    def groups(self) -> dict[str, FakeGroup]:
        return self.world.groups

    @property
    def operations(self) -> dict[str, FakeOperation]:
        return self.world.operations

    @property
    def clusters(self) -> dict[str, dict[str, str]]:
        return self.world.clusters

    @property
    def quotas(self) -> dict[str, dict[str, list[float | None]]]:
        return self.world.quotas

    @property
    def faults(self) -> list[Fault]:
        return self.world.faults

    def add_group(self, g: NodeGroup) -> FakeGroup:
        """Add a node group seeded from a state value, with the scenario's overrides applied."""
        return self.world.add_group(g)

    def add_fault(self, fault: Fault | Mapping[str, Any]) -> Fault:
        """Script one more fault (same keys as the scenario file). Raises BadInput."""
        return self.world.add_fault(fault)

    # -- server -----------------------------------------------------------------------------

    def start(self, port: int = 0) -> FakeCloud:
        """Serve on 127.0.0.1:``port`` (0 picks a free port; see :attr:`endpoint`).

        Raises UsageError when the port cannot be bound.
        """
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8),
                             options=[("grpc.so_reuseport", 0)])
        Services(self.world, self.calls, lambda: self.endpoint).add_to(server)
        cause: Exception | None = None
        try:
            self.port = server.add_insecure_port(f"127.0.0.1:{port}")
        except RuntimeError as err:
            self.port, cause = 0, err
        if not self.port:
            server.stop(None)
            raise UsageError(f"fake cloud cannot listen on 127.0.0.1:{port} (port in use?)",
                             hint="use --port 0 to pick a free port") from cause
        server.start()
        self._server = server
        with self.world.lock:
            objects = cluster_objects(self.world.groups.values(), self.world.scenario.workloads)
        self.kube = FakeKubeApi(objects).start()
        from ngupgrade.testing.kube_follow import KubeFollower

        with self.world.lock:  # from now on the cluster follows the upgrade (issue 13)
            # groups whose nodes the scenario gives are served as given, not followed
            given = {((o.get("metadata") or {}).get("labels") or {}).get(NODE_GROUP_LABEL)
                     for o in self.world.scenario.workloads if o.get("kind") == "Node"}
            self.world.kube = KubeFollower(self.kube, skip=given - {None})
            self.world.kube.follow(self.world.groups.values(), self.world.clock.now())
        self.kube.before_read = self._tick
        return self

    def stop(self) -> None:
        """Stop serving (in-flight calls get a moment to finish)."""
        if self._server is not None:
            self._server.stop(grace=0.2).wait()
            self._server = None
        if self.kube is not None:
            self.kube.stop()
            self.kube = None
            self.world.kube = None

    def __enter__(self) -> FakeCloud:
        return self.start() if self._server is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def endpoint(self) -> str:
        """``127.0.0.1:PORT`` of the running server."""
        return f"127.0.0.1:{self.port}"

    def write_kubeconfig(self, path: str | Path, context: str = "fake-cloud") -> Path:
        """Write a kubeconfig whose ``context`` (also the current one) reaches :attr:`kube`;
        remembered as :attr:`kubeconfig`. Raises UsageError before :meth:`start`."""
        if self.kube is None:
            raise UsageError("start the fake cloud before writing its kubeconfig")
        self.kubeconfig = self.kube.write_kubeconfig(path, context)
        return self.kubeconfig

    # -- helpers for tests ------------------------------------------------------------------

    def _tick(self) -> None:
        with self.world.lock:
            self.world.tick()

    def sleep(self, seconds: float) -> None:
        """Move the fake's clock (inject this as the waiter's ``sleep``)."""
        self.world.clock.advance(seconds)

    def now(self) -> float:
        """The fake's clock (inject this as the waiter's ``clock``)."""
        return self.world.clock.now()

    def gateway(self, **kwargs: Any) -> Any:
        """A real ``CloudGateway`` over the SDK to this fake, with the fake's clock and sleep
        injected (override any gateway argument in ``kwargs``; ``environ`` defaults to ``{}``:
        no credentials)."""
        from ngupgrade.adapters.cloud.gateway import open_gateway

        kwargs.setdefault("clock", self.now)
        kwargs.setdefault("sleep", self.sleep)
        return open_gateway(_Endpoint(self.endpoint), environ=kwargs.pop("environ", {}), **kwargs)

    def calls_to(self, method: str) -> list[Call]:
        """Recorded calls of ``Service.Method`` (e.g. ``NodeGroupService.Update``)."""
        with self.world.lock:
            return [c for c in self.calls if c.method == method]

    def group(self, key: str) -> FakeGroup:
        """The live group by id, name or Terraform address (after catching up with the clock).
        Raises KeyError."""
        with self.world.lock:
            self.world.tick()
            g = self.world.find_group(key)
            if g is None:
                raise KeyError(key)
            return g

    def operation(self, op_id: str) -> FakeOperation:
        """One operation (after catching up with the clock). Raises KeyError."""
        with self.world.lock:
            self.world.tick()
            return self.world.operations[op_id]

    def quota(self, cloud_id: str, quota_id: str) -> QuotaLimit:
        """A quota of a cloud as the fake holds it now."""
        with self.world.lock:
            self.world.tick()
            return self.world.ledger.quota(cloud_id, quota_id)

    def cloud_of(self, folder_id: str) -> str:
        """The cloud of a folder (scenario ``clouds``; else the one cloud, else a default)."""
        return self.world.cloud_of(folder_id)
