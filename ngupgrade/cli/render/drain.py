"""Rendering of a drain check: a table per group, JSON, and JUnit XML for CI. Pure.

Takes a :class:`ngupgrade.core.drain.check.DrainReport`; returns text or plain dicts.

JSON (stable keys, new keys may be added, none renamed)::

    {"ok": bool,
     "groups": [{"address", "group_id", "ok",
                 "verdict": "blocked"|"not-modelled"|"accepted"|"warnings"|"clear",
                 "policy": {"max_expansion", "max_unavailable"},
                 "rules": {"platform", "drain_timeout_seconds", "on_blocked_eviction",
                           "nodes_at_once": "wave"|"one"},
                 "orders": {"evaluated", "exhaustive"}, "nodes": [name],
                 "waves": [{"number", "nodes", "surge_ready", "pods_evicted", "pods_blocked",
                            "pods_unplaced", "unplaced": ["ns/pod"], "pdb_waits", "in_place",
                            "deleted"}],
                 "findings": [{"code", "severity": "blocking"|"warning"|"info", "wave",
                               "every_order", "pod", "pdb", "node", "message", "count",
                               "component", "suggestion", "accepted", "orders_found",
                               "orders_evaluated"}]}]}

``wave``, ``pod``, ``pdb``, ``node``, ``count``, ``component``, ``suggestion`` are null when
the finding has none. ``orders_found`` of the ``orders_evaluated`` orders showed the finding
(null when not counted per order); ``every_order`` stays false when they were a sample, even
if every one of them showed it (the text says "in every order evaluated (a sample of N)").
``waves`` are those of the worst order; ``pods_evicted`` counts the pods
evicted through the eviction API only, ``pods_blocked`` those whose eviction was refused
(Yandex's forced stop takes them down with the node; Selectel stops the upgrade with them
running). ``ok`` and ``verdict`` follow ``--accept`` and ``--strict``: a group whose failing
findings were all accepted is ``ok`` with the verdict ``accepted``; each finding keeps its
``severity`` and says ``accepted``.

JUnit (``--output junit``): one test suite per group; one test case for the group's verdict
and one per finding; blocking findings (and a blocked verdict) are failures, so a CI system
shows the gate as test results.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ngupgrade.cli.render.table import fit_rows
from ngupgrade.cli.render.upgrade_plan import deploy_policy_text
from ngupgrade.core.drain.check import DrainReport, GroupDrainReport
from ngupgrade.core.drain.findings import CONSTRAINT_NOT_MODELLED, Finding, fails
from ngupgrade.core.drain.walk import WaveSummary
from ngupgrade.core.platform import DrainRules
from ngupgrade.core.policy import policy_text
from ngupgrade.core.simulate import Duration, GroupPlan
from ngupgrade.core.units import counted


def finding_json(finding: Finding, accepted: frozenset[str] = frozenset()) -> dict[str, Any]:
    """One finding with the stable keys; ``accepted`` true when ``--accept`` named its code
    (its ``severity`` stays what the check found)."""
    return {"code": finding.code, "severity": finding.severity, "wave": finding.wave,
            "every_order": finding.every_order, "pod": finding.pod, "pdb": finding.pdb,
            "node": finding.node, "message": finding.message, "count": finding.count,
            "component": finding.component, "suggestion": finding.suggestion,
            "accepted": finding.code in accepted, "orders_found": finding.orders_found,
            "orders_evaluated": finding.orders_evaluated}


def group_verdict(report: GroupDrainReport, *, accepted: frozenset[str] = frozenset(),
                  strict: bool = False) -> tuple[bool, str]:
    """``(ok, verdict)`` of one group after ``--accept``/``--strict``: ``blocked`` or
    ``not-modelled`` while such a finding fails (:func:`fails`); ``accepted`` when every one
    of them was accepted; else ``warnings`` or ``clear``. Without ``accepted`` the verdict is
    :attr:`GroupDrainReport.verdict`."""
    failing = [f for f in report.findings if fails(f, accepted=accepted, strict=strict)]
    if any(f.severity == "blocking" for f in failing):
        verdict = "blocked"
    elif any(f.code == CONSTRAINT_NOT_MODELLED for f in failing):
        verdict = "not-modelled"
    elif any(f.code in accepted and (f.severity == "blocking" or f.code ==
                                     CONSTRAINT_NOT_MODELLED) for f in report.findings):
        verdict = "accepted"
    elif any(f.severity == "warning" and f.code not in accepted for f in report.findings):
        verdict = "warnings"
    else:
        verdict = "clear"
    return not failing, verdict


def wave_json(wave: WaveSummary) -> dict[str, Any]:
    """One wave of the worst order."""
    return {"number": wave.number, "nodes": list(wave.nodes), "surge_ready": wave.surge_ready,
            "pods_evicted": wave.pods_evicted, "pods_blocked": wave.pods_blocked,
            "pods_unplaced": wave.pods_unplaced,
            "unplaced": list(wave.unplaced), "pdb_waits": wave.pdb_waits,
            "in_place": list(wave.in_place), "deleted": list(wave.deleted)}


def group_drain_json(report: GroupDrainReport, *, accepted: frozenset[str] = frozenset(),
                     strict: bool = False) -> dict[str, Any]:
    """One group's report; ``ok`` and ``verdict`` after ``--accept``/``--strict``
    (:func:`group_verdict`)."""
    rules = report.rules
    ok, verdict = group_verdict(report, accepted=accepted, strict=strict)
    return {
        "address": report.address, "group_id": report.group_id, "ok": ok,
        "verdict": verdict,
        "policy": {"max_expansion": report.policy.max_expansion,
                   "max_unavailable": report.policy.max_unavailable},
        "rules": {"platform": rules.platform,
                  "drain_timeout_seconds": rules.drain_timeout_seconds,
                  "on_blocked_eviction": rules.on_blocked_eviction,
                  "nodes_at_once": rules.nodes_at_once},
        "orders": {"evaluated": report.orders, "exhaustive": report.exhaustive},
        "nodes": list(report.nodes),
        "waves": [wave_json(w) for w in report.waves],
        "findings": [finding_json(f, accepted) for f in report.findings],
    }


def drain_json(report: DrainReport, *, accepted: frozenset[str] = frozenset(),
               strict: bool = False) -> dict[str, Any]:
    """The whole report: ``{"ok", "groups": [...]}``, after ``--accept``/``--strict``."""
    groups = [group_drain_json(g, accepted=accepted, strict=strict) for g in report.groups]
    return {"ok": all(g["ok"] for g in groups), "groups": groups}


def rules_text(rules: DrainRules) -> str:
    """How the platform drains, in one line (the report says which reading it used)."""
    together = ("a wave's nodes drain together" if rules.nodes_at_once == "wave"
                else "a wave's nodes drain one at a time")
    if rules.on_blocked_eviction == "force-stop":
        react = f"a node is stopped after {rules.drain_timeout_seconds} s of draining"
    else:
        react = "a blocked eviction stops the upgrade (ERROR)"
    return f"{rules.platform}: {together}; {react}"


def _verdict(report: GroupDrainReport, accepted: frozenset[str] = frozenset(),
             strict: bool = False) -> str:
    blocking = len(report.blocking)
    waived = sum(1 for f in report.blocking if f.code in accepted)
    warnings = sum(1 for f in report.findings if f.severity == "warning")
    _, verdict = group_verdict(report, accepted=accepted, strict=strict)
    head = {"blocked": "BLOCKED", "not-modelled": "NOT FULLY MODELLED",
            "accepted": "ACCEPTED", "warnings": "OK with warnings", "clear": "OK"}[verdict]
    said = f"{blocking} blocking" + (f", {waived} of them accepted" if waived else "")
    return f"{head} ({said}, {counted(warnings, 'warning')})"


_NUMBERED = re.compile(r"^(.*?)(\d+)$")
SPANS_SHOWN = 3
"""Runs of node names a wave's row names before it says ``...`` (the count follows)."""
EXAMPLES_SHOWN = 3
"""Findings of one code and subject the text report writes one by one; more become one entry
that counts them and names this many (``--verbose`` and JSON list every one)."""


def node_spans(names: Sequence[str]) -> str:
    """Node names as runs and a count: ``workers-0010..0019 (10)``; names that end in a
    number are sorted by it and a run of consecutive numbers (of one prefix and width) is
    written ``first..last-digits``; other names one by one; at most :data:`SPANS_SHOWN`
    runs, then ``...``. Up to :data:`SPANS_SHOWN` names: each, as given; none: ``-``."""
    if len(names) <= SPANS_SHOWN:
        return ", ".join(names) or "-"
    runs: list[tuple[str, int, int, int]] = []   # prefix, width, first, last
    plain: list[str] = []
    for name in names:
        m = _NUMBERED.match(name)
        if m is None:
            plain.append(name)
        else:
            runs.append((m.group(1), len(m.group(2)), int(m.group(2)), int(m.group(2))))
    runs.sort()
    merged: list[tuple[str, int, int, int]] = []
    for run in runs:
        if merged and merged[-1][:2] == run[:2] and merged[-1][3] + 1 == run[2]:
            merged[-1] = (*merged[-1][:3], run[3])
        else:
            merged.append(run)
    spans = [f"{p}{a:0{w}d}" + (f"..{b:0{w}d}" if b != a else "") for p, w, a, b in merged]
    spans += sorted(plain)
    shown = ", ".join(spans[:SPANS_SHOWN]) + (", ..." if len(spans) > SPANS_SHOWN else "")
    return f"{shown} ({len(names)})"


def _wave_rows(waves: tuple[WaveSummary, ...], rules: DrainRules,
               width: int | None = None) -> list[str]:
    """The waves' table; the refused evictions' column is named for what the platform does
    with them: ``forced down`` (Yandex's forced stop takes them down with the node, they are
    not evicted) or ``left running`` (Selectel's upgrade stops with them on their node)."""
    refused = "forced down" if rules.on_blocked_eviction == "force-stop" else "left running"
    rows = [("wave", "nodes drained", "surge Ready", "evicted", refused, "no place",
             "PDB waits")]
    for w in waves:
        rows.append((str(w.number), node_spans(w.nodes), str(w.surge_ready),
                     str(w.pods_evicted), str(w.pods_blocked), str(w.pods_unplaced),
                     str(w.pdb_waits)))
    return fit_rows(rows, width)


def _finding_lines(f: Finding, accepted: frozenset[str] = frozenset()) -> list[str]:
    where = [f"wave {f.wave}" if f.wave is not None else "",
             f"pod {f.pod}" if f.pod else "", f"pdb {f.pdb}" if f.pdb else "",
             f"node {f.node}" if f.node else "",
             orders_text([f])]
    mark = " (accepted)" if f.code in accepted else ""
    lines = [f"  {f.severity.upper():8} {f.code}{mark}  " + "  ".join(w for w in where if w),
             f"           {f.message}"]
    if f.suggestion:
        lines.append("           suggested:")
        lines += [f"             {line}" for line in f.suggestion.rstrip().splitlines()]
    return lines


def orders_text(same: Sequence[Finding]) -> str:
    """In which orders the findings hold: ``every order`` (proven for all), ``in every order
    evaluated (a sample of N)`` (each of a sample's N orders showed them: not proven for the
    orders left out), else ``some orders``."""
    if all(f.every_order for f in same):
        return "every order"
    evaluated = {f.orders_evaluated for f in same}
    if len(evaluated) == 1 and None not in evaluated and all(
            f.orders_found == f.orders_evaluated for f in same):
        return f"in every order evaluated (a sample of {evaluated.pop()})"
    return "some orders"


def _aggregate(findings: Sequence[Finding]) -> list[list[Finding]]:
    """The findings per code, severity and subject (the workload or PDB), in the order of
    each's first finding."""
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.severity, f.code, f.subject), []).append(f)
    return list(groups.values())


def _aggregate_lines(same: Sequence[Finding], accepted: frozenset[str] = frozenset()
                     ) -> list[str]:
    """Up to :data:`EXAMPLES_SHOWN` findings of one code and subject each as
    :func:`_finding_lines` writes it; more as one entry: the count, the waves, the nodes as
    runs, the first message and the first :data:`EXAMPLES_SHOWN` pods and nodes."""
    first = same[0]
    if len(same) <= EXAMPLES_SHOWN:
        return [line for f in same for line in _finding_lines(f, accepted)]
    waves = sorted({f.wave for f in same if f.wave is not None})
    nodes = list(dict.fromkeys(f.node for f in same if f.node))
    where = [f"{len(same)} findings",
             (f"wave {waves[0]}" if len(waves) == 1 else f"waves {waves[0]}..{waves[-1]}")
             if waves else "",
             f"pdb {first.pdb}" if first.pdb and all(f.pdb == first.pdb for f in same) else "",
             f"nodes {node_spans(nodes)}" if len(nodes) > 1 else
             (f"node {nodes[0]}" if nodes else ""),
             orders_text(same)]
    mark = " (accepted)" if first.code in accepted else ""
    lines = [f"  {first.severity.upper():8} {first.code}{mark}  "
             + "  ".join(w for w in where if w),
             f"           first: {first.message}"]
    examples = ["; ".join(x for x in (f"wave {f.wave}" if f.wave is not None else "",
                                      f"pod {f.pod}" if f.pod else "",
                                      f"node {f.node}" if f.node else "") if x)
                for f in same[:EXAMPLES_SHOWN]]
    more = len(same) - EXAMPLES_SHOWN
    lines.append("           e.g. " + " | ".join(e for e in examples if e)
                 + (f" | and {more} more (--verbose or -o json lists each)" if more > 0
                    else ""))
    if first.suggestion:
        lines.append("           suggested:")
        lines += [f"             {line}" for line in first.suggestion.rstrip().splitlines()]
    return lines


def group_drain_text(report: GroupDrainReport, duration: Duration | None = None, *,
                     accepted: frozenset[str] = frozenset(), strict: bool = False,
                     plan: GroupPlan | None = None, width: int | None = None,
                     verbose: bool = False) -> str:
    """The table of one group: verdict (after ``--accept``/``--strict``), the deploy policy
    as ``plan`` names it (configured, its source, effective; when ``plan`` is given), waves of
    the worst order (nodes as runs and counts, :func:`node_spans`), findings (accepted ones
    marked; several of one code and subject as one entry with their count and the first
    examples, each one apart with ``verbose``); ``duration`` the plan's estimate
    (``--cycle-minutes``); the waves' table fits ``width`` columns (None: as wide as its
    cells)."""
    lines = [f"{report.address}  policy {policy_text(report.policy)}  "
             f"{_verdict(report, accepted, strict)}"]
    if plan is not None:
        lines.append(f"  deploy policy: {deploy_policy_text(plan)}")
    lines.append(f"  rules: {rules_text(report.rules)}")
    if duration is not None:
        lines.append(f"  duration: {_minutes(duration)}")
    if report.orders == 0:  # nothing drains: a group the plan deletes, or no labelled node
        lines.append("  no wave drains a node of the group")
    else:
        orders = (f"{counted(report.orders, 'order')} of its {counted(len(report.nodes), 'node')} "
                  "evaluated"
                  + (" (all of them)" if report.exhaustive else " (a sample: the worst found)"))
        lines.append(f"  {orders}; waves of the worst order:")
        lines += _wave_rows(report.waves, report.rules, width) if report.waves else [
            "  (no node of the group drains)"]
    if report.findings:
        lines.append("  findings:")
        if verbose:
            for finding in report.findings:
                lines += _finding_lines(finding, accepted)
        else:
            for same in _aggregate(report.findings):
                lines += _aggregate_lines(same, accepted)
    return "\n".join(lines)


def _minutes(d: Duration) -> str:
    span = (f"{d.min_minutes:g} min" if d.min_minutes == d.max_minutes
            else f"{d.min_minutes:g}..{d.max_minutes:g} min")
    return f"{span} at {d.minutes_per_cycle:g} min per cycle"


def drain_text(report: DrainReport, *, accepted: frozenset[str] = frozenset(),
               strict: bool = False, unmatched: bool = False,
               durations: Mapping[str, Duration] | None = None,
               plans: Mapping[str, GroupPlan] | None = None, width: int | None = None,
               verbose: bool = False) -> str:
    """Every group's table, then the overall verdict (accepted codes do not fail it;
    ``unmatched``: no selected group has a node in the cluster objects, a failure);
    ``durations`` and ``plans`` per group address; tables fit ``width`` columns."""
    parts = [group_drain_text(g, (durations or {}).get(g.address), accepted=accepted,
                              strict=strict, plan=(plans or {}).get(g.address), width=width,
                              verbose=verbose)
             for g in report.groups]
    every = [f for g in report.groups for f in g.findings]
    failing = [f for f in every if fails(f, accepted=accepted, strict=strict)]
    waived = [f for f in every if f.code in accepted and f.severity != "info"]
    if unmatched:
        verdict = ("FAILED: no selected group has a node in the cluster objects, nothing "
                   "was checked")
    elif any(f.severity == "blocking" for f in failing):
        verdict = "BLOCKED: a wave means downtime or data loss"
    elif any(f.code == CONSTRAINT_NOT_MODELLED for f in failing):
        verdict = ("NOT MODELLED: a pod has a constraint the check does not model, so where "
                   "it lands is not known (--accept constraint-not-modelled after checking it)")
    elif failing:
        verdict = "FAILED (--strict): warnings"
    else:
        verdict = "OK: nothing blocks"
        if waived:
            verdict += f" ({len(waived)} accepted finding(s): {', '.join(sorted(accepted))})"
    parts.append("drain check: " + verdict)
    return "\n\n".join(parts) + "\n"


def drain_suites(report: DrainReport, *, suite_prefix: str = "drain-check",
                 accepted: frozenset[str] = frozenset(), strict: bool = False) -> list[Any]:
    """JUnit test suites (``junit_xml.TestSuite``): per group the verdict and one case per
    finding; failing findings (:func:`fails`) are failures, accepted ones skipped."""
    from junit_xml import TestCase, TestSuite  # only this output needs it

    suites = []
    for group in report.groups:
        cls = f"{suite_prefix}.{group.address}"
        verdict = TestCase("verdict", classname=cls, stdout=_verdict(group, accepted, strict))
        cases = [verdict]
        failed = False
        for f in group.findings:
            name = f"{f.code} {f.subject}".strip() + (f" (wave {f.wave})" if f.wave else "")
            case = TestCase(name, classname=cls, stdout=f.message)
            if fails(f, accepted=accepted, strict=strict):
                case.add_failure_info(message=f.message, failure_type=f.code)
                failed = True
            elif f.code in accepted and f.severity != "info":
                case.add_skipped_info(message=f"accepted (--accept {f.code}): {f.message}")
            cases.append(case)
        if failed:
            verdict.add_failure_info(message=_verdict(group, accepted, strict),
                                     failure_type="blocked")
        suites.append(TestSuite(f"{suite_prefix} {group.address}", cases))
    return suites
