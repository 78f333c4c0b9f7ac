"""``ngupgrade plan``: what an upgrade will do to each node group, before anything changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from ngupgrade.cli._common import (
    CYCLE_MINUTES,
    POLICY_VALUE,
    common_options,
    echo_report,
    emit_json,
    group_option,
    plan_option,
    settings_of,
    state_notes,
    terminal_width,
)
from ngupgrade.cli._flags import note_unused
from ngupgrade.core.errors import CheckFailed, UsageError
from ngupgrade.core.model import MAX_GROUP_NODES
from ngupgrade.core.simulate import DEFAULT_MINUTES_PER_CYCLE

if TYPE_CHECKING:
    from ngupgrade.app.settings import Settings
    from ngupgrade.app.upgrade_plan import UpgradePlanRequest
    from ngupgrade.core.simulate import GroupPlan


@click.command()
@group_option
@click.option("--max-expansion", "max_expansion", type=POLICY_VALUE, metavar="E",
              help="Plan with this max_expansion instead of the state's (Yandex 0..100; "
                   "Selectel 0..the node count: the control panel's \"Расширение размера "
                   "группы, макс\").")
@click.option("--max-unavailable", "max_unavailable", type=POLICY_VALUE, metavar="U",
              help="Plan with this max_unavailable instead of the state's (Yandex 0..100; "
                   "Selectel 0..the node count: \"Уменьшение размера группы, макс\").")
@click.option("--method", "method", type=click.Choice(["reboot", "reinstall"]),
              help="How old nodes are updated in place (Selectel: fixed when the group was "
                   "created, not in the state); says which data the upgrade loses.")
@click.option("--nodes", "nodes", type=click.IntRange(min=0, max=MAX_GROUP_NODES), metavar="N",
              help="Node count of an autoscaled group when its live size is unknown. "
                   "Default: the autoscaler max (worst case).")
@click.option("--cycle-minutes", "cycle_minutes", type=CYCLE_MINUTES, metavar="M",
              default=DEFAULT_MINUTES_PER_CYCLE, show_default=True,
              help="Minutes one upgrade cycle takes (create, drain, delete or reboot).")
@plan_option
@click.option("--strict", is_flag=True,
              help="A CI gate: a warning fails the plan (exit 1; the report is still printed), "
                   "except those that only inform (max-expansion-clamped, "
                   "max-unavailable-clamped, nodes-override-unused, empty-group; JSON "
                   "\"informational\": true; docs/upgrade-math.md section 6).")
@click.option("--accept", "accept", multiple=True, metavar="CODE",
              help="With --strict: pass warnings of this code (you have read them); "
                   "repeatable. Codes: docs/upgrade-math.md section 6; a limit the upgrade "
                   "gate enforces (spread-placement-group-full, peak-above-group-node-limit) "
                   "is refused (exit 2).")
@common_options
def plan(groups: tuple[str, ...], max_expansion: int | None, max_unavailable: int | None,
         method: str | None, nodes: int | None, cycle_minutes: float, strict: bool,
         accept: tuple[str, ...]) -> None:
    """Show what an upgrade will do: surge, peak, nodes down, cycles, duration, warnings.

    \b
    Examples:
      ngupgrade plan --state terraform.tfstate
      ngupgrade plan -g workers --max-expansion 2 --max-unavailable 2
      ngupgrade plan -g 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]' \\
          --nodes 5 --output json
      ngupgrade plan --state terraform/examples/selectel/terraform.tfstate \\
          --max-expansion 2 --max-unavailable 2 --method reboot
      ngupgrade plan --strict -o json | jq -r '.groups[].terraform.timeouts.update // empty'

      terraform plan -out=tfplan && ngupgrade plan --plan tf:.     # what apply will do

    An unset deploy_policy is planned as the platform's default (Yandex 3/0; Selectel 0/1:
    its strategy lives in the control panel, so pass the values it shows), reported as
    assumed. When the upgrade may outlive Terraform's 60-minute update timeout, a warning
    names the timeouts { update = "..." } to set (in JSON: terraform.timeouts.update of each
    group). The math, with pictures: docs/upgrade-math.md; Selectel: docs/selectel.md.
    With --plan, each group's change
    (roll, resize, in-place, replace, create, delete, none) and each roll planned with the
    planned values (--max-expansion, --max-unavailable and --nodes are then usage errors):
    docs/plan-gate.md.

    \b
    Exit codes: 0 plan made (warnings allowed without --strict); 1 a deploy policy is
    invalid, the Terraform plan replaces a node group (a blocking finding), a warning
    with --strict, or a state with no node group under --strict or --group, or a
    --max-expansion/--max-unavailable above a Selectel group's node count (naming the group);
    2 usage error (e.g. a --max-expansion no group takes: -1, or one outside Yandex's
    0..100); 3 bad state or plan (a plan given as --state, or a
    state as --plan, is named with the flag that takes it).
    """
    # here, not at the top: `ngupgrade plan --help` loads none of it
    from ngupgrade.app.load import refuse_empty
    from ngupgrade.app.upgrade_plan import UpgradePlanRequest
    from ngupgrade.app.upgrade_plan import plan as plan_use_case
    from ngupgrade.cli.render.upgrade_plan import plan_json, plan_text

    settings = settings_of(click.get_current_context())
    accepted = accepted_warnings(accept)  # an unknown code is a usage error before any read
    note_unused(settings, connects=settings.plan is None and bool(settings.endpoint),
                offline="`plan` reads only the Terraform plan" if settings.plan is not None
                else "`plan` reads the cloud only with --endpoint")
    request = UpgradePlanRequest(selectors=groups, max_expansion=max_expansion,
                                 max_unavailable=max_unavailable, nodes=nodes,
                                 minutes_per_cycle=cycle_minutes, method=method)
    if settings.plan is not None:
        given = [flag for flag, value in (("--max-expansion", max_expansion),
                                          ("--max-unavailable", max_unavailable),
                                          ("--nodes", nodes)) if value is not None]
        if given:  # the table and the timeline would disagree: the plan's values are applied
            raise UsageError(f"{', '.join(given)} with --plan: a Terraform plan brings its own "
                             "deploy policies and sizes, and those are what apply",
                             hint="leave them out with --plan, or plan the state without it")
        _plan_gate(settings, request, strict, accepted)
        return
    # live group size and policy when a cloud endpoint is given
    plans = plan_use_case(settings, request, live=bool(settings.endpoint))
    if settings.output == "json":
        document = plan_json(plans, strict=strict, accepted=accepted)
        if strict and not plans:
            document["ok"] = False  # nothing was checked: refuse_empty fails it below
        state_notes([p.group for p in plans], document)
        emit_json(document)
    else:
        echo_report(plan_text(plans))
        state_notes([p.group for p in plans])
    refuse_empty(plans, strict, "plan")
    _fail_on_warnings(plans, strict, accepted)


def accepted_warnings(codes: tuple[str, ...]) -> frozenset[str]:
    """Validate ``plan --accept`` codes against the stable warning codes.

    Raises:
        UsageError: an unknown code, naming the closest known one, or a hard limit's code
            (:data:`ngupgrade.core.plan_warnings.HARD_LIMITS`; exit 2).
    """
    from ngupgrade.cli._cluster import known_codes
    from ngupgrade.core.errors import UsageError
    from ngupgrade.core.plan_warnings import HARD_LIMITS, WARNING_CODES

    accepted = known_codes(codes, WARNING_CODES, "a plan warning code")
    hard = sorted(accepted & HARD_LIMITS)
    if hard:
        raise UsageError(
            f"--accept {', '.join(hard)}: a limit the cloud enforces, which the upgrade gate "
            "refuses whatever the flags; a plan passed on it would be a green gate for an "
            "upgrade that cannot run",
            hint="lower --max-expansion to what the warning names as fitting, or free the "
                 "limit")
    return accepted


def _fail_on_warnings(plans: Sequence[GroupPlan | None], strict: bool,
                      accepted: frozenset[str] = frozenset()) -> None:
    """``--strict``: a warning of any group that fails it
    (:func:`ngupgrade.core.plan_warnings.strict_failures`: not informational, not
    ``--accept``-ed) fails the plan (exit 1), after the report.

    ``plans`` may hold None for a group the Terraform plan does not roll (``--plan``).
    """
    from ngupgrade.core.plan_warnings import strict_failures

    warned = [(p.group.address, w.code) for p in plans if p is not None
              for w in strict_failures(p.warnings, accepted)]
    if strict and warned:
        listed = ", ".join(f"{address}: {code}" for address, code in warned)
        raise CheckFailed(f"plan --strict: {len(warned)} warning(s): {listed}",
                          hint="act on each warning (docs/upgrade-math.md section 6), or "
                               "after reading one pass it with --accept CODE, or drop "
                               "--strict")


def _plan_gate(settings: Settings, request: UpgradePlanRequest, strict: bool,
               accepted: frozenset[str]) -> None:
    """``plan --plan``: every group's change, each roll planned with the planned values."""
    from ngupgrade.app.tfplan import load_plan, plan_rolls
    from ngupgrade.cli.render.tfplan import (
        plan_gate_text,
        plan_groups_json,
        plan_section_json,
    )
    from ngupgrade.core.change import blocking_hints

    gate = load_plan(settings, request.selectors)
    plans = plan_rolls(gate, request)
    blocking = gate.verdict.blocking
    from ngupgrade.core.plan_warnings import strict_failures

    warned = strict and any(strict_failures(p.warnings, accepted)
                            for p in plans if p is not None)
    shown = [g for c in gate.changes for g in (c.before, c.group)]
    if settings.output == "json":
        document = {"ok": not (blocking or warned),
                    "groups": plan_groups_json(gate.changes, plans),
                    "plan": plan_section_json(gate.verdict, source=gate.source,
                                              terraform_version=gate.terraform_version,
                                              clusters=gate.clusters, ok=not blocking),
                    "accepted": sorted(accepted)}
        state_notes(shown, document)
        emit_json(document)
    else:
        echo_report(plan_gate_text(gate.verdict, plans, source=gate.source,
                                  width=terminal_width()))
        state_notes(shown)
    if blocking:
        raise CheckFailed("plan gate failed: " + "; ".join(f.message for f in blocking),
                          hint="; ".join(blocking_hints(blocking)))
    _fail_on_warnings(plans, strict, accepted)
