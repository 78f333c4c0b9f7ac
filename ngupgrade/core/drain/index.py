"""Indexes over one cluster snapshot, built once and shared by every group and policy. Pure.

The drain check runs many simulations (each group, each order of its nodes, each candidate
policy of the advisor); everything that does not depend on the order is computed here once:
which PDBs select which pod (through a label index, not a scan of every pod per PDB), each
PDB's expected and desired counts, each pod's scalable owner, the volume facts of each pod.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ngupgrade.core.drain.eviction import BudgetSpec, budget_spec, is_healthy
from ngupgrade.core.drain.resources import pod_request
from ngupgrade.core.drain.selectors import selector_matches
from ngupgrade.core.k8s import (
    ClusterSnapshot,
    Node,
    NodeSelectorTerm,
    OwnerRef,
    Pod,
    PodDisruptionBudget,
    Workload,
    YtComponent,
    Ytsaurus,
)

SCALABLE_KINDS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"})
"""Owners whose ``spec.replicas`` the disruption controller reads (its ``finders``)."""

MOVED_KINDS = frozenset({"ReplicaSet", "StatefulSet", "ReplicationController", "Job"})
"""Controllers that recreate an evicted pod elsewhere (the Selectel strategy page, "Вытеснение подов
при обновлении"; a Job's pod counts)."""


@dataclass(frozen=True)
class YtTarget:
    """One YTsaurus component and the refs of its pods (the YTsaurus docs, "Стратегии обновления
    YTsaurus")."""

    cluster: Ytsaurus
    component: YtComponent

    @property
    def ref(self) -> str:
        """``namespace/cluster/kind`` or ``namespace/cluster/kind/name``."""
        base = f"{self.cluster.namespace}/{self.cluster.name}/{self.component.kind}"
        return f"{base}/{self.component.name}" if self.component.name else base


@dataclass
class ClusterIndex:
    """What the drain check reads of a :class:`ClusterSnapshot`, indexed.

    ``pdbs_of[pod_ref]`` the PDBs selecting a pod; ``specs[pdb_ref]`` their
    :class:`BudgetSpec` (None when a field cannot be read: the PDB is then reported and
    skipped); ``healthy[pdb_ref]`` ``currentHealthy`` now; ``top_owner[pod_ref]`` the
    workload a pod belongs to (``Deployment ns/name``...); ``replicas[top owner]``;
    ``volume_terms[pod_ref]`` node affinity of the PVs it uses; ``local_pv[pod_ref]`` True
    for a pod on a local PV; ``yt_of[pod_ref]`` its YTsaurus component.
    """

    snapshot: ClusterSnapshot
    nodes: dict[str, Node] = field(default_factory=dict)
    pods_on: dict[str, list[Pod]] = field(default_factory=dict)
    pdbs_of: dict[str, tuple[PodDisruptionBudget, ...]] = field(default_factory=dict)
    pdb_pods: dict[str, list[Pod]] = field(default_factory=dict)
    specs: dict[str, BudgetSpec | None] = field(default_factory=dict)
    healthy: dict[str, int] = field(default_factory=dict)
    top_owner: dict[str, str] = field(default_factory=dict)
    replicas: dict[str, int] = field(default_factory=dict)
    volume_terms: dict[str, tuple[NodeSelectorTerm, ...]] = field(default_factory=dict)
    local_pv: dict[str, bool] = field(default_factory=dict)
    yt_of: dict[str, YtTarget] = field(default_factory=dict)
    yt_targets: list[YtTarget] = field(default_factory=list)
    yt_pods: dict[str, list[Pod]] = field(default_factory=dict)
    daemonsets: list[Workload] = field(default_factory=list)
    _requests: dict[int, tuple[Pod, dict[str, int]]] = field(default_factory=dict,
                                                            repr=False)
    _used: dict[str, dict[str, int]] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, snapshot: ClusterSnapshot) -> ClusterIndex:
        """Index ``snapshot``: linear in pods plus, per PDB, the pods sharing its rarest
        ``matchLabels`` pair (a PDB with only expressions scans its namespace)."""
        idx = cls(snapshot)
        idx.nodes = {n.name: n for n in snapshot.nodes}
        for pod in snapshot.pods:
            if pod.node_name is not None:
                idx.pods_on.setdefault(pod.node_name, []).append(pod)
        idx._owners(snapshot.workloads, snapshot.pods)
        idx._pdbs(snapshot.pdbs, snapshot.pods)
        idx._volumes(snapshot)
        idx._ytsaurus(snapshot)
        idx.daemonsets = [w for w in snapshot.workloads
                          if w.kind == "DaemonSet" and w.template is not None]
        return idx

    def _owners(self, workloads: Iterable[Workload], pods: Iterable[Pod]) -> None:
        by_key: dict[tuple[str, str, str], Workload] = {
            (w.kind, w.namespace, w.name): w for w in workloads}
        pods_per_owner: dict[str, int] = defaultdict(int)
        for pod in pods:
            top = _top(pod.namespace, pod.owner, by_key)
            if top is None:
                continue
            self.top_owner[pod.ref] = top[0]
            pods_per_owner[top[0]] += 1
            if top[1] is not None:
                self.replicas[top[0]] = top[1]
        for key, count in pods_per_owner.items():
            # An owner missing from the dump: its pods stand for its scale (a guess that
            # keeps a PDB over them from reading "0 expected, nothing allowed").
            self.replicas.setdefault(key, count)

    def request(self, pod: Pod) -> dict[str, int]:
        """:func:`pod_request` of ``pod``, computed once per cluster (every group's model and
        every order read it). Keyed by identity, the pod kept beside its request so a
        reused id never answers for another pod. Do not mutate the dict."""
        found = self._requests.get(id(pod))
        if found is None or found[0] is not pod:
            found = self._requests[id(pod)] = (pod, pod_request(pod))
        return found[1]

    def used_on(self, node: str) -> dict[str, int]:
        """Requests of the pods bound to ``node`` that hold room (:func:`sum_requests`),
        computed for every node at the first call (each group's model reads every node)."""
        if self._used is None:
            self._used = {}
            for name, pods in self.pods_on.items():
                total: dict[str, int] = {}
                for pod in pods:
                    if pod.phase not in ("Succeeded", "Failed"):
                        for key, amount in self.request(pod).items():
                            total[key] = total.get(key, 0) + amount
                self._used[name] = total
        return self._used.get(node, {})

    def replicas_of(self, pod: Pod) -> tuple[str, int] | None:
        """The pod's scalable controller and its ``spec.replicas``, for the PDB math."""
        key = self.top_owner.get(pod.ref)
        if key is None or key.split(" ", 1)[0] not in SCALABLE_KINDS:
            return None
        return key, self.replicas[key]

    def _pdbs(self, pdbs: Iterable[PodDisruptionBudget], pods: Iterable[Pod]) -> None:
        by_ns: dict[str, list[Pod]] = defaultdict(list)
        by_label: dict[tuple[str, str, str], list[Pod]] = defaultdict(list)
        for pod in pods:
            by_ns[pod.namespace].append(pod)
            for key, value in pod.labels.items():
                by_label[(pod.namespace, key, value)].append(pod)
        of: dict[str, list[PodDisruptionBudget]] = defaultdict(list)
        for pdb in pdbs:
            sel = pdb.selector
            if sel is None:
                chosen: list[Pod] = []
            elif sel.match_labels:
                candidates = [by_label.get((pdb.namespace, k, v), [])
                              for k, v in sel.match_labels.items()]
                chosen = [p for p in min(candidates, key=len)
                          if selector_matches(sel, p.labels)]
            else:
                chosen = [p for p in by_ns.get(pdb.namespace, [])
                          if selector_matches(sel, p.labels)]
            self.pdb_pods[pdb.ref] = chosen
            for pod in chosen:
                of[pod.ref].append(pdb)
            try:
                self.specs[pdb.ref] = budget_spec(pdb, chosen, self.replicas_of)
            except ValueError:
                self.specs[pdb.ref] = None
            self.healthy[pdb.ref] = sum(1 for p in chosen if is_healthy(p))
        self.pdbs_of = {ref: tuple(found) for ref, found in of.items()}

    def _volumes(self, snapshot: ClusterSnapshot) -> None:
        claims = {(c.namespace, c.name): c.volume_name for c in snapshot.pvcs}
        volumes = {v.name: v for v in snapshot.pvs}
        for pod in snapshot.pods:
            terms: list[NodeSelectorTerm] = []
            for vol in pod.volumes:
                if vol.source != "persistentVolumeClaim" or vol.claim_name is None:
                    continue
                pv = volumes.get(claims.get((pod.namespace, vol.claim_name)) or "")
                if pv is None:
                    continue
                if pv.local:
                    self.local_pv[pod.ref] = True
                # Several OR-ed terms of one PV must all be kept as one disjunction; with
                # two PVs the scheduler ANDs them: keep the first PV's terms (ORed) and
                # treat a second constrained PV as the same zone (the common case).
                if pv.node_affinity and not terms:
                    terms.extend(pv.node_affinity)
            if terms:
                self.volume_terms[pod.ref] = tuple(terms)

    def _ytsaurus(self, snapshot: ClusterSnapshot) -> None:
        by_ns: dict[str, list[Pod]] = defaultdict(list)
        for pod in snapshot.pods:
            by_ns[pod.namespace].append(pod)
        for yt in snapshot.ytsaurus:
            for comp in yt.components:
                target = YtTarget(yt, comp)
                self.yt_targets.append(target)
                chosen = [p for p in by_ns.get(yt.namespace, [])
                          if comp.pod_labels and all(p.labels.get(k) == v
                                                     for k, v in comp.pod_labels.items())]
                self.yt_pods[target.ref] = chosen
                for pod in chosen:
                    self.yt_of[pod.ref] = target


def _top(namespace: str, owner: OwnerRef | None,
         by_key: dict[tuple[str, str, str], Workload]) -> tuple[str, int | None] | None:
    """The outermost known controller of a pod as ``("Kind ns/name", replicas)``: a
    ReplicaSet's Deployment when the dump holds both."""
    if owner is None:
        return None
    kind, name = owner.kind, owner.name
    workload = by_key.get((kind, namespace, name))
    if workload is not None and workload.owner is not None:
        parent = by_key.get((workload.owner.kind, namespace, workload.owner.name))
        if parent is not None:
            return f"{parent.kind} {namespace}/{parent.name}", parent.replicas
        if workload.owner.kind == "Deployment":
            return f"Deployment {namespace}/{workload.owner.name}", workload.replicas
    if workload is not None:
        return f"{kind} {namespace}/{name}", workload.replicas
    return f"{kind} {namespace}/{name}", None
