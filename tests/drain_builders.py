"""Small readable builders for the drain-check tests: nodes, pods, workloads, PDBs, groups.

Units: cpu in millicores, memory in MiB (converted to bytes here), as a reader of a pod spec
would write them (``cpu: 800m``, ``memory: 512Mi``).
"""

from __future__ import annotations

from ngupgrade.core.address import TfAddress
from ngupgrade.core.drain.findings import Finding
from ngupgrade.core.k8s import (
    NODE_GROUP_LABEL,
    ClusterSnapshot,
    Container,
    LabelSelector,
    Node,
    OwnerRef,
    Pod,
    PodDisruptionBudget,
    Taint,
    Toleration,
    Volume,
    Workload,
)
from ngupgrade.core.model import (
    GIB,
    AutoScale,
    BootDisk,
    DeployPolicy,
    FixedScale,
    NodeGroup,
    NodeResources,
)
from ngupgrade.core.simulate import GroupPlan, plan_group

MIB = 1 << 20
GROUP_ID = "catng0000000000000a1"
OTHER_ID = "catng0000000000000b2"


def node(name: str, *, group: str | None = GROUP_ID, cpu: int = 4000, mem: int = 8192,
         pods: int = 110, labels: dict[str, str] | None = None, taints: tuple[Taint, ...] = (),
         gpus: int = 0, unschedulable: bool = False) -> Node:
    """A Ready node of ``group`` with ``cpu`` millicores and ``mem`` MiB allocatable."""
    all_labels = {"kubernetes.io/os": "linux", "kubernetes.io/hostname": name}
    if group is not None:
        all_labels[NODE_GROUP_LABEL] = group
    all_labels.update(labels or {})
    alloc = {"cpu": cpu, "memory": mem * MIB, "pods": pods}
    if gpus:
        alloc["nvidia.com/gpu"] = gpus
    return Node(name, all_labels, alloc, taints=taints, unschedulable=unschedulable)


def pod(name: str, on: str | None, *, cpu: int = 100, mem: int = 128, app: str = "web",
        ns: str = "default", owner: tuple[str, str] | None = ("ReplicaSet", "web-rs"),
        ready: bool = True, phase: str = "Running", **kw: object) -> Pod:
    """A pod of ``app`` on node ``on`` requesting ``cpu`` m and ``mem`` MiB (one container)."""
    requests = {"cpu": cpu, "memory": mem * MIB}
    extra = kw.pop("requests", None)
    if isinstance(extra, dict):
        requests.update(extra)
    return Pod(namespace=ns, name=name, labels={"app": app}, node_name=on,
               phase=phase, ready=ready,  # type: ignore[arg-type]
               owner=OwnerRef(*owner) if owner else None,
               containers=(Container("main", requests),), **kw)  # type: ignore[arg-type]


def deployment(name: str, replicas: int, ns: str = "default") -> tuple[Workload, Workload]:
    """A Deployment and its ReplicaSet ``<name>-rs`` (pods are owned by the ReplicaSet)."""
    return (Workload("Deployment", ns, name, replicas=replicas),
            Workload("ReplicaSet", ns, f"{name}-rs", replicas=replicas,
                     owner=OwnerRef("Deployment", name)))


def pdb(name: str, app: str, *, ns: str = "default", min_available: int | str | None = None,
        max_unavailable: int | str | None = None, **kw: object) -> PodDisruptionBudget:
    """A PDB selecting ``app=<app>``."""
    return PodDisruptionBudget(ns, name, LabelSelector({"app": app}),
                               min_available=min_available, max_unavailable=max_unavailable,
                               **kw)  # type: ignore[arg-type]


def group(*, size: int = 5, auto: tuple[int, int] | None = None, cores: int = 4,
          mem_gib: int = 8, gpus: int = 0, gid: str = GROUP_ID,
          policy: tuple[int, int] = (0, 2), node_labels: dict[str, str] | None = None,
          node_taints: tuple[Taint, ...] = ()) -> NodeGroup:
    """A node group ``yandex_kubernetes_node_group.workers``."""
    scale = AutoScale(auto[0], auto[1], auto[0]) if auto else FixedScale(size)
    return NodeGroup(
        address=TfAddress("yandex_kubernetes_node_group", "workers"), id=gid, name="workers",
        cluster_id="catcluster000000000a", folder_id=None, version="1.30", status="running",
        policy=DeployPolicy(*policy), scale=scale,
        node=NodeResources("standard-v3", cores, 100, mem_gib * GIB, gpus,
                           BootDisk("network-ssd", 64 * GIB), False, False),
        node_labels=node_labels or {}, node_taints=node_taints)


def plan(g: NodeGroup, nodes: int, policy: tuple[int, int] | None = None) -> GroupPlan:
    """The plan of ``g`` for ``nodes`` live nodes (optionally another policy)."""
    e, u = policy if policy is not None else (None, None)
    return plan_group(g, live_size=nodes, max_expansion=e, max_unavailable=u)


def cluster(nodes: list[Node], pods: list[Pod], *, workloads: tuple[Workload, ...] = (),
            pdbs: tuple[PodDisruptionBudget, ...] = (), **kw: object) -> ClusterSnapshot:
    """A snapshot of these objects."""
    return ClusterSnapshot(nodes=tuple(nodes), pods=tuple(pods), workloads=workloads,
                           pdbs=pdbs, **kw)  # type: ignore[arg-type]


def codes(findings: tuple[Finding, ...] | list[Finding]) -> list[str]:
    """The codes of ``findings``, sorted."""
    return sorted(f.code for f in findings)


def find(findings: tuple[Finding, ...], code: str) -> list[Finding]:
    """The findings with ``code``."""
    return [f for f in findings if f.code == code]


TOLERATE_ALL = (Toleration(operator="Exists"),)
EMPTYDIR = (Volume("scratch", "emptyDir"),)
