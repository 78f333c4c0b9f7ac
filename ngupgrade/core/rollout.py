"""What a node group's nodes did between two polls of an upgrade, from the cloud API alone. Pure.

``NodeGroupService.ListNodes`` gives, per node, its instance id, the platform's status
(``READY``, ``NOT_READY``, ``STOPPED``...), the Kubernetes conditions and taints, and the
volumes attached (the Yandex Cloud API's ``Node`` statuses). :class:`RolloutTracker` turns
successive readings into facts that cannot lie:

* **done**: an old node (there when the upgrade started) is done when it is gone, or when it
  was cordoned for its drain and is back schedulable and Ready (updated in place). Nodes
  created during the upgrade never count, so progress never passes 100 % even when an
  autoscaler removes new nodes mid-upgrade (Azure/AKS#5340: "7/5 nodes completed").
* **drains**: a node tainted ``node.kubernetes.io/unschedulable`` is cordoned; the first poll
  that sees the taint is when its drain started (the API gives no time). The drain ends when
  the node is gone or schedulable again; it was **forced** when that took longer than the
  platform's drain timeout (Yandex: 7 minutes, docs node-drain), or the node went STOPPED
  while cordoned past it.
* **removed unexpectedly**: a node created by this upgrade that disappears without having
  been cordoned (Azure/AKS#5340: the autoscaler deleted a new node). An old node that goes without a
  cordon seen is the upgrade's own work, drained and deleted between two polls (at 3/0 on a
  3-node group the platform drains all three at once, with room for every pod on the new
  nodes, in less than a poll interval of up to 30 s): it is done, and no news.
* **not Ready**: a node created by the upgrade, or updated in place, that is not Ready;
  **stopped with volumes**: a node STOPPED whose ``attached_volumes`` still list volumes
  (a detach that does not finish keeps the next node from taking them).
* **below the floor**: fewer Ready, schedulable nodes than the group size minus
  ``max_unavailable`` (the Yandex deploy-policy page: the deploy policy promises no more than U
  unavailable).

Times are seconds on the caller's clock, passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
"""The taint ``kubectl cordon`` (and the platform's drain) puts on a node."""


@dataclass(frozen=True)
class NodeView:
    """One node as ``ListNodes`` shows it.

    ``status`` is the ``Node.Status`` name; ``ready`` the Kubernetes ``Ready`` condition (the
    platform's READY status when the API gives no conditions); ``cordoned`` the
    unschedulable taint; ``volumes`` the handles of ``attached_volumes``; ``name`` the
    Kubernetes node name (``kubernetes_status.id``).
    """

    instance_id: str
    status: str
    ready: bool
    cordoned: bool
    name: str = ""
    volumes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The Kubernetes name when known, else the instance id."""
        return self.name or self.instance_id


@dataclass
class NodeDrain:
    """One node's drain as seen from the cloud: cordoned at ``started``; ``ended`` when gone
    or schedulable again (None while it lasts); ``forced`` past the drain timeout."""

    node: str
    instance_id: str
    started: float
    ended: float | None = None
    forced: bool = False
    stopped: bool = False

    def seconds(self, now: float) -> float:
        """How long it has lasted (or lasted)."""
        return (self.ended if self.ended is not None else now) - self.started


@dataclass(frozen=True)
class RolloutChange:
    """Something that happened between two readings: ``kind`` is ``drain_started``,
    ``drain_finished``, ``drain_forced`` or ``node_removed`` (gone without a drain)."""

    kind: str
    node: str
    instance_id: str
    seconds: float = 0.0
    new: bool = False
    """For ``node_removed``: the node was created by this upgrade."""


FORCED_SLACK_SECONDS = 60.0
"""One poll: how late a cordon may be first seen (the waiter polls at most every 30 s, the
watchdog's look every poll), so a stop that late before the timeout is still the timeout's."""


@dataclass
class RolloutTracker:
    """Facts about an upgrade from successive ``ListNodes`` readings (see the module).

    ``start_ids``: the instances at the start (empty: unknown, e.g. resumed from the cloud's
    own record: then ``done`` is None). ``group_size``: the size to come back to;
    ``max_unavailable``: U' of the policy in force; ``drain_timeout``: seconds after which
    the platform stops a draining node (Yandex 420, docs node-drain; None: never).
    """

    start_ids: frozenset[str]
    group_size: int
    max_unavailable: int
    drain_timeout: float | None = 420.0
    drains: dict[str, NodeDrain] = field(default_factory=dict)
    """Instance id -> its latest drain."""
    gone: set[str] = field(default_factory=set)
    updated: set[str] = field(default_factory=set)
    not_ready_since: dict[str, float] = field(default_factory=dict)
    removed: list[RolloutChange] = field(default_factory=list)
    last: dict[str, NodeView] = field(default_factory=dict)
    pods_left: dict[str, int] = field(default_factory=dict)
    """Node label -> pods still on it at the last look (kube access; the caller keeps it)."""

    @classmethod
    def start(cls, start_ids: Iterable[str], group_size: int, max_unavailable: int,
              drain_timeout: float | None = 420.0, done: Iterable[str] = ()
              ) -> RolloutTracker:
        """A tracker for an upgrade that starts from these instances; ``done``: those an
        earlier watch of the same upgrade saw done (a resumed wait), counted done while they
        are gone or Ready and schedulable."""
        tracker = cls(frozenset(start_ids), group_size, max_unavailable, drain_timeout)
        tracker.updated.update(set(done) & tracker.start_ids)
        return tracker

    @property
    def done_ids(self) -> list[str]:
        """The old nodes seen done (gone, or updated in place), sorted: what a journal keeps
        for a resumed watch."""
        return sorted((self.gone | self.updated) & self.start_ids)

    def observe(self, nodes: Sequence[NodeView], now: float) -> list[RolloutChange]:
        """Take one reading; what changed since the last one, in node order."""
        changes: list[RolloutChange] = []
        seen = {n.instance_id: n for n in nodes}
        for iid, before in self.last.items():
            if iid in seen:
                continue
            drain = self._open_drain(iid)
            if drain is not None:
                changes.append(self._end_drain(drain, now))
            elif iid not in self.start_ids:  # an old node: replaced between two polls
                change = RolloutChange("node_removed", before.label, iid, new=True)
                self.removed.append(change)
                changes.append(change)
            if iid in self.start_ids:
                self.gone.add(iid)
            self.not_ready_since.pop(iid, None)
        for n in nodes:
            drain = self._open_drain(n.instance_id)
            if n.cordoned and drain is None:
                self.drains[n.instance_id] = NodeDrain(n.label, n.instance_id, now)
                changes.append(RolloutChange("drain_started", n.label, n.instance_id))
            elif drain is not None and n.status == "STOPPED" and not drain.stopped:
                drain.stopped = True
                if self._past_timeout(drain, now):
                    drain.forced = True
            elif drain is not None and not n.cordoned:
                changes.append(self._end_drain(drain, now))
                if n.instance_id in self.start_ids:
                    self.updated.add(n.instance_id)
            fresh = n.instance_id not in self.start_ids or n.instance_id in self.updated
            if fresh and not n.ready and not n.cordoned:
                self.not_ready_since.setdefault(n.instance_id, now)
            else:
                self.not_ready_since.pop(n.instance_id, None)
        if not self.last:
            # the first reading: an old node missing already left before this watch began
            # (a resumed wait: replaced during the interrupted run), and is done
            self.gone |= self.start_ids - seen.keys()
        self.last = dict(seen)
        return changes

    def _open_drain(self, iid: str) -> NodeDrain | None:
        drain = self.drains.get(iid)
        return drain if drain is not None and drain.ended is None else None

    def _past_timeout(self, drain: NodeDrain, now: float) -> bool:
        # at the timeout itself the platform stops the node (a drain seen for exactly 420 s
        # ended by the stop, the node gone in the same poll). The cordon is first seen up to
        # one poll after it happened, so a drain that still held pods at the last look (kube
        # access: ``pods_left``) counts as forced from one poll before the timeout.
        if self.drain_timeout is None:
            return False
        slack = FORCED_SLACK_SECONDS if self.pods_left.get(drain.node, 0) > 0 else 0.0
        return drain.seconds(now) >= self.drain_timeout - slack

    def _end_drain(self, drain: NodeDrain, now: float) -> RolloutChange:
        forced = drain.forced or self._past_timeout(drain, now)
        drain.ended, drain.forced = now, forced
        return RolloutChange("drain_forced" if forced else "drain_finished", drain.node,
                             drain.instance_id, seconds=drain.seconds(now))

    # -- what the readings say ---------------------------------------------------------------

    @property
    def total(self) -> int:
        """Old nodes to replace: the instances at the start."""
        return len(self.start_ids)

    @property
    def done(self) -> int | None:
        """Old nodes gone or updated in place and Ready; None when the start is unknown.
        Never above :attr:`total`."""
        if not self.start_ids:
            return None
        back = {iid for iid in self.updated
                if iid in self.last and self.last[iid].ready and not self.last[iid].cordoned}
        return len((self.gone | back) & self.start_ids)

    def cordoned(self, now: float) -> list[NodeDrain]:
        """Nodes draining now, longest first."""
        return sorted((d for d in self.drains.values() if d.ended is None),
                      key=lambda d: (d.started, d.node))

    def ready_schedulable(self) -> int:
        """Ready nodes that take pods (not cordoned) in the last reading."""
        return sum(1 for n in self.last.values() if n.ready and not n.cordoned)

    @property
    def floor(self) -> int:
        """Fewest Ready, schedulable nodes the deploy policy allows: size minus U."""
        return max(0, self.group_size - self.max_unavailable)

    def below_floor(self) -> bool:
        """True when fewer nodes take pods than the policy promises."""
        return bool(self.last) and self.ready_schedulable() < self.floor

    def not_ready(self, now: float, after: float = 0.0) -> list[tuple[str, float]]:
        """``(node, seconds not Ready)`` of new or updated nodes not Ready for ``after`` s."""
        out = [(self.last[iid].label, now - since) for iid, since in self.not_ready_since.items()
               if iid in self.last and now - since >= after]
        return sorted(out)

    def stopped_with_volumes(self) -> list[tuple[str, tuple[str, ...]]]:
        """``(node, volume handles)`` of STOPPED nodes that still list attached volumes."""
        return sorted((n.label, n.volumes) for n in self.last.values()
                      if n.status == "STOPPED" and n.volumes)

    def finished_drains(self) -> list[NodeDrain]:
        """Drains that ended, in the order they started."""
        return sorted((d for d in self.drains.values() if d.ended is not None),
                      key=lambda d: (d.started, d.node))
