"""Pure rules of the runbook: version steps, the policy as text, where in the plan's timeline
an upgrade is. No I/O; the steps and the progress display call these."""

from __future__ import annotations

from collections.abc import Sequence

from ngupgrade.core.errors import CheckFailed, UsageError
from ngupgrade.core.simulate import Step

PDB_HINT = (
    "the usual cause is a PodDisruptionBudget that allows no eviction: "
    "`kubectl get pdb --all-namespaces` and look for ALLOWED DISRUPTIONS 0 (maxUnavailable: 0, "
    "or minAvailable equal to the replicas); allow one eviction (more replicas, or relax the "
    "PDB). Managed Kubernetes retries the eviction rather than deleting the pod, and stops a "
    "node only after its drain timeout (about 7 minutes). Also check the operation's log in "
    "the console (quota, instance errors)."
)


def parse_version(text: str) -> tuple[int, int]:
    """``"1.30"`` (or ``"1.30.2"``) as ``(1, 30)``. Raises UsageError for anything else."""
    parts = text.strip().split(".")
    try:
        if len(parts) < 2:
            raise ValueError(text)
        return int(parts[0]), int(parts[1])
    except ValueError as err:
        raise UsageError(f"not a Kubernetes version: {text!r} (expected MAJOR.MINOR, e.g. 1.30)"
                         ) from err


def check_target_version(current: str, target: str, master: str, *, subject: str) -> None:
    """A node group moves one minor version per step and never ahead of its master.

    Source: the Yandex Cloud docs, "Updating Kubernetes" (``update-kubernetes``: "first update the
    cluster and then its node group"; one minor version per step).

    Raises:
        CheckFailed: target ahead of the master, a downgrade, or more than one minor step.
        UsageError: a version string that is not MAJOR.MINOR.
    """
    cur, tgt = parse_version(current), parse_version(target)
    if master:
        mst = parse_version(master)
        if tgt > mst:
            raise CheckFailed(
                f"{subject}: version {target} is ahead of the master {master}; a node group "
                "is never ahead of its master",
                hint=f"upgrade the cluster's master to {target} first, then the node groups")
    if tgt < cur:
        raise CheckFailed(f"{subject}: version {target} is older than the current {current}; "
                          "downgrades are not possible")
    if tgt[0] != cur[0] or tgt[1] - cur[1] > 1:
        step = f"{cur[0]}.{cur[1] + 1}"
        raise CheckFailed(
            f"{subject}: {current} -> {target} skips minor versions; one minor version per step",
            hint=f"upgrade to {step} first, then on")


def timeline_position(steps: Sequence[Step], new_nodes: int, group_size: int,
                      start: int = 0) -> int:
    """The index of the plan step that best matches what the cloud shows (0 when no steps).

    The step whose (nodes on the new version, group size) is nearest to the reading, the
    earliest one at or after ``start`` on a tie: progress only moves forward.
    """
    if not steps:
        return 0
    best, best_distance = start, None
    for i in range(min(start, len(steps) - 1), len(steps)):
        step = steps[i]
        distance = abs(step.new_nodes - new_nodes) + abs(step.group_size - group_size)
        if best_distance is None or distance < best_distance:
            best, best_distance = i, distance
    return best


def cycle_estimate(steps: Sequence[Step], new_nodes: int, group_size: int,
                   start: int = 0) -> tuple[int, int]:
    """``(step index, cycle)``: where in the plan's timeline the upgrade is (cycle 1-based)."""
    if not steps:
        return 0, 1
    i = timeline_position(steps, new_nodes, group_size, start)
    return i, steps[i].wave
