"""Placing evicted pods on schedulable nodes, the way kube-scheduler filters and scores. Pure.

Filters (scheduler plugins NodeUnschedulable, NodeAffinity, TaintToleration,
NodeResourcesFit, VolumeBinding's PV node affinity): :func:`pod_may_run_on` and the
requests of :func:`pod_request` against ``allocatable - requests of the pods bound``
(cpu, memory, ephemeral-storage, the pod count, extended resources such as
``nvidia.com/gpu``; the rules of :func:`ngupgrade.core.drain.resources.fits`). Cordoned or
draining nodes take nothing.

Score: like the default ``LeastAllocated`` strategy, the feasible node with the most free
cpu and memory (as a share of its allocatable) wins. kube-scheduler stops filtering after
``numFeasibleNodesToFind`` feasible nodes (at least 100) from a start that rotates between
pods; the check does the same with :data:`FEASIBLE_NODES_TO_FIND` = 10, which keeps a
placement cheap on a 5,000-node cluster (the advisor runs thousands). The sample only
changes *which* node with room a pod lands on (the spread); whether a node with room exists
is always answered over every eligible node. Pods are placed largest first. A real
scheduler sees pods in creation order, so in packing edge cases the answer "fits" or "does
not fit" can differ; the checks that matter (selectors, taints, a pod bigger than any node,
total room) do not.

Speed (the drain check's budget: 5,000 nodes, 150,000 pods, every group, up to 10 orders each): a
node is an index into flat lists (:class:`RoomTable`, built once per group; :class:`Placer` copies
the four free-room lists per order, a C-level copy), a pod's request is a :class:`Need` computed
once per group, and the placement loop reads plain ints. The profile this replaced spent its
time in per-node dicts (``dict.get``, ``fits``, ``score``) and frozen values replaced per
placement. The arithmetic and the visiting order are the same as the dict version's, so the
same node wins, ties included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ngupgrade.core.drain.resources import CPU, EPHEMERAL, MEMORY, PODS, STANDARD
from ngupgrade.core.drain.selectors import pod_may_run_on
from ngupgrade.core.k8s import Node, NodeSelectorTerm, Pod

FEASIBLE_NODES_TO_FIND = 10
"""Feasible nodes scored per placement (kube-scheduler: at least 100; see above)."""

ClassKey = tuple[object, ...]

UNKNOWN = 1 << 62
"""Free room of a standard resource the node does not report: never short (``fits`` skips
such a resource); far above any real amount, so subtracting requests keeps it so."""

_ORDER = (CPU, MEMORY, EPHEMERAL, PODS)


def class_key(pod: Pod, extra_terms: tuple[NodeSelectorTerm, ...]) -> ClassKey:
    """Pods with equal node selection constraints share one list of eligible nodes."""
    return (tuple(sorted(pod.node_selector.items())), pod.required_node_affinity,
            pod.tolerations, extra_terms)


@dataclass
class NodeRoom:
    """A node the simulation may place pods on: its allocatable and what is free now (the
    model's starting point; a run works on a :class:`Placer`'s copy)."""

    node: Node
    allocatable: Mapping[str, int]
    free: dict[str, int]


class Need:
    """A pod's effective request (``request``, see :func:`pod_request`) split for the
    placement loop: ``amounts`` (cpu millicores, memory bytes, ephemeral bytes, pods) to
    take and score; ``check`` the same where positive, else ``-UNKNOWN`` (a zero request
    fits any room, even a negative one, as :func:`fits` says); ``ext`` the extended
    resources (``nvidia.com/gpu``...) or None."""

    __slots__ = ("amounts", "check", "ext", "request", "sig")

    def __init__(self, request: Mapping[str, int]) -> None:
        self.request = request
        self.amounts = tuple(request.get(k, 0) for k in _ORDER)
        self.check = tuple(a if a > 0 else -UNKNOWN for a in self.amounts)
        ext = {k: v for k, v in request.items() if k not in STANDARD}
        self.ext = ext or None
        # equal requests, equal signature (``PodFacts`` shares one Need per class and sig)
        self.sig: tuple[object, ...] = (self.amounts, tuple(sorted(ext.items())))

    def at_least(self, other: Need) -> bool:
        """True when every amount of ``other``'s request is covered by this one's."""
        if any(a < b for a, b in zip(self.amounts, other.amounts, strict=True)):
            return False
        mine = self.ext or {}
        return all(mine.get(k, 0) >= v for k, v in (other.ext or {}).items())


class RoomTable:
    """The nodes that may take pods in one group's model, by index (``names[i]``), with
    their room at the start of every run: free ``cpu``, ``memory``, ``ephemeral``, ``pods``
    (:data:`UNKNOWN` when not reported), ``allocatable`` the same for a node's reset,
    ``ext``/``ext_allocatable`` extended resources of the nodes that have some, the cpu and
    memory ``1 / allocatable`` of the LeastAllocated score (0.0 when not reported; ``shares``
    how many are), ``surge`` and ``mine`` (the group's or a surge node) flags, and ``open``
    the nodes taking pods when a run starts."""

    def __init__(self, rooms: Mapping[str, NodeRoom], open_names: Iterable[str],
                 surge: Iterable[str], mine: Iterable[str]) -> None:
        self.names = list(rooms)
        self.index = {name: i for i, name in enumerate(self.names)}
        self.rooms = [rooms[n] for n in self.names]
        self.free = [[_std(r.free, k) for r in self.rooms] for k in _ORDER]
        self.allocatable = [[_std(r.allocatable, k) for r in self.rooms] for k in _ORDER]
        self.ext = {i: {k: v for k, v in r.free.items() if k not in STANDARD}
                    for i, r in enumerate(self.rooms) if set(r.free) - STANDARD}
        self.ext_allocatable = {
            i: {k: v for k, v in r.allocatable.items() if k not in STANDARD}
            for i, r in enumerate(self.rooms) if set(r.allocatable) - STANDARD}
        self.inverse = [[1.0 / r.allocatable[k] if r.allocatable.get(k) else 0.0
                         for r in self.rooms] for k in (CPU, MEMORY)]
        self.shares = [max(1, sum(1 for k in (CPU, MEMORY) if r.allocatable.get(k)))
                       for r in self.rooms]
        self.surge = bytearray(len(self.names))
        self.mine = bytearray(len(self.names))
        for name in surge:
            self.surge[self.index[name]] = 1
        for name in mine:
            self.mine[self.index[name]] = 1
        self.open = bytearray(len(self.names))
        for name in open_names:
            self.open[self.index[name]] = 1
        self.eligible: dict[int, tuple[list[int], int]] = {}
        self.positions: dict[int, dict[int, int]] = {}

    def positions_of(self, key: int) -> dict[int, int]:
        """Node index -> its position in class ``key``'s eligible list (built once)."""
        found = self.positions.get(key)
        if found is None:
            both, count = self.eligible[key]
            found = self.positions[key] = {i: p for p, i in enumerate(both[:count])}
        return found

    def eligible_of(self, pod: Pod, key: int, extra_terms: tuple[NodeSelectorTerm, ...]
                    ) -> tuple[list[int], int]:
        """The indexes of the nodes whose labels and taints let ``pod`` run (any room),
        written twice over (``(list + list, count)``) so a scan from any start is one
        ``range``; cached per class (``key`` numbers a :func:`class_key`) for every run of
        the group."""
        found = self.eligible.get(key)
        if found is None:
            names = [i for i, room in enumerate(self.rooms)
                     if pod_may_run_on(pod, room.node, extra_terms)]
            found = self.eligible[key] = (names + names, len(names))
        return found


def _std(amounts: Mapping[str, int], key: str) -> int:
    value = amounts.get(key)
    return UNKNOWN if value is None else value


class Placer:
    """Finds a node for each pod among the nodes open now, during one run.

    ``open`` flags the nodes that take pods at this moment (``open_surge`` and ``open_mine``
    count the surge nodes and the group's nodes among them). Between two openings room only
    shrinks and closed nodes stay closed, so what failed stays failed until nodes are opened
    again: failures are cached per :func:`class_key` (a request at least as large as a
    failed one fails too). Per class and request, the nodes found without room are skipped
    by later scans (``_maybe``: a bit per position of the class's eligible list, cleared
    when the node is found full or closed, set again only when the node is opened or reset,
    the only moments its room can grow), so a full cluster is not rescanned node by node at
    every opening. The scan still visits the nodes with room in the same order, so the same
    node wins. ``version`` counts the changes of room or of the open nodes (for
    :meth:`shortage`'s cache).
    """

    def __init__(self, table: RoomTable) -> None:
        self.table = table
        self.cpu, self.memory, self.ephemeral, self.pods = (list(f) for f in table.free)
        self.ext = {i: dict(d) for i, d in table.ext.items()}
        self.open = bytearray(table.open)
        self.open_surge = sum(1 for i, o in enumerate(table.open) if o and table.surge[i])
        self.open_mine = sum(1 for i, o in enumerate(table.open) if o and table.mine[i])
        self._failed: dict[int, list[Need]] = {}
        self._dead: set[Need] = set()
        self._maybe: dict[Need, list[int]] = {}  # need -> [class key, bit mask]
        self._shortage: dict[Need, tuple[int, tuple[int, tuple[str, ...]]]] = {}
        self._start = 0
        self.version = 0

    def open_nodes(self, names: Iterable[str]) -> None:
        """Let ``names`` take pods from now on (clears the failure caches)."""
        self._failed.clear()
        self._dead.clear()
        self.version += 1
        table = self.table
        opened = []
        for name in names:
            i = table.index[name]
            if not self.open[i]:
                self.open[i] = 1
                self.open_surge += table.surge[i]
                self.open_mine += table.mine[i]
                opened.append(i)
        self._revive(opened)

    def _revive(self, nodes: list[int]) -> None:
        """``nodes`` may have room again: every class's scan visits them again."""
        if not nodes:
            return
        for entry in self._maybe.values():
            where = self.table.positions_of(entry[0])
            for i in nodes:
                p = where.get(i)
                if p is not None:
                    entry[1] |= 1 << p

    def close(self, names: Iterable[str]) -> None:
        """Cordon ``names``: they take nothing from now on."""
        self.version += 1
        table = self.table
        for name in names:
            i = table.index[name]
            if self.open[i]:
                self.open[i] = 0
                self.open_surge -= table.surge[i]
                self.open_mine -= table.mine[i]

    def reset(self, name: str, used: Mapping[str, int]) -> None:
        """``name`` is back from its update holding only ``used``: allocatable minus it."""
        self._failed.clear()
        self._dead.clear()
        self.version += 1
        table = self.table
        i = table.index[name]
        self._revive([i])
        for k, free, allocatable in zip(_ORDER, (self.cpu, self.memory, self.ephemeral,
                                                 self.pods), table.allocatable, strict=True):
            free[i] = allocatable[i] - (used.get(k, 0) if allocatable[i] != UNKNOWN else 0)
        ext = dict(table.ext_allocatable.get(i, {}))
        for k in ext:
            ext[k] -= used.get(k, 0)
        if ext or i in self.ext:
            self.ext[i] = ext

    def place(self, pod: Pod, need: Need, key: int,
              extra_terms: tuple[NodeSelectorTerm, ...]) -> str | None:
        """Bind ``pod`` (its request ``need``) to the best open node with room and return the
        node's name, or None. ``need`` stands for its class and request: pods of one class
        with equal requests share one :class:`Need` (``PodFacts``), so what is known of one
        is known of all."""
        if need in self._dead:
            return None
        failed = self._failed.get(key)
        if failed and any(need.at_least(f) for f in failed):
            self._dead.add(need)
            return None
        found = self.table.eligible.get(key)
        both, count = found if found is not None else self.table.eligible_of(
            pod, key, extra_terms)
        best = -1
        if count:
            entry = self._maybe.get(need)
            if entry is None:
                entry = self._maybe[need] = [key, (1 << count) - 1]
            best = self._best(both, count, self._start % count, need, entry)
        if best < 0:
            self._failed.setdefault(key, []).append(need)
            self._dead.add(need)
            return None
        self._start += 1
        self.version += 1
        cpu, memory, ephemeral, pods = need.amounts
        self.cpu[best] -= cpu
        self.memory[best] -= memory
        self.ephemeral[best] -= ephemeral
        self.pods[best] -= pods
        if need.ext is not None:
            room = self.ext.setdefault(best, {})
            for k, amount in need.ext.items():
                room[k] = room[k] - amount if k in room else -amount
        return self.table.names[best]

    def _best(self, both: list[int], count: int, start: int, need: Need, entry: list[int]
              ) -> int:
        """The hot loop: from ``start``, the first :data:`FEASIBLE_NODES_TO_FIND` open nodes
        with room; the highest LeastAllocated score wins (the first on a tie). The score is
        the dict version's expression term for term (``(free - request) / allocatable`` for
        cpu then memory, their mean), so floats compare the same. Only the positions of
        ``both`` whose bit is set in ``entry[1]`` are visited; a node found closed or without
        room for ``need`` has its bit cleared (it has none until it is opened or reset)."""
        is_open, fc, fm, fe, fp = self.open, self.cpu, self.memory, self.ephemeral, self.pods
        ic, im = self.table.inverse
        shares = self.table.shares
        cc, cm, ce, cp = need.check
        ac, am = need.amounts[0], need.amounts[1]
        ext = need.ext
        mask = entry[1]
        full = 0
        best, best_score, found = -1, 0.0, 0
        for p, end in ((start, count), (0, start)):
            while p < end:
                rest = mask >> p
                if not rest:
                    break
                p += (rest & -rest).bit_length() - 1  # the next position still a candidate
                if p >= end:
                    break
                i = both[p]
                if (not is_open[i] or cc > fc[i] or cm > fm[i] or cp > fp[i] or ce > fe[i]
                        or (ext is not None and not self._ext_fits(i, ext))):
                    full |= 1 << p
                    p += 1
                    continue
                score = ((fc[i] - ac) * ic[i] + (fm[i] - am) * im[i]) / shares[i]
                if best < 0 or score > best_score:
                    best, best_score = i, score
                found += 1
                if found >= FEASIBLE_NODES_TO_FIND:
                    break
                p += 1
            if found >= FEASIBLE_NODES_TO_FIND:
                break
        if full:
            entry[1] = mask & ~full
        return best

    def shortage(self, pod: Pod, key: int, extra_terms: tuple[NodeSelectorTerm, ...],
                 need: Need) -> tuple[int, tuple[str, ...]]:
        """For a pod that found no node: how many open nodes let it run (labels, taints),
        and the resources (sorted) some of them lack for ``need`` (the reason a message
        gives, as :func:`~ngupgrade.core.drain.resources.short_of` of each node's free room
        says it). Cached per class and request until room or the open nodes change."""
        hit = self._shortage.get(need)
        if hit is not None and hit[0] == self.version:
            return hit[1]
        both, count = self.table.eligible_of(pod, key, extra_terms)
        is_open = self.open
        nodes = [i for i in both[:count] if is_open[i]]
        short = [k for k, v, free in zip(_ORDER, need.amounts, (
            self.cpu, self.memory, self.ephemeral, self.pods), strict=True)
            if v > 0 and any(v > free[i] for i in nodes)]
        for k, v in (need.ext or {}).items():
            if v > 0 and any(self.ext.get(i, {}).get(k, v - 1) < v for i in nodes):
                short.append(k)
        found = (len(nodes), tuple(sorted(short)))
        self._shortage[need] = (self.version, found)
        return found

    def _ext_fits(self, i: int, ext: Mapping[str, int]) -> bool:
        room = self.ext.get(i, {})
        for k, amount in ext.items():
            if amount > 0 and (room.get(k) is None or amount > room[k]):
                return False
        return True
