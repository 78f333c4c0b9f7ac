"""The displays of ``ngupgrade upgrade``: NDJSON for CI, plain lines for pipes and logs, a live
progress bar on a terminal. Each dispatches on the event's type
(:mod:`ngupgrade.upgrade.events`); the NDJSON keys are documented in docs/events.md."""

from __future__ import annotations

import json
import sys
from typing import Any

from ngupgrade.cli._common import echo_report, terminal_width
from ngupgrade.core.errors import NgUpgradeError
from ngupgrade.core.redact import redact_urls, redact_values
from ngupgrade.core.units import counted, human_seconds, span_text
from ngupgrade.upgrade import events as ev

STEP_TEXT = {
    "policy_update": "set the deploy policy",
    "version_update": "update the version",
    "verify": "verify",
    "restore_policy": "restore the deploy policy",
}


class Display:
    """Shows events; subclasses for NDJSON, plain lines and a terminal."""

    def event(self, event: ev.Event) -> None:
        """Show one event."""

    def error(self, err: NgUpgradeError) -> None:
        """The run ended with an error (the CLI root prints the message and the hint)."""

    def line(self, text: str) -> None:
        """A closing line for people (wrapped to the terminal's width, as the report)."""
        echo_report(text)

    def close(self) -> None:
        """Stop any live display."""


def ndjson(event: ev.Event) -> dict[str, Any]:
    """One event as its NDJSON object: ``event``, ``group`` (when set), ``at``, its data, and
    the rendered plan or preflight."""
    payload: dict[str, Any] = {"event": event.kind}
    if event.group:
        payload["group"] = event.group
    payload["at"] = round(event.at, 1)
    payload.update(event.data)
    if isinstance(event, ev.PlanReady):
        from ngupgrade.cli.render.upgrade_plan import plan_json

        payload["plan"] = plan_json(list(event.plans))
    elif isinstance(event, ev.PreflightDone):
        from ngupgrade.cli.render.quota import preflight_json

        payload["preflight"] = preflight_json(event.report)
    elif isinstance(event, ev.DrainGateDone):
        from ngupgrade.cli.drain_check import drain_document

        payload["drain"] = drain_document(event.result)
    return payload


class NdjsonDisplay(Display):
    """One JSON object per line on stdout: ``{"event", "group", "at", ...}`` (stable keys)."""

    def __init__(self, header: dict[str, Any] | None = None) -> None:
        self._header = header
        """The run's ``ngupgrade`` key (version, command, inputs), on the first line only."""

    def _write(self, payload: dict[str, Any]) -> None:
        if self._header is not None:
            payload = {**payload, "ngupgrade": self._header}
            self._header = None
        sys.stdout.write(json.dumps(redact_values(payload), ensure_ascii=False, default=str)
                         + "\n")
        sys.stdout.flush()

    def event(self, event: ev.Event) -> None:
        self._write(ndjson(event))

    def line(self, text: str) -> None:
        echo_report(text, err=True)


def short_name(address: str) -> str:
    """``workers`` of ``yandex_kubernetes_node_group.workers``; ``batch`` of
    ``module.pools["prod"].yandex_kubernetes_node_group.this["batch"]``."""
    last = address.rsplit(".", 1)[-1]
    if last.endswith('"]') and '["' in last:
        return last[last.index('["') + 2:-2]
    return last


def _policy(raw: dict[str, int] | None) -> str:
    return "unset" if raw is None else f"{raw['max_expansion']}/{raw['max_unavailable']}"


class PlainDisplay(Display):
    """Plain lines (pipes, CI logs): progress only when something changed."""

    def __init__(self) -> None:
        self._last_progress: dict[str, tuple[Any, ...]] = {}
        self.parallel = False
        """Set by the first ``stage`` event (``--schedule advised``): groups run at once, so
        each line about one group starts with its short name."""
        self._prefix = ""

    def out(self, text: str) -> None:
        """One line or block of the report, long lines wrapped when a width is known (COLUMNS
        or a terminal: :func:`ngupgrade.cli._common.echo_report`; a pipe keeps whole lines)."""
        echo_report(redact_urls(self.prefixed(text)))

    def prefixed(self, text: str) -> str:
        """``text`` with the group's short name in front when groups run in parallel."""
        if not self._prefix:
            return text
        lead = text[:len(text) - len(text.lstrip("\n"))]
        return lead + self._prefix + text[len(lead):]

    def event(self, event: ev.Event) -> None:
        if isinstance(event, ev.StageEvent):
            self.parallel = True
        self._prefix = (f"[{short_name(event.group)}] "
                        if self.parallel and event.group else "")
        self.show(event)

    def show(self, event: ev.Event) -> None:
        """One event as lines (``event`` has set the prefix)."""
        g = event.group
        match event:
            case ev.PlanReady():
                from ngupgrade.cli.render.upgrade_plan import plan_text

                self.out("== plan")
                self.out(plan_text(list(event.plans)))
            case ev.PreflightDone():
                from ngupgrade.cli.render.quota import preflight_table
                from ngupgrade.core.quota.limits import is_run_warning

                self.out("\n== quota preflight (each group with its stage's policy; the "
                         "schedule counts a stage's groups together)" if self.parallel else
                         "\n== quota preflight (groups upgraded one after another)")
                # the run's own warnings follow as "!" lines (Warned events)
                self.out(preflight_table(event.report, shown_apart=is_run_warning,
                                         width=terminal_width()).rstrip("\n"))
            case ev.DrainGateDone():
                from ngupgrade.cli.render.drain import drain_text

                r = event.result
                self.out("\n== drain check (the pods each wave evicts)")
                for note in r.notes:
                    self.out(f"note: {note}")
                self.out(drain_text(r.report, accepted=r.accepted, strict=r.strict,
                                    width=terminal_width()).rstrip("\n"))
            case ev.DryRun() | ev.CallsToMake():
                title = ("API calls it would make" if isinstance(event, ev.DryRun)
                         else "API calls to make")
                self.out(f"\n== {title}")
                for addr, calls in event.calls.items():
                    self.out(f"{addr}:")
                    if not calls:
                        self.out("  none (nothing to do)")
                    for c in calls:
                        self.out(f"  {c['method']}: {c['detail']}")
            case ev.Warned():
                self.out(f"! {event.message}")
            case ev.Note():
                self.out(f"note: {(g + ': ') if g else ''}{event.message}")
            case ev.GroupStarted():
                resumed = " (resumed)" if event.resumed else ""
                self.out(f"\n== {g}{resumed}: {event.version} -> {event.target}, "
                         f"{counted(event.nodes, 'node')}")
                if event.journal:
                    self.out(f"   journal {event.journal}")
            case ev.StepStarted():
                self.out(f"-> {STEP_TEXT.get(event.step, event.step)}"
                         f"{self._step_detail(event)}")
            case ev.StepSkipped():
                self.out(f"-> {STEP_TEXT.get(event.step, event.step)}: skipped "
                         f"({event.reason})")
            case ev.OperationSeen():
                how = "attached to" if event.attached else "started"
                self.out(f"   operation {event.operation_id} {how}")
            case ev.Progress():
                self._progress(event)
            case ev.NodeDrainEvent():
                self._drain(event)
            case ev.NodeRemoved():
                # a node this upgrade created, gone with no drain before it: an autoscaler
                # (Azure/AKS#5340); old nodes gone between two polls are the upgrade's own work
                self.out(f"!  {event.node} ({event.instance_id}) removed with no drain seen: "
                         "a node created by this upgrade (the cluster autoscaler, or the "
                         "platform replacing it); progress counts old nodes only")
            case ev.Diagnosed():
                self.out(f"diagnosis: {event.cause}: {event.message}")
            case ev.DrainSummary():
                self._drain_summary(event)
            case ev.StepFinished():
                virtual = " of virtual time" if event.virtual_clock else ""
                self.out(f"   done in {human_seconds(event.seconds)}{virtual}")
            case ev.Verdict():
                self._verdict(event)
            case ev.Reminder():
                self.out(f"terraform: {event.message}")
            case ev.Summary():
                self._summary(event)
            case ev.StageEvent():
                self._stage(event)

    def _stage(self, s: ev.StageEvent) -> None:
        def who(g: dict[str, Any]) -> str:
            minutes = "" if g["minutes"] is None else f", {g['minutes']:g} min"
            policy = ("its journal's policy" if g["policy"] is None
                      else _policy(g["policy"]))
            after = "" if not g.get("after") else f", after {short_name(g['after'])}"
            return f"{short_name(g['address'])} ({policy}{minutes}{after})"

        head = f"stage {s.stage}/{s.stages}"
        groups = ", ".join(who(g) for g in s.groups)
        if s.phase == "planned":
            if s.stage == 1:
                self.out("\n== schedule (stages one after another, the groups of a stage "
                         "together)")
            when = ("" if s.start_minutes is None else
                    f" at +{s.start_minutes:g} min, {s.minutes:g} min expected")
            self.out(f"  {head}{when}: {groups}")
            if s.why_new:
                self.out(f"    new stage: {s.why_new}")
        elif s.phase == "started":
            self.out(f"\n== {head} started: {groups}")
        elif s.phase == "finished":
            state = "OK" if s.ok else "FAILED"
            self.out(f"== {head} {state} in {human_seconds(s.seconds or 0)}")
        else:
            self.out(f"== {head} not run ({s.reason}): {groups}")

    @staticmethod
    def _step_detail(event: ev.StepStarted) -> str:
        if event.step in ("policy_update", "restore_policy"):
            return f": {_policy(event.before)} -> {_policy(event.policy)}"
        if event.step == "version_update":
            exp = event.expected_minutes or {}
            return (f": {event.before} -> {event.version or 'latest revision'} "
                    f"(expected {span_text(exp.get('min', 0), exp.get('max', 0), 'min')}, "
                    f"{counted(event.cycles or 0, 'cycle')})")
        return ""

    @staticmethod
    def progress_text(p: ev.Progress) -> str:
        """``1/3 nodes on the new version, 4 nodes, RECONCILING, cycle 1/3, 6m of 18m``."""
        new = "?" if p.new_nodes is None else p.new_nodes
        exp = p.expected
        done = "?" if p.done is None else p.done
        cordoned = f", {p.cordoned} cordoned" if p.cordoned else ""
        return (f"{done}/{p.total} done, {new}/{p.total} nodes on the new version, "
                f"{counted(p.nodes, 'node')}{cordoned}, "
                f"{p.status}, cycle {p.cycle}/{p.cycles}, elapsed "
                f"{human_seconds(p.elapsed)} of {human_seconds(exp['min'])}.."
                f"{human_seconds(exp['max'])} expected"
                + (" (virtual time)" if p.virtual_clock else ""))

    def _progress(self, p: ev.Progress) -> None:
        key = (p.new_nodes, p.nodes, p.status, p.done, p.cordoned)
        if self._last_progress.get(p.group) == key:
            return
        self._last_progress[p.group] = key
        self.out(f"   {self.progress_text(p)}")

    def _drain(self, d: ev.NodeDrainEvent) -> None:
        if d.phase == "started":
            stop = f"; forced stop at {d.forced_stop_at}" if d.forced_stop_at else ""
            self.out(f"   drain {d.node}: cordoned{stop}")
        elif d.phase == "pods_left":
            pods = ", ".join(d.pods or ()) or "none"
            held = f" (held by PDB {', '.join(d.blocked_by)})" if d.blocked_by else ""
            self.out(f"   drain {d.node}: {len(d.pods or ())} pods left after "
                     f"{human_seconds(d.seconds)}: {pods}{held}")
        else:
            how = "FORCED (past the drain timeout)" if d.phase == "forced" else "done"
            self.out(f"   drain {d.node}: {how} after {human_seconds(d.seconds)}")

    def _drain_summary(self, s: ev.DrainSummary) -> None:
        forced = [n["node"] for n in s.nodes if n["forced"]]
        times = ", ".join(f"{n['node']} {human_seconds(n['seconds'])}"
                          + (" forced" if n["forced"] else "") for n in s.nodes)
        self.out(f"   drains: {times}" + (f"; forced: {', '.join(forced)}" if forced else ""))
        if s.workloads:
            self.out("   disruptions: " + ", ".join(f"{w['workload']} {w['disruptions']}"
                                                   for w in s.workloads))

    def _verdict(self, v: ev.Verdict) -> None:
        if v.note:
            self.out(f"verdict: OK, {v.note}")
            return
        if v.error:
            e = v.error
            unchanged = " (unchanged)" if v.version_unchanged else ""
            self.out(f"verdict: FAILED: operation {v.operation_id} ended with "
                     f"{e['code_name']} ({e['code']}): {e['message']}; version "
                     f"{v.version}{unchanged}, {v.status}, {counted(v.nodes, 'node')}")
            return
        if v.ok:
            judged = (f", operation {v.operation_id} done without error"
                      if v.operation_id else "")
            self.out(f"verdict: OK, {v.group} on {v.version}, {v.status}, "
                     f"{v.nodes}/{v.start_nodes} nodes{judged}")
        else:
            self.out(f"verdict: FAILED: {'; '.join(v.problems or ())}")

    def _summary(self, s: ev.Summary) -> None:
        self.out(f"\n== summary ({s.duration}{virtual_time(s)})")
        for g in s.groups:
            steps = ", ".join(f"{STEP_TEXT.get(k, k)} {human_seconds(v)}"
                              for k, v in g["steps"].items()) or "no step needed"
            state = "OK" if g["ok"] else "FAILED"
            self.out(f"  {state}  {g['address']}: {g['version_before']} -> "
                     f"{g['version_after']}, {counted(g['nodes'], 'node')}; {steps}")
        for row in s.schedule or ():
            if row["outcome"] != "done":
                self.out(f"  {row['outcome'].upper().replace('_', ' ')}  stage {row['stage']} "
                         f"{row['address']}: {row['reason']}")


def virtual_time(s: ev.Summary) -> str:
    """What the summary's duration is when the clock was virtual, as ``make demo`` words it:
    `` of virtual time at x60`` (``upgrade --time-scale=60``), `` of virtual time`` (a clock
    not tied to real time, the fake cloud's in tests); "" on real time."""
    if not s.virtual_clock:
        return ""
    return " of virtual time" + (f" at x{s.time_scale:g}" if s.time_scale != 1 else "")


class RichDisplay(PlainDisplay):
    """On a terminal: the same lines, with a live progress bar during the version update."""

    def __init__(self) -> None:
        super().__init__()
        from rich.console import Console

        self.console = Console(highlight=False)
        self._progress_bar: Any = None
        self._tasks: dict[str, Any] = {}
        """One progress line per group whose version update runs (several in parallel)."""

    def out(self, text: str) -> None:
        self.console.print(redact_urls(self.prefixed(text)), markup=False)

    def show(self, event: ev.Event) -> None:
        if isinstance(event, ev.Progress):
            self._bar(event)
            return
        if isinstance(event, ev.StepFinished | ev.Verdict | ev.StepSkipped):
            self._done(event.group)
        super().show(event)

    def _bar(self, p: ev.Progress) -> None:
        from rich.progress import BarColumn, Progress, TextColumn

        if self._progress_bar is None:
            self._progress_bar = Progress(
                TextColumn("   {task.description}"), BarColumn(bar_width=20),
                TextColumn("{task.fields[info]}"), console=self.console, transient=False)
            self._progress_bar.start()
        if p.group not in self._tasks:
            self._tasks[p.group] = self._progress_bar.add_task(
                short_name(p.group), total=p.total or 1, info="")
        self._progress_bar.update(self._tasks[p.group], completed=p.done or 0,
                                  info=self.short_progress(p))

    def _done(self, group: str) -> None:
        """A group's wait ended: its line goes; the display stops with the last one."""
        task = self._tasks.pop(group, None)
        if task is not None and self._progress_bar is not None and self.parallel:
            self._progress_bar.remove_task(task)
        if not self._tasks:
            self.close()

    @staticmethod
    def short_progress(p: ev.Progress) -> str:
        """``2/3 done, 5 nodes, RECONCILING, cycle 1/3, 1m of 6m..18m`` (fits 80 columns)."""
        new = "?" if p.done is None else p.done
        exp = p.expected
        return (f"{new}/{p.total} done, {counted(p.nodes, 'node')}, {p.status}, cycle "
                f"{p.cycle}/{p.cycles}, {human_seconds(p.elapsed)} of "
                f"{human_seconds(exp['min'])}..{human_seconds(exp['max'])}"
                + (" virtual" if p.virtual_clock else ""))

    def close(self) -> None:
        if self._progress_bar is not None:
            self._progress_bar.stop()
            self._progress_bar = None
            self._tasks.clear()
