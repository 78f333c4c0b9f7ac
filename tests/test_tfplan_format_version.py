"""Which ``format_version`` of ``terraform show -json PLANFILE`` the plan reader takes.

Terraform 0.12 to 0.15 write ``"0.1"`` and ``"0.2"`` (hashicorp/terraform
``internal/command/testdata/show-json/requires-replace/output.json`` at 3eff3ff is a "0.2"
plan, copied into ``tests/real/plan/``), 1.0 and later ``"1.x"``; hashicorp/terraform-json
``plan.go`` (at 5a1ca92) reads ``PlanFormatVersionConstraints = ">= 0.1, < 2.0"``, and the JSON
format page (https://developer.hashicorp.com/terraform/internals/json-format) says to reject
only an unsupported major version. The state reader takes Terraform 0.12 states, so their plans
must read too.
"""

from __future__ import annotations

import json

import pytest

from ngupgrade.adapters.state.tfplan import parse_plan
from ngupgrade.core.errors import BadInput
from tests._tfplan import WORKERS, Edit, edit, plans, state


def _roll(format_version: str) -> bytes:
    doc = plans.build_plan(state(), {WORKERS: Edit(["update"], edit(version="1.30"))})
    doc["format_version"] = format_version
    doc["prior_state"]["format_version"] = format_version
    return json.dumps(doc).encode()


@pytest.mark.parametrize("version", ["0.1", "0.2", "1.0", "1.2", "1.10"])
def test_plans_of_terraform_0_12_and_later_read(version: str) -> None:
    parsed = parse_plan(_roll(version), "plan.json")
    assert parsed.format_version == version
    rolled = [c for c in parsed.changes if str(c.address) == WORKERS]
    assert [c.actions for c in rolled] == [("update",)]
    assert rolled[0].after is not None and rolled[0].after.version == "1.30"


@pytest.mark.parametrize("version", ["2.0", "0.0", "1", "one", ""])
def test_another_major_version_is_refused(version: str) -> None:
    with pytest.raises(BadInput) as err:
        parse_plan(_roll(version), "plan.json")
    assert err.value.path == "$.format_version"
    assert f"unsupported plan format_version {version!r}" in str(err.value)
    assert "0.1 to 1.x" in str(err.value)
