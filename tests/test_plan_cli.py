"""`ngupgrade plan` as a user runs it, on terraform/examples/terraform.tfstate."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_STATE
from tests.state_docs import FIXED_SCALE, state_doc

BATCH = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'


def test_json_for_every_group_of_the_example_state(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--output", "json")
    assert result.exit_code == 0, result.stderr
    gpu, workers, batch = result.json()["groups"]

    assert gpu["address"] == "yandex_kubernetes_node_group.gpu"
    assert gpu["policy"] == {"max_expansion": 3, "max_unavailable": 0, "source": "state",
                             "assumed": False}
    assert gpu["effective_policy"] == {"max_expansion": 1, "max_unavailable": 0}
    assert [w["code"] for w in gpu["warnings"]] == ["max-expansion-clamped"]

    assert workers["id"] == "cat1ng0fixed0000abcd"
    assert workers["cluster_id"] == "catq0n7i0h9ka1b2c3d4"
    assert (workers["nodes"], workers["nodes_source"]) == (3, "fixed")
    assert (workers["surge_nodes"], workers["peak_nodes"], workers["min_available_nodes"]) \
        == (1, 4, 3)
    assert workers["cycles"] == {"min": 3, "max": 3}
    assert workers["duration"] == {"minutes_per_cycle": 6, "min_minutes": 18,
                                   "max_minutes": 18}
    assert len(workers["timeline"]) == 9
    assert workers["warnings"] == []

    assert batch["address"] == BATCH
    assert batch["scale"] == {"type": "auto", "min": 1, "max": 7, "initial": 1}
    assert (batch["nodes"], batch["nodes_source"], batch["peak_nodes"]) == (7, "max", 9)
    assert batch["cycles"] == {"min": 3, "max": 7}
    assert [w["code"] for w in batch["warnings"]] == [
        "max-unavailable-at-autoscaler-min", "peak-above-autoscaler-max"]


def test_table_shows_the_picture(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "workers")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("yandex_kubernetes_node_group.workers  (workers,")
    assert "    wave  step                 size  new  x draining  o old  # new  | 3 nodes" \
        in lines
    assert "          start                   3    0  ooo|" in lines
    assert "       1  create 1                4    1  ooo|#" in lines
    assert "       3  delete 1                3    3  ###|" in lines


def test_a_one_node_group_reads_1_node(run_cli) -> None:
    # core/units.counted: reports said "1 nodes" and "+1 nodes".
    res = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "gpu")
    assert res.exit_code == 0, res.stderr
    assert "effective 1/0 at 1 node\n" in res.stdout
    assert "  surge           +1 node, peak 2\n" in res.stdout
    assert res.stdout.count("| 1 node\n") == 1
    assert "1 nodes" not in res.stdout


def test_overrides_and_nodes(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", BATCH, "--nodes", "4",
                     "--max-expansion", "2", "--max-unavailable", "2", "--cycle-minutes", "10",
                     "-o", "json")
    assert result.exit_code == 0, result.stderr
    (batch,) = result.json()["groups"]
    assert batch["policy"]["source"] == "override"
    assert (batch["nodes"], batch["nodes_source"], batch["peak_nodes"]) == (4, "override", 6)
    assert batch["cycles"] == {"min": 1, "max": 2}
    assert batch["duration"] == {"minutes_per_cycle": 10, "min_minutes": 10, "max_minutes": 20}


def test_c12_long_plan_warns_about_the_terraform_timeout(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--cycle-minutes", "25")
    assert result.exit_code == 0
    assert "! terraform-update-timeout-exceeded:" in result.stdout
    assert 'timeouts { update = "2h" }' in result.stdout


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [(("--max-expansion", "0", "--max-unavailable", "0"),
      "at least one of max_expansion / max_unavailable must be > 0", 1),
     # a value no platform takes: a usage error (tests/test_verdicts_flags.py); 101 is
     # Yandex's usage error but a Selectel group's policy check, so the state is read first
     (("--max-expansion", "-1"), "'-1' is not a node count: 0..100 on Yandex", 2)],
)
def test_c05_invalid_policy_fails_before_reading_anything(run_cli, tmp_path: Path,
                                                          args: tuple[str, ...],
                                                          message: str, code: int) -> None:
    missing = tmp_path / "no-such.tfstate"  # never read: the override fails first
    result = run_cli("plan", "--state", str(missing), *args)
    assert result.exit_code == code
    assert result.stdout == ""
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_c05_half_override_to_zero_zero_exits_1_naming_the_group(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--max-expansion", "0")
    assert result.exit_code == 1
    assert "yandex_kubernetes_node_group.workers: deploy policy: at least one" in result.stderr


def test_bad_state_exits_3(run_cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.tfstate"
    bad.write_text("{not json")
    result = run_cli("plan", "--state", str(bad))
    assert result.exit_code == 3
    assert result.stderr.startswith("error: ")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [("--cycle-minutes", "0"), ("--nodes", "-1"), ("--max-expansion", "x"), ("-g", "nope")],
)
def test_usage_errors_exit_2(run_cli, args: tuple[str, ...]) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), *args)
    assert result.exit_code == 2, result.stderr


def test_plan_is_listed_in_help(run_cli) -> None:
    result = run_cli("--help")
    assert "plan" in result.stdout
    result = run_cli("plan", "--help")
    assert "--max-expansion" in result.stdout and "--cycle-minutes" in result.stdout


def test_plan_imports_no_cloud_sdk() -> None:
    """`plan` is offline: no yandexcloud, grpc or boto3 at start-up (DESIGN.md section 7)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = ("import sys; from ngupgrade.cli import main\n"
            "try:\n    main(['plan', '--state', sys.argv[1], '-o', 'json'])\n"
            "except SystemExit:\n    pass\n"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('yandexcloud', 'yandex', 'grpc', 'boto3', 'botocore'))\n"
            "print(heavy, file=sys.stderr)")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", code, str(EXAMPLE_STATE)],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr


def test_plan_warns_that_a_tainted_group_is_replaced_by_the_next_apply(run_cli, tmp_path) -> None:
    # Before: `groups` marked it "(tainted)", but plan (and so the upgrade's plan) said nothing,
    # though the next `terraform apply` destroys and recreates the whole group.
    import json

    doc = json.loads(state_doc(FIXED_SCALE))
    doc["resources"][0]["instances"][0]["status"] = "tainted"
    state = tmp_path / "tainted.tfstate"
    state.write_text(json.dumps(doc))
    result = run_cli("plan", "--state", str(state), "-o", "json")
    assert result.exit_code == 0, result.stderr
    codes = [w["code"] for w in result.json()["groups"][0]["warnings"]]
    assert codes[0] == "tainted-in-state"
    text = run_cli("plan", "--state", str(state)).stdout
    assert "terraform untaint 'yandex_kubernetes_node_group.bad'" in text


def test_whole_group_down_counts_its_one_surge_node(run_cli) -> None:
    """gpu (1 node) at 1/1: 'the 1 surge node may not be Ready yet', not 'the 1 surge nodes'."""
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "gpu", "--max-expansion", "1",
                     "--max-unavailable", "1", "-o", "json")
    (warning,) = [w for w in result.json()["groups"][0]["warnings"]
                  if w["code"] == "whole-group-unavailable"]
    assert "; the 1 surge node may not be Ready yet, so its pods" in warning["message"]
