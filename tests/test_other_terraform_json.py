"""A JSON document of another ``terraform`` command given as the state is not an empty state.

``terraform show -json`` of an empty state is ``{"format_version": "1.0"}`` and nothing else
(hashicorp/terraform ``internal/command/jsonstate/state.go`` ``Marshal``: ``newState()`` when
the state is empty; ``internal/command/testdata/show-json-state/empty/output.json``, in
tests/real/state/). ``terraform validate -json``, ``terraform providers schema -json`` and
``terraform metadata functions -json`` also start with ``format_version`` and hold no
``values``: they were read as a state with no node group (``plan --strict`` exit 1 now, but
``groups`` and ``plan`` exit 0 on a file that is no state at all).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.core.errors import BadInput

# internal/command/testdata/validate-valid/output.json at b60f201 (the same bytes at v1.5.7)
VALIDATE = (b'{\n  "format_version": "1.0",\n  "valid": true,\n  "error_count": 0,\n'
            b'  "warning_count": 0,\n  "diagnostics": []\n}\n')


def test_show_json_of_an_empty_state_reads_as_no_group() -> None:
    parsed = parse_state(b'{\n    "format_version": "1.0"\n}\n', "empty.json")
    assert (parsed.groups, parsed.format) == ((), "show-json")


@pytest.mark.parametrize(("doc", "command"), [
    (VALIDATE, "terraform validate -json"),
    (json.dumps({"format_version": "1.0", "provider_schemas": {}}).encode(),
     "terraform providers schema -json"),
    (json.dumps({"format_version": "1.0", "function_signatures": {}}).encode(),
     "terraform metadata functions -json"),
    (json.dumps({"format_version": "1.0", "something": 1}).encode(), None),
])
def test_another_terraform_json_is_not_a_state(doc: bytes, command: str | None) -> None:
    with pytest.raises(BadInput) as err:
        parse_state(doc, "out.json")
    assert err.value.path == "$"
    said = str(err.value)
    assert said.startswith("out.json: $: not a Terraform state")
    if command:
        assert f"`{command}`" in said
    assert err.value.hint == ("pass a raw state (`terraform state pull`) or `terraform show "
                              "-json`")


@pytest.mark.parametrize("argv", [
    ["plan", "--plan"],
    ["preflight", "--state", "terraform/examples/terraform.tfstate", "--quotas"],
    ["drain-check", "--state", "terraform/examples/terraform.tfstate", "-g", "workers",
     "--cluster"],
], ids=["plan", "quotas", "cluster"])
def test_show_json_of_an_empty_state_given_to_another_flag_names_state(run_cli, tmp_path,
                                                                      argv) -> None:
    """It read as a plan that changes nothing (``plan --plan``: exit 0, a gate that checked
    nothing), and as a quota file or cluster dump of the wrong shape."""
    path = tmp_path / "empty.json"
    path.write_bytes(b'{\n    "format_version": "1.0"\n}\n')
    result = run_cli(*argv, str(path))
    assert result.exit_code == 3, result.stderr
    flag = argv[-1]
    assert result.stderr.startswith(f"error: {path}: $: the file holds a Terraform state, not "
                                    f"what {flag} takes\nhint: pass it with --state ")


def test_the_log_of_terraform_plan_json_is_told_from_a_saved_plan(run_cli) -> None:
    """``terraform plan -json`` writes its machine-readable log (one message a line), not the
    plan: Terraform's own ``internal/command/testdata/plan/output.jsonlog`` (at 2bf8177, in
    tests/real/other/) said "not valid JSON ... is the file complete?"."""
    path = str(Path(__file__).resolve().parent / "real" / "other" /
               "terraform-plan-json-log.jsonlog")
    result = run_cli("plan", "--plan", path)
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: {path}: the machine-readable log of `terraform plan -json` (one message a "
        "line), not the JSON of a saved plan\nhint: save the plan and show it: terraform plan "
        "-out=tfplan && terraform show -json tfplan > plan.json (or let ngupgrade run it: "
        "--plan tf:DIR)\n")


def test_the_log_of_terraform_plan_json_given_to_state_is_named(run_cli) -> None:
    """Given to --state, the same log said "not valid JSON ... is the file complete?"."""
    path = str(Path(__file__).resolve().parent / "real" / "other" /
               "terraform-plan-json-log.jsonlog")
    result = run_cli("groups", "--state", path)
    assert result.exit_code == 3
    assert result.stderr.startswith(
        f"error: {path}: the machine-readable log of `terraform plan -json` (one message a "
        "line), not a Terraform state\nhint: ")
    assert "terraform state pull" in result.stderr and "--plan" in result.stderr


@pytest.mark.parametrize("name", ["scenario.yaml"])  # a quota file is named as one
def test_a_yaml_file_given_to_state_is_named_yaml(run_cli, name: str) -> None:
    path = str(Path(__file__).resolve().parent.parent / "terraform" / "examples" / name)
    result = run_cli("groups", "--state", path)
    assert result.exit_code == 3
    assert result.stderr.startswith(f"error: {path}: this looks like YAML: a state is JSON")
    assert "is the file complete" not in result.stderr
