"""The pods of draining nodes while an upgrade runs, through the Kubernetes API.

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

The Kubernetes side is advisory: the cloud operation decides the upgrade, so a failed read
never ends it. A read that fails transiently (5xx, 429, a timeout, a refused connection) is
tried again with backoff (:data:`READ_RETRY`, on the run's sleep); a read that still fails,
or is refused for good (401, 403, 404, an object the reader cannot parse), switches that
kind off for the rest of the wait with one warning naming what is no longer seen: the PDBs
alone (the pods are still shown, without the PDB that holds each), or the pods (the watch
is then cloud-only: nodes and progress from the cloud API).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import tenacity

from ngupgrade.core.drain.eviction import live_refusal
from ngupgrade.core.drain.selectors import selector_matches
from ngupgrade.core.errors import BadInput, KubeApiError
from ngupgrade.core.k8s import Pod, PodDisruptionBudget
from ngupgrade.core.stall import HeldPod, PendingPod
from ngupgrade.upgrade.watch import PodFacts

T = TypeVar("T")

READ_RETRY = (3, 1.0, 4.0)
"""Attempts of one advisory read, and the exponential backoff between them (first wait,
cap; seconds): 1 s then 2 s, so a failing read costs a poll at most 3 calls and 3 s more."""
WATCH_TIMEOUT = 10.0
"""Seconds one list call of the watch may take (connect and read): a look slower than the
polls it serves (2 to 30 s apart) is worth less than the poll it delays."""
TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
"""HTTP statuses a later read may not meet (the API server's overload and restarts)."""
SEEN = {"pods": "the pods of draining nodes and the evicted pods pending (the watch is now "
                "cloud-only: nodes and progress from the cloud API)",
        "pdbs": "the PodDisruptionBudgets that hold pods (the pods on draining nodes are "
                "still shown, without the PDB refusing each)"}
"""What the watch no longer sees when a kind of read is switched off."""

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


def transient(err: BaseException) -> bool:
    """A read worth trying again: no answer (a timeout, a refused connection: no status) or
    an overloaded or restarting server (:data:`TRANSIENT_STATUSES`)."""
    return isinstance(err, KubeApiError) and (err.status is None
                                              or err.status in TRANSIENT_STATUSES)


class _Lost(Exception):
    """A kind of read was switched off during this look."""


@dataclass
class KubePodWatch:
    """Pod facts per look (see the module); ``lister`` is kept open by the caller.

    ``sleep`` waits between the attempts of a read (the run's, so a stop request ends it);
    ``warn(text)`` is told once per kind of read switched off (:data:`SEEN`); ``lost`` the
    kinds switched off (``pods``, ``pdbs``).
    """

    lister: PodLister
    sleep: Callable[[float], None] = time.sleep
    warn: Callable[[str], None] = lambda text: None
    lost: set[str] = field(default_factory=set)
    _seen: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Pod ``namespace/name`` -> (node, workload) for pods on a draining node at the last look."""
    _workloads: set[str] = field(default_factory=set)
    _disrupted: Counter[str] = field(default_factory=Counter)
    last_on: dict[str, list[str]] = field(default_factory=dict)
    """Node -> the evictable pods on it at the last look that saw it draining."""

    @property
    def seeing(self) -> bool:
        """False once the pods are no longer read (the watch is cloud-only)."""
        return "pods" not in self.lost

    def look(self, draining: Sequence[str]) -> PodFacts:
        """Pod facts for these draining node names (``2 + len(draining)`` list calls; none
        when nothing drains and nothing was seen draining, or the pods are switched off).
        Never raises for a failed read (the module docstring)."""
        if (not draining and not self._seen) or not self.seeing:
            return PodFacts()
        try:
            on_nodes: dict[str, tuple[Pod, ...]] = {
                node: tuple(p for p in self._read("pods", self.lister.pods,
                                                  f"spec.nodeName={node}") if evictable(p))
                for node in draining}
            pending = self._read("pods", self.lister.pods, "spec.nodeName=,status.phase=Pending")
        except _Lost:
            return PodFacts()
        pdbs: tuple[PodDisruptionBudget, ...] = ()
        if "pdbs" not in self.lost:
            with contextlib.suppress(_Lost):
                pdbs = self._read("pdbs", self.lister.pdbs)
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

    def pending(self) -> tuple[PendingPod, ...]:
        """The Pending pods (no node) of the workloads seen on a draining node, read now (one
        list call): the evicted pods no node took; () when none was seen or the pods are no
        longer read (advisory, as :meth:`look`)."""
        if not self._workloads or not self.seeing:
            return ()
        try:
            pods = self._read("pods", self.lister.pods, "spec.nodeName=,status.phase=Pending")
        except _Lost:
            return ()
        return tuple(PendingPod(p.ref, p.unschedulable or "Pending, not yet judged")
                     for p in pods if workload_of(p) in self._workloads)

    def _read(self, kind: str, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)``, tried again per :data:`READ_RETRY` while it fails transiently;
        raises _Lost (after the warning) once ``kind`` is switched off."""
        attempts, first, cap = READ_RETRY
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception(transient),
            stop=tenacity.stop_after_attempt(attempts),
            wait=tenacity.wait_exponential(multiplier=first, max=cap),
            sleep=self.sleep, reraise=True)
        try:
            return retrying(call, *args)
        except (KubeApiError, BadInput) as err:
            self.lost.add(kind)
            tries = f" after {attempts} attempts" if transient(err) else ""
            self.warn(f"the Kubernetes API read failed{tries}: {err.message}; the watch no "
                      f"longer sees {SEEN[kind]}. The upgrade is not affected: the cloud "
                      "operation is followed to its verdict")
            raise _Lost(kind) from err


def _selecting(pod: Pod, pdbs: Sequence[PodDisruptionBudget]) -> tuple[PodDisruptionBudget, ...]:
    """The PDBs of the pod's namespace whose selector selects it (a nil selector selects
    nothing in policy/v1; an empty one everything: ``selector_matches``)."""
    return tuple(b for b in pdbs if b.namespace == pod.namespace and b.selector is not None
                 and selector_matches(b.selector, pod.labels))


def open_pod_watch(kubeconfig: str | None, context: str | None) -> Any:
    """A :class:`ngupgrade.adapters.kube.live.LiveLister` for the run (the caller closes it),
    each list call bounded by :data:`WATCH_TIMEOUT` and tried once by the client (the watch
    retries with its own backoff, :data:`READ_RETRY`)."""
    from ngupgrade.adapters.kube.live import LiveLister

    return LiveLister(kubeconfig, context, timeout=WATCH_TIMEOUT, retries=0)
