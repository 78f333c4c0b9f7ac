"""Wrong input read as empty input is a failure: a file given to the wrong flag is named as
what it is, with the flag that takes it (exit 3, bad input); a state with no node group fails
a gate that asked for one (``--strict``, ``-g``: exit 1); a quota file that cannot be opened
reads like a state that cannot (one line, the path, a hint).

Inputs are the repository's examples, as their producers write them: ``terraform show -json``
of a saved plan (terraform/examples/plan-roll.json), ``kubectl get -o json`` of a cluster
(cluster.json), a raw v4 state, the quota file (quotas.yaml).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLE_STATE, EXAMPLES

STATE = str(EXAMPLE_STATE)
PLAN = str(EXAMPLES / "plan-roll.json")
CLUSTER = str(EXAMPLES / "cluster.json")
QUOTAS = str(EXAMPLES / "quotas.yaml")
HINTS = {"plan": "hint: pass it with --plan (ngupgrade plan|preflight --plan FILE)",
         "state": "hint: pass it with --state (ngupgrade groups|plan|preflight|advise --state "
                  "FILE)",
         "cluster": "hint: pass it with --cluster (ngupgrade drain-check|preflight|advise "
                    "--cluster FILE)",
         "quotas": "hint: pass it with --quotas (ngupgrade preflight|advise --quotas FILE)"}


def _yaml_copy(tmp_path: Path, path: str, name: str) -> str:
    out = tmp_path / name
    out.write_text(yaml.safe_dump(json.loads(Path(path).read_text())))
    return str(out)


def test_a_plan_given_as_the_state_is_not_an_empty_state(run_cli) -> None:
    # Before: "no yandex_kubernetes_node_group resources in this state", exit 0 under --strict.
    result = run_cli("plan", "--state", PLAN, "--strict")
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: {PLAN}: $: the file holds a Terraform plan (`terraform show -json PLANFILE`), "
        f"not what --state takes\n{HINTS['plan']}\n")


@pytest.mark.parametrize(("make", "hint"), [
    (lambda tmp: CLUSTER, "cluster"),
    (lambda tmp: _yaml_copy(tmp, CLUSTER, "cluster.yaml"), "cluster"),
    (lambda tmp: QUOTAS, "quotas"),
    (lambda tmp: str(EXAMPLES.parent.parent / "tests" / "real" / "real-states"
                     / "real-01-provider-example-quotas.json"), "quotas"),
], ids=["kubectl-json", "kubectl-yaml", "quotas-yaml", "quotas-json"])
def test_other_inputs_given_as_the_state_name_their_flag(run_cli, tmp_path: Path, make,
                                                         hint: str) -> None:
    result = run_cli("groups", "--state", make(tmp_path))
    assert result.exit_code == 3
    assert "the file holds" in result.stderr and "not what --state takes" in result.stderr
    assert result.stderr.endswith(HINTS[hint] + "\n")


@pytest.mark.parametrize(("path", "what", "hint"), [
    (STATE, "a Terraform state", "state"),
    (CLUSTER, "Kubernetes objects (`kubectl get -o json|yaml`)", "cluster"),
])
def test_other_inputs_given_as_the_plan_name_their_flag(run_cli, path: str, what: str,
                                                        hint: str) -> None:
    result = run_cli("plan", "--plan", path)
    assert result.exit_code == 3
    assert result.stderr == (f"error: {path}: $: the file holds {what}, not what --plan takes"
                             f"\n{HINTS[hint]}\n")


@pytest.mark.parametrize(("path", "hint"), [(STATE, "state"), (PLAN, "plan"),
                                            (CLUSTER, "cluster")])
def test_other_inputs_given_as_the_quotas_name_their_flag(run_cli, path: str,
                                                          hint: str) -> None:
    # Before: "$.version: expected an object of quota id -> {limit, usage}, found int".
    result = run_cli("preflight", "--state", STATE, "--quotas", path)
    assert result.exit_code == 3
    assert "not what --quotas takes" in result.stderr
    assert result.stderr.endswith(HINTS[hint] + "\n")


@pytest.fixture
def empty_state(tmp_path: Path) -> str:
    path = tmp_path / "empty.tfstate"
    path.write_text(json.dumps({"version": 4, "terraform_version": "1.9.8", "serial": 1,
                                "lineage": "0b7c7f9e-1f1e-4d4c-9b1a-000000000001",
                                "outputs": {}, "resources": [], "check_results": None}))
    return str(path)


NOTHING = ("error: the state holds no node group (selectel_mks_nodegroup_v1, "
           "yandex_kubernetes_node_group): nothing was checked ({why})\n"
           "hint: is it the right state (workspace, backend key)? `terraform state list` "
           "shows what it holds\n")


@pytest.mark.parametrize("argv", [
    ["plan", "--strict"], ["preflight", "--strict", "--quotas", QUOTAS],
    ["advise", "--strict", "--quotas", QUOTAS], ["drain-check", "--strict", "--cluster", CLUSTER],
])
def test_a_state_with_no_group_fails_strict(run_cli, empty_state: str, argv: list[str]) -> None:
    # Before: plan --strict and drain-check --strict passed (exit 0: "OK: nothing blocks").
    result = run_cli(*argv, "--state", empty_state)
    assert result.exit_code == 1
    assert result.stderr.endswith(NOTHING.format(why=f"{argv[0]} --strict"))


@pytest.mark.parametrize("command", ["groups", "plan", "drain-check"])
def test_a_state_with_no_group_fails_a_group_selector(run_cli, empty_state: str,
                                                      command: str) -> None:
    extra = ["--cluster", CLUSTER] if command == "drain-check" else []
    result = run_cli(command, "-g", "workers", *extra, "--state", empty_state)
    assert result.exit_code == 1
    assert result.stderr == NOTHING.format(why="--group workers")


def test_plan_strict_on_no_group_says_not_ok_in_json(run_cli, empty_state: str) -> None:
    result = run_cli("plan", "--strict", "--state", empty_state, "-o", "json")
    assert result.exit_code == 1
    assert result.json()["ok"] is False
    assert result.json()["error"]["code"] == "check-failed"


def test_without_strict_an_empty_state_is_listed_as_empty(run_cli, empty_state: str) -> None:
    result = run_cli("plan", "--state", empty_state)
    assert (result.exit_code, result.stdout) == (
        0, "no yandex_kubernetes_node_group resources in this state\n")


def test_a_missing_quota_file_reads_like_a_missing_state(run_cli, tmp_path: Path) -> None:
    missing = str(tmp_path / "quotas.json")
    result = run_cli("preflight", "--state", STATE, "--quotas", missing)
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: {missing}: no such file (the quota file)\nhint: pass --quotas with the path of "
        "a quota file (how to export one: docs/quota-preflight.md; a Selectel project's: "
        "docs/selectel.md)\n")
    state = run_cli("plan", "--state", missing)
    assert state.stderr.startswith(f"error: {missing}: no such file")


def test_a_directory_as_the_quota_file_says_so(run_cli, tmp_path: Path) -> None:
    result = run_cli("advise", "--state", STATE, "--quotas", str(tmp_path))
    assert result.exit_code == 3
    assert result.stderr == (f"error: {tmp_path}: is a directory, not a quota file\nhint: pass "
                             f"the file itself: --quotas {tmp_path}/quotas.json "
                             "(docs/quota-preflight.md)\n")
    assert "Errno" not in result.stderr


@pytest.mark.parametrize(("path", "hint"), [(STATE, "state"), (PLAN, "plan"),
                                            (QUOTAS, "quotas")])
def test_other_inputs_given_as_the_cluster_name_their_flag(run_cli, path: str,
                                                           hint: str) -> None:
    # Before: 'not a kubectl List or Kubernetes object: no "kind" and no "items"'.
    result = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path)
    assert result.exit_code == 3
    assert "not what --cluster takes" in result.stderr
    assert result.stderr.endswith(HINTS[hint] + "\n")
