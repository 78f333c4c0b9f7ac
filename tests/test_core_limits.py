"""core/quota/limits.py on its own: the rows beside the cloud-wide quotas (a group's and a
cluster's node limits, a zonal quota), a run's length, and when an auto-upgrade window opens
during the run; real figures from fixed and autoscaled groups."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from ngupgrade.core.model import DeployPolicy, MaintenanceWindow, QuotaLimit
from ngupgrade.core.quota import limits
from ngupgrade.core.quota.demand import group_demand
from ngupgrade.testing import node_group

CLOUD = "b1gexamplecloud000001"
GROUP, CLUSTER = limits.GROUP_NODES, limits.CLUSTER_NODES
A = node_group("cataaaaaaaaaaaaaaaaa", name="a", size=4, policy=DeployPolicy(2, 0))
B = node_group("catbbbbbbbbbbbbbbbbb", name="b", size=3, policy=DeployPolicy(1, 0))
IDLE = node_group("catccccccccccccccccc", name="idle", size=5)


def _rows(rows):
    return [(r.name, r.usage, r.demand, r.status) for r in rows]


def test_group_node_limit_is_each_group_s_peak() -> None:
    gd = group_demand(A, CLOUD)
    rows = limits.node_count_verdicts([gd], [A], {GROUP: QuotaLimit(GROUP, 5, 0)})
    # 4 nodes + 2 surge = 6 > 5
    assert _rows(rows) == [(f"{GROUP} (group yandex_kubernetes_node_group.a)", 4, 2, "short")]


def test_cluster_node_limit_counts_the_groups_not_upgraded_at_their_size() -> None:
    a, b = group_demand(A, CLOUD), group_demand(B, CLOUD)
    lim = {CLUSTER: QuotaLimit(CLUSTER, 15, 0)}
    together = limits.node_count_verdicts([a, b], [A, B, IDLE], lim)
    # 4 + 3 + 5 idle = 12 nodes; surges 2 + 1 together = 3 -> 15: fits exactly
    assert _rows(together) == [(f"{CLUSTER} (cluster catq0n7i0h9ka1b2c3d4)", 12, 3, "ok")]
    one_by_one = limits.node_count_verdicts([a, b], [A, B, IDLE], lim, sequential=True)
    assert _rows(one_by_one)[0][2] == 2                  # the largest surge, not the sum
    assert limits.node_count_verdicts([a], [A], {}) == []  # not listed: no row


def test_a_zonal_quota_takes_the_whole_demand_of_a_group_in_that_zone() -> None:
    gpu = replace(node_group(size=2, gpus=1, platform="gpu-standard-v3",
                             policy=DeployPolicy(2, 0)), zones=("ru-central1-d",))
    gd = group_demand(gpu, CLOUD)
    a100 = "compute.instanceA100Gpus.count"
    zonal = {f"{a100}.ru-central1-d": QuotaLimit(f"{a100}.ru-central1-d", 1, 0),
             f"{a100}.ru-central1-a": QuotaLimit(f"{a100}.ru-central1-a", 0, 0)}
    rows = limits.zonal_verdicts([gd], zonal)
    # both surge GPUs may land in ru-central1-d; the group has no node in ru-central1-a
    assert [(r.quota_id, r.demand, r.status) for r in rows] == [
        (f"{a100}.ru-central1-d", 2, "short")]


def test_run_minutes_is_waves_times_minutes_per_cycle() -> None:
    assert limits.run_minutes(group_demand(A, CLOUD), 6.0) == 12.0      # 4 nodes at 2/0: 2
    assert limits.run_minutes(group_demand(B, CLOUD), 10.0) == 30.0     # 3 nodes at 1/0: 3


def test_window_opening_within_the_run_and_outside_it() -> None:
    monday_10 = datetime(2026, 11, 30, 10, 0, tzinfo=timezone.utc)      # a Monday
    weekly = MaintenanceWindow("monday", 11 * 3600, 3 * 3600)           # Mon 11:00, 3 h
    assert limits.window_opening(weekly, monday_10, 90) == datetime(
        2026, 11, 30, 11, 0, tzinfo=timezone.utc)
    assert limits.window_opening(weekly, monday_10, 30) is None
    assert limits.window_opening(weekly, monday_10.replace(hour=12), 5) == monday_10.replace(
        hour=12)                                                         # already open
    daily = MaintenanceWindow(None, 23 * 3600, 3600)
    sunday_2330 = datetime(2026, 12, 6, 23, 30, tzinfo=timezone.utc)
    assert limits.window_opening(daily, sunday_2330, 10) == sunday_2330  # across the week end
