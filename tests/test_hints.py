"""Hints that point the way the failure is (a new user's report): each names the lever the
failure asks for, not one of another failure. Through the CLI, exact text and exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ngupgrade.app.timing import Timing
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, node_group
from tests._tfplan import WORKERS, Edit, edit, plans, state, write
from tests.conftest import EXAMPLE_STATE, EXAMPLES
from tests.test_drain import C15_LIST
from tests.test_drain_check_cli import blocked_cluster, dump

STATE = str(EXAMPLE_STATE)
QUOTAS = str(EXAMPLES / "quotas.yaml")
ROLL_PLAN = EXAMPLES / "plan-roll.json"


def hint_of(stderr: str) -> str:
    (line,) = [x for x in stderr.splitlines() if x.startswith("hint: ")]
    return line[len("hint: "):]


# ---- (a) a plan gate blocked by node resources known only after apply ------------------------

@pytest.mark.parametrize("command", [["plan"], ["preflight", "--quotas", QUOTAS]])
def test_unknown_node_cores_hint_says_make_them_known_not_replace(run_cli, tmp_path: Path,
                                                                  command: list[str]) -> None:
    # Before, plan: "see docs/plan-gate.md: change a replaced group so it can be updated in
    # place", though nothing is replaced; preflight: "see docs/plan-gate.md for each ...".
    plan = plans.build_plan(state(), {WORKERS: Edit(
        ["update"], edit(version="1.30"),
        unknown=[("instance_template", 0, "resources", 0, "cores")])})
    res = run_cli(*command, "--plan", write(tmp_path, plan))
    assert res.exit_code == 1
    assert res.stderr.splitlines()[0] == (
        f"error: plan gate failed: {WORKERS}: instance_template.resources.cores unknown until "
        "apply: what a node consumes cannot be judged (figures use the values before apply)")
    assert hint_of(res.stderr) == (
        "node resources known only after apply cannot be judged: make them known at plan "
        "time (apply what they are computed from first), then gate the new plan "
        "(docs/plan-gate.md, values known only after apply)")


def test_a_replace_hint_still_names_the_replace(run_cli) -> None:
    res = run_cli("plan", "--plan", str(EXAMPLES / "plan-replace.json"))
    assert res.exit_code == 1
    assert hint_of(res.stderr) == (
        "a replace deletes every node of the group: make the change one the provider updates "
        "in place, or accept the downtime outside this gate (docs/plan-gate.md)")


# ---- (b) a truncated plan JSON ----------------------------------------------------------------

def test_a_truncated_plan_names_terraform_show_not_state_pull(run_cli, tmp_path: Path) -> None:
    # Before: "a partial `terraform state pull` looks like this".
    cut = tmp_path / "plan.json"
    cut.write_bytes(ROLL_PLAN.read_bytes()[:3000])
    res = run_cli("plan", "--plan", str(cut))
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        f"error: {cut}: $: not valid JSON: Input data was truncated",
        "hint: is the file complete? a truncated download or a partial `terraform show -json "
        "PLANFILE` looks like this"]


def test_a_truncated_state_still_names_state_pull(run_cli, tmp_path: Path) -> None:
    cut = tmp_path / "terraform.tfstate"
    cut.write_bytes(EXAMPLE_STATE.read_bytes()[:3000])
    res = run_cli("groups", "--state", str(cut))
    assert res.exit_code == 3
    assert hint_of(res.stderr) == ("is the file complete? a truncated download or a partial "
                                   "`terraform state pull` looks like this")


# ---- (c) tf:DIR/PLANFILE where DIR exists and PLANFILE does not -----------------------------

def test_a_missing_plan_file_in_an_existing_directory_is_named(run_cli, tmp_path: Path) -> None:
    # Before: "tf:DIR/nofile: no such directory", though DIR exists.
    res = run_cli("preflight", "--plan", f"tf:{tmp_path}/nofile", "--quotas", QUOTAS)
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        f"error: tf:{tmp_path}/nofile: no directory or saved plan file 'nofile' in {tmp_path}",
        f"hint: run `terraform plan -out=nofile` in {tmp_path} first, or check the name "
        "(tf:DIR runs `show` on DIR/tfplan)"]


def test_a_missing_parent_directory_is_still_no_such_directory(run_cli, tmp_path: Path
                                                               ) -> None:
    res = run_cli("plan", "--plan", f"tf:{tmp_path}/nodir/nofile")
    assert res.exit_code == 3
    assert res.stderr.splitlines()[0] == f"error: tf:{tmp_path}/nodir/nofile: no such directory"


# ---- (d) a PodDisruptionBudget under --strict is no quota ------------------------------------

def test_a_pdb_blocker_alone_is_not_called_a_quota_failure(run_cli, tmp_path: Path) -> None:
    # Before: "quota preflight failed: PodDisruptionBudget ns-a/pdb-a allows 0 disruptions".
    pdbs = tmp_path / "pdbs.json"
    pdbs.write_text(json.dumps(C15_LIST))
    res = run_cli("preflight", "--state", STATE, "--quotas", QUOTAS, "-g", "workers",
                  "--pdbs", str(pdbs), "--strict")
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        "error: preflight failed: drain blocker (--strict): PodDisruptionBudget ns-a/pdb-a "
        "allows 0 disruptions",
        "hint: a PodDisruptionBudget allows no disruption under --strict: scale its workload "
        "or relax the budget before the upgrade, or drop --strict"]
    both = run_cli("preflight", "--state", STATE, "--quotas", QUOTAS, "-g", "gpu",
                   "--pdbs", str(pdbs), "--strict")
    assert both.exit_code == 1
    assert both.stderr.splitlines()[0] == (
        "error: quota preflight failed: b1gexamplecloud000001: compute.instanceA100Gpus.count "
        "needs 1 GPU, headroom 0 GPUs; drain blocker (--strict): PodDisruptionBudget "
        "ns-a/pdb-a allows 0 disruptions")


# ---- (e) advise: the hint follows the codes that block ---------------------------------------

def test_advise_blocked_by_workloads_only_is_not_told_to_raise_the_quota(run_cli,
                                                                          tmp_path: Path) -> None:
    # Before: "raise the quota, lower --min-available, or fix what blocks the drain ...":
    # workers' quota fits (max_expansion up to 2) and the floor is the whole group's, the
    # lowest there is; only the PDB over the 1-replica api blocks.
    res = run_cli("advise", "--state", STATE, "-g", "workers", "--quotas", QUOTAS,
                  "--cluster", dump(tmp_path, blocked_cluster()))
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        "error: no safe deploy policy for yandex_kubernetes_node_group.workers "
        "(below-min-available, forced-stop, pdb-blocks-eviction)",
        "hint: fix what blocks the drain (after reading a drain finding, --accept CODE "
        "proceeds past it)"]


@pytest.mark.parametrize(("floor", "hint"), [
    # a Yandex state: no word of Selectel's control panel; gpu has one node, so the
    # whole-group floor's only lever is --min-available 0
    ([], "raise the quota (Quota Manager); --min-available 0 lets a one-node group go down "
         "for its upgrade (its pods have nowhere to run meanwhile)"),
    (["--min-available", "1"], "raise the quota (Quota Manager); lower --min-available"),
])
def test_advise_blocked_by_the_quota_is_told_to_raise_it(run_cli, floor: list[str],
                                                         hint: str) -> None:
    # gpu: 1 node, no A100 headroom: any surge is short; 0/1 takes the one node down, below
    # the whole-group floor (not lowerable), or below --min-available 1 (lowerable).
    res = run_cli("advise", "--state", STATE, "-g", "gpu", "--quotas", QUOTAS, *floor)
    assert res.exit_code == 1
    assert hint_of(res.stderr) == hint


# ---- (f) --cloud-id naming a cloud the quota file does not hold ------------------------------

def test_a_cloud_id_not_in_the_file_is_not_told_to_pass_cloud_id(run_cli) -> None:
    # Before: "hint: export the quotas of that cloud, or pass --cloud-id" (it was passed).
    res = run_cli("preflight", "--state", STATE, "--quotas", QUOTAS, "--cloud-id", "b1gother")
    assert res.exit_code == 3
    assert res.stderr.splitlines() == [
        f"error: {QUOTAS}: no quotas for cloud b1gother (the file holds: "
        "b1gexamplecloud000001)",
        "hint: export the quotas of cloud b1gother into the file, or check --cloud-id: it "
        "names the cloud of every group (the file's: b1gexamplecloud000001)"]


# ---- (g) set-policy -g <id the cloud does not know>, no state --------------------------------

@pytest.fixture
def fake(monkeypatch, run_cli):
    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    monkeypatch.delenv("YC_TOKEN", raising=False)
    monkeypatch.chdir("/")  # no ./terraform.tfstate: the group is named by id only
    cloud = FakeCloud([node_group("catgroup000000000001", size=3,
                                  policy=DeployPolicy(1, 0))], {}).start()
    run_cli.timing = Timing(cloud.now, cloud.sleep)
    yield cloud
    cloud.stop()


def test_set_policy_on_an_unknown_id_without_a_state_blames_no_state(run_cli, fake) -> None:
    # Before: "hint: check the id; the state may be older than the cloud" with no state read.
    res = run_cli("--endpoint", fake.endpoint, "--insecure", "set-policy",
                  "-g", "catgroup0000000000zz", "--max-expansion", "2")
    assert res.exit_code == 4
    assert "Node group catgroup0000000000zz not found [NOT_FOUND]" in res.stderr
    assert hint_of(res.stderr) == (
        "check the id: the cloud has no node group catgroup0000000000zz, and no Terraform "
        "state gave it (`yc managed-kubernetes node-group list` lists a folder's groups)")
