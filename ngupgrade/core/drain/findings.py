"""What the drain check reports: findings with stable codes, and the platform's rules. Pure.

A :class:`Finding` is one thing an upgrade wave does to the workloads
(docs/drain.md). Its ``code`` is stable (JSON consumers and ``--accept CODE`` rely on it); its
``severity`` says what it means for the verdict:

* ``blocking``: downtime or data loss (a pod that finds no place, a PDB that stops the drain,
  a node stopped with pods on it, a lost bare pod...): the group's ``ok`` is False;
* ``warning``: a risk or a slowdown that the user should read (``--strict`` fails on it);
* ``info``: context.

The platform's reaction to a drain (Yandex vs Selectel) is
:class:`~ngupgrade.core.platform.DrainRules`, a parameter of the check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["blocking", "warning", "info"]

PDB_BLOCKS_EVICTION = "pdb-blocks-eviction"
PDB_SLOWS_WAVE = "pdb-slows-wave"
PDB_OVERLAP = "pdb-overlap"
PDB_NOT_SYNCED = "pdb-not-synced"
PODS_DO_NOT_FIT = "pods-do-not-fit"
FORCED_STOP = "forced-stop"
GRACE_OVER_TIMEOUT = "grace-period-over-drain-timeout"
BARE_POD_LOST = "bare-pod-lost"
EMPTYDIR_DATA_LOST = "emptydir-data-lost"
LOCAL_VOLUME_PINNED = "local-volume-pinned"
SINGLE_REPLICA_DISRUPTED = "single-replica-disrupted"
YTSAURUS_BELOW_MIN_READY = "ytsaurus-below-min-ready"
WHOLE_GROUP_UNAVAILABLE = "whole-group-unavailable"
CONSTRAINT_NOT_MODELLED = "constraint-not-modelled"
UPGRADE_STOPS = "upgrade-stops"
GROUP_SIZE_MISMATCH = "group-size-mismatch"
GROUP_REMOVED = "group-removed"
NO_PODS_ON_NODES = "no-pods-on-nodes"

CODES = (
    PDB_BLOCKS_EVICTION, PDB_SLOWS_WAVE, PDB_OVERLAP, PDB_NOT_SYNCED, PODS_DO_NOT_FIT,
    FORCED_STOP, GRACE_OVER_TIMEOUT, BARE_POD_LOST, EMPTYDIR_DATA_LOST, LOCAL_VOLUME_PINNED,
    SINGLE_REPLICA_DISRUPTED, YTSAURUS_BELOW_MIN_READY, WHOLE_GROUP_UNAVAILABLE,
    CONSTRAINT_NOT_MODELLED, UPGRADE_STOPS, GROUP_SIZE_MISMATCH, GROUP_REMOVED,
    NO_PODS_ON_NODES,
)
"""Every code the drain check emits (stable: JSON consumers and ``--accept`` match on them)."""

ORDER_INDEPENDENT = frozenset({
    PDB_OVERLAP, PDB_NOT_SYNCED, GRACE_OVER_TIMEOUT, BARE_POD_LOST, EMPTYDIR_DATA_LOST,
    LOCAL_VOLUME_PINNED, WHOLE_GROUP_UNAVAILABLE, CONSTRAINT_NOT_MODELLED,
    GROUP_SIZE_MISMATCH, GROUP_REMOVED, NO_PODS_ON_NODES,
})
"""Codes that hold in every order by construction: every node of the group drains in some
wave, so a pod's own properties (no controller, emptyDir, grace period, a second PDB) show
whatever the order; whole-group-unavailable depends on the wave sizes only.
``single-replica-disrupted`` is not one: where the upgrade stops (Selectel) the pod may not
go down in every order; its ``every_order`` comes from the runs (``check._single_replica``)."""

DRAIN_DEPENDENT = frozenset({
    PDB_OVERLAP, GRACE_OVER_TIMEOUT, BARE_POD_LOST, EMPTYDIR_DATA_LOST, LOCAL_VOLUME_PINNED,
    CONSTRAINT_NOT_MODELLED,
})
"""The :data:`ORDER_INDEPENDENT` codes that hold only because every node drains: a pod's own
property shows when its node drains. Where an upgrade stops at a refused eviction (Selectel's
rules: the blocked node stays old and running, later waves never run) a node drained after
the stop is not drained at all, so these hold in every order only where every order's run
found them (``check._merge``)."""


@dataclass(frozen=True)
class Finding:
    """One finding of the drain check.

    ``wave`` is the 1-based wave (None when not tied to one); ``every_order`` True when it
    happens whichever nodes the platform puts in each wave (False: only in some orders, or
    not proven for all when the orders were sampled, see ``GroupDrainReport.orders``).
    ``pod`` is ``namespace/name``, ``pdb`` ``namespace/name``, ``node`` a Kubernetes node
    name (``surge-N`` for a node the upgrade creates). ``count`` carries the number the
    code is about (disruptions of a single-replica workload, pods of a component down, PDB
    waits), ``component`` a YTsaurus component (``namespace/cluster/httpProxies``),
    ``suggestion`` a fix as text (YAML of a PodDisruptionBudget for YTsaurus); ``subject``
    what the finding is about, stable across orders (see :attr:`key`). ``orders_found`` of
    ``orders_evaluated`` orders showed it (None before the orders are merged,
    ``check._merge``): all of a sample is "in every order evaluated", not proven for every
    order.
    """

    code: str
    severity: Severity
    message: str
    wave: int | None = None
    every_order: bool = True
    pod: str | None = None
    pdb: str | None = None
    node: str | None = None
    count: int | None = None
    component: str | None = None
    suggestion: str | None = None
    subject: str = ""
    orders_found: int | None = None
    orders_evaluated: int | None = None

    @property
    def key(self) -> tuple[str, str]:
        """What makes findings of two orders "the same": the code and its ``subject`` (the
        pod, PDB, workload or YTsaurus component it is about), never the node or the wave,
        which depend on the order."""
        return (self.code, self.subject)


def fails(finding: Finding, *, accepted: frozenset[str] = frozenset(),
          strict: bool = False) -> bool:
    """Whether a finding fails the check (exit 1) unless its code is ``accepted``
    (``--accept CODE``): a blocking finding; a ``constraint-not-modelled`` one, whatever its
    severity, since the check cannot say where that pod lands (never a pass); with
    ``strict`` any warning too."""
    if finding.code in accepted:
        return False
    if finding.severity == "blocking" or finding.code == CONSTRAINT_NOT_MODELLED:
        return True
    return strict and finding.severity == "warning"

