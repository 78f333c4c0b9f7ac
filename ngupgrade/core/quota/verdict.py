"""Demand against limits: one verdict per quota, and per cloud. Pure.

A quota passes when ``demand <= limit - usage`` (equality passes; docs/quota-preflight.md). A
missing limit or usage, or a quota id the cloud did not list, is ``unknown``: never unlimited.
Limits and usage are in the quota's unit (bytes for ``*.size``), as
:class:`ngupgrade.core.model.QuotaLimit` holds them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from ngupgrade.core.model import QuotaLimit

Status = Literal["ok", "short", "unknown"]


@dataclass(frozen=True)
class QuotaVerdict:
    """One quota of one cloud: limit, usage, headroom (``limit - usage``), demand, status.

    ``limit``/``usage``/``headroom`` are None when unknown. ``status`` is ``ok`` when
    ``demand <= headroom`` (equality passes) or when nothing is demanded, ``short`` when
    ``demand > headroom`` (a headroom of 0 is a number, not unknown: Azure/AKS#799 variant B), and
    ``unknown`` when the limit or usage is missing. ``scope`` names what a per-group or
    per-cluster limit was judged for (``group ADDRESS``, ``cluster ID``:
    :mod:`ngupgrade.core.quota.limits`); None for the cloud-wide quotas.
    """

    quota_id: str
    limit: float | None
    usage: float | None
    headroom: float | None
    demand: int
    status: Status
    scope: str | None = None

    @property
    def name(self) -> str:
        """What the row is called in every report: the quota id, with the scope of a
        per-group or per-cluster row after it (``managed-kubernetes.groupNodes.count (group
        ADDRESS)``). Two rows of one cloud never share a name; the advisor's schedule keys the
        headroom a stage shares by it."""
        return self.quota_id if self.scope is None else f"{self.quota_id} ({self.scope})"

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
