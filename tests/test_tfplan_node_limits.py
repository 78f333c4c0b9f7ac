"""``preflight --plan``: the per-group and per-cluster node limits of what a plan changes.

Usage is the nodes that exist before the apply, demand what the change adds at its peak
(core/quota/demand.py NodeCount). Numbers by hand from terraform/examples/generate_state.py:
cluster catq0n7i0h9ka1b2c3d4 holds workers (fixed 3 unless resized in the state), batch (auto
1..7, counted at its max 7) and gpu (fixed 1): 11 nodes before the apply with workers at 3, 13
with workers at 5. Before the fix a group the plan creates or resizes was counted at its
planned size in the usage and again in the demand (web created with 2 nodes: usage 13, demand
2; the cluster holds 13 after the apply, not 15), and a group shrunk in the apply at its
smaller size (usage 11 while 13 nodes exist).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests._tfplan import CLOUD, WORKERS, Edit, edit, plans, state, write
from tests.conftest import EXAMPLES

WEB = "yandex_kubernetes_node_group.web"
CLUSTER = "managed-kubernetes.clusterNodes.count"
GROUP = "managed-kubernetes.groupNodes.count"
SYSCTL = ["net.core.somaxconn"]


def _quotas(tmp_path: Path, cluster: int, group: int) -> str:
    """The example quotas with the per-cluster and per-group node limits (usage 0: the API's
    usage of these limits is not a group's own count) and room for 94 more public IPs (the
    example has 2; workers' nodes have NAT), so only the node limits decide."""
    doc = yaml.safe_load((EXAMPLES / "quotas.yaml").read_text())
    doc[CLOUD]["vpc.externalAddresses.count"] = {"limit": 100, "usage": 6}
    doc[CLOUD][CLUSTER] = {"limit": cluster, "usage": 0}
    doc[CLOUD][GROUP] = {"limit": group, "usage": 0}
    path = tmp_path / "quotas.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _with_web(doc: dict, size: int, template: dict | None = None) -> dict:
    """``doc`` with a group `web` in the same cluster: workers' copy with ``size`` nodes."""
    group = json.loads(json.dumps(next(r for r in doc["resources"]
                                       if r.get("name") == "workers")))
    group["name"] = "web"
    attrs = group["instances"][0]["attributes"]
    attrs.update(name="web", id="cat9newweb000000zzzz")
    attrs["scale_policy"][0]["fixed_scale"][0]["size"] = size
    if template:
        attrs["instance_template"][0].update(template)
    doc["resources"].append(group)
    return doc


def _replace(actions: list[str], **values: Any) -> Edit:
    return Edit(actions, edit(allowed_unsafe_sysctls=SYSCTL, **values),
                replace_paths=[["allowed_unsafe_sysctls"]],
                action_reason="replace_because_cannot_update")


def _rows(run_cli, plan: dict, quotas: str, tmp_path: Path, group: str
          ) -> tuple[int, dict[str, tuple]]:
    res = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas", quotas,
                  "-g", group, "-o", "json")
    rows = {q["quota_id"]: (q["usage"], q["demand"], q["headroom"], q["status"])
            for c in res.json()["clouds"] for q in c["quotas"]
            if q.get("scope") and not q["scope"].startswith("placement group")}
    return res.exit_code, rows


CASES = {
    # a new 2-node group: 11 + 2 = 13 at the peak, the cluster limit 13 holds it;
    # was usage 13, headroom 0, short
    "create": (lambda: _with_web(state(), 2), {WEB: Edit(["create"])}, "web", (13, 2),
               0, {CLUSTER: (11, 2, 2, "ok"), GROUP: (0, 2, 2, "ok")}),
    # workers 3 -> 5: 11 before, 13 after; was usage 13 (cluster) and 5 (group), short
    "resize up": (state, {WORKERS: Edit(["update"], edit(size=5))}, "workers", (13, 5),
                  0, {CLUSTER: (11, 2, 2, "ok"), GROUP: (3, 2, 2, "ok")}),
    # workers 5 -> 3: 13 nodes exist until the resize; was usage 11 and 3
    "resize down": (lambda: state(workers_size=5), {WORKERS: Edit(["update"], edit(size=3))},
                    "workers", (13, 5), 0, {CLUSTER: (13, 0, 0, "ok"), GROUP: (5, 0, 0, "ok")}),
    # a version change with 3 -> 5: grown first, then rolled at 5 with 1/0: 3 + 2 + 1 = 6;
    # was usage 13 and 5, short. Exit 1: workers runs in the example's spread placement group,
    # which holds at most 5 VMs, not 6
    "roll and resize up": (state, {WORKERS: Edit(["update"], edit(version="1.30", size=5))},
                           "workers", (14, 6), 1,
                           {CLUSTER: (11, 3, 3, "ok"), GROUP: (3, 3, 3, "ok")}),
    # create_before_destroy, 3 -> 5: the new 5 beside the old 3 in the cluster (16), yet no
    # group holds more than 5; was usage 13 and 5, demand 5 in both rows (group short)
    "replace create-first": (state, {WORKERS: _replace(["create", "delete"], size=5)},
                             "workers", (16, 5), 1,
                             {CLUSTER: (11, 5, 5, "ok"), GROUP: (3, 2, 2, "ok")}),
    # delete first, 3 -> 5: the old 3 are gone before the new 5 exist: 13 at most;
    # was usage 13 and 5, short
    "replace delete-first": (state, {WORKERS: _replace(["delete", "create"], size=5)},
                             "workers", (13, 5), 1,
                             {CLUSTER: (11, 2, 2, "ok"), GROUP: (3, 2, 2, "ok")}),
}


@pytest.mark.parametrize("case", CASES)
def test_usage_is_the_nodes_before_the_apply_demand_what_it_adds_at_its_peak(
        run_cli, tmp_path: Path, case: str) -> None:
    """Each limit at exactly the nodes the cluster / the largest group holds at the peak:
    headroom == demand, so both rows pass (an extra node would be short). A replace exits 1
    for its blocking finding (replace-deletes-all-nodes / a second whole group), not a row."""
    build, edits, group, (cluster_limit, group_limit), code, expected = CASES[case]
    plan = plans.build_plan(build(), edits)
    got_code, rows = _rows(run_cli, plan, _quotas(tmp_path, cluster_limit, group_limit),
                           tmp_path, group)
    assert rows == expected
    assert got_code == code
    _, tighter = _rows(run_cli, plan, _quotas(tmp_path, cluster_limit - 1, group_limit - 1),
                       tmp_path, group)
    assert {q: row[3] for q, row in tighter.items()} == {
        q: "short" if row[1] else "ok" for q, row in expected.items()}


def test_two_changes_in_one_cluster_add_up_from_the_nodes_before(run_cli, tmp_path: Path
                                                                 ) -> None:
    """web created (3) and workers shrunk 5 -> 3 in one apply, both checked: the 13 nodes that
    exist before, plus web's 3 (the shrink frees nothing to count on while the create runs
    beside it) = 16 against 16. Was usage 8 + 3 (workers after) + 3 (web) = 14, demand 3."""
    plan = plans.build_plan(_with_web(state(workers_size=5), 3), {
        WEB: Edit(["create"]), WORKERS: Edit(["update"], edit(size=3))})
    res = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas",
                  _quotas(tmp_path, 16, 200), "-o", "json")
    (row,) = [q for c in res.json()["clouds"] for q in c["quotas"] if q["quota_id"] == CLUSTER]
    assert (row["usage"], row["demand"], row["headroom"], row["status"]) == (13, 3, 3, "ok")
    # web is created in workers' spread placement group (at most 5 VMs), which workers' 5
    # nodes fill: that row alone is short
    assert [(q["quota_id"], q["usage"], q["demand"]) for c in res.json()["clouds"]
            for q in c["quotas"] if q["status"] == "short"] == [
        ("compute.placementGroupInstances.count", 5, 3)]
    assert res.exit_code == 1, res.stderr


def test_a_created_group_in_a_spread_placement_group_counts_its_nodes_once(
        run_cli, tmp_path: Path) -> None:
    """A new 4-node group in a spread placement group (at most 5 VMs) holds 4 VMs: no warning
    (was "peak is 8 (4 nodes + 4 surge)"); a create-first replace of a 3-node group in one
    puts the new 3 beside the old 3 there: 6 > 5 warns."""
    pg = {"placement_policy": [{"placement_group_id": "fd8pg0example"}]}
    quotas = _quotas(tmp_path, 200, 200)
    created = plans.build_plan(_with_web(state(), 4, pg), {WEB: Edit(["create"])})
    res = run_cli("preflight", "--plan", write(tmp_path, created), "--quotas", quotas,
                  "-g", "web", "-o", "json")
    assert res.exit_code == 0, res.stderr
    assert [w["code"] for w in res.json()["warnings"]] == []
    doc = state()
    workers = next(r for r in doc["resources"] if r.get("name") == "workers")
    workers["instances"][0]["attributes"]["instance_template"][0].update(pg)
    replaced = plans.build_plan(doc, {WORKERS: _replace(["create", "delete"])})
    res = run_cli("preflight", "--plan", write(tmp_path, replaced), "--quotas", quotas,
                  "-g", "workers", "-o", "json")
    (warning,) = [w for w in res.json()["warnings"]
                  if w["code"] == "spread-placement-group-full"]
    assert "the upgrade's peak is 6 (3 nodes + 3 surge)" in warning["message"]
