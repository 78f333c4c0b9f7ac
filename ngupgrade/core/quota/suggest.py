"""The suggested fix: the largest deploy policy that makes a cloud's short quotas fit. Pure.

Public issues Azure/AKS#799, Azure/AKS#4818 (a smaller surge, or none),
stackitcloud/terraform-provider-stackit#530 (never 0/0); the figures of each suggestion as in
docs/upgrade-math.md (:mod:`ngupgrade.core.simulate`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ngupgrade.core import simulate
from ngupgrade.core.model import DeployPolicy, QuotaLimit
from ngupgrade.core.policy import clamp
from ngupgrade.core.quota.demand import Concurrency, GroupDemand, combine_by, mode_of
from ngupgrade.core.quota.verdict import CloudVerdict, QuotaVerdict, verdict


@dataclass(frozen=True)
class Suggestion:
    """A deploy policy for one group that makes its cloud's short quotas fit (Azure/AKS#799,
    Azure/AKS#4818).

    ``kind`` is ``smaller_surge`` (the largest ``max_expansion`` that fits, ``max_unavailable``
    kept) or ``no_surge`` (``max_expansion=0`` with ``max_unavailable >= 1``; never 0/0:
    stackitcloud/terraform-provider-stackit#530).
    ``nodes`` is the N the figures use (fixed size, or for an autoscaled group the autoscaler
    max in the worst case and the current size with ``at_current_size``); ``peak_nodes = N +
    E'``, ``min_ready_nodes = N - U'`` (what the availability costs), ``cycles_min/max`` as in
    docs/upgrade-math.md. ``fits`` is False when this (with the suggestions before it in
    the same cloud) still leaves a quota short; ``fits_together`` is True when every
    suggestion of the cloud applied together makes it fit (so an earlier one with ``fits``
    False is a part of the fix, not a dead end); when it is False only a quota increase helps.
    ``whole_group_down`` is True when the policy drains every node at once (``U' == N``,
    0 Ready): it fits the quota by taking the group's workloads offline (the Selectel strategy page,
    autoscaling examples 2 and 3).
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
    rows: tuple[str, ...] = ()
    """The short rows it fixes or eases, as the report names them (:attr:`QuotaVerdict.name`:
    ``managed-kubernetes.groupNodes.count (group ADDRESS)`` for a per-group limit); their
    ``quota_ids`` without the scope."""


def _suggestion(gd: GroupDemand, policy: DeployPolicy, rows: Mapping[str, str],
                at_current_size: bool, ok: bool) -> Suggestion:
    n = gd.extra.current if at_current_size else gd.extra.nodes
    eff = clamp(policy, n)
    span = simulate.cycles(n, eff)
    kind: Literal["smaller_surge", "no_surge"] = (
        "no_surge" if policy.max_expansion == 0 else "smaller_surge")
    return Suggestion(address=gd.address, cloud_id=gd.cloud_id,
                      quota_ids=tuple(dict.fromkeys(rows.values())), rows=tuple(rows), kind=kind,
                      max_expansion=policy.max_expansion,
                      max_unavailable=policy.max_unavailable, nodes=n,
                      peak_nodes=n + eff.max_expansion, min_ready_nodes=n - eff.max_unavailable,
                      cycles_min=span.min, cycles_max=span.max, fits=ok, fits_together=ok,
                      whole_group_down=n > 0 and eff.max_unavailable >= n)


Beside = Callable[[Sequence[GroupDemand]], Sequence[QuotaVerdict]]
"""The rows of the limits beside the cloud-wide quotas for some of a cloud's groups (per
group, per cluster, per zone: :func:`ngupgrade.core.quota.limits.limit_rows` with that cloud's
limits bound)."""


def suggest(cloud: CloudVerdict, groups: Sequence[GroupDemand],
            limits: Mapping[str, QuotaLimit], *, sequential: bool = False,
            at_current_size: bool = False, beside: Beside | None = None,
            together: Concurrency | None = None) -> list[Suggestion]:
    """Smaller deploy policies that make ``cloud``'s short rows fit.

    ``cloud`` holds the rows as the report names them (:attr:`QuotaVerdict.name`): the
    cloud-wide quotas, and, with ``beside``, the limits beside them that it judges again for
    each policy tried (a group's node limit, its cluster's, a zonal quota), so a short
    ``managed-kubernetes.groupNodes.count (group ADDRESS)`` gets its policy like a short
    ``compute.instances.count``.

    For one group, "reduce" means the largest ``max_expansion`` below its effective one that
    makes the cloud fit with the other groups as they stand (demand grows with E, so the first
    fit from the top is the largest), else ``max_expansion=0`` with
    ``max_unavailable = max(U, 1)`` (never 0/0).

    1. Groups upgraded together: when reducing one group alone is enough, the one suggestion
       that keeps the largest ``max_expansion`` (the first group on a tie).
    2. Otherwise greedy, in group order: each group that draws on a short row (with
       ``sequential``: each group that does not fit it alone) is reduced, until the cloud
       fits. A suggestion with ``fits=False`` means that even all of them are not enough.
    """
    short = {q.name: q.quota_id for q in cloud.short}
    if not short:
        return []
    mode = mode_of(sequential, together)
    mine = [gd for gd in groups if gd.cloud_id == cloud.cloud_id]
    consumed = {q for gd in mine for q in gd.per_node}
    wide = tuple(q for name, q in short.items() if name == q and q in consumed)
    current: dict[str, GroupDemand] = {gd.address: gd for gd in mine}

    def judged(demands: Sequence[GroupDemand]) -> list[QuotaVerdict]:
        """The rows ``cloud`` has short, judged again for ``demands``."""
        total = combine_by(((gd.group.cluster_id, gd.demand(at_current_size))
                            for gd in demands), mode)
        rows = [verdict(q, total.get(q, 0), limits.get(q)) for q in wide]
        if beside is not None and len(wide) < len(short):
            rows += [v for v in beside(demands) if v.name in short]
        return rows

    def cloud_fits() -> bool:
        return all(v.status != "short" for v in judged(list(current.values())))

    def drawing(gd: GroupDemand) -> tuple[str, ...]:
        """The short rows' names ``gd`` draws on (with ``sequential``: does not fit alone)."""
        if not gd.reducible:
            return ()
        alone = judged([current[gd.address]])
        used = {v.name for v in alone if v.demand > 0
                and (mode != "sequential" or v.status == "short")}
        return tuple(name for name in short if name in used)

    def reduce(gd: GroupDemand) -> DeployPolicy | None:
        """Lower ``gd``'s E step by step (updating ``current``) until the cloud fits or E=0."""
        base = gd.extra.policy
        n = gd.extra.current if at_current_size else gd.extra.nodes
        chosen: DeployPolicy | None = None
        for e in range(clamp(base, n).max_expansion - 1, -1, -1):
            chosen = DeployPolicy(e, base.max_unavailable if e > 0
                                  else max(base.max_unavailable, 1))
            current[gd.address] = gd.with_policy(chosen)
            if cloud_fits():
                break
        return chosen  # None when E' was already 0: nothing to give up in this group

    if mode != "sequential":
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
            return [_suggestion(best[0], best[1], {n: short[n] for n in best[2]},
                                at_current_size, True)]

    out: list[Suggestion] = []
    for gd in mine:
        used = drawing(gd)
        if not used:
            continue
        policy = reduce(gd)
        if policy is None:
            continue
        ok = cloud_fits()
        out.append(_suggestion(gd, policy, {n: short[n] for n in used}, at_current_size, ok))
        if ok:
            break
    # Each is a part of one fix: say whether the parts together are enough.
    enough = bool(out) and out[-1].fits
    return [replace(s, fits_together=enough) for s in out]
