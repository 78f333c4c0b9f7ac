"""``ngupgrade preflight`` end to end on the example state with offline quota files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ngupgrade.core.model import GIB
from tests.conftest import EXAMPLE_STATE

CLOUD = "b1gexamplecloud000001"
TIB = 1024 * GIB

# What the example state's upgrade needs offline, worst case, all groups together:
# workers fixed 3, E=1 -> 1 extra; batch auto 1..7 E=2 -> 7 + 2 - 1 = 8 extra (min assumed);
# gpu fixed 1, policy unset -> 3/0 clamped to 1 -> 1 extra.
NEED = {
    "compute.instances.count": 10,
    "compute.instanceCores.count": 4 + 8 * 2 + 28,
    "compute.instanceMemory.size": (16 + 8 * 4 + 119) * GIB,
    "compute.disks.count": 10,
    "compute.ssdDisks.size": 64 * GIB,
    "compute.hddDisks.size": 8 * 96 * GIB,
    "compute.ssdNonReplicatedDisks.size": 186 * GIB,
    "compute.instanceA100Gpus.count": 1,
    "managed-kubernetes.nodes.count": 1 + 2 + 1,
    "managed-kubernetes.cores.count": 4 + 2 * 2 + 28,
    "managed-kubernetes.memory.size": (16 + 2 * 4 + 119) * GIB,
    "managed-kubernetes.disk.size": (64 + 2 * 96 + 186) * GIB,
    "vpc.externalAddresses.count": 1,
}


def short_form(headroom: dict[str, int] | None = None, usage: int = 5) -> dict:
    """Every quota with exactly the needed headroom (equality passes) unless overridden."""
    room = dict(NEED, **(headroom or {}))
    return {CLOUD: {q: {"limit": usage + room[q], "usage": usage} for q in NEED}}


def proto_form(doc: dict) -> list[dict]:
    by_service: dict[str, list[dict]] = {}
    for q, v in doc[CLOUD].items():
        by_service.setdefault(q.split(".")[0], []).append(
            {"quotaId": q, "limit": float(v["limit"]), "usage": float(v["usage"])})
    return [{"resource": {"id": CLOUD, "type": "resource-manager.cloud"}, "quotaLimits": items}
            for items in by_service.values()]


@pytest.fixture
def quotas(tmp_path: Path):
    def write(doc: object, name: str = "quotas.json") -> str:
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        return str(path)
    return write


def preflight(run_cli, *args: str):
    return run_cli("preflight", "--state", str(EXAMPLE_STATE), *args)


def test_exact_headroom_passes_and_json_is_in_bytes(run_cli, quotas):
    # --together: every group's surge at once (the sum NEED holds); the example's groups share
    # one cluster, which by default counts one of them at a time
    res = preflight(run_cli, "--quotas", quotas(short_form()), "--together", "-o", "json")
    assert res.exit_code == 0, res.stderr
    doc = res.json()
    assert doc["ok"] is True
    (cloud,) = doc["clouds"]
    assert cloud["cloud_id"] == CLOUD
    got = {q["quota_id"]: (q["demand"], q["headroom"], q["status"]) for q in cloud["quotas"]}
    # workers' spread placement group (5 VMs, its 3 in it) takes its one surge VM
    assert got == {**{q: (n, n, "ok") for q, n in NEED.items()},
                   "compute.placementGroupInstances.count": (1, 2, "ok")}
    batch = next(g for g in doc["groups"] if g["address"].endswith('this["batch"]'))
    assert batch["extra_nodes"]["worst_case"] == 8
    assert batch["extra_nodes"]["at_current_size"] == 1
    assert batch["extra_nodes"]["managed_kubernetes"] == 2
    assert batch["extra_nodes"]["current_source"] == "assumed_min"
    assert batch["demand"]["compute.instanceMemory.size"] == 8 * 4 * GIB
    assert doc["suggestions"] == []
    assert doc["api_calls"] == {}  # an offline quota file is read, no API is called


def test_proto_form_short_cores_exit_1_names_the_quota(run_cli, quotas):
    doc = proto_form(short_form({"compute.instanceCores.count": 47}))
    res = preflight(run_cli, "--quotas", quotas(doc), "--together", "-o", "json")
    assert res.exit_code == 1
    assert "compute.instanceCores.count needs 48 cores, headroom 47 cores" in res.stderr
    out = res.json()
    assert out["ok"] is False
    short = [q for q in out["clouds"][0]["quotas"] if q["status"] == "short"]
    assert [(q["quota_id"], q["shortfall"]) for q in short] == [
        ("compute.instanceCores.count", 1)]
    assert out["suggestions"]
    assert all(s["max_expansion"] + s["max_unavailable"] > 0 for s in out["suggestions"])


def test_yaml_short_form_and_human_table(run_cli, tmp_path):
    path = tmp_path / "q.yaml"
    path.write_text(f"{CLOUD}:\n" + "".join(
        f"  {q}: {{limit: {n + 1}, usage: 1}}\n" for q, n in NEED.items()))
    res = preflight(run_cli, "--quotas", str(path))
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("Quota preflight: PASS")
    assert "compute.instanceMemory.size" in res.stdout and "167 GiB" in res.stdout
    assert "48 cores" in res.stdout


def test_sequential_and_group_selection(run_cli, quotas):
    # Headroom for the largest single group only: batch's 8 instances. The example's groups
    # share one cluster, which runs one node-group operation at a time: by default it fits;
    # all at once (--together) it does not.
    doc = short_form({"compute.instances.count": 8, "compute.disks.count": 8})
    assert preflight(run_cli, "--quotas", quotas(doc), "--together").exit_code == 1
    assert preflight(run_cli, "--quotas", quotas(doc)).exit_code == 0
    assert preflight(run_cli, "--quotas", quotas(doc), "--sequential").exit_code == 0
    res = preflight(run_cli, "--quotas", quotas(doc), "-g", "workers", "-o", "json")
    assert res.exit_code == 0
    assert [g["name"] for g in res.json()["groups"]] == ["workers"]


def test_at_current_size_judges_autoscaled_groups_at_their_size(run_cli, quotas):
    doc = short_form({"compute.instances.count": 3, "compute.disks.count": 3,
                      "compute.hddDisks.size": 96 * GIB,
                      "compute.instanceCores.count": 4 + 2 + 28,
                      "compute.instanceMemory.size": (16 + 4 + 119) * GIB})
    assert preflight(run_cli, "--quotas", quotas(doc)).exit_code == 1
    res = preflight(run_cli, "--quotas", quotas(doc), "--at-current-size", "-o", "json")
    assert res.exit_code == 0, res.stderr
    assert res.json()["mode"]["at_current_size"] is True


def test_unknown_quota_warns_and_fails_under_strict(run_cli, quotas):
    doc = short_form()
    del doc[CLOUD]["vpc.externalAddresses.count"]
    res = preflight(run_cli, "--quotas", quotas(doc), "-o", "json")
    assert res.exit_code == 0
    assert any(w["code"] == "quota-unknown" for w in res.json()["warnings"])
    strict = preflight(run_cli, "--quotas", quotas(doc), "--strict")
    assert strict.exit_code == 1
    assert "vpc.externalAddresses.count unknown" in strict.stderr


def test_bad_quota_file_exit_3_naming_file_and_path(run_cli, quotas):
    path = quotas({CLOUD: {"compute.instances.count": {"limit": "lots", "usage": 1}}})
    res = preflight(run_cli, "--quotas", path)
    assert res.exit_code == 3
    assert f"{path}: $.{CLOUD}.compute.instances.count.limit: expected a number" in res.stderr
    assert "Traceback" not in res.stderr


def test_file_with_several_clouds_needs_cloud_id(run_cli, quotas):
    doc = short_form()
    doc["b1gothercloud"] = doc[CLOUD]
    res = preflight(run_cli, "--quotas", quotas(doc))
    assert res.exit_code == 2
    assert "--cloud-id" in res.stderr
    assert preflight(run_cli, "--quotas", quotas(doc), "--cloud-id", CLOUD).exit_code == 0
    missing = preflight(run_cli, "--quotas", quotas(doc), "--cloud-id", "b1gnope")
    assert missing.exit_code == 3 and "no quotas for cloud b1gnope" in missing.stderr
