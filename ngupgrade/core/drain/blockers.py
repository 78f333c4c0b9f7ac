"""PodDisruptionBudgets that will block the drain of an upgrade (aws/containers-roadmap#1282). Pure.

The quick cluster-wide check behind ``preflight --pdbs``: it reads the status the disruption
controller wrote (``status.disruptionsAllowed``) of :class:`ngupgrade.core.k8s.PodDisruptionBudget`
values; the per-wave simulation is :mod:`ngupgrade.core.drain.check`.

The eviction API refuses to evict a pod whose PodDisruptionBudget has
``status.disruptionsAllowed == 0`` (HTTP 429, the Kubernetes docs, "API-initiated Eviction":
``EvictionREST.Create``), and Managed Kubernetes keeps retrying the eviction instead of deleting the
pod (the Selectel strategy page, "Если PDB не дает вытеснить поды"): the upgrade stalls on that
node. Typical causes (the Selectel strategy page): a PDB with ``maxUnavailable: 0``;
``minAvailable`` equal to the replicas (one replica and ``minAvailable: 1``); replicas already
unavailable.
"""

from __future__ import annotations

from ngupgrade.core.k8s import PodDisruptionBudget

__all__ = ["PodDisruptionBudget", "blocks_drain", "drain_blockers", "why_blocked"]


def blocks_drain(pdb: PodDisruptionBudget) -> bool:
    """True when the PDB allows no eviction now (``status.disruptionsAllowed == 0``)."""
    return pdb.disruptions_allowed == 0


def why_blocked(pdb: PodDisruptionBudget) -> str:
    """The likely reason in the user's terms, for the report (the Selectel strategy page's three
    cases)."""
    if pdb.max_unavailable in (0, "0", "0%"):
        return "maxUnavailable is 0"
    if (pdb.min_available is not None and pdb.expected_pods is not None
            and str(pdb.min_available) in (str(pdb.expected_pods), "100%")):
        return (f"minAvailable {pdb.min_available} equals the {pdb.expected_pods} "
                "expected pod(s)")
    if (pdb.current_healthy is not None and pdb.desired_healthy is not None
            and pdb.current_healthy <= pdb.desired_healthy):
        return (f"{pdb.current_healthy} healthy pod(s), {pdb.desired_healthy} required: "
                "some replicas are already unavailable")
    return "disruptionsAllowed is 0"


def drain_blockers(pdbs: list[PodDisruptionBudget]) -> list[PodDisruptionBudget]:
    """The PDBs that allow 0 disruptions, in ``namespace/name`` order."""
    return sorted((p for p in pdbs if blocks_drain(p)), key=lambda p: (p.namespace, p.name))
