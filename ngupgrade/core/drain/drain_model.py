"""The per-group part of the drain model: built once per group, run for many plans. Pure.

:class:`DrainModel` holds what does not depend on the policy or the order: the group's
Kubernetes nodes (:mod:`ngupgrade.core.membership`: Yandex's label
``yandex.cloud/node-group-id=<id>``, Selectel's node hostnames in the state), the nodes of
other groups that can take pods, the surge node the upgrade would create (the group's
template from the state: the platform's allocatable reservation, ``node_labels``,
``node_taints``, minus the DaemonSet pods
that land on it first, as cluster-autoscaler's template nodes do), the pods on each node and
the eligible nodes of each scheduling class. ``check.check_model`` then runs a plan on it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from ngupgrade.core.drain.eviction import is_healthy
from ngupgrade.core.drain.facts import PodFacts
from ngupgrade.core.drain.fit import ClassKey, Need, NodeRoom, RoomTable
from ngupgrade.core.drain.index import ClusterIndex
from ngupgrade.core.drain.resources import (
    CPU,
    DEFAULT_MAX_PODS,
    EPHEMERAL,
    PODS,
    fits,
    sum_requests,
    template_allocatable,
)
from ngupgrade.core.drain.selectors import pod_may_run_on
from ngupgrade.core.drain.ytsaurus import max_unavailable
from ngupgrade.core.k8s import (
    HOSTNAME_LABEL,
    ClusterSnapshot,
    Node,
    NodeSelectorTerm,
    Pod,
)
from ngupgrade.core.membership import group_labels, group_node_names
from ngupgrade.core.model import NodeGroup

SURGE_PREFIX = "surge-"


@dataclass
class DrainModel:
    """One node group in one cluster, ready to be checked against plans.

    ``group_nodes`` the group's node names, sorted; ``rooms`` every node that may take a
    pod (other groups' Ready schedulable nodes, the group's nodes, ``surge_slots`` surge
    nodes named ``surge-1``...), with their free room now; ``pods_on`` the pods bound to each
    group node; ``load`` each group node's requested cpu (for the sampled orders).
    """

    group: NodeGroup
    index: ClusterIndex
    group_nodes: tuple[str, ...]
    other_open: tuple[str, ...]
    rooms: dict[str, NodeRoom]
    surge_slots: int
    pods_on: dict[str, list[Pod]]
    load: dict[str, float]
    _table: RoomTable | None = field(default=None, repr=False)
    _facts: dict[str, list[PodFacts]] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, group: NodeGroup, cluster: ClusterSnapshot | ClusterIndex, *,
              surge_slots: int = 0) -> DrainModel:
        """Index ``group`` in ``cluster`` (pass a :class:`ClusterIndex` to share one across
        groups). ``surge_slots`` surge nodes are prepared now; :meth:`check` adds more when a
        plan needs them."""
        index = cluster if isinstance(cluster, ClusterIndex) else ClusterIndex.build(cluster)
        mine = group_node_names(group, index.snapshot.nodes)
        members = set(mine)
        rooms: dict[str, NodeRoom] = {}
        other: list[str] = []
        for node in index.snapshot.nodes:
            in_group = node.name in members
            if not in_group and (node.unschedulable or not node.ready):
                continue
            used = index.used_on(node.name)
            rooms[node.name] = NodeRoom(node, node.allocatable, _minus(node.allocatable, used))
            if not in_group:
                other.append(node.name)
        pods_on = {name: list(index.pods_on.get(name, ())) for name in mine}
        load = {name: float(sum(index.request(p).get(CPU, 0) for p in pods_on[name]))
                for name in mine}
        model = cls(group, index, mine, tuple(other), rooms, 0, pods_on, load)
        model.add_surge(surge_slots)
        return model

    # ---- surge nodes ---------------------------------------------------------------------

    def surge_node(self, number: int) -> Node:
        """The Kubernetes node a surge VM of this group would register as.

        Labels: those every current node of the group shares (``kubernetes.io/os``, the
        instance type...; not the hostname), then the template's ``node_labels``, then the
        platform's group label (Yandex's group id; none on Selectel). Taints: the template's
        ``node_taints``. Allocatable: the platform's documented reservation for the template's
        cores and memory (:func:`template_allocatable`), ``nvidia.com/gpu`` for its GPUs;
        ``pods`` and
        ``ephemeral-storage`` as a current node of the group shows them (else 110 pods and
        ephemeral storage unchecked); without a template, a current node's allocatable.
        """
        current = [self.index.nodes[n] for n in self.group_nodes]
        labels: dict[str, str] = {}
        if current:
            shared = set(current[0].labels.items())
            for node in current[1:]:
                shared &= set(node.labels.items())
            labels = {k: v for k, v in shared if k != HOSTNAME_LABEL}
        labels.update(self.group.node_labels)
        labels.update(group_labels(self.group))
        name = f"{SURGE_PREFIX}{number}"
        labels[HOSTNAME_LABEL] = name
        sample = current[0].allocatable if current else {}
        template = self.group.node
        if template is not None:
            allocatable = template_allocatable(
                self.group.platform, template.cores, template.memory_bytes, gpus=template.gpus,
                pods=sample.get(PODS, DEFAULT_MAX_PODS), ephemeral_bytes=sample.get(EPHEMERAL))
        else:
            allocatable = dict(sample)
        return Node(name, labels, allocatable, taints=self.group.node_taints)

    def daemonset_pods(self, node: Node) -> list[Pod]:
        """The DaemonSet pods that land on a new ``node`` before anything else does."""
        out = []
        for ds in self.index.daemonsets:
            assert ds.template is not None
            if pod_may_run_on(ds.template, node, daemonset=True):
                out.append(ds.template)
        return out

    def add_surge(self, count: int) -> None:
        """Make sure ``count`` surge rooms exist (the room table is rebuilt)."""
        if count <= self.surge_slots:
            return
        for number in range(self.surge_slots + 1, count + 1):
            node = self.surge_node(number)
            used = sum_requests(self.daemonset_pods(node))
            self.rooms[node.name] = NodeRoom(node, node.allocatable,
                                             _minus(node.allocatable, used))
        self.surge_slots = count
        self._table = None

    # ---- what every run starts from (built once, shared by every order and plan) ----------

    @property
    def table(self) -> RoomTable:
        """:attr:`rooms` as a :class:`RoomTable`: open at the start are the other groups'
        nodes and the group's nodes that are Ready and not cordoned (surge nodes open when
        their wave makes them Ready)."""
        if self._table is None:
            surge = [n for n in self.rooms if n.startswith(SURGE_PREFIX)]
            start = self.other_open + tuple(n for n in self.group_nodes
                                            if not _cordoned(self.rooms[n].node))
            self._table = RoomTable(self.rooms, start, surge, (*self.group_nodes, *surge))
        return self._table

    @property
    def facts_on(self) -> dict[str, list[PodFacts]]:
        """:class:`PodFacts` of the pods on each group node, in :attr:`pods_on` order."""
        if self._facts is None:
            classes: dict[ClassKey, int] = {}
            needs: dict[tuple[object, ...], Need] = {}
            self._facts = {n: [PodFacts(p, self.index, classes, needs) for p in pods]
                           for n, pods in self.pods_on.items()}
        return self._facts

    # ---- facts for the report ------------------------------------------------------------

    def hosts_for(self, pod: Pod, terms: tuple[NodeSelectorTerm, ...]) -> int:
        """How many other nodes of the group could host ``pod`` if they were empty of
        everything but what stays (labels, taints, allocatable): the bound on how often a
        pod can be moved onto an old node and evicted again (the Selectel strategy page, "Обновление
        с дополнительными нодами"). A node that is NotReady or cordoned takes no pod, so it does not
        count."""
        request = self.index.request(pod)
        count = 0
        for name in self.group_nodes:
            if name == pod.node_name:
                continue
            room = self.rooms[name]
            if not room.node.ready or room.node.unschedulable:
                continue
            if pod_may_run_on(pod, room.node, terms) and fits(request, room.allocatable):
                count += 1
        return count

    def concerns(self) -> list[dict[str, int]]:
        """Per PDB and YTsaurus component with pods on two or more group nodes, its pods per
        node, riskiest first (pods in the group over what may be down at once)."""
        ranked: list[tuple[float, str, dict[str, int]]] = []
        per_pdb: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        per_yt: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for name in self.group_nodes:
            for pod in self.pods_on[name]:
                for pdb in self.index.pdbs_of.get(pod.ref, ()):
                    per_pdb[pdb.ref][name] += 1
                target = self.index.yt_of.get(pod.ref)
                if target is not None:
                    per_yt[target.ref][name] += 1
        for ref, counts in per_pdb.items():
            spec = self.index.specs.get(ref)
            allowed = spec.allowed(self.index.healthy.get(ref, 0)) if spec else 0
            ranked.append((sum(counts.values()) / max(allowed, 1), ref, counts))
        for target in self.index.yt_targets:
            counts = per_yt.get(target.ref, {})
            ranked.append((sum(counts.values()) / max_unavailable(target.component),
                           target.ref, counts))
        ranked = [r for r in ranked if len(r[2]) >= 2]
        ranked.sort(key=lambda r: (-r[0], r[1]))
        return [dict(r[2]) for r in ranked]

    def unhealthy_yt(self, ref: str) -> int:
        """Pods of a YTsaurus component not healthy in the snapshot on nodes outside the
        group (those inside are counted when their node drains)."""
        mine = set(self.group_nodes)
        return sum(1 for p in self.index.yt_pods.get(ref, ())
                   if not is_healthy(p) and p.node_name not in mine)


def _cordoned(node: Node) -> bool:
    return node.unschedulable or not node.ready


def _minus(allocatable: Mapping[str, int], used: Mapping[str, int]) -> dict[str, int]:
    """Free room: allocatable minus requests, for the resources the node reports."""
    free = dict(allocatable)
    for key, amount in used.items():
        if key in free:
            free[key] -= amount
    return free
