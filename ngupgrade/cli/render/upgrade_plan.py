"""Reports of ``ngupgrade plan``: the JSON document (stable keys) and the text for people.

Pure: plans in, plain Python values and strings out. JSON keys follow README.md
(``plan``) plus ``ok``, ``nodes_source``, ``duration``, ``platform`` (``yandex``|``selectel``),
``data_notes`` (``[{code, message}]``: what the upgrade does to data on the nodes, from the
platform's rules; empty on Yandex) and ``terraform`` (``{"timeouts": {"update":
"6h"|null}}``); add keys freely, never rename.

The text shows the timeline as a small picture of the group per step, one cell per node::

    x  an old node being drained (cordoned, its pods evicted)
    o  an old node, Ready
    #  a node on the new version
    |  the group size at the start (N); cells right of it are surge nodes
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ngupgrade.cli.render.groups import scale_json
from ngupgrade.core.model import AutoScale, ScalePolicy
from ngupgrade.core.plan_warnings import (
    INFORMATIONAL,
    UPDATE_TIMEOUT_BORDERLINE,
    UPDATE_TIMEOUT_EXCEEDED,
    strict_failures,
    suggested_update_timeout,
)
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import policy_text
from ngupgrade.core.simulate import GroupPlan, Step
from ngupgrade.core.units import counted

PICTURE_MAX_CELLS = 48
"""Widest picture; larger groups draw one cell per ``ceil(peak / 48)`` nodes."""

RUN_ELIDE_MIN = 3
"""A run of this many identical waves or more is shown as first, "...", last."""

FULL_TIMELINE_MAX_STEPS = 30
"""Timelines of up to this many steps are drawn in full; longer ones elide repeated waves."""

NODES_SOURCE_TEXT = {
    "fixed": "fixed size",
    "live": "live node count",
    "override": "--nodes",
    "max": "autoscaler max, the worst case; live size unknown, --nodes N plans another",
}

POLICY_SOURCE_TEXT = {
    "state": "from the state",
    "default": "unset in the state: {vendor} default assumed",
    "override": "command-line override",
    "live": "live, from the API",
    "plan": "from the Terraform plan's planned values; an unknown one at its worst case",
    "advised": "advised",
}

ACTION_TEXT = {
    "create": "create",
    "drain": "drain",
    "update_in_place": "update in place",
    "delete": "delete",
}


def _number(value: float) -> int | float:
    """An integral float as an int, so JSON shows ``300`` rather than ``300.0``."""
    return int(value) if float(value).is_integer() else value


def step_json(step: Step) -> dict[str, Any]:
    """One timeline step: ``wave``, ``action``, ``nodes``, ``group_size``, ``new_nodes``."""
    return {"wave": step.wave, "action": step.action, "nodes": step.nodes,
            "group_size": step.group_size, "new_nodes": step.new_nodes}


def group_plan_json(plan: GroupPlan) -> dict[str, Any]:
    """One group of ``ngupgrade plan --output json`` (README.md, plus
    ``nodes_source`` and ``duration`` in minutes)."""
    group = plan.group
    return {
        "address": str(group.address),
        "id": group.id,
        "name": group.name,
        "cluster_id": group.cluster_id,
        "scale": scale_json(group.scale),
        "policy": {
            "max_expansion": plan.policy.policy.max_expansion,
            "max_unavailable": plan.policy.policy.max_unavailable,
            "source": plan.policy.source,
            "assumed": plan.policy.assumed,
        },
        "effective_policy": {
            "max_expansion": plan.effective.max_expansion,
            "max_unavailable": plan.effective.max_unavailable,
        },
        "nodes": plan.nodes,
        "nodes_source": plan.nodes_source,
        "surge_nodes": plan.surge_nodes,
        "peak_nodes": plan.peak_nodes,
        "min_available_nodes": plan.min_available_nodes,
        "cycles": {"min": plan.cycles.min, "max": plan.cycles.max},
        "timeline": [step_json(s) for s in plan.timeline],
        "duration": {
            "minutes_per_cycle": _number(plan.duration.minutes_per_cycle),
            "min_minutes": _number(plan.duration.min_minutes),
            "max_minutes": _number(plan.duration.max_minutes),
        },
        "warnings": [{"code": w.code, "message": w.message,
                      "informational": w.code in INFORMATIONAL} for w in plan.warnings],
        "platform": group.platform,
        "data_notes": [{"code": n.code, "message": n.message} for n in plan.data_notes],
        "terraform": {"timeouts": {"update": terraform_update_timeout(plan)}},
    }


def terraform_update_timeout(plan: GroupPlan) -> str | None:
    """The ``timeouts { update = "..." }`` to set on the node group (``"6h"``), or None.

    None when the provider's default (60 min) is enough: no ``terraform-update-timeout-*``
    warning. Otherwise the upper estimate plus 20% in whole hours
    (terraform-google-modules/terraform-google-kubernetes-engine#939: 50 nodes at 1/0, 300 min:
    "6h"), the value the warning's text names.
    """
    codes = {w.code for w in plan.warnings}
    if codes & {UPDATE_TIMEOUT_EXCEEDED, UPDATE_TIMEOUT_BORDERLINE}:
        return suggested_update_timeout(plan.duration.max_minutes)
    return None


def plan_json(plans: Sequence[GroupPlan], *, strict: bool = False,
              accepted: frozenset[str] = frozenset()) -> dict[str, Any]:
    """``{"ok", "groups": [...], "accepted"}`` for ``ngupgrade plan --output json``.

    ``ok`` is false only under ``--strict`` with a warning that fails it
    (:func:`ngupgrade.core.plan_warnings.strict_failures`: not informational, not in
    ``accepted``; the command then exits 1); an invalid deploy policy is an error, not a plan.
    ``accepted``: the ``--accept`` codes, sorted.
    """
    return {"ok": not (strict and any(strict_failures(p.warnings, accepted) for p in plans)),
            "groups": [group_plan_json(p) for p in plans], "accepted": sorted(accepted)}


# --- the picture ----------------------------------------------------------------------------


def picture_scale(peak: int, max_cells: int = PICTURE_MAX_CELLS) -> int:
    """Nodes per cell: 1 up to ``max_cells`` nodes, else ``ceil(peak / max_cells)``."""
    return max(1, math.ceil(peak / max_cells))


def _cells(counts: Sequence[int], total: int) -> list[int]:
    """Share ``total`` cells among segments of ``counts`` nodes: cumulative boundaries
    rounded half up (the same node count ends at the same column), and at least one cell for
    every non-empty segment (taken from the widest one)."""
    out: list[int] = []
    nodes = sum(counts)
    done = 0
    edge = 0
    for count in counts:
        edge += count
        column = (2 * edge * total + nodes) // (2 * nodes) if nodes else 0
        out.append(column - done)
        done = column
    for i, count in enumerate(counts):
        if count and not out[i]:
            widest = max(range(len(out)), key=lambda j: out[j])
            if out[widest] > 1:
                out[widest] -= 1
            out[i] = 1
    return out


def _width(count: int, per_cell: int) -> int:
    """Cells for ``count`` nodes, rounded half up."""
    return (2 * count + per_cell) // (2 * per_cell)


def picture(
    *, nodes: int, group_size: int, new_nodes: int, draining: int, peak: int, per_cell: int = 1,
) -> str:
    """One bar: ``x`` draining, ``o`` old Ready, ``#`` new, ``|`` after the first N cells.

    ``per_cell`` nodes make one cell. A group above ``N`` always shows at least one cell past
    the marker, and every non-empty kind keeps at least one cell. The bar is padded to the
    peak so the marker column lines up.
    """
    mark = _width(nodes, per_cell)
    if group_size > nodes:
        total = mark + max(1, _width(group_size - nodes, per_cell))
    else:
        total = min(mark, _width(group_size, per_cell))
    old_ready = group_size - new_nodes - draining
    x, o, n = _cells([draining, old_ready, new_nodes], total)
    width = mark + max(1, _width(peak - nodes, per_cell)) if peak > nodes else mark
    bar = ("x" * x + "o" * o + "#" * n).ljust(width)
    return (bar[:mark] + "|" + bar[mark:]).rstrip()


def _draining_after(steps: Sequence[Step]) -> list[int]:
    """Cordoned old nodes after each step (drained, not yet updated or deleted)."""
    out: list[int] = []
    cordoned = 0
    for step in steps:
        if step.action == "drain":
            cordoned += step.nodes
        elif step.action in ("update_in_place", "delete"):
            cordoned -= step.nodes
        out.append(cordoned)
    return out


def _waves(steps: Sequence[Step]) -> list[list[int]]:
    """Indices of ``steps`` grouped by wave, in order."""
    waves: list[list[int]] = []
    for i, step in enumerate(steps):
        if not waves or steps[waves[-1][0]].wave != step.wave:
            waves.append([])
        waves[-1].append(i)
    return waves


def _visible_rows(steps: Sequence[Step]) -> list[int | tuple[int, int, int]]:
    """Step indices to show, with ``(first_wave, last_wave, step_count)`` for elided runs.

    Consecutive waves doing the same steps (same actions and node counts) collapse: the first
    and the last wave of a run of :data:`RUN_ELIDE_MIN` or more are shown, the rest is one line.
    """
    if len(steps) <= FULL_TIMELINE_MAX_STEPS:
        return list(range(len(steps)))
    waves = _waves(steps)

    def signature(wave: list[int]) -> tuple[tuple[str, int], ...]:
        return tuple((steps[i].action, steps[i].nodes) for i in wave)

    rows: list[int | tuple[int, int, int]] = []
    start = 0
    while start < len(waves):
        end = start
        while end + 1 < len(waves) and signature(waves[end + 1]) == signature(waves[start]):
            end += 1
        run = waves[start:end + 1]
        if len(run) >= RUN_ELIDE_MIN:
            rows.extend(run[0])
            hidden = run[1:-1]
            rows.append((steps[hidden[0][0]].wave, steps[hidden[-1][0]].wave,
                         sum(len(w) for w in hidden)))
            rows.extend(run[-1])
        else:
            for wave in run:
                rows.extend(wave)
        start = end + 1
    return rows


def timeline_lines(plan: GroupPlan, *, max_cells: int = PICTURE_MAX_CELLS) -> list[str]:
    """The timeline table with a picture per step (``start`` row first), as printed."""
    per_cell = picture_scale(plan.peak_nodes, max_cells)
    legend = f"x draining  o old  # new  | {counted(plan.nodes, 'node')}"
    if per_cell > 1:
        legend += f"  (1 cell = {per_cell} nodes)"
    lines = [f"{'wave':>4}  {'step':<20} {'size':>4} {'new':>4}  {legend}"]

    def row(wave: str, label: str, size: int, new: int, draining: int) -> str:
        bar = picture(nodes=plan.nodes, group_size=size, new_nodes=new, draining=draining,
                      peak=plan.peak_nodes, per_cell=per_cell)
        return f"{wave:>4}  {label:<20} {size:>4} {new:>4}  {bar}"

    lines.append(row("", "start", plan.nodes, 0, 0))
    draining = _draining_after(plan.timeline)
    for item in _visible_rows(plan.timeline):
        if isinstance(item, tuple):
            first, last, count = item
            what = f"wave {first}" if first == last else f"waves {first}..{last}"
            lines.append(f"{'...':>4}  {what}: the same {count} steps, not drawn "
                         "(--output json lists every step)")
            continue
        step = plan.timeline[item]
        label = f"{ACTION_TEXT[step.action]} {step.nodes}"
        lines.append(row(str(step.wave), label, step.group_size, step.new_nodes,
                         draining[item]))
    return lines


# --- the text report ------------------------------------------------------------------------


def _minutes(value: float) -> str:
    return f"{value:g}"


def _scale_text(scale: ScalePolicy) -> str:
    if isinstance(scale, AutoScale):
        return f"auto {scale.min}..{scale.max}"
    return f"fixed {scale.size}"


def policy_source_text(plan: GroupPlan) -> str:
    """Where the plan's deploy policy came from, for people (:data:`POLICY_SOURCE_TEXT`); an
    assumed default names the group's platform: ``unset in the state: Selectel default
    assumed``."""
    return POLICY_SOURCE_TEXT[plan.policy.source].format(vendor=platform_of(plan.group).vendor)


def deploy_policy_text(plan: GroupPlan) -> str:
    """The deploy policy as every report names it (``plan``, ``drain-check``): the configured
    values, where they came from, and the effective policy when the group's size changes it:
    ``max_expansion 1, max_unavailable 5 (command-line override); effective 1/3 at 3 nodes``.
    """
    configured = plan.policy.policy
    eff = plan.effective
    policy = (f"max_expansion {configured.max_expansion}, max_unavailable "
              f"{configured.max_unavailable} ({policy_source_text(plan)})")
    if plan.policy.assumed and plan.policy.source == "override":
        policy += "; the other knob is the assumed default"
    if (eff.max_expansion, eff.max_unavailable) != (configured.max_expansion,
                                                    configured.max_unavailable):
        policy += f"; effective {policy_text(eff)} at {counted(plan.nodes, 'node')}"
    return policy


def group_plan_lines(plan: GroupPlan) -> list[str]:
    """The text block of one group: figures, timeline picture, warnings."""
    group = plan.group
    policy = deploy_policy_text(plan)
    cycles = (str(plan.cycles.min) if plan.cycles.min == plan.cycles.max
              else f"{plan.cycles.min}..{plan.cycles.max}")
    d = plan.duration
    span = (_minutes(d.min_minutes) if d.min_minutes == d.max_minutes
            else f"{_minutes(d.min_minutes)}..{_minutes(d.max_minutes)}")
    down = plan.nodes - plan.min_available_nodes
    lines = [
        f"{group.address}  ({group.name or '-'}, {group.id or 'no id'}, "
        f"{_scale_text(group.scale)})",
        f"  deploy policy   {policy}",
        f"  nodes           {plan.nodes} ({NODES_SOURCE_TEXT[plan.nodes_source]})",
        f"  surge           +{counted(plan.surge_nodes, 'node')}, "
        f"peak {plan.peak_nodes}",
        f"  min available   {plan.min_available_nodes} of {plan.nodes} Ready "
        f"({down} down at once)",
        f"  cycles          {cycles}",
        f"  duration        {span} min at {_minutes(d.minutes_per_cycle)} min per cycle",
    ]
    if plan.timeline:
        note = ""
        # the combined policy: waves may overlap (the Yandex deploy-policy page)
        if plan.cycles.min != plan.cycles.max:
            note = (f"  (the slowest order, {plan.cycles.max} waves; new and drained nodes "
                    f"may overlap, down to {counted(plan.cycles.min, 'cycle')})")
        lines.append("  timeline" + note)
        lines.extend("    " + line for line in timeline_lines(plan))
    if plan.warnings:
        lines.append("  warnings")
        lines.extend(f"    ! {w.code}: {w.message}" for w in plan.warnings)
    if plan.data_notes:
        lines.append("  data on the nodes")
        lines.extend(f"    - {n.code}: {n.message}" for n in plan.data_notes)
    return lines


def plan_text(plans: Sequence[GroupPlan]) -> str:
    """The whole ``ngupgrade plan`` report for people, groups separated by a blank line."""
    if not plans:
        return "no yandex_kubernetes_node_group resources in this state"
    return "\n\n".join("\n".join(group_plan_lines(p)) for p in plans)
