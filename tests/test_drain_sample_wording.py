"""A finding found in every order of a sample says so: "in every order evaluated (a sample of
N)", not "some orders"; JSON keeps ``every_order`` (False: not proven for every order) and adds
``orders_found`` / ``orders_evaluated``. The failure line names a group once, then its codes."""

from __future__ import annotations

from drain_builders import cluster, deployment, group, node, plan, pod

from ngupgrade.app.drain_check import DrainCheckResult
from ngupgrade.cli.render.drain import drain_json, group_drain_text
from ngupgrade.core.drain.check import check_group, check_groups

NODES = [f"workers-{i:04d}" for i in range(50)]


def _full_fifty():  # type: ignore[no-untyped-def]
    # 50 full nodes (3800 m of 4000 m each) at 0/10: no evicted pod fits anywhere.
    g = group(size=50, policy=(0, 10))
    pods = [pod(f"db-{i:04d}", name, cpu=3800, app="db", owner=("ReplicaSet", "db-rs"))
            for i, name in enumerate(NODES)]
    snap = cluster([node(n) for n in NODES], pods, workloads=deployment("db", 50))
    return g, plan(g, 50, policy=(0, 10)), snap


def test_a_finding_of_every_sampled_order_says_so() -> None:
    g, p, snap = _full_fifty()
    report = check_group(g, p, snap)
    assert not report.exhaustive
    n = report.orders
    unfit = [f for f in report.findings if f.code == "pods-do-not-fit"]
    assert unfit and all(f.orders_found == n and f.orders_evaluated == n for f in unfit)
    text = group_drain_text(report, verbose=True)
    assert f"in every order evaluated (a sample of {n})" in text
    assert "some orders" not in text
    doc = drain_json(check_groups([(g, p)], snap))
    first = next(f for f in doc["groups"][0]["findings"] if f["code"] == "pods-do-not-fit")
    assert first["every_order"] is False
    assert (first["orders_found"], first["orders_evaluated"]) == (n, n)


def test_the_failure_line_names_the_group_once() -> None:
    g, p, snap = _full_fifty()
    result = DrainCheckResult(check_groups([(g, p)], snap), (), frozenset(), False)
    # the worst order leaves each wave's first pod (of the merged orders' subjects) unplaced
    assert result.failure_summary() == (
        "drain check failed: yandex_kubernetes_node_group.workers: "
        + ", ".join(f"pods-do-not-fit (default/db-00{i}0)" for i in range(5)))
