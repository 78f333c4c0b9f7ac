"""The eviction API's PDB arithmetic (seed 004 L87, L92; eviction.go; disruption controller).

Every vector computed by hand from the rules in the module docstring.
"""

from __future__ import annotations

import pytest

from ngupgrade.core.drain.eviction import (
    BudgetSpec,
    budget_spec,
    eviction_gate,
    live_refusal,
    scaled,
)
from ngupgrade.core.k8s import LabelSelector, Pod, PodDisruptionBudget


def _pdb(**kw: object) -> PodDisruptionBudget:
    return PodDisruptionBudget("ns", "b", LabelSelector({"app": "a"}), **kw)  # type: ignore[arg-type]


def _pods(n: int, owner: str | None = "Deployment ns/a") -> list[Pod]:
    return [Pod("ns", f"a-{i}", labels={"app": "a"}, node_name="n1",
                owner=None) for i in range(n)] if owner is None else \
        [Pod("ns", f"a-{i}", labels={"app": "a"}, node_name="n1") for i in range(n)]


def _spec(replicas: int, pods: int, **kw: object) -> BudgetSpec:
    return budget_spec(_pdb(**kw), _pods(pods), lambda _p: ("Deployment ns/a", replicas))


@pytest.mark.parametrize(("replicas", "healthy", "field", "value", "desired", "allowed"), [
    (1, 1, "min_available", 1, 1, 0),        # seed 001 case 2: one replica, minAvailable 1
    (4, 4, "max_unavailable", 0, 4, 0),      # seed 001 case 1: maxUnavailable 0
    (3, 2, "max_unavailable", 1, 2, 0),      # seed 001 case 3: one replica already down
    (6, 6, "max_unavailable", 1, 5, 1),      # seed 004 K-EX3: api in prod
    (3, 3, "min_available", 2, 2, 1),        # minAvailable 2 of 3
    (5, 5, "max_unavailable", "25%", 3, 2),  # 25 % of 5 = 1.25 -> 2 (rounds up): 5 - 2 = 3
    (10, 10, "max_unavailable", "25%", 7, 3),
    (10, 10, "min_available", "25%", 3, 7),  # ceil(2.5) = 3
    (5, 5, "min_available", "50%", 3, 2),    # ceil(2.5) = 3
    (2, 2, "max_unavailable", 5, 0, 2),      # desiredHealthy never below 0
])
def test_pdb_arithmetic(replicas: int, healthy: int, field: str, value: int | str,
                        desired: int, allowed: int) -> None:
    spec = _spec(replicas, replicas, **{field: value})
    assert spec.desired == desired
    assert spec.allowed(healthy) == allowed


def test_expected_pods_come_from_the_owner_except_integer_min_available() -> None:
    # The Deployment wants 4 but only 3 pods exist: maxUnavailable 1 -> desired 4 - 1 = 3;
    # with 3 healthy, 0 allowed. An integer minAvailable counts the 3 pods themselves.
    assert _spec(4, 3, max_unavailable=1) == BudgetSpec(expected=4, desired=3)
    assert _spec(4, 3, max_unavailable=1).allowed(3) == 0
    assert _spec(4, 3, min_available=2) == BudgetSpec(expected=3, desired=2)
    assert _spec(4, 3, min_available=2).allowed(3) == 1


def test_no_scalable_owner_and_no_field_expect_nothing_and_allow_nothing() -> None:
    bare = budget_spec(_pdb(max_unavailable=1), _pods(3), lambda _p: None)
    assert bare == BudgetSpec(0, 0) and bare.allowed(3) == 0
    empty = _spec(3, 3)
    assert empty.allowed(3) == 0


def test_scaled_rounds_percentages_up() -> None:
    assert scaled("25%", 5) == 2
    assert scaled("1%", 1) == 1
    assert scaled("0%", 10) == 0
    assert scaled(3, 100) == 3
    with pytest.raises(ValueError):
        scaled("many", 3)


READY = Pod("ns", "a-0", labels={"app": "a"})
SPEC_ONE = BudgetSpec(expected=3, desired=2)


@pytest.mark.parametrize(("pod", "kw", "healthy", "gate"), [
    (READY, {}, 3, "budget"),
    (Pod("ns", "p", phase="Pending", ready=False), {}, 3, "free"),
    (Pod("ns", "p", phase="Succeeded", ready=False), {}, 3, "free"),
    (Pod("ns", "p", terminating=True), {}, 3, "free"),
    # not Ready, AlwaysAllow: at once
    (Pod("ns", "p", ready=False), {"unhealthy_pod_eviction_policy": "AlwaysAllow"}, 1, "free"),
    # not Ready, IfHealthyBudget: only while currentHealthy (2) >= desiredHealthy (2) > 0
    (Pod("ns", "p", ready=False), {}, 2, "free"),
    (Pod("ns", "p", ready=False), {}, 1, "budget"),
    (READY, {"observed_generation": 1, "generation": 2}, 3, "not-synced"),
    (READY, {"observed_generation": None}, 3, "not-synced"),
])
def test_eviction_gate(pod: Pod, kw: dict[str, object], healthy: int, gate: str) -> None:
    assert eviction_gate(pod, (_pdb(max_unavailable=1, **kw),), healthy, SPEC_ONE) == gate


def test_two_pdbs_over_one_pod_never_evict() -> None:
    two = (_pdb(max_unavailable=1), PodDisruptionBudget("ns", "c", LabelSelector()))
    assert eviction_gate(READY, two, 3, SPEC_ONE) == "overlap"
    assert eviction_gate(READY, (), 0, None) == "free"


# -- live_refusal: the same gate on the disruption controller's status (issue 13) ------------

def _live(**kw: object) -> PodDisruptionBudget:
    return PodDisruptionBudget("ns", "api", LabelSelector({"app": "a"}), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(("spec", "status", "reason"), [
    # seed 001 case 2: 1 replica, minAvailable 1: 1 healthy - 1 desired = 0
    ({"min_available": 1}, (1, 1, 1, 0), "minAvailable 1 equals the 1 expected pod(s)"),
    # seed 001 case 1: maxUnavailable 0 over 4: 4 - 4 = 0
    ({"max_unavailable": 0}, (4, 4, 4, 0), "maxUnavailable is 0"),
    # seed 001 case 3: 3 replicas, maxUnavailable 1, one down: 2 healthy, 2 desired
    ({"max_unavailable": 1}, (3, 2, 2, 0),
     "2 healthy pod(s), 2 required: some replicas are already unavailable"),
])
def test_live_refusal_names_the_pdb_and_seed_001s_cause(
        spec: dict[str, object], status: tuple[int, int, int, int], reason: str) -> None:
    expected, healthy, desired, allowed = status
    pdb = _live(**spec, expected_pods=expected, current_healthy=healthy,
                desired_healthy=desired, disruptions_allowed=allowed)
    refused = live_refusal(Pod("ns", "a-0", labels={"app": "a"}, node_name="n1"), (pdb,))
    assert refused is not None
    assert refused == (pdb, f"0 disruptions allowed: {reason}")


def test_live_refusal_lets_go_what_the_api_lets_go() -> None:
    pod = Pod("ns", "a-0", labels={"app": "a"}, node_name="n1")
    k_ex3 = _live(max_unavailable=1, expected_pods=6, current_healthy=6, desired_healthy=5,
                  disruptions_allowed=1)  # seed 004 K-EX3: 6 - 5 = 1 allowed
    assert live_refusal(pod, (k_ex3,)) is None
    assert live_refusal(pod, ()) is None
    pending = Pod("ns", "a-1", labels={"app": "a"}, phase="Pending")
    blocked = _live(min_available=1, expected_pods=1, current_healthy=1, desired_healthy=1,
                    disruptions_allowed=0)
    assert live_refusal(pending, (blocked,)) is None  # Pending pods skip the PDB check


def test_live_refusal_overlap_and_a_status_behind_its_spec() -> None:
    pod = Pod("ns", "a-0", labels={"app": "a"}, node_name="n1")
    ok = _live(max_unavailable=1, expected_pods=6, current_healthy=6, desired_healthy=5,
               disruptions_allowed=1)
    other = PodDisruptionBudget("ns", "api-2", LabelSelector({"app": "a"}), max_unavailable=1)
    refused = live_refusal(pod, (ok, other))
    assert refused is not None and refused[1] == ("selected by 2 PDBs (api, api-2): the "
                                                 "eviction API refuses it")
    stale = _live(max_unavailable=1, generation=2, observed_generation=1, expected_pods=6,
                  current_healthy=6, desired_healthy=5, disruptions_allowed=1)
    refused = live_refusal(pod, (stale,))
    assert refused is not None and "observedGeneration < generation" in refused[1]
