"""What a run needs to know about one pod of the group, computed once per group. Pure.

Why: every order of every plan evicts and places the same pods; their effective request
(init containers and sidecars folded in), scheduling class, PDB, owner, volume facts and
YTsaurus component do not depend on the order, so they are read here once per
:class:`~ngupgrade.core.drain.drain_model.DrainModel` instead of once per pod per order (a
profile: ``pod_request`` recomputed 84k times for 6,000 pods).
"""

from __future__ import annotations

from dataclasses import replace

from ngupgrade.core.drain.eviction import BudgetSpec, Gate, healthy_gate, is_healthy
from ngupgrade.core.drain.fit import ClassKey, Need, class_key
from ngupgrade.core.drain.index import SCALABLE_KINDS, ClusterIndex, YtTarget
from ngupgrade.core.k8s import NodeSelectorTerm, Pod, PodDisruptionBudget


class PodFacts:
    """One pod of the group as every run sees it.

    ``request`` its effective request (:func:`~ngupgrade.core.drain.resources.pod_request`)
    and ``need`` the same for the placement loop; ``terms`` its PVs' node affinity; ``pdbs``
    the PDBs selecting it, ``pdb`` the first (the one the eviction API counts) with its
    ``pdb_ref`` and ``spec``; ``owner`` its top controller (``Deployment ns/name``) or None;
    ``origin`` its ``namespace/name``; ``healthy`` whether it counts for its PDB now and
    ``gate`` its eviction while it does (:func:`healthy_gate`); ``local`` on a local PV;
    ``key`` its scheduling class (:func:`class_key`, numbered in ``classes``); ``stays`` a
    DaemonSet or mirror pod (not evicted, the Selectel strategy page, "Вытеснение подов при
    обновлении"); ``yt`` its YTsaurus component; ``emptydir`` whether it uses one; ``single``
    whether its scalable owner runs 1 replica (each run counts how often such a pod goes down:
    ``OrderResult.downs``).
    """

    __slots__ = ("_running", "emptydir", "gate", "healthy", "key", "local", "need", "origin",
                 "owner", "pdb", "pdb_ref", "pdbs", "pod", "request", "single", "spec", "stays",
                 "terms", "yt")

    def __init__(self, pod: Pod, index: ClusterIndex, classes: dict[ClassKey, int],
                 needs: dict[tuple[object, ...], Need] | None = None) -> None:
        self.pod = pod
        self.origin = ref = pod.ref
        self.request = index.request(pod)
        self.terms: tuple[NodeSelectorTerm, ...] = index.volume_terms.get(ref, ())
        self.pdbs: tuple[PodDisruptionBudget, ...] = index.pdbs_of.get(ref, ())
        self.pdb = self.pdbs[0] if self.pdbs else None
        self.pdb_ref = self.pdb.ref if self.pdb is not None else None
        self.spec: BudgetSpec | None = (index.specs.get(self.pdb_ref)
                                        if self.pdb_ref is not None else None)
        self.owner = index.top_owner.get(ref)
        self.single = (self.owner is not None and index.replicas.get(self.owner) == 1
                       and self.owner.split(" ", 1)[0] in SCALABLE_KINDS)
        self.local = index.local_pv.get(ref, False)
        # the class as a small int: a class key is a tuple of selector terms and tolerations,
        # rehashed element by element on every dict lookup (twice per placement)
        self.key = classes.setdefault(class_key(pod, self.terms), len(classes))
        need = Need(self.request)
        # one Need per class and request (``needs``): the placer caches by it (fit.Placer)
        self.need = need if needs is None else needs.setdefault((self.key, need.sig), need)
        self.stays = pod.mirror or (pod.owner is not None and pod.owner.kind == "DaemonSet")
        self.yt: YtTarget | None = index.yt_of.get(ref)
        self.emptydir = any(v.source == "emptyDir" for v in pod.volumes)
        self.healthy = is_healthy(pod)
        self.gate: Gate = healthy_gate(self.pdbs, self.spec)
        self._running: Pod | None = pod if self.healthy else None

    def running(self) -> Pod:
        """The pod once a replacement runs: Running, Ready, not terminating. One value per
        pod, not one per placement, and the pod itself when it is already so (its
        ``nodeName`` is not read after a move)."""
        if self._running is None:
            self._running = replace(self.pod, phase="Running", ready=True, terminating=False)
        return self._running


class Unit:
    """A pod of the group, followed through the upgrade (its replacements included): ``pod``
    as it is now and ``healthy`` whether it counts for its PDB (:func:`is_healthy` of
    ``pod``, kept as a flag), ``facts`` what does not change (:class:`PodFacts`, shared by
    every order: a unit per pod per order is the only allocation a run makes per pod)."""

    __slots__ = ("facts", "healthy", "pod")

    def __init__(self, facts: PodFacts) -> None:
        self.pod = facts.pod
        self.healthy = facts.healthy
        self.facts = facts
