"""``ngupgrade upgrade``: the runbook upgrade with a preflight gate, progress, stall detection
and resume. The sequence lives in :mod:`ngupgrade.upgrade.runbook`; this module parses the
flags and shows the events: a progress display on a terminal, plain lines in a pipe or CI log,
NDJSON with ``--output json``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from ngupgrade.cli._cluster import accept_option, accepted_codes, cluster_options, cluster_source
from ngupgrade.cli._common import (
    CYCLE_MINUTES,
    POLICY_VALUE,
    TIME_SCALE,
    common_options,
    invocation_of,
    parse_min_available,
    settings_of,
    stdin_once,
    timing_of,
)
from ngupgrade.cli._duration import Duration
from ngupgrade.cli._flags import note_unused
from ngupgrade.cli._signals import signals_as_interrupt, stoppable
from ngupgrade.core.advise.schedule import DEFAULT_MAX_PARALLEL
from ngupgrade.core.errors import NgUpgradeError, UsageError

if TYPE_CHECKING:
    from ngupgrade.cli._upgrade_display import Display
    from ngupgrade.core.advise.judge import MinAvailable


@click.command()
@click.option("--group", "-g", "groups", multiple=True, metavar="ADDRESS|NAME|ID",
              help="Node group to upgrade, by Terraform address, name or id; repeatable: the "
                   "groups are upgraded one after another in this order. Required.")
@click.option("--version", "version", metavar="V",
              help="Kubernetes version to upgrade to (MAJOR.MINOR, one minor step, never "
                   "ahead of the master).")
@click.option("--latest-revision", is_flag=True,
              help="Move to the latest revision of the current version instead.")
@click.option("--max-expansion", type=POLICY_VALUE, metavar="E",
              help="Deploy policy for the upgrade: set before the version update and verified.")
@click.option("--max-unavailable", type=POLICY_VALUE, metavar="U",
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
                   "upgrade-<group id>-<version>.json per group in $NGUPGRADE_JOURNAL_DIR, "
                   "else $XDG_STATE_HOME/ngupgrade (~/.local/state/ngupgrade), whatever the "
                   "working directory; one left in ./.ngupgrade/ is moved there.")
@click.option("--resume", is_flag=True,
              help="Continue an interrupted upgrade from its journal (or, without one, from "
                   "the cloud's record of operations): attach to the running operation, never "
                   "send an Update twice.")
@click.option("--quotas", "quotas_file", metavar="FILE",
              help="Quota limits for the preflight from a file, as `ngupgrade preflight`.")
@click.option("--cloud-id", metavar="ID", help="Cloud of the groups, for the preflight.")
@click.option("--strict", is_flag=True, help="An unknown quota fails the preflight gate.")
@click.option("--cycle-minutes", type=CYCLE_MINUTES, default=6.0,
              show_default=True, metavar="M", help="Minutes one upgrade cycle takes (estimate; "
              "with --schedule advised and no value given, the groups' own history when live).")
@click.option("--schedule", "schedule", type=click.Choice(["sequential", "advised"]),
              default="sequential", show_default=True,
              help="sequential: the groups one after another, in the order given. advised: "
                   "the `ngupgrade advise` schedule: stages one after another, the groups of a "
                   "stage in parallel (those of one cluster one after another; their surges "
                   "fit one shared headroom), each with the policy the schedule gives it.")
@click.option("--min-available", "min_available", metavar="N|P%",
              callback=parse_min_available,
              help="With --schedule advised: nodes that must stay Ready at the worst moment "
                   "(as `ngupgrade advise`). Default: one node down at a time.")
@click.option("--max-parallel", type=click.IntRange(min=1), default=None, metavar="K",
              help=f"With --schedule advised: groups upgraded at once per folder (default "
                   f"{DEFAULT_MAX_PARALLEL}, the cloud's active-operations limit; the groups "
                   "of one cluster run one after another and count once).")
@click.option("--time-scale", type=TIME_SCALE, default=1.0,
              hidden=True, help="Virtual seconds per real second (drills on the fake cloud).")
@cluster_options
@accept_option
@common_options
def upgrade(groups: tuple[str, ...], version: str | None, latest_revision: bool,
            max_expansion: int | None, max_unavailable: int | None, restore_policy: bool,
            apply: bool, timeout: float | None, stall_after: float, journal: str | None,
            resume: bool, quotas_file: str | None, cloud_id: str | None, strict: bool,
            cycle_minutes: float, schedule: str, min_available: MinAvailable | None,
            max_parallel: int | None, time_scale: float, cluster_files: tuple[str, ...],
            kubeconfig: str | None, kube_context: str | None, accept: tuple[str, ...]) -> None:
    """Upgrade node groups the runbook way: gate, policy, version, progress, verdict.

    \b
    Per group, in the order given: read the live group; refuse one that is not RUNNING or
    has an operation in progress; check the version against the master (never ahead, one
    minor step); plan; quota preflight as a gate (before any change); with
    --max-expansion/--max-unavailable set the deploy policy alone and verify it took; update
    the version alone and wait with progress; verdict (operation without error, RUNNING,
    on the target, back to the starting size, every node Ready and schedulable; with
    --kubeconfig no evicted pod still Pending); with --restore-policy put back Terraform's
    policy. A stall or the --timeout exits 6 and never cancels the cloud operation;
    --resume continues from the journal (its progress and summary from where the
    interrupted run left them). With cluster objects (--cluster FILE, or
    --kubeconfig/--context) the drain check is part of the gate: a blocking finding
    (docs/drain.md) stops the run before any change unless --accept CODE. With
    --kubeconfig/--context the wait also names the pods left on each draining node, the PDB
    refusing each, evicted pods Pending with the scheduler's reason, and the forced stop.
    With --schedule advised the groups run as `ngupgrade advise` schedules them: stages one
    after another, the groups of a stage in parallel (those of one cluster one after another
    inside it), each with its stage's policy and its own journal; a failed group stops the
    later stages; the exit code is the worst group's.

    \b
    Examples:
      ngupgrade upgrade -g workers --version 1.30                       # dry run
      ngupgrade upgrade -g workers --version 1.30 --max-expansion 2 \\
          --max-unavailable 1 --restore-policy --apply
      ngupgrade upgrade -g workers --version 1.30 --apply --resume      # after exit 6 or 130
      ngupgrade upgrade -g workers --version 1.30 --apply -o json       # NDJSON for CI
      ngupgrade upgrade -g workers --version 1.30 --cluster cluster.json  # + drain gate
      ngupgrade upgrade -g a -g b --version 1.30 --schedule advised --quotas q.yaml  # stages

    \b
    Exit codes: 0 done (or dry run); 1 a check, the preflight gate or the drain gate failed,
    or a change did not take; 2 usage; 3 bad state/quota file/journal/cluster dump; 4 cloud
    or Kubernetes API error; 5 the operation failed; 6 timed out or stalled (still running:
    --resume); 130 interrupted (--resume).
    """
    # here, not at the top: `ngupgrade upgrade --help` loads none of it (the SDK, grpc)
    from ngupgrade.app.upgrade import run_upgrade
    from ngupgrade.app.upgrade_request import UpgradeRequest
    from ngupgrade.cli._upgrade_display import NdjsonDisplay, PlainDisplay, RichDisplay
    from ngupgrade.upgrade.values import UpgradeOptions

    ctx = click.get_current_context()
    settings = settings_of(ctx)
    stdin_once(settings, cluster=cluster_files)
    note_unused(settings, connects=True)
    options = UpgradeOptions(
        version=version, latest_revision=latest_revision, max_expansion=max_expansion,
        max_unavailable=max_unavailable, restore_policy=restore_policy, timeout=timeout,
        stall_after=stall_after, resume=resume, minutes_per_cycle=cycle_minutes)
    request = UpgradeRequest(selectors=groups, options=options, apply=apply, journal=journal,
                             quotas_file=quotas_file, cloud_id=cloud_id, strict=strict,
                             cluster=cluster_source(cluster_files, kubeconfig, kube_context),
                             accept=accepted_codes(accept),
                             command="ngupgrade " + " ".join(sys.argv[1:]))
    if schedule == "sequential" and (min_available is not None or max_parallel is not None):
        raise UsageError("--min-available and --max-parallel shape the advised schedule",
                         hint="add --schedule advised, or leave them out")
    invocation = invocation_of(ctx)
    header = invocation.header() if invocation is not None else None
    show: Display = NdjsonDisplay(header) if settings.output == "json" else \
        (RichDisplay() if sys.stdout.isatty() else PlainDisplay())
    try:
        timing = stoppable(timing_of(ctx, time_scale))
        with signals_as_interrupt(timing.stop):
            if schedule == "advised":
                from ngupgrade.app.scheduled import ScheduleInputs, run_scheduled

                explicit = ctx.get_parameter_source("cycle_minutes") != \
                    click.core.ParameterSource.DEFAULT
                inputs = ScheduleInputs(min_available=min_available,
                                        minutes_per_cycle=cycle_minutes if explicit else None,
                                        max_parallel=max_parallel or DEFAULT_MAX_PARALLEL)
                run_scheduled(settings, request, inputs, timing=timing, emit=show.event)
            else:
                run_upgrade(settings, request, timing=timing, emit=show.event)
    except NgUpgradeError as err:
        show.error(err)
        raise
    finally:
        show.close()
    if not apply:
        show.line("dry run: nothing was changed; add --apply to run it")
