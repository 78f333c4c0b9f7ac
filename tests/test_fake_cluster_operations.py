"""The fake cloud runs one operation at a time per cluster and lists each operation where it
belongs (field report C13 (c): the cloud serializes a cluster's operations; docs/cloud.md), and
serves ClusterService.ListNodeGroups; through the real SDK (ngupgrade's gateway)."""

from __future__ import annotations

import pytest

from ngupgrade.core.errors import CloudApiError
from tests._upgrade_helpers import WORKERS_ID, example_cloud

GPU_ID = "cat3ng0gpu000000ijkl"
BATCH_ID = "cat2ng0auto00000efgh"
CLUSTER = "catq0n7i0h9ka1b2c3d4"


def test_the_fake_serializes_a_clusters_operations_and_lists_each_where_it_belongs():
    """C13 (c): one operation at a time per cluster. workers' upgrade is workers' operation
    (its ListOperations), not the cluster's own; ListNodeGroups lists the cluster's groups."""
    with example_cloud() as fake:
        gw = fake.gateway()
        op = gw.update_node_group(WORKERS_ID, version="1.30")
        with pytest.raises(CloudApiError) as refused:
            gw.update_node_group(GPU_ID, version="1.30")
        assert refused.value.code == "FAILED_PRECONDITION"
        assert [o.id for o in gw.list_operations(WORKERS_ID)] == [op.id]
        assert gw.list_operations(GPU_ID) == []
        assert gw.list_cluster_operations(CLUSTER) == []
        assert sorted(g.id for g in gw.list_cluster_node_groups(CLUSTER)) == sorted(
            [WORKERS_ID, GPU_ID, BATCH_ID])
        gw.close()


def test_a_node_group_blocker_is_listed_by_its_group_only():
    """docs/cloud.md: a blocker's `scope` says whose ListOperations shows it."""
    with example_cloud(faults=[{"kind": "operation_in_progress", "operation_id": "op-9",
                                "group": "workers", "seconds": 600}]) as fake:
        gw = fake.gateway()
        assert [o.id for o in gw.list_operations(WORKERS_ID)] == ["op-9"]
        assert gw.list_cluster_operations(CLUSTER) == []
        gw.close()
