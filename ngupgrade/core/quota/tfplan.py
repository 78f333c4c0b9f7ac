"""The extra nodes and quota demand of each change a Terraform plan makes to a node group.

Pure. Builds :class:`ngupgrade.core.quota.demand.GroupDemand` values that
:func:`ngupgrade.core.quota.preflight.evaluate` judges like those of an upgrade
(docs/quota-preflight.md, docs/plan-gate.md):

* ``roll``: per quota, the most the group holds at any moment of the roll's timeline
  (:func:`ngupgrade.core.simulate.timeline` under the deploy policy counted for quotas,
  :attr:`~ngupgrade.core.change.GroupChange.quota_policy`) less what it holds today
  (:func:`roll_demand`). A node recreated with the new template consumes the new amounts, an
  old one the old: when a node gets bigger (cores 4 -> 20) the demand is the per-node
  difference times the nodes already replaced plus the surge, and the worst moment is found on
  the timeline, not assumed (3 nodes at 1/0, 4 -> 20 cores: the last wave holds 1 old and 3
  new nodes, 4 + 60 = 64 cores against 12 today, +52). A group resized in the same apply is
  worst grown first (the added nodes at the larger of the two sizes) and rolled at the larger
  of its two sizes. An autoscaled group: compute/vpc from the current size (assumed ``min``
  offline) rolled at its max (the Selectel strategy page: the surge is outside the autoscaler's
  limits); managed-kubernetes from the old max (it counts a group at its max);
* ``resize``: the growth only, ``max(0, after - before)`` (no node recreated). An autoscaled
  group: compute/vpc ``max(0, max_after - current)`` (the autoscaler may fill the new max),
  at the current size ``max(0, min_after - current)``; managed-kubernetes, which counts a group at
  its max (``ru/managed-kubernetes/concepts/limits.md``), ``max(0, max_after - max_before)``;
* ``create``, and a ``replace`` that creates first: a whole group ``after`` apply (an
  autoscaled one at its max: it may grow there) on top of today's usage
  (yandex-cloud/terraform-provider-yandex#113: with ``create_before_destroy`` "a second full group's
  quota is needed");
* a ``replace`` that deletes first (and a taint change): per quota
  ``max(0, after_total - before_total)``, the old group's nodes being gone first;
* ``in-place``, ``delete``, ``none``: nothing.

The nodes managed-kubernetes counts (:class:`~ngupgrade.core.quota.demand.NodeCount`, the
``groupNodes``/``clusterNodes`` limits' usage and demand) start from the nodes that exist before
the apply, the prior size (0 for a create); the peak is what the change holds at its worst
moment on top: a roll's timeline, a resize's larger size, a create's whole group, a replace
that creates first both groups at once (each alone in the per-group limit), one that deletes
first the larger of the two.

Only a roll's demand shrinks with a smaller deploy policy; every other demand is marked
``reducible=False`` so no policy is suggested for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

from ngupgrade.core.change import GroupChange
from ngupgrade.core.errors import CheckFailed
from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale, NodeGroup
from ngupgrade.core.policy import ResolvedPolicy, clamp, in_force
from ngupgrade.core.quota.catalog import node_consumption, service_of
from ngupgrade.core.quota.demand import (
    CurrentSource,
    ExtraNodes,
    GroupDemand,
    NodeCount,
    demand_of,
    extra_nodes,
)
from ngupgrade.core.simulate import timeline


def _size(group: NodeGroup | None) -> int:
    """Nodes a group may hold: the fixed size, or the autoscaler max (its worst case)."""
    if group is None:
        return 0
    return group.scale.most_nodes


def _current(group: NodeGroup, current: int | None) -> tuple[int, CurrentSource]:
    if isinstance(group.scale, FixedScale):
        return group.scale.size, "fixed"
    if current is not None:
        return current, "api"
    return group.scale.min, "assumed_min"


def _extra(change: GroupChange, current: int | None, *, worst: int, at_current: int,
           counted: NodeCount) -> ExtraNodes:
    """A change that is not a roll: ``counted`` the same at the current size (managed-kubernetes
    counts an autoscaled group at its max either way)."""
    group = change.group
    now, source = _current(group, current)
    return ExtraNodes(worst_case=worst, at_current_size=at_current, counted=counted,
                      counted_at_current_size=counted, nodes=_size(group), current=now,
                      current_source=source, policy=in_force(group.policy),
                      policy_assumed=False, policy_source="plan")


def _grown(change: GroupChange, added: int) -> NodeCount:
    """The prior size (0 for a create) and ``added`` more in the same group at the peak."""
    return NodeCount.grown(_size(change.before), added)


def _before_consumption(change: GroupChange) -> dict[str, int]:
    """What one node of the old group consumed; nothing when it cannot be placed (the worse)."""
    if change.before is None:
        return {}
    try:
        return node_consumption(change.before)
    except CheckFailed:
        return {}


def change_demand(change: GroupChange, cloud_id: str, current: int | None = None,
                  per_node: Mapping[str, int] | None = None,
                  live_policy: DeployPolicy | None = None) -> GroupDemand:
    """The quota demand of one classified change (rules: module docstring).

    ``current`` is the live node count of an autoscaled group (None offline: its ``min`` is
    assumed, and the report says so); ``per_node`` what one node of ``change.group`` consumes
    (computed when None); ``live_policy`` the live deploy policy of a group whose plan leaves it
    unset. Raises PolicyInvalid for an invalid policy, QuotaMappingUnknown for a node the quota
    ids cannot place.
    """
    group = change.group
    consumption = dict(per_node) if per_node is not None else node_consumption(group)
    if change.kind == "roll":
        return _roll(change, cloud_id, current, consumption, live_policy)
    if change.kind == "resize":
        extra = _resize(change, current)
    elif change.kind == "create" or (change.kind == "replace"
                                     and change.replace_order == "create-first"):
        whole, before = _size(group), _size(change.before)
        at_current = group.scale.initial if isinstance(group.scale, AutoScale) else whole
        # the new group beside the old one (none for a create): both at once, each its own group
        extra = _extra(change, current, worst=whole, at_current=at_current,
                       counted=NodeCount(before, before + whole, max(before, whole)))
    elif change.kind == "replace":
        return _delete_first(change, cloud_id, current, consumption)
    else:
        extra = _extra(change, current, worst=0, at_current=0, counted=_grown(change, 0))
    return GroupDemand(group, cloud_id, consumption, extra, demand_of(consumption, extra),
                       demand_of(consumption, extra, at_current_size=True),
                       reducible=False)


def _resize(change: GroupChange, current: int | None) -> ExtraNodes:
    group, before = change.group, change.before
    if isinstance(group.scale, AutoScale):
        now, _ = _current(group, current)
        mk8s = max(0, group.scale.max - _size(before))
        return _extra(change, current, worst=max(0, group.scale.max - now),
                      at_current=max(0, group.scale.min - now), counted=_grown(change, mk8s))
    growth = max(0, group.scale.size - _size(before))
    return _extra(change, current, worst=growth, at_current=growth,
                  counted=_grown(change, growth))


def _delete_first(change: GroupChange, cloud_id: str, current: int | None,
                  consumption: Mapping[str, int]) -> GroupDemand:
    group = change.group
    n_after, n_before = _size(group), _size(change.before)
    old = _before_consumption(change)
    demand = {q: max(0, consumption.get(q, 0) * n_after - old.get(q, 0) * n_before)
              for q in dict.fromkeys([*consumption, *old])}
    growth = max(0, n_after - n_before)
    extra = _extra(change, current, worst=growth, at_current=growth,
                   counted=_grown(change, growth))
    return GroupDemand(group, cloud_id, consumption, extra, demand, dict(demand),
                       reducible=False)


def roll_demand(old: Mapping[str, int], new: Mapping[str, int], before: int, nodes: int,
                policy: DeployPolicy) -> dict[str, int]:
    """Quota id -> the most a roll adds on top of today's usage (module docstring).

    ``old``/``new``: what one node consumes before and after apply; ``before``: the nodes
    counted today (old ones); ``nodes``: the nodes the roll runs at; the ``nodes - before``
    grown first count at the larger of ``old`` and ``new``, and are the last replaced (the
    worst). Every moment of :func:`ngupgrade.core.simulate.timeline` under ``policy`` (clamped
    to ``nodes``) is weighed: new nodes at ``new``, the others at ``old``. Never negative.
    """
    growth = max(0, nodes - before)
    moments = [(nodes, 0)]
    if nodes > 0:
        moments += [(s.group_size, s.new_nodes) for s in timeline(nodes, clamp(policy, nodes))]
    out: dict[str, int] = {}
    for qid in dict.fromkeys([*new, *old]):
        o, n = old.get(qid, 0), new.get(qid, 0)
        peak = 0
        for size, fresh in moments:
            stale = size - fresh
            grown = min(growth, stale)
            peak = max(peak, fresh * n + (stale - grown) * o + grown * max(o, n))
        out[qid] = max(0, peak - before * o)
    return out


_VMS, _NODES = "compute.instances.count", "managed-kubernetes.nodes.count"
_COUNT = {_VMS: 1, _NODES: 1}
"""One node of each count quota: a roll's figures over it are node counts."""

Sizes = tuple[int, int]
"""``(before, nodes)``: the nodes a roll's figures count today and the nodes it runs at."""


def _roll_sizes(change: GroupChange, current: int | None, at_current_size: bool
                ) -> tuple[Sizes, Sizes]:
    """The sizes of a roll for compute/vpc and for managed-kubernetes (module docstring): a
    fixed group from its prior size at the larger of its two sizes; an autoscaled one for
    compute/vpc from its current size (assumed ``min`` offline) at its max, for
    managed-kubernetes from its prior max; at the current size both from the current size."""
    group, prior = change.group, change.before
    if isinstance(group.scale, FixedScale):
        n_before = _size(prior) if prior is not None else group.scale.size
        fixed = (n_before, max(group.scale.size, n_before))
        return fixed, fixed
    now, _ = _current(group, current)
    if at_current_size:
        return (now, now), (now, now)
    old_max = _size(prior) if prior is not None else group.scale.max
    return (now, max(group.scale.max, now)), (old_max, max(group.scale.max, old_max))


def _roll_figures(change: GroupChange, current: int | None, old: Mapping[str, int],
                  new: Mapping[str, int], policy: DeployPolicy, at_current_size: bool
                  ) -> dict[str, int]:
    """The demand of a roll under ``policy``: compute/vpc and managed-kubernetes apart."""
    rest, mk8s = _roll_sizes(change, current, at_current_size)
    if rest == mk8s:
        return roll_demand(old, new, *rest, policy)
    mk8s_new = {q: v for q, v in new.items() if service_of(q) == "managed-kubernetes"}
    mk8s_old = {q: v for q, v in old.items() if service_of(q) == "managed-kubernetes"}
    rest_new = {q: v for q, v in new.items() if q not in mk8s_new}
    rest_old = {q: v for q, v in old.items() if q not in mk8s_old}
    return {**roll_demand(rest_old, rest_new, *rest, policy),
            **roll_demand(mk8s_old, mk8s_new, *mk8s, policy)}


def _roll_counted(change: GroupChange, current: int | None, policy: DeployPolicy,
                  at_current_size: bool) -> NodeCount:
    """The nodes managed-kubernetes counts before the roll and at its peak (one group)."""
    _, (before, nodes) = _roll_sizes(change, current, at_current_size)
    added = roll_demand(_COUNT, _COUNT, before, nodes, policy)[_NODES]
    return NodeCount.grown(before, added)


def _roll(change: GroupChange, cloud_id: str, current: int | None,
          consumption: Mapping[str, int], live_policy: DeployPolicy | None) -> GroupDemand:
    group = change.group
    policy = (ResolvedPolicy(change.quota_policy, "plan")
              if change.quota_policy != group.policy and change.quota_policy is not None
              else None)
    if policy is None and group.policy is None and live_policy is not None:
        # the plan leaves it unset: the live group's, named as such (not the plan's)
        policy = ResolvedPolicy(live_policy, "live")
    # validates the policy and resolves the one in force; the counts are the timeline's
    base = extra_nodes(group, current, policy=policy)
    old = _before_consumption(change) if change.before is not None else dict(consumption)
    return _roll_under(change, cloud_id, current, consumption, old, base, base.policy)


def _roll_under(change: GroupChange, cloud_id: str, current: int | None,
                consumption: Mapping[str, int], old: Mapping[str, int], base: ExtraNodes,
                policy: DeployPolicy) -> GroupDemand:
    """The roll's demand under ``policy`` (the one in force, ``base.policy``, or a suggestion
    being tried: then its source is ``override``); it rebuilds itself under another."""
    figures = partial(_roll_figures, change, current, old, consumption)
    tried = policy != base.policy
    extra = ExtraNodes(
        worst_case=_roll_figures(change, current, _COUNT, _COUNT, policy, False)[_VMS],
        at_current_size=_roll_figures(change, current, _COUNT, _COUNT, policy, True)[_VMS],
        counted=_roll_counted(change, current, policy, False),
        counted_at_current_size=_roll_counted(change, current, policy, True),
        nodes=base.nodes, current=base.current, current_source=base.current_source,
        policy=policy, policy_assumed=base.policy_assumed and not tried,
        policy_source="override" if tried else base.policy_source)
    return GroupDemand(change.group, cloud_id, consumption, extra, figures(policy, False),
                       figures(policy, True),
                       rebuild=partial(_roll_under, change, cloud_id, current, consumption,
                                       old, base))
