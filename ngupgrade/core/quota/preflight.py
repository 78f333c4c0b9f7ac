"""The quota preflight of an upgrade: every cloud's verdicts, suggestions and warnings. Pure.

Plain values in, plain values out; no I/O, no clock. The use case in
:mod:`ngupgrade.app.quota_check` fetches the limits and feeds them to :func:`evaluate`, with the
demands of :mod:`ngupgrade.core.quota.demand` (an upgrade) or
:mod:`ngupgrade.core.quota.tfplan` (a Terraform plan); :mod:`ngupgrade.core.quota.limits` adds
the limits the cloud-wide rows do not show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ngupgrade.core.k8s import PodDisruptionBudget
from ngupgrade.core.model import QuotaLimit
from ngupgrade.core.plan_warnings import PlanWarning
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import policy_text
from ngupgrade.core.quota.demand import Concurrency, GroupDemand, combine_by, mode_of
from ngupgrade.core.quota.suggest import Suggestion, suggest
from ngupgrade.core.quota.verdict import CloudVerdict, QuotaVerdict, verdict
from ngupgrade.core.units import human_quota


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
    """PodDisruptionBudgets that allow 0 disruptions (``--pdbs``; aws/containers-roadmap#1282): fail
    under strict."""
    concurrency: Concurrency = "together"
    """Which groups' surges were counted at once (:func:`ngupgrade.core.quota.demand.
    concurrency`); ``sequential`` is True exactly when it is ``sequential``."""
    listed: Mapping[str, Mapping[str, QuotaLimit]] = field(default_factory=dict)
    """The limits as the quota source listed them, cloud id -> quota id (``run_preflight``
    keeps them: the advisor judges other policies against the same limits)."""

    @property
    def short(self) -> tuple[tuple[str, QuotaVerdict], ...]:
        return tuple((c.cloud_id, q) for c in self.clouds for q in c.short)

    @property
    def unknown(self) -> tuple[tuple[str, QuotaVerdict], ...]:
        return tuple((c.cloud_id, q) for c in self.clouds for q in c.unknown)

    @property
    def checked_nothing(self) -> bool:
        """The surge draws on quotas and every one of them is unknown: the source lists none
        (an empty export, a live cloud that lists none), so nothing was checked; fails as a
        short quota does, strict or not."""
        rows = [q for c in self.clouds for q in c.quotas]
        return bool(rows) and all(q.status == "unknown" for q in rows)

    @property
    def ok(self) -> bool:
        return not self.short and not self.checked_nothing and not (
            self.strict and (self.unknown or self.drain_blockers))


def evaluate(groups: Sequence[GroupDemand],
             limits: Mapping[str, Mapping[str, QuotaLimit]], *, sequential: bool = False,
             strict: bool = False, at_current_size: bool = False,
             together: Concurrency | None = None) -> Preflight:
    """Compare the combined demand of ``groups`` with the limits of their clouds.

    ``limits`` maps cloud id -> quota id -> :class:`QuotaLimit`; a quota id missing there is
    ``unknown``. Clouds appear in the order their first group does; quotas by id.
    ``together``: which surges are up at once (:data:`~ngupgrade.core.quota.demand.
    Concurrency`; None: what ``sequential`` says, all or one).
    """
    mode = mode_of(sequential, together)
    clouds: list[CloudVerdict] = []
    suggestions: list[Suggestion] = []
    warnings: list[PlanWarning] = []
    order = list(dict.fromkeys(gd.cloud_id for gd in groups))
    for cloud_id in order:
        mine = [gd for gd in groups if gd.cloud_id == cloud_id]
        total = combine_by(((gd.group.cluster_id, gd.demand(at_current_size)) for gd in mine),
                           mode)
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
                                   at_current_size=at_current_size, together=mode))
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
                     warnings=tuple(warnings), sequential=mode == "sequential", strict=strict,
                     at_current_size=at_current_size, concurrency=mode)


_PLACEMENT_PREFIX = "compute.placementGroupInstances"
"""The row of a spread placement group (:data:`ngupgrade.core.quota.limits.PLACEMENT_VMS`):
a fixed limit, not raised on request."""


def _concurrency_hint(result: Preflight) -> str:
    """How the surges of several groups were counted, and the other way to run them, for the
    short-quota hint: empty for one group or a count of one group at a time."""
    if len(result.groups) < 2 or result.concurrency == "sequential":
        return ""
    counted = ("one group of each cluster at a time, the clusters at once (a cluster runs "
               "one node-group operation at a time)" if result.concurrency == "one-per-cluster"
               else "every group at once")
    return (f"; the surges are counted {counted}: upgraded one after another (`ngupgrade "
            "upgrade` does so), --sequential counts the largest alone")


def failure_summary(result: Preflight) -> str:
    """One line naming what failed, for the error the CLI prints: ``quota preflight failed:``
    and the quota ids with need/headroom (or unknown, strict); a PodDisruptionBudget that
    blocks the drain (strict) after it, as ``drain blocker (--strict):``, not as a quota;
    only blockers: ``preflight failed: drain blocker (--strict): ...``."""
    quotas = [f"{cloud}: {q.name} needs "
              f"{human_quota(q.quota_id, q.demand)}, headroom "
              f"{human_quota(q.quota_id, q.headroom)}" for cloud, q in result.short]
    blockers = []
    if result.checked_nothing:
        quotas.append(nothing_checked_message(result))
    if result.strict:
        quotas += [f"{cloud}: {q.quota_id} unknown" for cloud, q in result.unknown]
        blockers = [f"PodDisruptionBudget {p.ref} allows 0 disruptions"
                    for p in result.drain_blockers]
    parts = ["quota preflight failed: " + "; ".join(quotas)] if quotas else []
    if blockers:
        parts.append("drain blocker (--strict): " + "; ".join(blockers))
    return "; ".join(parts) if quotas else "preflight failed: " + parts[0]


def nothing_checked_message(result: Preflight) -> str:
    """What a preflight whose quotas are all unknown says (:attr:`Preflight.checked_nothing`)."""
    return (f"no quota was checked: the source lists none of the {len(result.unknown)} "
            "quotas the surge draws on")


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
        why = ""
        over = [q for _, q in result.short if q.scope is not None
                and q.headroom is not None and q.headroom < 0]
        if not fixing and over:
            held = "; ".join(f"{q.name} holds {human_quota(q.quota_id, q.usage)}, above its "
                             f"limit of {human_quota(q.quota_id, q.limit)}" for q in over)
            fixed = any(q.quota_id.startswith(_PLACEMENT_PREFIX) for q in over)
            way_out = ("use a partition placement group, or fewer nodes in it" if fixed
                       else "raise that limit, or make the group smaller first")
            why = (f"; no deploy policy fits: {held}, and every policy creates nodes again "
                   f"({way_out})")
        elif not fixing:
            growth = not result.at_current_size and any(
                gd.extra.current_source != "fixed" for gd in result.groups)
            why = ("; no deploy policy fits: more than the surge is short (nodes an autoscaled "
                   "group may grow to before the upgrade, or that a Terraform change adds), so "
                   "a smaller max_expansion cannot help" +
                   (" (--at-current-size judges an autoscaled group at its current size)"
                    if growth else ""))
        hints.append(f"a short quota: {way} ({where}) before the upgrade{why}"
                     + _concurrency_hint(result))
    if result.unknown and (result.strict or result.checked_nothing):
        source = ("export their limits into the quota file (docs/quota-preflight.md, "
                  "\"Exporting the limits\")" if offline else
                  "the API gave no limit for them: check that the account may read them "
                  "(quota-manager.viewer)")
        hints.append(f"no quota was checked: {source}, and check the cloud id" if
                     result.checked_nothing else
                     f"an unknown quota under --strict: {source}, or drop --strict to let "
                     "unknown quotas pass as warnings")
    if result.strict and result.drain_blockers:
        hints.append("a PodDisruptionBudget allows no disruption under --strict: scale its "
                     "workload or relax the budget before the upgrade, or drop --strict")
    return hints
