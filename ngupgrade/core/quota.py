"""Quota preflight math: what the surge of an upgrade consumes, and whether the cloud has room.

Pure: plain values in, plain values out; no I/O, no clock. The use case in
:mod:`ngupgrade.app.preflight` fetches the limits and feeds them here.

The rules (DESIGN.md section 4; quota ids and units from reference section 2):

* One node consumes, per cloud:
  compute: ``compute.instances.count`` 1, ``compute.instanceCores.count`` cores (whole vCPUs,
  whatever the ``core_fraction``), ``compute.instanceMemory.size`` bytes, ``compute.disks.count``
  1, the disk-size quota of its boot disk type (bytes), and ``gpus`` on the GPU quota of its
  platform; managed-kubernetes: ``nodes.count`` 1, ``cores.count``, ``memory.size``,
  ``disk.size``; vpc: ``vpc.externalAddresses.count`` 1 when the node has a public NAT address.
* Extra nodes of a fixed group: ``E' = min(E, N)``. Of an autoscaled group: for compute and
  vpc, the worst case ``max + min(E, max) - current`` (the autoscaler may grow the group to
  ``max`` before the upgrade starts; seed 001: max 7, E 7 gives up to 14 nodes); for
  managed-kubernetes ``min(E, max)``, since that service already counts the group at its max
  (``ru/managed-kubernetes/concepts/limits.md``). The figures at the current size,
  ``min(E, current)``, are reported too.
* Groups of one cloud upgraded together add up; upgraded one after another (``sequential``),
  the largest demand per quota counts.
* A quota passes when ``demand <= limit - usage`` (equality passes). A missing limit or usage,
  or a quota id the cloud did not list, is ``unknown``: never unlimited.

Anything the mapping cannot place (a GPU platform without a known GPU quota, a boot disk type
without a known size quota, a group without ``instance_template``) fails closed with
:class:`QuotaMappingUnknown`, naming the group and the value: nothing is skipped silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from ngupgrade.core import project_quota, simulate
from ngupgrade.core.errors import CheckFailed
from ngupgrade.core.k8s import PodDisruptionBudget
from ngupgrade.core.model import AutoScale, DeployPolicy, NodeGroup, QuotaLimit
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import PlanWarning, PolicySource, clamp, policy_text, resolve, validate
from ngupgrade.core.units import human_quota

Service = Literal["compute", "managed-kubernetes", "vpc"]
SERVICES: tuple[Service, ...] = ("compute", "managed-kubernetes", "vpc")
Status = Literal["ok", "short", "unknown"]

# Quota ids (reference section 2.2). Counts are plain numbers, ``*.size`` are bytes.
INSTANCES = "compute.instances.count"
INSTANCE_CORES = "compute.instanceCores.count"
HIGH_FREQ_CORES = "compute.instanceHighFreqCores.count"
INSTANCE_MEMORY = "compute.instanceMemory.size"
DISKS = "compute.disks.count"
MK8S_NODES = "managed-kubernetes.nodes.count"
MK8S_CORES = "managed-kubernetes.cores.count"
MK8S_MEMORY = "managed-kubernetes.memory.size"
MK8S_DISK = "managed-kubernetes.disk.size"
EXTERNAL_ADDRESSES = "vpc.externalAddresses.count"

DISK_SIZE_QUOTA: Mapping[str, str] = {
    "network-hdd": "compute.hddDisks.size",
    "network-ssd": "compute.ssdDisks.size",
    "network-ssd-nonreplicated": "compute.ssdNonReplicatedDisks.size",
    "network-ssd-io-m3": "compute.ssdIOM3Disks.size",
}
"""Boot disk type id -> its disk-size quota (reference 2.4; ``network-nvme`` has none known)."""

GPU_QUOTA: Mapping[str, str] = {
    "gpu-standard-v1": "compute.instanceGpus.count",
    "gpu-standard-v2": "compute.instanceGpus.count",
    "gpu-standard-v3": "compute.instanceA100Gpus.count",
    "gpu-standard-v3i": "compute.instanceV3IGpus.count",
    "standard-v3-t4": "compute.instanceT4Gpus.count",
    "standard-v3-t4i": "compute.instanceT4IGpus.count",
}
"""GPU platform id -> its GPU quota (reference 2.4; ``gpu-standard-v4`` has none known)."""

PLATFORM_CORE_QUOTA: Mapping[str, str] = {"highfreq-v3": HIGH_FREQ_CORES}
"""Platforms whose vCPUs also count on a platform-specific core quota (reference 2.2).

Their cores are charged on ``compute.instanceCores.count`` ("vCPUs, all VMs") as well: counting
on both can only make the check stricter."""

PLATFORM_SPECIFIC_CORE_PREFIXES: tuple[str, ...] = ("highfreq-",)
"""An unknown platform with one of these prefixes has a core quota of its own that we cannot
name: it fails closed."""


class QuotaMappingUnknown(CheckFailed):
    """A node's resources cannot be placed on quota ids (exit 1): fail closed, never skip.

    The message names every group and the value that could not be mapped.
    """


def service_of(quota_id: str) -> str:
    """The Quota Manager service of a quota id: the part before the first dot."""
    return quota_id.split(".", 1)[0]


# ---------------------------------------------------------------------------------------------
# Per-node consumption


def _consumption(group: NodeGroup) -> tuple[dict[str, int], list[str]]:
    if group.platform == "selectel":  # project quotas per zone (core.project_quota)
        return project_quota.consumption(group)
    node = group.node
    where = f"node group {group.address}"
    if node is None:
        return {}, [f"{where}: no instance_template in state, so what a node consumes is unknown"]
    problems: list[str] = []
    per_node: dict[str, int] = {
        INSTANCES: 1,
        INSTANCE_CORES: node.cores,
        INSTANCE_MEMORY: node.memory_bytes,
        DISKS: 1,
        MK8S_NODES: 1,
        MK8S_CORES: node.cores,
        MK8S_MEMORY: node.memory_bytes,
    }
    platform = node.platform_id
    if platform is not None and platform in PLATFORM_CORE_QUOTA:
        per_node[PLATFORM_CORE_QUOTA[platform]] = node.cores
    elif platform is not None and platform.startswith(PLATFORM_SPECIFIC_CORE_PREFIXES):
        problems.append(f"{where}: platform_id {platform!r} has a core quota of its own that "
                        "ngupgrade does not know")
    if node.gpus > 0:
        gpu_quota = GPU_QUOTA.get(platform) if platform is not None else None
        if gpu_quota is None:
            problems.append(f"{where}: {node.gpus} GPU(s) on platform_id {platform!r}, which has "
                            f"no known GPU quota (known: {', '.join(sorted(GPU_QUOTA))})")
        else:
            per_node[gpu_quota] = node.gpus
    disk = node.boot_disk
    if disk is None:
        problems.append(f"{where}: no boot_disk in state, so its disk-size quota is unknown")
    else:
        disk_quota = DISK_SIZE_QUOTA.get(disk.type)
        if disk_quota is None:
            problems.append(f"{where}: boot disk type {disk.type!r} has no known disk-size quota "
                            f"(known: {', '.join(sorted(DISK_SIZE_QUOTA))})")
        else:
            per_node[disk_quota] = disk.size_bytes
        per_node[MK8S_DISK] = disk.size_bytes
    if node.nat:
        per_node[EXTERNAL_ADDRESSES] = 1
    return per_node, problems


def node_consumption(group: NodeGroup) -> dict[str, int]:
    """What one node of ``group`` consumes: quota id -> amount (bytes for ``*.size``).

    Raises:
        QuotaMappingUnknown: no node resources in state, an unknown boot disk type, GPUs on a
            platform without a known GPU quota, or an unknown platform with its own core quota.
    """
    per_node, problems = _consumption(group)
    if problems:
        raise QuotaMappingUnknown("; ".join(problems),
                                  hint="ngupgrade never skips a quota it cannot place")
    return per_node


# ---------------------------------------------------------------------------------------------
# Extra nodes


CurrentSource = Literal["fixed", "api", "assumed_min"]


@dataclass(frozen=True)
class ExtraNodes:
    """How many nodes an upgrade adds on top of today's usage, by quota family.

    ``worst_case``/``at_current_size`` count for compute and vpc quotas;
    ``managed_kubernetes``/``managed_kubernetes_at_current_size`` for managed-kubernetes ones.
    ``current`` is the node count the figures start from; ``current_source`` says where it came
    from: ``fixed`` (the fixed size), ``api`` (live count) or ``assumed_min`` (offline, the
    autoscaler ``min``: the most conservative). ``nodes`` is N for the worst case (``size`` or
    the autoscaler ``max``). ``policy`` is the deploy policy in force; ``policy_source`` says
    where it came from: the state, the live group (``NodeGroupService.Get``, used when the state
    leaves it unset), or the platform's default (Yandex 3/0; ``policy-assumed``).
    """

    worst_case: int
    at_current_size: int
    managed_kubernetes: int
    managed_kubernetes_at_current_size: int
    nodes: int
    current: int
    current_source: CurrentSource
    policy: DeployPolicy
    policy_assumed: bool
    policy_source: PolicySource = "state"


def extra_nodes(group: NodeGroup, current: int | None = None,
                policy: DeployPolicy | None = None,
                policy_source: PolicySource | None = None) -> ExtraNodes:
    """The extra nodes of one group's upgrade (DESIGN.md section 4).

    ``current`` is the live node count of an autoscaled group (ignored for a fixed group); None
    means offline, and the autoscaler ``min`` is assumed. ``policy`` overrides the group's own
    (the live one, or a suggestion being tried; ``policy_source`` says which, default
    ``live``); without it the state's, else the platform's default (assumed). Raises
    PolicyInvalid for a policy outside the platform's bounds or 0/0.
    """
    platform = platform_of(group)
    resolved = resolve(group.policy, platform=platform)
    configured, assumed, source = resolved.policy, resolved.assumed, resolved.source
    if policy is not None:
        configured, assumed, source = policy, False, policy_source or "live"
    validate(configured, platform=platform, scale=group.scale)
    scale = group.scale
    if isinstance(scale, AutoScale):
        size_source: CurrentSource = "api" if current is not None else "assumed_min"
        now = current if current is not None else scale.min
        now = max(now, 0)  # clamp() refuses a negative count; a live count never is one
        e_max = clamp(configured, scale.max).max_expansion
        e_now = clamp(configured, now).max_expansion
        at_current = e_now
        # Surge nodes are outside the autoscaler's limits: max + min(E, max) (seed 001 L234).
        worst = max(platform.worst_case_peak(configured, scale) - now, at_current)
        return ExtraNodes(worst_case=worst, at_current_size=at_current,
                          managed_kubernetes=e_max, managed_kubernetes_at_current_size=e_now,
                          nodes=scale.max, current=now, current_source=size_source,
                          policy=configured, policy_assumed=assumed, policy_source=source)
    e = clamp(configured, scale.size).max_expansion
    return ExtraNodes(worst_case=e, at_current_size=e, managed_kubernetes=e,
                      managed_kubernetes_at_current_size=e, nodes=scale.size,
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
    :mod:`ngupgrade.core.plan_quota`): no suggestion is made for it."""
    demand_at: Callable[[DeployPolicy, bool], Mapping[str, int]] | None = field(
        default=None, compare=False, repr=False)
    """The demand under another deploy policy, ``(policy, at_current_size) -> quota id ->
    amount``, when it is more than the surge (a Terraform roll that also resizes the group or
    changes what a node consumes: :mod:`ngupgrade.core.plan_quota`); None: the surge only."""

    @property
    def address(self) -> str:
        return str(self.group.address)

    def demand(self, at_current_size: bool = False) -> Mapping[str, int]:
        """The figures the verdict counts: worst case, or at the current size."""
        return self.at_current_size if at_current_size else self.worst_case

    def demand_with(self, policy: DeployPolicy, at_current_size: bool = False
                    ) -> Mapping[str, int]:
        """The figures under ``policy`` instead (a suggestion being tried): the part a policy
        cannot lower (a growth, a bigger node) stays counted."""
        if self.demand_at is not None:
            return self.demand_at(policy, at_current_size)
        live = self.extra.current if self.extra.current_source == "api" else None
        return demand_of(self.per_node, extra_nodes(self.group, live, policy=policy),
                         at_current_size)


def check_groups(groups: Sequence[NodeGroup], *, max_expansion: int | None = None,
                 max_unavailable: int | None = None) -> dict[str, dict[str, int]]:
    """Validate every group before any API call; per-node consumption by group address.

    ``max_expansion``/``max_unavailable`` are command-line overrides (checked with the
    group's own values under its platform's bounds).

    Raises:
        PolicyInvalid: a deploy policy outside the platform's bounds or 0/0 (C05), naming
            the group.
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
        per_node, found = _consumption(group)
        problems.extend(found)
        result[str(group.address)] = per_node
    if problems:
        raise QuotaMappingUnknown("; ".join(problems),
                                  hint="ngupgrade never skips a quota it cannot place")
    return result


def group_demand(group: NodeGroup, cloud_id: str, current: int | None = None,
                 per_node: Mapping[str, int] | None = None,
                 live_policy: DeployPolicy | None = None,
                 override: DeployPolicy | None = None) -> GroupDemand:
    """Build one group's :class:`GroupDemand` (see :func:`extra_nodes` for ``current``).

    ``live_policy`` (from ``NodeGroupService.Get``) replaces a policy the state leaves unset
    (C06: never 0/0, the platform's default only when nothing better is known);
    ``override`` (``--max-expansion``/``--max-unavailable`` resolved) replaces both.
    """
    consumption = dict(per_node) if per_node is not None else node_consumption(group)
    if override is not None:
        extra = extra_nodes(group, current, policy=override, policy_source="override")
    else:
        use_live = live_policy if group.policy is None else None
        extra = extra_nodes(group, current, policy=use_live)
    return GroupDemand(group=group, cloud_id=cloud_id, per_node=consumption, extra=extra,
                       worst_case=demand_of(consumption, extra),
                       at_current_size=demand_of(consumption, extra, at_current_size=True))


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


# ---------------------------------------------------------------------------------------------
# Verdicts


@dataclass(frozen=True)
class QuotaVerdict:
    """One quota of one cloud: limit, usage, headroom (``limit - usage``), demand, status.

    ``limit``/``usage``/``headroom`` are None when unknown. ``status`` is ``ok`` when
    ``demand <= headroom`` (equality passes) or when nothing is demanded, ``short`` when
    ``demand > headroom`` (a headroom of 0 is a number, not unknown: C01 variant B), and
    ``unknown`` when the limit or usage is missing. ``scope`` names what a per-group or
    per-cluster limit was judged for (``group ADDRESS``, ``cluster ID``:
    :mod:`ngupgrade.core.limits`); None for the cloud-wide quotas.
    """

    quota_id: str
    limit: float | None
    usage: float | None
    headroom: float | None
    demand: int
    status: Status
    scope: str | None = None

    @property
    def shortfall(self) -> float | None:
        """How much more quota is needed (``demand - headroom``) when short, else None."""
        if self.status != "short" or self.headroom is None:
            return None
        return self.demand - self.headroom


def verdict(quota_id: str, demand: int, limit: QuotaLimit | None) -> QuotaVerdict:
    """Compare one quota's demand with its headroom; ``limit`` None means the id was absent."""
    lim = limit.limit if limit is not None else None
    usage = limit.usage if limit is not None else None
    headroom = lim - usage if lim is not None and usage is not None else None
    status: Status
    if demand <= 0:
        status = "ok"
    elif headroom is None:
        status = "unknown"
    elif demand <= headroom:
        status = "ok"
    else:
        status = "short"
    return QuotaVerdict(quota_id, lim, usage, headroom, demand, status)


def fits(demand: Mapping[str, int], limits: Mapping[str, QuotaLimit],
         quota_ids: Iterable[str]) -> bool:
    """True when none of ``quota_ids`` is short (unknown ones do not count here)."""
    return all(verdict(q, demand.get(q, 0), limits.get(q)).status != "short" for q in quota_ids)


@dataclass(frozen=True)
class CloudVerdict:
    """All quotas of one cloud that the selected groups consume, in quota-id order."""

    cloud_id: str
    quotas: tuple[QuotaVerdict, ...]

    @property
    def short(self) -> tuple[QuotaVerdict, ...]:
        return tuple(q for q in self.quotas if q.status == "short")

    @property
    def unknown(self) -> tuple[QuotaVerdict, ...]:
        return tuple(q for q in self.quotas if q.status == "unknown")


@dataclass(frozen=True)
class Suggestion:
    """A deploy policy for one group that makes its cloud's short quotas fit (C01, C02).

    ``kind`` is ``smaller_surge`` (the largest ``max_expansion`` that fits, ``max_unavailable``
    kept) or ``no_surge`` (``max_expansion=0`` with ``max_unavailable >= 1``; never 0/0: C05).
    ``nodes`` is the N the figures use (fixed size, or for an autoscaled group the autoscaler
    max in the worst case and the current size with ``at_current_size``); ``peak_nodes = N +
    E'``, ``min_ready_nodes = N - U'`` (what the availability costs), ``cycles_min/max`` as in
    DESIGN.md section 3. ``fits`` is False when this (with the suggestions before it in
    the same cloud) still leaves a quota short; ``fits_together`` is True when every
    suggestion of the cloud applied together makes it fit (so an earlier one with ``fits``
    False is a part of the fix, not a dead end); when it is False only a quota increase helps.
    ``whole_group_down`` is True when the policy drains every node at once (``U' == N``,
    0 Ready): it fits the quota by taking the group's workloads offline (seed 001 ex. 2, 3).
    """

    address: str
    cloud_id: str
    quota_ids: tuple[str, ...]
    kind: Literal["smaller_surge", "no_surge"]
    max_expansion: int
    max_unavailable: int
    nodes: int
    peak_nodes: int
    min_ready_nodes: int
    cycles_min: int
    cycles_max: int
    fits: bool
    fits_together: bool = True
    whole_group_down: bool = False


def _suggestion(gd: GroupDemand, policy: DeployPolicy, quota_ids: tuple[str, ...],
                at_current_size: bool, ok: bool) -> Suggestion:
    n = gd.extra.current if at_current_size else gd.extra.nodes
    eff = clamp(policy, n)
    span = simulate.cycles(n, eff)
    kind: Literal["smaller_surge", "no_surge"] = (
        "no_surge" if policy.max_expansion == 0 else "smaller_surge")
    return Suggestion(address=gd.address, cloud_id=gd.cloud_id, quota_ids=quota_ids, kind=kind,
                      max_expansion=policy.max_expansion,
                      max_unavailable=policy.max_unavailable, nodes=n,
                      peak_nodes=n + eff.max_expansion, min_ready_nodes=n - eff.max_unavailable,
                      cycles_min=span.min, cycles_max=span.max, fits=ok, fits_together=ok,
                      whole_group_down=n > 0 and eff.max_unavailable >= n)


def suggest(cloud: CloudVerdict, groups: Sequence[GroupDemand],
            limits: Mapping[str, QuotaLimit], *, sequential: bool = False,
            at_current_size: bool = False) -> list[Suggestion]:
    """Smaller deploy policies that make ``cloud``'s short quotas fit.

    For one group, "reduce" means the largest ``max_expansion`` below its effective one that
    makes the cloud fit with the other groups as they stand (demand grows with E, so the first
    fit from the top is the largest), else ``max_expansion=0`` with
    ``max_unavailable = max(U, 1)`` (never 0/0).

    1. Groups upgraded together: when reducing one group alone is enough, the one suggestion
       that keeps the largest ``max_expansion`` (the first group on a tie).
    2. Otherwise greedy, in group order: each group that draws on a short quota (with
       ``sequential``: each group that does not fit alone) is reduced, until the cloud fits.
       A suggestion with ``fits=False`` means that even all of them are not enough.
    """
    short_ids = tuple(q.quota_id for q in cloud.short)
    if not short_ids:
        return []
    mine = [gd for gd in groups if gd.cloud_id == cloud.cloud_id]
    current: dict[str, Mapping[str, int]] = {
        gd.address: gd.demand(at_current_size) for gd in mine}

    def cloud_fits() -> bool:
        return fits(combine(current.values(), sequential), limits, short_ids)

    def drawing(gd: GroupDemand) -> tuple[str, ...]:
        if not gd.reducible:
            return ()
        used = tuple(q for q in short_ids if current[gd.address].get(q, 0) > 0)
        if sequential:  # one group at a time: only a group that does not fit alone must change
            used = tuple(q for q in used if not fits(current[gd.address], limits, (q,)))
        return used

    def reduce(gd: GroupDemand) -> DeployPolicy | None:
        """Lower ``gd``'s E step by step (updating ``current``) until the cloud fits or E=0."""
        base = gd.extra.policy
        n = gd.extra.current if at_current_size else gd.extra.nodes
        chosen: DeployPolicy | None = None
        for e in range(clamp(base, n).max_expansion - 1, -1, -1):
            chosen = DeployPolicy(e, base.max_unavailable if e > 0
                                  else max(base.max_unavailable, 1))
            current[gd.address] = gd.demand_with(chosen, at_current_size)
            if cloud_fits():
                break
        return chosen  # None when E' was already 0: nothing to give up in this group

    if not sequential:
        best: tuple[GroupDemand, DeployPolicy, tuple[str, ...]] | None = None
        for gd in mine:
            used = drawing(gd)
            if not used:
                continue
            saved = current[gd.address]
            policy = reduce(gd)
            if policy is not None and cloud_fits() and (
                    best is None or policy.max_expansion > best[1].max_expansion):
                best = (gd, policy, used)
            current[gd.address] = saved
        if best is not None:
            return [_suggestion(best[0], best[1], best[2], at_current_size, True)]

    out: list[Suggestion] = []
    for gd in mine:
        used = drawing(gd)
        if not used:
            continue
        policy = reduce(gd)
        if policy is None:
            continue
        ok = cloud_fits()
        out.append(_suggestion(gd, policy, used, at_current_size, ok))
        if ok:
            break
    # Each is a part of one fix: say whether the parts together are enough.
    together = bool(out) and out[-1].fits
    return [replace(s, fits_together=together) for s in out]


@dataclass(frozen=True)
class Preflight:
    """The whole verdict: per cloud, per group, suggestions, warnings.

    ``ok`` is False when any quota is short, or, with ``strict``, unknown, or when a
    PodDisruptionBudget blocks the drain.
    """

    clouds: tuple[CloudVerdict, ...]
    groups: tuple[GroupDemand, ...]
    suggestions: tuple[Suggestion, ...]
    warnings: tuple[PlanWarning, ...]
    sequential: bool = False
    strict: bool = False
    at_current_size: bool = False
    api_calls: Mapping[str, int] = field(default_factory=dict)
    drain_blockers: tuple[PodDisruptionBudget, ...] = ()
    """PodDisruptionBudgets that allow 0 disruptions (``--pdbs``; C15): fail under strict."""

    @property
    def short(self) -> tuple[tuple[str, QuotaVerdict], ...]:
        return tuple((c.cloud_id, q) for c in self.clouds for q in c.short)

    @property
    def unknown(self) -> tuple[tuple[str, QuotaVerdict], ...]:
        return tuple((c.cloud_id, q) for c in self.clouds for q in c.unknown)

    @property
    def ok(self) -> bool:
        return not self.short and not (self.strict and (self.unknown or self.drain_blockers))


def evaluate(groups: Sequence[GroupDemand],
             limits: Mapping[str, Mapping[str, QuotaLimit]], *, sequential: bool = False,
             strict: bool = False, at_current_size: bool = False) -> Preflight:
    """Compare the combined demand of ``groups`` with the limits of their clouds.

    ``limits`` maps cloud id -> quota id -> :class:`QuotaLimit`; a quota id missing there is
    ``unknown``. Clouds appear in the order their first group does; quotas by id.
    """
    clouds: list[CloudVerdict] = []
    suggestions: list[Suggestion] = []
    warnings: list[PlanWarning] = []
    order = list(dict.fromkeys(gd.cloud_id for gd in groups))
    for cloud_id in order:
        mine = [gd for gd in groups if gd.cloud_id == cloud_id]
        total = combine((gd.demand(at_current_size) for gd in mine), sequential)
        quota_ids = sorted({q for gd in mine for q in gd.per_node})
        cloud_limits = limits.get(cloud_id, {})
        cloud = CloudVerdict(cloud_id, tuple(
            verdict(q, total.get(q, 0), cloud_limits.get(q)) for q in quota_ids))
        clouds.append(cloud)
        for q in cloud.unknown:
            why = "not listed by the quota source" if q.quota_id not in cloud_limits else (
                "limit or usage missing")
            warnings.append(PlanWarning(
                "quota-unknown",
                f"cloud {cloud_id}: {q.quota_id} is unknown ({why}); its demand is unchecked"))
        suggestions.extend(suggest(cloud, mine, cloud_limits, sequential=sequential,
                                   at_current_size=at_current_size))
    for gd in groups:
        if gd.extra.policy_assumed:
            platform = platform_of(gd.group)
            warnings.append(PlanWarning(
                "policy-assumed",
                f"{gd.address}: {platform.policy_noun} unset in state; assumed the provider "
                f"default {policy_text(platform.default_policy)}"))
        if gd.extra.current_source == "assumed_min":
            warnings.append(PlanWarning(
                "current-size-assumed",
                f"{gd.address}: live node count unknown; assumed the autoscaler min "
                f"{gd.extra.current}"))
    return Preflight(clouds=tuple(clouds), groups=tuple(groups), suggestions=tuple(suggestions),
                     warnings=tuple(warnings), sequential=sequential, strict=strict,
                     at_current_size=at_current_size)


def failure_summary(result: Preflight) -> str:
    """One line naming what failed, for the error the CLI prints (quota ids with need/headroom)."""
    parts = [f"{cloud}: {q.quota_id}{f' ({q.scope})' if q.scope else ''} needs "
             f"{human_quota(q.quota_id, q.demand)}, headroom "
             f"{human_quota(q.quota_id, q.headroom)}" for cloud, q in result.short]
    if result.strict:
        parts += [f"{cloud}: {q.quota_id} unknown" for cloud, q in result.unknown]
        parts += [f"PodDisruptionBudget {p.ref} allows 0 disruptions"
                  for p in result.drain_blockers]
    return "quota preflight failed: " + "; ".join(parts)


def failure_hints(result: Preflight, *, offline: bool, where: str = "Quota Manager",
                  policy_flags: str = "") -> list[str]:
    """What to do about each kind of failure of ``result``, one hint per kind.

    A short quota: a suggested deploy policy that fits, or a quota increase (``where``);
    an unknown quota under ``--strict``: missing data, so export its limit (``offline``: into
    the quota file) or drop ``--strict``, never "ask for an increase"; a PodDisruptionBudget
    that allows no disruption: relax it. ``policy_flags`` names the flags that apply a policy
    (``" (--max-expansion / --max-unavailable)"`` in ``upgrade``).
    """
    hints = []
    if result.short:
        # a suggestion that does not fit (a growth or bigger nodes no policy lowers) is no way out
        fixing = [s for s in result.suggestions if s.fits_together]
        down = (" (it takes a whole group offline)"
                if fixing and any(s.whole_group_down for s in fixing) else "")
        way = (f"apply the suggested deploy policies{policy_flags}{down}, or ask for a quota "
               "increase" if fixing else "ask for a quota increase")
        hints.append(f"a short quota: {way} ({where}) before the upgrade")
    if result.strict and result.unknown:
        source = ("export their limits into the quota file (docs/quota-preflight.md, "
                  "\"Exporting the limits\")" if offline else
                  "the API gave no limit for them: check that the account may read them "
                  "(quota-manager.viewer)")
        hints.append(f"an unknown quota under --strict: {source}, or drop --strict to let "
                     "unknown quotas pass as warnings")
    if result.strict and result.drain_blockers:
        hints.append("a PodDisruptionBudget allows no disruption under --strict: scale its "
                     "workload or relax the budget before the upgrade, or drop --strict")
    return hints
