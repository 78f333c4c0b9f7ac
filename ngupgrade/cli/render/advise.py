"""Reports of ``ngupgrade advise``: the JSON document (stable keys) and the text for people.

Pure: an :class:`~ngupgrade.core.advise.advice.Advice` in, plain values and strings out.

JSON (keys may be added, never renamed)::

    {"ok": bool,
     "groups": [{"address", "id", "name", "nodes", "nodes_source",
                 "recommended": POLICY | null, "front": [POLICY], "rejected": [POLICY +
                 {"reasons": [{"code", "message"}]}],
                 "calibration": {"minutes_per_cycle", "source": "history"|"default"|"override",
                                 "operations", "samples", "note"},
                 "availability": {"min_available", "source": "override"|"one-node-down"|
                                  "whole-group", "max_unavailable",
                                  "autoscaler_min"},
                 "quota": {"checked", "cloud_id", "max_expansion", "unknown"},
                 "workloads_checked", "platform", "scheduled": POLICY + {"stage"} | null,
                 "set_policy", "terraform", "change_hint",
                 "warnings": [{"code", "message"}], "plan_strict_fails_on": [CODE]}],
     "schedule": [{"stage", "start_minutes", "minutes", "why_not_earlier",
                   "groups": [{"address", "max_expansion", "max_unavailable", "minutes",
                               "cluster_id", "start_minutes", "after"}]}],
     "schedule_minutes": {"total", "sequential"},
     "concurrency": "one-per-cluster" | "together" (what groups upgraded together means:
                    ngupgrade.core.quota.demand.concurrency, as preflight counts)}

    POLICY = {"max_expansion", "max_unavailable", "cycles": {"min", "max"},
              "minutes": {"min", "max"}, "surge_node_hours", "min_available_nodes"}

``recommended.minutes`` is a range (``cycles x minutes per cycle``); schedules use its upper
end. A stage's groups of one cluster run one after another
(hashicorp/terraform-provider-google#3650): a schedule group's ``start_minutes`` is when it starts
(from the start of the schedule), ``after`` the group of its cluster it waits for (null: it starts
with the stage), and the stage's ``minutes`` its longest cluster. ``recommended`` is the group's
fastest safe policy alone; ``scheduled`` the one the schedule runs it with (smaller when it shares
its cloud's headroom in a stage). ``set_policy`` and ``terraform`` apply ``scheduled`` (the printed
policies of a schedule fit together as it runs them; each group's own recommendation may not), with
``timeouts { update }`` when the upgrade may outlast Terraform's update timeout; null when no
policy is safe, or on a platform that ngupgrade does not change (Selectel: ``change_hint``
says where the strategy is set).
``warnings`` are those ``ngupgrade plan`` gives for the policy applied, and
``current-size-assumed``; ``plan_strict_fails_on`` the codes among them that fail ``ngupgrade
plan --strict`` on that policy (:func:`strict_fails_on`).
"""

from __future__ import annotations

import shlex
from typing import Any

from ngupgrade.core.advise.advice import Advice, GroupAdvice
from ngupgrade.core.advise.candidates import Candidate
from ngupgrade.core.advise.recommend import Rejected
from ngupgrade.core.plan_warnings import (
    HARD_LIMITS,
    UPDATE_TIMEOUT_BORDERLINE,
    UPDATE_TIMEOUT_EXCEEDED,
    WARNING_CODES,
    strict_failures,
    suggested_update_timeout,
)
from ngupgrade.core.policy import terraform_block
from ngupgrade.core.units import counted

FRONT_ROWS = 10
"""Rows of the front shown in the text; JSON has them all."""

REJECTED_ROWS = 6
"""Near misses shown in the text; JSON has them all."""

CALIBRATION_TEXT = {
    "history": "from the group's own upgrade history",
    "option": "--cycle-minutes",
    "default": "the documented default",
}

_OVERRIDE = {"option": "override"}
"""A value given on the command line is an "override" in every report (plan, groups, preflight)."""


def _num(value: float) -> int | float:
    """An integral float as an int, others to 2 decimals (minutes, node-hours)."""
    return int(value) if float(value).is_integer() else round(value, 2)


def policy_json(advice: GroupAdvice, c: Candidate) -> dict[str, Any]:
    """One policy with its figures (``POLICY`` in the module docstring)."""
    low, high = advice.minutes(c)
    return {"max_expansion": c.max_expansion, "max_unavailable": c.max_unavailable,
            "cycles": {"min": c.cycles_min, "max": c.cycles_max},
            "minutes": {"min": _num(low), "max": _num(high)},
            "surge_node_hours": _num(advice.surge_node_hours(c)),
            "min_available_nodes": c.min_available}


def set_policy_command(address: str, c: Candidate) -> str:
    """The ``ngupgrade set-policy`` command that applies ``c`` (shell-quoted address)."""
    return (f"ngupgrade set-policy -g {shlex.quote(address)} --max-expansion "
            f"{c.max_expansion} --max-unavailable {c.max_unavailable} --apply")


def strict_fails_on(advice: GroupAdvice) -> list[str]:
    """The plan warning codes of the policy to apply that ``ngupgrade plan --strict`` fails on
    (:func:`ngupgrade.core.plan_warnings.strict_failures`, the strict gate's one rule), in
    order, each once: advise recommends what is safe, the gate also asks that such a warning be
    read and accepted."""
    codes = [w.code for w in strict_failures(advice.warnings) if w.code in WARNING_CODES]
    return list(dict.fromkeys(codes))


def _strict_line(advice: GroupAdvice) -> list[str]:
    codes = strict_fails_on(advice)
    if not codes:
        return []
    soft = [c for c in codes if c not in HARD_LIMITS]
    how = (f"; after reading it pass it with {' '.join(f'--accept {c}' for c in soft)}"
           if soft else "")
    return [f"  `ngupgrade plan --strict` fails on this policy: {', '.join(codes)}{how}"]


def terraform_text(advice: GroupAdvice, c: Candidate) -> str:
    """The Terraform to keep in step: the ``deploy_policy`` block, and ``timeouts { update }``
    when the upgrade may outlast (or nearly) Terraform's update timeout (the plan's warning)."""
    text = terraform_block(c.policy)
    codes = {w.code for w in advice.warnings}
    if codes & {UPDATE_TIMEOUT_EXCEEDED, UPDATE_TIMEOUT_BORDERLINE}:
        hours = suggested_update_timeout(advice.minutes(c)[1])
        text += f'\ntimeouts {{\n  update = "{hours}"\n}}'
    return text


def _rejected_json(advice: GroupAdvice, r: Rejected) -> dict[str, Any]:
    out = policy_json(advice, r.candidate)
    out["reasons"] = [{"code": x.code, "message": x.message} for x in r.reasons]
    return out


def group_json(advice: GroupAdvice) -> dict[str, Any]:
    """One group of the ``advise`` JSON document."""
    g, s, rule, cal = advice.group, advice.search, advice.availability, advice.calibration
    rec = s.recommended
    use = advice.applied
    applies = use is not None and advice.platform.applies_changes
    scheduled = None
    if advice.scheduled is not None:
        scheduled = {**policy_json(advice, advice.scheduled), "stage": advice.stage}
    checked = advice.quota is not None and advice.quota.listed
    return {
        "address": advice.address, "id": g.id, "name": g.name,
        "nodes": advice.nodes, "nodes_source": advice.nodes_source,
        "recommended": policy_json(advice, rec) if rec is not None else None,
        "front": [policy_json(advice, c) for c in s.front],
        "rejected": [_rejected_json(advice, r) for r in s.rejected],
        "calibration": {"minutes_per_cycle": _num(cal.minutes_per_cycle),
                        "source": _OVERRIDE.get(cal.source, cal.source),
                        "operations": cal.operations,
                        "samples": [_num(x) for x in cal.samples], "note": cal.note},
        "availability": {"min_available": rule.floor,
                         "source": _OVERRIDE.get(rule.floor_source, rule.floor_source),
                         "max_unavailable": s.max_unavailable,
                         "autoscaler_min": rule.autoscaler_min},
        "quota": {"checked": checked,
                  "cloud_id": advice.quota.cloud_id if advice.quota and checked else None,
                  "max_expansion": s.max_expansion if advice.quota else None,
                  "unknown": advice.quota.unknown() if advice.quota and checked else []},
        "workloads_checked": advice.workloads_checked,
        "platform": advice.platform.name,
        "scheduled": scheduled,
        "set_policy": set_policy_command(advice.address, use) if applies and use else None,
        "terraform": terraform_text(advice, use) if applies and use else None,
        "change_hint": None if advice.platform.applies_changes else advice.platform.change_hint,
        "warnings": [{"code": w.code, "message": w.message} for w in advice.warnings],
        "plan_strict_fails_on": strict_fails_on(advice),
    }


def advise_json(advice: Advice) -> dict[str, Any]:
    """The whole ``ngupgrade advise --output json`` document."""
    plan = advice.schedule
    return {
        "ok": advice.ok,
        "groups": [group_json(g) for g in advice.groups],
        "schedule": [
            {"stage": i, "start_minutes": _num(st.start_minutes), "minutes": _num(st.minutes),
             "why_not_earlier": st.why_new,
             "groups": [{"address": p.address,
                         "max_expansion": p.option.candidate.max_expansion,
                         "max_unavailable": p.option.candidate.max_unavailable,
                         "minutes": _num(p.option.minutes), "cluster_id": p.cluster_id,
                         "start_minutes": _num(st.start_minutes + p.offset_minutes),
                         "after": p.after} for p in st.groups]}
            for i, st in enumerate(plan.stages, start=1)],
        "schedule_minutes": {"total": _num(plan.total_minutes),
                             "sequential": _num(plan.sequential_minutes)},
        "concurrency": advice.concurrency,
    }


# --- text -----------------------------------------------------------------------------------


def _range(low: float, high: float, unit: str = "") -> str:
    text = f"{_num(low)}" if low == high else f"{_num(low)}..{_num(high)}"
    return f"{text}{unit}"


def _policy_line(advice: GroupAdvice, c: Candidate) -> str:
    low, high = advice.minutes(c)
    cycles = "cycle" if c.cycles_max == 1 else "cycles"
    return (f"{c.max_expansion}/{c.max_unavailable}: {_range(c.cycles_min, c.cycles_max)} "
            f"{cycles}, {_range(low, high)} min, {_num(advice.surge_node_hours(c))} surge "
            f"node-hours, {c.min_available} of {counted(advice.nodes, 'node')} Ready at worst")


def group_text(advice: GroupAdvice) -> list[str]:
    """The lines about one group."""
    g, s, cal, rule = advice.group, advice.search, advice.calibration, advice.availability
    lines = [f"{advice.address}  ({g.name or g.id}, {counted(advice.nodes, 'node')}, "
             f"{advice.nodes_source})"]
    where = CALIBRATION_TEXT[cal.source]
    if cal.source == "history":
        where += f", median of {cal.operations} upgrade(s)"
    elif cal.note and cal.note != where:
        where += f"; {cal.note}"
    lines.append(f"  minutes per cycle: {_num(cal.minutes_per_cycle)} ({where})")
    if advice.quota is None:
        lines.append("  quota: not checked (give --quotas FILE or --endpoint)")
    elif not advice.quota.listed:
        fit = ("no surge fits" if s.max_expansion is None
               else f"max_expansion up to {s.max_expansion} fits")
        lines.append("  quota: not checked (give --quotas FILE or --endpoint); the spread "
                     f"placement group: {fit}")
    else:
        fit = ("no surge fits" if s.max_expansion is None
               else f"max_expansion up to {s.max_expansion} fits")
        lines.append(f"  quota: cloud {advice.quota.cloud_id}: {fit}")
        unknown = advice.quota.unknown()
        if unknown:
            lines.append(f"  warning: unknown quotas, unchecked: {', '.join(unknown)}")
    auto = (f"; autoscaler min {rule.autoscaler_min}" if rule.autoscaler_min is not None
            else "")
    why_u = ""
    if rule.autoscaler_min is not None and s.max_unavailable < rule.nodes - rule.floor:
        why_u = f" (below the autoscaler min {rule.autoscaler_min})"
    lines.append(f"  availability: at least {counted(rule.floor, 'node')} Ready "
                 f"({rule.floor_source}"
                 f"{auto}): max_unavailable up to {s.max_unavailable}{why_u}")
    unmodelled = any(w.code == "constraint-not-modelled" for w in advice.warnings)
    lines.append("  workloads: " + ("checked against the cluster objects, NOT FULLY MODELLED "
                                    "(see the constraint-not-modelled warning)" if unmodelled
                                    else "checked against the cluster objects"
                                    if advice.workloads_checked
                                    else "not checked (no cluster objects)"))
    if advice.nodes == 0:
        lines.append("  the group has 0 nodes: nothing to upgrade")
        return lines
    rec = s.recommended
    if rec is None:
        lines.append("  recommended: none, no policy is safe")
    else:
        lines.append(f"  recommended: {_policy_line(advice, rec)}")
    if s.front:
        lines.append("  Pareto front (duration, cost, nodes down), fastest first:")
        for c in s.front[:FRONT_ROWS]:
            lines.append(f"    {_policy_line(advice, c)}")
        if len(s.front) > FRONT_ROWS:
            lines.append(f"    ... {len(s.front) - FRONT_ROWS} more (--output json)")
    if s.rejected:
        lines.append("  faster, but blocked:" if rec is not None else "  blocked:")
        for r in s.rejected[:REJECTED_ROWS]:
            c = r.candidate
            low, high = advice.minutes(c)
            lines.append(f"    {c.max_expansion}/{c.max_unavailable} "
                         f"({_range(low, high)} min):")
            lines.extend(f"      {x.code}: {x.message}" for x in r.reasons)
        if len(s.rejected) > REJECTED_ROWS:
            lines.append(f"    ... {len(s.rejected) - REJECTED_ROWS} more (--output json)")
    use = advice.applied
    if use is not None and use != rec:
        lines.append(f"  in the schedule (stage {advice.stage}, sharing the cloud's headroom): "
                     f"{_policy_line(advice, use)}")
    if advice.warnings:
        lines.append("  warnings" + (" (for the policy to apply)" if use else ""))
        lines.extend(f"    ! {w.code}: {w.message}" for w in advice.warnings)
        lines.extend(_strict_line(advice))
    if use is not None and not advice.platform.applies_changes:
        lines.append(f"  apply it in {advice.platform.change_hint}")
    elif use is not None:
        which = " (the schedule's policy; alone, the recommendation above)" if use != rec else ""
        lines.append(f"  apply it{which}:")
        lines.append(f"    {set_policy_command(advice.address, use)}")
        lines.append("  and keep Terraform in step:")
        lines.extend(f"    {line}" for line in terraform_text(advice, use).splitlines())
    return lines


CONCURRENCY_NOTE = {
    "one-per-cluster": "one group of a cluster at a time, clusters together (as preflight "
                       "counts)",
    "together": "groups of a cluster together (as preflight counts)",
    "sequential": "one group at a time",
}
"""The schedule line's note on :attr:`Advice.concurrency`."""


def advise_text(advice: Advice) -> str:
    """The whole text report: each group, then the schedule when there are several."""
    lines: list[str] = []
    for g in advice.groups:
        lines.extend(group_text(g))
        lines.append("")
    plan = advice.schedule
    if len(advice.groups) > 1 and plan.stages:
        lines.append(f"schedule: {_num(plan.total_minutes)} min in all (one after another "
                     f"with each group's own recommendation: {_num(plan.sequential_minutes)} "
                     f"min); {CONCURRENCY_NOTE[advice.concurrency]}")
        for i, st in enumerate(plan.stages, start=1):
            lines.append(f"  stage {i}: starts at {_num(st.start_minutes)} min, takes up to "
                         f"{_num(st.minutes)} min")
            if st.why_new:
                lines.append(f"    not earlier: {st.why_new}")
            for p in st.groups:
                c = p.option.candidate
                after = "" if p.after is None else (
                    f", starts at {_num(st.start_minutes + p.offset_minutes)} min after "
                    f"{p.after} (same cluster: one operation at a time)")
                lines.append(f"    {p.address}  {c.max_expansion}/{c.max_unavailable}, up to "
                             f"{_num(p.option.minutes)} min{after}")
    blocked = [g.address for g in advice.groups if not g.ok]
    if blocked:
        lines.append(f"no safe policy: {', '.join(blocked)}")
    return "\n".join(lines).rstrip("\n") + "\n"
