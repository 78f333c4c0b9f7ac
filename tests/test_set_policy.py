"""``ngupgrade set-policy`` end to end: CLI -> use case -> gateway -> SDK -> gRPC -> fake cloud.

Field report C16 with its exact inputs: state/HCL deploy_policy 1/0, fixed size 6, version 1.29,
``--max-expansion 3``; variant A the policy does not take, variant B it does.
"""

from __future__ import annotations

import json

import pytest

from ngupgrade.app.timing import Timing
from ngupgrade.core.errors import EXIT_API, EXIT_CHECK_FAILED, EXIT_TIMEOUT, EXIT_USAGE
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, node_group
from tests.conftest import EXAMPLE_STATE

GID = "catgroup000000000001"
EXAMPLE_WORKERS = "cat1ng0fixed0000abcd"


@pytest.fixture
def cloud(monkeypatch, run_cli):
    """A fake with the C16 group (fixed 6, policy 1/0) on the virtual clock."""
    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    monkeypatch.delenv("YC_TOKEN", raising=False)
    monkeypatch.chdir("/")  # no ./terraform.tfstate: groups are named by id

    def make(*faults, **scenario):
        fake = FakeCloud([node_group(GID, size=6, policy=DeployPolicy(1, 0))],
                         {**scenario, "faults": list(faults)}).start()
        run_cli.timing = Timing(fake.now, fake.sleep)
        made.append(fake)
        return fake

    made: list[FakeCloud] = []
    yield make
    for fake in made:
        fake.stop()


def _args(fake, *rest):
    return ("--endpoint", fake.endpoint, "--insecure", "set-policy", "--group", GID, *rest)


def test_dry_run_shows_the_diff_and_sends_nothing(cloud, run_cli):
    fake = cloud()
    res = run_cli(*_args(fake, "--max-expansion", "3"))
    assert res.exit_code == 0, res.stderr
    assert "  - max_expansion = 1\n  + max_expansion = 3\n    max_unavailable = 0" in res.stdout
    assert "dry run: nothing changed; add --apply" in res.stdout
    assert "update_mask: deploy_policy.max_expansion" in res.stdout
    assert fake.calls_to("NodeGroupService.Update") == []


def test_c16_variant_b_applied_masked_waited_and_verified(cloud, run_cli):
    fake = cloud()
    res = run_cli(*_args(fake, "--max-expansion", "3", "--apply"))
    assert res.exit_code == 0, res.stderr
    (update,) = fake.calls_to("NodeGroupService.Update")
    assert list(update.request.update_mask.paths) == ["deploy_policy.max_expansion"]
    methods = [c.method for c in fake.calls]
    # call order: read, Update(policy only), wait for op-1, reconcile read, verify read
    assert methods[methods.index("NodeGroupService.Update") + 1] == "OperationService.Get"
    assert methods[-1] == "NodeGroupService.Get"
    assert fake.group(GID).policy == DeployPolicy(3, 0)
    assert "applied: operation op-1 done, group RUNNING, policy read back 3/0" in res.stdout
    assert "deploy_policy {\n  max_expansion   = 3\n  max_unavailable = 0\n}" in res.stdout
    assert "next `terraform apply` may revert" in res.stderr


def test_c16_variant_a_policy_not_applied_aborts_with_one_update(cloud, run_cli):
    fake = cloud({"kind": "policy_ignored"})
    res = run_cli(*_args(fake, "--max-expansion", "3", "--apply"))
    assert res.exit_code == EXIT_CHECK_FAILED
    assert "deploy policy not applied (have 1/0, want 3/0)" in res.stderr
    assert len(fake.calls_to("NodeGroupService.Update")) == 1
    assert "applied:" not in res.stdout


def test_already_set_is_a_no_op(cloud, run_cli):
    fake = cloud()
    res = run_cli(*_args(fake, "--max-expansion", "1", "--max-unavailable", "0", "--apply"))
    assert res.exit_code == 0
    assert "already set: nothing to do" in res.stdout
    assert fake.calls_to("NodeGroupService.Update") == []


@pytest.mark.parametrize("e, u, code, message", [
    ("0", "0", EXIT_CHECK_FAILED, "at least one of max_expansion / max_unavailable must be > 0"),
    # outside 0..100, what Yandex takes for any group: a usage error like -1
    ("101", "0", EXIT_USAGE, "--max-expansion 101 is out of range 0..100"),
    # a negative count is no policy anywhere: a usage error (issue 11 item 4)
    ("1", "-1", EXIT_USAGE, "'--max-unavailable': '-1' is not a node count: 0..100 on Yandex")])
def test_invalid_policy_is_refused_before_any_update(cloud, run_cli, e, u, code, message):
    fake = cloud()
    res = run_cli(*_args(fake, "--max-expansion", e, "--max-unavailable", u, "--apply"))
    assert res.exit_code == code and message in res.stderr
    assert fake.calls_to("NodeGroupService.Update") == []


def test_c13_blocker_past_the_bound_exits_4_naming_it(cloud, run_cli):
    fake = cloud({"kind": "operation_in_progress", "operation_id": "op-9", "seconds": 99999})
    res = run_cli(*_args(fake, "--max-expansion", "3", "--apply"))
    assert res.exit_code == EXIT_API
    assert "op-9 (master upgrade) still running" in res.stderr
    assert "ngupgrade wait --operation op-9" in res.stderr
    assert len(fake.calls_to("NodeGroupService.Update")) == 1


def test_timeout_zero_sends_and_does_not_wait(cloud, run_cli):
    fake = cloud()
    res = run_cli(*_args(fake, "--max-unavailable", "1", "--apply", "--timeout", "0"))
    assert res.exit_code == EXIT_TIMEOUT
    assert "did not wait (--timeout 0)" in res.stderr
    assert "ngupgrade wait --operation op-1" in res.stderr
    assert len(fake.calls_to("OperationService.Get")) == 1


def test_permission_denied_exits_4_with_code(cloud, run_cli):
    fake = cloud({"kind": "permission_denied", "method": "NodeGroupService.Update"})
    res = run_cli(*_args(fake, "--max-expansion", "3", "--apply"))
    assert res.exit_code == EXIT_API
    assert "[PERMISSION_DENIED]" in res.stderr and "k8s.editor" in res.stderr


def test_json_output_and_terraform_warning_from_the_state(cloud, run_cli, monkeypatch):
    from pathlib import Path

    state = Path(__file__).resolve().parent.parent / "terraform/examples/terraform.tfstate"
    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    fake = FakeCloud.from_state(str(state)).start()
    try:
        run_cli.timing = Timing(fake.now, fake.sleep)
        res = run_cli("--endpoint", fake.endpoint, "--insecure", "--state", str(state),
                      "set-policy", "--group", "workers", "--max-expansion", "2", "--apply")
        assert res.exit_code == 0, res.stderr
        assert "in yandex_kubernetes_node_group.workers set" in res.stdout
        assert ("the Terraform state declares 1/0; the next `terraform apply` reverts"
                in res.stderr)
        res = run_cli("--endpoint", fake.endpoint, "--insecure", "--state", str(state),
                      "--output", "json", "set-policy", "--group", "workers",
                      "--max-unavailable", "1")
        doc = json.loads(res.stdout)
        # "live", as plan says it (was "api": issue 11 item 14)
        assert doc["before"] == {"max_expansion": 2, "max_unavailable": 0, "source": "live"}
        assert doc["update_mask"] == ["deploy_policy.max_unavailable"]
        assert (doc["changed"], doc["applied"]) == (True, False)
        assert doc["group"]["id"] == EXAMPLE_WORKERS
    finally:
        fake.stop()


def test_timeout_zero_never_blocks_in_the_conflict_wait(cloud, run_cli):
    """Issue 10 item 12: --timeout 0 bounds the wait for another operation too (was 30 min)."""
    fake = cloud({"kind": "operation_in_progress", "operation_id": "op-9", "seconds": 99999})
    res = run_cli(*_args(fake, "--max-expansion", "3", "--apply", "--timeout", "0"))
    assert res.exit_code == EXIT_API
    assert "op-9 (master upgrade) still running after 0 s" in res.stderr
    assert fake.now() == pytest.approx(0)
    assert len(fake.calls_to("NodeGroupService.Update")) == 1
    assert fake.group(GID).policy == DeployPolicy(1, 0)


def test_set_policy_still_requires_a_group(run_cli) -> None:
    result = run_cli("set-policy", "--state", str(EXAMPLE_STATE), "--max-expansion", "2")
    assert result.exit_code == 2
    assert "Missing option '--group'" in result.stderr
