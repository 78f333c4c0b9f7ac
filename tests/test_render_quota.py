"""Rendering of a preflight: units people read in the table, API units in JSON (C01)."""

from __future__ import annotations

from ngupgrade.cli.render.quota import failure_summary, human, preflight_json, preflight_table
from ngupgrade.core.model import GIB
from ngupgrade.core.quota.catalog import INSTANCE_CORES, INSTANCE_MEMORY
from ngupgrade.core.quota.demand import group_demand
from ngupgrade.core.quota.preflight import evaluate
from tests.quota_builders import CLOUD, group, node, ql


def c01():
    g = group("dev", size=2, policy=(1, 0), res=node(cores=4, memory_gb=16, disk_gb=64))
    limits = {q.quota_id: q for q in [ql(INSTANCE_CORES, 10, 8),
                                      ql(INSTANCE_MEMORY, 128 * GIB, 32 * GIB)]}
    return evaluate([group_demand(g, CLOUD)], {CLOUD: limits})


def test_human_units():
    assert human("compute.instanceMemory.size", 16 * GIB) == "16 GiB"
    assert human("compute.hddDisks.size", 1.5 * GIB) == "1.5 GiB"
    assert human("compute.instanceCores.count", 4) == "4 cores"
    assert human("managed-kubernetes.nodes.count", 3) == "3 nodes"
    assert human("vpc.externalAddresses.count", 1) == "1 IP"
    assert human("vpc.externalAddresses.count", 2) == "2 IPs"
    assert human("compute.instanceCores.count", 1) == "1 core"
    assert human("compute.instanceCores.count", None) == "?"


def test_c01_table_names_the_short_quota_in_readable_units():
    text = preflight_table(c01())
    assert text.startswith("Quota preflight: FAIL: 1 quota short")
    row = next(line for line in text.splitlines() if "compute.instanceCores.count" in line)
    assert row.split()[1:] == ["10", "cores", "8", "cores", "2", "cores", "4", "cores", "SHORT",
                               "by", "2", "cores"]
    mem = next(line for line in text.splitlines() if "compute.instanceMemory.size" in line)
    assert "96 GiB" in mem and "16 GiB" in mem and mem.rstrip().endswith("ok")
    assert "max_expansion=0 max_unavailable=1: no surge nodes, min ready 1 of 2 nodes (50%)" \
        in text
    assert failure_summary(c01()) == ("quota preflight failed: b1gcloud00000000000a: "
                                      "compute.instanceCores.count needs 4 cores, headroom 2 cores")


def test_c01_json_in_bytes_with_the_design_keys():
    doc = preflight_json(c01())
    assert doc["ok"] is False
    assert set(doc) >= {"ok", "clouds", "groups", "suggestions"}
    quotas = {q["quota_id"]: q for q in doc["clouds"][0]["quotas"]}
    assert quotas["compute.instanceMemory.size"] == {
        "quota_id": "compute.instanceMemory.size", "unit": "bytes",
        "limit": 128 * GIB, "usage": 32 * GIB,
        "headroom": 96 * GIB, "demand": 16 * GIB, "status": "ok", "shortfall": None,
        "scope": None}
    assert quotas["compute.instanceCores.count"]["status"] == "short"
    assert quotas["managed-kubernetes.nodes.count"]["status"] == "unknown"
    assert quotas["managed-kubernetes.nodes.count"]["limit"] is None
    (g,) = doc["groups"]
    assert g["cloud_id"] == CLOUD
    assert g["extra_nodes"]["worst_case"] == 1 and g["extra_nodes"]["at_current_size"] == 1
    assert g["demand"]["compute.instanceCores.count"] == 4
    (s,) = doc["suggestions"]
    assert (s["max_expansion"], s["max_unavailable"], s["min_ready_nodes"], s["nodes"]) == (
        0, 1, 1, 2)


def test_gib_never_ends_with_a_bare_point():
    assert human("compute.instanceMemory.size", 2 * GIB - 1) == "2 GiB"
    assert human("compute.instanceMemory.size", 0.25 * GIB) == "0.25 GiB"
    assert human("compute.instanceMemory.size", 16 * GIB) == "16 GiB"
