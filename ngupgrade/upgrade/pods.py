"""The pods of draining nodes while an upgrade runs, through the Kubernetes API (issue 13).

:class:`KubePodWatch` is the :class:`ngupgrade.upgrade.watch.PodWatch` of a run with kube
access (``upgrade --kubeconfig/--context``). Each look, for the nodes the cloud shows
cordoned, it lists:

* the pods on each draining node: ``fieldSelector=spec.nodeName=NODE``, the call
  ``kubectl drain`` makes per node;
* the pods no node took: ``fieldSelector=spec.nodeName=,status.phase=Pending``, with the
  scheduler's reason (the ``PodScheduled=False`` condition's message);
* the PodDisruptionBudgets, with the disruption controller's status.

So a look costs ``2 + draining nodes`` list calls (one page each up to 500 objects): the
nodes draining at once are bounded by the deploy policy, never by the group's size
(``bench/bench_watch_calls.py`` measures a 20- and a 200-node group). Which PDB refuses a
pod is :func:`ngupgrade.core.drain.eviction.live_refusal` on the cluster's own numbers.

DaemonSet and mirror pods are left out: a drain does not evict them (docs/drain.md rule 4).
A pod seen on a draining node and gone from it at a later look (evicted, or stopped with its
node) is one disruption of its workload; only Pending pods of workloads that had a pod on a
draining node are reported (an unrelated Pending pod says nothing about this upgrade).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ngupgrade.core.drain.eviction import live_refusal
from ngupgrade.core.drain.selectors import selector_matches
from ngupgrade.core.k8s import Pod, PodDisruptionBudget
from ngupgrade.core.stall import HeldPod, PendingPod
from ngupgrade.upgrade.watch import PodFacts

HASH_LABEL = "pod-template-hash"
"""The label a Deployment's ReplicaSet puts on its pods; its value ends the ReplicaSet name."""


class PodLister(Protocol):
    """Read-only list calls (``ngupgrade.adapters.kube.live.LiveLister``)."""

    calls: int

    def pods(self, field_selector: str = "") -> tuple[Pod, ...]: ...

    def pdbs(self) -> tuple[PodDisruptionBudget, ...]: ...


def workload_of(pod: Pod) -> str:
    """``namespace/Kind/name`` of the pod's workload: a ReplicaSet named
    ``<deployment>-<pod-template-hash>`` reads as its Deployment; a bare pod as itself."""
    owner = pod.owner
    if owner is None:
        return f"{pod.namespace}/Pod/{pod.name}"
    h = pod.labels.get(HASH_LABEL)
    if owner.kind == "ReplicaSet" and h and owner.name.endswith(f"-{h}"):
        return f"{pod.namespace}/Deployment/{owner.name[:-len(h) - 1]}"
    return f"{pod.namespace}/{owner.kind}/{owner.name}"


def evictable(pod: Pod) -> bool:
    """A pod a drain evicts: not a DaemonSet's, not a mirror pod, not finished."""
    return (not pod.mirror and not (pod.owner is not None and pod.owner.kind == "DaemonSet")
            and pod.phase not in ("Succeeded", "Failed"))


@dataclass
class KubePodWatch:
    """Pod facts per look (see the module); ``lister`` is kept open by the caller."""

    lister: PodLister
    _seen: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Pod ``namespace/name`` -> (node, workload) for pods on a draining node at the last look."""
    _workloads: set[str] = field(default_factory=set)
    _disrupted: Counter[str] = field(default_factory=Counter)
    last_on: dict[str, list[str]] = field(default_factory=dict)
    """Node -> the evictable pods on it at the last look that saw it draining."""

    def look(self, draining: Sequence[str]) -> PodFacts:
        """Pod facts for these draining node names (``2 + len(draining)`` list calls; none
        when nothing drains and nothing was seen draining)."""
        if not draining and not self._seen:
            return PodFacts()
        on_nodes: dict[str, tuple[Pod, ...]] = {
            node: tuple(p for p in self.lister.pods(f"spec.nodeName={node}") if evictable(p))
            for node in draining}
        pending = self.lister.pods("spec.nodeName=,status.phase=Pending")
        pdbs = self.lister.pdbs()
        now: dict[str, tuple[str, str]] = {}
        held: list[HeldPod] = []
        for node, pods in on_nodes.items():
            self.last_on[node] = [p.ref for p in pods]
            for pod in pods:
                now[pod.ref] = (node, workload_of(pod))
                refused = live_refusal(pod, _selecting(pod, pdbs))
                held.append(HeldPod(pod.ref, node,
                                    None if refused is None else refused[0].name,
                                    "" if refused is None else refused[1]))
        for ref, (_node, workload) in self._seen.items():
            if ref not in now:
                self._disrupted[workload] += 1
        self._seen = now
        self._workloads.update(w for _node, w in now.values())
        waiting = tuple(PendingPod(p.ref, p.unschedulable or "Pending, not yet judged")
                        for p in pending if workload_of(p) in self._workloads)
        return PodFacts(held=tuple(held), pending=waiting)

    def disruptions(self) -> dict[str, int]:
        """Workload -> pods of it seen leaving a draining node so far."""
        return dict(self._disrupted)


def _selecting(pod: Pod, pdbs: Sequence[PodDisruptionBudget]) -> tuple[PodDisruptionBudget, ...]:
    """The PDBs of the pod's namespace whose selector selects it (a nil selector selects
    nothing in policy/v1; an empty one everything: ``selector_matches``)."""
    return tuple(b for b in pdbs if b.namespace == pod.namespace and b.selector is not None
                 and selector_matches(b.selector, pod.labels))


def open_pod_watch(kubeconfig: str | None, context: str | None) -> Any:
    """A :class:`ngupgrade.adapters.kube.live.LiveLister` for the run (the caller closes it)."""
    from ngupgrade.adapters.kube.live import LiveLister

    return LiveLister(kubeconfig, context)
