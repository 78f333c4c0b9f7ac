"""Watching a version update poll by poll: progress that cannot lie, each node's drain, nodes
removed unexpectedly, and the watchdog's diagnosis.

One :class:`RolloutWatch` per wait. Each poll it reads ``ListNodes`` once (the calls per poll
do not grow with the group: one ``Get``, one ``ListNodes`` page per 1000 nodes, and with kube
access one list per kind, :mod:`ngupgrade.upgrade.pods`), feeds the pure tracker
(:class:`ngupgrade.core.rollout.RolloutTracker`) and turns what changed into events:
``drain`` (started, pods_left, finished, forced), ``node_removed`` (Azure/AKS#5340), and at the end
a ``drain_summary``. When the watchdog stops the wait (no change for ``--stall-after``, or
fewer Ready nodes than the policy allows while a new node is not Ready) :meth:`diagnosis`
names the cause (:func:`ngupgrade.core.stall.diagnose`).

Wall-clock times (the forced stop at HH:MM) come from the operation's ``created_at`` plus the
seconds waited on the injected clock, so on the fake cloud they are the fake's own times, and
say they are virtual when the clock is (``Timing.virtual``). A resumed wait places
``created_at`` on its clock by the operation's age on the run's wall clock, or, when that
wall clock is not the cloud's (a drill), by the time since the journal's step start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ngupgrade.adapters.cloud.types import LiveNode
from ngupgrade.core.rollout import NodeView, RolloutChange, RolloutTracker
from ngupgrade.core.stall import (
    Diagnosis,
    Draining,
    HeldPod,
    PendingPod,
    StallFacts,
    clock_text,
    diagnose,
)
from ngupgrade.upgrade.events import DrainSummary, Emit, NodeDrainEvent, NodeRemoved

OPERATION_AGE_BOUND = 7 * 86400.0
"""An operation's age on the run's wall clock beyond which (or below zero, past the clock
skew) that wall clock is not the operation's: a drill against a fake cloud whose time has
its own epoch. The run's own wall clock anchors the times then."""

CLOCK_SKEW = 300.0
"""Seconds the cloud's clock may run ahead of the run's."""

NOT_READY_GRACE = 120.0
"""Seconds a new or updated node may take to turn Ready before it is named (a kubelet
registers within a minute or two of the instance running)."""


@dataclass(frozen=True)
class PodFacts:
    """What the kube side shows in one poll: pods left per draining node (with the PDB that
    refuses each, if any), evicted pods Pending with the scheduler's reason."""

    held: tuple[HeldPod, ...] = ()
    pending: tuple[PendingPod, ...] = ()


class PodWatch(Protocol):
    """Reads the pods of draining nodes (``ngupgrade.upgrade.pods.KubePodWatch``)."""

    def look(self, draining: Sequence[str]) -> PodFacts:
        """Pod facts for these draining node names; a constant number of list calls."""
        ...

    def disruptions(self) -> dict[str, int]:
        """Workload (``namespace/kind/name``) -> pods of it seen evicted so far."""
        ...

    def pending(self) -> tuple[PendingPod, ...]:
        """The Pending pods of the workloads seen on a draining node, read now."""
        ...

    @property
    def seeing(self) -> bool:
        """False once the pods are no longer read (a failed advisory read)."""
        ...


def node_view(n: LiveNode) -> NodeView:
    """A ``ListNodes`` entry as the pure tracker reads it."""
    ready = n.ready if n.ready is not None else n.status == "READY"
    return NodeView(n.instance_id, n.status, ready and n.status != "STOPPED", n.unschedulable,
                    n.kubernetes_node_id, n.volumes)


@dataclass
class RolloutWatch:
    """The per-wait state: tracker, wall-clock anchor, the last pod facts.

    ``emit`` sends events for ``group`` (address). ``surge``: E' of the plan (a surge node is
    expected first); ``tight_quota``: the preflight's closest quota as text.
    """

    tracker: RolloutTracker
    emit: Emit
    group: str
    surge: int = 0
    tight_quota: str | None = None
    pods: PodWatch | None = None
    wall0: float | None = None
    clock0: float = 0.0
    virtual: bool = False
    """The caller's clock is virtual (``Timing.virtual``): the times printed say so."""
    facts: PodFacts = field(default_factory=PodFacts)
    _pods_left: dict[str, int] = field(default_factory=dict)
    _pods_before_stop: dict[str, list[str]] = field(default_factory=dict)

    def anchor(self, created_at: float, now: float, *, wall_now: float | None = None,
               since_wall: float | None = None, scale: float = 1.0) -> None:
        """Tie the caller's clock to the cloud's (once): the operation was created at
        ``now``; or, with ``wall_now`` (a resumed wait: the operation began before this run;
        the run's wall clock at ``now``), ``wall_now - created_at`` seconds before ``now``.

        A wall clock that cannot be the operation's (an age beyond
        :data:`OPERATION_AGE_BOUND` or below the skew: a drill against a fake cloud with its
        own epoch, ``upgrade --time-scale``) never gives the times: they stay on the cloud's
        clock, ``created_at`` plus the operation's age, which is the time since its step
        started (``since_wall``, the journal's, on the wall clock) times ``scale`` (clock
        seconds per wall second), or 0 when the journal has no start (the attach)."""
        if self.wall0 is not None:
            return
        if wall_now is None:
            if created_at > 0:
                self.wall0, self.clock0 = created_at, now
            return
        age = wall_now - created_at
        if created_at > 0 and -CLOCK_SKEW <= age <= OPERATION_AGE_BOUND:
            self.wall0, self.clock0 = created_at, now - max(age, 0.0)
            return
        age = 0.0 if since_wall is None else max((wall_now - since_wall) * scale, 0.0)
        if created_at > 0:
            self.wall0, self.clock0 = created_at, now - age
        else:  # the API left created_at unset: the wall clock is all there is
            self.wall0, self.clock0 = wall_now, now - age

    def wall(self, t: float) -> float | None:
        """Wall-clock seconds (epoch) of caller time ``t``, when anchored."""
        return None if self.wall0 is None else self.wall0 + (t - self.clock0)

    def observe(self, nodes: Sequence[LiveNode], now: float) -> None:
        """One poll's nodes: update the tracker, read the pods of draining nodes, emit."""
        self.tracker.pods_left = dict(self._pods_left)  # pods left at the last look decide
        changes = self.tracker.observe([node_view(n) for n in nodes], now)  # a forced stop
        for change in changes:
            self._emit_change(change, now)
        draining = [d.node for d in self.tracker.cordoned(now)]
        if self.pods is not None:
            self.facts = self.pods.look(draining)
            if not self.pods.seeing:  # cloud-only now: no count of pods it no longer reads
                self._pods_left.clear()
                return
            for node in draining:
                left = sorted(h.pod for h in self.facts.held if h.node == node)
                drain = next(d for d in self.tracker.cordoned(now) if d.node == node)
                if not drain.stopped:  # the pods a forced stop takes down
                    self._pods_before_stop[node] = left
                if self._pods_left.get(node) != len(left):
                    self._pods_left[node] = len(left)
                    self.emit(NodeDrainEvent(group=self.group, node=node, phase="pods_left",
                                             seconds=round(now - drain.started, 1), pods=left,
                                             blocked_by=sorted({h.pdb for h in self.facts.held
                                                                if h.node == node and h.pdb})))

    def _emit_change(self, c: RolloutChange, now: float) -> None:
        if c.kind == "node_removed":
            self.emit(NodeRemoved(group=self.group, node=c.node, instance_id=c.instance_id,
                                  new=c.new))
            return
        phase = {"drain_started": "started", "drain_finished": "finished",
                 "drain_forced": "forced"}[c.kind]
        stop_at = None
        if phase == "started" and self.tracker.drain_timeout is not None:
            wall = self.wall(now)
            stop_at = None if wall is None else clock_text(wall + self.tracker.drain_timeout,
                                                           virtual=self.virtual)
        self.emit(NodeDrainEvent(group=self.group, node=c.node, phase=phase,
                                 seconds=round(c.seconds, 1), forced_stop_at=stop_at))

    def alarm(self, now: float) -> bool:
        """Fewer Ready, schedulable nodes than size minus U while a new or updated node is
        not Ready past its grace: the policy's promise is broken before the operation ends."""
        return self.tracker.below_floor() and bool(self.tracker.not_ready(now, NOT_READY_GRACE))

    def diagnosis(self, now: float, unchanged_for: float, group_size: int) -> Diagnosis:
        """Name what holds the upgrade now."""
        t = self.tracker
        drains = tuple(Draining(d.node, d.started, self.wall(d.started))
                       for d in t.cordoned(now))
        grew = any(iid not in t.start_ids for iid in t.last) or len(t.last) > group_size
        return diagnose(StallFacts(
            now=now, unchanged_for=unchanged_for, draining=drains,
            drain_timeout=t.drain_timeout, kube=self.pods is not None and self.pods.seeing,
            held=self.facts.held, pending=self.facts.pending,
            not_ready=tuple(t.not_ready(now, NOT_READY_GRACE)),
            stopped_with_volumes=tuple(t.stopped_with_volumes()),
            surge_missing=self.surge > 0 and not grew and not drains,
            tight_quota=self.tight_quota, virtual_clock=self.virtual))

    def summary(self, now: float) -> DrainSummary | None:
        """The closing ``drain_summary``: per node its drain time and whether it was forced
        (with kube access, a forced node's ``pods_stopped``: the pods still on it at the last
        look before it stopped; left out when its pods were not seen); per workload the
        disruptions seen (kube access); None when no drain was seen."""
        t = self.tracker
        drains = t.finished_drains() + t.cordoned(now)
        if not drains:
            return None
        nodes: list[dict[str, Any]] = [
            {"node": d.node, "seconds": round(d.seconds(now), 1), "forced": d.forced,
             "finished": d.ended is not None} for d in drains]
        if self.pods is not None:
            for entry in nodes:  # a node drained once the pods were no longer read: unknown
                if entry["forced"] and entry["node"] in self._pods_before_stop:
                    entry["pods_stopped"] = self._pods_before_stop[entry["node"]]
        workloads = ([{"workload": w, "disruptions": n}
                      for w, n in sorted(self.pods.disruptions().items())]
                     if self.pods is not None else None)
        return DrainSummary(group=self.group, nodes=nodes, workloads=workloads,
                            removed=[{"node": c.node, "instance_id": c.instance_id,
                                      "new": c.new} for c in t.removed])


def tight_quota_text(preflight: Any) -> str | None:
    """The quota with the least room left after the group's surge, from a preflight verdict
    (``core.quota.preflight.Preflight``): ``compute.instanceCores.count (needs 4, headroom 6)``."""
    from ngupgrade.core.units import human_quota

    best: tuple[float, str] | None = None
    for cloud in getattr(preflight, "clouds", ()):
        for q in cloud.quotas:
            if q.headroom is None or q.demand <= 0:
                continue
            room = (q.headroom - q.demand) / max(q.demand, 1)
            # the row's name: a per-group, per-cluster or placement-group row with its scope
            text = (f"{q.name} (needs {human_quota(q.quota_id, q.demand)}, headroom "
                    f"{human_quota(q.quota_id, q.headroom)})")
            if best is None or room < best[0]:
                best = (room, text)
    return None if best is None else best[1]
