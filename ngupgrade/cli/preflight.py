"""``ngupgrade preflight``: will the cloud's quotas hold every extra node of the upgrade?"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

import click

from ngupgrade.cli._cluster import accept_option, accepted_codes, cluster_options, cluster_source
from ngupgrade.cli._common import (
    POLICY_VALUE,
    common_options,
    echo_report,
    emit_json,
    emit_junit,
    group_option,
    plan_option,
    settings_of,
    state_notes,
    stdin_once,
    terminal_width,
)
from ngupgrade.cli._flags import note_unused

if TYPE_CHECKING:
    from ngupgrade.app.preflight import PreflightReport


START_AT_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S",
                    "%Y-%m-%dT%H:%M%z", "%Y-%m-%dT%H:%M:%S%z"]
"""``--start-at``: ISO 8601 to the minute or second, with no offset (UTC), ``Z`` or
``+HH:MM`` (``%z`` takes both, Python's strptime)."""


@click.command()
@group_option
@click.option("--quotas", "quotas_file", metavar="FILE",
              help="Offline: quota limits from a file (JSON or YAML): the proto-JSON of "
                   "ListQuotaLimitsResponse (one or a list), or {CLOUD_ID: {QUOTA_ID: "
                   "{limit: L, usage: U}}}; for Selectel groups, the project's quotas "
                   "{project_id, quotas: {compute_cores|compute_ram|volume_gigabytes_TYPE: "
                   "[{zone, value, used}]}} (docs/selectel.md). No API call is made.")
@click.option("--cloud-id", metavar="ID",
              help="Cloud of every selected group (skips the cluster -> folder -> cloud lookup). "
                   "Offline, the default is the one cloud the quota file holds.")
@click.option("--together", is_flag=True,
              help="Count every group's surge at once (the sum), also for groups of one Yandex "
                   "cluster, which runs one node-group operation at a time (the default counts "
                   "the largest of each cluster, the clusters added up).")
@click.option("--sequential", is_flag=True,
              help="Groups are upgraded one after another: the largest demand per quota "
                   "counts, not the sum.")
@click.option("--strict", is_flag=True,
              help="An unknown quota (no limit, or not listed) fails the check (exit 1).")
@click.option("--max-expansion", "max_expansion", type=POLICY_VALUE, metavar="E",
              help="Check with this max_expansion instead of the state's (a Selectel "
                   "group's strategy is not in the state: pass the control panel's value).")
@click.option("--max-unavailable", "max_unavailable", type=POLICY_VALUE, metavar="U",
              help="Check with this max_unavailable instead of the state's.")
@click.option("--start-at", "start_at", type=click.DateTime(START_AT_FORMATS),
              metavar="YYYY-MM-DDTHH:MM[:SS][Z|+HH:MM]",
              help="When the upgrade is to start, for the auto-upgrade window check "
                   "(a group with maintenance_policy.auto_upgrade whose window may open during "
                   "the run): UTC, or an offset that is converted to UTC (`date -u +%FT%TZ` "
                   "prints one). Default: now.")
@click.option("--at-current-size", is_flag=True,
              help="Judge autoscaled groups at their current size instead of the worst case "
                   "(the autoscaler grown to max before the upgrade starts).")
@click.option("--pdbs", "pdbs_file", metavar="FILE",
              help="PodDisruptionBudgets to check for drain blockers: the output of "
                   "`kubectl get pdb --all-namespaces -o json` ('-' reads stdin). A PDB that "
                   "allows 0 disruptions is a warning, a failure with --strict.")
@cluster_options
@accept_option
@plan_option
@common_options
def preflight(groups: tuple[str, ...], quotas_file: str | None, cloud_id: str | None,
              together: bool, sequential: bool, strict: bool, max_expansion: int | None,
              max_unavailable: int | None, start_at: datetime | None, at_current_size: bool,
              pdbs_file: str | None, cluster_files: tuple[str, ...], kubeconfig: str | None,
              kube_context: str | None, accept: tuple[str, ...]) -> None:
    """Check the surge of an upgrade against the cloud's quotas (a CI gate; read-only).

    Every extra node the upgrade creates consumes compute (VMs, vCPUs, memory, disks, disk
    size by type, GPUs), managed-kubernetes (nodes, cores, memory, disk) and, with a public
    NAT address, vpc quotas; on Selectel, the project's vCPU, RAM and volume quotas of the
    group's pool segment (offline only). A quota passes when demand <= limit - usage. An
    autoscaled group is judged at its worst case: grown to max, plus max_expansion (up to
    twice the max).

    \b
    Examples:
      ngupgrade preflight --state terraform.tfstate
      ngupgrade preflight --quotas quotas.json -o json      # offline, for CI
      ngupgrade preflight -g workers --cloud-id b1g... --strict --sequential
      kubectl get pdb -A -o json > pdbs.json && ngupgrade preflight --pdbs pdbs.json
      terraform show -json tfplan | ngupgrade preflight --plan - --quotas quotas.json
      ngupgrade preflight --state terraform/examples/selectel/terraform.tfstate \\
          --quotas terraform/examples/selectel/quotas.yaml --max-expansion 2

    \b
    With --plan, the quotas of what `terraform apply` of a saved plan does: each group's
    change (roll, resize, in-place, replace, create, delete, none), a roll's surge under the
    planned deploy policy, growth, whole new groups; groups changing in one apply are counted
    together (Terraform applies them in parallel). A replace is blocking: the deploy policy
    does not apply and every node of the group is deleted. See docs/plan-gate.md.

    \b
    Exit codes:
      0  every quota holds (unknown quotas are warnings, unless all are unknown)
      1  a check failed: a quota is short; no quota was checked (the source lists
         none the surge draws on); with --strict, a quota is unknown or a
         PDB blocks the drain; with --plan, the plan replaces a node group; a
         group's resources cannot be placed on quota ids; an invalid deploy policy
      2  usage error (e.g. a quota file with several clouds and no --cloud-id, a
         --max-expansion no group takes: -1, or one outside Yandex's 0..100)
      3  bad state, plan or quota file
      4  cloud API error
    Nothing in the cloud is changed. See docs/quota-preflight.md.
    """
    from ngupgrade.app.load import forced_platform
    from ngupgrade.app.preflight import PreflightRequest
    from ngupgrade.app.preflight import preflight as run_preflight_command
    from ngupgrade.core.errors import UsageError
    from ngupgrade.core.policy import check_overrides

    settings = settings_of(click.get_current_context())
    if together and sequential:
        raise UsageError("--together and --sequential: the surges are counted either at once "
                         "or one after another", hint="pass one of them")
    stdin_once(settings, cluster=cluster_files, pdbs=pdbs_file)
    note_unused(settings, connects=quotas_file is None,
                offline="with --quotas the limits come from the file, no API call is made")
    check_overrides(max_expansion, max_unavailable, forced_platform(settings))
    cluster = cluster_source(cluster_files, kubeconfig, kube_context)
    accepted = accepted_codes(accept)  # an unknown code is a usage error before anything is read
    start = (datetime.now(timezone.utc).replace(second=0, microsecond=0) if start_at is None
             else start_at.replace(tzinfo=timezone.utc) if start_at.tzinfo is None
             else start_at.astimezone(timezone.utc))
    report = run_preflight_command(settings, PreflightRequest(
        cloud_id=cloud_id, sequential=sequential, together=together, strict=strict,
        at_current_size=at_current_size, max_expansion=max_expansion,
        max_unavailable=max_unavailable, start=start, quotas_file=quotas_file,
        selectors=groups, pdbs_file=pdbs_file, cluster=cluster, accept=accepted))
    _show(report, output=settings.output)
    failure = report.failure()
    if failure is not None:
        raise failure


def _show(report: PreflightReport, *, output: str) -> None:
    """Print the quota verdict (with ``--plan`` the change table, with ``--cluster`` the
    drain check) as a table, JSON or JUnit."""
    from ngupgrade.cli.render.quota import preflight_json, preflight_table

    result, gate, drain = report.result, report.gate, report.drain
    if output == "json":
        document = preflight_json(result)
        if gate is not None:
            from ngupgrade.cli.render.tfplan import plan_section_json, preflight_with_changes

            document = preflight_with_changes(document, gate.changes)
            document["plan"] = plan_section_json(gate.verdict, source=gate.source,
                                                 terraform_version=gate.terraform_version,
                                                 clusters=gate.clusters,
                                                 ok=not report.blocking)
        if drain is not None:
            from ngupgrade.cli.drain_check import drain_document

            document["drain"] = drain_document(drain)
        document["ok"] = report.ok
        state_notes(report.shown, document)
        emit_json(document)
    elif output == "junit":
        from ngupgrade.cli.render.junit import junit_xml

        emit_junit(junit_xml(preflight=result, changes=gate.verdict if gate else None,
                             drain=drain.report if drain else None,
                             accepted=drain.accepted if drain else frozenset(),
                             strict=drain.strict if drain else False))
    else:
        if gate is not None:
            from ngupgrade.cli.render.tfplan import changes_table

            echo_report(changes_table(gate.verdict, source=gate.source, width=terminal_width()))
        if result.groups or gate is None:
            echo_report(preflight_table(result, width=terminal_width()), nl=False)
        else:
            click.echo("Quota preflight: PASS: no change in this plan needs nodes")
        if drain is not None:
            from ngupgrade.cli.drain_check import show

            click.echo("\n== drain check")
            show(drain, "table")
        state_notes(report.shown)
