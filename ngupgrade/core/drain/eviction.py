"""The eviction API's PodDisruptionBudget arithmetic. Pure.

Sources: Kubernetes docs, "Specifying a Disruption Budget for your Application", "API-initiated
Eviction" and ``kubectl drain`` (``EvictionREST.Create``), kubernetes
``pkg/registry/core/pod/storage/eviction.go`` and ``pkg/controller/disruption``
(``getExpectedPodCount``, ``updatePdbStatus``).

* Expected pods: with ``maxUnavailable`` or a percentage ``minAvailable``, the sum of the
  owners' ``spec.replicas`` (a Deployment's, not its ReplicaSet's); with an integer
  ``minAvailable``, the selected pods themselves.
* ``desiredHealthy``: ``expected - maxUnavailable`` (not below 0), or ``minAvailable``;
  percentages are scaled on the expected count and rounded **up** (``minAvailable: 50%`` of 5
  -> 3; ``maxUnavailable: 25%`` of 5 -> 2, so 3 must stay healthy).
* ``disruptionsAllowed = currentHealthy - desiredHealthy``, 0 when that is negative or when
  no pod is expected.
* An eviction: pods in Pending, Succeeded, Failed or already terminating go without a check;
  a pod selected by two PDBs is refused (HTTP 500, never retried); a not-Ready pod goes at
  once under ``unhealthyPodEvictionPolicy: AlwaysAllow``, and under the default
  IfHealthyBudget only while ``currentHealthy >= desiredHealthy > 0``; otherwise a PDB whose
  ``observedGeneration`` is behind its ``generation`` answers 429, and so does one with
  ``disruptionsAllowed == 0``; else the budget is decremented.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from ngupgrade.core.k8s import Pod, PodDisruptionBudget


def scaled(value: int | str, total: int) -> int:
    """``intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)``: an int as is,
    ``"N%"`` as ``ceil(N * total / 100)``.

    Raises:
        ValueError: a string that is not a percentage (the API server rejects it too).
    """
    if isinstance(value, int):
        return value
    text = value.strip()
    if text.endswith("%") and text[:-1].isdigit():
        return math.ceil(int(text[:-1]) * total / 100)
    if text.isdigit():  # kubectl output never has this; a hand-made dump might
        return int(text)
    raise ValueError(f"not an int or a percentage: {value!r}")


def is_healthy(pod: Pod) -> bool:
    """``countHealthyPods``: Ready and not being deleted (a Pending pod is never Ready)."""
    return pod.ready and not pod.terminating and pod.phase == "Running"


def evicted_without_check(pod: Pod) -> bool:
    """``canIgnorePDB``: Pending, Succeeded, Failed or already terminating pods."""
    return pod.terminating or pod.phase in ("Pending", "Succeeded", "Failed")


@dataclass(frozen=True)
class BudgetSpec:
    """What the disruption controller derives from a PDB and its pods.

    ``expected`` pods, ``desired`` healthy pods (``desiredHealthy``); ``allowed(h)`` is
    ``disruptionsAllowed`` for ``h`` healthy pods.
    """

    expected: int
    desired: int

    def allowed(self, healthy: int) -> int:
        """``updatePdbStatus``: ``max(0, healthy - desired)``, 0 when nothing is expected."""
        if self.expected <= 0:
            return 0
        return max(0, healthy - self.desired)


def budget_spec(pdb: PodDisruptionBudget, pods: Iterable[Pod],
                replicas_of: Callable[[Pod], tuple[str, int] | None]) -> BudgetSpec:
    """``getExpectedPodCount`` for ``pdb`` over its selected ``pods``.

    ``replicas_of(pod)`` gives the pod's scalable controller as ``(key, spec.replicas)`` (the
    Deployment of a ReplicaSet, a StatefulSet...), or None for a pod without one; each
    controller is counted once; pods without one are left out (the controller's
    ``unmanagedPods``). A PDB with neither field expects 0 pods and so allows nothing.

    Raises:
        ValueError: a string field that is not a percentage.
    """
    pods = tuple(pods)
    controllers: dict[str, int] = {}
    if pdb.max_unavailable is not None or isinstance(pdb.min_available, str):
        for pod in pods:
            owner = replicas_of(pod)
            if owner is not None:
                controllers[owner[0]] = owner[1]
    return budget_of(pdb, len(pods), controllers)


def budget_of(pdb: PodDisruptionBudget, selected: int, controllers: Mapping[str, int]
              ) -> BudgetSpec:
    """:func:`budget_spec` from counts: ``selected`` pods, and ``controllers`` (key ->
    ``spec.replicas``) the distinct scalable controllers of those pods. For a caller that
    keeps the counts as pods come and go (the fake Kubernetes API's disruption controller).

    Raises:
        ValueError: a string field that is not a percentage.
    """
    if pdb.max_unavailable is not None:
        expected = sum(controllers.values())
        desired = max(0, expected - scaled(pdb.max_unavailable, expected))
        return BudgetSpec(expected, desired)
    if pdb.min_available is not None:
        if isinstance(pdb.min_available, int):
            return BudgetSpec(selected, pdb.min_available)
        expected = sum(controllers.values())
        return BudgetSpec(expected, scaled(pdb.min_available, expected))
    return BudgetSpec(0, 0)


Gate = Literal["free", "overlap", "not-synced", "budget"]
"""How the eviction API treats one pod: ``free`` goes without touching a budget, ``overlap``
is refused for ever (500), ``not-synced`` is refused while the PDB's status is behind (429),
``budget`` needs ``disruptionsAllowed > 0`` and decrements it."""


def eviction_gate(pod: Pod, pdbs: tuple[PodDisruptionBudget, ...], healthy: int,
                  spec: BudgetSpec | None) -> Gate:
    """Classify the eviction of ``pod`` in ``EvictionREST.Create``'s order.

    ``pdbs`` are the PDBs selecting the pod; ``healthy`` and ``spec`` describe the first one
    (``currentHealthy`` and its derived spec) at the moment of the eviction.
    """
    if evicted_without_check(pod):
        return "free"
    if len(pdbs) > 1:
        return "overlap"
    if not pdbs or spec is None:
        return "free"
    pdb = pdbs[0]
    if not is_healthy(pod):
        if pdb.unhealthy_pod_eviction_policy == "AlwaysAllow":
            return "free"
        if healthy >= spec.desired > 0:
            return "free"
    return healthy_gate(pdbs, spec)


def healthy_gate(pdbs: tuple[PodDisruptionBudget, ...], spec: BudgetSpec | None) -> Gate:
    """:func:`eviction_gate` of a healthy pod (Running, Ready, not terminating), which does
    not depend on ``currentHealthy``: the drain simulation computes it once per pod."""
    if len(pdbs) > 1:
        return "overlap"
    if not pdbs or spec is None:
        return "free"
    pdb = pdbs[0]
    if pdb.observed_generation is None or pdb.observed_generation < pdb.generation:
        return "not-synced"
    return "budget"


def live_refusal(pod: Pod, pdbs: tuple[PodDisruptionBudget, ...]
                 ) -> tuple[PodDisruptionBudget, str] | None:
    """Would the eviction API refuse ``pod`` now, going by the PDBs' live status? The PDB
    that refuses it and why, or None when it may go.

    ``pdbs`` are the PDBs whose selectors select the pod. Their status is what the disruption
    controller last wrote (``currentHealthy``, ``desiredHealthy``, ``expectedPods``,
    ``disruptionsAllowed``), so this is :func:`eviction_gate`'s decision on the cluster's own
    numbers, not on a model of them (used while an upgrade runs). A PDB never
    observed (no status) refuses as the API does (its ``observedGeneration`` 0 is behind).
    """
    from ngupgrade.core.drain.blockers import why_blocked

    if not pdbs:
        return None
    first = pdbs[0]
    spec = (BudgetSpec(first.expected_pods, first.desired_healthy)
            if first.expected_pods is not None and first.desired_healthy is not None else None)
    healthy = first.current_healthy or 0
    gate = eviction_gate(pod, pdbs, healthy, spec if spec is not None else BudgetSpec(0, 0))
    if gate == "free":
        return None
    if gate == "overlap":
        names = ", ".join(p.name for p in pdbs)
        return first, f"selected by {len(pdbs)} PDBs ({names}): the eviction API refuses it"
    if gate == "not-synced":
        return first, "its status is behind its spec (observedGeneration < generation)"
    allowed = (first.disruptions_allowed if first.disruptions_allowed is not None
               else BudgetSpec(first.expected_pods or 0, first.desired_healthy or 0)
               .allowed(healthy))
    if allowed > 0:
        return None
    return first, f"0 disruptions allowed: {why_blocked(first)}"
