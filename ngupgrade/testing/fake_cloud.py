"""A fake Yandex Cloud that speaks the real gRPC API on 127.0.0.1, for tests and runbook drills.

:class:`FakeCloud` is the server and its lifecycle around a :class:`~ngupgrade.testing.world.
World` (groups, nodes, operations, quota usage, faults; no gRPC), the servicers
(:mod:`ngupgrade.testing.servicers`) and the proto mapping (:mod:`ngupgrade.testing.proto`).
It is seeded from node groups (read from a Terraform state by :meth:`FakeCloud.from_state`,
or given as ``NodeGroup`` values) plus a :class:`~ngupgrade.testing.scenario.Scenario`.

Time is the fake's own clock: :class:`VirtualClock` (tests move it; pass ``fake.sleep`` and
``fake.now`` to the waiter and nothing sleeps for real) or :class:`RealClock` with a speed
factor (``ngupgrade fake-cloud --speed 60``). A version update follows the platform's
node-by-node procedure (:mod:`ngupgrade.testing.procedure`, from the Yandex deploy-policy page, not
from the planner), one step per ``step_seconds``; the group reads RECONCILING until the operation is
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
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import grpc

from ngupgrade.core.errors import UsageError
from ngupgrade.core.k8s import NODE_GROUP_LABEL
from ngupgrade.core.model import NodeGroup, QuotaLimit
from ngupgrade.testing import collector
from ngupgrade.testing.clocks import Clock, RealClock, VirtualClock
from ngupgrade.testing.kube_api import FakeKubeApi
from ngupgrade.testing.kube_cluster import cluster_objects
from ngupgrade.testing.objects import FakeGroup, FakeOperation
from ngupgrade.testing.proto import EPOCH
from ngupgrade.testing.scenario import Fault, Scenario
from ngupgrade.testing.servicers import Call, Services
from ngupgrade.testing.world import World

if TYPE_CHECKING:
    from ngupgrade.adapters.cloud.gateway import CloudGateway
    from ngupgrade.adapters.cloud.waiter import Timing

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

    ``clock`` defaults to a :class:`VirtualClock` at 0. What the fake holds is read through
    :meth:`group`, :meth:`operation`, :meth:`quota` and the read-only snapshots ``groups``,
    ``operations`` (by id, in order) and ``quotas`` (cloud -> quota id -> ``(limit, usage)``);
    changed through :meth:`update` (an Update someone else sends), :meth:`set_quota`,
    :meth:`add_fault` and :meth:`add_group`. ``calls`` is every :class:`Call` answered;
    ``kube`` the fake Kubernetes API while the fake runs (None before :meth:`start`);
    ``kubeconfig`` the last file :meth:`write_kubeconfig` wrote. The model behind it
    (``ngupgrade.testing.world.World``) is internal: not part of the stable surface.
    """

    def __init__(
        self,
        groups: Iterable[NodeGroup] = (),
        scenario: Scenario | Mapping[str, Any] | None = None,
        *,
        clock: Clock | None = None,
    ) -> None:
        self._world = World(scenario, clock, groups)
        self.calls: list[Call] = []
        self._server: grpc.Server | None = None
        self.port = 0
        self.kube: FakeKubeApi | None = None
        self.kubeconfig: Path | None = None
        self._freeze = collector.Freeze()

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

    # -- what the fake holds (read-only snapshots) ---------------------------------------------

    @property
    def scenario(self) -> Scenario:
        """The scenario the fake was seeded with."""
        return self._world.scenario

    @property
    def clock(self) -> Clock:
        """The fake's clock (:class:`VirtualClock` unless given)."""
        return self._world.clock

    @property
    def groups(self) -> Mapping[str, FakeGroup]:
        """Node-group id -> :class:`FakeGroup`, now (after catching up with the clock)."""
        with self._world.lock:
            self._world.tick()
            return MappingProxyType(dict(self._world.groups))

    @property
    def operations(self) -> Mapping[str, FakeOperation]:
        """Operation id -> :class:`FakeOperation`, in the order they started, now."""
        with self._world.lock:
            self._world.tick()
            return MappingProxyType(dict(self._world.operations))

    @property
    def quotas(self) -> Mapping[str, Mapping[str, tuple[float | None, float | None]]]:
        """Cloud id -> quota id -> ``(limit, usage)`` as the fake holds them now (usage moves
        with the nodes; a limit None is unlimited)."""
        with self._world.lock:
            self._world.tick()
            return MappingProxyType({
                cloud: MappingProxyType({q: (pair[0], pair[1]) for q, pair in rows.items()})
                for cloud, rows in self._world.quotas.items()})

    def set_quota(self, cloud_id: str, quota_id: str, limit: float | None,
                  usage: float | None = None) -> None:
        """Set a quota's limit (None: unlimited) and, when given, its usage, as a scenario's
        ``quotas`` would; later usage moves with the nodes from there."""
        with self._world.lock:
            row = self._world.quotas.setdefault(cloud_id, {}).setdefault(quota_id, [None, 0.0])
            row[0] = limit
            if usage is not None:
                row[1] = usage

    def update(self, group_id: str, *, version: str | None = None,
               max_expansion: int | None = None, max_unavailable: int | None = None
               ) -> FakeOperation:
        """An Update of the group sent by someone else (the console, ``terraform apply``, a
        colleague's run), as ``NodeGroupService.Update`` of the fields given would: starts
        and returns its operation; it is not recorded in :attr:`calls`.

        Raises:
            Refusal: NOT_FOUND; INVALID_ARGUMENT (a policy outside 0..100 or 0/0, a version
                the scenario does not offer); FAILED_PRECONDITION while another operation
                runs on the group or its cluster.
        """
        with self._world.lock:
            return self._world.update(group_id, version=version, max_expansion=max_expansion,
                                      max_unavailable=max_unavailable)

    def add_group(self, g: NodeGroup) -> FakeGroup:
        """Add a node group seeded from a state value, with the scenario's overrides applied."""
        return self._world.add_group(g)

    def add_fault(self, fault: Fault | Mapping[str, Any]) -> Fault:
        """Script one more fault (same keys as the scenario file). Raises BadInput."""
        return self._world.add_fault(fault)

    # -- server -----------------------------------------------------------------------------

    def start(self, port: int = 0) -> FakeCloud:
        """Serve on 127.0.0.1:``port`` (0 picks a free port; see :attr:`endpoint`).

        Raises UsageError when the port cannot be bound.
        """
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=8),
                             options=[("grpc.so_reuseport", 0)])
        Services(self._world, self.calls, lambda: self.endpoint).add_to(server)
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
        self._serve_kube()
        return self

    def _serve_kube(self) -> None:
        """Start the fake Kubernetes API and its follower (the collector paused while the
        cluster is built; a large one frozen out of its passes, :mod:`.collector`)."""
        from ngupgrade.testing.kube_follow import KubeFollower

        world = self._world
        with collector.paused():
            with world.lock:
                objects = cluster_objects(world.groups.values(), world.scenario.workloads)
            self.kube = FakeKubeApi(objects).start()
            with world.lock:  # from now on the cluster follows the upgrade
                # groups whose nodes the scenario gives are served as given, not followed
                given = {((o.get("metadata") or {}).get("labels") or {}).get(NODE_GROUP_LABEL)
                         for o in world.scenario.workloads if o.get("kind") == "Node"}
                world.kube = KubeFollower(self.kube, skip=given - {None})
                world.kube.follow(world.groups.values(), world.clock.now())
        self._freeze.hold(self.kube.size())
        self.kube.before_read = self._tick

    def stop(self) -> None:
        """Stop serving (in-flight calls get a moment to finish)."""
        if self._server is not None:
            self._server.stop(grace=0.2).wait()
            self._server = None
        if self.kube is not None:
            self.kube.stop()
            self.kube = None
            self._world.kube = None
        self._freeze.release()

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
        with self._world.lock:
            self._world.tick()

    def sleep(self, seconds: float) -> None:
        """Move the fake's clock (inject this as the waiter's ``sleep``)."""
        self._world.clock.advance(seconds)

    def now(self) -> float:
        """The fake's clock (inject this as the waiter's ``clock``)."""
        return self._world.clock.now()

    def timing(self) -> Timing:
        """The fake's time for ngupgrade itself: its clock and sleep, and a wall clock as its
        operation timestamps show it (``EPOCH`` + clock seconds). Pass it to the command line
        in process, ``ngupgrade.cli.main([...], timing=fake_cloud.timing())``, and an
        ``upgrade`` or ``wait`` runs on the virtual clock (docs/cloud.md)."""
        from ngupgrade.adapters.cloud.waiter import Timing

        return Timing(self.now, self.sleep, wall=lambda: EPOCH + self.now(), virtual=True)

    def gateway(self, **kwargs: Any) -> CloudGateway:
        """A real ``CloudGateway`` over the SDK to this fake, with the fake's clock and sleep
        injected (override any gateway argument in ``kwargs``; ``environ`` defaults to ``{}``:
        no credentials)."""
        from ngupgrade.adapters.cloud.gateway import open_gateway

        kwargs.setdefault("clock", self.now)
        kwargs.setdefault("sleep", self.sleep)
        return open_gateway(_Endpoint(self.endpoint), environ=kwargs.pop("environ", {}), **kwargs)

    def calls_to(self, method: str) -> list[Call]:
        """Recorded calls of ``Service.Method`` (e.g. ``NodeGroupService.Update``)."""
        with self._world.lock:
            return [c for c in self.calls if c.method == method]

    def group(self, key: str) -> FakeGroup:
        """The live group by id, name or Terraform address (after catching up with the clock).
        Raises KeyError."""
        with self._world.lock:
            self._world.tick()
            g = self._world.find_group(key)
            if g is None:
                raise KeyError(key)
            return g

    def operation(self, op_id: str) -> FakeOperation:
        """One operation (after catching up with the clock). Raises KeyError."""
        with self._world.lock:
            self._world.tick()
            return self._world.operations[op_id]

    def quota(self, cloud_id: str, quota_id: str) -> QuotaLimit:
        """A quota of a cloud as the fake holds it now."""
        with self._world.lock:
            self._world.tick()
            return self._world.ledger.quota(cloud_id, quota_id)

    def cloud_of(self, folder_id: str) -> str:
        """The cloud of a folder (scenario ``clouds``; else the one cloud, else a default)."""
        return self._world.cloud_of(folder_id)
