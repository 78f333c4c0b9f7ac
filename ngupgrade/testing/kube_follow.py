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

Cost: the follower runs under the fake cloud's lock at every call, so it decides on an index
kept change by change (:class:`ngupgrade.testing.kube_index.ClusterIndex`), never on the whole
cluster read back: a call that changes nothing looks at the group members and the draining
nodes only; an eviction costs what its pod, its PDB and the best open nodes cost; a Pending
pod is tried again only after something placement reads changed (a failed try of the same
pod class at the same ``epoch`` gives the same message). The answers are the ones a full read
of the cluster gave (``bench/bench_fake_scale.py`` measures the cost at the platform's
limits).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ngupgrade.core.drain.eviction import eviction_gate
from ngupgrade.core.drain.resources import add, fits
from ngupgrade.core.drain.selectors import pod_may_run_on
from ngupgrade.core.k8s import Node, Pod
from ngupgrade.core.platform import YANDEX
from ngupgrade.testing.kube_api import FakeKubeApi
from ngupgrade.testing.kube_cluster import group_nodes
from ngupgrade.testing.kube_index import ClusterIndex, Raw, evolve
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
    _after: dict[tuple[str, str], Raw] = field(default_factory=dict)
    _names: Iterable[int] = field(default_factory=lambda: itertools.count(1))
    cluster: ClusterIndex = field(init=False)
    """The API's objects as the follower decides on them."""

    def __post_init__(self) -> None:
        self.cluster = ClusterIndex(self.kube)

    # -- the world's calls ------------------------------------------------------------------

    def follow(self, groups: Iterable[FakeGroup], now: float) -> None:
        """Bring the cluster in step with ``groups`` at virtual time ``now``."""
        groups = [g for g in groups if g.id not in self.skip]
        self.cluster.sync()
        if self.terminating and min(self.terminating.values()) <= now:
            for key, until in list(self.terminating.items()):
                if until <= now:
                    self.cluster.delete_pod(key)
                    del self.terminating[key]
                    if key in self._after:
                        self._recreate(self._after.pop(key), key[1])
        self._nodes(groups, now)
        if len(self.done_at) < len(self.cordoned_at):
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
        c = self.cluster
        have = dict(c.node_raw)
        members = {node_name(g, m.instance_id): (g, m) for g in groups for m in g.members}
        for name, (g, m) in members.items():
            node = have.get(name)
            if node is None:
                node = next(n for n in group_nodes(_only(g, m)) if n["metadata"]["name"] == name)
            changed = _with_ready(node, m.ready and not m.stopped)
            if changed is not None:
                node = changed
            if m.drained and name not in self.cordoned_at:
                self.cordoned_at[name] = now
                node = changed = _cordoned(node, True)
                self.events.append(f"{now:.0f} cordoned {name}")
            elif not m.drained and name in self.cordoned_at:
                del self.cordoned_at[name]
                self.done_at.pop(name, None)
                node = changed = _cordoned(node, False)
                self.events.append(f"{now:.0f} uncordoned {name}")
            if changed is not None or name not in have:
                c.put_node(node)
        group_ids = {g.id for g in groups}
        gone = [name for name in have if name not in members
                and c.nodes[name].labels.get("yandex.cloud/node-group-id") in group_ids]
        for name in sorted(gone):
            c.delete_node(name)
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
        # Nothing lands on a cordoned node and an eviction leaves its pod there (terminating),
        # so the node's evictable pods stay these while this drain runs.
        left = [p for p in self.cluster.pods_on(name) if _evictable(p)]
        if not left:
            self.done_at[name] = now
            self.events.append(f"{now:.0f} drained {name}")
            return
        waiting = [p for p in left if not p.terminating]  # in order; an eviction ends one
        while True:
            first = next((i for i, p in enumerate(waiting) if self._may_evict(p)), None)
            if first is None:
                return  # refused (429) or still terminating: looked at again next call
            self._evict(waiting.pop(first), now, "evicted")

    def _may_evict(self, pod: Pod) -> bool:
        pdbs = self.cluster.pdbs_of(pod)
        if not pdbs:
            return True
        spec, healthy = self.cluster.budget(pdbs[0])
        gate = eviction_gate(pod, pdbs, healthy, spec)
        return gate == "free" or (gate == "budget" and spec.allowed(healthy) > 0)

    def _take_down(self, node: str, at: float, how: str) -> None:
        for pod in self.cluster.pods_on(node):
            if _evictable(pod):
                self._evict(pod, at, how)
            else:
                self.cluster.delete_pod((pod.namespace, pod.name))

    def _evict(self, pod: Pod, at: float, how: str) -> None:
        """An evicted pod terminates for its grace period (it stays on its node, with a
        ``deletionTimestamp``) while its controller creates the replacement at once; a pod
        stopped or deleted with its node goes at once."""
        key = (pod.namespace, pod.name)
        raw, current = self.cluster.pod_raw[key], self.cluster.pods[key]
        if how == "evicted":
            raw = {**raw, "metadata": {**raw["metadata"],
                                       "deletionTimestamp": "2025-01-21T10:05:00Z"}}
            current = self.cluster.put_pod(raw, evolve(current, terminating=True))
            self.terminating[key] = at + pod.termination_grace_seconds
        else:
            self.cluster.delete_pod(key)
            self.terminating.pop(key, None)
        self.events.append(f"{at:.0f} {how} {pod.ref}" if how != "evicted"
                           else f"{at:.0f} evicted {pod.ref} from {pod.node_name}")
        if pod.owner is None or pod.owner.kind not in REPLACED:
            return
        if pod.owner.kind == "StatefulSet" and how == "evicted":
            self._after[key] = raw  # same identity: once it is gone
            return
        self._recreate(raw, self._replacement_name(pod), current)

    def _recreate(self, raw: Raw, name: str, last: Pod | None = None) -> None:
        """The controller's replacement of a pod (``raw``; ``last`` its value, if known)."""
        again = _fresh(raw, name)
        derived = None
        if last is not None and not any(v.source == "ephemeral" for v in last.volumes):
            # what the reader makes of _fresh's object (an ephemeral volume's claim is named
            # after its pod: read that one again)
            derived = evolve(last, name=name, node_name=None, phase="Pending", ready=False,
                              terminating=False, uid="", unschedulable="")
        pod = self.cluster.put_pod(again, derived)
        self._place(again, pod)

    def _replacement_name(self, pod: Pod) -> str:
        if pod.owner is not None and pod.owner.kind == "StatefulSet":
            return pod.name  # a StatefulSet recreates the same identity
        return f"{pod.owner.name if pod.owner else pod.name}-r{next(iter(self._names))}"

    # -- the scheduler ----------------------------------------------------------------------

    def _place_pending(self) -> None:
        """Try every Pending pod in (namespace, name) order, but not one whose last try failed
        at this ``epoch``: nothing it reads changed, so it would fail with the same message."""
        c = self.cluster
        if all(c.tried.get(key) == c.epoch for key in c.pending):
            return
        for key in sorted(c.pending):
            if key in c.pending and c.tried.get(key) != c.epoch:
                self._place(c.pod_raw[key], c.pods[key])

    def _place(self, raw: Raw, pod: Pod) -> None:
        """Bind ``pod`` to the open node with the most free room where it may run and fits
        (ties: the first by name), else leave it Pending with the scheduler's message."""
        c = self.cluster
        key = (pod.namespace, pod.name)
        need = c.request(key)
        cls = (tuple(sorted(need.items())), tuple(sorted(pod.node_selector.items())),
               pod.required_node_affinity, pod.tolerations)
        failed = c.failed.get(cls)
        best = None
        if failed is None or failed[0] != c.epoch:
            best = next((name for name in c.ranked() if _fits_on(pod, need, c.nodes[name],
                                                                  c.bound.get(name, {}))), None)
        if best is not None:
            c.put_pod({**raw, "spec": {**raw["spec"], "nodeName": best},
                       "status": _running(raw)},
                      evolve(pod, node_name=best, phase="Running", ready=True, unschedulable=""))
            return
        if failed is None or failed[0] != c.epoch:
            failed = c.failed[cls] = (c.epoch, _unschedulable(pod, need, c))
        status = {"phase": "Pending", "qosClass": "Burstable", "conditions": [{
            "lastProbeTime": None, "lastTransitionTime": "2025-01-21T10:00:00Z",
            "message": failed[1], "reason": "Unschedulable", "status": "False",
            "type": "PodScheduled"}]}
        if raw.get("status") != status:
            c.put_pod({**raw, "status": status},
                      evolve(pod, phase="Pending", ready=False, unschedulable=failed[1]))
        c.tried[key] = c.epoch

    # -- the disruption controller ----------------------------------------------------------

    def _budgets(self) -> None:
        c = self.cluster
        for key in sorted(c.dirty):
            b = c.pdbs.get(key)
            if b is None:
                continue
            spec, healthy = c.budget(b)
            raw = c.pdb_raw[key]
            status = {**(raw.get("status") or {}), "currentHealthy": healthy,
                      "desiredHealthy": spec.desired, "expectedPods": spec.expected,
                      "disruptionsAllowed": spec.allowed(healthy),
                      "observedGeneration": raw["metadata"].get("generation", 1)}
            if status != raw.get("status"):
                c.put_pdb({**raw, "status": status})
        c.dirty.clear()


def _free(node: Node, bound: dict[str, int]) -> dict[str, int]:
    return {k: v - bound.get(k, 0) for k, v in node.allocatable.items()}


def _fits_on(pod: Pod, need: dict[str, int], node: Node, bound: dict[str, int]) -> bool:
    return pod_may_run_on(pod, node) and fits(need, _free(node, bound))


def _unschedulable(pod: Pod, need: dict[str, int], c: ClusterIndex) -> str:
    """The scheduler's message for a pod no node takes: ``0/N nodes are available: ...``,
    one count per reason, the reasons sorted."""
    reasons: dict[str, int] = {}
    nodes = c.sorted_nodes()
    for node in nodes:
        if node.unschedulable:
            why = "node(s) were unschedulable"
        elif not node.ready:
            why = "node(s) had untolerated taint {node.kubernetes.io/not-ready: }"
        elif not pod_may_run_on(pod, node):
            why = "node(s) didn't match Pod's node affinity/selector"
        else:
            free = _free(node, c.bound.get(node.name, {}))
            short = [k for k, v in add({}, need).items() if v > free.get(k, v)]
            why = f"Insufficient {short[0] if short else 'cpu'}"
        reasons[why] = reasons.get(why, 0) + 1
    text = ", ".join(f"{n} {why}" for why, n in sorted(reasons.items()))
    return f"0/{len(nodes)} nodes are available: {text}."


def _only(g: FakeGroup, m: FakeNode) -> FakeGroup:
    """``g`` seen with one member (to build that member's node)."""
    return replace(g, members=[m])


def _with_ready(node: Raw, ready: bool) -> dict[str, Any] | None:
    """``node`` with its Ready condition set to ``ready``; None when it already reads so."""
    conditions = list(node.get("status", {}).get("conditions", ()))
    for i, c in enumerate(conditions):
        if c.get("type") == "Ready":
            want = "True" if ready else "False"
            if c.get("status") != want:
                conditions[i] = {**c, "status": want}
                return {**node, "status": {**node["status"], "conditions": conditions}}
    return None


def _cordoned(node: Raw, on: bool) -> dict[str, Any]:
    """``node`` cordoned (``spec.unschedulable`` and its taint, as ``kubectl cordon``) or
    uncordoned."""
    spec = dict(node.get("spec") or {})
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
    return {**node, "spec": spec}


def _evictable(pod: Pod) -> bool:
    return not pod.mirror and not (pod.owner is not None and pod.owner.kind == "DaemonSet") \
        and pod.phase not in ("Succeeded", "Failed")


def _fresh(raw: Raw, name: str) -> dict[str, Any]:
    """The controller's new pod: the evicted one's spec without its node, Pending."""
    meta = dict(raw["metadata"])
    meta["name"] = name
    meta.pop("uid", None)
    meta.pop("deletionTimestamp", None)
    spec = dict(raw["spec"])
    spec.pop("nodeName", None)
    return {**raw, "metadata": meta, "spec": spec,
            "status": {"phase": "Pending", "qosClass": "Burstable"}}


def _running(raw: Raw) -> dict[str, Any]:
    conditions = [{"lastProbeTime": None, "lastTransitionTime": "2025-01-21T10:00:00Z",
                   "status": "True", "type": t}
                  for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")]
    return {"phase": "Running", "qosClass": "Burstable", "conditions": conditions,
            "startTime": "2025-01-21T10:00:00Z"}
