"""The drain check's caches against a straightforward placer, on random small clusters.

``fit.Placer`` keeps what it learnt between two openings of nodes: the classes and requests
that found no node (``_failed``, ``_dead``), per class and request the nodes found without
room (``_maybe``), the reason of the last failure (``shortage``); ``Walk`` keeps the records
of the Pending pods by unit. The reference below keeps nothing: every placement scans every
eligible node from the rotating start (as kube-scheduler's ``numFeasibleNodesToFind``
sample does), every reason reads every open node's free room through ``short_of``, and a
Pending pod placed later is found by scanning every record. Whole reports must be equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from drain_builders import (
    GROUP_ID,
    OTHER_ID,
    TOLERATE_ALL,
    cluster,
    deployment,
    group,
    node,
    pdb,
    plan,
    pod,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ngupgrade.core.drain import run, walk
from ngupgrade.core.drain.check import GroupDrainReport, check_model
from ngupgrade.core.drain.drain_model import DrainModel
from ngupgrade.core.drain.fit import _ORDER, FEASIBLE_NODES_TO_FIND, Need, Placer
from ngupgrade.core.drain.resources import short_of
from ngupgrade.core.k8s import NodeSelectorTerm, Pod, Taint
from ngupgrade.core.platform import SELECTEL_DRAIN_RULES, YANDEX_DRAIN_RULES, DrainRules


class PlainPlacer(Placer):
    """The placer with no cache: scan, score and explain from the room as it is now."""

    def place(self, pod: Pod, need: Need, key: int,
              extra_terms: tuple[NodeSelectorTerm, ...]) -> str | None:
        both, count = self.table.eligible_of(pod, key, extra_terms)
        best, best_score, found = -1, 0.0, 0
        ic, im = self.table.inverse
        for k in range(self._start % count if count else 0,
                       (self._start % count if count else 0) + count):
            i = both[k]
            free = self._free(i)
            if not self.open[i] or short_of(need.request, free):
                continue
            score = ((self.cpu[i] - need.amounts[0]) * ic[i]
                     + (self.memory[i] - need.amounts[1]) * im[i]) / self.table.shares[i]
            if best < 0 or score > best_score:
                best, best_score = i, score
            found += 1
            if found >= FEASIBLE_NODES_TO_FIND:
                break
        if best < 0:
            return None
        self._start += 1
        for k, amount in zip(_ORDER, need.amounts, strict=True):
            column = {"cpu": self.cpu, "memory": self.memory, "ephemeral-storage":
                      self.ephemeral, "pods": self.pods}[k]
            column[best] -= amount
        for k, amount in (need.ext or {}).items():
            room = self.ext.setdefault(best, {})
            room[k] = room.get(k, 0) - amount
        return self.table.names[best]

    def shortage(self, pod: Pod, key: int, extra_terms: tuple[NodeSelectorTerm, ...],
                 need: Need) -> tuple[int, tuple[str, ...]]:
        both, count = self.table.eligible_of(pod, key, extra_terms)
        nodes = [i for i in both[:count] if self.open[i]]
        short: set[str] = set()
        for i in nodes:
            short.update(short_of(need.request, self._free(i)))
        return len(nodes), tuple(sorted(short))

    def _free(self, i: int) -> dict[str, int]:
        """The free room of node ``i`` for the resources it reports, as a dict."""
        room = self.table.rooms[i]
        out = {k: v[i] for k, v in zip(_ORDER, (self.cpu, self.memory, self.ephemeral,
                                                self.pods), strict=True) if k in room.free}
        out.update(self.ext.get(i, {}))
        return out


class PlainWalk(run.Walk):
    """A run with the plain placer, finding the records of a placed Pending pod by scan."""

    def __init__(self, model: DrainModel, rules: DrainRules) -> None:
        super().__init__(model, rules)
        self.placer = PlainPlacer(model.table)

    def retry_pending(self, wave: int, how: str) -> None:
        still = []
        for unit, since in self.pending:
            if unit.facts.local or self.place(unit) is None:
                still.append((unit, since))
                continue
            for rec in self.unplaced:
                if rec.unit_id == id(unit) and rec.placed_wave is None:
                    rec.placed_wave, rec.how = wave, how
        self.pending = still


@contextmanager
def plain_runs() -> Iterator[None]:
    """Runs inside use :class:`PlainWalk`."""
    saved = walk.Walk
    walk.Walk = PlainWalk  # type: ignore[misc]
    try:
        yield
    finally:
        walk.Walk = saved  # type: ignore[misc]


APPS = ("web", "api", "db", "queue")
SSD = {"disk": "ssd"}


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[object, object, DrainRules]:
    """A group of 2-7 nodes (some labelled ssd, some tainted), up to 2 nodes of another
    group, up to 6 pods per node of 4 Deployments (equal requests often: the caches key on
    them), DaemonSet and bare pods, GPUs, PDBs of every kind, a policy and a platform."""
    size = draw(st.integers(2, 7))
    nodes = []
    for i in range(size + draw(st.integers(0, 2))):
        nodes.append(node(
            f"n{i}", group=GROUP_ID if i < size else OTHER_ID, cpu=draw(st.sampled_from(
                (1000, 2000, 4000))), mem=draw(st.sampled_from((2048, 4096))),
            pods=draw(st.sampled_from((3, 6, 110))), gpus=draw(st.sampled_from((0, 0, 1))),
            labels=SSD if draw(st.booleans()) else None,
            taints=(Taint("dedicated", "NoSchedule"),) if draw(st.integers(0, 5)) == 0
            else ()))
    pods = []
    for i, n in enumerate(nodes):
        for j in range(draw(st.integers(0, 6))):
            app = draw(st.sampled_from(APPS))
            kind = draw(st.sampled_from(("rs", "rs", "rs", "rs", "ds", "bare")))
            extra: dict[str, object] = {}
            if draw(st.integers(0, 4)) == 0:
                extra["node_selector"] = SSD
            if draw(st.integers(0, 5)) == 0:
                extra["requests"] = {"nvidia.com/gpu": 1}
            if kind == "ds":
                extra["tolerations"] = TOLERATE_ALL
            pods.append(pod(
                f"p{i}-{j}", n.name, app=app, cpu=draw(st.sampled_from((0, 100, 250, 900))),
                mem=draw(st.sampled_from((0, 128, 1024))), ready=draw(st.integers(0, 7)) > 0,
                owner={"rs": ("ReplicaSet", f"{app}-rs"), "ds": ("DaemonSet", "agent"),
                       "bare": None}[kind], **extra))
    workloads = [w for app in APPS for w in deployment(
        app, sum(1 for p in pods if p.labels["app"] == app) or 1)]
    pdbs = []
    for app in APPS:
        budget = draw(st.sampled_from(("none", "max1", "min1", "half", "zero")))
        if budget != "none":
            pdbs.append(pdb(f"{app}-pdb", app, **{
                "max1": {"max_unavailable": 1}, "min1": {"min_available": 1},
                "half": {"max_unavailable": "50%"}, "zero": {"max_unavailable": 0}}[budget]))
    policy = draw(st.sampled_from(((0, 1), (0, 2), (1, 0), (2, 0), (1, 1), (2, 1), (0, 10))))
    g = group(size=size, policy=policy)
    snapshot = cluster(nodes, pods, workloads=tuple(workloads), pdbs=tuple(pdbs))
    rules = draw(st.sampled_from((YANDEX_DRAIN_RULES, SELECTEL_DRAIN_RULES)))
    return g, snapshot, rules


def both_ways(g: object, snapshot: object, rules: DrainRules
              ) -> tuple[GroupDrainReport, GroupDrainReport]:
    """The report with the real placer and with the plain one (each on its own model)."""
    the_plan = plan(g, g.scale.size)  # type: ignore[attr-defined]
    fast = check_model(DrainModel.build(g, snapshot), the_plan, rules)  # type: ignore[arg-type]
    with plain_runs():
        plain = check_model(DrainModel.build(g, snapshot), the_plan,  # type: ignore[arg-type]
                            rules)
    return fast, plain


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_reports_equal_the_plain_placers(case: tuple[object, object, DrainRules]) -> None:
    fast, plain = both_ways(*case)
    assert fast == plain


def test_the_reference_sees_pods_without_a_place() -> None:
    """The cross-check compares something: 3 nodes of 1000m full with 900m pods at 0/1, so
    each wave's pod finds no node, and both placers say why in the same words."""
    nodes = [node(f"n{i}", cpu=1000) for i in range(3)]
    pods = [pod(f"p{i}", f"n{i}", cpu=900, app="web") for i in range(3)]
    snapshot = cluster(nodes, pods, workloads=deployment("web", 3))
    fast, plain = both_ways(group(size=3, policy=(0, 1)), snapshot, YANDEX_DRAIN_RULES)
    unplaced = [f for f in fast.findings if f.code == "pods-do-not-fit"]
    assert [f.message.split(";")[0] for f in unplaced] == [
        "wave 1: 1 evicted pod(s) of Deployment default/web find no node (2 matching open "
        "node(s), none with room for cpu 900m, memory 128 MiB (short of cpu))",
        "wave 2: 1 evicted pod(s) of Deployment default/web find no node (2 matching open "
        "node(s), none with room for cpu 900m, memory 128 MiB (short of cpu))",
        "wave 3: 1 evicted pod(s) of Deployment default/web find no node (2 matching open "
        "node(s), none with room for cpu 900m, memory 128 MiB (short of cpu))"]
    assert fast == plain


def test_a_reason_follows_the_room_between_two_failures() -> None:
    """Two pods of one request (500m, 1 GiB and a GPU) find no node in one wave with a pod
    placed between them: the first lacks only a GPU; then a PDB's second eviction takes the
    last memory of n1, so the second (forced down: its PDB allows none) lacks both, and its
    workload's finding says so (a reason cached per request is dropped when room changes)."""
    nodes = [node("n0", cpu=4000, gpus=2), node("n1", cpu=4000, mem=2048)]
    gpu = {"requests": {"nvidia.com/gpu": 1}}
    pods = [pod("a1", "n0", cpu=500, mem=1024, app="x", owner=("ReplicaSet", "x-rs"), **gpu),
            pod("w1", "n0", cpu=100, mem=1024, app="web"),
            pod("w2", "n0", cpu=100, mem=1024, app="web"),
            pod("z1", "n0", cpu=500, mem=1024, app="z", owner=("ReplicaSet", "z-rs"), **gpu)]
    snapshot = cluster(nodes, pods, workloads=(*deployment("x", 1), *deployment("web", 2),
                                               *deployment("z", 1)),
                       pdbs=(pdb("web", "web", max_unavailable=1),
                             pdb("z", "z", max_unavailable=0)))
    fast, plain = both_ways(group(size=2, policy=(0, 1)), snapshot, YANDEX_DRAIN_RULES)
    why = {f.subject: f.message.split(" find no node ")[1].split(";")[0]
           for f in fast.findings if f.code == "pods-do-not-fit"}
    room = "1 matching open node(s), none with room for cpu 500m, memory 1024 MiB, "
    assert why == {"Deployment default/x": f"({room}nvidia.com/gpu 1 (short of "
                                           "nvidia.com/gpu))",
                   "Deployment default/z": f"({room}nvidia.com/gpu 1 (short of "
                                           "memory, nvidia.com/gpu))"}
    assert fast == plain


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
