"""``ngupgrade preflight``: will the cloud's quotas hold every extra node of the upgrade?"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import click

from ngupgrade.cli._cluster import accept_option, accepted_codes, cluster_options, cluster_source
from ngupgrade.cli._common import (
    POLICY_VALUE,
    common_options,
    emit_json,
    emit_junit,
    group_option,
    plan_option,
    settings_of,
    state_notes,
    stdin_once,
)
from ngupgrade.cli._flags import note_unused
from ngupgrade.core.errors import CheckFailed, UsageError

if TYPE_CHECKING:
    from ngupgrade.app.drain_check import DrainCheckResult
    from ngupgrade.app.preflight import PreflightRequest, QuotaSource
    from ngupgrade.app.tfplan import PlanGate
    from ngupgrade.core.model import NodeGroup
    from ngupgrade.core.quota.preflight import Preflight


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
@click.option("--start-at", "start_at", type=click.DateTime(["%Y-%m-%dT%H:%M",
                                                              "%Y-%m-%d %H:%M"]),
              metavar="YYYY-MM-DDTHH:MM",
              help="When the upgrade is to start, in UTC, for the auto-upgrade window check "
                   "(a group with maintenance_policy.auto_upgrade whose window may open during "
                   "the run). Default: now.")
@click.option("--at-current-size", is_flag=True,
              help="Judge autoscaled groups at their current size instead of the worst case "
                   "(the autoscaler grown to max before the upgrade starts).")
@click.option("--pdbs", "pdbs_file", metavar="FILE",
              help="PodDisruptionBudgets to check for drain blockers (C15): the output of "
                   "`kubectl get pdb --all-namespaces -o json` ('-' reads stdin). A PDB that "
                   "allows 0 disruptions is a warning, a failure with --strict.")
@cluster_options
@accept_option
@plan_option
@common_options
def preflight(groups: tuple[str, ...], quotas_file: str | None, cloud_id: str | None,
              sequential: bool, strict: bool, max_expansion: int | None,
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
      0  every quota holds (unknown quotas are warnings)
      1  a check failed: a quota is short; with --strict, a quota is unknown or a
         PDB blocks the drain; with --plan, the plan replaces a node group; a
         group's resources cannot be placed on quota ids; an invalid deploy policy
      2  usage error (e.g. a quota file with several clouds and no --cloud-id)
      3  bad state, plan or quota file
      4  cloud API error
    Nothing in the cloud is changed. See docs/quota-preflight.md.
    """
    # here, not at the top: `ngupgrade preflight --help` loads none of it
    from ngupgrade.adapters.files.pdb_file import read_pdb_file
    from ngupgrade.app.load import forced_platform, load_state, refuse_empty, select_groups
    from ngupgrade.app.preflight import PreflightRequest, run_preflight, with_drain_blockers
    from ngupgrade.core.policy import check_overrides

    settings = settings_of(click.get_current_context())
    stdin_once(settings, cluster=cluster_files, pdbs=pdbs_file)
    note_unused(settings, connects=quotas_file is None,
                offline="with --quotas the limits come from the file, no API call is made")
    check_overrides(max_expansion, max_unavailable, forced_platform(settings))
    cluster = cluster_source(cluster_files, kubeconfig, kube_context)
    accepted_codes(accept)  # an unknown code is a usage error before anything is read
    overrides = max_expansion is not None or max_unavailable is not None
    if settings.plan is not None and overrides:
        raise UsageError("--max-expansion/--max-unavailable check a state's groups; a "
                         "Terraform plan brings its own deploy policies",
                         hint="leave them out with --plan")
    gate = None
    found: list[NodeGroup] = []
    peers: tuple[NodeGroup, ...] = ()
    if settings.plan is not None:
        from ngupgrade.app.tfplan import load_plan, preflight_plan

        gate = load_plan(settings, groups, sequential=sequential)
    else:
        peers = load_state(settings).groups  # a cluster's other groups count in its limit
        found = select_groups(peers, groups)
        refuse_empty(found, strict, "preflight")

    def check(quotas: QuotaSource, request: PreflightRequest, **live: Any) -> Preflight:
        if gate is not None:
            return preflight_plan(gate, quotas, request, **live)
        return run_preflight(found, quotas, request, peers=peers, **live)

    start = (start_at.replace(tzinfo=timezone.utc) if start_at is not None
             else datetime.now(timezone.utc).replace(second=0, microsecond=0))
    request = PreflightRequest(cloud_id=cloud_id, sequential=sequential, strict=strict,
                               at_current_size=at_current_size, max_expansion=max_expansion,
                               max_unavailable=max_unavailable, start=start)
    selectel = bool(found) and all(g.platform == "selectel" for g in found)
    if selectel and quotas_file is None:
        raise UsageError("a Selectel preflight is offline: pass --quotas FILE with the "
                         "project's quotas", hint="the format is in docs/selectel.md")
    if quotas_file is not None:
        if selectel:
            from ngupgrade.adapters.files.project_quota_file import read_project_quota_file

            source = read_project_quota_file(quotas_file)
        else:
            from ngupgrade.adapters.files.quota_file import read_quota_file

            source = read_quota_file(quotas_file)
        if request.cloud_id is None:
            single = source.single_cloud_id()
            if single is None:
                held = ", ".join(source.cloud_ids) or "no named cloud"
                raise UsageError(f"which cloud? the quota file {quotas_file} holds {held}",
                                 hint="pass --cloud-id ID")
            request = replace(request, cloud_id=single)
        result = check(source, request)
    else:
        from ngupgrade.app.cloud import open_cloud  # the SDK only on the live path

        gateway = open_cloud(settings)
        try:
            result = check(gateway, request, directory=gateway, nodes=gateway,
                           live_groups=gateway)
        finally:
            close = getattr(gateway, "close", None)
            if close is not None:
                close()

    if pdbs_file is not None:
        result = with_drain_blockers(result, read_pdb_file(pdbs_file))
    drain = None
    if cluster.given:
        from ngupgrade.app.drain_check import DrainCheckRequest, drain_check_groups, plan_drains

        drained, removed = (found, []) if gate is None else plan_drains(gate)
        drain = drain_check_groups(drained, DrainCheckRequest(
            selectors=groups, cluster=cluster, max_expansion=max_expansion,
            max_unavailable=max_unavailable, accept=accepted_codes(accept), strict=strict),
            removed=removed)
    _report(result, gate, drain, output=settings.output, selectel=selectel,
            offline=quotas_file is not None)


def _report(result: Preflight, gate: PlanGate | None, drain: DrainCheckResult | None, *,
            output: str, selectel: bool, offline: bool) -> None:
    """Print the quota verdict (with ``--plan`` the change table, with ``--cluster`` the
    drain check) as a table, JSON or JUnit; exit 1 when any part fails."""
    from ngupgrade.cli.render.quota import failure_summary, preflight_json, preflight_table
    from ngupgrade.core.change import blocking_hints
    from ngupgrade.core.quota.preflight import failure_hints

    blocking = gate.verdict.blocking if gate is not None else ()
    shown = [gd.group for gd in result.groups] + (
        [g for c in gate.changes for g in (c.before, c.group)] if gate is not None else [])
    if output == "json":
        document = preflight_json(result)
        if gate is not None:
            from ngupgrade.cli.render.tfplan import plan_section_json, preflight_with_changes

            document = preflight_with_changes(document, gate.changes)
            document["plan"] = plan_section_json(gate.verdict, source=gate.source,
                                                 terraform_version=gate.terraform_version,
                                                 clusters=gate.clusters, ok=not blocking)
        if drain is not None:
            from ngupgrade.cli.drain_check import drain_document

            document["drain"] = drain_document(drain)
        document["ok"] = result.ok and not blocking and (drain is None or drain.ok)
        state_notes(shown, document)
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

            click.echo(changes_table(gate.verdict, source=gate.source))
        if result.groups or gate is None:
            click.echo(preflight_table(result), nl=False)
        else:
            click.echo("Quota preflight: PASS: no change in this plan needs nodes")
        if drain is not None:
            from ngupgrade.cli.drain_check import show

            click.echo("\n== drain check")
            show(drain, "table")
        state_notes(shown)
    parts = [f.message for f in blocking]
    if not result.ok:
        parts.append(failure_summary(result))
    if drain is not None and not drain.ok:
        from ngupgrade.cli.drain_check import failure_summary as drain_failure

        parts.append(drain_failure(drain))
    if not parts:
        return
    where = ("the project's quotas in the Selectel control panel" if selectel
             else "Quota Manager")
    hints = blocking_hints(blocking)
    hints += failure_hints(result, offline=offline, where=where)
    if drain is not None and not drain.ok:
        hints.append("a drain finding: fix what blocks it, or a slower policy (`ngupgrade "
                     "advise`); --accept CODE after reading it")
    title = "plan gate failed: " if gate is not None else ""
    raise CheckFailed(title + "; ".join(parts), hint="; ".join(hints))
