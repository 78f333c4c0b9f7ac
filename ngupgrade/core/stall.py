"""Stall detection (aws/containers-roadmap#1282): has the progress reading changed lately, and what
holds it (:func:`diagnose` names the cause). Pure.

An upgrade whose drain is blocked (a PodDisruptionBudget that allows 0 disruptions: the
Selectel strategy page, "Если PDB не дает вытеснить поды"; Kubernetes "API-initiated Eviction")
keeps its cloud operation running with nothing moving. Both the runbook
(``ngupgrade upgrade``) and ``ngupgrade wait`` feed readings of the group's nodes into one
:class:`StallWatchdog` and stop, without cancelling anything, when it says stalled.
"""

from __future__ import annotations

from dataclasses import dataclass

from ngupgrade.core.units import human_seconds


class StallWatchdog:
    """Says "stalled" when the reading has not changed for ``stall_after`` seconds.

    A reading is any comparable value (e.g. nodes on the new version, group status, node
    count, cordoned nodes). ``stall_after`` 0 switches the watchdog off. Times are seconds
    on the caller's monotonic clock, passed in.
    """

    def __init__(self, stall_after: float, now: float) -> None:
        self.stall_after = stall_after
        self.last_change = now
        self._reading: object = _NOTHING

    def observe(self, reading: object, now: float) -> None:
        """Record a reading; a different one restarts the window."""
        if reading != self._reading:
            self._reading = reading
            self.last_change = now

    def still_for(self, now: float) -> float:
        """Seconds since the reading last changed."""
        return now - self.last_change

    def stalled(self, now: float) -> bool:
        """True when on, and the reading has been the same for ``stall_after`` seconds."""
        return self.stall_after > 0 and self.still_for(now) >= self.stall_after


_NOTHING = object()


# -- the diagnosis: what holds the upgrade, by name ---------------------------------

CAUSES = ("pdb-blocked", "pods-unplaced", "detach-stuck", "node-not-joining",
          "surge-not-created", "drain-stuck", "nothing-visible")
"""The diagnosis's causes, in the order :func:`diagnose` tries them (most specific first)."""


@dataclass(frozen=True)
class HeldPod:
    """A pod still on a draining node (kube access): ``pdb`` is the PodDisruptionBudget that
    refuses its eviction (None: it can go), ``reason`` why (core.drain.eviction's words)."""

    pod: str
    node: str
    pdb: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class PendingPod:
    """An evicted pod that waits for a node: the scheduler's reason (the ``PodScheduled``
    condition's message, e.g. ``0/5 nodes are available: 5 Insufficient cpu``)."""

    pod: str
    reason: str


@dataclass(frozen=True)
class Draining:
    """A node cordoned since ``started`` (caller's clock, seconds), with its wall-clock time
    ``started_wall`` (seconds since the epoch, UTC; None when unknown)."""

    node: str
    started: float
    started_wall: float | None = None


@dataclass(frozen=True)
class StallFacts:
    """What the watchdog knows when it looks (all optional but ``now``).

    ``draining``: cordoned nodes; ``drain_timeout``: seconds before the platform stops a
    draining node (Yandex 420; None: never). ``kube``: pod-level facts were read (``held``,
    ``pending``). ``not_ready``: ``(node, seconds)`` of new or updated nodes not Ready;
    ``stopped_with_volumes``: ``(node, volume handles)``. ``surge_missing``: the plan expects
    a surge node that is not there (the group never grew); ``tight_quota``: the preflight's
    closest quota, as text. ``unchanged_for``: seconds without progress.
    """

    now: float
    unchanged_for: float = 0.0
    draining: tuple[Draining, ...] = ()
    drain_timeout: float | None = 420.0
    kube: bool = False
    held: tuple[HeldPod, ...] = ()
    pending: tuple[PendingPod, ...] = ()
    not_ready: tuple[tuple[str, float], ...] = ()
    stopped_with_volumes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    surge_missing: bool = False
    tight_quota: str | None = None
    virtual_clock: bool = False
    """The times are on a virtual clock (:func:`clock_text`)."""


@dataclass(frozen=True)
class Diagnosis:
    """The watchdog's verdict: ``cause`` (one of :data:`CAUSES`) and a message naming the
    pods, PDBs, nodes, quotas and times it rests on."""

    cause: str
    message: str


def clock_text(epoch_seconds: float, *, virtual: bool = False) -> str:
    """``HH:MM UTC`` of a wall-clock time (seconds since the epoch); arithmetic, no clock.
    ``virtual``: the time is on a virtual clock (the fake cloud's, ``--time-scale``), not the
    wall's: ``HH:MM UTC on the virtual clock``."""
    minutes = int(epoch_seconds // 60)
    text = f"{(minutes // 60) % 24:02d}:{minutes % 60:02d} UTC"
    return f"{text} on the virtual clock" if virtual else text


def forced_stop(drain: Draining, timeout: float | None, now: float, *,
                virtual: bool = False) -> str:
    """When the platform stops this node anyway: ``at HH:MM UTC (in 4m10s)`` (drain start +
    the drain timeout, Yandex docs node-drain: 7 minutes); "" without a timeout; ``virtual``
    as :func:`clock_text` says it."""
    if timeout is None:
        return ""
    left = drain.started + timeout - now
    when = (f" at {clock_text(drain.started_wall + timeout, virtual=virtual)}"
            if drain.started_wall else "")
    rel = f"in {human_seconds(left)}" if left > 0 else f"{human_seconds(-left)} ago"
    return f"forced stop{when} ({rel})"


def diagnose(f: StallFacts) -> Diagnosis:
    """Name what holds the upgrade, most specific first (order of :data:`CAUSES`).

    A PDB that refuses an eviction (the Kubernetes docs, "API-initiated Eviction") beats evicted
    pods without a place (the budget does not come back until they run, Kubernetes docs,
    "API-initiated Eviction" and ``kubectl drain``), which beat the cloud-side causes; a drain seen
    only from the cloud is ``drain-stuck`` (pods not visible without kube access); nothing at all is
    said to be nothing.
    """
    drains = {d.node: d for d in f.draining}
    blocked = [h for h in f.held if h.pdb]
    if blocked:
        parts = []
        for node in dict.fromkeys(h.node for h in blocked):
            names = ", ".join(f"{h.pod} (PDB {h.pdb}{': ' + h.reason if h.reason else ''})"
                              for h in blocked if h.node == node)
            stop = (forced_stop(drains[node], f.drain_timeout, f.now, virtual=f.virtual_clock)
                    if node in drains else "")
            since = (f" draining for {human_seconds(f.now - drains[node].started)}"
                     if node in drains else "")
            parts.append(f"node {node}{since}: {names}" + (f"; {stop}" if stop else ""))
        return Diagnosis("pdb-blocked",
                         "blocked by a PodDisruptionBudget: " + "; ".join(parts))
    if f.pending:
        waiting = "; ".join(f"{p.pod}: {p.reason or 'no reason given'}"
                            for p in f.pending[:5])
        more = f" and {len(f.pending) - 5} more" if len(f.pending) > 5 else ""
        return Diagnosis("pods-unplaced", f"evicted pods with no place: {waiting}{more}")
    if f.stopped_with_volumes:
        parts = [f"{node} ({', '.join(vols)})" for node, vols in f.stopped_with_volumes]
        return Diagnosis("detach-stuck", "volumes still attached to a stopped node: "
                         + "; ".join(parts))
    if f.not_ready:
        parts = [f"{node} not Ready for {human_seconds(s)}" for node, s in f.not_ready]
        return Diagnosis("node-not-joining", "node not joining: " + "; ".join(parts))
    if f.surge_missing:
        quota = (f"quota: the closest at the preflight was {f.tight_quota}" if f.tight_quota
                 else "quota (no preflight numbers)")
        return Diagnosis("surge-not-created",
                         f"surge node not created: the group has not grown for "
                         f"{human_seconds(f.unchanged_for)}; either {quota}, or the zone's "
                         "capacity for this platform; the operation's log in the console says "
                         "which")
    if f.draining:
        parts = []
        for d in f.draining:
            stop = forced_stop(d, f.drain_timeout, f.now, virtual=f.virtual_clock)
            parts.append(f"{d.node} cordoned for {human_seconds(f.now - d.started)}"
                         + (f", {stop}" if stop else ""))
        how = ("no pod holds it" if f.kube
               else "its pods are not visible without kube access (--kubeconfig)")
        return Diagnosis("drain-stuck", "drain not finishing: " + "; ".join(parts)
                         + f"; {how}")
    return Diagnosis("nothing-visible",
                     f"nothing visible holds it: no node cordoned, none not Ready, no volume "
                     f"stuck, the group unchanged for {human_seconds(f.unchanged_for)}"
                     + ("" if f.kube else " (no kube access: pods not checked)"))

