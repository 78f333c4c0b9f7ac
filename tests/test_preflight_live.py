"""``ngupgrade preflight`` live, through the real SDK against the fake cloud (C01 kind, calls).

Skipped until the cloud gateway and the fake cloud (branch ``cloud``) are on the same tree.
"""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLE_STATE

fake_cloud = pytest.importorskip("ngupgrade.testing.fake_cloud")

CLOUD = "b1gexamplecloud000001"
FOLDER = "b1gexamplefolder00001"


def scenario(cores_headroom: int) -> dict:
    return {
        "clouds": {CLOUD: {"folders": [FOLDER], "quotas": {
            "compute.instances.count": {"limit": 100, "usage": 10},
            "compute.instanceCores.count": {"limit": 100 + cores_headroom, "usage": 100},
            "compute.instanceMemory.size": {"limit": 2**40, "usage": 0},
        }}},
        "node_groups": {"batch": {"nodes": 7}},
    }


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch):
    for var in ("YC_TOKEN", "YC_IAM_TOKEN", "YC_SERVICE_ACCOUNT_KEY_FILE", "YC_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)

    def start(cores_headroom: int):
        return fake_cloud.FakeCloud.from_state(str(EXAMPLE_STATE), scenario(cores_headroom))
    return start


def run(run_cli, fake, *args: str):
    return run_cli("--endpoint", fake.endpoint, "--insecure", "preflight",
                   "--state", str(EXAMPLE_STATE), "-o", "json", *args)


def test_live_short_cores_exit_1_one_list_per_service_and_no_update(live, run_cli):
    # Live sizes: batch has 7 nodes (its max), so its worst case is 2 extra, not 8.
    # Extra cores: workers 4 + batch 2 x 2 + gpu 28 = 36, all at once (--together; the
    # default counts one group of their one cluster at a time: gpu's 28).
    with live(cores_headroom=35) as fake:
        res = run(run_cli, fake, "--together")
        assert res.exit_code == 1, res.stderr
        assert "compute.instanceCores.count needs 36 cores, headroom 35 cores" in res.stderr
        doc = res.json()
        batch = next(g for g in doc["groups"] if g["name"] == "batch")
        assert batch["extra_nodes"]["current_source"] == "live"
        assert batch["extra_nodes"]["current"] == 7
        assert batch["extra_nodes"]["worst_case"] == 2
        assert len(fake.calls_to("QuotaLimitService.List")) == 3
        assert len(fake.calls_to("FolderService.Get")) == 1
        assert fake.calls_to("NodeGroupService.Update") == []


def test_live_equality_passes(live, run_cli):
    with live(cores_headroom=36) as fake:
        res = run(run_cli, fake, "--together")
        assert res.exit_code == 0, res.stderr
        cores = next(q for q in res.json()["clouds"][0]["quotas"]
                     if q["quota_id"] == "compute.instanceCores.count")
        assert (cores["demand"], cores["headroom"], cores["status"]) == (36, 36, "ok")


def test_live_cloud_id_skips_the_folder_lookup(live, run_cli):
    with live(cores_headroom=36) as fake:
        res = run(run_cli, fake, "--cloud-id", CLOUD)
        assert res.exit_code == 0, res.stderr
        assert fake.calls_to("FolderService.Get") == []


def test_live_plan_reads_a_piped_state_once_and_takes_live_sizes(live, run_cli):
    """`terraform state pull | ngupgrade plan --state - --endpoint ...`: stdin is read once;
    the autoscaled group is planned at its live size, the fixed one with drift from the cloud."""
    sc = scenario(10)
    sc["node_groups"]["workers"] = {"nodes": 4}  # out-of-band resize of a fixed group of 3
    with fake_cloud.FakeCloud.from_state(str(EXAMPLE_STATE), sc) as fake:
        res = run_cli("--endpoint", fake.endpoint, "--insecure", "plan", "--state", "-",
                      "-o", "json", stdin=EXAMPLE_STATE.read_bytes())
    assert res.exit_code == 0, res.stderr
    by_name = {g["name"]: g for g in res.json()["groups"]}
    assert (by_name["batch"]["nodes"], by_name["batch"]["nodes_source"]) == (7, "live")
    assert (by_name["workers"]["nodes"], by_name["workers"]["nodes_source"]) == (4, "live")
    assert "fixed-size-drift" in {w["code"] for w in by_name["workers"]["warnings"]}
    assert (by_name["gpu"]["nodes"], by_name["gpu"]["nodes_source"]) == (1, "fixed")
