"""The times a resumed wait prints (a node's forced stop at HH:MM) are on the cloud's clock.

A drill (`upgrade --time-scale 60` against `ngupgrade fake-cloud --speed 60`) runs against a
cloud whose clock has its own epoch (EPOCH in ngupgrade/testing/proto.py); the host's wall
clock is not the operation's and must never give the times.
"""

from __future__ import annotations

from ngupgrade.core.rollout import RolloutTracker
from ngupgrade.upgrade.watch import RolloutWatch

CREATED = 1_800_000_000.0 + 14   # op-2 on the fake's clock
HOST = 1_764_000_000.0            # the host's wall clock at the attach, a year earlier


def _watch() -> RolloutWatch:
    return RolloutWatch(RolloutTracker.start(["a", "b", "c"], 3, 1), lambda e: None, "w")


def test_a_drill_resumed_times_follow_created_at_not_the_host() -> None:
    # Before: wall(t) was the host's clock ("02:36 UTC on the virtual clock", the host's
    # time plus the minutes waited), where a fresh run said 08:10.
    watch = _watch()
    watch.anchor(CREATED, 1000.0, wall_now=HOST, since_wall=HOST - 4, scale=60.0)
    assert watch.wall(1000.0) == CREATED + 240          # 4 host seconds at x60
    assert watch.wall(1420.0) == CREATED + 240 + 420    # plus the run's own 7 minutes
    assert watch.clock0 == 760.0                         # elapsed counts from created_at


def test_a_drill_resumed_without_a_journal_start_anchors_at_the_attach() -> None:
    watch = _watch()
    watch.anchor(CREATED, 1000.0, wall_now=HOST)
    assert watch.wall(1060.0) == CREATED + 60


def test_a_real_cloud_resumed_wait_takes_the_age_from_the_wall_clock() -> None:
    watch = _watch()
    watch.anchor(CREATED, 1000.0, wall_now=CREATED + 300, since_wall=CREATED, scale=1.0)
    assert (watch.clock0, watch.wall(1000.0)) == (700.0, CREATED + 300)
