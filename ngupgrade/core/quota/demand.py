"""What the surge of an upgrade needs: extra nodes, and their demand on each quota. Pure.

Rules (docs/quota-preflight.md):

* Extra nodes of a fixed group: ``E' = min(E, N)``. Of an autoscaled group: for compute and
  vpc, the worst case ``max + min(E, max) - current`` (the autoscaler may grow the group to
  ``max`` before the upgrade starts; the Selectel strategy page: max 7, E 7 gives up to 14 nodes);
  for managed-kubernetes ``min(E, max)``, since that service already counts the group at its max
  (``ru/managed-kubernetes/concepts/limits.md``). The figures at the current size,
  ``min(E, current)``, are reported too.
* A group's demand is what one node consumes (:mod:`ngupgrade.core.quota.catalog`) times the
  extra nodes of each quota's family; quota id -> amount in API units (bytes for ``*.size``).
* Groups of one cloud upgraded together add up; upgraded one after another (``sequential``),
  the largest demand per quota counts.
* The nodes managed-kubernetes counts (its ``nodes.count`` quota, the ``groupNodes`` and
  ``clusterNodes`` limits) are one :class:`NodeCount` per group: before the change and at its
  peak; the managed-kubernetes extra nodes are the difference.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ngupgrade.core.errors import QuotaMappingUnknown
from ngupgrade.core.model import AutoScale, DeployPolicy, NodeGroup
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import PolicySource, ResolvedPolicy, clamp, resolve, validate
from ngupgrade.core.quota.catalog import node_consumption, place_node, service_of

CurrentSource = Literal["fixed", "api", "assumed_min"]


@dataclass(frozen=True)
class NodeCount:
    """One group's nodes as managed-kubernetes counts them (a fixed size; an autoscaled group
    at its max, or at its current count for the figures at the current size), before a change
    and at the change's worst moment. The one source of the managed-kubernetes extra nodes
    (:attr:`added`) and of the node-count limits' usage and demand
    (:mod:`ngupgrade.core.quota.limits`).

    ``before``: the nodes that exist before the change (0 for a group the change creates);
    ``peak``: the most nodes the group's change holds at once (an upgrade: ``before`` plus the
    surge; a Terraform replace that creates first: the old group's and the new group's nodes
    together); ``one_group``: the most nodes one node group holds then, what the per-group
    limit counts (``peak``, but for a replace that creates first the larger of the two
    groups). Raises ValueError unless ``0 <= before <= peak`` and ``one_group <= peak``.
    """

    before: int
    peak: int
    one_group: int

    def __post_init__(self) -> None:
        if not 0 <= self.before <= self.peak or self.one_group > self.peak:
            raise ValueError(f"node count out of order: {self}")

    @classmethod
    def grown(cls, before: int, added: int) -> NodeCount:
        """``before`` nodes and ``added`` more at the peak, all in one node group."""
        return cls(before, before + added, before + added)

    @property
    def added(self) -> int:
        """The nodes the change adds at its peak on top of ``before``."""
        return self.peak - self.before


@dataclass(frozen=True)
class ExtraNodes:
    """How many nodes an upgrade adds on top of today's usage, by quota family.

    ``worst_case``/``at_current_size`` count for compute and vpc quotas;
    ``counted``/``counted_at_current_size`` are the nodes managed-kubernetes counts before the
    change and at its peak (:class:`NodeCount`), whose difference is the extra nodes of the
    managed-kubernetes quotas (``managed_kubernetes``/``managed_kubernetes_at_current_size``).
    ``current`` is the node count the compute figures start from; ``current_source`` says where
    it came from: ``fixed`` (the fixed size), ``api`` (live count) or ``assumed_min`` (offline,
    the autoscaler ``min``: the most conservative). ``nodes`` is N for the worst case (``size``
    or the autoscaler ``max``; a Terraform change: the planned size). ``policy`` is the deploy
    policy in force; ``policy_source`` says where it came from: the state, the live group
    (``NodeGroupService.Get``, used when the state leaves it unset), or the platform's default
    (Yandex 3/0; ``policy-assumed``).
    """

    worst_case: int
    at_current_size: int
    counted: NodeCount
    counted_at_current_size: NodeCount
    nodes: int
    current: int
    current_source: CurrentSource
    policy: DeployPolicy
    policy_assumed: bool
    policy_source: PolicySource = "state"

    @property
    def managed_kubernetes(self) -> int:
        """Extra nodes for the managed-kubernetes quotas, worst case (``counted.added``)."""
        return self.counted.added

    @property
    def managed_kubernetes_at_current_size(self) -> int:
        """The same at the current size (``counted_at_current_size.added``)."""
        return self.counted_at_current_size.added


def extra_nodes(group: NodeGroup, current: int | None = None,
                policy: ResolvedPolicy | None = None) -> ExtraNodes:
    """The extra nodes of one group's upgrade (docs/quota-preflight.md).

    ``current`` is the live node count of an autoscaled group (ignored for a fixed group); None
    means offline, and the autoscaler ``min`` is assumed. ``policy`` is the policy the upgrade
    runs with, as its caller resolved it (:func:`ngupgrade.core.policy.resolve`: the live one,
    an override, the advised one, a plan's, a suggestion being tried), whose source and
    ``assumed`` the figures carry as they are; without it the state's, else the platform's
    default (assumed). Raises PolicyInvalid for a policy outside the platform's bounds or 0/0.
    """
    platform = platform_of(group)
    resolved = policy or resolve(group.policy, platform=platform)
    configured, assumed, source = resolved.policy, resolved.assumed, resolved.source
    validate(configured, platform=platform, scale=group.scale)
    scale = group.scale
    if isinstance(scale, AutoScale):
        size_source: CurrentSource = "api" if current is not None else "assumed_min"
        now = current if current is not None else scale.min
        now = max(now, 0)  # clamp() refuses a negative count; a live count never is one
        e_max = clamp(configured, scale.max).max_expansion
        e_now = clamp(configured, now).max_expansion
        at_current = e_now
        # Surge nodes are outside the autoscaler's limits: max + min(E, max) (the Selectel strategy
        # page, "Особенности обновления нод при автомасштабировании").
        worst = max(platform.worst_case_peak(configured, scale) - now, at_current)
        return ExtraNodes(worst_case=worst, at_current_size=at_current,
                          counted=NodeCount.grown(scale.max, e_max),
                          counted_at_current_size=NodeCount.grown(now, e_now),
                          nodes=scale.max, current=now, current_source=size_source,
                          policy=configured, policy_assumed=assumed, policy_source=source)
    e = clamp(configured, scale.size).max_expansion
    return ExtraNodes(worst_case=e, at_current_size=e, counted=NodeCount.grown(scale.size, e),
                      counted_at_current_size=NodeCount.grown(scale.size, e), nodes=scale.size,
                      current=scale.size, current_source="fixed",
                      policy=configured, policy_assumed=assumed, policy_source=source)


def demand_of(per_node: Mapping[str, int], extra: ExtraNodes,
              at_current_size: bool = False) -> dict[str, int]:
    """Per-node consumption times the extra nodes of each quota's family: quota id -> amount."""
    compute_vpc = extra.at_current_size if at_current_size else extra.worst_case
    mk8s = (extra.managed_kubernetes_at_current_size if at_current_size
            else extra.managed_kubernetes)
    return {
        qid: amount * (mk8s if service_of(qid) == "managed-kubernetes" else compute_vpc)
        for qid, amount in per_node.items()
    }


@dataclass(frozen=True)
class GroupDemand:
    """One group's share of a preflight: where it lives, its extra nodes, what they consume.

    ``worst_case`` and ``at_current_size`` map quota id -> amount in API units.
    """

    group: NodeGroup
    cloud_id: str
    per_node: Mapping[str, int]
    extra: ExtraNodes
    worst_case: Mapping[str, int]
    at_current_size: Mapping[str, int]
    reducible: bool = True
    """False when a smaller deploy policy cannot lower the demand (a Terraform replace or create:
    :mod:`ngupgrade.core.quota.tfplan`): no suggestion is made for it."""
    rebuild: Callable[[DeployPolicy], GroupDemand] | None = field(
        default=None, compare=False, repr=False)
    """The same change under another deploy policy, when its demand is more than the surge (a
    Terraform roll that also resizes the group or changes what a node consumes:
    :mod:`ngupgrade.core.quota.tfplan`); None: the surge only (:meth:`with_policy`)."""

    @property
    def address(self) -> str:
        return str(self.group.address)

    def demand(self, at_current_size: bool = False) -> Mapping[str, int]:
        """The figures the verdict counts: worst case, or at the current size."""
        return self.at_current_size if at_current_size else self.worst_case

    def with_policy(self, policy: DeployPolicy) -> GroupDemand:
        """This group's share under ``policy`` instead (a suggestion being tried): its extra
        nodes and both demands, so every row the preflight judges (the cloud-wide quotas and
        the limits beside them: :func:`ngupgrade.core.quota.limits.limit_rows`) can be asked
        again. The part a policy cannot lower (a growth, a bigger node) stays counted; the
        live size of an autoscaled group is kept. Raises PolicyInvalid for a policy outside
        the platform's bounds or 0/0."""
        if self.rebuild is not None:
            return self.rebuild(policy)
        live = self.extra.current if self.extra.current_source == "api" else None
        extra = extra_nodes(self.group, live, policy=ResolvedPolicy(policy, "override"))
        return replace(self, extra=extra, worst_case=demand_of(self.per_node, extra),
                       at_current_size=demand_of(self.per_node, extra, at_current_size=True))

    def demand_with(self, policy: DeployPolicy, at_current_size: bool = False
                    ) -> Mapping[str, int]:
        """The figures under ``policy`` instead (:meth:`with_policy`)."""
        return self.with_policy(policy).demand(at_current_size)


def check_groups(groups: Sequence[NodeGroup], *, max_expansion: int | None = None,
                 max_unavailable: int | None = None) -> dict[str, dict[str, int]]:
    """Validate every group before any API call; per-node consumption by group address.

    ``max_expansion``/``max_unavailable`` are command-line overrides (checked with the
    group's own values under its platform's bounds).

    Raises:
        PolicyInvalid: a deploy policy outside the platform's bounds or 0/0
            (stackitcloud/terraform-provider-stackit#530), naming the group.
        QuotaMappingUnknown: every group whose resources cannot be placed, all in one message.
    """
    problems: list[str] = []
    result: dict[str, dict[str, int]] = {}
    for group in groups:
        platform = platform_of(group)
        resolved = resolve(group.policy, max_expansion=max_expansion,
                           max_unavailable=max_unavailable, platform=platform)
        validate(resolved.policy, subject=f"node group {group.address}",
                 platform=platform, scale=group.scale)
        per_node, found = place_node(group)
        problems.extend(found)
        result[str(group.address)] = per_node
    if problems:
        raise QuotaMappingUnknown("; ".join(problems),
                                  hint="ngupgrade never skips a quota it cannot place")
    return result


def group_demand(group: NodeGroup, cloud_id: str, current: int | None = None,
                 per_node: Mapping[str, int] | None = None,
                 live_policy: DeployPolicy | None = None,
                 policy: ResolvedPolicy | None = None) -> GroupDemand:
    """Build one group's :class:`GroupDemand` (see :func:`extra_nodes` for ``current``).

    ``live_policy`` (from ``NodeGroupService.Get``) replaces a policy the state leaves unset
    (yandex-cloud/terraform-provider-yandex PR #61: never 0/0, the platform's default only when
    nothing better is known); ``policy`` (decided by the caller with its source:
    ``--max-expansion``/``--max-unavailable`` resolved, the upgrade's own, a policy being judged)
    replaces both.
    """
    consumption = dict(per_node) if per_node is not None else node_consumption(group)
    if policy is None and group.policy is None and live_policy is not None:
        policy = ResolvedPolicy(live_policy, "live")
    extra = extra_nodes(group, current, policy=policy)
    return GroupDemand(group=group, cloud_id=cloud_id, per_node=consumption, extra=extra,
                       worst_case=demand_of(consumption, extra),
                       at_current_size=demand_of(consumption, extra, at_current_size=True))


Concurrency = Literal["together", "one-per-cluster", "sequential"]
"""Which groups' surges are up at once: ``together`` all of them (added up); ``one-per-cluster``
one group of each cluster at a time, the clusters at once (per quota the largest of each
cluster, added up over the clusters); ``sequential`` one group at a time (the largest)."""


def concurrency(groups: Iterable[NodeGroup], sequential: bool = False,
                together: bool = False) -> Concurrency:
    """The one rule of what "groups upgraded together" means for ``groups``: ``sequential``
    when they run one after another (``--sequential``, ``ngupgrade upgrade``); ``together``
    when asked (``--together``: every surge at once, the worst case); otherwise
    ``one-per-cluster`` when every group's platform runs one operation of a cluster at a time
    (Yandex: :attr:`ngupgrade.core.platform.Platform.cluster_groups`), else ``together``
    (Selectel's cluster-level upgrade: every group of the cluster at once)."""
    if sequential:
        return "sequential"
    if together:
        return "together"
    if all(platform_of(g).cluster_groups == "one-at-a-time" for g in groups):
        return "one-per-cluster"
    return "together"


def combine_by(demands: Iterable[tuple[str, Mapping[str, int]]], mode: Concurrency
               ) -> dict[str, int]:
    """Combine ``(cluster id, demand)`` pairs under ``mode`` (:data:`Concurrency`)."""
    pairs = list(demands)
    if mode != "one-per-cluster":
        return combine((d for _, d in pairs), mode == "sequential")
    lanes: dict[str, list[Mapping[str, int]]] = {}
    for cluster, demand in pairs:
        lanes.setdefault(cluster, []).append(demand)
    return combine(combine(lane, True) for lane in lanes.values())


def mode_of(sequential: bool, mode: Concurrency | None) -> Concurrency:
    """``mode`` when given, else what the older ``sequential`` flag meant (sum or largest)."""
    if mode is not None:
        return mode
    return "sequential" if sequential else "together"


def combine(demands: Iterable[Mapping[str, int]], sequential: bool = False) -> dict[str, int]:
    """Add demands up (groups upgraded together), or take the largest per quota (sequential)."""
    total: dict[str, int] = {}
    for demand in demands:
        for qid, amount in demand.items():
            if sequential:
                total[qid] = max(total.get(qid, 0), amount)
            else:
                total[qid] = total.get(qid, 0) + amount
    return total


def required_services(demands: Iterable[GroupDemand]) -> dict[str, tuple[str, ...]]:
    """cloud id -> the Quota Manager services whose quotas these groups consume (sorted)."""
    needed: dict[str, set[str]] = {}
    for gd in demands:
        needed.setdefault(gd.cloud_id, set()).update(service_of(q) for q in gd.per_node)
    return {cloud: tuple(sorted(services)) for cloud, services in needed.items()}
