"""The advisor judges a policy against the limits `ngupgrade preflight` checks beside the
cloud-wide quotas (docs/quota-preflight.md, "Limits beside the cloud-wide quotas"): nodes per
group, nodes per cluster, zonal quotas; and a stage of the schedule shares them.

The example state (terraform/examples): cluster catq0n7i0h9ka1b2c3d4 holds gpu (fixed 1),
workers (fixed 3, 4 cores, NAT, 1/0) and batch (autoscaled 1..7, 2 cores), all in zone
ru-central1-a. quotas.yaml leaves 0 A100 GPUs, 2 public IPs, 42 cores; with the A100 limit
raised to 2 as the field report did, workers alone may surge 2 nodes (the IPs): 2/0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from ngupgrade.testing import FakeCloud
from ngupgrade.testing.builders import node_group
from tests.conftest import EXAMPLE_STATE, EXAMPLES
from tests.test_advise_cli import BATCH, two_clusters
from tests.test_upgrade_schedule import A_ID, B_ID, CLOUD, CLUSTER_A, CLUSTER_B, FOLDER, p, run
from tests.test_upgrade_schedule import stages as stages_of

QUOTAS = yaml.safe_load((EXAMPLES / "quotas.yaml").read_text())[CLOUD]
STATE = str(EXAMPLE_STATE)


def _quotas(tmp_path: Path, **more: dict[str, int]) -> str:
    """quotas.yaml with 2 A100 GPUs (1 free) and ``more``."""
    rows = {**QUOTAS, "compute.instanceA100Gpus.count": {"limit": 2, "usage": 1}, **more}
    path = tmp_path / "quotas.json"
    path.write_text(json.dumps({CLOUD: rows}))
    return str(path)


def _json(run_cli, *argv: str) -> Any:
    return run_cli(*argv, "-o", "json").json()


@pytest.mark.parametrize(("row", "limit", "short"), ids=["group", "cluster", "zone"], argvalues=[
    # workers' 3 nodes + E' against 3 per group: headroom 0
    ("managed-kubernetes.groupNodes.count", {"limit": 3, "usage": 0},
     "managed-kubernetes.groupNodes.count (group yandex_kubernetes_node_group.workers) needs "
     "2 nodes, headroom 0 nodes (short by 2 nodes)"),
    # the cluster: gpu 1 + workers 3 + batch 7 (its max; not advised, still counted) = 11
    ("managed-kubernetes.clusterNodes.count", {"limit": 11, "usage": 11},
     "managed-kubernetes.clusterNodes.count (cluster catq0n7i0h9ka1b2c3d4) needs 2 nodes, "
     "headroom 0 nodes (short by 2 nodes)"),
    # 4 cores a node in ru-central1-a, 2 cores free there
    ("compute.instanceCores.count.ru-central1-a", {"limit": 56, "usage": 54},
     "compute.instanceCores.count.ru-central1-a needs 8 cores, headroom 2 cores "
     "(short by 6 cores)"),
])
def test_advise_refuses_what_preflight_refuses(run_cli, tmp_path: Path, row: str,
                                               limit: dict[str, int], short: str) -> None:
    # Before: 2/0 recommended whatever the row said, while preflight refused any surge.
    quotas = _quotas(tmp_path, **{row: limit})
    doc = _json(run_cli, "advise", "--state", STATE, "--quotas", quotas, "-g", "workers")
    workers, = doc["groups"]
    assert doc["ok"] is True
    assert workers["quota"]["max_expansion"] == 0
    rec = workers["recommended"]
    assert (rec["max_expansion"], rec["max_unavailable"], rec["minutes"]) == (
        0, 1, {"min": 18, "max": 18})
    rejected = {(r["max_expansion"], r["max_unavailable"]): r["reasons"]
                for r in workers["rejected"]}
    assert rejected[(2, 0)] == [{"code": "quota-short",
                                 "message": f"cloud {CLOUD}: {short}"}]
    # what advise recommends, preflight lets through; what it rejects, preflight refuses
    ok = run_cli("preflight", "--state", STATE, "--quotas", quotas, "-g", "workers",
                 "--max-expansion", "0", "--max-unavailable", "1")
    assert ok.exit_code == 0, ok.stdout
    refused = run_cli("preflight", "--state", STATE, "--quotas", quotas, "-g", "workers",
                      "--max-expansion", "2", "--max-unavailable", "0")
    assert refused.exit_code == 1
    assert f"{CLOUD}: {short.split(' (short by')[0]}" in refused.stderr


def test_a_stage_shares_a_zonal_quota(run_cli, tmp_path: Path) -> None:
    """batch in a second cluster, both groups in ru-central1-a, 20 cores free there (42 in
    the cloud). workers alone 2/0 (the IPs; 8 cores), 12 min; batch alone: 6 + E VMs of 2
    cores (grown from 1 to 7 first), 12 + 2E <= 20: E' <= 4, 4/0, ceil(7/4) = 2 cycles, 12
    min on 20 cores. Together the cloud holds them (8 + 20 = 28 <= 42) but the zone does not:
    beside workers' 8 cores batch may take 12, which is no surge (12 + 2E > 12 for E >= 1),
    and batch cannot go without one (autoscaler min 1: U = 0): stage 2. Before: one stage,
    28 cores in a zone that has 20."""
    quotas = _quotas(tmp_path, **{
        "compute.instanceCores.count.ru-central1-a": {"limit": 74, "usage": 54}})
    doc = _json(run_cli, "advise", "--state", two_clusters(tmp_path), "--quotas", quotas,
                "-g", "workers", "-g", BATCH)
    assert [[(g["address"], g["max_expansion"], g["max_unavailable"]) for g in st["groups"]]
            for st in doc["schedule"]] == [
        [("yandex_kubernetes_node_group.workers", 2, 0)], [(BATCH, 4, 0)]]
    assert doc["schedule"][1]["why_not_earlier"] == (
        f"with stage 1: cloud {CLOUD}: compute.instanceCores.count.ru-central1-a headroom "
        "20 cores, 8 cores taken by the stage, 20 cores more needed")
    assert doc["schedule_minutes"] == {"total": 24, "sequential": 24}


def test_a_cluster_limit_counts_the_groups_not_advised(run_cli, tmp_path: Path) -> None:
    """clusterNodes 13 with 11 nodes in the cluster: 2 surge nodes fit workers alone (2/0).
    Counting only the group advised (3 nodes) would leave 10."""
    quotas = _quotas(tmp_path, **{
        "managed-kubernetes.clusterNodes.count": {"limit": 13, "usage": 0}})
    workers, = _json(run_cli, "advise", "--state", STATE, "--quotas", quotas,
                     "-g", "workers")["groups"]
    assert workers["quota"]["max_expansion"] == 2
    tight = _quotas(tmp_path, **{
        "managed-kubernetes.clusterNodes.count": {"limit": 12, "usage": 0}})
    workers, = _json(run_cli, "advise", "--state", STATE, "--quotas", tight,
                     "-g", "workers")["groups"]
    assert workers["quota"]["max_expansion"] == 1


def test_upgrade_schedule_advised_runs_within_the_group_limit(tmp_path: Path) -> None:
    """The live path of ``upgrade --schedule advised`` (dry run): A (12 nodes) and B (3) in
    two clusters, 8 VMs free, no node down (--min-available 100%), 14 nodes per group. A
    alone: 12 + E' <= 14, 2/0, ceil(12/2) = 6 cycles = 36 min; B 3/0 (6 min, 3 VMs) beside
    it (2 + 3 <= 8): one stage. Before: A at 6/0, a peak of 18 nodes in a group of 14."""
    groups = [node_group(A_ID, name="a", cluster_id=CLUSTER_A, size=12),
              node_group(B_ID, name="b", cluster_id=CLUSTER_B, size=3)]
    scenario = {
        "step_seconds": 60, "policy_seconds": 10, "versions": ["1.29", "1.30"],
        "clouds": {CLOUD: {"folders": [FOLDER], "quotas": {
            "compute.instances.count": {"limit": 100, "usage": 92},
            "managed-kubernetes.groupNodes.count": {"limit": 14, "usage": 0}}}},
        "clusters": {CLUSTER_A: {"master_version": "1.30", "status": "RUNNING"},
                     CLUSTER_B: {"master_version": "1.30", "status": "RUNNING"}},
    }
    with FakeCloud(groups, scenario).start() as fake:
        fake.state_groups = groups  # type: ignore[attr-defined]
        out = run(fake, tmp_path, apply=False)
        assert out.code == 0, out.error
        assert stages_of(out) == [[("a", p(2, 0), 36), ("b", p(3, 0), 6)]]
