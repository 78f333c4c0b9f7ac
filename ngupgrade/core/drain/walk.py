"""One run of the upgrade's waves over one order of the group's nodes. Pure.

Each wave (the Selectel strategy page, "Вытеснение подов при обновлении"; docs/drain.md):
the wave's nodes are cordoned; pods left Pending by earlier waves try again; the pods of the
drained nodes are evicted under the eviction API (:mod:`eviction`) with one budget per PDB
shared by the whole wave (a second eviction waits until a replacement is Ready; a replacement
that fits nowhere never brings the budget back: cluster-autoscaler's ``RemainingPdbTracker``);
every evicted pod of a controller needs a node (:mod:`fit`); then the nodes come back updated in
place or are deleted, as the timeline says. What cannot be evicted meets the platform's
reaction (:class:`DrainRules`): Yandex stops the node at the drain timeout and the pods go
down with it; Selectel stops the upgrade.
"""

from __future__ import annotations

from collections import defaultdict

from ngupgrade.core.drain.drain_model import SURGE_PREFIX, DrainModel
from ngupgrade.core.drain.eviction import eviction_gate
from ngupgrade.core.drain.facts import Unit
from ngupgrade.core.drain.findings import (
    BARE_POD_LOST,
    CONSTRAINT_NOT_MODELLED,
    FORCED_STOP,
    PDB_NOT_SYNCED,
    PDB_OVERLAP,
    UPGRADE_STOPS,
    Finding,
)
from ngupgrade.core.drain.reactions import blocks, losses, slows, whole_group
from ngupgrade.core.drain.run import OrderResult, Walk, WaveSummary
from ngupgrade.core.drain.unplaced import Unplaced, unplaced_findings
from ngupgrade.core.drain.waves import WaveShape
from ngupgrade.core.drain.ytsaurus import below_min_ready
from ngupgrade.core.k8s import PodDisruptionBudget
from ngupgrade.core.platform import DrainRules

__all__ = ["OrderResult", "WaveSummary", "walk"]


def walk(model: DrainModel, shapes: tuple[WaveShape, ...],
         assignment: tuple[tuple[str, ...], ...], rules: DrainRules) -> OrderResult:
    """Run every wave of ``shapes`` with the nodes of ``assignment`` (one tuple per wave)."""
    w = Walk(model, rules)
    placer = w.placer
    for shape, nodes in zip(shapes, assignment, strict=False):
        new = [f"{SURGE_PREFIX}{w.surge_made + i + 1}" for i in range(shape.created)]
        w.surge_made += shape.created
        if shape.surge_ready:
            placer.open_nodes(new)
        placer.close(nodes)
        w.retry_pending(shape.number, "start")
        surge_open = placer.open_surge
        if not placer.open_mine:  # no group node and no surge node takes pods
            w.result.findings.append(whole_group(model.group.id, shape.number, nodes))
        steps = [nodes] if rules.nodes_at_once == "wave" else [(n,) for n in nodes]
        evicted = waits = held = 0
        in_place = nodes[:shape.in_place]
        for step in steps:
            e, q, b = _drain(w, shape, step, in_place)
            evicted += e
            waits += q
            held += b
            if w.result.stopped_at is not None:
                break
        wave_unplaced = tuple(sorted(u.facts.origin for u, since in w.pending
                                     if since == shape.number and not u.facts.local))
        if not shape.surge_ready and new:
            placer.open_nodes(new)
            w.retry_pending(shape.number, "surge")
        w.result.waves.append(WaveSummary(
            shape.number, nodes, surge_open, evicted, wave_unplaced, waits,
            tuple(in_place), tuple(n for n in nodes if n not in in_place), held))
        if w.result.stopped_at is not None:
            break
        back: set[int] = set()  # local pods started again on their node
        for name in nodes:
            _finish_node(w, name, name in in_place, back)
        gone = set(nodes) - set(in_place)
        if w.pending and (back or gone):  # one pass over the Pending pods, not one per node
            w.pending = [(u, s) for u, s in w.pending if id(u) not in back and not (
                u.facts.local and u.pod.node_name in gone)]
        placer.open_nodes(in_place)
        w.retry_pending(shape.number, "return")
    w.result.findings.extend(unplaced_findings(w.unplaced, final=w.pending))
    return w.result


def _finish_node(w: Walk, name: str, in_place: bool, back: set[int]) -> None:
    """After the drain: a node updated in place comes back with what stays on it (and a pod
    pinned by a local volume starts again: its unit's id joins ``back``, the Pending pods
    the caller drops); a deleted node is gone with its pods (the caller drops its local
    Pending pods)."""
    stay = [u for u in w.units[name] if u.facts.stays or u.facts.local]
    if in_place:
        used: dict[str, int] = {}
        for unit in stay:  # sum_requests: terminal pods hold no room
            if unit.pod.phase not in ("Succeeded", "Failed"):
                for key, amount in unit.facts.request.items():
                    used[key] = used.get(key, 0) + amount
        w.placer.reset(name, used)
        for unit in stay:
            if unit.facts.local and not unit.facts.stays:  # starts again on its node
                back.add(id(unit))
                unit.pod = unit.facts.running()
                unit.healthy = True
                if unit.facts.pdb_ref is not None:
                    w.healthy[unit.facts.pdb_ref] = w.healthy.get(unit.facts.pdb_ref, 0) + 1
        w.units[name] = stay
    else:
        w.units[name] = []


def _drain(w: Walk, shape: WaveShape, step: tuple[str, ...], in_place: tuple[str, ...]
           ) -> tuple[int, int, int]:
    """Evict the pods of ``step``'s nodes; return (pods evicted, PDB waits, pods whose
    eviction was refused: forced down with their node, or left when the upgrade stops)."""
    wave = shape.number
    leaving = _leaving(w, wave, step)
    free, queues, blocked = _gated(w, wave, leaving, in_place)
    evicted, waits, waited = _evict(w, wave, free, queues, blocked)
    if blocked:
        _blocked(w, blocked, wave)
    stopped = w.result.stopped_at is not None
    held = {id(u) for u, _n, _p in blocked} if stopped else set()
    _ytsaurus(w, [u for u, _n in leaving if id(u) not in held and id(u) not in waited], wave,
              step)
    return evicted, waits, len(blocked)


def _leaving(w: Walk, wave: int, step: tuple[str, ...]) -> list[tuple[Unit, str]]:
    """The pods of ``step``'s nodes the drain evicts, with their nodes; a pod with no
    controller is lost (``bare-pod-lost``), a finished or terminating one is not evicted."""
    leaving: list[tuple[Unit, str]] = []
    for name in step:
        keep = []
        for unit in w.units[name]:
            pod = unit.pod
            if unit.facts.stays:
                keep.append(unit)
            elif pod.phase in ("Succeeded", "Failed") or pod.terminating:
                # a terminating pod (metadata.deletionTimestamp) is on its way out already:
                # the drain does not evict it again, and its controller counts only the pods
                # not terminating, so its replacement is another pod of the snapshot
                # (ReplicaSet controller, FilterActivePods): it needs no room of its own
                continue
            elif pod.owner is None:
                w.once(Finding(BARE_POD_LOST, "blocking",
                               f"pod {pod.ref} has no controller: the drain deletes it and "
                               "nothing recreates it", wave=wave,
                               pod=pod.ref, node=name, subject=unit.facts.origin))
            else:
                leaving.append((unit, name))
                keep.append(unit)
        w.units[name] = keep
    return leaving


def _gated(w: Walk, wave: int, leaving: list[tuple[Unit, str]], in_place: tuple[str, ...]
           ) -> tuple[list[tuple[Unit, str]], dict[str, list[tuple[Unit, str]]],
                      list[tuple[Unit, str, PodDisruptionBudget]]]:
    """What the eviction API answers each leaving pod: free to go, queued behind its PDB
    (by PDB), or refused (several PDBs); with what each eviction loses on the way."""
    rules = w.rules
    free: list[tuple[Unit, str]] = []
    queues: dict[str, list[tuple[Unit, str]]] = defaultdict(list)
    blocked: list[tuple[Unit, str, PodDisruptionBudget]] = []
    # losses() only has something to say about these (checked here: most pods have none)
    timeout = rules.drain_timeout_seconds
    grace_limit = timeout if rules.on_blocked_eviction == "force-stop" else None
    for unit, name in leaving:
        facts = unit.facts
        if (facts.emptydir or facts.local or (
                grace_limit is not None and unit.pod.termination_grace_seconds > grace_limit)):
            for finding in losses(unit.pod, subject=facts.origin, local=facts.local, node=name,
                                  wave=wave, in_place=name in in_place, rules=rules):
                w.once(finding)
        pdb, spec = facts.pdb, facts.spec
        gate = facts.gate if unit.healthy else eviction_gate(
            unit.pod, facts.pdbs, w.healthy.get(facts.pdb_ref, 0) if facts.pdb_ref else 0, spec)
        if gate == "overlap":
            pdbs = facts.pdbs
            w.once(Finding(PDB_OVERLAP, "blocking",
                           f"pod {unit.pod.ref} is selected by "
                           f"{', '.join(p.ref for p in pdbs)}: the eviction API refuses "
                           "it (500, not retried)", wave=wave, pod=unit.pod.ref,
                           pdb=pdbs[0].ref, node=name, subject=facts.origin))
            blocked.append((unit, name, pdbs[0]))
        elif gate == "free" or pdb is None or spec is None:
            free.append((unit, name))
        else:
            if gate == "not-synced":
                w.once(Finding(PDB_NOT_SYNCED, "warning",
                               f"PDB {pdb.ref}: status.observedGeneration "
                               f"{pdb.observed_generation} is behind generation "
                               f"{pdb.generation}: evictions answer 429 until the disruption "
                               "controller catches up", wave=wave, pdb=pdb.ref,
                               subject=pdb.ref))
            queues[facts.pdb_ref or ""].append((unit, name))
    return free, queues, blocked


def _evict(w: Walk, wave: int, free: list[tuple[Unit, str]],
           queues: dict[str, list[tuple[Unit, str]]],
           blocked: list[tuple[Unit, str, PodDisruptionBudget]]) -> tuple[int, int, set[int]]:
    """Evict the free pods and as many queued ones as each PDB allows at once, place them,
    then the rest one by one as replacements become Ready; those a PDB still refuses join
    ``blocked``. Returns (pods evicted, PDB waits, ids of the units that waited)."""
    rules = w.rules
    evicted = 0
    out = []
    for unit, name in free:
        _leave(w, unit)
        out.append((unit, name))
    for pdb_ref, queue in queues.items():
        spec = w.model.index.specs[pdb_ref]
        assert spec is not None
        first = spec.allowed(w.healthy.get(pdb_ref, 0))
        for unit, name in queue[:first]:
            _leave(w, unit)
            out.append((unit, name))
        queues[pdb_ref] = queue[first:]
    evicted += len(out)
    _place_wave(w, out, wave)
    waits, waited = 0, set[int]()  # waited: left one by one as a replacement became Ready
    for pdb_ref, queue in queues.items():
        if not queue:  # all went at once (the common case): nothing waits, nothing to say
            continue
        spec = w.model.index.specs[pdb_ref]
        assert spec is not None
        done = 0
        for unit, name in queue:
            if spec.allowed(w.healthy.get(pdb_ref, 0)) <= 0:
                break
            _leave(w, unit)
            done += 1
            _place_wave(w, [(unit, name)], wave)
        waits += done
        waited.update(id(u) for u, _n in queue[:done])
        evicted += done
        pdb = queue[0][0].facts.pdb if queue else None
        if done and pdb is not None:
            w.result.findings.append(slows(pdb, done, wave, queue[0][1], rules))
        for unit, name in queue[done:]:
            blocked.append((unit, name, unit.facts.pdbs[0]))
        if queue[done:] and pdb is not None:
            w.result.findings.append(blocks(pdb, [(u.pod, n) for u, n in queue[done:]], wave,
                                            w.healthy.get(pdb.ref, 0), spec, rules))
    return evicted, waits, waited


def _ytsaurus(w: Walk, gone: list[Unit], wave: int, step: tuple[str, ...]) -> None:
    """Pods of one YTsaurus component down at once: those leaving together now (not those
    a covering PDB made wait, which leave one by one as a replacement becomes Ready), those
    still Pending from earlier waves, those not Ready elsewhere (YTsaurus docs, "Стратегии
    обновления YTsaurus"); the PDBs that cover the leaving pods go to the finding."""
    counts: dict[str, int] = defaultdict(int)
    targets = {}
    covers: dict[str, set[str]] = defaultdict(set)
    for unit in gone:
        target = unit.facts.yt
        if target is not None:
            counts[target.ref] += 1
            targets[target.ref] = target
            covers[target.ref].update(p.ref for p in unit.facts.pdbs)
    if not counts:
        return
    roomless: set[str] = set()  # a pod of it left in this wave and found no place
    for unit, since in w.pending:
        target = unit.facts.yt
        if target is not None and target.ref in counts:
            if since < wave:
                counts[target.ref] += 1
            elif since == wave:
                roomless.add(target.ref)
    for ref, count in sorted(counts.items()):
        finding = below_min_ready(targets[ref], count + w.model.unhealthy_yt(ref),
                                  wave=wave, node=step[0] if step else None,
                                  pdbs=tuple(sorted(covers[ref])), roomless=ref in roomless)
        if finding is not None:
            w.result.findings.append(finding)


def _leave(w: Walk, unit: Unit) -> None:
    """``unit`` goes down (evicted, or stopped with its node)."""
    facts = unit.facts
    ref = facts.pdb_ref
    if ref is not None and unit.healthy:
        w.healthy[ref] = w.healthy.get(ref, 0) - 1
    if facts.single:
        downs = w.result.downs
        downs[facts.origin] = downs.get(facts.origin, 0) + 1


def _place_wave(w: Walk, evicted: list[tuple[Unit, str]], wave: int) -> None:
    # The evicted units leave their nodes' lists in one pass per node (not one per unit);
    # a unit on a local volume is put back at the end, as it waits for its node.
    gone = {id(u) for u, _n in evicted}
    for name in {n: None for _u, n in evicted}:
        w.units[name] = [u for u in w.units[name] if id(u) not in gone]
    movable = []
    for unit, name in evicted:
        if unit.facts.local:
            w.units[name].append(unit)  # waits for its node; not placed elsewhere
            w.pending.append((unit, wave))
            continue
        movable.append((unit, name))
        if unit.pod.constraints:
            w.once(Finding(CONSTRAINT_NOT_MODELLED, "warning",
                           f"pod {unit.pod.ref} has {', '.join(unit.pod.constraints)}: the "
                           "check does not model it, so where it lands is not known "
                           "(not a pass)", wave=wave, pod=unit.pod.ref, node=name,
                           subject=unit.facts.origin))
    left = w.place_all([u for u, _n in movable])
    if left:
        where = {id(u): n for u, n in movable}
        for unit in left:
            w.pending.append((unit, wave))
            w.record_unplaced(Unplaced.of(w.placer, unit, wave, where[id(unit)]))


def _blocked(w: Walk, blocked: list[tuple[Unit, str, PodDisruptionBudget]], wave: int) -> None:
    """Pods the eviction API refuses: stopped with their node (Yandex) or the end of the
    upgrade (Selectel)."""
    by_node: dict[str, list[Unit]] = defaultdict(list)
    for unit, node, _pdb in blocked:
        by_node[node].append(unit)
    if w.rules.on_blocked_eviction == "stop-upgrade":
        nodes = ", ".join(sorted(by_node))
        w.result.findings.append(Finding(
            UPGRADE_STOPS, "blocking",
            f"wave {wave}: pods on {nodes} cannot be evicted: the upgrade stops with the "
            "cluster in ERROR; nodes updated so far stay new, these stay old and running; "
            "later waves do not run", wave=wave, node=sorted(by_node)[0],
            pod=blocked[0][0].pod.ref, pdb=blocked[0][2].ref, subject="upgrade"))
        w.result.stopped_at = wave
        w.result.held.update(u.facts.origin for u, _n, _p in blocked if u.facts.single)
        return
    down = []
    for node, units in sorted(by_node.items()):
        refs = ", ".join(u.pod.ref for u in units[:3]) + (" ..." if len(units) > 3 else "")
        w.result.findings.append(Finding(
            FORCED_STOP, "blocking",
            f"node {node} is stopped after {w.rules.drain_timeout_seconds} s of draining "
            f"with {len(units)} pod(s) left ({refs}): they go down without their PDB's "
            "protection (Yandex node-drain docs)", wave=wave, node=node,
            pod=units[0].pod.ref, pdb=units[0].facts.pdb_ref,
            count=len(units), subject=units[0].facts.pdb_ref or units[0].facts.origin))
        for unit in units:
            _leave(w, unit)
            down.append((unit, node))
    _place_wave(w, down, wave)


