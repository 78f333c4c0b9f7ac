"""Reports of ``--plan``: each node group's change next to the usual plan and preflight output.

Pure. JSON keys (stable; added to the documents of ``plan`` and ``preflight``, none renamed)::

    "plan": {"source", "terraform_version", "ok", "findings": [{"code", "severity", "message"}],
             "clusters": [{"address", "id", "actions", "attributes"}]}
    every group: "change": "roll"|"resize"|"in-place"|"replace"|"create"|"delete"|"none",
                 "terraform": {"actions", "attributes", "unknown", "action_reason",
                               "replace_order", "nodes_before", "nodes_after",
                               "policy": {"max_expansion", "max_unavailable"} | null,
                               "quota_policy": {...} | null},
                 "findings": [{"code", "severity", "message"}]

``plan`` lists every group of the plan; a group that does not roll has no timeline
(``"timeline": []``, ``"nodes"`` = its size after apply). ``preflight`` keeps its ``groups``
(the changes that may need nodes) and adds ``changes``: every group's change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ngupgrade.cli.render.groups import scale_json
from ngupgrade.cli.render.table import fit_rows
from ngupgrade.cli.render.upgrade_plan import group_plan_json, group_plan_lines
from ngupgrade.core.change import Finding, GroupChange, PlanVerdict
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import policy_text
from ngupgrade.core.simulate import GroupPlan


def _size(group: NodeGroup | None) -> int | None:
    if group is None:
        return None
    return group.scale.most_nodes


def _policy(policy: DeployPolicy | None) -> dict[str, int] | None:
    if policy is None:
        return None
    return {"max_expansion": policy.max_expansion, "max_unavailable": policy.max_unavailable}


def finding_json(f: Finding) -> dict[str, str]:
    return {"code": f.code, "severity": f.severity, "message": f.message}


def change_json(change: GroupChange) -> dict[str, Any]:
    """The keys every group gets under ``--plan``: ``change``, ``terraform``, ``findings``."""
    return {
        "change": change.kind,
        "terraform": {
            "actions": list(change.actions),
            "attributes": list(change.attributes),
            "unknown": list(change.unknown),
            "action_reason": change.action_reason,
            "replace_order": change.replace_order,
            "nodes_before": _size(change.before),
            "nodes_after": None if change.kind == "delete" else _size(change.group),
            "policy": _policy(change.policy),
            "quota_policy": _policy(change.quota_policy),
        },
        "findings": [finding_json(f) for f in change.findings],
    }


def plan_section_json(verdict: PlanVerdict, *, source: str, terraform_version: str | None,
                      clusters: Sequence[Any], ok: bool) -> dict[str, Any]:
    """The top-level ``plan`` object."""
    findings = [f for c in verdict.changes for f in c.findings] + list(verdict.findings)
    return {"source": source, "terraform_version": terraform_version, "ok": ok,
            "findings": [finding_json(f) for f in findings],
            "clusters": [{"address": c.address, "id": c.id, "actions": list(c.actions),
                          "attributes": list(c.changed)} for c in clusters]}


def plan_groups_json(changes: Sequence[GroupChange], plans: Sequence[GroupPlan | None]
                     ) -> list[dict[str, Any]]:
    """``groups`` of ``ngupgrade plan --plan``: a roll's full plan, the others' change only."""
    out = []
    for change, plan in zip(changes, plans, strict=True):
        if plan is not None:
            entry = group_plan_json(plan)
        else:
            group = change.group
            entry = {"address": str(group.address), "id": group.id, "name": group.name,
                     "cluster_id": group.cluster_id, "scale": scale_json(group.scale),
                     "nodes": _size(group) if change.kind != "delete" else 0,
                     "timeline": [], "warnings": []}
        entry.update(change_json(change))
        out.append(entry)
    return out


def preflight_with_changes(document: dict[str, Any], changes: Sequence[GroupChange]
                           ) -> dict[str, Any]:
    """``preflight --plan`` JSON: the ``preflight`` document with each of its ``groups`` given
    its change keys, and ``changes`` for every group of the plan (quota-checked or not)."""
    by_address = {str(c.address): c for c in changes}
    for entry in document["groups"]:
        change = by_address.get(entry["address"])
        if change is not None:
            entry.update(change_json(change))
    document["changes"] = [{"address": str(c.address), "id": c.group.id, "name": c.group.name,
                            "cluster_id": c.group.cluster_id, **change_json(c)}
                           for c in changes]
    return document


# --- text --------------------------------------------------------------------------------------


def _nodes_text(change: GroupChange) -> str:
    before, after = _size(change.before), _size(change.group)
    if change.kind == "create":
        return f"-> {after}"
    if change.kind == "delete":
        return f"{before} ->"
    return f"{before} -> {after}" if before != after else str(after)


CHANGE_COLUMNS = ("change", "caused by", "nodes", "policy in the roll")
"""The change table's columns after the group, what :func:`change_cells` gives."""


def change_cells(c: GroupChange) -> tuple[str, str, str, str]:
    """One group's change as the change table shows it: the kind (in capitals when it blocks
    the gate), its causes (the attributes, else the plan's actions; the unknown ones named),
    the node count before -> after, the policy the roll runs with (``(assumed)``: the
    platform's default, for a group that declares none; the quota's E when the same apply
    changes the policy) or ``-``."""
    policy = "-"
    if c.kind == "roll":
        p = c.policy
        policy = (f"{policy_text(platform_of(c.group).default_policy)} (assumed)"
                  if p is None else policy_text(p))
        if c.quota_policy is not None and c.quota_policy != c.policy:
            policy += f"; quota at E={c.quota_policy.max_expansion}"
    causes = ", ".join(c.attributes) or ("-" if c.kind == "none" else ",".join(c.actions))
    if c.unknown:
        causes += f" (unknown: {', '.join(c.unknown)})"
    return c.kind.upper() if c.blocking else c.kind, causes, _nodes_text(c), policy


FINDING_MARKS = {"blocking": "BLOCKING", "warning": "warning", "info": "note"}
"""How the change table's findings are marked, by severity."""


def finding_line(f: Finding) -> str:
    """``[note] rolls-together: ...``: one finding as the change table prints it."""
    return f"[{FINDING_MARKS[f.severity]}] {f.code}: {f.message}"


def changes_table(verdict: PlanVerdict, *, source: str, width: int | None = None) -> str:
    """What ``terraform apply`` of the plan does to each node group (a table that fits
    ``width`` columns; None: as wide as its cells), then every finding."""
    rows = [["group", *CHANGE_COLUMNS]]
    rows += [[str(c.address), *change_cells(c)] for c in verdict.changes]
    lines = [f"Terraform plan {source}: what apply does to each node group"]
    lines += fit_rows(rows, width, whole=(0,))
    findings = [f for c in verdict.changes for f in c.findings] + list(verdict.findings)
    if findings:
        lines.append("")
        lines.append("findings")
        lines += [f"  {finding_line(f)}" for f in findings]
    return "\n".join(lines) + "\n"


def plan_gate_text(verdict: PlanVerdict, plans: Sequence[GroupPlan | None], *,
                   source: str, width: int | None = None) -> str:
    """``ngupgrade plan --plan`` for people: the change table (fitting ``width`` columns),
    then each roll's plan."""
    blocks = [changes_table(verdict, source=source, width=width).rstrip("\n")]
    for change, plan in zip(verdict.changes, plans, strict=True):
        if plan is not None:
            blocks.append("\n".join([f"roll of {change.address} (caused by "
                                     f"{', '.join(change.attributes)}), planned values:",
                                     *group_plan_lines(plan)]))
    return "\n\n".join(blocks)
