"""`ngupgrade preflight` suggests a deploy policy when the short row is a limit beside the
cloud-wide quotas (docs/quota-preflight.md, "Limits beside the cloud-wide quotas"): nodes per
group, nodes per cluster, a zonal quota; or says plainly that no policy fits.

The example state (terraform/examples): cluster catq0n7i0h9ka1b2c3d4 holds gpu (fixed 1),
workers (fixed 3, 4 cores, NAT, 1/0) and batch (autoscaled 1..7, 2 cores, 2/1), all in zone
ru-central1-a. quotas.yaml with 2 A100 GPUs (1 free) and 20 public IPs, so that no cloud-wide
quota is short for workers at --max-expansion 3 (3 VMs, 12 cores, 3 IPs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import EXAMPLE_STATE, EXAMPLES

CLOUD = "b1gexamplecloud000001"
STATE = str(EXAMPLE_STATE)
WORKERS = "yandex_kubernetes_node_group.workers"
BATCH = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'
QUOTAS = yaml.safe_load((EXAMPLES / "quotas.yaml").read_text())[CLOUD]


def _quotas(tmp_path: Path, **more: dict[str, int]) -> str:
    rows = {**QUOTAS, "compute.instanceA100Gpus.count": {"limit": 2, "usage": 1},
            "vpc.externalAddresses.count": {"limit": 20, "usage": 6}, **more}
    path = tmp_path / "quotas.json"
    path.write_text(json.dumps({CLOUD: rows}))
    return str(path)


def _suggestions(doc: Any) -> list[tuple[str, int, int, list[str], bool, bool]]:
    return [(s["address"], s["max_expansion"], s["max_unavailable"], s["rows"], s["fits"],
             s["fits_together"]) for s in doc["suggestions"]]


PLACEMENT_ID = "compute.placementGroupInstances.count"
PLACEMENT = f"{PLACEMENT_ID} (placement group fd8examplespread0001)"


@pytest.mark.parametrize(("row", "limit", "name"), ids=["group", "cluster", "zone"], argvalues=[
    # workers' 3 nodes against 5 per group: 2 surge nodes fit, 3 do not
    ("managed-kubernetes.groupNodes.count", {"limit": 5, "usage": 0},
     f"managed-kubernetes.groupNodes.count (group {WORKERS})"),
    # the cluster: gpu 1 + workers 3 + batch 7 (its max; not checked, still counted) = 11
    # against 13
    ("managed-kubernetes.clusterNodes.count", {"limit": 13, "usage": 0},
     "managed-kubernetes.clusterNodes.count (cluster catq0n7i0h9ka1b2c3d4)"),
    # 4 cores a node in ru-central1-a, 8 cores free there (42 in the cloud)
    ("compute.instanceCores.count.ru-central1-a", {"limit": 62, "usage": 54},
     "compute.instanceCores.count.ru-central1-a"),
])
def test_a_short_limit_gets_the_largest_policy_that_fits(run_cli, tmp_path: Path, row: str,
                                                         limit: dict[str, int],
                                                         name: str) -> None:
    # Before: no suggestion at all, and the hint said only "ask for a quota increase".
    quotas = _quotas(tmp_path, **{row: limit})
    argv = ["preflight", "--state", STATE, "--quotas", quotas, "-g", "workers"]
    result = run_cli(*argv, "--max-expansion", "3", "-o", "json")
    assert result.exit_code == 1
    assert [q["status"] for q in result.json()["clouds"][0]["quotas"]
            if q["quota_id"] == row] == ["short"]
    # workers also runs in the example's spread placement group (3 nodes, at most 5 VMs):
    # 3 surge nodes do not fit there either, and 2/0 fixes both rows
    assert _suggestions(result.json()) == [(WORKERS, 2, 0, [name, PLACEMENT], True, True)]
    assert result.json()["suggestions"][0]["quota_ids"] == [row, PLACEMENT_ID]
    table = run_cli(*argv, "--max-expansion", "3")
    assert (f"{WORKERS}: max_expansion=2 max_unavailable=0: peak 5 nodes, min ready 3 of 3 "
            f"(100%), 2 cycles (fixes {name}, {PLACEMENT})") in table.stdout
    assert "a short quota: apply the suggested deploy policies" in table.stderr
    # the suggestion is what preflight lets through
    applied = run_cli(*argv, "--max-expansion", "2", "--max-unavailable", "0")
    assert applied.exit_code == 0, applied.stdout


def test_a_cluster_limit_shared_by_two_groups(run_cli, tmp_path: Path) -> None:
    """clusterNodes 12 with 11 nodes in the cluster: 1 surge node for workers and batch
    together. At 3/0 workers needs 3, batch min(3, 7) = 3 (managed-kubernetes counts its
    max). Neither alone is enough (the other's 3 > 1): workers gives up its surge (0/1, the
    cluster still short by batch's 3), then batch keeps 1 (1/0; its own U is 0)."""
    quotas = _quotas(tmp_path, **{
        "managed-kubernetes.clusterNodes.count": {"limit": 12, "usage": 0}})
    doc = run_cli("preflight", "--state", STATE, "--quotas", quotas, "-g", "workers",
                  "-g", "batch", "--max-expansion", "3", "--max-unavailable", "0",
                  "-o", "json").json()
    name = "managed-kubernetes.clusterNodes.count (cluster catq0n7i0h9ka1b2c3d4)"
    assert _suggestions(doc) == [(WORKERS, 0, 1, [name, PLACEMENT], False, True),
                                 (BATCH, 1, 0, [name], True, True)]


def test_no_policy_fits_a_zonal_quota_says_so(run_cli, tmp_path: Path) -> None:
    """batch (autoscaled 1..7, 2 cores, current size assumed 1) may grow to 7 before the
    upgrade: 6 VMs, 12 cores in ru-central1-a whatever the policy, against 10 free there;
    at its 2/1, 16 cores."""
    # Before: no suggestion, and a hint that named no reason.
    quotas = _quotas(tmp_path, **{
        "compute.instanceCores.count.ru-central1-a": {"limit": 64, "usage": 54}})
    argv = ["preflight", "--state", STATE, "--quotas", quotas, "-g", "batch"]
    result = run_cli(*argv)
    assert result.exit_code == 1
    assert (f"{BATCH}: max_expansion=0 max_unavailable=1: no surge nodes, min ready 6 of 7 "
            "nodes (85%), 7 cycles (eases compute.instanceCores.count.ru-central1-a, still "
            "short with every suggestion: raise the quota)") in result.stdout
    hint = next(x for x in result.stderr.splitlines() if x.startswith("hint: "))
    assert hint == (
        "hint: a short quota: ask for a quota increase (Quota Manager) before the upgrade; no "
        "deploy policy fits: more than the surge is short (nodes an autoscaled group may grow "
        "to before the upgrade, or that a Terraform change adds), so a smaller max_expansion "
        "cannot help (--at-current-size judges an autoscaled group at its current size)")
    doc = run_cli(*argv, "-o", "json").json()
    assert _suggestions(doc) == [
        (BATCH, 0, 1, ["compute.instanceCores.count.ru-central1-a"], False, False)]
    # at its current size (1 node, 2 cores a surge node) 2/1 needs 2 cores: it fits
    assert run_cli(*argv, "--at-current-size").exit_code == 0


def test_nodes_above_their_limit_leave_no_policy(run_cli, tmp_path: Path) -> None:
    """workers holds 3 nodes against 2 per group: at 0/1 too the upgrade creates nodes again
    where the group already holds more than its limit, so no deploy policy fits; preflight
    and advise both say so."""
    # Before: 0/1 was suggested as the fix, and preflight at 0/1 passed (nothing demanded).
    quotas = _quotas(tmp_path, **{
        "managed-kubernetes.groupNodes.count": {"limit": 2, "usage": 0}})
    argv = ["preflight", "--state", STATE, "--quotas", quotas, "-g", "workers"]
    name = f"managed-kubernetes.groupNodes.count (group {WORKERS})"
    result = run_cli(*argv, "-o", "json")
    assert result.exit_code == 1
    assert _suggestions(result.json()) == [(WORKERS, 0, 1, [name], False, False)]
    no_surge = run_cli(*argv, "--max-expansion", "0", "--max-unavailable", "1")
    assert no_surge.exit_code == 1
    assert (f"{CLOUD}: {name} needs 0 nodes, headroom -1 nodes") in no_surge.stderr
    assert (f"no deploy policy fits: {name} holds 3 nodes, above its limit of 2 nodes, and "
            "every policy creates nodes again (raise that limit, or make the group smaller "
            "first)") in no_surge.stderr
    advice = run_cli("advise", "--state", STATE, "--quotas", quotas, "-g", "workers",
                     "-o", "json")
    assert advice.exit_code == 1
    workers, = advice.json()["groups"]
    assert (workers["recommended"], workers["quota"]["max_expansion"]) == (None, None)
