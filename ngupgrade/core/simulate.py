"""Cycle-by-cycle simulation of a node-group upgrade, and the figures of a plan.

Pure: no I/O, no clock. Notation (docs/upgrade-math.md): ``N`` nodes at the start, ``E'`` and
``U'`` the effective (clamped) ``max_expansion`` / ``max_unavailable``.

* ``surge_nodes = E'``, ``peak_nodes = N + E'``, ``min_available_nodes = N - U'`` (a lower
  bound: at the start of a cycle the surge nodes may not be Ready yet).
* ``cycles.min = ceil(N / (E' + U'))`` (the Selectel strategy page: "up to E + U nodes per cycle";
  20 nodes at 2/2 take about 5 cycles); ``cycles.max`` = the waves of :func:`timeline`:
  ``ceil(N / U')`` when ``U' > 0``, else ``ceil(N / E')``.
* Duration: cycles x minutes per cycle, a range ``[cycles.min, cycles.max] x M``.

The step sequences are those of the worked examples of the Yandex deploy-policy page (the three
5-node groups), which the Selectel strategy page repeats for Selectel (its 5-node 0/2, 2/0 and 2/2
examples give the same steps); the platform's rules (bounds, default, limits, data notes) come from
:class:`~ngupgrade.core.platform.Platform`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale, NodeGroup
from ngupgrade.core.plan_warnings import (
    FIXED_SIZE_DRIFT,
    NODES_OVERRIDE_UNUSED,
    TAINTED_IN_STATE,
    PlanWarning,
    duration_warnings,
    peak_warnings,
    placement_warning,
    policy_warnings,
)
from ngupgrade.core.platform import DataNote, InPlaceMethod, platform_of
from ngupgrade.core.policy import PolicySource, ResolvedPolicy, clamp, resolve, validate

DEFAULT_MINUTES_PER_CYCLE = 6.0
"""Minutes one cycle takes when nothing is known:
terraform-google-modules/terraform-google-kubernetes-engine#939 assumes 6.

One cycle is: create a VM from the node template and let it join as Ready (about 3 min),
cordon and drain the old nodes (about 1-2 min without blocking PodDisruptionBudgets), then
delete them or reboot them in place (about 1 min). ``--cycle-minutes`` replaces it; measure
your own groups (``ngupgrade upgrade`` prints the real cycle time).
"""

Action = Literal["create", "drain", "update_in_place", "delete"]
NodesSource = Literal["fixed", "live", "override", "max"]
"""Where ``N`` came from: the fixed size, the live node count (API), ``--nodes``, or the
autoscaler max (offline worst case)."""


@dataclass(frozen=True)
class Step:
    """One step of the upgrade timeline.

    ``nodes`` is how many nodes this step acts on; ``group_size`` the nodes in the group after
    it (Ready or not); ``new_nodes`` the nodes on the new version after it; ``wave`` the 1-based
    cycle/wave number. After a ``drain`` step, ``nodes`` nodes are cordoned and unavailable
    until the next step updates or deletes them.
    """

    action: Action
    nodes: int
    group_size: int
    new_nodes: int
    wave: int


@dataclass(frozen=True)
class Cycles:
    """Cycles of an upgrade: ``min`` when surge and drains overlap fully, ``max`` = waves."""

    min: int
    max: int


@dataclass(frozen=True)
class Duration:
    """Estimated wall time in minutes: ``cycles.min x M`` .. ``cycles.max x M``."""

    minutes_per_cycle: float
    min_minutes: float
    max_minutes: float


def timeline(nodes: int, policy: DeployPolicy) -> tuple[Step, ...]:
    """The step sequence of an upgrade of ``nodes`` nodes under an effective policy.

    ``policy`` must already be clamped (:func:`ngupgrade.core.policy.clamp`) and valid for a
    non-empty group. Sequences (the Yandex deploy-policy page; docs/upgrade-math.md):

    * ``E'>0, U'=0``: create ``min(E', old left)`` new nodes; drain as many old; delete them.
      N=5, 2/0: create2(7) drain2 delete2(5) create2(7) drain2 delete2(5) create1(6) drain1
      delete1(5).
    * ``E'=0, U'>0``: drain ``min(U', old left)`` old nodes; update them in place.
    * both: create ``E'`` new nodes first; drain old nodes in waves of ``U'``; a drained node
      is updated in place while fewer than ``N`` nodes are on the new version, else deleted.
      N=5, 2/2: create2(7) drain2 update_in_place2(7, new 4) drain2 update_in_place1(7)
      delete1(6) drain1 delete1(5).

    Returns an empty tuple for ``nodes == 0``.

    Raises:
        ValueError: a negative node count, or an effective policy of 0/0 for a non-empty group.
    """
    if nodes < 0:
        raise ValueError(f"node count must be >= 0, got {nodes}")
    if nodes == 0:
        return ()
    surge = min(policy.max_expansion, nodes)
    unavailable = min(policy.max_unavailable, nodes)
    if surge == 0 and unavailable == 0:
        raise ValueError("an effective policy of 0/0 cannot upgrade a non-empty group")
    steps: list[Step] = []
    size, new, old = nodes, 0, nodes
    wave = 0
    if unavailable == 0:
        while old:
            wave += 1
            batch = min(surge, old)
            size += batch
            new += batch
            steps.append(Step("create", batch, size, new, wave))
            steps.append(Step("drain", batch, size, new, wave))
            size -= batch
            old -= batch
            steps.append(Step("delete", batch, size, new, wave))
        return tuple(steps)
    if surge:
        size += surge
        new += surge
        steps.append(Step("create", surge, size, new, 1))
    while old:
        wave += 1
        batch = min(unavailable, old)
        steps.append(Step("drain", batch, size, new, wave))
        old -= batch
        in_place = min(batch, nodes - new)
        if in_place:
            new += in_place
            steps.append(Step("update_in_place", in_place, size, new, wave))
        deleted = batch - in_place
        if deleted:
            size -= deleted
            steps.append(Step("delete", deleted, size, new, wave))
    return tuple(steps)


def surge_nodes(policy: DeployPolicy) -> int:
    """Nodes added on top of ``N`` at most: ``E'`` of the effective policy."""
    return policy.max_expansion


def peak_nodes(nodes: int, policy: DeployPolicy) -> int:
    """Largest group size during the upgrade: ``N + E'``."""
    return nodes + policy.max_expansion


def min_available_nodes(nodes: int, policy: DeployPolicy) -> int:
    """Fewest Ready nodes at any time (lower bound): ``N - U'``."""
    return nodes - policy.max_unavailable


def cycles(nodes: int, policy: DeployPolicy) -> Cycles:
    """``{min: ceil(N / (E'+U')), max: waves}`` of an effective policy; ``{0, 0}`` when N=0."""
    if nodes == 0:
        return Cycles(0, 0)
    per_cycle = policy.max_expansion + policy.max_unavailable
    per_wave = policy.max_unavailable or policy.max_expansion
    if per_cycle == 0:
        raise ValueError("an effective policy of 0/0 cannot upgrade a non-empty group")
    return Cycles(min=math.ceil(nodes / per_cycle), max=math.ceil(nodes / per_wave))


def duration(span: Cycles, minutes_per_cycle: float = DEFAULT_MINUTES_PER_CYCLE) -> Duration:
    """Wall-time range in minutes: each end of ``span`` times ``minutes_per_cycle``."""
    if minutes_per_cycle <= 0:
        raise ValueError(f"minutes per cycle must be > 0, got {minutes_per_cycle}")
    return Duration(minutes_per_cycle, span.min * minutes_per_cycle,
                    span.max * minutes_per_cycle)


def choose_nodes(
    group: NodeGroup, *, live_size: int | None = None, nodes_override: int | None = None,
) -> tuple[int, NodesSource]:
    """``N`` for a plan and where it came from (docs/upgrade-math.md).

    Fixed group: the live node count when known (the upgrade starts from what exists; a
    difference from the state's size is drift, warned about in :func:`plan_group`), else
    its size. Autoscaled group: the live node count when known, else ``--nodes``, else the
    autoscaler max (the worst case).
    """
    scale = group.scale
    if isinstance(scale, FixedScale):
        if live_size is not None and live_size != scale.size:
            return live_size, "live"
        return scale.size, "fixed"
    if live_size is not None:
        return live_size, "live"
    if nodes_override is not None:
        return nodes_override, "override"
    return scale.max, "max"


@dataclass(frozen=True)
class GroupPlan:
    """Everything the plan report says about one node group (README.md).

    ``policy`` is the configured policy with its source; ``effective`` the clamped one.
    ``data_notes`` say what the upgrade does to data on the nodes (the platform's rules;
    empty on Yandex, whose seed is silent). Units: nodes, minutes.
    """

    group: NodeGroup
    policy: ResolvedPolicy
    effective: DeployPolicy
    nodes: int
    nodes_source: NodesSource
    surge_nodes: int
    peak_nodes: int
    min_available_nodes: int
    cycles: Cycles
    timeline: tuple[Step, ...]
    duration: Duration
    warnings: tuple[PlanWarning, ...]
    data_notes: tuple[DataNote, ...] = ()

    @property
    def warning_codes(self) -> tuple[str, ...]:
        """The codes of :attr:`warnings`, in order."""
        return tuple(w.code for w in self.warnings)


def resolve_group_policy(
    group: NodeGroup,
    *,
    live_policy: DeployPolicy | None = None,
    max_expansion: int | None = None,
    max_unavailable: int | None = None,
    declared: PolicySource = "state",
    chosen: PolicySource = "override",
    decided: ResolvedPolicy | None = None,
) -> ResolvedPolicy:
    """Resolve and validate the policy of one group under its platform (no API call needed):
    :func:`ngupgrade.core.policy.resolve` with ``declared``/``chosen`` naming the sources, or
    ``decided``, a policy a caller has already resolved (the upgrade gate's, with its source),
    validated as it is.

    Raises:
        PolicyInvalid: the resolved policy breaks the platform's bounds (Yandex 0..100,
            Selectel 0..the node count or autoscaler max) or the not-both-zero rule; the
            message names the group's Terraform address.
    """
    platform = platform_of(group)
    resolved = decided or resolve(group.policy, live=live_policy, max_expansion=max_expansion,
                                  max_unavailable=max_unavailable, platform=platform,
                                  declared=declared, chosen=chosen)
    validate(resolved.policy, subject=str(group.address), platform=platform,
             scale=group.scale)
    return resolved


def plan_group(
    group: NodeGroup,
    *,
    live_size: int | None = None,
    live_policy: DeployPolicy | None = None,
    nodes_override: int | None = None,
    max_expansion: int | None = None,
    max_unavailable: int | None = None,
    minutes_per_cycle: float = DEFAULT_MINUTES_PER_CYCLE,
    group_node_limit: int | None = None,
    update_timeout_minutes: int | None = None,
    method: InPlaceMethod | None = None,
    declared: PolicySource = "state",
    chosen: PolicySource = "override",
    decided: ResolvedPolicy | None = None,
) -> GroupPlan:
    """Plan the upgrade of one node group.

    Args:
        group: the node group from the state.
        live_size: live node count from the API (autoscaled groups), when reachable.
        live_policy: the live deploy policy from the API, when reachable.
        nodes_override: ``--nodes`` (autoscaled groups without a live size).
        max_expansion, max_unavailable: ``--max-expansion`` / ``--max-unavailable``.
        minutes_per_cycle: ``--cycle-minutes`` (default :data:`DEFAULT_MINUTES_PER_CYCLE`).
        group_node_limit: nodes a group can hold (default: the platform's; Yandex 200).
        update_timeout_minutes: Terraform's update timeout to compare with (default: the
            platform's; Yandex 60, none on Selectel).
        method: the group's in-place method when known (Selectel: reboot or reinstall);
            None says in the data notes that it is not known.
        declared, chosen, decided: where the policy came from
            (:func:`resolve_group_policy`).

    Raises:
        PolicyInvalid: the resolved policy is invalid (before anything else is computed).
        ValueError: a negative node count.
    """
    platform = platform_of(group)
    resolved = resolve_group_policy(group, live_policy=live_policy,
                                    max_expansion=max_expansion,
                                    max_unavailable=max_unavailable, declared=declared,
                                    chosen=chosen, decided=decided)
    if group_node_limit is None:
        group_node_limit = platform.group_node_limit
    nodes, source = choose_nodes(group, live_size=live_size, nodes_override=nodes_override)
    effective = clamp(resolved.policy, nodes)
    span = cycles(nodes, effective)
    estimate = duration(span, minutes_per_cycle)
    peak = peak_nodes(nodes, effective)
    warnings: list[PlanWarning] = []
    if group.tainted:
        warnings.append(PlanWarning(
            TAINTED_IN_STATE,
            "the node group is tainted in the Terraform state: the next `terraform apply` "
            "destroys and recreates it, whatever this upgrade does (`terraform untaint "
            f"'{group.address}'` if that is not wanted)",
        ))
    if nodes_override is not None and source != "override" and nodes_override != nodes:
        why = "the group has a fixed size" if source == "fixed" else "the live size is known"
        warnings.append(PlanWarning(
            NODES_OVERRIDE_UNUSED,
            f"--nodes {nodes_override} not used: {why}, planning with {nodes} nodes",
        ))
    if isinstance(group.scale, FixedScale) and source == "live":
        warnings.append(PlanWarning(
            FIXED_SIZE_DRIFT,
            f"the cloud has {nodes} nodes, the Terraform state says fixed size "
            f"{group.scale.size}: planned with {nodes}; the next `terraform apply` resizes "
            "the group unless the configuration is brought in step",
        ))
    warnings.extend(policy_warnings(resolved, effective, nodes, group.scale, platform))
    worst = None
    if isinstance(group.scale, AutoScale):
        worst = platform.worst_case_peak(resolved.policy, group.scale)
    warnings.extend(peak_warnings(peak, limit=group_node_limit, worst_case_peak=worst))
    placed = placement_warning(group.placement_group, nodes, effective.max_expansion)
    if placed is not None:
        warnings.append(placed)
    warnings.extend(duration_warnings(estimate.max_minutes,
                                      timeout_minutes=update_timeout_minutes,
                                      platform=platform))
    steps = timeline(nodes, effective)
    deleted = sum(s.nodes for s in steps if s.action == "delete")
    in_place = sum(s.nodes for s in steps if s.action == "update_in_place")
    return GroupPlan(
        group=group,
        policy=resolved,
        effective=effective,
        nodes=nodes,
        nodes_source=source,
        surge_nodes=surge_nodes(effective),
        peak_nodes=peak,
        min_available_nodes=min_available_nodes(nodes, effective),
        cycles=span,
        timeline=steps,
        duration=estimate,
        warnings=tuple(warnings),
        data_notes=platform.data_notes(deleted, in_place, method),
    )

