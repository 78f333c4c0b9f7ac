"""Which tool wrote a document, so that an input given to the wrong flag is named as what it is
and the flag that takes it, never read as an empty input of the right kind. Pure.

Read as a state, a Terraform plan given to ``--state`` would be a state with no node group
(``plan --strict`` would print "no node groups" and exit 0: a green gate that checked nothing). The
shapes, by their producers:

* a Terraform state: raw v4 (``version``, ``resources``; hashicorp/terraform
  ``internal/states/statefile/version4.go``) or ``terraform show -json`` of a state
  (``format_version`` and ``values``; ``internal/command/jsonstate/state.go``; of an empty
  state, ``format_version`` alone: :data:`EMPTY_SHOW_JSON_KEYS`);
* a Terraform plan: ``terraform show -json PLANFILE`` (``format_version`` with
  ``planned_values``, ``resource_changes``, ``prior_state`` or ``configuration``, no
  ``values``; ``internal/command/jsonplan/plan.go``);
* Kubernetes objects: ``kubectl get -o json|yaml`` (``apiVersion`` and ``kind``; a ``List``
  with ``items``).

Quota files are told apart by their reader
(:func:`ngupgrade.adapters.files.quota_file.quota_file_form`), the one owner of their forms.
"""

from __future__ import annotations

from typing import Any, Literal

from ngupgrade.core.errors import BadInput

DocumentKind = Literal["terraform-state", "terraform-plan", "kubernetes", "quota-file"]

_PLAN_KEYS = ("planned_values", "resource_changes", "prior_state", "configuration")

EMPTY_SHOW_JSON_KEYS = frozenset({"format_version", "terraform_version"})
"""All ``terraform show -json`` writes for an empty state: ``format_version`` alone
(``jsonstate.Marshal`` returns ``newState()`` before it sets anything else;
``internal/command/testdata/show-json-state/empty/output.json``); ``terraform_version`` is
allowed beside it."""

WHAT: dict[DocumentKind, tuple[str, str, str]] = {
    "terraform-state": ("a Terraform state", "--state", "groups|plan|preflight|advise"),
    "terraform-plan": ("a Terraform plan (`terraform show -json PLANFILE`)", "--plan",
                       "plan|preflight"),
    "kubernetes": ("Kubernetes objects (`kubectl get -o json|yaml`)", "--cluster",
                   "drain-check|preflight|advise"),
    "quota-file": ("quota limits (a quota file)", "--quotas", "preflight|advise"),
}
"""Each kind: what it is, in a message; the flag that takes it and the commands that have it,
in a hint."""


def flag_of(kind: DocumentKind) -> str:
    """The flag that takes a document of ``kind``: ``--state``, ``--plan``, ``--cluster``,
    ``--quotas``."""
    return WHAT[kind][1]


def document_kind(doc: Any) -> DocumentKind | None:
    """``terraform-state``, ``terraform-plan`` or ``kubernetes`` for a decoded document of
    that shape (module docstring), else None."""
    if not isinstance(doc, dict):
        return None
    if "format_version" in doc and "values" not in doc and any(k in doc for k in _PLAN_KEYS):
        return "terraform-plan"
    if ("format_version" in doc and "values" in doc) or (
            isinstance(doc.get("version"), int) and "resources" in doc) or (
            "format_version" in doc and set(doc) <= EMPTY_SHOW_JSON_KEYS):
        return "terraform-state"
    if ("apiVersion" in doc and "kind" in doc) or doc.get("kind") == "List":
        return "kubernetes"
    return None


def wrong_input(kind: DocumentKind, flag: str, source: str) -> BadInput:
    """The error for ``kind`` given to ``flag``: "the file holds a Terraform plan (...), not
    what --state takes", with the flag that takes it as the hint (exit 3, bad input)."""
    what, right, commands = WHAT[kind]
    return BadInput(f"the file holds {what}, not what {flag} takes", source=source, path="$",
                    hint=f"pass it with {right} (ngupgrade {commands} {right} FILE)")
