"""``ngupgrade wait``: attach to a running operation and wait for its verdict."""

from __future__ import annotations

import click

from ngupgrade.cli._common import common_options, emit_json, only_one, settings_of, timing_of
from ngupgrade.cli._duration import Duration
from ngupgrade.cli._flags import note_unused


@click.command("wait")
@click.option("--group", "-g", "group", metavar="ADDRESS|NAME|ID", multiple=True,
              callback=only_one,
              help="Attach to the group's latest unfinished operation (then check RUNNING); "
                   "with none running, report how its latest operation ended.")
@click.option("--operation", "operation", metavar="ID", multiple=True, callback=only_one,
              help="Attach to this operation.")
@click.option("--timeout", type=Duration(), default="6h", show_default=True,
              help="How long to wait; 0 = look once and exit (6 while still running).")
@click.option("--stall-after", "--stall-timeout", "stall_after", type=Duration(),
              default="30m", show_default=True, metavar="DUR",
              help="Exit 6 as stalled when the group's nodes do not change for this long "
                   "(a drain blocked by a PodDisruptionBudget); 0 = never.")
@common_options
def wait(group: str | None, operation: str | None, timeout: float,
         stall_after: float) -> None:
    """Wait for a cloud operation and the node group's reconcile; never cancels anything.

    \b
    Examples:
      ngupgrade wait --group workers                 # its latest unfinished operation
      ngupgrade wait --operation cat5op0example00001 --timeout 2h

    Polls start 2 s apart and grow to every 30 s; the verdict needs the operation done
    without error and the group RUNNING again.

    \b
    Exit codes: 0 done and RUNNING; 1 the group is STOPPED or DELETING (nothing runs, or
    the operation succeeded and left it so);
    2 usage error (neither --group nor --operation, a group that does not exist); 3 bad
    state, key or CA file; 4 API error; 5 the operation failed (with --group and nothing
    running: the group's latest operation failed); 6 still running at the timeout or
    stalled (run the same command again); 130 interrupted.
    """
    # here, not at the top: `ngupgrade wait --help` loads none of it (the SDK, grpc)
    from ngupgrade.adapters.cloud.waiter import resume_hint
    from ngupgrade.app.cloud import open_cloud, resolve_group
    from ngupgrade.app.wait import find_target, wait_for
    from ngupgrade.cli._progress import Progress

    ctx = click.get_current_context()
    settings, timing = settings_of(ctx), timing_of(ctx)
    note_unused(settings, connects=True, reads_state=bool(group))
    group_id = resolve_group(settings, group, "wait").id if group else None
    with open_cloud(settings, timing) as gw:
        target = find_target(gw, node_group_id=group_id, operation_id=operation)
        if target.operation is None:
            verdict = wait_for(gw, target, timing=timing, timeout=timeout)
            g = verdict.group
            status = g.status if g else "?"
            line = f"no unfinished operation on node group {group_id} (status {status})"
            if verdict.operation is not None and g is not None:
                line += (f"; its latest operation {verdict.operation.id} "
                         f"({verdict.operation.description or 'no description'}) finished "
                         f"without error; version {g.version}")
            _report(settings.output, None, g, line, latest=verdict.operation)
            return
        op_id = target.operation.id
        try:
            with Progress(f"operation {op_id}") as progress:
                verdict = wait_for(gw, target, timing=timing, timeout=timeout,
                                   on_poll=progress.on_poll,
                                   stall_seconds=stall_after)
        except KeyboardInterrupt:
            click.echo(f"interrupted: {resume_hint(op_id)}", err=True)
            raise
        group_note = (f", node group {verdict.group.id} RUNNING on {verdict.group.version}"
                      if verdict.group else "")
        _report(settings.output, op_id, verdict.group,
                f"operation {op_id} done without error{group_note}")


def _report(output: str, op_id: str | None, group: object, line: str,
            latest: object = None) -> None:
    from ngupgrade.adapters.cloud.types import LiveNodeGroup, OperationState

    if output == "json":
        g = group if isinstance(group, LiveNodeGroup) else None
        payload: dict[str, object] = {
            "operation_id": op_id, "done": True,
            "group": None if g is None else {"id": g.id, "status": g.status,
                                             "version": g.version}}
        if op_id is None:
            # Nothing was waited for: the outcome of the group's latest operation, if any.
            op = latest if isinstance(latest, OperationState) else None
            payload["latest_operation"] = None if op is None else {
                "id": op.id, "description": op.description, "ok": not op.failed}
        emit_json(payload)
    else:
        click.echo(line)
