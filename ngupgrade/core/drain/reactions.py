"""Findings about what a drain does to a pod, and the PDB messages. Pure.

Sources (``docs/sources.md``): the Selectel docs page "Стратегия обновления версии Kubernetes
в группе нод Managed Kubernetes", sections "Вытеснение подов при обновлении" (bare pods,
emptyDir, DaemonSets), "Если PDB не дает вытеснить поды" (Selectel stops) and the autoscaling
examples 2 and 3 (the whole group drained at once); the Yandex node-drain docs (7-minute
timeout, then the node stops); Kubernetes "API-initiated Eviction" and ``kubectl drain`` (429,
retried every 5 s).
"""

from __future__ import annotations

from ngupgrade.core.drain.eviction import BudgetSpec
from ngupgrade.core.drain.findings import (
    EMPTYDIR_DATA_LOST,
    GRACE_OVER_TIMEOUT,
    LOCAL_VOLUME_PINNED,
    PDB_BLOCKS_EVICTION,
    PDB_SLOWS_WAVE,
    WHOLE_GROUP_UNAVAILABLE,
    Finding,
    Severity,
)
from ngupgrade.core.k8s import Pod, PodDisruptionBudget
from ngupgrade.core.platform import DrainRules


def whole_group(group_id: str, wave: int, nodes: tuple[str, ...]) -> Finding:
    """No node of the group takes pods while ``nodes`` drain."""
    return Finding(
        WHOLE_GROUP_UNAVAILABLE, "warning",
        f"wave {wave} drains {len(nodes)} node(s) while no other node of the group "
        "takes pods (no surge node Ready yet, none back from an update): pods pinned to the "
        "group wait Pending, others must fit on other groups (keep max_unavailable below the "
        "group's size)",
        wave=wave, node=nodes[0] if nodes else None, subject=group_id)


def losses(pod: Pod, *, subject: str, local: bool, node: str, wave: int, in_place: bool,
           rules: DrainRules) -> list[Finding]:
    """What evicting ``pod`` from ``node`` loses: emptyDir data, a local volume's pod (it
    waits for its node when the node is updated in place; never runs again when the node is
    deleted), a graceful stop longer than the platform's drain timeout."""
    out = []
    if any(v.source == "emptyDir" for v in pod.volumes):
        out.append(Finding(EMPTYDIR_DATA_LOST, "warning",
                           f"pod {pod.ref}: its emptyDir data goes with the pod",
                           wave=wave, pod=pod.ref, node=node, subject=subject))
    if local:
        sev: Severity = "warning" if in_place else "blocking"
        fate = ("it waits Pending until the node is back from its update" if in_place else
                "the node is deleted: the pod never runs again and the volume's data is lost")
        out.append(Finding(LOCAL_VOLUME_PINNED, sev,
                           f"pod {pod.ref} uses a local PersistentVolume on {node}: {fate}",
                           wave=wave, pod=pod.ref, node=node, subject=subject))
    timeout = rules.drain_timeout_seconds
    if (timeout is not None and rules.on_blocked_eviction == "force-stop"
            and pod.termination_grace_seconds > timeout):
        out.append(Finding(GRACE_OVER_TIMEOUT, "warning",
                           f"pod {pod.ref}: terminationGracePeriodSeconds "
                           f"{pod.termination_grace_seconds} > the {timeout} s drain timeout: "
                           "the node stops before the pod ends gracefully", wave=wave,
                           pod=pod.ref, node=node, subject=subject))
    return out


def slows(pdb: PodDisruptionBudget, waits: int, wave: int, node: str,
          rules: DrainRules) -> Finding:
    """``waits`` evictions of ``pdb`` in one wave had to wait for a replacement."""
    tail = (f"; if they take over {rules.drain_timeout_seconds} s in all, the node is "
            "stopped with pods left" if rules.drain_timeout_seconds else "")
    return Finding(PDB_SLOWS_WAVE, "warning",
                   f"PDB {pdb.ref}: {waits} eviction(s) in wave {wave} wait for a replacement "
                   f"pod to become Ready (429, retried every 5 s){tail}",
                   wave=wave, pdb=pdb.ref, node=node, count=waits, subject=pdb.ref)


def blocks(pdb: PodDisruptionBudget, left: list[tuple[Pod, str]], wave: int, healthy: int,
           spec: BudgetSpec, rules: DrainRules) -> Finding:
    """``left`` pods (with their nodes) of ``pdb`` cannot be evicted in this wave."""
    react = ("Yandex stops the node after the drain timeout anyway (forced-stop)"
             if rules.on_blocked_eviction == "force-stop" else
             "the upgrade stops with the cluster in ERROR")
    pod, node = left[0]
    if pdb.min_available is None and pdb.max_unavailable is None:
        # the disruption controller sets neither expectedCount nor desiredHealthy for such a
        # budget, and expectedCount <= 0 forces disruptionsAllowed to 0 (kubernetes
        # pkg/controller/disruption/disruption.go, updatePdbStatus): it refuses every eviction
        why = (f"PDB {pdb.ref} sets neither minAvailable nor maxUnavailable, so Kubernetes "
               "expects 0 pods and allows 0 disruptions whatever is healthy (the disruption "
               "controller: expectedCount 0 -> disruptionsAllowed 0): it refuses every "
               f"eviction in wave {wave}")
    else:
        why = (f"PDB {pdb.ref} allows no more evictions in wave {wave} ({healthy} healthy, "
               f"{spec.desired} required; replacements that find no place never bring the "
               "budget back)")
    return Finding(PDB_BLOCKS_EVICTION, "blocking",
                   f"{why}: {len(left)} pod(s) cannot be evicted, first {pod.ref}; {react}",
                   wave=wave, pod=pod.ref, pdb=pdb.ref, node=node, count=len(left),
                   subject=pdb.ref)
