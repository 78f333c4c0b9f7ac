"""core/inputs.py and core/bounds.py on their own: which tool wrote a document (the shapes
Terraform's jsonstate/jsonplan and kubectl write), the error naming the flag that takes it;
how deep a document may nest, and Python's integer-digits limit recognised."""

from __future__ import annotations

import json

import pytest

from ngupgrade.core import bounds
from ngupgrade.core.errors import EXIT_BAD_INPUT
from ngupgrade.core.inputs import document_kind, flag_of, wrong_input


@pytest.mark.parametrize(("doc", "kind"), [
    ({"version": 4, "terraform_version": "1.9.0", "resources": []}, "terraform-state"),
    ({"format_version": "1.0", "values": {"root_module": {}}}, "terraform-state"),
    ({"format_version": "1.0"}, "terraform-state"),                  # show -json, empty state
    ({"format_version": "1.2", "resource_changes": []}, "terraform-plan"),
    ({"format_version": "1.2", "planned_values": {}, "prior_state": {}}, "terraform-plan"),
    ({"apiVersion": "v1", "kind": "Pod"}, "kubernetes"),
    ({"kind": "List", "items": []}, "kubernetes"),
    ({"format_version": "1.0", "valid": True, "diagnostics": []}, None),  # validate -json
    ({"b1gcloud": {"compute.instances.count": {"limit": 1}}}, None),
    ([{"apiVersion": "v1", "kind": "Pod"}], None),
])
def test_document_kind_by_the_producer_s_shape(doc: object, kind: str | None) -> None:
    assert document_kind(doc) == kind


def test_the_wrong_flag_is_bad_input_naming_the_right_one() -> None:
    err = wrong_input("terraform-plan", "--state", "plan.json")
    assert err.exit_code == EXIT_BAD_INPUT
    assert str(err).startswith("plan.json: $: the file holds a Terraform plan")
    assert "not what --state takes" in str(err)
    assert "--plan" in (err.hint or "")
    assert [flag_of(k) for k in ("terraform-state", "terraform-plan", "kubernetes",
                                 "quota-file")] == ["--state", "--plan", "--cluster", "--quotas"]


def test_too_deep_names_the_first_container_past_the_limit() -> None:
    assert bounds.too_deep({"a": [[1]]}, limit=3) is None
    assert bounds.too_deep({"a": [[1]]}, limit=2) == "$.a[0]"
    deep: list[object] = []
    for _ in range(150):
        deep = [deep]
    assert bounds.too_deep(deep) == "$" + "[0]" * bounds.MAX_DEPTH   # no recursion used
    assert bounds.too_deep("scalar", limit=0) is None


def test_the_integer_digits_limit_is_recognised() -> None:
    with pytest.raises(ValueError) as err:
        json.loads("1" * (bounds.INT_DIGITS + 1))
    assert bounds.is_int_limit(err.value)
    assert not bounds.is_int_limit(ValueError("invalid literal for int()"))
