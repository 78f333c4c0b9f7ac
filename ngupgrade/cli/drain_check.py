"""``ngupgrade drain-check``: what each wave of the upgrade does to the pods, before it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ngupgrade.cli._cluster import accept_option, accepted_codes, cluster_options, cluster_source
from ngupgrade.cli._common import (
    CYCLE_MINUTES,
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
from ngupgrade.core.errors import CheckFailed
from ngupgrade.core.model import MAX_GROUP_NODES
from ngupgrade.core.simulate import DEFAULT_MINUTES_PER_CYCLE

if TYPE_CHECKING:
    from ngupgrade.app.drain_check import DrainCheckResult


@click.command("drain-check")
@group_option
@cluster_options
@click.option("--max-expansion", "max_expansion", type=click.IntRange(min=0), metavar="E",
              help="Check with this max_expansion instead of the state's.")
@click.option("--max-unavailable", "max_unavailable", type=click.IntRange(min=0), metavar="U",
              help="Check with this max_unavailable instead of the state's.")
@click.option("--nodes", type=click.IntRange(min=0, max=MAX_GROUP_NODES), metavar="N",
              help="Size of a group that has no node in the cluster objects (for a group "
                   "that has some, a note says it is not used).")
@click.option("--cycle-minutes", "cycle_minutes", type=CYCLE_MINUTES,
              default=DEFAULT_MINUTES_PER_CYCLE, show_default=True, metavar="M",
              help="Minutes one upgrade cycle takes (above 0, at most 1440): the report's "
                   "estimated duration of each group's upgrade.")
@click.option("--nodes-at-once", type=click.Choice(["wave", "one"]),
              help="How a wave's nodes drain: together (wave: max_unavailable at a time, the "
                   "deploy-policy docs) or one after another (one: the node-drain docs). "
                   "Default: the platform's reading, named in the report.")
@accept_option
@click.option("--strict", is_flag=True, help="Warnings fail the check too (exit 1).")
@click.option("--verbose", "-v", is_flag=True,
              help="List every finding apart (the table report counts several of one code "
                   "and workload or PDB as one entry with its first examples; -o json always "
                   "lists each).")
@plan_option
@common_options
def drain_check(groups: tuple[str, ...], cluster_files: tuple[str, ...],
                kubeconfig: str | None, kube_context: str | None, max_expansion: int | None,
                max_unavailable: int | None, nodes: int | None, cycle_minutes: float,
                nodes_at_once: str | None, accept: tuple[str, ...], strict: bool,
                verbose: bool) -> None:
    """Show what each wave of the upgrade does to the pods on the nodes it drains.

    For every wave of the plan: the pods evicted and the PodDisruptionBudgets they wait on,
    evicted pods that find no node (requests vs allocatable, selectors, affinity, taints),
    pods and data lost (no controller, emptyDir, local volumes), YTsaurus components below
    their minimum, and the platform's reaction (Yandex stops a node after 7 minutes of
    draining, pods or not; Selectel stops the upgrade). The platform picks which nodes drain
    together, so several orders are tried: each finding says whether it happens in every
    order, and the verdict takes the worst. With --plan, a group the plan replaces or
    deletes loses all its nodes at once: a blocking group-removed finding. Nothing in the
    cluster or the cloud is changed.

    \b
    Examples:
      kubectl get nodes,pods,pdb,deployments,replicasets,statefulsets,daemonsets,pvc,pv \\
          -A -o json > cluster.json
      ngupgrade drain-check --state terraform.tfstate --cluster cluster.json -g workers
      ngupgrade drain-check --kubeconfig ~/.kube/config --context prod -o json
      ngupgrade drain-check --cluster cluster.json --max-unavailable 2 --accept bare-pod-lost
      ngupgrade drain-check --cluster cluster.json -o junit > drain-check.xml

    \b
    Exit codes:
      0  nothing blocks (warnings allowed)
      1  no selected group has a node in the cluster objects (another cluster,
         an empty dump, the wrong --context: nothing was checked), a finding
         means downtime or data loss (warnings too with --strict), a
         pod has a constraint the check does not model (not modelled: --accept
         constraint-not-modelled after checking it by hand), or an invalid
         deploy policy
      2  usage error (no cluster objects, an unknown --accept code)
      3  bad state, plan or cluster dump (names the file and JSON path; a dump
         that is not UTF-8 text: the byte offset); with -o junit, a document
         whose one test case is the error
      4  Kubernetes API error (check --kubeconfig and --context)
    The rules and their sources: docs/drain.md.
    """
    settings = settings_of(click.get_current_context())
    stdin_once(settings, cluster=cluster_files)
    note_unused(settings, connects=False,
                offline="`drain-check` reads the cluster objects, not the cloud API")
    # here, not at the top: `ngupgrade drain-check --help` loads none of it
    from ngupgrade.app.drain_check import DrainCheckRequest
    from ngupgrade.app.drain_check import drain_check as run

    request = DrainCheckRequest(
        selectors=groups, cluster=cluster_source(cluster_files, kubeconfig, kube_context),
        max_expansion=max_expansion, max_unavailable=max_unavailable, nodes=nodes,
        minutes_per_cycle=cycle_minutes,
        nodes_at_once="one" if nodes_at_once == "one" else
        "wave" if nodes_at_once == "wave" else None,
        accept=accepted_codes(accept), strict=strict)
    result = run(settings, request)
    show(result, settings.output, verbose=verbose)
    if settings.output == "table":
        state_notes(result.groups)
    if not result.ok:
        raise CheckFailed(failure_summary(result), hint=result.failure_hint())


def show(result: DrainCheckResult, output: str, *, verbose: bool = False) -> None:
    """Print the report as a table (``verbose``: every finding apart), JSON or JUnit XML."""
    from ngupgrade.cli.render.drain import drain_text
    from ngupgrade.cli.render.junit import drain_junit

    if output == "json":
        emit_json(drain_document(result))
    elif output == "junit":
        emit_junit(drain_junit(result.report, accepted=result.accepted, strict=result.strict))
    else:
        for note in result.notes:
            click.echo(f"note: {note}", err=True)
        echo_report(drain_text(result.report, accepted=result.accepted, strict=result.strict,
                               unmatched=bool(result.unmatched), durations=result.durations,
                               plans=result.plans, width=terminal_width(), verbose=verbose),
                    nl=False)


def drain_document(result: DrainCheckResult) -> dict[str, Any]:
    """The JSON document: the report's stable keys, ``ok`` and ``verdict`` (``ok``,
    ``blocked``, ``not-modelled``, ``failed-strict``, ``no-group-nodes``) after
    ``--accept``/``--strict``, the accepted codes and the reader's notes; per group its
    ``duration`` (minutes, from ``--cycle-minutes``) and ``configured_policy``
    (``{max_expansion, max_unavailable, source, assumed}`` as ``plan``'s ``policy``; the
    group's ``policy`` is the effective one), both null for a group a plan replaces or
    deletes."""
    from ngupgrade.cli.render.drain import drain_json

    document = drain_json(result.report, accepted=result.accepted, strict=result.strict)
    for group in document["groups"]:
        duration = result.durations.get(group["address"])
        group["duration"] = None if duration is None else {
            "minutes_per_cycle": duration.minutes_per_cycle,
            "min_minutes": duration.min_minutes, "max_minutes": duration.max_minutes}
        plan = result.plans.get(group["address"])
        group["configured_policy"] = None if plan is None else {
            "max_expansion": plan.policy.policy.max_expansion,
            "max_unavailable": plan.policy.policy.max_unavailable,
            "source": plan.policy.source, "assumed": plan.policy.assumed}
    document["ok"] = result.ok
    document["verdict"] = result.verdict
    document["accepted"] = sorted(result.accepted)
    document["notes"] = list(result.notes)
    state_notes(result.groups, document)
    return document


def failure_summary(result: DrainCheckResult) -> str:
    """One line naming the first failing findings (the CLI prints it as the error)."""
    return result.failure_summary()
