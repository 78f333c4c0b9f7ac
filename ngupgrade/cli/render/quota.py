"""Rendering of a quota preflight: a table in units people read, JSON in the API's units.

Pure: takes a :class:`ngupgrade.core.quota.preflight.Preflight`, returns text or plain dicts.

JSON (README.md; stable keys, new keys may be added, none renamed)::

    {"ok": bool,
     "clouds": [{"cloud_id", "quotas": [{"quota_id", "unit", "limit", "usage", "headroom",
                                         "demand", "status": "ok"|"short"|"unknown",
                                         "shortfall", "scope": null|"group ADDRESS"|
                                         "cluster ID"}]}],
     "groups": [{"address", "id", "name", "cluster_id", "cloud_id",
                 "extra_nodes": {"worst_case", "at_current_size", "managed_kubernetes",
                                 "managed_kubernetes_at_current_size", "nodes", "current",
                                 "current_source": "fixed"|"live"|"assumed_min"},
                 "policy": {"max_expansion", "max_unavailable",
                            "source": "state"|"live"|"default"},
                 "per_node": {...}, "demand": {...}, "demand_at_current_size": {...}}],
     "suggestions": [{"address", "cloud_id", "quota_ids", "kind", "max_expansion",
                      "max_unavailable", "nodes", "peak_nodes", "min_ready_nodes",
                      "cycles": {"min", "max"}, "fits", "fits_together",
                      "whole_group_down", "rows": [the short rows' names, a per-group or
                      per-cluster limit with its scope as the table names it]}],
     "warnings": [{"code", "message"}],
     "mode": {"sequential", "strict", "at_current_size", "concurrency": "together" |
              "one-per-cluster" | "sequential" (which groups' surges are counted at once:
              ngupgrade.core.quota.demand.concurrency)}, "api_calls": {method: count}}

``limit``/``usage``/``headroom`` are null when unknown; ``*.size`` values are bytes. ``demand`` of
a group is the one the verdict counts (worst case, or at the current size with
``--at-current-size``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ngupgrade.cli.render.table import fit_rows, fits
from ngupgrade.core.drain.blockers import why_blocked
from ngupgrade.core.plan_warnings import PlanWarning
from ngupgrade.core.policy import policy_text
from ngupgrade.core.quota.preflight import (
    Preflight,
    failure_summary,  # noqa: F401  (re-exported for the CLI)
    nothing_checked_message,
)
from ngupgrade.core.quota.suggest import Suggestion
from ngupgrade.core.quota.verdict import QuotaVerdict
from ngupgrade.core.units import counted, quota_unit, span_text
from ngupgrade.core.units import human_quota as human

_LIVE = {"api": "live"}
"""Core's name of a value read from the cloud API -> the reports' name for it."""


def _num(value: float | None) -> int | float | None:
    """A quota figure for JSON: whole numbers as ints (the API's doubles are whole in practice)."""
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


# ---------------------------------------------------------------------------------------------
# JSON


def json_unit(quota_id: str) -> str:
    """The unit of a quota row's JSON numbers: ``bytes`` for ``*.size`` (the API's unit, not
    the table's GiB), ``MB``/``GB`` for Selectel's RAM and volumes, else what is counted
    (``cores``, ``VMs``, ``nodes``, ``disks``, ``GPUs``, ``IPs``), or ``count``."""
    unit = quota_unit(quota_id)
    return {"GiB": "bytes", "": "count"}.get(unit, unit)


def _quota_json(q: QuotaVerdict) -> dict[str, Any]:
    return {"quota_id": q.quota_id, "unit": json_unit(q.quota_id), "limit": _num(q.limit),
            "usage": _num(q.usage), "headroom": _num(q.headroom), "demand": q.demand,
            "status": q.status, "shortfall": _num(q.shortfall), "scope": q.scope}


def _suggestion_json(s: Suggestion) -> dict[str, Any]:
    return {"address": s.address, "cloud_id": s.cloud_id, "quota_ids": list(s.quota_ids),
            "kind": s.kind, "max_expansion": s.max_expansion,
            "max_unavailable": s.max_unavailable, "nodes": s.nodes, "peak_nodes": s.peak_nodes,
            "min_ready_nodes": s.min_ready_nodes,
            "cycles": {"min": s.cycles_min, "max": s.cycles_max}, "fits": s.fits,
            "fits_together": s.fits_together, "whole_group_down": s.whole_group_down,
            "rows": list(s.rows or s.quota_ids)}


def preflight_json(result: Preflight) -> dict[str, Any]:
    """The ``preflight`` JSON document of README.md, in API units (bytes)."""
    groups = []
    for gd in result.groups:
        ex = gd.extra
        groups.append({
            "address": gd.address, "id": gd.group.id, "name": gd.group.name,
            "cluster_id": gd.group.cluster_id, "cloud_id": gd.cloud_id,
            "extra_nodes": {
                "worst_case": ex.worst_case, "at_current_size": ex.at_current_size,
                "managed_kubernetes": ex.managed_kubernetes,
                "managed_kubernetes_at_current_size": ex.managed_kubernetes_at_current_size,
                "nodes": ex.nodes, "current": ex.current,
                # one vocabulary with plan's nodes_source: read from the API is "live"
                "current_source": _LIVE.get(ex.current_source, ex.current_source),
            },
            "policy": {"max_expansion": ex.policy.max_expansion,
                       "max_unavailable": ex.policy.max_unavailable,
                       "source": ex.policy_source, "assumed": ex.policy_assumed},
            "per_node": dict(gd.per_node),
            "demand": dict(gd.demand(result.at_current_size)),
            "demand_at_current_size": dict(gd.at_current_size),
        })
    return {
        "ok": result.ok,
        "checked_nothing": result.checked_nothing,
        "clouds": [{"cloud_id": c.cloud_id, "quotas": [_quota_json(q) for q in c.quotas]}
                   for c in result.clouds],
        "groups": groups,
        "suggestions": [_suggestion_json(s) for s in result.suggestions],
        "warnings": [{"code": w.code, "message": w.message} for w in result.warnings],
        "drain_blockers": [{"namespace": p.namespace, "name": p.name,
                            "disruptions_allowed": p.disruptions_allowed,
                            "reason": why_blocked(p)} for p in result.drain_blockers],
        "mode": {"sequential": result.sequential, "strict": result.strict,
                 "at_current_size": result.at_current_size,
                 "concurrency": result.concurrency},
        "api_calls": dict(result.api_calls),
    }


# ---------------------------------------------------------------------------------------------
# Table


def _table(rows: list[list[str]], width: int | None, whole: tuple[int, ...] = ()) -> list[str]:
    return fit_rows(rows, width, whole=whole)


def _quota_rows(quotas: Sequence[QuotaVerdict], strict: bool, width: int | None
                ) -> list[list[str]]:
    """The quota table's rows, each figure with its unit; when that is wider than ``width``,
    the figures bare and the unit in a column of its own (a quota's figures share one)."""
    rows = [["quota", "limit", "usage", "headroom", "demand", "status"]]
    for q in quotas:
        rows.append([q.name, human(q.quota_id, q.limit), human(q.quota_id, q.usage),
                     human(q.quota_id, q.headroom), human(q.quota_id, q.demand),
                     _status_text(q, strict)])
    if fits(rows, width):
        return rows
    bare = [["quota", "limit", "usage", "headroom", "demand", "unit", "status"]]
    for q, row in zip(quotas, rows[1:], strict=True):
        bare.append([q.name, *(_bare(q.quota_id, v) for v in (q.limit, q.usage, q.headroom,
                                                               q.demand)),
                     quota_unit(q.quota_id), row[-1]])
    return bare


def _bare(quota_id: str, value: float | None) -> str:
    """A figure as :func:`human` writes it, without its unit."""
    text = human(quota_id, value)
    return text.rsplit(" ", 1)[0] if value is not None and quota_unit(quota_id) else text


def _status_text(q: QuotaVerdict, strict: bool) -> str:
    if q.status == "short":
        return f"SHORT by {human(q.quota_id, q.shortfall)}"
    if q.status == "unknown":
        return "UNKNOWN (fails: --strict)" if strict else "UNKNOWN (warning)"
    return "ok"


CONCURRENCY_TEXT = {
    "sequential": "groups one after another (--sequential)",
    "one-per-cluster": "one group of a cluster at a time, clusters together",
    "together": "groups upgraded together",
}
"""How each :data:`ngupgrade.core.quota.demand.Concurrency` is named in the report's title."""


def suggestion_text(s: Suggestion) -> str:
    """One line for people: the policy, what it costs in time and availability, and if it fits."""
    share = f" ({100 * s.min_ready_nodes // s.nodes}%)" if s.nodes else ""
    cyc = span_text(s.cycles_min, s.cycles_max, "cycle")
    if s.kind == "no_surge":
        what = (f"max_expansion=0 max_unavailable={s.max_unavailable}: no surge nodes, "
                f"min ready {s.min_ready_nodes} of {counted(s.nodes, 'node')}{share}, {cyc}")
    else:
        what = (f"max_expansion={s.max_expansion} max_unavailable={s.max_unavailable}: "
                f"peak {s.peak_nodes} nodes, min ready {s.min_ready_nodes} of {s.nodes}{share}, "
                f"{cyc}")
    fixes = ", ".join(s.rows or s.quota_ids)
    if s.fits:
        tail = f"fixes {fixes}"
    elif s.fits_together:
        tail = f"fixes {fixes} together with the suggestion after it"
    else:
        tail = f"eases {fixes}, still short with every suggestion: raise the quota"
    down = ("; WHOLE GROUP DOWN: every node drained at once, its workloads offline"
            if s.whole_group_down else "")
    return f"{s.address}: {what}{down} ({tail})"


def preflight_table(result: Preflight, *, shown_apart: Callable[[PlanWarning], bool] | None = None,
                    width: int | None = None) -> str:
    """The report for people: verdict line, per-cloud quota table, groups, suggestions,
    warnings (but those ``shown_apart`` says the caller prints on their own lines); the
    tables fit ``width`` columns (None: as wide as their cells,
    :func:`ngupgrade.cli.render.table.fit_rows`)."""
    lines: list[str] = []
    mode = ("at the current size" if result.at_current_size else "worst case") + ", " + (
        CONCURRENCY_TEXT[result.concurrency])
    short, unknown = len(result.short), len(result.unknown)
    if result.ok:
        verdict = "PASS"
        if unknown:
            verdict += f" with {counted(unknown, 'unknown quota')}"
    else:
        parts = [f"{counted(short, 'quota')} short"] if short else []
        if result.checked_nothing:
            parts.append(nothing_checked_message(result))
        elif result.strict and unknown:
            parts.append(f"{unknown} unknown under --strict")
        verdict = "FAIL: " + ", ".join(parts)
    lines.append(f"Quota preflight: {verdict}  [{mode}]")
    for cloud in result.clouds:
        lines.append("")
        # a Selectel group's quotas are its project's (core.quota.selectel)
        selectel = any(gd.group.platform == "selectel" for gd in result.groups
                       if gd.cloud_id == cloud.cloud_id)
        lines.append(f"{'project' if selectel else 'cloud'} {cloud.cloud_id}")
        lines.extend(_table(_quota_rows(cloud.quotas, result.strict, width), width))
    if result.groups:
        lines.append("")
        lines.append("node groups (extra nodes: compute/vpc worst case | at current size | "
                     "managed-kubernetes)")
        scope = ("project" if all(gd.group.platform == "selectel" for gd in result.groups)
                 else "cloud")
        rows = [["group", scope, "policy", "nodes", "extra"]]
        for gd in result.groups:
            ex = gd.extra
            policy = policy_text(ex.policy) + (
                {"state": "", "live": " (live)", "plan": " (from the Terraform plan)",
                 "override": " (override)", "advised": " (advised)"}.get(ex.policy_source,
                                                                        " (assumed)"))
            if ex.current_source == "fixed":
                nodes = f"{ex.current} fixed"
            else:
                src = "live" if ex.current_source == "api" else "assumed min"
                nodes = f"{ex.current} now ({src}), max {ex.nodes}"
            rows.append([gd.address, gd.cloud_id, policy, nodes,
                         f"{ex.worst_case} | {ex.at_current_size} | {ex.managed_kubernetes}"])
        lines.extend(_table(rows, width, whole=(0, 1)))
    if result.suggestions:
        lines.append("")
        lines.append("suggestions")
        lines.extend(f"  {suggestion_text(s)}" for s in result.suggestions)
    if result.drain_blockers:
        lines.append("")
        lines.append("drain blockers (PodDisruptionBudgets that allow 0 disruptions now; the "
                     "upgrade stalls on their pods' nodes)")
        lines.extend(f"  {p.ref}: {why_blocked(p)}" for p in result.drain_blockers)
    warnings = [w for w in result.warnings if shown_apart is None or not shown_apart(w)]
    if warnings:
        lines.append("")
        lines.append("warnings")
        lines.extend(f"  [{w.code}] {w.message}" for w in warnings)
    return "\n".join(lines) + "\n"


def api_calls_text(calls: Mapping[str, int]) -> str:
    """``3 QuotaLimitService.List, 1 FolderService.Get`` (for verbose output and the bench)."""
    return ", ".join(f"{n} {name}" for name, n in sorted(calls.items())) or "none"
