"""Minutes per cycle from a group's own upgrade history, else the documented default. Pure.

A past update or auto-upgrade of the group (``NodeGroupService.ListOperations``: its start,
its end and the nodes it served) took ``cycles.max`` waves of the deploy policy in force
(docs/upgrade-math.md), so one cycle took ``minutes / cycles.max``; the figure is the median
over the operations that finished without error (one slow outlier, a PDB that held a drain for
an hour, must not move it). The API keeps no history of the policy, so the one in force now is
taken for the past ones; the report says so. Dividing by ``cycles.max`` keeps the estimate
honest where it matters: the same policy again is predicted to take as long as it did.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.policy import clamp
from ngupgrade.core.simulate import DEFAULT_MINUTES_PER_CYCLE, cycles

CalibrationSource = Literal["history", "default", "option"]

MIN_UPGRADE_SECONDS = 60.0
"""A finished operation shorter than this replaced no node: a VM takes minutes to be created
and join (:data:`~ngupgrade.core.simulate.DEFAULT_MINUTES_PER_CYCLE`), so a shorter one is a
deploy-policy or label change that ``ListOperations`` lists under the same description."""


@dataclass(frozen=True)
class PastUpgrade:
    """One finished update or auto-upgrade of the group: times in seconds since the epoch,
    ``nodes`` the node count it served, ``policy`` the deploy policy taken to be in force."""

    started_at: float
    finished_at: float
    nodes: int
    policy: DeployPolicy


@dataclass(frozen=True)
class Calibration:
    """Minutes one cycle takes for this group, and where the figure came from: ``history``
    (``operations`` past upgrades, median), ``option`` (``--cycle-minutes``) or ``default``
    (:data:`~ngupgrade.core.simulate.DEFAULT_MINUTES_PER_CYCLE`). ``samples`` are the
    per-operation figures, in the order given."""

    minutes_per_cycle: float
    source: CalibrationSource
    operations: int = 0
    samples: tuple[float, ...] = ()
    note: str = ""


def calibrate(history: Sequence[PastUpgrade], *, override: float | None = None,
              default: float = DEFAULT_MINUTES_PER_CYCLE, note: str = "") -> Calibration:
    """The minutes per cycle of a group (module docstring).

    ``override`` (``--cycle-minutes``) wins; else the median over ``history`` entries that
    served at least one node and lasted :data:`MIN_UPGRADE_SECONDS` or more; else
    ``default``. ``note`` says why
    no history was read (offline, or the API refused), when that is the case.
    """
    if override is not None:
        return Calibration(override, "option", note="--cycle-minutes")
    samples: list[float] = []
    for past in history:
        seconds = past.finished_at - past.started_at
        if past.nodes <= 0 or seconds < MIN_UPGRADE_SECONDS:
            continue
        effective = clamp(past.policy, past.nodes)
        if effective.max_expansion == 0 and effective.max_unavailable == 0:
            continue
        samples.append(seconds / 60 / cycles(past.nodes, effective).max)
    if not samples:
        return Calibration(default, "default", note=note or "no finished upgrade in the "
                                                            "group's history")
    return Calibration(statistics.median(samples), "history", operations=len(samples),
                       samples=tuple(samples))
