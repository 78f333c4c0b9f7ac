"""``ngupgrade upgrade``: the runbook upgrade with a preflight gate, progress, stall detection
and resume (issue 6). The sequence lives in :mod:`ngupgrade.upgrade.runbook`; this module parses the
flags and shows the events: a progress display on a terminal, plain lines in a pipe or CI log,
NDJSON with ``--output json``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from ngupgrade.adapters.cloud.waiter import PollPolicy
from ngupgrade.app.settings import Settings
from ngupgrade.cli._common import FiniteFloatRange, common_options, settings_of
from ngupgrade.cli._duration import Duration
from ngupgrade.core.errors import NgUpgradeError
from ngupgrade.core.units import human_seconds
from ngupgrade.upgrade.events import Event


@dataclass
class Runtime:
    """Time and cloud access of one run: the seam tests and ``make demo`` replace."""

    clock: Callable[[], float]
    sleep: Callable[[float], None]
    api: Any = None
    poll: PollPolicy | None = None


def runtime(settings: Settings, time_scale: float) -> Runtime:
    """Real time (``time_scale`` virtual seconds per real second, for fake-cloud drills)."""
    if time_scale == 1.0:
        return Runtime(time.monotonic, time.sleep)
    return Runtime(lambda: time.monotonic() * time_scale,
                   lambda seconds: time.sleep(seconds / time_scale))


@click.command()
@click.option("--group", "-g", "groups", multiple=True, metavar="ADDRESS|NAME|ID",
              help="Node group to upgrade, by Terraform address, name or id; repeatable: the "
                   "groups are upgraded one after another in this order. Required.")
@click.option("--version", "version", metavar="V",
              help="Kubernetes version to upgrade to (MAJOR.MINOR, one minor step, never "
                   "ahead of the master).")
@click.option("--latest-revision", is_flag=True,
              help="Move to the latest revision of the current version instead.")
@click.option("--max-expansion", type=int, metavar="E",
              help="Deploy policy for the upgrade: set before the version update and verified.")
@click.option("--max-unavailable", type=int, metavar="U",
              help="Deploy policy for the upgrade (with or without --max-expansion).")
@click.option("--restore-policy", is_flag=True,
              help="After the upgrade, put back the deploy policy Terraform declares, and "
                   "verify it.")
@click.option("--apply", is_flag=True,
              help="Make the changes. Without it: the plan, the preflight and the API calls it "
                   "would make (a dry run).")
@click.option("--timeout", type=Duration(), metavar="DUR",
              help="How long to wait for the version update (e.g. 90m, 2h). Default: twice the "
                   "plan's longest estimate, at least 1h. At the deadline: exit 6, resumable.")
@click.option("--stall-after", type=Duration(), metavar="DUR",
              default="30m", show_default=True,
              help="No progress (nodes on the new version, status, node count) for this long: "
                   "exit 6 with a diagnosis. 0 turns the watchdog off.")
@click.option("--journal", metavar="FILE",
              help="Journal of the steps and operation ids (JSON, mode 0600). Default: "
                   ".ngupgrade/upgrade-<group id>-<version>.json per group.")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted upgrade from its journal (or, without one, from "
                   "the cloud's record of operations): attach to the running operation, never "
                   "send an Update twice.")
@click.option("--quotas", "quotas_file", metavar="FILE",
              help="Quota limits for the preflight from a file, as `ngupgrade preflight`.")
@click.option("--cloud-id", metavar="ID", help="Cloud of the groups, for the preflight.")
@click.option("--strict", is_flag=True, help="An unknown quota fails the preflight gate.")
@click.option("--cycle-minutes", type=FiniteFloatRange(min=0, min_open=True), default=6.0,
              show_default=True, metavar="M", help="Minutes one upgrade cycle takes (estimate).")
@click.option("--time-scale", type=FiniteFloatRange(min=0, min_open=True), default=1.0,
              hidden=True, help="Virtual seconds per real second (drills on the fake cloud).")
@common_options
def upgrade(groups: tuple[str, ...], version: str | None, latest_revision: bool,
            max_expansion: int | None, max_unavailable: int | None, restore_policy: bool,
            apply: bool, timeout: float | None, stall_after: float, journal: str | None,
            resume: bool, quotas_file: str | None, cloud_id: str | None, strict: bool,
            cycle_minutes: float, time_scale: float) -> None:
    """Upgrade node groups the runbook way: gate, policy, version, progress, verdict.

    \b
    Per group, in the order given: read the live group; refuse one that is not RUNNING or
    has an operation in progress; check the version against the master (never ahead, one
    minor step); plan; quota preflight as a gate (before any change); with
    --max-expansion/--max-unavailable set the deploy policy alone and verify it took; update
    the version alone and wait with progress; verdict (operation without error, RUNNING,
    on the target, back to the starting size); with --restore-policy put back Terraform's
    policy. A stall or the --timeout exits 6 and never cancels the cloud operation;
    --resume continues from the journal.

    \b
    Examples:
      ngupgrade upgrade -g workers --version 1.30                       # dry run
      ngupgrade upgrade -g workers --version 1.30 --max-expansion 2 \\
          --max-unavailable 1 --restore-policy --apply
      ngupgrade upgrade -g workers --version 1.30 --apply --resume      # after exit 6 or 130
      ngupgrade upgrade -g workers --version 1.30 --apply -o json       # NDJSON for CI

    \b
    Exit codes: 0 done (or dry run); 1 a check or the preflight gate failed, or a change did
    not take; 2 usage; 3 bad state/quota file/journal; 4 cloud API error; 5 the operation
    failed; 6 timed out or stalled (still running: --resume); 130 interrupted (--resume).
    """
    from ngupgrade.app.upgrade import UpgradeRequest, run_upgrade
    from ngupgrade.upgrade.values import UpgradeOptions

    settings = settings_of(click.get_current_context())
    options = UpgradeOptions(
        version=version, latest_revision=latest_revision, max_expansion=max_expansion,
        max_unavailable=max_unavailable, restore_policy=restore_policy, timeout=timeout,
        stall_after=stall_after, resume=resume, minutes_per_cycle=cycle_minutes)
    request = UpgradeRequest(selectors=groups, options=options, apply=apply, journal=journal,
                             quotas_file=quotas_file, cloud_id=cloud_id, strict=strict)
    rt = runtime(settings, time_scale)
    show: Display = NdjsonDisplay() if settings.output == "json" else \
        (RichDisplay() if sys.stdout.isatty() else PlainDisplay())
    try:
        run_upgrade(settings, request, api=rt.api, clock=rt.clock, sleep=rt.sleep,
                    emit=show.event, poll=rt.poll)
    except NgUpgradeError as err:
        show.error(err)
        raise
    finally:
        show.close()
    if not apply:
        show.line("dry run: nothing was changed; add --apply to run it")


# -- displays -----------------------------------------------------------------------------

class Display:
    """Shows events; subclasses for NDJSON, plain lines and a terminal."""

    def event(self, ev: Event) -> None:
        """Show one event."""

    def error(self, err: NgUpgradeError) -> None:
        """The run ended with an error (the CLI root prints the message and the hint)."""

    def line(self, text: str) -> None:
        """A closing line for people."""
        click.echo(text)

    def close(self) -> None:
        """Stop any live display."""


def _public(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not k.startswith("_")}


class NdjsonDisplay(Display):
    """One JSON object per line on stdout: ``{"event", "group", "at", ...}`` (stable keys)."""

    def _write(self, payload: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")
        sys.stdout.flush()

    def event(self, ev: Event) -> None:
        payload: dict[str, Any] = {"event": ev.kind}
        if ev.group:
            payload["group"] = ev.group
        payload["at"] = round(ev.at, 1)
        payload.update(_public(ev.data))
        if ev.kind == "plan":
            from ngupgrade.cli.render.plan import plan_json

            payload["plan"] = plan_json(ev.data["_plans"])
        elif ev.kind == "preflight":
            from ngupgrade.cli.render.quota import preflight_json

            payload["preflight"] = preflight_json(ev.data["_preflight"])
        self._write(payload)

    def line(self, text: str) -> None:
        click.echo(text, err=True)


STEP_TEXT = {
    "policy_update": "set the deploy policy",
    "version_update": "update the version",
    "verify": "verify",
    "restore_policy": "restore the deploy policy",
}


def _policy(raw: dict[str, int] | None) -> str:
    return "unset" if raw is None else f"{raw['max_expansion']}/{raw['max_unavailable']}"


class PlainDisplay(Display):
    """Plain lines (pipes, CI logs): progress only when something changed."""

    def __init__(self) -> None:
        self._last_progress: dict[str, tuple[Any, ...]] = {}

    def out(self, text: str) -> None:
        click.echo(text)

    def event(self, ev: Event) -> None:
        d = ev.data
        g = ev.group
        kind = ev.kind
        if kind == "plan":
            from ngupgrade.cli.render.plan import plan_text

            self.out("== plan")
            self.out(plan_text(d["_plans"]))
        elif kind == "preflight":
            from ngupgrade.cli.render.quota import preflight_table

            self.out("\n== quota preflight (groups upgraded one after another)")
            self.out(preflight_table(d["_preflight"]).rstrip("\n"))
        elif kind in ("dry_run", "calls"):
            title = "API calls it would make" if kind == "dry_run" else "API calls to make"
            self.out(f"\n== {title}")
            for addr, calls in d["calls"].items():
                self.out(f"{addr}:")
                if not calls:
                    self.out("  none (nothing to do)")
                for c in calls:
                    self.out(f"  {c['method']}: {c['detail']}")
        elif kind == "warning":
            self.out(f"! {d['message']}")
        elif kind == "note":
            self.out(f"note: {(g + ': ') if g else ''}{d['message']}")
        elif kind == "group_started":
            resumed = " (resumed)" if d.get("resumed") else ""
            self.out(f"\n== {g}{resumed}: {d['version']} -> {d['target']}, {d['nodes']} nodes")
            if d.get("journal"):
                self.out(f"   journal {d['journal']}")
        elif kind == "step_started":
            self.out(f"-> {STEP_TEXT.get(d['step'], d['step'])}{self._step_detail(d)}")
        elif kind == "step_skipped":
            self.out(f"-> {STEP_TEXT.get(d['step'], d['step'])}: skipped ({d['reason']})")
        elif kind == "operation":
            how = "attached to" if d.get("attached") else "started"
            self.out(f"   operation {d['operation_id']} {how}")
        elif kind == "progress":
            self._progress(ev)
        elif kind == "step_finished":
            self.out(f"   done in {human_seconds(d['seconds'])}")
        elif kind == "verdict":
            self._verdict(ev)
        elif kind == "reminder":
            self.out(f"terraform: {d['message']}")
        elif kind == "summary":
            self._summary(d)

    @staticmethod
    def _step_detail(d: dict[str, Any]) -> str:
        if d["step"] in ("policy_update", "restore_policy"):
            return f": {_policy(d.get('before'))} -> {_policy(d.get('policy'))}"
        if d["step"] == "version_update":
            exp = d.get("expected_minutes") or {}
            return (f": {d.get('before')} -> {d.get('version') or 'latest revision'} "
                    f"(expected {exp.get('min', 0):g}..{exp.get('max', 0):g} min, "
                    f"{d.get('cycles')} cycles)")
        return ""

    def progress_text(self, d: dict[str, Any]) -> str:
        """``1/3 nodes on the new version, 4 nodes, RECONCILING, cycle 1/3, 6m of 18m``."""
        new = "?" if d["new_nodes"] is None else d["new_nodes"]
        exp = d["expected"]
        return (f"{new}/{d['total']} nodes on the new version, {d['nodes']} nodes, "
                f"{d['status']}, cycle {d['cycle']}/{d['cycles']}, elapsed "
                f"{human_seconds(d['elapsed'])} of {human_seconds(exp['min'])}.."
                f"{human_seconds(exp['max'])} expected")

    def _progress(self, ev: Event) -> None:
        d = ev.data
        key = (d["new_nodes"], d["nodes"], d["status"])
        if self._last_progress.get(ev.group) == key:
            return
        self._last_progress[ev.group] = key
        self.out(f"   {self.progress_text(d)}")

    def _verdict(self, ev: Event) -> None:
        d = ev.data
        if d.get("note"):
            self.out(f"verdict: OK, {d['note']}")
            return
        if d.get("error"):
            e = d["error"]
            unchanged = " (unchanged)" if d.get("version_unchanged") else ""
            self.out(f"verdict: FAILED: operation {d['operation_id']} ended with "
                     f"{e['code_name']} ({e['code']}): {e['message']}; version "
                     f"{d['version']}{unchanged}, {d['status']}, {d['nodes']} nodes")
            return
        if d["ok"]:
            judged = (f", operation {d['operation_id']} done without error"
                      if d.get("operation_id") else "")
            self.out(f"verdict: OK, {ev.group} on {d['version']}, {d['status']}, "
                     f"{d['nodes']}/{d['start_nodes']} nodes{judged}")
        else:
            self.out(f"verdict: FAILED: {'; '.join(d['problems'])}")

    def _summary(self, d: dict[str, Any]) -> None:
        self.out(f"\n== summary ({d['duration']})")
        for g in d["groups"]:
            steps = ", ".join(f"{STEP_TEXT.get(k, k)} {human_seconds(v)}"
                              for k, v in g["steps"].items()) or "no step needed"
            state = "OK" if g["ok"] else "FAILED"
            self.out(f"  {state}  {g['address']}: {g['version_before']} -> "
                     f"{g['version_after']}, {g['nodes']} nodes; {steps}")


class RichDisplay(PlainDisplay):
    """On a terminal: the same lines, with a live progress bar during the version update."""

    def __init__(self) -> None:
        super().__init__()
        from rich.console import Console

        self.console = Console(highlight=False)
        self._progress_bar: Any = None
        self._task: Any = None

    def out(self, text: str) -> None:
        self.console.print(text, markup=False)

    def event(self, ev: Event) -> None:
        if ev.kind == "progress":
            self._bar(ev)
            return
        if ev.kind in ("step_finished", "verdict", "step_skipped"):
            self.close()
        super().event(ev)

    def _bar(self, ev: Event) -> None:
        from rich.progress import BarColumn, Progress, TextColumn

        d = ev.data
        if self._progress_bar is None:
            self._progress_bar = Progress(
                TextColumn("   {task.description}"), BarColumn(bar_width=20),
                TextColumn("{task.fields[info]}"), console=self.console, transient=False)
            self._progress_bar.start()
            self._task = self._progress_bar.add_task(ev.group.rsplit(".", 1)[-1],
                                                     total=d["total"] or 1, info="")
        new = d["new_nodes"] or 0
        self._progress_bar.update(self._task, completed=new, info=self.short_progress(d))

    @staticmethod
    def short_progress(d: dict[str, Any]) -> str:
        """``2/3 new, 5 nodes, RECONCILING, cycle 1/3, 1m of 6m..18m`` (fits 80 columns)."""
        new = "?" if d["new_nodes"] is None else d["new_nodes"]
        exp = d["expected"]
        return (f"{new}/{d['total']} new, {d['nodes']} nodes, {d['status']}, cycle "
                f"{d['cycle']}/{d['cycles']}, {human_seconds(d['elapsed'])} of "
                f"{human_seconds(exp['min'])}..{human_seconds(exp['max'])}")

    def close(self) -> None:
        if self._progress_bar is not None:
            self._progress_bar.stop()
            self._progress_bar = None
