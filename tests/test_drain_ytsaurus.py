"""YTsaurus components under a drain (seed 002 L97-L109)."""

from __future__ import annotations

from dataclasses import replace

from ngupgrade.core.drain.check import check_group
from ngupgrade.core.drain.ytsaurus import max_unavailable
from ngupgrade.core.k8s import ClusterSnapshot, Workload, YtComponent, Ytsaurus
from tests.drain_builders import cluster, find, group, node, plan, pod

HP_LABELS = {"yt_component": "yt-hp"}


def _hp(instances: int = 5, min_ready: int | None = 3) -> YtComponent:
    return YtComponent("httpProxies", "", instances, min_ready, HP_LABELS)


def test_max_unavailable_formula() -> None:
    # Seed 002 L107-L109: max(1, 5 - 3) = 2; the derived vectors of the notes.
    assert max_unavailable(_hp(5, 3)) == 2
    assert max_unavailable(_hp(5, None)) == 1   # unset: one pod at a time (L97)
    assert max_unavailable(_hp(5, 5)) == 1
    assert max_unavailable(_hp(5, 6)) == 1
    assert max_unavailable(_hp(3, 0)) == 3


def _snapshot(per_node: dict[str, int]) -> ClusterSnapshot:
    pods = [replace(pod(f"hp-{name}-{i}", name, ns="yt", app="hp", owner=("StatefulSet", "hp")),
                    labels={"app": "hp", **HP_LABELS})
            for name, count in per_node.items() for i in range(count)]
    return cluster([node(n) for n in per_node], pods,
                   workloads=(Workload("StatefulSet", "yt", "hp", replicas=5),),
                   ytsaurus=(Ytsaurus("yt", "yt", (_hp(),)),))


def test_five_proxies_min_ready_three_two_at_once_is_fine() -> None:
    # One proxy on each of 5 nodes; 2/0 drains 2 nodes per cycle and the evicted proxies go
    # to the 2 new empty nodes: at most 2 down at once = max(1, 5 - 3): allowed.
    g = group(policy=(2, 0))
    report = check_group(g, plan(g, 5), _snapshot({f"n{i}": 1 for i in range(1, 6)}))
    assert find(report.findings, "ytsaurus-below-min-ready") == []


def test_a_wave_with_three_proxies_is_a_finding_in_some_orders() -> None:
    # n1 holds 2 proxies, n2..n4 one each, n5 none; 2/0 drains 2 nodes per cycle. A cycle
    # draining n1 with any of n2..n4 takes 3 proxies down: 2 ready < minReadyInstanceCount 3.
    # Orders pairing n1 with n5, or draining n1 alone last, do not: not in every order.
    g = group(policy=(2, 0))
    report = check_group(g, plan(g, 5), _snapshot({"n1": 2, "n2": 1, "n3": 1, "n4": 1,
                                                   "n5": 0}))
    found = find(report.findings, "ytsaurus-below-min-ready")
    assert len(found) == 1
    f = found[0]
    assert (f.count, f.severity, f.every_order, f.component) == (3, "blocking", False,
                                                                 "yt/yt/httpProxies")
    assert "3 of 5 pods down at once" in f.message and "2 ready" in f.message
    assert f.suggestion == (
        "apiVersion: policy/v1\n"
        "kind: PodDisruptionBudget\n"
        "metadata:\n"
        "  name: yt-http-proxies\n"
        "  namespace: yt\n"
        "spec:\n"
        "  maxUnavailable: 2\n"
        "  selector:\n"
        "    matchLabels:\n"
        "      yt_component: yt-hp\n"
    )


def test_proxies_moved_onto_old_nodes_go_down_again_with_them() -> None:
    # 0/2, one proxy per node. Wave 1's 2 proxies move onto 2 distinct old nodes (the
    # scheduler spreads), so the 3 old nodes hold 2, 2 and 1 proxies: any 2 of them drained
    # in wave 2 take 3 or 4 down (every order); the order whose wave 2 is exactly the 2 that
    # received them takes 4 (1 ready): seed 001 L180's re-eviction meets seed 002's minimum.
    g = group(policy=(0, 2))
    report = check_group(g, plan(g, 5), _snapshot({f"n{i}": 1 for i in range(1, 6)}))
    found = find(report.findings, "ytsaurus-below-min-ready")
    assert [(f.count, f.wave, f.every_order) for f in found] == [(4, 2, True)]
    assert "1 ready" in found[0].message
