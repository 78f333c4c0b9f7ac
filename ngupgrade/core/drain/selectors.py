"""Label selectors, node selection and taints, as the Kubernetes scheduler reads them. Pure.

Sources: apimachinery ``labels.Selector`` (``metav1.LabelSelectorAsSelector``), the
scheduler's NodeAffinity and TaintToleration filter plugins, component-helpers
``nodeaffinity.go`` (``Gt``/``Lt`` compare integers; a value that is no integer matches
nothing; an empty term matches nothing), core/v1 ``Toleration.ToleratesTaint``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ngupgrade.core.k8s import (
    LabelSelector,
    Node,
    NodeSelectorTerm,
    Pod,
    Requirement,
    Taint,
    Toleration,
)

NODE_NAME_FIELD = "metadata.name"
"""``matchFields`` key of a node selector term (the only field Kubernetes supports)."""

SCHEDULING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
"""Taint effects the scheduler filters on (PreferNoSchedule only lowers a node's score)."""

DAEMONSET_TOLERATIONS = (
    Toleration("node.kubernetes.io/not-ready", "Exists", effect="NoExecute"),
    Toleration("node.kubernetes.io/unreachable", "Exists", effect="NoExecute"),
    Toleration("node.kubernetes.io/disk-pressure", "Exists", effect="NoSchedule"),
    Toleration("node.kubernetes.io/memory-pressure", "Exists", effect="NoSchedule"),
    Toleration("node.kubernetes.io/pid-pressure", "Exists", effect="NoSchedule"),
    Toleration("node.kubernetes.io/unschedulable", "Exists", effect="NoSchedule"),
)
"""Tolerations the DaemonSet controller adds to every DaemonSet pod (kubernetes
``pkg/controller/daemon/util.AddOrUpdateDaemonPodTolerations``)."""


def requirement_matches(req: Requirement, labels: Mapping[str, str]) -> bool:
    """One ``matchExpressions`` entry against a label set.

    In/NotIn/Exists/DoesNotExist as in label selectors (NotIn and DoesNotExist match an
    absent label); Gt/Lt parse both sides as integers, an absent or non-integer label
    matches nothing (nodeaffinity.go).
    """
    value = labels.get(req.key)
    op = req.operator
    if op == "In":
        return value is not None and value in req.values
    if op == "NotIn":
        return value is None or value not in req.values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if value is None or len(req.values) != 1:
        return False
    try:
        have, bound = int(value), int(req.values[0])
    except ValueError:
        return False
    return have > bound if op == "Gt" else have < bound


def selector_matches(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """A ``metav1.LabelSelector`` against a label set: None selects nothing, an empty
    selector everything (policy/v1 PodDisruptionBudget semantics)."""
    if selector is None:
        return False
    for key, want in selector.match_labels.items():
        if labels.get(key) != want:
            return False
    return all(requirement_matches(r, labels) for r in selector.match_expressions)


def term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """One ``nodeSelectorTerms[]`` entry: every requirement holds; an empty term matches no
    node. A requirement on ``metadata.name`` (``matchFields``) tests the node's name."""
    if not term:
        return False
    for req in term:
        if req.key == NODE_NAME_FIELD:
            if not requirement_matches(req, {NODE_NAME_FIELD: node.name}):
                return False
        elif not requirement_matches(req, node.labels):
            return False
    return True


def node_affinity_matches(terms: Iterable[NodeSelectorTerm], node: Node) -> bool:
    """Required node affinity: the terms are OR-ed; no terms at all means no constraint."""
    terms = tuple(terms)
    return not terms or any(term_matches(t, node) for t in terms)


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """``Toleration.ToleratesTaint``: effect empty or equal; ``Exists`` with an empty key
    tolerates every taint; ``Exists`` matches on the key; ``Equal`` on key and value."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.operator == "Exists":
        return not toleration.key or toleration.key == taint.key
    return toleration.key == taint.key and toleration.value == taint.value


def untolerated_taints(tolerations: Iterable[Toleration], node: Node) -> tuple[Taint, ...]:
    """The node's NoSchedule/NoExecute taints that no toleration of the pod tolerates."""
    tols = tuple(tolerations)
    return tuple(t for t in node.taints if t.effect in SCHEDULING_EFFECTS
                 and not any(tolerates(tol, t) for tol in tols))


def pod_may_run_on(pod: Pod, node: Node, extra_terms: tuple[NodeSelectorTerm, ...] = (),
                   *, daemonset: bool = False) -> bool:
    """The scheduler's node filters that do not depend on room: nodeSelector, required node
    affinity (plus ``extra_terms``: a bound PersistentVolume's node affinity, the
    VolumeBinding filter), taints against tolerations. ``daemonset`` adds the tolerations the
    DaemonSet controller gives its pods."""
    for key, want in pod.node_selector.items():
        if node.labels.get(key) != want:
            return False
    if not node_affinity_matches(pod.required_node_affinity, node):
        return False
    if extra_terms and not node_affinity_matches(extra_terms, node):
        return False
    tolerations = pod.tolerations + DAEMONSET_TOLERATIONS if daemonset else pod.tolerations
    return not untolerated_taints(tolerations, node)
