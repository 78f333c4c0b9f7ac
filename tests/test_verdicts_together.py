"""What "groups upgraded together" means, decided once per platform and used by preflight
and advise alike (core/quota/demand.py: concurrency).

Yandex runs one operation of a cluster at a time: a node-group Update while another operation
runs on the cluster is refused (FAILED_PRECONDITION; hashicorp/terraform-provider-google#3650
shows the same conflict, upgrade/mutation.py waits for it), so at most one group of a
cluster surges at once; groups of different clusters do at the same time. The state: the
example state as the provider writes it (terraform/examples/terraform.tfstate), its groups
replaced by three copies of ``workers`` (3 nodes, 2 cores each, 2/0, no placement group).
Cores headroom 4: one group's surge (2 nodes x 2 cores) fits, two do not.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLE_STATE

CLOUD = "b1gexamplecloud000001"


def _three_groups(tmp_path: Path, clusters: tuple[str, str, str]) -> tuple[str, str]:
    doc = json.loads(EXAMPLE_STATE.read_text())
    workers = next(r for r in doc["resources"] if r.get("name") == "workers")
    groups = []
    for name, cluster in zip(("a", "b", "c"), clusters, strict=True):
        g = json.loads(json.dumps(workers))
        g["name"] = name
        attrs = g["instances"][0]["attributes"]
        attrs.update(id=f"catng{name * 15}", name=name, cluster_id=cluster,
                     deploy_policy=[{"max_expansion": 2, "max_unavailable": 0}])
        attrs["instance_template"][0]["resources"][0]["cores"] = 2
        attrs["instance_template"][0]["placement_policy"] = []
        groups.append(g)
    doc["resources"] = [r for r in doc["resources"] if r["type"] != "yandex_kubernetes_node_group"]
    doc["resources"] += groups
    state = tmp_path / "three.tfstate"
    state.write_text(json.dumps(doc))
    quotas = tmp_path / "quotas.json"
    quotas.write_text(json.dumps({CLOUD: {"compute.instanceCores.count":
                                          {"limit": 100, "usage": 96}}}))
    return str(state), str(quotas)


ONE = ("catq0n7i0h9ka1b2c3d4",) * 3


def test_preflight_and_advise_agree_on_three_groups_of_one_cluster(run_cli, tmp_path) -> None:
    # Before: preflight added the three surges up (12 cores against 4), failed and suggested
    # a policy for each; advise ran them one after another in the cluster and exited 0.
    state, quotas = _three_groups(tmp_path, ONE)
    pre = run_cli("preflight", "--state", state, "--quotas", quotas, "-o", "json")
    assert pre.exit_code == 0, pre.stderr
    doc = pre.json()
    assert doc["mode"]["concurrency"] == "one-per-cluster"
    (cores,) = [q for q in doc["clouds"][0]["quotas"]
                if q["quota_id"] == "compute.instanceCores.count"]
    assert (cores["demand"], cores["headroom"], cores["status"]) == (4, 4, "ok")
    assert doc["suggestions"] == []
    table = run_cli("preflight", "--state", state, "--quotas", quotas)
    assert table.stdout.splitlines()[0] == (
        "Quota preflight: PASS with 9 unknown quotas  [worst case, one group of a cluster at a "
        "time, clusters together]")
    advice = run_cli("advise", "--state", state, "--quotas", quotas, "-o", "json")
    assert advice.exit_code == 0
    assert advice.json()["concurrency"] == "one-per-cluster"
    # one after another, as preflight counted them
    assert [len(s["groups"]) for s in advice.json()["schedule"]] == [1, 1, 1]


def test_groups_of_different_clusters_surge_at_once(run_cli, tmp_path) -> None:
    state, quotas = _three_groups(tmp_path, ("cluster-1", "cluster-1", "cluster-2"))
    pre = run_cli("preflight", "--state", state, "--quotas", quotas, "-o", "json")
    assert pre.exit_code == 1
    (cores,) = [q for q in pre.json()["clouds"][0]["quotas"]
                if q["quota_id"] == "compute.instanceCores.count"]
    assert (cores["demand"], cores["status"]) == (8, "short")  # 4 + 4: two clusters at once
    # the hint says how they were counted and how else they may run
    assert ("the surges are counted one group of each cluster at a time, the clusters at once "
            "(a cluster runs one node-group operation at a time): upgraded one after another "
            "(`ngupgrade upgrade` does so), --sequential counts the largest alone"
            ) in pre.json()["error"]["hint"]
    seq = run_cli("preflight", "--state", state, "--quotas", quotas, "--sequential", "-o",
                  "json")
    assert (seq.exit_code, seq.json()["mode"]["concurrency"]) == (0, "sequential")


def test_together_counts_every_surge_at_once(run_cli, tmp_path) -> None:
    state, quotas = _three_groups(tmp_path, ONE)
    pre = run_cli("preflight", "--state", state, "--quotas", quotas, "--together", "-o", "json")
    assert (pre.exit_code, pre.json()["mode"]["concurrency"]) == (1, "together")
    (cores,) = [q for q in pre.json()["clouds"][0]["quotas"]
                if q["quota_id"] == "compute.instanceCores.count"]
    assert (cores["demand"], cores["status"]) == (12, "short")
    both = run_cli("preflight", "--state", state, "--quotas", quotas, "--together",
                   "--sequential")
    assert both.exit_code == 2
