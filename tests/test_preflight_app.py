"""The preflight use case against a recording fake gateway: calls per cloud, concurrency, C01."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace

import pytest

from ngupgrade.app.preflight import PreflightRequest, run_preflight
from ngupgrade.core.errors import CloudApiError, PolicyInvalid, QuotaMappingUnknown, UsageError
from ngupgrade.core.model import DeployPolicy, QuotaLimit
from ngupgrade.core.quota.catalog import INSTANCE_CORES, INSTANCE_MEMORY
from tests.quota_builders import group, node


@dataclass
class Cluster:
    folder_id: str


@dataclass
class LiveGroup:
    policy: DeployPolicy | None


@dataclass
class FakeGateway:
    """Records every call; quotas: cloud -> quota id -> (limit, usage)."""

    quotas: dict[str, dict[str, tuple[float | None, float | None]]]
    folders: dict[str, str] = field(default_factory=dict)  # folder -> cloud
    clusters: dict[str, str] = field(default_factory=dict)  # cluster -> folder
    node_counts: dict[str, int] = field(default_factory=dict)
    live_policies: dict[str, DeployPolicy | None] = field(default_factory=dict)
    barrier: threading.Barrier | None = None
    fail_on: str | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _record(self, name: str, arg: str) -> None:
        with self.lock:
            self.calls.append((name, arg))
        if self.fail_on == name:
            raise CloudApiError(f"{name} failed", code="UNAVAILABLE")

    def list_quota_limits(self, cloud_id: str, service: str) -> list[QuotaLimit]:
        self._record("list_quota_limits", f"{cloud_id}/{service}")
        if self.barrier is not None:
            self.barrier.wait(timeout=5)  # breaks unless all calls are in flight together
        return [QuotaLimit(q, lim, use) for q, (lim, use) in self.quotas.get(cloud_id, {}).items()
                if q.startswith(service + ".")]

    def get_cluster(self, cluster_id: str) -> Cluster:
        self._record("get_cluster", cluster_id)
        return Cluster(self.clusters[cluster_id])

    def get_folder_cloud_id(self, folder_id: str) -> str:
        self._record("get_folder_cloud_id", folder_id)
        return self.folders[folder_id]

    def list_nodes(self, node_group_id: str) -> list[object]:
        self._record("list_nodes", node_group_id)
        return [object()] * self.node_counts[node_group_id]

    def get_node_group(self, node_group_id: str) -> LiveGroup:
        self._record("get_node_group", node_group_id)
        return LiveGroup(self.live_policies.get(node_group_id))

    def update_node_group(self, *args: object, **kwargs: object) -> None:  # pragma: no cover
        self._record("update_node_group", "")
        raise AssertionError("the preflight must never mutate")

    def names(self) -> list[str]:
        return sorted(name for name, _ in self.calls)


def c01_setup() -> tuple[list, FakeGateway]:
    g = group("dev", size=2, policy=(1, 0), res=node(cores=4, memory_gb=16, disk_gb=64))
    gw = FakeGateway(quotas={"cloudA": {INSTANCE_CORES: (10, 8),
                                        INSTANCE_MEMORY: (137438953472, 34359738368)}},
                     folders={"b1gfolder0000000000a": "cloudA"})
    return [g], gw


def test_c01_live_fails_on_cores_and_makes_no_mutating_call():
    groups, gw = c01_setup()
    result = run_preflight(groups, gw, directory=gw, nodes=gw)
    assert not result.ok
    assert [(c, q.quota_id, q.demand, q.headroom) for c, q in result.short] == [
        ("cloudA", INSTANCE_CORES, 4, 2)]
    assert "update_node_group" not in gw.names()
    assert gw.names() == ["get_folder_cloud_id"] + ["list_quota_limits"] * 2
    (s,) = result.suggestions
    assert (s.max_expansion, s.max_unavailable, s.min_ready_nodes, s.nodes) == (0, 1, 1, 2)


def test_one_list_per_service_per_cloud_never_per_group():
    groups = [group(f"g{i}", folder_id=f"folder{i % 2}", res=node(nat=i % 3 == 0))
              for i in range(12)]
    gw = FakeGateway(quotas={}, folders={"folder0": "cloudA", "folder1": "cloudB"})
    result = run_preflight(groups, gw, directory=gw)
    lists = sorted(arg for name, arg in gw.calls if name == "list_quota_limits")
    assert lists == ["cloudA/compute", "cloudA/managed-kubernetes", "cloudA/vpc",
                     "cloudB/compute", "cloudB/managed-kubernetes", "cloudB/vpc"]
    assert sorted(arg for name, arg in gw.calls if name == "get_folder_cloud_id") == [
        "folder0", "folder1"]
    assert result.api_calls == {"FolderService.Get": 2, "QuotaLimitService.List": 6}
    assert [c.cloud_id for c in result.clouds] == ["cloudA", "cloudB"]


def test_folder_from_cluster_get_once_per_cluster_when_state_has_none():
    groups = [group("a", folder_id=None, cluster_id="c1"), group("b", folder_id=None,
                                                                 cluster_id="c1")]
    gw = FakeGateway(quotas={}, folders={"f1": "cloudA"}, clusters={"c1": "f1"})
    run_preflight(groups, gw, directory=gw)
    assert gw.names().count("get_cluster") == 1
    assert gw.names().count("get_folder_cloud_id") == 1


def test_cloud_id_option_skips_the_lookup():
    groups, gw = c01_setup()
    run_preflight(groups, gw, PreflightRequest(cloud_id="cloudA"), directory=gw)
    assert set(gw.names()) == {"list_quota_limits"}


def test_live_node_count_of_autoscaled_group_replaces_the_assumed_min():
    g = group("batch", auto=(1, 7), policy=(7, 0), gid="ngbatch")
    gw = FakeGateway(quotas={}, folders={"b1gfolder0000000000a": "cloudA"},
                     node_counts={"ngbatch": 7})
    result = run_preflight([g], gw, directory=gw, nodes=gw)
    (gd,) = result.groups
    assert (gd.extra.current, gd.extra.current_source, gd.extra.worst_case) == (7, "api", 7)
    offline = run_preflight([g], gw, PreflightRequest(cloud_id="cloudA"))
    assert offline.groups[0].extra.current_source == "assumed_min"
    assert offline.groups[0].extra.worst_case == 13


def test_independent_calls_run_concurrently():
    groups = [group(f"g{i}", folder_id=f"folder{i}", res=node(nat=True)) for i in range(4)]
    gw = FakeGateway(quotas={}, folders={f"folder{i}": f"cloud{i}" for i in range(4)},
                     barrier=threading.Barrier(12))  # 4 clouds x 3 services at once
    result = run_preflight(groups, gw, directory=gw)
    assert result.api_calls["QuotaLimitService.List"] == 12


def test_local_checks_fail_before_any_api_call():
    gw = FakeGateway(quotas={})
    with pytest.raises(QuotaMappingUnknown):
        run_preflight([group("bare", no_node=True)], gw, directory=gw)
    with pytest.raises(PolicyInvalid):
        run_preflight([group("zero", policy=(0, 0))], gw, directory=gw)
    assert gw.calls == []


def test_api_error_propagates_as_cloud_api_error():
    groups, gw = c01_setup()
    gw = replace(gw, fail_on="list_quota_limits")
    with pytest.raises(CloudApiError) as err:
        run_preflight(groups, gw, directory=gw)
    assert err.value.exit_code == 4


def test_no_cloud_and_no_directory_is_a_usage_error():
    groups, gw = c01_setup()
    with pytest.raises(UsageError, match="which cloud"):
        run_preflight(groups, gw)
    with pytest.raises(UsageError, match="no node groups"):
        run_preflight([], gw, PreflightRequest(cloud_id="x"))


def test_c06_unset_policy_in_state_takes_the_live_policy():
    g = group("ng", size=4, policy=None, gid="ngc06", res=node(cores=2, memory_gb=4, nat=True))
    gw = FakeGateway(quotas={}, folders={"b1gfolder0000000000a": "cloudA"},
                     live_policies={"ngc06": DeployPolicy(1, 0)})
    result = run_preflight([g], gw, directory=gw, live_groups=gw)
    (gd,) = result.groups
    assert (gd.extra.policy_source, gd.extra.policy_assumed, gd.extra.worst_case) == (
        "live", False, 1)
    assert not any(w.code == "policy-assumed" for w in result.warnings)
    assert gw.names().count("get_node_group") == 1


def test_c06_no_live_policy_either_assumes_3_0_and_says_so():
    g = group("ng", size=4, policy=None, gid="ngc06", res=node(cores=2, memory_gb=4, nat=True))
    gw = FakeGateway(quotas={}, folders={"b1gfolder0000000000a": "cloudA"})
    result = run_preflight([g], gw, directory=gw, live_groups=gw)
    (gd,) = result.groups
    assert (gd.extra.policy_source, gd.extra.worst_case) == ("default", 3)
    assert gd.worst_case["compute.instanceCores.count"] == 6
    assert gd.worst_case["vpc.externalAddresses.count"] == 3
    assert any(w.code == "policy-assumed" for w in result.warnings)


def test_state_policy_is_used_without_asking_the_cloud():
    groups, gw = c01_setup()
    run_preflight(groups, gw, directory=gw, live_groups=gw)
    assert "get_node_group" not in gw.names()
