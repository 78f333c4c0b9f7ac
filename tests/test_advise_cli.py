"""`ngupgrade advise` as a user runs it, on terraform/examples (state + quotas.yaml).

The example cloud (quotas.yaml): 13 VMs, 42 cores, 2 public IPs, 1248 GiB of HDD and 0 A100
GPUs of headroom. workers: fixed 3 nodes, 4 cores, NAT (1 IP each). batch: autoscaled 1..7,
2 cores, 96 GiB HDD; offline its current size is taken as the min (1), so its worst case is
7 + min(E, 7) - 1 extra VMs. gpu: fixed 1 node with an A100. All three are in one cluster
(catq0n7i0h9ka1b2c3d4), which runs one operation at a time (field report C13);
:func:`two_clusters` moves batch to a second cluster of the same folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLE_STATE, EXAMPLES

QUOTAS = str(EXAMPLES / "quotas.yaml")
BATCH = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'
SECOND_CLUSTER = "catq0n7i0h9kb2c3d4e5"


def two_clusters(tmp_path: Path) -> str:
    """The example state with a second cluster (a copy of ``main``, same folder) holding
    batch; workers and gpu stay in the first."""
    doc = json.loads(EXAMPLE_STATE.read_text())
    main = next(r for r in doc["resources"] if r["type"] == "yandex_kubernetes_cluster")
    second = json.loads(json.dumps(main))
    second["name"] = "second"
    second["instances"][0]["attributes"]["id"] = SECOND_CLUSTER
    doc["resources"].append(second)
    for r in doc["resources"]:
        if r.get("module") == 'module.pools["prod"]':
            r["instances"][0]["attributes"]["cluster_id"] = SECOND_CLUSTER
    path = tmp_path / "two-clusters.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


def test_workers_json(run_cli) -> None:
    result = run_cli("advise", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS,
                     "-g", "workers", "-o", "json")
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert doc["ok"] is True
    workers, = doc["groups"]
    # Two public IPs left: E' <= 2. Floor (default, one node down): U' <= 1.
    assert workers["quota"] == {"checked": True, "cloud_id": "b1gexamplecloud000001",
                                "max_expansion": 2, "unknown": []}
    assert workers["availability"] == {"min_available": 2, "source": "one-node-down",
                                       "max_unavailable": 1, "autoscaler_min": None}
    # 2/0: ceil(3/2) = 2 cycles, 12 min; each of the 3 old nodes has a surge twin for one
    # 6-min cycle: 3 x 6 / 60 = 0.3 node-hours.
    assert workers["recommended"] == {
        "max_expansion": 2, "max_unavailable": 0, "cycles": {"min": 2, "max": 2},
        "minutes": {"min": 12, "max": 12}, "surge_node_hours": 0.3, "min_available_nodes": 3}
    assert [(p["max_expansion"], p["max_unavailable"]) for p in workers["front"]] == [
        (2, 0), (0, 1)]
    rejected = {(r["max_expansion"], r["max_unavailable"]): r["reasons"]
                for r in workers["rejected"]}
    assert rejected[(3, 0)] == [{
        "code": "quota-short",
        "message": "cloud b1gexamplecloud000001: vpc.externalAddresses.count needs 3 IPs, "
                   "headroom 2 IPs (short by 1 IP)"}, {
        # workers' 3 nodes run in the example's spread placement group (at most 5 VMs)
        "code": "quota-short",
        "message": "cloud b1gexamplecloud000001: compute.placementGroupInstances.count "
                   "(placement group fd8examplespread0001) needs 3 VMs, headroom 2 VMs (short "
                   "by 1 VM)"}]
    assert [r["code"] for r in rejected[(1, 2)]] == ["below-min-available"]
    assert workers["calibration"] == {"minutes_per_cycle": 6, "source": "default",
                                      "operations": 0, "samples": [],
                                      "note": "offline: no operation history read"}
    assert workers["set_policy"] == ("ngupgrade set-policy -g yandex_kubernetes_node_group."
                                     "workers --max-expansion 2 --max-unavailable 0 --apply")
    assert workers["terraform"] == ("deploy_policy {\n  max_expansion   = 2\n"
                                    "  max_unavailable = 0\n}")
    assert doc["schedule"] == [{"stage": 1, "start_minutes": 0, "minutes": 12,
                                "why_not_earlier": None, "groups": [
                                    {"address": "yandex_kubernetes_node_group.workers",
                                     "max_expansion": 2, "max_unavailable": 0,
                                     "minutes": 12, "cluster_id": "catq0n7i0h9ka1b2c3d4",
                                     "start_minutes": 0, "after": None}]}]


def test_the_whole_example_gpu_has_no_safe_policy(run_cli) -> None:
    result = run_cli("advise", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS, "-o", "json")
    assert result.exit_code == 1
    assert "no safe deploy policy for yandex_kubernetes_node_group.gpu " \
           "(below-min-available, quota-short)" in result.stderr
    doc = result.json()
    assert doc["ok"] is False
    gpu, workers, batch = doc["groups"]
    assert gpu["recommended"] is None and gpu["set_policy"] is None
    assert [(r["max_expansion"], r["max_unavailable"], [x["code"] for x in r["reasons"]])
            for r in gpu["rejected"]] == [(1, 0, ["quota-short"]),
                                          (0, 1, ["below-min-available"])]
    # batch: worst case 6 + E VMs against 13 (and 96 GiB each against 1248 GiB: 13 nodes):
    # E' <= 7; autoscaler min 1: U = 0. 7/0 is one 6-min cycle.
    assert batch["quota"]["max_expansion"] == 7
    assert batch["availability"]["max_unavailable"] == 0
    assert (batch["recommended"]["max_expansion"], batch["recommended"]["minutes"]) == (
        7, {"min": 6, "max": 6})
    # One cluster: batch behind workers (12 min) would end at 12 + 6 = 18, adding its whole
    # 6 min, no less than a stage of its own: stage 2 at 12, with its own 7/0. 12 + 6 = 18.
    cluster = "catq0n7i0h9ka1b2c3d4"
    assert doc["schedule"] == [
        {"stage": 1, "start_minutes": 0, "minutes": 12, "why_not_earlier": None, "groups": [
            {"address": "yandex_kubernetes_node_group.workers", "max_expansion": 2,
             "max_unavailable": 0, "minutes": 12, "cluster_id": cluster, "start_minutes": 0,
             "after": None}]},
        {"stage": 2, "start_minutes": 12, "minutes": 6, "why_not_earlier": (
            f"with stage 1: its cluster {cluster} runs one operation at a time: "
            "it would wait for yandex_kubernetes_node_group.workers (12 min); joining "
            "stage 1 at 7/0 would add 6 min, no less than running alone"), "groups": [
            {"address": BATCH, "max_expansion": 7, "max_unavailable": 0, "minutes": 6,
             "cluster_id": cluster, "start_minutes": 12, "after": None}]}]
    assert doc["schedule_minutes"] == {"total": 18, "sequential": 18}
    assert workers["recommended"]["max_expansion"] == 2


def test_table_prints_the_command_and_the_terraform_block(run_cli) -> None:
    result = run_cli("advise", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS, "-g", BATCH)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{BATCH}  (batch, 7 nodes, max)"
    assert "  recommended: 7/0: 1 cycle, 6 min, 0.7 surge node-hours, 7 of 7 nodes Ready at " \
           "worst" in lines
    assert ("    ngupgrade set-policy -g 'module.pools[\"prod\"].yandex_kubernetes_node_group."
            "this[\"batch\"]' --max-expansion 7 --max-unavailable 0 --apply") in lines
    assert "      max_expansion   = 7" in lines
    assert "  quota: cloud b1gexamplecloud000001: max_expansion up to 7 fits" in lines


def test_without_quotas_the_quota_is_not_checked(run_cli) -> None:
    result = run_cli("advise", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--min-available", "1", "-o", "json")
    assert result.exit_code == 0, result.stderr
    workers, = result.json()["groups"]
    assert workers["quota"]["checked"] is False
    # No quota limits the surge, but workers' spread placement group holds 5 VMs: 2 surge
    # nodes at most, so 0/2 (floor 1 Ready), two cycles, as fast as 2/0 without a surge.
    assert workers["quota"]["max_expansion"] == 2
    assert (workers["recommended"]["max_expansion"],
            workers["recommended"]["max_unavailable"]) == (0, 2)


def test_usage_errors(run_cli) -> None:
    bad = run_cli("advise", "--state", str(EXAMPLE_STATE), "--min-available", "150%")
    assert bad.exit_code == 2
    assert "a percentage is 0..100" in bad.stderr
    nothing = run_cli("advise", "--state", str(EXAMPLE_STATE), "-g", "nope")
    assert nothing.exit_code == 2


def test_help_has_examples_and_exit_codes(run_cli) -> None:
    result = run_cli("advise", "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout and "Exit codes:" in result.stdout
    assert "--min-available N|P%" in result.stdout
    top = run_cli("--help")
    assert "advise" in top.stdout


def test_cluster_objects_reach_the_drain_check() -> None:
    from ngupgrade.app.advise import AdviseRequest, advise
    from ngupgrade.app.settings import Settings
    from tests import drain_builders as d

    # workers (3 nodes of 4 cores, id cat1ng0fixed0000abcd): 2 api pods of 1000m on each
    # node, PDB maxUnavailable 1. With cluster objects the floor only forbids the whole group
    # down and the drain check decides; the quota file allows E' <= 2 (2 public IPs). 2/0
    # (2 cycles) drains 2 nodes once 2 surge nodes are Ready: clear, and the fastest.
    gid = "cat1ng0fixed0000abcd"
    pods = [d.pod(f"api-{n}-{k}", n, cpu=1000, app="api", owner=("ReplicaSet", "api-rs"))
            for n in ("n1", "n2", "n3") for k in range(2)]
    snap = d.cluster([d.node(n, group=gid) for n in ("n1", "n2", "n3")], pods,
                     workloads=d.deployment("api", 6),
                     pdbs=(d.pdb("api", "api", max_unavailable=1),))
    settings = Settings(state=str(EXAMPLE_STATE))
    result = advise(settings, AdviseRequest(selectors=("workers",), quotas_file=QUOTAS,
                                            min_available=None), cluster=snap)
    workers, = result.groups
    assert workers.workloads_checked
    assert workers.availability.floor_source == "whole-group"
    assert workers.search.workload_checks >= 1
    rec = workers.recommended
    assert rec is not None and (rec.max_expansion, rec.max_unavailable) == (2, 0)
    blocked = {(r.candidate.max_expansion, r.candidate.max_unavailable):
               [x.code for x in r.reasons] for r in workers.search.rejected}
    assert blocked[(3, 0)] == ["quota-short", "quota-short"]  # public IPs, placement group


def test_the_printed_commands_are_the_schedules_and_fit_together(run_cli,
                                                                  tmp_path: Path) -> None:
    """Batch in a second cluster (headroom 13 VMs, 2 IPs): workers alone 2/0 (NAT: 2 IPs), 2
    cycles, 12 min; batch alone 7/0 (7 + 7 - 1 = 13 VMs), 6 min. Beside workers' 2 VMs batch
    may take 11: 7 + E - 1 <= 11, E <= 5, ceil(7/5) = 2 cycles = 12 min, first reached at 4/0,
    adding 0 min to workers' 12: one stage. The commands printed are 2/0 and 4/0 (2 + 10 = 12
    VMs <= 13); batch's own 7/0 is still shown as the recommendation alone."""
    state = two_clusters(tmp_path)
    result = run_cli("advise", "--state", state, "--quotas", QUOTAS, "-g", "workers",
                     "-g", BATCH)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "  recommended: 7/0: 1 cycle, 6 min, 0.7 surge node-hours, 7 of 7 nodes Ready at " \
           "worst" in lines
    assert ("  in the schedule (stage 1, sharing the cloud's headroom): 4/0: 2 cycles, 12 min, "
            "0.7 surge node-hours, 7 of 7 nodes Ready at worst") in lines
    assert ("    ngupgrade set-policy -g 'module.pools[\"prod\"].yandex_kubernetes_node_group."
            "this[\"batch\"]' --max-expansion 4 --max-unavailable 0 --apply") in lines
    assert ("    ngupgrade set-policy -g yandex_kubernetes_node_group.workers --max-expansion 2 "
            "--max-unavailable 0 --apply") in lines
    doc = run_cli("advise", "--state", state, "--quotas", QUOTAS, "-g", "workers",
                  "-g", BATCH, "-o", "json").json()
    assert doc["schedule_minutes"] == {"total": 12, "sequential": 18}
    batch = doc["groups"][1]
    assert (batch["recommended"]["max_expansion"], batch["scheduled"]["max_expansion"],
            batch["scheduled"]["stage"]) == (7, 4, 1)
    assert "--max-expansion 4 " in batch["set_policy"]
    assert any(w["code"] == "current-size-assumed" for w in batch["warnings"])


def test_a_long_roll_gets_a_terraform_timeout(run_cli) -> None:
    """workers at 40 min per cycle: 2/0 (the IPs), 2 cycles = 80 min > 60: the plan's
    terraform-update-timeout-exceeded, and the block says timeouts { update = "2h" }
    (80 x 1.2 = 96 min, rounded up to hours)."""
    result = run_cli("advise", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS, "-g",
                     "workers", "--cycle-minutes", "40", "-o", "json")
    workers, = result.json()["groups"]
    assert [w["code"] for w in workers["warnings"]] == ["terraform-update-timeout-exceeded"]
    assert workers["terraform"] == ("deploy_policy {\n  max_expansion   = 2\n"
                                    "  max_unavailable = 0\n}\ntimeouts {\n  update = \"2h\"\n}")


def test_quota_flags_without_a_quota_source_are_usage_errors(run_cli) -> None:
    for flag in (["--strict"], ["--at-current-size"], ["--cloud-id", "x"]):
        res = run_cli("advise", "--state", str(EXAMPLE_STATE), *flag)
        assert res.exit_code == 2, flag
        assert f"{flag[0]} judge the quota" in res.stderr
    floor = run_cli("advise", "--state", str(EXAMPLE_STATE), "-g", "workers",
                    "--min-available", "4")
    assert floor.exit_code == 1
    assert "the floor of 4 Ready nodes (--min-available) is above the group's 3" in floor.stdout
    huge = run_cli("advise", "--state", str(EXAMPLE_STATE), "-g", "workers",
                   "--min-available", "99999999999999999999")
    assert huge.exit_code == 1 and "Traceback" not in huge.stderr


def test_report_wording(run_cli, tmp_path: Path) -> None:
    """--cycle-minutes named once; a stage says when it starts and how long it takes;
    --max-parallel 1 (batch in a second cluster): "1 operation already runs"; batch (auto
    1..7, 7 nodes, floor 6): U could be 1 by the floor but stays 0 below the autoscaler min 1,
    and the line says why."""
    base = ["advise", "--state", str(EXAMPLE_STATE), "--quotas", QUOTAS]
    lines = run_cli(*base, "-g", "workers", "--cycle-minutes", "0.5").stdout.splitlines()
    assert "  minutes per cycle: 0.5 (--cycle-minutes)" in lines
    out = run_cli("advise", "--state", two_clusters(tmp_path), "--quotas", QUOTAS, "-g",
                  "workers", "-g", BATCH, "--max-parallel", "1").stdout
    assert "  stage 2: starts at 12 min, takes up to 6 min" in out.splitlines()
    assert "with stage 1: 1 operation already runs in b1gexamplefolder00001" in out
    assert ("max_unavailable up to 0 (below the autoscaler min 1)"
            in run_cli(*base, "-g", BATCH).stdout)
