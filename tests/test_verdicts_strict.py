"""``plan --strict`` fails on the warnings that need an action, never on one that only
informs, and ``--accept CODE`` passes a warning the user has read (as ``drain-check
--accept`` does for findings). The example state as the provider writes it
(terraform/examples/terraform.tfstate): gpu is 1 node at 3/0.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import EXAMPLE_STATE

STATE = str(EXAMPLE_STATE)


def _unset_policy(tmp_path: Path) -> str:
    """The example with gpu's deploy_policy unset, as the provider writes an absent block."""
    doc = json.loads(EXAMPLE_STATE.read_text())
    gpu = next(r for r in doc["resources"] if r.get("name") == "gpu")
    gpu["instances"][0]["attributes"]["deploy_policy"] = []
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


def test_an_informational_warning_does_not_fail_strict(run_cli) -> None:
    # gpu (1 node) at 3/0: max-expansion-clamped (3 -> 1) only informs: the service reduces
    # the value to the group size itself. Before: exit 1 on it, and nothing made it pass.
    result = run_cli("plan", "--state", STATE, "-g", "gpu", "--max-expansion", "3",
                     "--max-unavailable", "0", "--strict", "-o", "json")
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert doc["ok"] is True
    (group,) = doc["groups"]
    assert [(w["code"], w["informational"]) for w in group["warnings"]] == [
        ("max-expansion-clamped", True)]


def test_accept_passes_a_warning_that_needs_action(run_cli, tmp_path: Path) -> None:
    # policy-assumed (the state holds no policy: the plan may be wrong) fails --strict until
    # it is accepted; the clamp of the assumed 3/0 to 1 node informs only.
    argv = ["plan", "--state", _unset_policy(tmp_path), "-g", "gpu", "--strict", "-o", "json"]
    failed = run_cli(*argv)
    assert failed.exit_code == 1
    assert failed.json()["error"]["message"] == (
        "plan --strict: 1 warning(s): yandex_kubernetes_node_group.gpu: policy-assumed")
    assert "--accept CODE" in failed.json()["error"]["hint"]
    passed = run_cli(*argv, "--accept", "policy-assumed")
    assert passed.exit_code == 0, passed.stderr
    assert passed.json()["ok"] is True
    assert passed.json()["accepted"] == ["policy-assumed"]


def test_accept_takes_warning_codes_only(run_cli) -> None:
    result = run_cli("plan", "--state", STATE, "--strict", "--accept", "policy-asumed")
    assert result.exit_code == 2
    assert "--accept policy-asumed: not a plan warning code" in result.stderr
    assert "did you mean policy-assumed?" in result.stderr


def test_a_limit_the_upgrade_gate_enforces_cannot_be_accepted(run_cli) -> None:
    # workers (3 nodes) run in a spread placement group of at most 5 VMs: 3/0 peaks at 6, and
    # the upgrade gate's preflight refuses it whatever the flags. Before: --accept passed it,
    # plan --strict exited 0, a green CI gate for an upgrade that cannot run.
    args = ("plan", "--state", STATE, "-g", "workers", "--max-expansion", "3",
            "--max-unavailable", "0", "--strict", "-o", "json")
    plain = run_cli(*args)
    assert plain.exit_code == 1
    assert "spread-placement-group-full" in [
        w["code"] for w in plain.json()["groups"][0]["warnings"]]
    for code in ("spread-placement-group-full", "peak-above-group-node-limit"):
        result = run_cli(*args, "--accept", code)
        assert result.exit_code == 2, result.stderr
        error = result.json()["error"]
        assert (error["code"], error["message"]) == ("usage", (
            f"--accept {code}: a limit the cloud enforces, which the upgrade gate refuses "
            "whatever the flags; a plan passed on it would be a green gate for an upgrade "
            "that cannot run"))
