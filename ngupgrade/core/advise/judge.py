"""What may block a deploy policy: the quota, the availability floor, the workloads. Pure.

Each judge answers for one group and gives stable reason codes (scripts match on them):

* ``quota-short``: the surge does not fit the headroom of the group's cloud
  (docs/quota-preflight.md, the :mod:`ngupgrade.core.quota` math unchanged: per-node consumption
  times the extra nodes, worst case for an autoscaled group), or a limit beside the cloud-wide
  quotas that ``ngupgrade preflight`` checks (nodes per group and per cluster, zonal quotas:
  :func:`ngupgrade.core.quota.limits.limit_rows`); ``quota-unknown`` under ``strict`` only;
* ``below-min-available``: fewer nodes Ready at the worst moment (``N - U'``) than the floor;
* ``max-unavailable-at-autoscaler-min``: an autoscaled group with ``max_unavailable`` at or
  above the autoscaler min: if the group has shrunk to its min when the upgrade starts, every
  node is drained at once (the Selectel strategy page, autoscaling example 2 and its advice);
* workloads: whatever codes the injected :class:`WorkloadJudge` gives (the drain check's
  ``pdb-blocks-eviction``, ``pods-do-not-fit``, ...).

The floor (``--min-available N|P%``) defaults: without cluster objects, one
node down at a time (``N - 1``; Selectel's own default ``max_unavailable = 1``, the Selectel
strategy page, "Параметры обновления нод"); with cluster objects the drain check decides and the
floor only forbids the whole group down at once (``1`` node Ready). The whole group down is never a
default: for a group of one node, "one at a time" would be the whole group (the Selectel strategy
page, autoscaling example 2: ``U' = N`` leaves the pods nowhere to run), so that group must surge;
``--min-available 0`` allows it. A percentage is of ``N``, rounded up (like a PodDisruptionBudget's
``minAvailable``: Kubernetes docs, "Specifying a Disruption Budget for your Application"; reference
section 4).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from ngupgrade.core.errors import UsageError
from ngupgrade.core.model import AutoScale, DeployPolicy, NodeGroup, QuotaLimit
from ngupgrade.core.plan_warnings import MAX_UNAVAILABLE_AT_AUTOSCALER_MIN
from ngupgrade.core.policy import ResolvedPolicy
from ngupgrade.core.quota.demand import group_demand
from ngupgrade.core.quota.limits import limit_rows
from ngupgrade.core.quota.verdict import QuotaVerdict, verdict
from ngupgrade.core.units import counted, human_quota

QUOTA_SHORT = "quota-short"
QUOTA_UNKNOWN = "quota-unknown"
BELOW_MIN_AVAILABLE = "below-min-available"
AUTOSCALER_MIN = MAX_UNAVAILABLE_AT_AUTOSCALER_MIN


@dataclass(frozen=True)
class Reason:
    """Why a policy is blocked: a stable ``code`` and a one-line ``message``."""

    code: str
    message: str


class WorkloadJudge(Protocol):
    """The workload side of the verdict: the blocking reasons of one effective deploy policy
    of one group (an empty sequence when its drain is safe). Called only for policies that
    pass the quota and the floor, at most once each; it may be slow (a drain simulation)."""

    def __call__(self, policy: DeployPolicy) -> Sequence[Reason]: ...


# ---------------------------------------------------------------------------------------------
# Availability


_MIN_AVAILABLE = re.compile(r"^\s*(\d+)\s*(%?)\s*$")


@dataclass(frozen=True)
class MinAvailable:
    """``--min-available``: a node count, or a percentage of ``N`` (rounded up)."""

    count: int | None = None
    percent: int | None = None

    @classmethod
    def parse(cls, text: str) -> MinAvailable:
        """``"18"`` or ``"90%"``.

        Raises:
            UsageError: anything else, or a percentage above 100.
        """
        found = _MIN_AVAILABLE.match(text)
        if found is None:
            raise UsageError(f"--min-available {text!r}: expected a node count N or a "
                             "percentage P% (e.g. 18 or 90%)")
        value = int(found.group(1))
        if found.group(2):
            if value > 100:
                raise UsageError(f"--min-available {text!r}: a percentage is 0..100")
            return cls(percent=value)
        return cls(count=value)

    def floor(self, nodes: int) -> int:
        """Nodes that must stay Ready, for a group of ``nodes`` nodes."""
        if self.percent is not None:
            return math.ceil(self.percent * nodes / 100)
        return self.count or 0

    def __str__(self) -> str:
        return f"{self.percent}%" if self.percent is not None else str(self.count)


FloorSource = Literal["option", "one-node-down", "whole-group"]


@dataclass(frozen=True)
class Availability:
    """The availability rule of one group of ``nodes`` nodes.

    ``floor`` nodes must stay Ready (``N - U' >= floor``); ``floor_source`` says where it came
    from (``option``: ``--min-available``; ``one-node-down``: the default without cluster
    objects; ``whole-group``: with them). ``autoscaler_min`` is the autoscaler min of an
    autoscaled group (``U`` must stay below it), else None.
    """

    nodes: int
    floor: int
    floor_source: FloorSource
    autoscaler_min: int | None = None

    @property
    def max_unavailable(self) -> int:
        """The largest ``U'`` this rule allows (may be 0: then only surge policies pass)."""
        limit = max(self.nodes - self.floor, 0)
        if self.autoscaler_min is not None:
            limit = min(limit, max(self.autoscaler_min - 1, 0))
        return limit

    def codes(self, u: int) -> tuple[str, ...]:
        """The reason codes of ``U' = u`` (no message built: the search asks often)."""
        out: tuple[str, ...] = ()
        if self.nodes - u < self.floor:
            out += (BELOW_MIN_AVAILABLE,)
        if self.autoscaler_min is not None and u > 0 and u >= self.autoscaler_min:
            out += (AUTOSCALER_MIN,)
        return out

    def reasons(self, u: int) -> list[Reason]:
        """The blocking reasons of ``U' = u``, with messages."""
        out: list[Reason] = []
        codes = self.codes(u)
        if BELOW_MIN_AVAILABLE in codes:
            why = {"option": "--min-available",
                   "one-node-down": "default: one node down at a time; --min-available "
                                    "changes it",
                   "whole-group": "the whole group must not be down at once"}[self.floor_source]
            if self.floor > self.nodes:
                text = (f"the floor of {self.floor} Ready nodes ({why}) is above the group's "
                        f"{self.nodes}: no deploy policy can keep it")
            else:
                text = (f"{u} down at once leaves {self.nodes - u} of "
                        f"{counted(self.nodes, 'node')} Ready, below the floor of "
                        f"{self.floor} ({why})")
            out.append(Reason(BELOW_MIN_AVAILABLE, text))
        if AUTOSCALER_MIN in codes:
            out.append(Reason(AUTOSCALER_MIN,
                              f"max_unavailable {u} is at or above the autoscaler min "
                              f"{self.autoscaler_min}: a group shrunk to its min is drained "
                              "whole"))
        return out


def availability(group: NodeGroup, nodes: int, min_available: MinAvailable | None,
                 cluster_objects: bool) -> Availability:
    """The availability rule of ``group`` planned at ``nodes`` nodes (module docstring)."""
    source: FloorSource
    if min_available is not None:
        floor, source = min_available.floor(nodes), "option"
    elif cluster_objects or nodes <= 1:
        floor, source = min(1, nodes), "whole-group"
    else:
        floor, source = nodes - 1, "one-node-down"
    auto = group.scale.min if isinstance(group.scale, AutoScale) else None
    return Availability(nodes, floor, source, auto)


# ---------------------------------------------------------------------------------------------
# Quota


@dataclass
class QuotaJudge:
    """One group's view of its cloud's headroom: which surges fit.

    ``limits`` is the cloud's quota id -> :class:`QuotaLimit` as the quota source lists them,
    one mapping shared by every group of the cloud; ``per_node`` what one node consumes
    (:func:`ngupgrade.core.quota.catalog.node_consumption`); ``current`` the live node count
    of an autoscaled group (None: offline, the autoscaler min is assumed, as the preflight
    does); ``peers`` every group of the state (a cluster's other groups count in its
    ``clusterNodes`` limit at their size, as ``ngupgrade preflight`` counts them; empty: the
    group alone). ``at_current_size`` judges an autoscaled group at its current size instead
    of the worst case; ``strict`` makes an unknown quota blocking.

    A surge is judged on the rows the preflight gives for the group alone under that policy:
    the cloud-wide quotas it consumes (:func:`ngupgrade.core.quota.demand.group_demand`, then
    :func:`ngupgrade.core.quota.verdict.verdict`) and the limits beside them that the source
    lists (:func:`ngupgrade.core.quota.limits.limit_rows`: nodes per group and per cluster,
    zonal quotas), the same functions, so ``advise`` never recommends what ``preflight``
    refuses. The rows depend on ``E`` only; they are cached.
    """

    group: NodeGroup
    cloud_id: str
    per_node: Mapping[str, int]
    limits: Mapping[str, QuotaLimit]
    current: int | None = None
    at_current_size: bool = False
    strict: bool = False
    peers: Sequence[NodeGroup] = ()
    listed: bool = True
    """The limits came from a quota source. False: none was given (``per_node`` and
    ``limits`` empty), and the judge holds only the limits no source lists (a spread
    placement group's 5 VMs: :func:`ngupgrade.core.quota.limits.placement_rows`); the report
    says the quota was not checked."""
    _verdicts: dict[int, list[QuotaVerdict]] = field(default_factory=dict, repr=False)

    def verdicts(self, e: int) -> list[QuotaVerdict]:
        """Each row the group alone is judged on at ``max_expansion = e``: the cloud-wide
        quotas it consumes (by id), then the limits beside them."""
        found = self._verdicts.get(e)
        if found is None:
            policy = DeployPolicy(e, 0 if e else 1)  # demand does not depend on U; never 0/0
            gd = group_demand(self.group, self.cloud_id, self.current, self.per_node,
                              policy=ResolvedPolicy(policy, "override"))
            need = gd.demand(self.at_current_size)
            found = [verdict(q, need.get(q, 0), self.limits.get(q)) for q in sorted(need)]
            found += limit_rows([gd], self.limits, self.peers,
                                at_current_size=self.at_current_size)
            self._verdicts[e] = found
        return found

    def demand(self, e: int) -> dict[str, int]:
        """Row name (:attr:`QuotaVerdict.name`) -> what the surge of ``max_expansion = e``
        draws on it (API units): the schedule adds these up over the lanes of a stage against
        :meth:`headroom` (a cluster's groups share one lane, so its ``clusterNodes`` row holds
        one surge at a time; groups of a zone in other clusters add up on its zonal row)."""
        return {v.name: v.demand for v in self.verdicts(e)}

    def headroom(self) -> dict[str, float | None]:
        """Row name -> ``limit - usage`` of each row the group is judged on (None: unknown,
        which does not constrain the schedule); the usage of a per-group or per-cluster row
        is its nodes (:mod:`ngupgrade.core.quota.limits`)."""
        return {v.name: v.headroom for v in self.verdicts(0)}

    def blocked(self, e: int) -> bool:
        """True when ``max_expansion = e`` leaves a row short (unknown too, under strict)."""
        bad = ("short", "unknown") if self.strict else ("short",)
        return any(v.status in bad for v in self.verdicts(e))

    def max_expansion(self, e_max: int) -> int | None:
        """The largest ``E'`` in ``0..e_max`` that fits, or None when even 0 does not (an
        autoscaled group grown to its max can overflow the headroom on its own). Demand grows
        with ``E``, so a binary search asks ``log2(e_max)`` times."""
        if self.blocked(0):
            return None
        lo, hi = 0, e_max
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.blocked(mid):
                hi = mid - 1
            else:
                lo = mid
        return lo

    def reasons(self, e: int) -> list[Reason]:
        """``quota-short`` (the row's name, need, headroom, shortfall) for each short row,
        and ``quota-unknown`` under strict."""
        out: list[Reason] = []
        where = f"cloud {self.cloud_id}: " if self.listed else ""
        for v in self.verdicts(e):
            if v.status == "short":
                out.append(Reason(QUOTA_SHORT, (
                    f"{where}{v.name} needs "
                    f"{human_quota(v.quota_id, v.demand)}, headroom "
                    f"{human_quota(v.quota_id, v.headroom)} (short by "
                    f"{human_quota(v.quota_id, v.shortfall)})")))
            elif v.status == "unknown" and self.strict:
                out.append(Reason(QUOTA_UNKNOWN, f"cloud {self.cloud_id}: {v.name} is "
                                                 "unknown (--strict)"))
        return out

    def unknown(self) -> list[str]:
        """Names of the rows whose limit or usage is unknown (a warning: never unlimited)."""
        return [v.name for v in self.verdicts(0) if v.headroom is None]
