"""The state of one run over one order: the pods followed, the rooms, the results. Pure.

:func:`ngupgrade.core.drain.walk.walk` drives a :class:`Walk`; the values here are what the
report keeps (:class:`WaveSummary`) and what the run carries (:class:`Unit`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ngupgrade.core.drain.drain_model import DrainModel
from ngupgrade.core.drain.facts import Unit
from ngupgrade.core.drain.findings import Finding
from ngupgrade.core.drain.fit import Placer
from ngupgrade.core.drain.unplaced import Unplaced
from ngupgrade.core.platform import DrainRules


@dataclass(frozen=True)
class WaveSummary:
    """One wave as the report shows it: the nodes drained, the surge nodes Ready when the
    drain starts, pods evicted through the eviction API, the pods that found no node during
    the wave (``unplaced``, ``namespace/name``; forced-down pods included), evictions that
    waited for a PDB, which drained nodes come back updated in place or are deleted, and
    ``pods_blocked``: pods whose eviction was refused (a PDB allowing no more, two PDBs), not
    counted as evicted: Yandex's forced stop takes them down with their node, Selectel stops
    the upgrade with them still running."""

    number: int
    nodes: tuple[str, ...]
    surge_ready: int
    pods_evicted: int
    unplaced: tuple[str, ...]
    pdb_waits: int
    in_place: tuple[str, ...]
    deleted: tuple[str, ...]
    pods_blocked: int

    @property
    def pods_unplaced(self) -> int:
        """How many evicted pods found no node during the wave."""
        return len(self.unplaced)


@dataclass
class OrderResult:
    """The waves and findings of one order; ``stopped_at`` the wave where a
    ``stop-upgrade`` platform stops; per pod of a single-replica workload (``namespace/name``)
    how many times it went down (``downs``: evicted, or stopped with its node), and those
    whose eviction was refused and left running when the upgrade stopped (``held``)."""

    waves: list[WaveSummary] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    stopped_at: int | None = None
    downs: dict[str, int] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)

    @property
    def score(self) -> tuple[int, int, int, int]:
        """Worse orders score higher: blocking findings, pods without a place, warnings,
        PDB waits."""
        blocking = sum(1 for f in self.findings if f.severity == "blocking")
        warnings = sum(1 for f in self.findings if f.severity == "warning")
        return (blocking, sum(w.pods_unplaced for w in self.waves), warnings,
                sum(w.pdb_waits for w in self.waves))


class Walk:
    """State of one order's run; :func:`walk` drives it."""

    def __init__(self, model: DrainModel, rules: DrainRules) -> None:
        self.model = model
        self.rules = rules
        self.placer = Placer(model.table)
        self.units: dict[str, list[Unit]] = {
            n: [Unit(f) for f in facts] for n, facts in model.facts_on.items()}
        self.healthy = dict(model.index.healthy)
        self.pending: list[tuple[Unit, int]] = []
        self.unplaced: list[Unplaced] = []
        self.waiting: dict[int, list[Unplaced]] = {}  # by unit id: records not placed yet
        self.result = OrderResult()
        self.seen: set[tuple[str, str]] = set()
        self.surge_made = 0

    def once(self, finding: Finding) -> None:
        """Add a finding about a pod's own properties only the first time it shows."""
        if finding.key not in self.seen:
            self.seen.add(finding.key)
            self.result.findings.append(finding)

    # ---- placing -------------------------------------------------------------------------

    def place(self, unit: Unit) -> str | None:
        facts = unit.facts
        name = self.placer.place(unit.pod, facts.need, facts.key, facts.terms)
        if name is None:
            return None
        unit.pod = facts.running()
        unit.healthy = True
        units = self.units.get(name)
        if units is not None:
            units.append(unit)  # an old node: evicted again when its turn comes
        if facts.pdb_ref is not None:
            self.healthy[facts.pdb_ref] = self.healthy.get(facts.pdb_ref, 0) + 1
        return name

    def place_all(self, units: list[Unit]) -> list[Unit]:
        """Place largest first; return those that found no node."""
        left = []
        for unit in sorted(units, key=_largest_first):
            if self.place(unit) is None:
                left.append(unit)
        return left

    def retry_pending(self, wave: int, how: str) -> None:
        """Try the Pending pods again (nodes were added); ``how`` says which."""
        if not self.pending:
            return
        still = []
        for unit, since in self.pending:
            if unit.facts.local or self.place(unit) is None:
                still.append((unit, since))
                continue
            for rec in self.waiting.pop(id(unit), ()):
                rec.placed_wave, rec.how = wave, how
        self.pending = still

    def record_unplaced(self, rec: Unplaced) -> None:
        """Keep ``rec`` (a pod that found no node) until the end of the run."""
        self.unplaced.append(rec)
        self.waiting.setdefault(rec.unit_id, []).append(rec)


def _largest_first(unit: Unit) -> tuple[int, int, str]:
    cpu, memory = unit.facts.need.amounts[:2]
    return (-cpu, -memory, unit.facts.origin)
