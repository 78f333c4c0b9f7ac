"""The fake Kubernetes API's objects as the follower (:mod:`ngupgrade.testing.kube_follow`)
decides on them: typed values beside the served objects, kept in step change by change.

The follower used to read the whole cluster back (every object serialized and parsed again)
before each decision: at a cluster of the platform's limits (1,000 nodes, 110 pods a node)
that was seconds per eviction, under the fake cloud's lock. :class:`ClusterIndex` reads every
object once, then every change the follower makes goes through it, so a decision costs what
it looks at:

* typed values (``core.k8s``) of the nodes, pods and PDBs, built by the drain check's own
  reader (``adapters.kube.build``), and the served objects they come from (never changed in
  place: a change is a new mapping, put to the API);
* the pods of each node, the pods no node took (Pending), the requests bound to each node;
* for each PDB, its selected pods, how many are healthy and their controllers, so its
  budget (:func:`ngupgrade.core.drain.eviction.budget_of`) is known without a scan;
* the open nodes (schedulable, Ready) ranked by the follower's score, and an ``epoch`` that
  moves whenever anything placement reads changes (a node, the requests bound to one).

A change somebody else made to the API (a test's ``put``) shows as a revision the index did
not make (:attr:`FakeKubeApi.revision`): the index is read again from the API.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import msgspec

from ngupgrade.adapters.kube import build
from ngupgrade.adapters.kube import shapes as s
from ngupgrade.core.drain.eviction import BudgetSpec, budget_of, is_healthy
from ngupgrade.core.drain.resources import CPU, MEMORY, pod_request
from ngupgrade.core.drain.selectors import selector_matches
from ngupgrade.core.k8s import Node, Pod, PodDisruptionBudget, Workload
from ngupgrade.testing.kube_api import FakeKubeApi

Key = tuple[str, str]
Raw = Mapping[str, Any]
TERMINAL = ("Succeeded", "Failed")
"""Phases of a pod that holds no room on its node (``resources.sum_requests``)."""


def typed_node(raw: Raw) -> Node:
    """A served Node as the drain check reads it."""
    return build.node(msgspec.convert(raw, s.Node))


def typed_pod(raw: Raw) -> Pod:
    """A served Pod as the drain check reads it."""
    return build.pod(msgspec.convert(raw, s.Pod))


def typed_pdb(raw: Raw) -> PodDisruptionBudget:
    """A served PDB as the drain check reads it (no ``apiVersion`` in a typed list: policy/v1
    selector semantics, as the follower's reads always had)."""
    return build.pdb(msgspec.convert(raw, s.PodDisruptionBudget))


def evolve(pod: Pod, **changes: Any) -> Pod:
    """``dataclasses.replace(pod, **changes)`` without running the constructor again: the
    follower derives three values per eviction, and ``replace`` (a keyword call through every
    field) cost more than the rest of the eviction. ``Pod`` is a plain frozen dataclass (no
    ``__post_init__``, no slots), so copying its fields is what ``replace`` does."""
    new = object.__new__(Pod)
    new.__dict__.update(pod.__dict__)
    new.__dict__.update(changes)
    return new


def score(node: Node, bound: Mapping[str, int]) -> float:
    """The follower's placement score of ``node`` with ``bound`` requested on it: the shares
    of its cpu and memory left free (the most free room wins)."""
    free_cpu = node.allocatable[CPU] - bound.get(CPU, 0) if CPU in node.allocatable else 0
    free_mem = node.allocatable[MEMORY] - bound.get(MEMORY, 0) \
        if MEMORY in node.allocatable else 0
    return free_cpu / max(1, node.allocatable.get(CPU, 1)) + \
        free_mem / max(1, node.allocatable.get(MEMORY, 1))


class _Budget:
    """Counts over one PDB's selected pods."""

    __slots__ = ("healthy", "owners", "replicas", "selected")

    def __init__(self) -> None:
        self.selected = 0
        self.healthy = 0
        self.owners: Counter[str] = Counter()
        self.replicas: dict[str, int] = {}


class ClusterIndex:
    """The objects of ``kube`` (see the module). Call :meth:`sync` before reading; make every
    change through :meth:`put_node`, :meth:`delete_node`, :meth:`put_pod`,
    :meth:`delete_pod`, :meth:`put_pdb` (each writes the API and the index)."""

    verify = False
    """Check every pod value a caller derived against the reader's (tests set it)."""

    def __init__(self, kube: FakeKubeApi) -> None:
        self.kube = kube
        self._revision = -1
        self.epoch = 0
        """Moves whenever a node or the requests bound to one change."""
        self.tried: dict[Key, int] = {}
        """Pending pod -> the epoch its placement last failed at (the follower's)."""
        self.failed: dict[Any, tuple[int, str]] = {}
        """Pod class -> (epoch, the scheduler's message) of its last failed placement."""
        self.dirty: set[Key] = set()
        """PDBs whose selected pods changed since the follower last wrote their status."""

    # -- reading the API --------------------------------------------------------------------

    def sync(self) -> None:
        """Read every object again when the API changed behind the index's back."""
        if self.kube.revision == self._revision:
            return
        self._revision, nodes = self.kube.served("Node")
        self.node_raw: dict[str, Raw] = {}
        self.nodes: dict[str, Node] = {}
        self.bound: dict[str, dict[str, int]] = {}
        self._ranked: list[tuple[float, str]] = []
        self._rank: dict[str, tuple[float, str]] = {}
        self.pod_raw: dict[Key, Raw] = {}
        self.pods: dict[Key, Pod] = {}
        self.on_node: dict[str, set[Key]] = {}
        self.pending: set[Key] = set()
        self._request: dict[Key, dict[str, int]] = {}
        self._pod_pdbs: dict[Key, tuple[Key, ...]] = {}
        self._selection: dict[Any, tuple[Key, ...]] = {}
        _, pdbs = self.kube.served("PodDisruptionBudget")
        self.pdb_raw: dict[Key, Raw] = dict(pdbs)
        self.pdbs: dict[Key, PodDisruptionBudget] = {}
        for raw in pdbs.values():
            pdb = typed_pdb(raw)
            self.pdbs[pdb.namespace, pdb.name] = pdb
        self._budgets = {key: _Budget() for key in self.pdbs}
        self._pdb_order = sorted(self.pdbs)
        self.dirty = set(self.pdbs)
        self.replicas_of = _replicas_of(self._workloads())
        _, pods = self.kube.served("Pod")
        for name, raw in nodes.items():
            self._index_node(name[1], raw)
        for raw in pods.values():
            self._index_pod(raw)
        self.tried.clear()
        self.failed.clear()
        self.epoch += 1

    def _workloads(self) -> list[Workload]:
        shapes: tuple[tuple[str, type[s.Deployment | s.ReplicaSet | s.StatefulSet]], ...] = (
            ("Deployment", s.Deployment), ("ReplicaSet", s.ReplicaSet),
            ("StatefulSet", s.StatefulSet))
        out = []
        for kind, shape in shapes:
            _, served = self.kube.served(kind)
            out += [build.workload(msgspec.convert(raw, shape)) for raw in served.values()]
        return out

    def _wrote(self, revision: int) -> None:
        """After the index's own change: a revision it did not expect means another writer."""
        self._revision = revision if revision == self._revision + 1 else -1

    # -- nodes ------------------------------------------------------------------------------

    def sorted_nodes(self) -> list[Node]:
        """Every node, in name order (the order the API lists them)."""
        return [self.nodes[name] for name in sorted(self.nodes)]

    def put_node(self, raw: Raw) -> None:
        """Create or replace a node (``raw`` as the API serves it)."""
        self._wrote(self.kube.put("Node", raw))
        self._index_node(raw["metadata"]["name"], raw)
        self.epoch += 1

    def delete_node(self, name: str) -> None:
        """Remove a node (its pods stay, as the API leaves them)."""
        self._wrote(self.kube.delete("Node", "", name))
        self._unrank(name)
        self.node_raw.pop(name, None)
        self.nodes.pop(name, None)
        self.epoch += 1

    def _index_node(self, name: str, raw: Raw) -> None:
        self._unrank(name)
        self.node_raw[name] = raw
        node = self.nodes[name] = typed_node(raw)
        self._rerank(node)

    def _unrank(self, name: str) -> None:
        entry = self._rank.pop(name, None)
        if entry is not None:
            del self._ranked[bisect.bisect_left(self._ranked, entry)]

    def _rerank(self, node: Node) -> None:
        if node.unschedulable or not node.ready:
            return
        entry = (-score(node, self.bound.get(node.name, {})), node.name)
        self._rank[node.name] = entry
        bisect.insort(self._ranked, entry)

    def ranked(self) -> Iterator[str]:
        """Names of the open nodes (schedulable, Ready), best score first, then by name (do
        not change the index while iterating)."""
        return (name for _score, name in self._ranked)

    # -- pods -------------------------------------------------------------------------------

    def pods_on(self, node: str) -> list[Pod]:
        """The pods bound to ``node``, in (namespace, name) order."""
        return [self.pods[key] for key in sorted(self.on_node.get(node, ()))]

    def request(self, key: Key) -> dict[str, int]:
        """``pod_request`` of a pod, computed once."""
        return self._request[key]

    def put_pod(self, raw: Raw, typed: Pod | None = None) -> Pod:
        """Create or replace a pod; returns its typed value. ``typed``: the value the caller
        derived for ``raw`` from the pod's last one (a status change), to spare the reader;
        it must equal :func:`typed_pod` of ``raw`` (checked when :attr:`verify` is set). A
        change that leaves the pod's node, request and room-holding phase as they were (an
        eviction's deletionTimestamp) leaves the placement ``epoch`` too."""
        pod = typed_pod(raw) if typed is None else typed
        if self.verify and typed is not None and typed != typed_pod(raw):
            raise AssertionError(f"derived pod value differs from the read one: {typed}")
        key = (pod.namespace, pod.name)
        self._wrote(self.kube.put("Pod", raw))
        old = self.pods.get(key)
        need = pod_request(pod)
        rebind = old is None or old.node_name != pod.node_name \
            or (old.phase in TERMINAL) != (pod.phase in TERMINAL) or self._request[key] != need
        pdbs = self._pod_pdbs[key] if old is not None and old.labels == pod.labels else None
        self._unindex_pod(key, rebind)
        self._index_pod(raw, pod, need, rebind, pdbs)
        return pod

    def delete_pod(self, key: Key) -> None:
        """Remove a pod (no error when it is not there)."""
        self._wrote(self.kube.delete("Pod", *key))
        self._unindex_pod(key)

    def _index_pod(self, raw: Raw, pod: Pod | None = None, need: dict[str, int] | None = None,
                   rebind: bool = True, pdbs: tuple[Key, ...] | None = None) -> None:
        pod = pod or typed_pod(raw)
        key = (pod.namespace, pod.name)
        self.pod_raw[key] = raw
        self.pods[key] = pod
        need = self._request[key] = need if need is not None else pod_request(pod)
        if not (raw.get("spec") or {}).get("nodeName") \
                and (raw.get("status") or {}).get("phase") == "Pending":
            self.pending.add(key)
        if pod.node_name:
            self.on_node.setdefault(pod.node_name, set()).add(key)
            if rebind and pod.phase not in TERMINAL:
                self._bind(pod.node_name, need, 1)
        pdbs = self._pod_pdbs[key] = pdbs if pdbs is not None else self._selecting(pod)
        for pdb in pdbs:
            self._count(pdb, pod, 1)

    def _unindex_pod(self, key: Key, rebind: bool = True) -> None:
        pod = self.pods.pop(key, None)
        if pod is None:
            return
        del self.pod_raw[key]
        need = self._request.pop(key)
        self.pending.discard(key)
        self.tried.pop(key, None)
        if pod.node_name:
            self.on_node[pod.node_name].discard(key)
            if rebind and pod.phase not in TERMINAL:
                self._bind(pod.node_name, need, -1)
        for pdb in self._pod_pdbs.pop(key):
            self._count(pdb, pod, -1)

    def _bind(self, node: str, need: Mapping[str, int], sign: int) -> None:
        bound = self.bound.setdefault(node, {})
        for k, v in need.items():
            bound[k] = bound.get(k, 0) + sign * v
        self.epoch += 1
        typed = self.nodes.get(node)
        if typed is not None and node in self._rank:
            self._unrank(node)
            self._rerank(typed)

    # -- PDBs -------------------------------------------------------------------------------

    def _selecting(self, pod: Pod) -> tuple[Key, ...]:
        """Keys of the PDBs selecting ``pod``, in key order (cached by namespace and labels:
        pods of one controller share them)."""
        sig = (pod.namespace, tuple(sorted(pod.labels.items())))
        found = self._selection.get(sig)
        if found is None:
            found = self._selection[sig] = tuple(
                key for key in self._pdb_order if key[0] == pod.namespace
                and selector_matches(self.pdbs[key].selector, pod.labels))
        return found

    def _count(self, key: Key, pod: Pod, sign: int) -> None:
        b = self._budgets[key]
        b.selected += sign
        b.healthy += sign * is_healthy(pod)
        owner = self.replicas_of(pod)
        if owner is not None:
            b.owners[owner[0]] += sign
            b.replicas[owner[0]] = owner[1]
        self.dirty.add(key)

    def pdbs_of(self, pod: Pod) -> tuple[PodDisruptionBudget, ...]:
        """The PDBs selecting ``pod`` (same namespace, selector matches), in key order."""
        return tuple(self.pdbs[key] for key in self._pod_pdbs[(pod.namespace, pod.name)])

    def budget(self, pdb: PodDisruptionBudget) -> tuple[BudgetSpec, int]:
        """The spec the disruption controller derives for ``pdb`` from its selected pods
        (all of them, any phase), and how many of them are healthy."""
        b = self._budgets[(pdb.namespace, pdb.name)]
        controllers = {k: b.replicas[k] for k, n in b.owners.items() if n > 0}
        return budget_of(pdb, b.selected, controllers), b.healthy

    def put_pdb(self, raw: Raw) -> None:
        """Replace a PDB's served object. A new PDB or a new selector is read again from the
        API at the next :meth:`sync` (the follower writes the status only)."""
        pdb = typed_pdb(raw)
        key = (pdb.namespace, pdb.name)
        self._wrote(self.kube.put("PodDisruptionBudget", raw))
        old = self.pdbs.get(key)
        self.pdb_raw[key] = raw
        self.pdbs[key] = pdb
        if old is None or old.selector != pdb.selector:
            self._revision = -1


def _replicas_of(workloads: Iterable[Workload]) -> Callable[[Pod], tuple[str, int] | None]:
    """``replicas_of`` for the PDB budgets: a pod's scalable controller and its replicas (a
    ReplicaSet's Deployment when it has one)."""
    by_key: dict[tuple[str, str, str], Workload] = {
        (w.kind, w.namespace, w.name): w for w in workloads}

    def replicas_of(pod: Pod) -> tuple[str, int] | None:
        if pod.owner is None:
            return None
        w = by_key.get((pod.owner.kind, pod.namespace, pod.owner.name))
        if w is None:
            return None
        if w.owner is not None:
            top = by_key.get((w.owner.kind, pod.namespace, w.owner.name))
            if top is not None:
                w = top
        return (f"{w.kind}/{w.namespace}/{w.name}", w.replicas or 0)

    return replicas_of
