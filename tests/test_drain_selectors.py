"""Label selectors, node affinity and taints (core/drain/selectors.py)."""

from __future__ import annotations

import pytest

from ngupgrade.core.drain.selectors import (
    node_affinity_matches,
    pod_may_run_on,
    requirement_matches,
    selector_matches,
    tolerates,
)
from ngupgrade.core.k8s import LabelSelector, Node, Pod, Requirement, Taint, Toleration

LABELS = {"zone": "a", "cores": "8", "gpu": ""}


@pytest.mark.parametrize(("req", "expected"), [
    (Requirement("zone", "In", ("a", "b")), True),
    (Requirement("zone", "In", ("b",)), False),
    (Requirement("zone", "NotIn", ("b",)), True),
    (Requirement("missing", "NotIn", ("b",)), True),   # an absent label is "not in"
    (Requirement("gpu", "Exists"), True),
    (Requirement("missing", "DoesNotExist"), True),
    (Requirement("cores", "Gt", ("4",)), True),
    (Requirement("cores", "Gt", ("8",)), False),        # strictly greater
    (Requirement("cores", "Lt", ("16",)), True),
    (Requirement("zone", "Gt", ("1",)), False),         # "a" is no integer: no match
    (Requirement("missing", "Lt", ("1",)), False),
])
def test_requirement(req: Requirement, expected: bool) -> None:
    assert requirement_matches(req, LABELS) is expected


def test_selector_none_selects_nothing_empty_selects_everything() -> None:
    assert not selector_matches(None, LABELS)
    assert selector_matches(LabelSelector(), LABELS)
    assert selector_matches(LabelSelector({"zone": "a"}, (Requirement("gpu", "Exists"),)),
                            LABELS)
    assert not selector_matches(LabelSelector({"zone": "a", "x": "y"}), LABELS)


def test_node_affinity_terms_are_ored_and_an_empty_term_matches_nothing() -> None:
    node = Node("n1", LABELS, {})
    assert node_affinity_matches((), node)
    assert not node_affinity_matches(((),), node)
    terms = ((Requirement("zone", "In", ("b",)),), (Requirement("cores", "Gt", ("4",)),))
    assert node_affinity_matches(terms, node)
    by_name = ((Requirement("metadata.name", "In", ("n2",)),),)
    assert not node_affinity_matches(by_name, node)


def test_tolerations() -> None:
    taint = Taint("dedicated", "NoSchedule", "batch")
    assert tolerates(Toleration("dedicated", "Equal", "batch", "NoSchedule"), taint)
    assert tolerates(Toleration("dedicated", "Exists"), taint)
    assert tolerates(Toleration(operator="Exists"), taint)
    assert not tolerates(Toleration("dedicated", "Equal", "gpu"), taint)
    assert not tolerates(Toleration("dedicated", "Exists", effect="NoExecute"), taint)


def test_pod_may_run_on_node_selector_taints_and_daemonset_tolerations() -> None:
    tainted = Node("n1", {"pool": "batch"}, {}, taints=(Taint("dedicated", "NoSchedule", "batch"),
                                                        Taint("soft", "PreferNoSchedule")))
    plain = Pod("ns", "p", node_selector={"pool": "batch"})
    assert not pod_may_run_on(plain, tainted)
    tolerant = Pod("ns", "p", node_selector={"pool": "batch"},
                   tolerations=(Toleration("dedicated", "Exists"),))
    assert pod_may_run_on(tolerant, tainted)   # PreferNoSchedule does not filter
    cordoned = Node("n2", {}, {}, taints=(Taint("node.kubernetes.io/unschedulable", "NoSchedule"),))
    assert not pod_may_run_on(Pod("ns", "p"), cordoned)
    assert pod_may_run_on(Pod("ns", "p"), cordoned, daemonset=True)
