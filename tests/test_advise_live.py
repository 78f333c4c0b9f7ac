"""``ngupgrade advise`` live: quotas and the calibration from ``ListOperations``, through the
real SDK against the fake cloud, whose scenario gives the groups a history of past upgrades."""

from __future__ import annotations

import pytest

from ngupgrade.testing.fake_cloud import FakeCloud
from tests.conftest import EXAMPLE_STATE

CLOUD = "b1gexamplecloud000001"
FOLDER = "b1gexamplefolder00001"

SCENARIO = {
    "clouds": {CLOUD: {"folders": [FOLDER], "quotas": {
        "compute.instances.count": {"limit": 100, "usage": 10},
        "compute.instanceCores.count": {"limit": 400, "usage": 100},
        "compute.instanceMemory.size": {"limit": 2**42, "usage": 0},
    }}},
    "node_groups": {
        # workers: 3 nodes at 1/0 (the state's policy, live too): 3 waves per upgrade.
        "workers": {"history": [
            {"minutes": 24},                                   # 8 min a wave
            {"minutes": 21, "error": "quota exceeded"},        # failed: left out
            {"minutes": 30, "description": "Auto-upgrade node group"},   # 10 min a wave
            {"minutes": 0.5},                                  # a policy change: left out
        ]},
        "batch": {"nodes": 7},
    },
}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch):
    for var in ("YC_TOKEN", "YC_IAM_TOKEN", "YC_SERVICE_ACCOUNT_KEY_FILE", "YC_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    with FakeCloud.from_state(str(EXAMPLE_STATE), SCENARIO) as cloud:
        yield cloud


def test_minutes_per_cycle_from_the_groups_own_history(fake, run_cli) -> None:
    result = run_cli("--endpoint", fake.endpoint, "--insecure", "advise",
                     "--state", str(EXAMPLE_STATE), "-g", "workers", "-g", "batch",
                     "-o", "json")
    assert result.exit_code == 0, result.stderr
    workers, batch = result.json()["groups"]
    # Median of 24/3 = 8 and 30/3 = 10 minutes per wave: 9.
    assert workers["calibration"]["source"] == "history"
    assert workers["calibration"]["minutes_per_cycle"] == 9
    assert workers["calibration"]["operations"] == 2
    assert workers["calibration"]["samples"] == [10, 8]  # ListOperations: newest first
    assert "3 node(s) and policy 1/0" in workers["calibration"]["note"]
    # No quota on public IPs in the fake (unknown: unchecked), but workers' spread placement
    # group holds 5 VMs: 2/0, two cycles of 9 minutes.
    assert (workers["recommended"]["max_expansion"], workers["recommended"]["minutes"]) == (
        2, {"min": 18, "max": 18})
    assert workers["quota"]["unknown"] == ["compute.disks.count", "compute.ssdDisks.size",
                                           "managed-kubernetes.cores.count",
                                           "managed-kubernetes.disk.size",
                                           "managed-kubernetes.memory.size",
                                           "managed-kubernetes.nodes.count",
                                           "vpc.externalAddresses.count"]
    assert batch["calibration"] == {"minutes_per_cycle": 6, "source": "default",
                                    "operations": 0, "samples": [],
                                    "note": "no finished operation in the group's history"}
    # batch runs 7 live nodes (its max): nodes_source live.
    assert (batch["nodes"], batch["nodes_source"]) == (7, "live")
    assert len(fake.calls_to("NodeGroupService.ListOperations")) == 2
    assert fake.calls_to("NodeGroupService.Update") == []


def test_cycle_minutes_skips_the_history(fake, run_cli) -> None:
    result = run_cli("--endpoint", fake.endpoint, "--insecure", "advise",
                     "--state", str(EXAMPLE_STATE), "-g", "workers", "--cycle-minutes", "4",
                     "-o", "json")
    assert result.exit_code == 0, result.stderr
    workers, = result.json()["groups"]
    assert (workers["calibration"]["source"], workers["calibration"]["minutes_per_cycle"]) == (
        "override", 4)  # one vocabulary: a command-line value is an override (issue 11 item 14)
    assert fake.calls_to("NodeGroupService.ListOperations") == []


def test_a_history_entry_without_minutes_is_bad_input() -> None:
    from ngupgrade.core.errors import BadInput
    from ngupgrade.testing.scenario import Scenario

    with pytest.raises(BadInput) as err:
        Scenario.from_mapping({"node_groups": {"workers": {"history": [{"minuets": 3}]}}})
    assert "node_groups.workers.history[0]" in str(err.value)
