"""The state of one run over one order: the pods followed, the rooms, the results. Pure.

:func:`ngupgrade.core.drain.walk.walk` drives a :class:`Walk`; the values here are what the
report keeps (:class:`WaveSummary`) and what the run carries (:class:`Unit`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ngupgrade.core.drain.findings import DrainRules, Finding
from ngupgrade.core.drain.fit import NodeRoom, Placer, class_key
from ngupgrade.core.drain.group import DrainModel
from ngupgrade.core.drain.resources import pod_request
from ngupgrade.core.drain.unplaced import Unplaced
from ngupgrade.core.k8s import NodeSelectorTerm, Pod, PodDisruptionBudget


@dataclass(eq=False)
class Unit:
    """A pod of the group, followed through the upgrade (its replacements included)."""

    pod: Pod
    request: dict[str, int]
    terms: tuple[NodeSelectorTerm, ...]
    pdbs: tuple[PodDisruptionBudget, ...]
    owner: str | None
    origin: str
    local: bool

    @property
    def stays(self) -> bool:
        """DaemonSet and mirror pods are not evicted (seed 001 L74)."""
        return self.pod.mirror or (self.pod.owner is not None
                                   and self.pod.owner.kind == "DaemonSet")


@dataclass(frozen=True)
class WaveSummary:
    """One wave as the report shows it: the nodes drained, the surge nodes Ready when the
    drain starts, pods evicted (forced stops included), the pods that found no node during
    the wave (``unplaced``, ``namespace/name``), evictions that waited for a PDB, and which
    drained nodes come back updated in place or are deleted."""

    number: int
    nodes: tuple[str, ...]
    surge_ready: int
    pods_evicted: int
    unplaced: tuple[str, ...]
    pdb_waits: int
    in_place: tuple[str, ...]
    deleted: tuple[str, ...]

    @property
    def pods_unplaced(self) -> int:
        """How many evicted pods found no node during the wave."""
        return len(self.unplaced)


@dataclass
class OrderResult:
    """The waves and findings of one order; ``stopped_at`` the wave where a
    ``stop-upgrade`` platform stops."""

    waves: list[WaveSummary] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    stopped_at: int | None = None

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
        rooms = {n: NodeRoom(r.node, r.allocatable, dict(r.free)) for n, r in model.rooms.items()}
        self.placer = Placer(rooms, _eligible=model.eligible)
        self.placer.reopen(model.other_open + tuple(
            n for n in model.group_nodes if not _cordoned(model, n)))
        self.units: dict[str, list[Unit]] = {
            n: [self.unit(p) for p in model.pods_on[n]] for n in model.group_nodes}
        self.healthy = dict(model.index.healthy)
        self.pending: list[tuple[Unit, int]] = []
        self.unplaced: list[Unplaced] = []
        self.result = OrderResult()
        self.seen: set[tuple[str, str]] = set()
        self.surge_made = 0

    def unit(self, pod: Pod) -> Unit:
        idx = self.model.index
        return Unit(pod, pod_request(pod), idx.volume_terms.get(pod.ref, ()),
                    idx.pdbs_of.get(pod.ref, ()), idx.top_owner.get(pod.ref), pod.ref,
                    idx.local_pv.get(pod.ref, False))

    def once(self, finding: Finding) -> None:
        """Add a finding about a pod's own properties only the first time it shows."""
        if finding.key not in self.seen:
            self.seen.add(finding.key)
            self.result.findings.append(finding)

    # ---- placing -------------------------------------------------------------------------

    def place(self, unit: Unit) -> str | None:
        pod = unit.pod
        name = self.placer.place(pod, unit.request, class_key(pod, unit.terms), unit.terms)
        if name is None:
            return None
        unit.pod = replace(pod, node_name=name, phase="Running", ready=True, terminating=False)
        if name in self.units:
            self.units[name].append(unit)  # an old node: evicted again when its turn comes
        for pdb in unit.pdbs[:1]:
            self.healthy[pdb.ref] = self.healthy.get(pdb.ref, 0) + 1
        return name

    def place_all(self, units: list[Unit]) -> list[Unit]:
        """Place largest first; return those that found no node."""
        left = []
        for unit in sorted(units, key=lambda u: (-u.request.get("cpu", 0),
                                                 -u.request.get("memory", 0), u.origin)):
            if self.place(unit) is None:
                left.append(unit)
        return left

    def retry_pending(self, wave: int, how: str) -> None:
        """Try the Pending pods again (nodes were added); ``how`` says which."""
        still = []
        for unit, since in self.pending:
            if unit.local or self.place(unit) is None:
                still.append((unit, since))
                continue
            for rec in self.unplaced:
                if rec.unit_id == id(unit) and rec.placed_wave is None:
                    rec.placed_wave, rec.how = wave, how
        self.pending = still


def _cordoned(model: DrainModel, name: str) -> bool:
    node = model.rooms[name].node
    return node.unschedulable or not node.ready


