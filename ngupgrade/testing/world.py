"""The fake cloud's world: node groups and their nodes, operations, quota usage and faults,
advanced by the clock. No gRPC: the servicers (:mod:`ngupgrade.testing.servicers`) translate
calls into these methods, and a test can drive a world without any server::

    world = World({"step_seconds": 60}, clock=VirtualClock(),
                  groups=[node_group("cat1", size=5, policy=DeployPolicy(2, 0))])
    op = world.update("cat1", version="1.30")
    world.clock.advance(60); world.tick()          # one step: 2 new nodes created

Time: every read and write first calls :meth:`World.tick`, which applies the steps that are
due: a version update does one step of :mod:`ngupgrade.testing.procedure` per
``step_seconds``; a deploy-policy update takes ``policy_seconds``; a blocker (a scripted
operation in progress) ends after its seconds or polls. Callers on several threads hold
:attr:`World.lock`.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ngupgrade.core.errors import BadInput
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.platform import YANDEX
from ngupgrade.testing.checks import closest
from ngupgrade.testing.clocks import Clock, VirtualClock
from ngupgrade.testing.faults import FaultBook
from ngupgrade.testing.group_override import PastOperation
from ngupgrade.testing.objects import CALLER_SUBJECT, FakeGroup, FakeOperation, Refusal
from ngupgrade.testing.procedure import clamped
from ngupgrade.testing.quotas import QuotaBook
from ngupgrade.testing.rollout import Kube, run_due_steps
from ngupgrade.testing.scenario import Fault, Scenario

DEFAULT_FOLDER = "b1gfakefolder00000001"
DAY = 86400.0
"""Seconds between two past upgrades of a scenario's ``history``."""


class World:
    """Everything the fake cloud holds, and how it changes with time.

    ``scenario`` is a :class:`Scenario` or its mapping (see docs/cloud.md); ``clock`` defaults
    to a :class:`VirtualClock` at 0; ``groups`` are state values to seed (more with
    :meth:`add_group`; scripted blockers start on the first one's cluster). Public attributes
    are live: ``groups`` (id -> :class:`FakeGroup`), ``operations`` (id ->
    :class:`FakeOperation`), ``clusters`` (id -> ``folder_id``/``master_version``/``status``),
    ``quotas`` (cloud -> quota id -> ``[limit, usage]``), ``faults`` (the :class:`Fault` list
    in force).
    """

    def __init__(self, scenario: Scenario | Mapping[str, Any] | None = None,
                 clock: Clock | None = None, groups: Iterable[NodeGroup] = ()) -> None:
        self.scenario = scenario if isinstance(scenario, Scenario) else \
            Scenario.from_mapping(scenario)
        self.clock: Clock = clock or VirtualClock()
        self.lock = threading.RLock()
        self.groups: dict[str, FakeGroup] = {}
        self.operations: dict[str, FakeOperation] = {}
        self.clusters: dict[str, dict[str, str]] = {}
        self.book = FaultBook(self.scenario.faults)
        self.ledger = QuotaBook(self.scenario.quotas, self.scenario.folders)
        self._ids = itertools.count(1)
        self.kube: Kube | None = None
        """The fake Kubernetes API's follower while the fake cloud serves one."""
        for g in groups:
            self.add_group(g)
        self.scenario.check_names([(g.id, g.name, g.address) for g in self.groups.values()],
                                  list(self.clusters))
        for cid, over in self.scenario.clusters.items():
            self.clusters.setdefault(cid, {}).update(over)
        for f in self.faults:  # after the groups: a blocker runs on a group's cluster
            if f.kind == "operation_in_progress":
                self.start_blocker(f)

    @property
    def faults(self) -> list[Fault]:
        """The faults in force (scenario order; add with :meth:`add_fault`)."""
        return self.book.items

    @property
    def quotas(self) -> dict[str, dict[str, list[float | None]]]:
        """Cloud id -> quota id -> ``[limit, usage]``; a test may edit it."""
        return self.ledger.tables

    # -- seeding ------------------------------------------------------------------------------

    def add_group(self, g: NodeGroup) -> FakeGroup:
        """Add a node group seeded from a state value, with the scenario's overrides applied
        (``node_groups`` keyed by id, name or Terraform address)."""
        over = None
        for key in (g.id, g.name, str(g.address)):
            over = over or self.scenario.node_groups.get(key)
        fg = FakeGroup.seeded(g, over, DEFAULT_FOLDER)
        with self.lock:
            self.groups[g.id] = fg
            for op in past_operations(fg, over.history if over else (), self._next_id):
                self.operations[op.id] = op
            cluster = self.clusters.setdefault(g.cluster_id, {})
            cluster.setdefault("folder_id", fg.folder_id)
            cluster.setdefault("master_version", g.master_version or fg.version)
            cluster.setdefault("status", "RUNNING")
        return fg

    def add_fault(self, fault: Fault | Mapping[str, Any]) -> Fault:
        """Script one more fault (same keys as the scenario file). Raises BadInput, also for a
        ``group`` the world does not hold."""
        f = fault if isinstance(fault, Fault) else Fault.parse(fault)
        if f.group is not None and self.find_group(f.group) is None:
            raise BadInput(f"fault group {f.group!r} names no node group of the fake",
                           hint=closest(f.group, [k for g in self.groups.values()
                                                  for k in (g.id, g.name, g.address)]))
        with self.lock:
            self.book.add(f)
            if f.kind == "operation_in_progress":
                self.start_blocker(f)
        return f

    def start_blocker(self, f: Fault) -> FakeOperation:
        """Start the operation an ``operation_in_progress`` fault describes (on its group, or
        the first group's cluster)."""
        group = self.find_group(f.group) if f.group else next(iter(self.groups.values()), None)
        op = FakeOperation(
            id=f.operation_id, kind="blocker", description=f.description,
            group_id=group.id if group and f.scope == "node_group" else None,
            cluster_id=group.cluster_id if group else "", created=self.clock.now(),
            duration=f.seconds or math.inf, polls_left=f.polls)
        self.operations[op.id] = op
        return op

    # -- lookups ------------------------------------------------------------------------------

    def find_group(self, key: str | None) -> FakeGroup | None:
        """A group by id, name or Terraform address; None when there is none."""
        if key is None:
            return None
        if key in self.groups:
            return self.groups[key]
        return next((g for g in self.groups.values() if key in (g.name, g.address)), None)

    def group_or_404(self, group_id: str) -> FakeGroup:
        """A group by id. Raises Refusal NOT_FOUND, as NodeGroupService does."""
        g = self.groups.get(group_id)
        if g is None:
            raise Refusal("NOT_FOUND", f"Node group {group_id} not found")
        return g

    def cloud_of(self, folder_id: str) -> str:
        """The cloud of a folder (scenario ``clouds``; else the one cloud, else a default)."""
        return self.ledger.cloud_of(folder_id)

    def group_status(self, g: FakeGroup) -> str:
        """``RECONCILING`` while an operation of the group runs (and for the scripted lags),
        else the group's own status."""
        now = self.clock.now()
        running = [op for op in self.operations.values()
                   if op.group_id == g.id and not op.done and op.kind != "blocker"]
        if running:
            lag = self.book.lag("running_after_update", g)
            if lag and now < running[-1].created + lag:
                return "RUNNING"
            return "RECONCILING"
        if now < g.reconciling_until:
            return "RECONCILING"
        return g.status

    # -- the one mutation -----------------------------------------------------------------------

    def update(self, group_id: str, *, version: str | None = None, latest: bool = False,
               max_expansion: int | None = None, max_unavailable: int | None = None
               ) -> FakeOperation:
        """NodeGroupService.Update of the masked fields given (not None): a deploy policy, a
        ``version`` (``latest``: the group's own version, a new revision). Starts and returns
        the operation.

        Raises:
            Refusal: NOT_FOUND; INVALID_ARGUMENT (policy outside 0..100 or 0/0, the Yandex
            deploy-policy page, the parameter table;
                a version the scenario does not offer); FAILED_PRECONDITION while
                another operation runs on the group or its cluster.
        """
        g = self.group_or_404(group_id)
        policy = None
        if max_expansion is not None or max_unavailable is not None:
            policy = _masked_policy(YANDEX.in_force(g.policy), max_expansion,
                                    max_unavailable)
        target = g.version if latest else (version or "")
        if target and self.scenario.versions is not None \
                and target not in self.scenario.versions:
            raise Refusal("INVALID_ARGUMENT", f"version {target!r} is not available; available: "
                                              f"{', '.join(self.scenario.versions)}")
        blocker = self._conflict(g)
        if blocker is not None:
            raise Refusal("FAILED_PRECONDITION", f"Another operation is in progress: {blocker}")
        op = FakeOperation(
            id=self._next_id(), kind="version" if target else "policy",
            description="Update node group", group_id=g.id, cluster_id=g.cluster_id,
            created=self.clock.now(), target_version=target, policy=policy,
            ignore_policy=self.book.policy_ignored(g), created_by=CALLER_SUBJECT)
        if target:
            if policy is not None and not op.ignore_policy:
                g.policy = policy
            op.start_nodes = g.nodes
            op.surge, op.unavailable = clamped(YANDEX.in_force(g.policy), g.nodes)
            g.target_version = target
        self.operations[op.id] = op
        return op

    def _conflict(self, g: FakeGroup) -> str | None:
        for op in self.operations.values():
            if not op.done and (op.cluster_id == g.cluster_id or op.group_id == g.id):
                return op.id
        return self.book.take_extra_conflict()

    def _next_id(self) -> str:
        while True:
            op_id = f"op-{next(self._ids)}"
            if op_id not in self.operations:
                return op_id

    # -- operations ---------------------------------------------------------------------------

    def operation(self, op_id: str, *, poll: bool = False) -> FakeOperation:
        """One operation; ``poll`` counts an OperationService.Get (a blocker with ``polls``
        ends after that many). Raises Refusal NOT_FOUND."""
        op = self.operations.get(op_id)
        if op is None:
            raise Refusal("NOT_FOUND", f"Operation {op_id} not found")
        if poll and op.kind == "blocker" and not op.done and op.polls_left is not None:
            if op.polls_left <= 0:
                self._finish(op, self.clock.now())
            else:
                op.polls_left -= 1
        return op

    def group_operations(self, group_id: str) -> list[FakeOperation]:
        """The group's operations, newest first. Raises Refusal NOT_FOUND."""
        g = self.group_or_404(group_id)
        return sorted((op for op in self.operations.values() if op.group_id == g.id),
                      key=lambda op: op.created, reverse=True)

    def cluster_operations(self, cluster_id: str) -> list[FakeOperation]:
        """The cluster's own operations (of no group: a ``scope: cluster`` blocker such as a
        master upgrade), newest first; a group's operations, a ``scope: node_group`` blocker
        among them, are its group's (docs/cloud.md). Raises Refusal NOT_FOUND."""
        if cluster_id not in self.clusters:
            raise Refusal("NOT_FOUND", f"Cluster {cluster_id} not found")
        return sorted((op for op in self.operations.values() if op.cluster_id == cluster_id
                       and op.group_id is None),
                      key=lambda op: op.created, reverse=True)

    def cluster_groups(self, cluster_id: str) -> list[FakeGroup]:
        """ClusterService.ListNodeGroups: the cluster's node groups, in the order seeded.
        Raises Refusal NOT_FOUND."""
        if cluster_id not in self.clusters:
            raise Refusal("NOT_FOUND", f"Cluster {cluster_id} not found")
        return [g for g in self.groups.values() if g.cluster_id == cluster_id]

    # -- time -----------------------------------------------------------------------------------

    def tick(self) -> None:
        """Apply everything due by the clock's ``now()``."""
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
        if self.kube is not None:
            self.kube.follow(self.groups.values(), now)

    def _advance_version(self, op: FakeOperation, now: float) -> None:
        g = self.groups[op.group_id or ""]
        end = run_due_steps(g, op, now, self.scenario.step_seconds, self.book, self.ledger,
                            self.kube)
        if end is None:
            return
        at, op.error = end
        if op.error is None:
            g.version = op.target_version
        g.target_version = None
        self._finish(op, at)

    def _finish(self, op: FakeOperation, at: float) -> None:
        op.done, op.finished = True, at
        if op.group_id and op.kind != "blocker":
            g = self.groups[op.group_id]
            lag = self.book.lag("reconciling_after_done", g)
            g.reconciling_until = at + lag if lag else -1.0


def _masked_policy(current: DeployPolicy, max_expansion: int | None,
                   max_unavailable: int | None) -> DeployPolicy:
    """The policy an Update asks for: masked fields given, others as they are. Raises Refusal
    INVALID_ARGUMENT outside 0..100 or for 0/0 (the Yandex deploy-policy page, the parameter
    table)."""
    policy = DeployPolicy(
        current.max_expansion if max_expansion is None else max_expansion,
        current.max_unavailable if max_unavailable is None else max_unavailable)
    if not all(0 <= v <= 100 for v in (policy.max_expansion, policy.max_unavailable)):
        raise Refusal("INVALID_ARGUMENT", "deploy_policy values must be in 0..100")
    if policy.max_expansion == 0 and policy.max_unavailable == 0:
        raise Refusal("INVALID_ARGUMENT", "max_expansion and max_unavailable cannot both be 0")
    return policy


def past_operations(g: FakeGroup, past: Sequence[PastOperation],
                    next_id: Callable[[], str]) -> list[FakeOperation]:
    """The scenario's past upgrades of ``g`` as finished operations before time 0, one a day,
    the last ending a day before the fake starts; each served the group's nodes."""
    out: list[FakeOperation] = []
    for i, p in enumerate(past):
        start = -DAY * (len(past) - i) - p.minutes * 60
        out.append(FakeOperation(
            id=next_id(), kind="version", description=p.description, group_id=g.id,
            cluster_id=g.cluster_id, created=start, done=True,
            finished=start + p.minutes * 60, duration=p.minutes * 60,
            start_nodes=g.nodes, error=None if p.error is None else (13, p.error)))
    return out
