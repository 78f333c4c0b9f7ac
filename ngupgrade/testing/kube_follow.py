"""The fake Kubernetes API follows the fake cloud's upgrade: what the platform's
node-by-node procedure does to the cloud's nodes, the cluster shows.

:class:`KubeFollower` is called by the world after each step of a version update and at every
tick, with the step's (or the tick's) virtual time:

* a node the procedure created appears Ready (``node_not_ready`` nodes: not Ready), labelled
  with its group as :mod:`ngupgrade.testing.kube_cluster` labels the seeded ones;
* a node it drains is cordoned: ``spec.unschedulable`` and the
  ``node.kubernetes.io/unschedulable:NoSchedule`` taint (what ``kubectl cordon`` sets); then
  its pods are evicted, one eviction at a time, as the eviction API allows them:
  :func:`ngupgrade.core.drain.eviction.eviction_gate` and :func:`budget_spec` decide over the
  PDBs selecting each pod (DaemonSet and mirror pods stay, as ``kubectl drain
  --ignore-daemonsets`` leaves them). An evicted pod of a ReplicaSet or StatefulSet comes back
  at once on a node where it fits (the scheduler's filters and room:
  ``core.drain.selectors.pod_may_run_on``, ``core.drain.resources.fits``; the most free cpu
  wins) and is Ready there, or stays Pending with ``PodScheduled=False`` and the scheduler's
  message (``0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu.``);
  a bare pod is gone. Pending pods are tried again at every call;
* a node still draining 7 minutes (Yandex's drain timeout, docs node-drain; 420 s) after its
  cordon is stopped with its pods: the instance reads STOPPED in ``ListNodes``, its pods go,
  their controllers recreate them as above;
* a node updated in place is uncordoned and Ready; a deleted node goes with its pods.

The PDBs' status (``currentHealthy``, ``desiredHealthy``, ``expectedPods``,
``disruptionsAllowed``) is recomputed after every change, as the disruption controller does.
:meth:`KubeFollower.drained_at` tells the procedure when a group's drains are over, so the
step after a drain (update in place or delete) waits for it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ngupgrade.adapters.kube import read_dump_bytes
from ngupgrade.core.drain.eviction import budget_spec, eviction_gate, is_healthy
from ngupgrade.core.drain.resources import CPU, MEMORY, add, fits, pod_request, sum_requests
from ngupgrade.core.drain.selectors import pod_may_run_on, selector_matches
from ngupgrade.core.k8s import ClusterSnapshot, Pod, PodDisruptionBudget
from ngupgrade.core.platform import YANDEX
from ngupgrade.testing.kube_api import FakeKubeApi
from ngupgrade.testing.kube_cluster import group_nodes
from ngupgrade.testing.objects import FakeGroup, FakeNode
from ngupgrade.testing.proto import node_name
from ngupgrade.testing.scenario import Fault

DRAIN_TIMEOUT = float(YANDEX.drain.drain_timeout_seconds or 420)
"""Seconds after its cordon a node still draining is stopped with its pods (Yandex: 7 min)."""
UNSCHEDULABLE = {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable"}
REPLACED = ("ReplicaSet", "StatefulSet")
"""Owners that recreate an evicted pod (a Job's pods are left alone: not in the fake)."""


@dataclass
class KubeFollower:
    """Keeps ``kube`` in step with the world's groups (see the module). ``events`` lists what
    it did, for tests: ``"08:05 evicted shop/api-1 from workers-0000"`` style strings with
    the virtual seconds."""

    kube: FakeKubeApi
    skip: set[str | None] = field(default_factory=set)
    """Ids of groups whose nodes the scenario's ``workloads`` give: served as given."""
    cordoned_at: dict[str, float] = field(default_factory=dict)
    """Kubernetes node name -> virtual time of its cordon (while it drains)."""
    done_at: dict[str, float] = field(default_factory=dict)
    """Node name -> when its drain ended (emptied, or stopped at the timeout)."""
    events: list[str] = field(default_factory=list)
    terminating: dict[tuple[str, str], float] = field(default_factory=dict)
    """Evicted pods still terminating on their node -> when they are gone."""
    _after: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    _names: Iterable[int] = field(default_factory=lambda: itertools.count(1))

    # -- the world's calls ------------------------------------------------------------------

    def follow(self, groups: Iterable[FakeGroup], now: float) -> None:
        """Bring the cluster in step with ``groups`` at virtual time ``now``."""
        groups = [g for g in groups if g.id not in self.skip]
        for key, until in list(self.terminating.items()):
            if until <= now:
                self.kube.delete("Pod", *key)
                del self.terminating[key]
                if key in self._after:
                    self._recreate(self._after.pop(key), key[1])
        self._nodes(groups, now)
        for g in groups:
            for m in g.members:
                name = node_name(g, m.instance_id)
                if name in self.cordoned_at and name not in self.done_at:
                    self._drain(name, m, now)
        self._place_pending()
        self._budgets()

    def inject(self, fault: Fault) -> None:
        """Arm a scenario ``kube_error`` fault on the API (:meth:`FakeKubeApi.fail`)."""
        self.kube.fail(fault.path, fault.status, fault.message or None, fault.times,
                       delay=fault.delay)

    def drained_at(self, g: FakeGroup) -> float | None:
        """When the drains of ``g``'s cordoned nodes ended (the latest); None while one lasts."""
        latest = 0.0
        for m in g.members:
            if not m.drained:
                continue
            done = self.done_at.get(node_name(g, m.instance_id))
            if done is None:
                return None
            latest = max(latest, done)
        return latest

    # -- nodes ------------------------------------------------------------------------------

    def _nodes(self, groups: list[FakeGroup], now: float) -> None:
        have = {n["metadata"]["name"]: n for n in self.kube.objects("Node")}
        members = {node_name(g, m.instance_id): (g, m) for g in groups for m in g.members}
        for name, (g, m) in members.items():
            node = have.get(name)
            if node is None:
                node = next(n for n in group_nodes(_only(g, m)) if n["metadata"]["name"] == name)
            changed = _set_ready(node, m.ready and not m.stopped)
            if m.drained and name not in self.cordoned_at:
                self.cordoned_at[name] = now
                changed |= _cordon(node, True)
                self.events.append(f"{now:.0f} cordoned {name}")
            elif not m.drained and name in self.cordoned_at:
                del self.cordoned_at[name]
                self.done_at.pop(name, None)
                changed |= _cordon(node, False)
                self.events.append(f"{now:.0f} uncordoned {name}")
            if changed or name not in have:
                self.kube.put("Node", node)
        group_ids = {g.id for g in groups}
        for name, node in have.items():
            labels = node["metadata"].get("labels") or {}
            if name not in members and labels.get("yandex.cloud/node-group-id") in group_ids:
                self.kube.delete("Node", "", name)
                self.cordoned_at.pop(name, None)
                self.done_at.pop(name, None)
                self._take_down(name, now, "deleted with")
                self.events.append(f"{now:.0f} deleted {name}")

    # -- the drain --------------------------------------------------------------------------

    def _drain(self, name: str, member: FakeNode, now: float) -> None:
        if now - self.cordoned_at[name] >= DRAIN_TIMEOUT:
            at = self.cordoned_at[name] + DRAIN_TIMEOUT
            member.stopped = True
            self.done_at[name] = at
            self._take_down(name, at, "stopped with")
            self.events.append(f"{at:.0f} stopped {name} (drain timeout)")
            return
        while True:
            snap = self._snapshot()
            left = [p for p in snap.pods if p.node_name == name and _evictable(p)]
            if not left:
                self.done_at[name] = now
                self.events.append(f"{now:.0f} drained {name}")
                return
            pod = next((p for p in left if not p.terminating and self._may_evict(p, snap)),
                       None)
            if pod is None:
                return  # refused (429) or still terminating: looked at again next call
            self._evict(pod, snap, now, "evicted")

    def _may_evict(self, pod: Pod, snap: ClusterSnapshot) -> bool:
        pdbs = tuple(b for b in snap.pdbs if _selects(b, pod))
        if not pdbs:
            return True
        selected = [p for p in snap.pods if _selects(pdbs[0], p)]
        spec = budget_spec(pdbs[0], selected, _replicas_of(snap))
        healthy = sum(1 for p in selected if is_healthy(p))
        gate = eviction_gate(pod, pdbs, healthy, spec)
        return gate == "free" or (gate == "budget" and spec.allowed(healthy) > 0)

    def _take_down(self, node: str, at: float, how: str) -> None:
        snap = self._snapshot()
        for pod in [p for p in snap.pods if p.node_name == node]:
            if _evictable(pod):
                self._evict(pod, snap, at, how)
                snap = self._snapshot()
            else:
                self.kube.delete("Pod", pod.namespace, pod.name)

    def _evict(self, pod: Pod, snap: ClusterSnapshot, at: float, how: str) -> None:
        """An evicted pod terminates for its grace period (it stays on its node, with a
        ``deletionTimestamp``) while its controller creates the replacement at once; a pod
        stopped or deleted with its node goes at once."""
        raw = next(o for o in self.kube.objects("Pod")
                   if (o["metadata"].get("namespace"), o["metadata"]["name"])
                   == (pod.namespace, pod.name))
        if how == "evicted":
            raw["metadata"]["deletionTimestamp"] = "2025-01-21T10:05:00Z"
            self.kube.put("Pod", raw)
            self.terminating[(pod.namespace, pod.name)] = at + pod.termination_grace_seconds
        else:
            self.kube.delete("Pod", pod.namespace, pod.name)
            self.terminating.pop((pod.namespace, pod.name), None)
        self.events.append(f"{at:.0f} {how} {pod.ref}" if how != "evicted"
                           else f"{at:.0f} evicted {pod.ref} from {pod.node_name}")
        if pod.owner is None or pod.owner.kind not in REPLACED:
            return
        if pod.owner.kind == "StatefulSet" and how == "evicted":
            self._after[(pod.namespace, pod.name)] = raw  # same identity: once it is gone
            return
        self._recreate(raw, self._replacement_name(pod))

    def _recreate(self, raw: dict[str, Any], name: str) -> None:
        again = _fresh(raw, name)
        self.kube.put("Pod", again)
        self._place(again, self._snapshot())

    def _replacement_name(self, pod: Pod) -> str:
        if pod.owner is not None and pod.owner.kind == "StatefulSet":
            return pod.name  # a StatefulSet recreates the same identity
        return f"{pod.owner.name if pod.owner else pod.name}-r{next(iter(self._names))}"

    # -- the scheduler ----------------------------------------------------------------------

    def _place_pending(self) -> None:
        for raw in self.kube.objects("Pod"):
            if not raw["spec"].get("nodeName") and raw.get("status", {}).get("phase") == "Pending":
                self._place(raw, self._snapshot())

    def _place(self, raw: dict[str, Any], snap: ClusterSnapshot) -> None:
        pod = next(p for p in snap.pods if (p.namespace, p.name)
                   == (raw["metadata"].get("namespace"), raw["metadata"]["name"]))
        need = pod_request(pod)
        reasons: dict[str, int] = {}
        best: tuple[float, str] | None = None
        for node in snap.nodes:
            if node.unschedulable:
                why = "node(s) were unschedulable"
            elif not node.ready:
                why = "node(s) had untolerated taint {node.kubernetes.io/not-ready: }"
            elif not pod_may_run_on(pod, node):
                why = "node(s) didn't match Pod's node affinity/selector"
            else:
                bound = sum_requests(p for p in snap.pods if p.node_name == node.name)
                free = {k: v - bound.get(k, 0) for k, v in node.allocatable.items()}
                if fits(need, free):
                    score = free.get(CPU, 0) / max(1, node.allocatable.get(CPU, 1)) + \
                        free.get(MEMORY, 0) / max(1, node.allocatable.get(MEMORY, 1))
                    if best is None or score > best[0]:
                        best = (score, node.name)
                    continue
                short = [k for k, v in add({}, need).items() if v > free.get(k, v)]
                why = f"Insufficient {short[0] if short else 'cpu'}"
            reasons[why] = reasons.get(why, 0) + 1
        if best is not None:
            raw["spec"]["nodeName"] = best[1]
            raw["status"] = _running(raw)
            self.kube.put("Pod", raw)
            return
        text = ", ".join(f"{n} {why}" for why, n in sorted(reasons.items()))
        message = f"0/{len(snap.nodes)} nodes are available: {text}."
        raw["status"] = {"phase": "Pending", "qosClass": "Burstable", "conditions": [{
            "lastProbeTime": None, "lastTransitionTime": "2025-01-21T10:00:00Z",
            "message": message, "reason": "Unschedulable", "status": "False",
            "type": "PodScheduled"}]}
        self.kube.put("Pod", raw)

    # -- the disruption controller ----------------------------------------------------------

    def _budgets(self) -> None:
        snap = self._snapshot()
        by_key = {(o["metadata"].get("namespace"), o["metadata"]["name"]): o
                  for o in self.kube.objects("PodDisruptionBudget")}
        for b in snap.pdbs:
            selected = [p for p in snap.pods if _selects(b, p)]
            spec = budget_spec(b, selected, _replicas_of(snap))
            healthy = sum(1 for p in selected if is_healthy(p))
            raw = by_key[(b.namespace, b.name)]
            status = {**(raw.get("status") or {}), "currentHealthy": healthy,
                      "desiredHealthy": spec.desired, "expectedPods": spec.expected,
                      "disruptionsAllowed": spec.allowed(healthy),
                      "observedGeneration": raw["metadata"].get("generation", 1)}
            if status != raw.get("status"):
                raw["status"] = status
                self.kube.put("PodDisruptionBudget", raw)

    def _snapshot(self) -> ClusterSnapshot:
        import json

        items = []
        for kind in ("Node", "Pod", "PodDisruptionBudget", "Deployment", "ReplicaSet",
                     "StatefulSet"):
            items += [{**o, "kind": kind} for o in self.kube.objects(kind)]
        data = json.dumps({"kind": "List", "apiVersion": "v1", "items": items}).encode()
        return read_dump_bytes(data, "fake kube").snapshot


def _only(g: FakeGroup, m: FakeNode) -> FakeGroup:
    """``g`` seen with one member (to build that member's node)."""
    from dataclasses import replace

    return replace(g, members=[m])


def _set_ready(node: dict[str, Any], ready: bool) -> bool:
    for c in node.get("status", {}).get("conditions", ()):
        if c.get("type") == "Ready":
            want = "True" if ready else "False"
            if c.get("status") != want:
                c["status"] = want
                return True
    return False


def _cordon(node: dict[str, Any], on: bool) -> bool:
    spec = node.setdefault("spec", {})
    taints = [t for t in spec.get("taints", ()) if t.get("key") != UNSCHEDULABLE["key"]]
    if on:
        spec["unschedulable"] = True
        taints.append(dict(UNSCHEDULABLE))
    else:
        spec.pop("unschedulable", None)
    if taints:
        spec["taints"] = taints
    else:
        spec.pop("taints", None)
    return True


def _evictable(pod: Pod) -> bool:
    return not pod.mirror and not (pod.owner is not None and pod.owner.kind == "DaemonSet") \
        and pod.phase not in ("Succeeded", "Failed")


def _selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    return pdb.namespace == pod.namespace and selector_matches(pdb.selector, pod.labels)


def _replicas_of(snap: ClusterSnapshot) -> Any:
    """``replicas_of`` for :func:`budget_spec`: a pod's scalable controller and its replicas
    (a ReplicaSet's Deployment when it has one)."""
    workloads: dict[tuple[str, str, str], Any] = {
        (w.kind, w.namespace, w.name): w for w in snap.workloads}

    def replicas_of(pod: Pod) -> tuple[str, int] | None:
        if pod.owner is None:
            return None
        w = workloads.get((pod.owner.kind, pod.namespace, pod.owner.name))
        if w is None:
            return None
        if w.owner is not None:
            top = workloads.get((w.owner.kind, pod.namespace, w.owner.name))
            if top is not None:
                w = top
        return (f"{w.kind}/{w.namespace}/{w.name}", w.replicas or 0)

    return replicas_of


def _fresh(raw: dict[str, Any], name: str) -> dict[str, Any]:
    """The controller's new pod: the evicted one's spec without its node, Pending."""
    import copy

    pod = copy.deepcopy(raw)
    pod["metadata"]["name"] = name
    pod["metadata"].pop("uid", None)
    pod["metadata"].pop("deletionTimestamp", None)
    pod["spec"].pop("nodeName", None)
    pod["status"] = {"phase": "Pending", "qosClass": "Burstable"}
    return pod


def _running(raw: dict[str, Any]) -> dict[str, Any]:
    conditions = [{"lastProbeTime": None, "lastTransitionTime": "2025-01-21T10:00:00Z",
                   "status": "True", "type": t}
                  for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")]
    return {"phase": "Running", "qosClass": "Burstable", "conditions": conditions,
            "startTime": "2025-01-21T10:00:00Z"}
