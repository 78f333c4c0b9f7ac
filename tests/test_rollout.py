"""The pure rollout tracker and the watchdog's diagnosis (issue 13), numbers worked by hand."""

from __future__ import annotations

from ngupgrade.core.rollout import NodeView, RolloutTracker
from ngupgrade.core.stall import (
    Draining,
    HeldPod,
    PendingPod,
    StallFacts,
    clock_text,
    diagnose,
)

EPOCH = 1_800_000_000  # 2027-01-15 08:00:00 UTC


def view(iid: str, *, ready: bool = True, cordoned: bool = False, status: str = "READY",
         volumes: tuple[str, ...] = ()) -> NodeView:
    return NodeView(iid, status, ready, cordoned, f"n-{iid}", volumes)


def test_done_counts_old_nodes_gone_or_back_ready_never_new_ones() -> None:
    t = RolloutTracker.start(["a", "b", "c"], group_size=3, max_unavailable=0)
    t.observe([view("a"), view("b"), view("c"), view("x")], 0)        # surge node x
    assert t.done == 0
    t.observe([view("a", cordoned=True), view("b"), view("c"), view("x")], 60)
    changes = t.observe([view("b"), view("c"), view("x")], 120)       # a drained, deleted
    assert [(c.kind, c.node, c.seconds) for c in changes] == [("drain_finished", "n-a", 60)]
    assert t.done == 1
    t.observe([view("b"), view("c")], 180)                             # x removed (C19)
    assert [(c.node, c.new) for c in t.removed] == [("n-x", True)]
    assert t.done == 1                                                 # 1/3, never more
    # b updated in place but not Ready: not done until Ready
    t.observe([view("b", cordoned=True), view("c")], 240)
    t.observe([view("b", ready=False), view("c")], 300)
    assert t.done == 1 and t.not_ready(300) == [("n-b", 0)]
    t.observe([view("b"), view("c")], 360)
    assert t.done == 2 and t.total == 3


def test_a_drain_past_7_minutes_is_forced() -> None:
    t = RolloutTracker.start(["a", "b"], group_size=2, max_unavailable=1)
    t.observe([view("a", cordoned=True), view("b")], 100)
    assert not t.below_floor()                                         # 1 Ready >= 2 - 1
    changes = t.observe([view("b")], 600)                              # 500 s > 420 s
    assert [(c.kind, c.seconds) for c in changes] == [("drain_forced", 500)]


def test_a_node_gone_with_pods_left_a_poll_before_the_timeout_is_forced() -> None:
    # The cordon happened up to a poll before it was seen: a node that vanishes 377 s after
    # the first sight of its cordon, still holding a pod at the last look, was stopped at
    # the 420 s timeout (377 >= 420 - 60); with no pod left it simply finished.
    for left, kind in ((1, "drain_forced"), (0, "drain_finished")):
        t = RolloutTracker.start(["a", "b"], group_size=2, max_unavailable=1)
        t.observe([view("a", cordoned=True), view("b")], 100)
        t.pods_left = {"n-a": left}
        assert [(c.kind, c.seconds) for c in t.observe([view("b")], 477)] == [(kind, 377)]
    t = RolloutTracker.start(["a", "b"], group_size=2, max_unavailable=1)
    t.observe([view("a", cordoned=True), view("b")], 100)
    t.pods_left = {"n-a": 1}                                           # 350 < 360: not yet
    assert [c.kind for c in t.observe([view("b")], 450)] == ["drain_finished"]


def test_below_floor_and_stopped_volumes() -> None:
    t = RolloutTracker.start(["a", "b", "c"], group_size=3, max_unavailable=1)
    t.observe([view("a", cordoned=True, status="STOPPED", ready=False, volumes=("v1",)),
               view("b", cordoned=True), view("c")], 10)
    assert t.ready_schedulable() == 1 and t.floor == 2 and t.below_floor()
    assert t.stopped_with_volumes() == [("n-a", ("v1",))]


def test_clock_text_is_utc_hours_and_minutes() -> None:
    assert clock_text(EPOCH) == "08:00 UTC"
    assert clock_text(EPOCH + 100 + 420) == "08:08 UTC"                 # 08:08:40


def test_pdb_blocked_names_pod_pdb_node_and_the_forced_stop() -> None:
    """Drain of n1 started at t=100 (08:01:40): Yandex stops it at 08:08:40; at t=300 that
    is 3m40s away."""
    facts = StallFacts(now=300, draining=(Draining("n1", 100, EPOCH + 100),),
                       kube=True, held=(HeldPod("app/api-0", "n1", "app/api",
                                                "disruptionsAllowed 0"),))
    d = diagnose(facts)
    assert d.cause == "pdb-blocked"
    assert d.message == ("blocked by a PodDisruptionBudget: node n1 draining for 3m20s: "
                         "app/api-0 (PDB app/api: disruptionsAllowed 0); forced stop at "
                         "08:08 UTC (in 3m40s)")


def test_each_cause_in_its_order() -> None:
    base = StallFacts(now=1000, unchanged_for=600)
    assert diagnose(base).cause == "nothing-visible"
    assert "no kube access" in diagnose(base).message
    pend = StallFacts(now=1000, kube=True, pending=(PendingPod(
        "app/web-1", "0/3 nodes are available: 3 Insufficient cpu."),))
    assert diagnose(pend).message == ("evicted pods with no place: app/web-1: 0/3 nodes are "
                                      "available: 3 Insufficient cpu.")
    stuck = StallFacts(now=1000, stopped_with_volumes=(("n1", ("v1",)),),
                       not_ready=(("n4", 300.0),))
    assert diagnose(stuck).cause == "detach-stuck"                     # before not-joining
    assert diagnose(StallFacts(now=1000, not_ready=(("n4", 300.0),))).message == \
        "node not joining: n4 not Ready for 5m"
    surge = diagnose(StallFacts(now=1000, unchanged_for=600, surge_missing=True,
                                tight_quota="vpc.externalAddresses.count"))
    assert surge.cause == "surge-not-created" and "vpc.externalAddresses.count" in surge.message
    drain = diagnose(StallFacts(now=1000, draining=(Draining("n1", 100),)))
    assert drain.cause == "drain-stuck"
    assert drain.message.startswith("drain not finishing: n1 cordoned for 15m, forced stop "
                                    "(8m ago)")
