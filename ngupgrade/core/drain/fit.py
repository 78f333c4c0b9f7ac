"""Placing evicted pods on schedulable nodes, the way kube-scheduler filters and scores. Pure.

Filters (scheduler plugins NodeUnschedulable, NodeAffinity, TaintToleration,
NodeResourcesFit, VolumeBinding's PV node affinity): :func:`pod_may_run_on` and the
requests of :func:`pod_request` against ``allocatable - requests of the pods bound``
(cpu, memory, ephemeral-storage, the pod count, extended resources such as
``nvidia.com/gpu``). Cordoned or draining nodes take nothing.

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
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ngupgrade.core.drain.resources import CPU, MEMORY, fits
from ngupgrade.core.drain.selectors import pod_may_run_on
from ngupgrade.core.k8s import Node, NodeSelectorTerm, Pod

FEASIBLE_NODES_TO_FIND = 10
"""Feasible nodes scored per placement (kube-scheduler: at least 100; see above)."""

ClassKey = tuple[object, ...]


def class_key(pod: Pod, extra_terms: tuple[NodeSelectorTerm, ...]) -> ClassKey:
    """Pods with equal node selection constraints share one list of eligible nodes."""
    return (tuple(sorted(pod.node_selector.items())), pod.required_node_affinity,
            pod.tolerations, extra_terms)


@dataclass
class NodeRoom:
    """A node the simulation may place pods on: its allocatable and what is free now."""

    node: Node
    allocatable: Mapping[str, int]
    free: dict[str, int]

    def __post_init__(self) -> None:
        cpu, memory = self.allocatable.get(CPU), self.allocatable.get(MEMORY)
        self._shares = [(k, 1.0 / t) for k, t in ((CPU, cpu), (MEMORY, memory)) if t]

    def take(self, request: Mapping[str, int]) -> None:
        """Bind a pod's request to the node."""
        for key, amount in request.items():
            if key in self.free:
                self.free[key] -= amount
            elif key not in ("cpu", "memory", "ephemeral-storage", "pods"):
                self.free[key] = -amount

    def give(self, request: Mapping[str, int]) -> None:
        """Unbind a pod's request (the pod was evicted)."""
        for key, amount in request.items():
            if key in self.free:
                self.free[key] += amount

    def score(self, request: Mapping[str, int]) -> float:
        """LeastAllocated: mean free share of cpu and memory after placing ``request``."""
        if not self._shares:
            return 0.0
        free = self.free
        total = 0.0
        for key, inverse in self._shares:
            total += (free.get(key, 0) - request.get(key, 0)) * inverse
        return total / len(self._shares)


@dataclass
class Placer:
    """Finds a node for each pod among the nodes open now.

    ``rooms`` every node that may ever take a pod (in a fixed order); ``open`` the names
    that take pods at this moment. Eligibility by selectors and taints is cached per
    :func:`class_key`; failures are cached per class until :meth:`reopen` (room only
    shrinks in between, so a request at least as large as a failed one fails too).
    """

    rooms: dict[str, NodeRoom]
    open: set[str] = field(default_factory=set)
    _eligible: dict[ClassKey, list[str]] = field(default_factory=dict)
    _failed: dict[ClassKey, list[Mapping[str, int]]] = field(default_factory=dict)
    _start: int = 0

    def reopen(self, names: Iterable[str]) -> None:
        """Set the nodes that take pods from now on (clears the failure cache)."""
        self.open = set(names)
        self._failed.clear()

    def close(self, names: Iterable[str]) -> None:
        """Cordon ``names``: they take nothing from now on."""
        self.open.difference_update(names)

    def eligible(self, pod: Pod, key: ClassKey, extra_terms: tuple[NodeSelectorTerm, ...]
                 ) -> list[str]:
        """Names of the nodes whose labels and taints let ``pod`` run (any room)."""
        names = self._eligible.get(key)
        if names is None:
            names = [name for name, room in self.rooms.items()
                     if pod_may_run_on(pod, room.node, extra_terms)]
            self._eligible[key] = names
        return names

    def place(self, pod: Pod, request: Mapping[str, int], key: ClassKey,
              extra_terms: tuple[NodeSelectorTerm, ...]) -> str | None:
        """Bind ``pod`` to the best open node with room and return its name, or None."""
        failed = self._failed.get(key)
        if failed and any(_at_least(request, f) for f in failed):
            return None
        names = self.eligible(pod, key, extra_terms)
        count = len(names)
        best: NodeRoom | None = None
        best_score = 0.0
        found = 0
        start = self._start % count if count else 0
        for i in range(count):
            name = names[(start + i) % count]
            if name not in self.open:
                continue
            room = self.rooms[name]
            if not fits(request, room.free):
                continue
            score = room.score(request)
            if best is None or score > best_score:
                best, best_score = room, score
            found += 1
            if found >= FEASIBLE_NODES_TO_FIND:
                break
        if best is None:
            self._failed.setdefault(key, []).append(request)
            return None
        self._start += 1
        best.take(request)
        return best.node.name


def _at_least(request: Mapping[str, int], failed: Mapping[str, int]) -> bool:
    return all(request.get(k, 0) >= v for k, v in failed.items())
