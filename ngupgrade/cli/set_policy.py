"""``ngupgrade set-policy``: change a node group's deploy policy (dry run unless --apply)."""

from __future__ import annotations

import click

from ngupgrade.cli._common import (
    POLICY_VALUE,
    common_options,
    echo_report,
    emit_json,
    only_one,
    settings_of,
    timing_of,
)
from ngupgrade.cli._duration import Duration
from ngupgrade.cli._flags import note_unused
from ngupgrade.cli._signals import signals_as_interrupt, stoppable
from ngupgrade.core.errors import UsageError


@click.command("set-policy")
@click.option("--group", "-g", "group", required=True, metavar="ADDRESS|NAME|ID",
              multiple=True, callback=only_one,
              help="The node group, by Terraform address, name or id (one).")
@click.option("--max-expansion", type=POLICY_VALUE, metavar="E",
              help="Nodes added above the group size during updates (0..100).")
@click.option("--max-unavailable", type=POLICY_VALUE, metavar="U",
              help="Nodes that may be down at once during updates (0..100).")
@click.option("--apply", "apply_", is_flag=True,
              help="Send the change. Without it nothing changes (dry run).")
@click.option("--timeout", type=Duration(), default="30m", show_default=True,
              help="How long to wait for the operation and the reconcile; 0 = send and "
                   "don't wait (exit 6 with the command to attach later).")
@common_options
def set_policy(group: str, max_expansion: int | None, max_unavailable: int | None,
               apply_: bool, timeout: float) -> None:
    """Show, and with --apply make, a deploy-policy change of one node group.

    \b
    Examples:
      ngupgrade set-policy -g workers --max-expansion 3                 # dry run: the diff
      ngupgrade set-policy -g workers --max-expansion 3 --apply         # change, wait, verify
      ngupgrade set-policy -g cat1ng0fixed0000abcd --max-unavailable 1 --apply --timeout 0

    \b
    The update carries an update_mask with only the changed paths. After --apply the tool
    waits for the operation, checks the group is RUNNING again, reads the policy back and
    fails (exit 1) if the new values did not take. Then keep Terraform in step: put the
    printed deploy_policy block into the configuration, or the next `terraform apply`
    reverts the change.

    \b
    Exit codes: 0 done (or already set); 1 invalid policy (0/0), the values did not take,
    or the group is STOPPED after the operation; 2 usage (a value outside 0..100, such as
    -1 or 101, the range for any group); 3 bad state, key or CA file; 4 API error (also:
    another operation still in the way); 5 the operation failed; 6 still running at
    --timeout (attach with `ngupgrade wait`); 130 interrupted.
    """
    # here, not at the top: `ngupgrade set-policy --help` loads none of it (the SDK, grpc)
    from ngupgrade.adapters.cloud.waiter import resume_hint
    from ngupgrade.app.cloud import open_cloud, resolve_group
    from ngupgrade.app.set_policy import apply_change, plan_change
    from ngupgrade.cli._progress import Progress
    from ngupgrade.core.platform import YANDEX
    from ngupgrade.core.policy import policy_text, terraform_block
    from ngupgrade.core.units import human_seconds

    if max_expansion is None and max_unavailable is None:
        raise UsageError("give --max-expansion and/or --max-unavailable")
    ctx = click.get_current_context()
    settings = settings_of(ctx)
    note_unused(settings, connects=True)
    target = resolve_group(settings, group, "set-policy")
    timing = stoppable(timing_of(ctx))
    with signals_as_interrupt(timing.stop), open_cloud(settings, timing) as gw:
        change = plan_change(gw, target, max_expansion, max_unavailable)
        label = f"{target.address or target.name} ({target.id})"
        before = YANDEX.in_force(change.before)
        payload: dict[str, object] = {
            "group": {"id": target.id, "name": change.live.name, "address": target.address},
            "before": {"max_expansion": before.max_expansion,
                       "max_unavailable": before.max_unavailable,
                       "source": "live" if change.before else "default"},
            "after": {"max_expansion": change.after.max_expansion,
                      "max_unavailable": change.after.max_unavailable},
            "update_mask": list(change.paths), "changed": change.changed, "applied": False,
            "operation_id": None, "terraform": terraform_block(change.after),
        }
        text = settings.output != "json"
        if text:
            _show_diff(label, before, change)
        if change.changed and apply_:
            op_ids: list[str] = []
            try:
                with Progress(f"deploy policy update of {label}") as progress:
                    applied = apply_change(gw, change, timing=timing, timeout=timeout,
                                           on_poll=progress.on_poll, on_started=op_ids.append)
            except KeyboardInterrupt:
                if op_ids:
                    echo_report(f"interrupted: {resume_hint(op_ids[0])}", err=True)
                raise
            op_id = applied.operation_id
            payload.update(applied=True, operation_id=op_id)
            after = policy_text(change.after)
            if text and applied.reached_by is not None:
                echo_report(f"already set by operation {op_id} (not started by this command): "
                           f"nothing sent; group RUNNING, policy read back {after}")
            elif text:
                echo_report(f"applied: operation {op_id} done, group RUNNING, policy read back "
                           f"{after}")
        elif text:
            echo_report("already set: nothing to do" if not change.changed else
                       f"dry run: nothing changed; add --apply to send it "
                       f"(update_mask: {', '.join(change.paths)}; "
                       f"wait up to {human_seconds(timeout)})")
    if not text:
        emit_json(payload)
        return
    _terraform_advice(target.address, change)


def _show_diff(label: str, before: object, change: object) -> None:
    from ngupgrade.app.set_policy import PolicyChange
    from ngupgrade.core.model import DeployPolicy

    assert isinstance(change, PolicyChange) and isinstance(before, DeployPolicy)
    source = "" if change.before else "  (unset in the API: server default)"
    echo_report(f"node group {label}: deploy_policy{source}")
    for name in ("max_expansion", "max_unavailable"):
        old, new = getattr(before, name), getattr(change.after, name)
        if old == new:
            click.echo(f"    {name} = {old}")
        else:
            click.echo(f"  - {name} = {old}")
            click.echo(f"  + {name} = {new}")


def _terraform_advice(address: str | None, change: object) -> None:
    from ngupgrade.app.set_policy import PolicyChange
    from ngupgrade.core.policy import policy_text, terraform_block

    assert isinstance(change, PolicyChange)
    where = address or "the yandex_kubernetes_node_group resource"
    echo_report(f"\nkeep Terraform in step: in {where} set")
    click.echo(terraform_block(change.after))
    declared = change.target.state_policy
    if declared is not None and declared != change.after:
        echo_report(f"warning: the Terraform state declares {policy_text(declared)}; the next "
                   "`terraform apply` reverts the policy unless the configuration says "
                   f"{policy_text(change.after)}", err=True)
    elif declared is None:
        echo_report("warning: unless the configuration declares this block, the next "
                   "`terraform apply` may revert the change", err=True)
