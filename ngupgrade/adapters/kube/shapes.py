"""Typed msgspec shapes of the Kubernetes objects the drain check reads (only those fields).

Everything else in an object (managedFields, status of containers, env, probes...) is skipped
by the decoder without building Python objects, which keeps a dump of 150,000 pods fast to read
(``bench/bench_kube_dump.py``). Field names follow the API (camelCase via ``rename``); a
wrong type is reported by msgspec with its JSON path, which becomes the user's error line.
Sources: Kubernetes API reference, core/v1, apps/v1, policy/v1; the Ytsaurus CRD
(ytsaurus/ytsaurus-k8s-operator ``api/v1/ytsaurus_types.go``).

``gc=False``: these structs hold only strings, numbers, lists and dicts (no cycles), and a
dump makes hundreds of thousands of them; leaving them out of the cycle collector saves
repeated full collections while decoding.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Quantity = str | int | float  # the API writes strings; hand-written files hold numbers
ResourceList = dict[str, Quantity]


class _S(msgspec.Struct, rename="camel", gc=False):
    """Base: camelCase names, out of the cycle collector."""


# ---- shared pieces -------------------------------------------------------------------------

class Present(_S):
    """An object whose presence is all that matters (``emptyDir: {}``); its keys are skipped
    unread. ``null`` reads as absent, like the API."""


class OwnerReference(_S):
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool | None = None


class ObjectMeta(_S):
    name: str = ""
    namespace: str = ""
    uid: str = ""
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    owner_references: list[OwnerReference] | None = None
    deletion_timestamp: str | None = None
    generation: int | None = None


class ListMeta(_S):
    continue_: str | None = msgspec.field(default=None, name="continue")


class Requirement(_S):
    key: str
    operator: Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
    values: list[str] | None = None


class LabelSelector(_S):
    match_labels: dict[str, str] | None = None
    match_expressions: list[Requirement] | None = None


class Condition(_S):
    type: str = ""
    status: str = ""
    reason: str | None = None
    message: str | None = None


# ---- Node ----------------------------------------------------------------------------------

class Taint(_S):
    key: str
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
    value: str | None = None


class NodeSpec(_S):
    taints: list[Taint] | None = None
    unschedulable: bool | None = None


class NodeStatus(_S):
    allocatable: ResourceList | None = None
    conditions: list[Condition] | None = None


# ---- Pod -----------------------------------------------------------------------------------

class ResourceRequirements(_S):
    requests: ResourceList | None = None
    limits: ResourceList | None = None


class Container(_S):
    name: str = ""
    resources: ResourceRequirements | None = None
    restart_policy: str | None = None


class Toleration(_S):
    key: str | None = None
    operator: Literal["Equal", "Exists"] | None = None
    value: str | None = None
    effect: str | None = None


class NodeSelectorTerm(_S):
    match_expressions: list[Requirement] | None = None
    match_fields: list[Requirement] | None = None


class NodeSelector(_S):
    node_selector_terms: list[NodeSelectorTerm] | None = None


class NodeAffinity(_S):
    required_during_scheduling_ignored_during_execution: NodeSelector | None = None


class PodAffinityTerms(_S):
    # the terms themselves are not modelled, only their presence
    required_during_scheduling_ignored_during_execution: list[Present] | None = None


class Affinity(_S):
    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinityTerms | None = None
    pod_anti_affinity: PodAffinityTerms | None = None


class TopologySpreadConstraint(_S):
    when_unsatisfiable: str = ""
    topology_key: str = ""


class ClaimRef(_S):
    claim_name: str = ""


class Volume(_S):
    name: str = ""
    empty_dir: Present | None = None
    persistent_volume_claim: ClaimRef | None = None
    host_path: Present | None = None
    ephemeral: Present | None = None


class PodSpec(_S):
    node_name: str | None = None
    containers: list[Container] | None = None
    init_containers: list[Container] | None = None
    overhead: ResourceList | None = None
    node_selector: dict[str, str] | None = None
    affinity: Affinity | None = None
    tolerations: list[Toleration] | None = None
    topology_spread_constraints: list[TopologySpreadConstraint] | None = None
    volumes: list[Volume] | None = None
    termination_grace_period_seconds: int | None = None
    priority: int | None = None


class PodStatus(_S):
    phase: Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"] | None = None
    conditions: list[Condition] | None = None


class PodTemplate(_S):
    metadata: ObjectMeta | None = None
    spec: PodSpec | None = None


# ---- workloads, PDB, storage, Ytsaurus -------------------------------------------------------

class WorkloadSpec(_S):
    replicas: int | None = None
    selector: LabelSelector | None = None
    template: PodTemplate | None = None


IntOrString = int | str


class PdbSpec(_S):
    selector: LabelSelector | None = None
    min_available: IntOrString | None = None
    max_unavailable: IntOrString | None = None
    unhealthy_pod_eviction_policy: Literal["IfHealthyBudget", "AlwaysAllow"] | None = None


class PdbStatus(_S):
    observed_generation: int | None = None
    disruptions_allowed: int | None = None
    current_healthy: int | None = None
    desired_healthy: int | None = None
    expected_pods: int | None = None


class PvcSpec(_S):
    volume_name: str | None = None


class NodeAffinityRequired(_S):
    required: NodeSelector | None = None


class PvSpec(_S):
    local: Present | None = None
    node_affinity: NodeAffinityRequired | None = None


class ReplicationControllerSpec(_S):
    replicas: int | None = None
    selector: dict[str, str] | None = None  # core/v1: a plain map, not a LabelSelector


# ---- the objects, tagged by kind ------------------------------------------------------------
# A kubectl `List` mixes kinds: msgspec picks the shape from "kind" (tag). Items of a typed list
# (PodList from the API) carry no "kind"; they are decoded straight into the list's shape.

class Node(_S, tag_field="kind", tag="Node"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: NodeSpec | None = None
    status: NodeStatus | None = None


class Pod(_S, tag_field="kind", tag="Pod"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PodSpec | None = None
    status: PodStatus | None = None


class PodDisruptionBudget(_S, tag_field="kind", tag="PodDisruptionBudget"):
    # policy/v1beta1 reads an empty selector as "no pod", policy/v1 as "every pod"; the items
    # of a typed list carry no apiVersion and get the list's (decode.py)
    api_version: str | None = None
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PdbSpec | None = None
    status: PdbStatus | None = None


class Deployment(_S, tag_field="kind", tag="Deployment"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec | None = None


class ReplicaSet(_S, tag_field="kind", tag="ReplicaSet"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec | None = None


class StatefulSet(_S, tag_field="kind", tag="StatefulSet"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec | None = None


class DaemonSet(_S, tag_field="kind", tag="DaemonSet"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: WorkloadSpec | None = None


class ReplicationController(_S, tag_field="kind", tag="ReplicationController"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: ReplicationControllerSpec | None = None


class PersistentVolumeClaim(_S, tag_field="kind", tag="PersistentVolumeClaim"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PvcSpec | None = None


class PersistentVolume(_S, tag_field="kind", tag="PersistentVolume"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: PvSpec | None = None


class Ytsaurus(_S, tag_field="kind", tag="Ytsaurus"):
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    # the spec has dozens of component keys, each a list or an object: read by ytsaurus.py
    spec: dict[str, msgspec.Raw] | None = None


class YtInstances(_S):
    """One component entry of a Ytsaurus spec (``InstanceSpec`` inline, plus its group)."""

    instance_count: int | None = None
    min_ready_instance_count: int | None = None
    name: str | None = None  # data/exec/tablet node groups
    role: str | None = None  # proxies
    cell_tag: int | None = None  # secondary masters


Object = (Node | Pod | PodDisruptionBudget | Deployment | ReplicaSet | StatefulSet | DaemonSet
          | ReplicationController | PersistentVolumeClaim | PersistentVolume | Ytsaurus)

KINDS: dict[str, type] = {
    cls.__struct_config__.tag: cls  # type: ignore[attr-defined,misc]
    for cls in (Node, Pod, PodDisruptionBudget, Deployment, ReplicaSet, StatefulSet, DaemonSet,
                ReplicationController, PersistentVolumeClaim, PersistentVolume, Ytsaurus)
}
"""kind -> shape; a typed list ``PodList`` holds items of kind ``Pod``."""


class Document(_S):
    """The top of any input: a ``List``, a typed list (``PodList``...) or a single object."""

    kind: str | None = None
    api_version: str | None = None
    items: list[msgspec.Raw] | None = None
    metadata: ListMeta | None = None
