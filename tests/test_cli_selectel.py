"""The example Selectel state through ``groups``, ``plan`` and ``preflight`` (the README's
commands, numbers worked out by hand), and the commands that refuse it without sending."""

from __future__ import annotations

from pathlib import Path

import pytest

from ngupgrade.app.timing import Timing
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, node_group
from tests.conftest import EXAMPLE_STATE, EXAMPLES

STATE = str(EXAMPLES / "selectel" / "terraform.tfstate")
QUOTAS = str(EXAMPLES / "selectel" / "quotas.yaml")
PROJECT = "9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50"
WORKERS = "selectel_mks_nodegroup_v1.workers"
BATCH = "selectel_mks_nodegroup_v1.batch"


def test_groups_lists_the_selectel_groups_with_the_default_0_1_assumed(run_cli) -> None:
    res = run_cli("groups", "--state", STATE, "-o", "json")
    assert res.exit_code == 0, res.stderr
    # Terraform sorts resources by type and name (statefile/version4.go sortResourcesV4)
    batch, cache, workers = res.json()["groups"]
    assert workers["platform"] == "selectel"
    assert workers["policy"] == {"max_expansion": 0, "max_unavailable": 1, "source": "default",
                                 "assumed": True}
    assert workers["placement"] == {"project_id": PROJECT, "region": "ru-7", "zone": "ru-7a",
                                    "flavor_id": None}
    assert workers["node"]["memory_bytes"] == 8589934592
    assert batch["scale"] == {"type": "auto", "min": 1, "max": 5, "initial": 2}
    assert batch["node_taints"] == [{"key": "dedicated", "value": "batch",
                                     "effect": "NoSchedule"}]
    assert workers["node_labels"] == {"role": "workers"}
    assert cache["node"] is None
    table = run_cli("groups", "--state", STATE)
    assert "unset (0/1 assumed)" in table.stdout and "flavor 1011" in table.stdout


def test_plan_with_the_default_strategy_is_one_node_at_a_time(run_cli) -> None:
    """0/1 on 5 nodes: 5 waves of 1, 4 Ready at least; in place by an unknown method."""
    res = run_cli("plan", "--state", STATE, "-g", WORKERS, "-o", "json")
    assert res.exit_code == 0, res.stderr
    (plan,) = res.json()["groups"]
    assert plan["policy"]["source"] == "default" and plan["policy"]["assumed"]
    assert (plan["surge_nodes"], plan["peak_nodes"], plan["min_available_nodes"]) == (0, 5, 4)
    assert plan["cycles"] == {"min": 5, "max": 5}
    assert [w["code"] for w in plan["warnings"]] == ["policy-assumed"]
    assert [n["code"] for n in plan["data_notes"]] == ["in-place-method-unknown"]


def test_plan_s_ex3_through_the_cli(run_cli) -> None:
    """Seed 001 L205-L223 on the example's 5-node group: 3..7 Ready nodes, 2 old nodes
    deleted with their local data, 3 rebooted."""
    res = run_cli("plan", "--state", STATE, "-g", WORKERS, "--max-expansion", "2",
                  "--max-unavailable", "2", "--method", "reboot", "-o", "json")
    assert res.exit_code == 0, res.stderr
    (plan,) = res.json()["groups"]
    assert plan["platform"] == "selectel"
    assert (plan["peak_nodes"], plan["min_available_nodes"]) == (7, 3)
    assert plan["cycles"] == {"min": 2, "max": 3}
    actions = [(s["action"], s["nodes"]) for s in plan["timeline"]]
    assert sum(n for a, n in actions if a == "delete") == 2
    assert sum(n for a, n in actions if a == "update_in_place") == 3
    assert [n["code"] for n in plan["data_notes"]] == [
        "deleted-nodes-lose-local-data", "new-private-ips"]
    assert plan["warnings"] == []  # no Terraform update timeout on Selectel
    text = run_cli("plan", "--state", STATE, "-g", WORKERS, "--max-expansion", "2",
                   "--max-unavailable", "2", "--method", "reinstall")
    assert "3 nodes reinstalled in place: boot-disk data is lost" in text.stdout


def test_plan_refuses_a_surge_above_the_selectel_node_count(run_cli) -> None:
    """Seed 001 L30: 0..the node count; the example's group has 5."""
    res = run_cli("plan", "--state", STATE, "-g", WORKERS, "--max-expansion", "6")
    assert res.exit_code == 1
    assert ("selectel_mks_nodegroup_v1.workers: deploy policy: max_expansion 6 is out of "
            "range 0..5 (the node count)") in res.stderr
    assert run_cli("plan", "--state", STATE, "-g", WORKERS, "--max-expansion", "5").exit_code == 0


def test_the_assumed_default_is_named_as_the_group_platform_s(run_cli) -> None:
    # The label said "Yandex default assumed" for a Selectel group too.
    res = run_cli("plan", "--state", STATE, "-g", WORKERS)
    assert res.exit_code == 0, res.stderr
    assert ("deploy policy   max_expansion 0, max_unavailable 1 (unset in the state: Selectel "
            "default assumed)") in res.stdout
    assert "Yandex" not in res.stdout


def test_platform_flag_puts_a_yandex_state_under_selectel_rules(run_cli) -> None:
    """The Yandex example's workers group has 3 nodes: under Selectel's rules 4 is too many."""
    res = run_cli("plan", "--state", str(EXAMPLE_STATE), "--platform", "selectel",
                  "-g", "workers", "--max-expansion", "4")
    assert res.exit_code == 1
    assert "max_expansion 4 is out of range 0..3 (the node count)" in res.stderr
    yandex = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--max-expansion", "4", "-o", "json")
    assert yandex.exit_code == 0 and yandex.json()["groups"][0]["peak_nodes"] == 6


def test_plan_method_reinstall_is_not_a_yandex_method(run_cli) -> None:
    res = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "workers",
                  "--method", "reinstall")
    assert res.exit_code == 2
    assert "updates nodes in place by reboot" in res.stderr


def test_preflight_extra_nodes_against_the_project_quotas(run_cli) -> None:
    """E=2, U=1. workers (fixed 5): 2 extra x (4 vCPU, 8192 MB, 32 GB fast). batch (1..5,
    offline at its min 1): 5 + min(2, 5) - 1 = 6 extra x (2 vCPU, 4096 MB, 20 GB universal).
    vCPU 8 + 12 = 20 = headroom 60 - 40: ok; RAM 16384 + 24576 = 40960 > 131072 - 98304 =
    32768: short by 8192 MB; fast 64 <= 200; universal 120 <= 400."""
    res = run_cli("preflight", "--state", STATE, "-g", WORKERS, "-g", BATCH,
                  "--quotas", QUOTAS, "--max-expansion", "2", "--max-unavailable", "1",
                  "-o", "json")
    assert res.exit_code == 1
    doc = res.json()
    (project,) = doc["clouds"]
    assert project["cloud_id"] == PROJECT
    got = {q["quota_id"]: (q["headroom"], q["demand"], q["status"]) for q in project["quotas"]}
    assert got == {
        "compute_cores.ru-7a": (20, 20, "ok"),
        "compute_ram.ru-7a": (32768, 40960, "short"),
        "volume_gigabytes_fast.ru-7a": (200, 64, "ok"),
        "volume_gigabytes_universal.ru-7a": (400, 120, "ok"),
    }
    workers, batch = doc["groups"]
    assert workers["per_node"] == {"compute_cores.ru-7a": 4, "compute_ram.ru-7a": 8192,
                                   "volume_gigabytes_fast.ru-7a": 32}
    assert (workers["extra_nodes"]["worst_case"], batch["extra_nodes"]["worst_case"]) == (2, 6)
    assert workers["policy"]["source"] == "override"
    # workers at E=1: RAM 8192 + 24576 = 32768, exactly the headroom (equality passes)
    (suggestion,) = doc["suggestions"]
    assert (suggestion["address"], suggestion["max_expansion"], suggestion["fits"]) == (
        WORKERS, 1, True)
    table = run_cli("preflight", "--state", STATE, "-g", WORKERS, "-g", BATCH,
                    "--quotas", QUOTAS, "--max-expansion", "2", "--max-unavailable", "1")
    assert f"project {PROJECT}" in table.stdout
    assert "SHORT by 8192 MB" in table.stdout
    assert "Selectel control panel" in table.stderr


def test_preflight_with_the_default_strategy_needs_no_extra_node(run_cli) -> None:
    """0/1: no surge; the worst case is only the autoscaler growing batch from 1 to 5."""
    res = run_cli("preflight", "--state", STATE, "-g", WORKERS, "--quotas", QUOTAS, "-o", "json")
    assert res.exit_code == 0, res.stderr
    doc = res.json()
    assert doc["groups"][0]["extra_nodes"]["worst_case"] == 0
    assert [w["code"] for w in doc["warnings"]] == ["policy-assumed"]


def test_preflight_refuses_what_it_cannot_check(run_cli, tmp_path: Path) -> None:
    flavor = run_cli("preflight", "--state", STATE, "-g", "selectel_mks_nodegroup_v1.cache",
                     "--quotas", QUOTAS)
    assert flavor.exit_code == 1
    assert "flavor_id '1011' without cpus/ram_mb" in flavor.stderr
    live = run_cli("preflight", "--state", STATE, "-g", WORKERS)
    assert live.exit_code == 2 and "pass --quotas FILE" in live.stderr
    other = tmp_path / "other.yaml"
    other.write_text("project_id: another\nquotas:\n  compute_cores: []\n")
    res = run_cli("preflight", "--state", STATE, "-g", WORKERS, "--quotas", str(other))
    assert res.exit_code == 2
    assert f"the quotas are for project another; not for {WORKERS} (project {PROJECT})" \
        in res.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"project_id: {PROJECT}\nquotas:\n  compute_ram_mb: []\n")
    res = run_cli("preflight", "--state", STATE, "-g", WORKERS, "--quotas", str(bad))
    assert res.exit_code == 3
    assert res.stderr.splitlines()[0] == (
        f"error: {bad}: $.quotas.compute_ram_mb: unknown key 'compute_ram_mb' "
        "(did you mean 'compute_ram'?)")
    assert "Traceback" not in res.stderr


YANDEX_QUOTAS = str(EXAMPLES / "quotas.yaml")


@pytest.mark.parametrize("command", ["preflight", "advise"])
def test_a_yandex_quota_file_beside_a_selectel_state_is_named_so(run_cli, command) -> None:
    # Before: "$.b1gexamplecloud000001: unknown key 'b1gexamplecloud000001' (known:
    # project_id, quotas)", as if the Selectel file had a typo.
    res = run_cli(command, "--state", STATE, "-g", WORKERS, "--quotas", YANDEX_QUOTAS)
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        f"error: {YANDEX_QUOTAS}: $: this is a Yandex quota file; the state's groups are "
        "Selectel",
        "hint: pass --quotas with the Selectel project's quotas: {project_id, quotas: "
        "{RESOURCE: [{zone, value, used}]}} (docs/selectel.md); a Yandex quota file goes with "
        "a Yandex state"]


@pytest.mark.parametrize("command", ["preflight", "advise"])
def test_a_selectel_quota_file_beside_a_yandex_state_is_named_so(run_cli, command) -> None:
    # Before: "$.project_id: expected an object of quota id -> {limit, usage}, found a string".
    res = run_cli(command, "--state", str(EXAMPLE_STATE), "-g", "workers", "--quotas", QUOTAS)
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        f"error: {QUOTAS}: $: this is a Selectel quota file; the state's groups are Yandex",
        "hint: pass --quotas with the Yandex cloud's quotas: {CLOUD_ID: {QUOTA_ID: {limit, "
        "usage}}} or the Quota Manager's ListQuotaLimitsResponse (docs/quota-preflight.md); a "
        "Selectel quota file goes with a Selectel state"]


def test_advise_reads_the_selectel_project_quotas(run_cli) -> None:
    # Before: advise read every quota file as Yandex's, so no Selectel file was ever taken.
    # workers: 5 nodes, 4 vCPUs, 8192 MB each; headroom 20 vCPUs, 32768 MB: 4 surge nodes fit
    # (32768 MB), 5 do not (40960 MB).
    res = run_cli("advise", "--state", STATE, "-g", WORKERS, "--quotas", QUOTAS)
    assert res.exit_code == 0, res.stderr
    assert f"quota: cloud {PROJECT}: max_expansion up to 4 fits" in res.stdout
    assert ("quota-short: cloud 9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50: compute_ram.ru-7a needs "
            "40960 MB, headroom 32768 MB (short by 8192 MB)") in res.stdout


@pytest.fixture
def fake(monkeypatch, run_cli):
    """A running fake Yandex cloud: the refusals below must send it nothing."""
    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    monkeypatch.delenv("YC_TOKEN", raising=False)
    cloud = FakeCloud([node_group("catgroup000000000001", size=3,
                                  policy=DeployPolicy(1, 0))], {}).start()
    run_cli.timing = Timing(cloud.now, cloud.sleep)
    yield cloud
    cloud.stop()


@pytest.mark.parametrize("args", [
    ("set-policy", "--group", WORKERS, "--max-expansion", "2", "--apply"),
    ("upgrade", "--group", WORKERS, "--version", "1.30", "--apply"),
    ("wait", "--group", WORKERS),
])
def test_changing_commands_refuse_a_selectel_group_and_send_nothing(run_cli, fake, args
                                                                     ) -> None:
    res = run_cli("--endpoint", fake.endpoint, "--insecure", "--state", STATE, *args)
    assert res.exit_code == 2
    assert f"{WORKERS} is on Selectel Managed Kubernetes" in res.stderr
    assert "nothing was sent" in res.stderr and "control panel" in res.stderr
    assert fake.calls == []


def test_platform_selectel_refuses_set_policy_by_id_too(run_cli, fake, monkeypatch) -> None:
    monkeypatch.chdir("/")  # no ./terraform.tfstate: the group is named by id
    res = run_cli("--endpoint", fake.endpoint, "--insecure", "--platform", "selectel",
                  "set-policy", "--group", "catgroup000000000001", "--max-expansion", "2")
    assert res.exit_code == 2
    assert "--platform selectel is on Selectel Managed Kubernetes" in res.stderr
    assert fake.calls == []


def test_advise_schedules_the_groups_of_a_selectel_cluster_as_preflight_counts(run_cli) -> None:
    # A Selectel cluster upgrades its groups together (Platform.cluster_groups), so their
    # surges add up, as preflight counts them: workers 3/0 (3 x 4 = 12 cores) and batch 3/0
    # (14 cores more) need 26 cores, headroom 20: batch gets a stage of its own for the cores,
    # which is preflight's --sequential. Before: advise put them in one lane of the cluster
    # ("runs one operation at a time", Yandex's rule) while its schedule line said "together".
    res = run_cli("advise", "--state", STATE, "--quotas", QUOTAS, "-g", WORKERS, "-g", BATCH)
    assert res.exit_code == 0, res.stderr
    assert "runs one operation at a time" not in res.stdout
    assert (f"    not earlier: with stage 1: cloud {PROJECT}: compute_cores.ru-7a headroom 20 "
            "cores, 12 cores taken by the stage, 14 cores more needed\n"
            f"    {BATCH}  3/0, up to 12 min\n") in res.stdout
    base = ("preflight", "--state", STATE, "--quotas", QUOTAS, "-g", WORKERS, "-g", BATCH,
            "--max-expansion", "3", "--max-unavailable", "0")
    assert run_cli(*base).exit_code == 1
    assert run_cli(*base, "--sequential").exit_code == 0


def test_advise_says_when_its_pick_fails_plan_strict(run_cli) -> None:
    # batch (autoscaled 1..5, planned at its max offline): the fastest safe policy 5/0 peaks
    # above the autoscaler max, a warning plan --strict fails on. Before: advise listed the
    # warning but never said its pick fails the CI gate.
    res = run_cli("advise", "--state", STATE, "-g", BATCH, "-o", "json")
    assert res.exit_code == 0, res.stderr
    group, = res.json()["groups"]
    rec = group["recommended"]
    assert (rec["max_expansion"], rec["max_unavailable"]) == (5, 0)
    assert group["plan_strict_fails_on"] == ["peak-above-autoscaler-max"]
    text = run_cli("advise", "--state", STATE, "-g", BATCH).stdout
    assert ("  `ngupgrade plan --strict` fails on this policy: peak-above-autoscaler-max; after "
            "reading it pass it with --accept peak-above-autoscaler-max\n") in text
    plan = ("plan", "--state", STATE, "-g", BATCH, "--max-expansion", "5",
            "--max-unavailable", "0", "--strict")
    assert run_cli(*plan).exit_code == 1
    assert run_cli(*plan, "--accept", "peak-above-autoscaler-max").exit_code == 0
