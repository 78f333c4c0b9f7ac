"""`ngupgrade plan` as a CI gate (issue 11 item 4): the Terraform timeout as a JSON field,
``--strict`` fails on warnings, and numbers no option can take are usage errors (exit 2).

The C12 figures (field report C12, docs/upgrade-math.md section 5): 6 minutes a cycle, a
60-minute provider timeout, the suggestion = upper estimate x 1.2 rounded up to hours.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_STATE


def _workers_state(tmp_path: Path, size: int, e: int, u: int) -> Path:
    """The example state's `workers` alone, resized to `size` nodes with policy e/u."""
    doc = json.loads(EXAMPLE_STATE.read_text())
    workers = next(r for r in doc["resources"] if r.get("name") == "workers")
    attrs = workers["instances"][0]["attributes"]
    attrs["scale_policy"] = [{"auto_scale": [], "fixed_scale": [{"size": size}]}]
    attrs["deploy_policy"] = [{"max_expansion": e, "max_unavailable": u}]
    # out of the example's spread placement group (5 VMs at most: no 50-node group runs there)
    attrs["instance_template"][0]["placement_policy"] = []
    doc["resources"] = [workers]
    path = tmp_path / f"workers-{size}-{e}-{u}.tfstate"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(("size", "e", "u", "max_minutes", "update"), [
    (50, 1, 0, 300, "6h"),   # 50 cycles x 6 min; 300 x 1.2 = 360 min
    (50, 5, 0, 60, "2h"),    # 10 cycles: 60 min, borderline; 72 min -> 2h
    (50, 2, 2, 150, "3h"),   # 13..25 cycles: 78..150 min; 180 min
    (3, 1, 0, 18, None),     # the example's workers: 18 min, the default 60 min is enough
])
def test_c12_terraform_update_timeout_is_a_json_field(run_cli, tmp_path: Path, size: int,
                                                      e: int, u: int, max_minutes: int,
                                                      update: str | None) -> None:
    # Before: the value existed only inside a warning's message.
    state = _workers_state(tmp_path, size, e, u)
    result = run_cli("plan", "--state", str(state), "-o", "json")
    assert result.exit_code == 0, result.stderr
    (group,) = result.json()["groups"]
    assert group["duration"]["max_minutes"] == max_minutes
    assert group["terraform"] == {"timeouts": {"update": update}}
    if update:
        assert f'timeouts {{ update = "{update}" }}' in group["warnings"][0]["message"]


def test_strict_passes_a_plan_without_warnings(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "workers", "--strict",
                     "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["ok"] is True


def test_strict_fails_on_a_warning_and_still_prints_the_plan(run_cli, tmp_path: Path) -> None:
    # Before: there was no --strict; a plan whose upgrade outlives Terraform's timeout was exit 0.
    state = _workers_state(tmp_path, 50, 1, 0)
    result = run_cli("plan", "--state", str(state), "--strict", "-o", "json")
    assert result.exit_code == 1
    doc = result.json()
    assert doc["ok"] is False
    assert doc["groups"][0]["terraform"]["timeouts"]["update"] == "6h"
    assert doc["error"]["code"] == "check-failed"
    assert doc["error"]["message"] == ("plan --strict: 1 warning(s): yandex_kubernetes_node_group"
                                       ".workers: terraform-update-timeout-exceeded")
    table = run_cli("plan", "--state", str(state), "--strict")
    assert table.exit_code == 1
    assert "terraform-update-timeout-exceeded" in table.stdout  # the plan, then the verdict
    assert "error: plan --strict: 1 warning(s)" in table.stderr


def test_without_strict_warnings_pass(run_cli, tmp_path: Path) -> None:
    state = _workers_state(tmp_path, 50, 1, 0)
    result = run_cli("plan", "--state", str(state), "-o", "json")
    assert (result.exit_code, result.json()["ok"]) == (0, True)


# ---- every command's numeric options: a value no option can take is a usage error ----------

POLICY_COMMANDS = {
    "plan": ["plan"],
    "preflight": ["preflight", "--quotas", "quotas.yaml"],
    "set-policy": ["set-policy", "-g", "workers"],
    "upgrade": ["upgrade", "-g", "workers", "--version", "1.30"],
}


@pytest.mark.parametrize("command", sorted(POLICY_COMMANDS))
@pytest.mark.parametrize("option", ["--max-expansion", "--max-unavailable"])
def test_a_negative_policy_value_is_a_usage_error(run_cli, command: str, option: str) -> None:
    # Before: exit 1, "a check failed", as if the plan had found something.
    result = run_cli(*POLICY_COMMANDS[command], "--state", str(EXAMPLE_STATE), option, "-1")
    assert result.exit_code == 2, result.stderr
    assert (f"Invalid value for '{option}': '-1' is not a node count: 0..100 on Yandex"
            in result.stderr)


def test_a_policy_above_100_is_a_usage_error_too(run_cli) -> None:
    # 101 is a value Yandex takes for no group: exit 2 like -1 (was exit 1)
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--max-expansion", "101")
    assert result.exit_code == 2


@pytest.mark.parametrize(("argv", "option"), [
    (["plan", "--cycle-minutes", "1e300"], "--cycle-minutes"),
    (["plan", "--cycle-minutes", "1441"], "--cycle-minutes"),
    (["advise", "--cycle-minutes", "1e300"], "--cycle-minutes"),
    (["drain-check", "--cycle-minutes", "1e300"], "--cycle-minutes"),
    (["drain-check", "--max-unavailable", "-1"], "--max-unavailable"),
    (["advise", "--nodes", "-1"], "--nodes"),
    (["advise", "--max-parallel", "0"], "--max-parallel"),
    (["upgrade", "-g", "workers", "--version", "1.30", "--cycle-minutes", "1e300"],
     "--cycle-minutes"),
    (["upgrade", "-g", "workers", "--version", "1.30", "--time-scale", "1e300"],
     "--time-scale"),
    (["fake-cloud", "--speed", "1e300"], "--speed"),
    (["fake-cloud", "--port", "-1"], "--port"),
    (["plan", "--nodes", "-1"], "--nodes"),
    (["wait", "-g", "workers", "--timeout", "-5m"], "--timeout"),
    (["wait", "-g", "workers", "--stall-after", "99999999h"], "--stall-after"),
    (["set-policy", "-g", "workers", "--max-expansion", "1", "--timeout", "-1"], "--timeout"),
])
def test_numbers_out_of_range_are_usage_errors(run_cli, argv: list[str], option: str) -> None:
    # Before: --cycle-minutes 1e300 planned durations of 10^300 minutes (exit 0).
    result = run_cli(*argv, "--state", str(EXAMPLE_STATE))
    assert result.exit_code == 2, result.stderr
    assert f"Invalid value for '{option}'" in result.stderr
