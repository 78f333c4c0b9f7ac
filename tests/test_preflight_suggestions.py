"""Preflight suggestions say what each fixes, and flag a policy that takes a group down
(issue 11 item 3).

Numbers by hand. Two fixed groups a and b of 4 nodes, 2 cores each, deploy policy 2/0, and
2 cores of headroom: together they need 2 x 2 x 2 = 8 cores. Lowering one group alone cannot
fit (the other still needs 4); a at 0/1 (no surge) and b at 1/0 (1 x 2 = 2 cores) fit exactly.
The example's gpu group is 1 node: its no-surge policy 0/1 leaves 0 of 1 Ready.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLE_STATE, EXAMPLES

CLOUD = "b1gexamplecloud000001"


def _two_groups(tmp_path: Path) -> tuple[Path, Path]:
    doc = json.loads(EXAMPLE_STATE.read_text())
    workers = next(r for r in doc["resources"] if r.get("name") == "workers")
    groups = []
    for name in ("a", "b"):
        g = json.loads(json.dumps(workers))
        g["name"] = name
        attrs = g["instances"][0]["attributes"]
        attrs.update(id=f"catng{name * 15}", name=name,
                     scale_policy=[{"auto_scale": [], "fixed_scale": [{"size": 4}]}],
                     deploy_policy=[{"max_expansion": 2, "max_unavailable": 0}])
        attrs["instance_template"][0]["resources"][0]["cores"] = 2
        # out of workers' spread placement group (5 VMs at most: not both 4-node groups)
        attrs["instance_template"][0]["placement_policy"] = []
        groups.append(g)
    doc["resources"] = [r for r in doc["resources"] if r["type"] != "yandex_kubernetes_node_group"]
    doc["resources"] += groups
    state = tmp_path / "two.tfstate"
    state.write_text(json.dumps(doc))
    quotas = tmp_path / "quotas.json"
    quotas.write_text(json.dumps({CLOUD: {"compute.instanceCores.count":
                                          {"limit": 100, "usage": 98}}}))
    return state, quotas


def test_suggestions_that_fit_together_say_so(run_cli, tmp_path: Path) -> None:
    # Before: the first was labelled "still short: raise the quota", though with the second
    # it fits.
    state, quotas = _two_groups(tmp_path)
    result = run_cli("preflight", "--state", str(state), "--quotas", str(quotas), "-o", "json")
    assert result.exit_code == 1
    got = [(s["address"], s["max_expansion"], s["max_unavailable"], s["fits"],
            s["fits_together"], s["whole_group_down"]) for s in result.json()["suggestions"]]
    assert got == [("yandex_kubernetes_node_group.a", 0, 1, False, True, False),
                   ("yandex_kubernetes_node_group.b", 1, 0, True, True, False)]
    table = run_cli("preflight", "--state", str(state), "--quotas", str(quotas)).stdout
    assert "still short" not in table
    assert ("yandex_kubernetes_node_group.a: max_expansion=0 max_unavailable=1: no surge nodes, "
            "min ready 3 of 4 nodes (75%), 4 cycles (fixes compute.instanceCores.count together "
            "with the suggestion after it)") in table
    assert "(fixes compute.instanceCores.count)" in table


def test_a_suggestion_that_takes_the_whole_group_down_is_flagged(run_cli) -> None:
    # Before: "min ready 0 of 1 nodes (0%)" with no flag, and the hint "apply a suggested
    # deploy policy" as if it were free.
    argv = ["preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(EXAMPLES / "quotas.yaml")]
    result = run_cli(*argv)
    line = next(x for x in result.stdout.splitlines()
                if x.strip().startswith("yandex_kubernetes_node_group.gpu: max_expansion=0"))
    assert "min ready 0 of 1 node (0%)" in line
    assert "WHOLE GROUP DOWN: every node drained at once, its workloads offline" in line
    assert "apply the suggested deploy policies (it takes a whole group offline)" in result.stderr
    (gpu,) = run_cli(*argv, "-o", "json").json()["suggestions"]
    assert (gpu["whole_group_down"], gpu["min_ready_nodes"], gpu["nodes"]) == (True, 0, 1)


def test_when_nothing_is_enough_it_says_raise_the_quota(run_cli, tmp_path: Path) -> None:
    # batch (autoscaled 1..7, 2/1, current size assumed 1) may grow to 7 before the upgrade:
    # 6 VMs that no deploy policy removes (at 0/1: 7 - 1 = 6 extra) against 3 of headroom.
    quotas = tmp_path / "quotas.json"
    quotas.write_text(json.dumps({CLOUD: {"compute.instances.count":
                                          {"limit": 14, "usage": 11}}}))
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "batch",
                     "--quotas", str(quotas))
    assert result.exit_code == 1
    assert ("(eases compute.instances.count, still short with every suggestion: raise the "
            "quota)") in result.stdout
    assert "a short quota: ask for a quota increase" in result.stderr
