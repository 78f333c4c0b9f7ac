"""The Kubernetes objects the drain check reads, as plain values. Pure.

One shape for both inputs: ``adapters/kube`` builds these from kubectl's ``List`` JSON
(``--cluster FILE``) and from the live API (``--kubeconfig``), so the drain math in
``core/drain`` never sees a client library or a raw dict.

Units (the scheduler's own): ``cpu`` in millicores, ``memory`` and ``ephemeral-storage`` in
bytes, ``pods`` a count, extended resources (``nvidia.com/gpu``...) as integer counts. A
:data:`Resources` mapping leaves out what is zero. Fields keep the API's names in snake case
(``spec.nodeName`` -> ``node_name``); sources: the Kubernetes API reference (core/v1,
apps/v1, policy/v1) and ``reference/kubernetes-and-drain-facts.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Resources = Mapping[str, int]
"""Resource name -> amount in the units above (``{"cpu": 250, "memory": 268435456}``)."""

NODE_GROUP_LABEL = "yandex.cloud/node-group-id"
"""Label Yandex puts on every Kubernetes node of a node group (docs: node labels)."""

ZONE_LABEL = "topology.kubernetes.io/zone"
HOSTNAME_LABEL = "kubernetes.io/hostname"

TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
PodPhase = Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"]


@dataclass(frozen=True)
class Taint:
    """``spec.taints[]`` of a node."""

    key: str
    effect: TaintEffect
    value: str = ""


@dataclass(frozen=True)
class Toleration:
    """``spec.tolerations[]`` of a pod. ``operator`` Equal or Exists; an empty ``effect``
    matches every effect and an empty ``key`` with Exists matches every taint."""

    key: str = ""
    operator: Literal["Equal", "Exists"] = "Equal"
    value: str = ""
    effect: str = ""


@dataclass(frozen=True)
class Requirement:
    """One ``matchExpressions[]`` entry of a label or node selector.

    ``operator``: In, NotIn, Exists, DoesNotExist (label selectors and node affinity), Gt, Lt
    (node affinity only; ``values`` holds one integer as text).
    """

    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class LabelSelector:
    """A ``metav1.LabelSelector``: ``match_labels`` AND every requirement.

    An empty selector matches every object (policy/v1 PDB: every pod of its namespace).
    """

    match_labels: Mapping[str, str] = field(default_factory=dict)
    match_expressions: tuple[Requirement, ...] = ()


NodeSelectorTerm = tuple[Requirement, ...]
"""One ``nodeSelectorTerms[]`` entry: its ``matchExpressions`` AND-ed (``matchFields`` on
``metadata.name`` is given as a Requirement on the key ``metadata.name``)."""


@dataclass(frozen=True)
class Node:
    """A Kubernetes node: ``allocatable`` from its status, ``unschedulable`` from its spec
    (cordoned), ``ready`` from the Ready condition."""

    name: str
    labels: Mapping[str, str]
    allocatable: Resources
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    ready: bool = True

    @property
    def node_group_id(self) -> str | None:
        """The Yandex node group the node belongs to (:data:`NODE_GROUP_LABEL`), if any."""
        return self.labels.get(NODE_GROUP_LABEL)


@dataclass(frozen=True)
class OwnerRef:
    """The controller ``ownerReferences[]`` entry (``controller: true``) of an object."""

    kind: str
    name: str
    uid: str = ""


@dataclass(frozen=True)
class Container:
    """One container's ``resources.requests``; ``sidecar`` for an init container with
    ``restartPolicy: Always`` (a native sidecar, Kubernetes 1.29+)."""

    name: str
    requests: Resources = field(default_factory=dict)
    sidecar: bool = False


VolumeSource = Literal["emptyDir", "persistentVolumeClaim", "hostPath", "ephemeral", "other"]


@dataclass(frozen=True)
class Volume:
    """One ``spec.volumes[]`` entry: its source kind, and the claim for a PVC volume."""

    name: str
    source: VolumeSource
    claim_name: str | None = None


@dataclass(frozen=True)
class Pod:
    """A pod with what eviction and scheduling look at.

    ``owner`` is the controller owner (ReplicaSet, StatefulSet, DaemonSet, Job...), None for
    a bare pod. ``required_node_affinity`` holds the OR-ed ``nodeSelectorTerms`` of
    ``requiredDuringSchedulingIgnoredDuringExecution`` (empty: none). ``constraints`` names
    the scheduling rules present on the pod that go beyond node selection (e.g.
    ``podAntiAffinity.required``, ``topologySpreadConstraints.DoNotSchedule``,
    ``podAffinity.required``); the drain model says which of them it does not model.
    ``mirror`` is a static pod's mirror (annotation ``kubernetes.io/config.mirror``).
    ``unschedulable`` is the scheduler's word on a pod it could not place: the message of its
    ``PodScheduled`` condition when that is ``False`` (e.g. ``0/5 nodes are available: 5
    Insufficient cpu.``), else its reason; "" when the pod was placed or never judged.
    """

    namespace: str
    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    node_name: str | None = None
    phase: PodPhase = "Running"
    ready: bool = True
    terminating: bool = False
    owner: OwnerRef | None = None
    containers: tuple[Container, ...] = ()
    init_containers: tuple[Container, ...] = ()
    overhead: Resources = field(default_factory=dict)
    node_selector: Mapping[str, str] = field(default_factory=dict)
    required_node_affinity: tuple[NodeSelectorTerm, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    volumes: tuple[Volume, ...] = ()
    termination_grace_seconds: int = 30
    priority: int = 0
    constraints: tuple[str, ...] = ()
    mirror: bool = False
    uid: str = ""
    unschedulable: str = ""

    @property
    def ref(self) -> str:
        """``namespace/name``, as kubectl prints it."""
        return f"{self.namespace}/{self.name}"


WorkloadKind = Literal["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet",
                       "ReplicationController", "Job", "CronJob"]


@dataclass(frozen=True)
class Workload:
    """A controller of pods: ``replicas`` is ``spec.replicas`` (None for DaemonSet, Job);
    ``owner`` its own controller (a ReplicaSet's Deployment). For a DaemonSet, ``template``
    is its pod template (``node_name`` None), used to place its pods on surge nodes."""

    kind: WorkloadKind
    namespace: str
    name: str
    replicas: int | None = None
    owner: OwnerRef | None = None
    selector: LabelSelector | None = None
    template: Pod | None = None
    uid: str = ""


@dataclass(frozen=True)
class PodDisruptionBudget:
    """A ``policy/v1`` PodDisruptionBudget.

    ``min_available``/``max_unavailable`` as written (an int or a percentage such as
    ``"50%"``, or None). ``selector`` None is a null selector (selects nothing); an empty
    :class:`LabelSelector` selects every pod of the namespace. Status fields are as last
    observed by the disruption controller (None when the status is missing).
    """

    namespace: str
    name: str
    selector: LabelSelector | None
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    unhealthy_pod_eviction_policy: Literal["IfHealthyBudget", "AlwaysAllow"] = "IfHealthyBudget"
    generation: int = 1
    observed_generation: int | None = 1
    disruptions_allowed: int | None = None
    current_healthy: int | None = None
    desired_healthy: int | None = None
    expected_pods: int | None = None

    @property
    def ref(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class PersistentVolumeClaim:
    """A PVC: the PV it is bound to (``spec.volumeName``), if any."""

    namespace: str
    name: str
    volume_name: str | None = None


@dataclass(frozen=True)
class PersistentVolume:
    """A PV: ``local`` for ``spec.local``; ``node_affinity`` its required node affinity terms
    (a local or hostPath-backed volume is pinned to the node they select)."""

    name: str
    local: bool = False
    node_affinity: tuple[NodeSelectorTerm, ...] = ()


@dataclass(frozen=True)
class YtComponent:
    """One component of a ``Ytsaurus`` object (the YTsaurus docs, "Стратегии обновления YTsaurus"):
    ``kind`` is the spec key (``httpProxies``, ``dataNodes``...), ``name`` the group's name (``""``
    when unnamed). ``pod_labels`` select its pods (the operator's labels, see adapters/kube)."""

    kind: str
    name: str
    instance_count: int
    min_ready_instance_count: int | None
    pod_labels: Mapping[str, str]


@dataclass(frozen=True)
class Ytsaurus:
    """A ``cluster.ytsaurus.tech/v1`` ``Ytsaurus`` object with its components."""

    namespace: str
    name: str
    components: tuple[YtComponent, ...]


@dataclass(frozen=True)
class ClusterSnapshot:
    """Everything the drain check reads of one cluster, at one moment."""

    nodes: tuple[Node, ...] = ()
    pods: tuple[Pod, ...] = ()
    pdbs: tuple[PodDisruptionBudget, ...] = ()
    workloads: tuple[Workload, ...] = ()
    pvcs: tuple[PersistentVolumeClaim, ...] = ()
    pvs: tuple[PersistentVolume, ...] = ()
    ytsaurus: tuple[Ytsaurus, ...] = ()
