"""A finding that suggests a fix clears once the fix is in the cluster objects.

Today the one finding with a ``suggestion`` is ``ytsaurus-below-min-ready`` (the YTsaurus
operator creates no PodDisruptionBudget; the suggestion is the PDB that holds a drain to the
operator's own limit, ``max(1, instanceCount - minReadyInstanceCount)``, from the operator's
docs). The suggested YAML is read by the dump reader as ``kubectl apply -f`` would take it,
with the status the disruption controller then writes (``observedGeneration`` caught up),
added to the objects, and the check run again: the finding (its code and subject) is gone.
The example dump is terraform/examples/cluster.json (kubectl get -o json); the property test
builds YTsaurus layouts with hypothesis and checks every finding that carries a suggestion."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ngupgrade.adapters.kube import read_dumps
from ngupgrade.adapters.kube.dump import read_dump_bytes
from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.core.drain.check import GroupDrainReport, check_group
from ngupgrade.core.k8s import ClusterSnapshot, Workload, YtComponent, Ytsaurus
from ngupgrade.core.model import NodeGroup
from ngupgrade.core.simulate import GroupPlan, plan_group
from tests.conftest import EXAMPLES
from tests.drain_builders import cluster, group, node, plan, pod


def applied(snapshot: ClusterSnapshot, suggestion: str) -> ClusterSnapshot:
    """``snapshot`` with the suggested PDB as the cluster holds it once applied."""
    read = read_dump_bytes(suggestion.encode(), "suggested.yaml").snapshot
    pdbs = tuple(replace(p, generation=1, observed_generation=1) for p in read.pdbs)
    assert pdbs, suggestion
    return replace(snapshot, pdbs=snapshot.pdbs + pdbs)


def still_there(g: NodeGroup, p: GroupPlan, snapshot: ClusterSnapshot,
                report: GroupDrainReport) -> list[str]:
    """The suggested findings of ``report`` that the check finds again after each is applied
    (all suggestions at once; one component's findings of several waves suggest the same
    PDB, applied once as ``kubectl apply`` of one name would)."""
    suggested = [f for f in report.findings if f.suggestion]
    fixed = snapshot
    for text in dict.fromkeys(f.suggestion or "" for f in suggested):
        fixed = applied(fixed, text)
    again = check_group(g, p, fixed)
    keys = {f.key for f in again.findings}
    return [f"{f.code} {f.subject}: {f.message}" for f in suggested if f.key in keys]


def test_the_example_s_http_proxies_clear_with_the_suggested_pdb() -> None:
    groups = {g.name: g for g in parse_state((EXAMPLES / "terraform.tfstate").read_bytes(),
                                             "terraform.tfstate").groups}
    g = groups["workers"]
    snapshot = read_dumps([str(EXAMPLES / "cluster.json")]).snapshot
    p = plan_group(g)
    report = check_group(g, p, snapshot)
    (yt,) = [f for f in report.findings if f.suggestion]
    assert (yt.code, yt.subject, yt.wave, yt.count) == (
        "ytsaurus-below-min-ready", "yt/yt/httpProxies", 1, 3)
    assert still_there(g, p, snapshot, report) == []
    again = check_group(g, p, applied(snapshot, yt.suggestion or ""))
    waits = [f for f in again.findings if f.code == "pdb-slows-wave"
             and f.pdb == "yt/yt-http-proxies"]
    assert waits and waits[0].wave == 1      # the drain now waits in wave 1 instead


def test_a_covering_pdb_looser_than_the_operator_keeps_the_finding_and_names_it() -> None:
    # 5 proxies, minReadyInstanceCount 3 (2 at once); a PDB allowing 4 lets the 2/0 wave
    # that holds 3 proxies take all 3: still below, and the message names that PDB.
    g = group(policy=(2, 0))
    snapshot = _snapshot([2, 1, 1, 1, 0], instances=5, min_ready=3)
    loose = applied(snapshot, "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
                    "metadata:\n  name: loose\n  namespace: yt\nspec:\n  maxUnavailable: 4\n"
                    "  selector:\n    matchLabels:\n      yt_component: yt-hp\n")
    report = check_group(g, plan(g, 5), loose)
    (f,) = [f for f in report.findings if f.code == "ytsaurus-below-min-ready"]
    assert f.count == 3
    assert "PDB yt/loose" in f.message and "creates no PodDisruptionBudget" not in f.message


def _snapshot(per_node: list[int], *, instances: int, min_ready: int | None
              ) -> ClusterSnapshot:
    labels = {"yt_component": "yt-hp"}
    names = [f"n{i}" for i in range(1, len(per_node) + 1)]
    pods = [replace(pod(f"hp-{name}-{i}", name, ns="yt", app="hp",
                        owner=("StatefulSet", "hp")), labels={"app": "hp", **labels})
            for name, count in zip(names, per_node, strict=True) for i in range(count)]
    comp = YtComponent("httpProxies", "", instances, min_ready, labels)
    return cluster([node(n) for n in names], pods,
                   workloads=(Workload("StatefulSet", "yt", "hp", replicas=instances),),
                   ytsaurus=(Ytsaurus("yt", "yt", (comp,)),))


@st.composite
def layouts(draw: st.DrawFn) -> tuple[NodeGroup, GroupPlan, ClusterSnapshot]:
    size = draw(st.integers(2, 5))
    per_node = draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
    instances = max(1, sum(per_node))
    min_ready = draw(st.one_of(st.none(), st.integers(0, instances)))
    e = draw(st.integers(0, 3))
    u = draw(st.integers(0 if e else 1, 3))
    g = group(size=size, policy=(e, u))
    return g, plan(g, size), _snapshot(per_node, instances=instances, min_ready=min_ready)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_every_suggested_fix_clears_its_finding(
        case: tuple[NodeGroup, GroupPlan, ClusterSnapshot]) -> None:
    g, p, snapshot = case
    report = check_group(g, p, snapshot)
    assert still_there(g, p, snapshot, report) == []


def test_no_pdb_is_suggested_where_the_evicted_pods_find_no_place() -> None:
    # 2 nodes at 0/2: one wave drains both, the 2 proxies (limit 1) find no node. A PDB would
    # only hold the drain until Yandex stops the nodes: the finding stays and suggests none.
    g = group(size=2, policy=(0, 2))
    report = check_group(g, plan(g, 2), _snapshot([1, 1], instances=2, min_ready=None))
    (f,) = [f for f in report.findings if f.code == "ytsaurus-below-min-ready"]
    assert (f.count, f.suggestion) == (2, None)
    assert "find no place in wave 1 (pods-do-not-fit)" in f.message
