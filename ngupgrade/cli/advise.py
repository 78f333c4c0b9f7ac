"""``ngupgrade advise``: the fastest safe deploy policy of each node group, and a schedule."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ngupgrade.cli._cluster import (
    accept_option,
    accepted_codes,
    cluster_options,
    cluster_source,
)
from ngupgrade.cli._common import (
    CYCLE_MINUTES,
    common_options,
    echo_report,
    emit_json,
    group_option,
    parse_min_available,
    settings_of,
    state_notes,
    stdin_once,
)
from ngupgrade.cli._flags import note_unused
from ngupgrade.core.advise.schedule import DEFAULT_MAX_PARALLEL
from ngupgrade.core.errors import UsageError
from ngupgrade.core.model import MAX_GROUP_NODES

if TYPE_CHECKING:
    from ngupgrade.core.advise.judge import MinAvailable


@click.command()
@group_option
@click.option("--quotas", "quotas_file", metavar="FILE",
              help="Offline quota limits (as in `ngupgrade preflight --quotas`). Without it "
                   "and without --endpoint the quota is not checked.")
@click.option("--cloud-id", metavar="ID",
              help="Cloud of every selected group (offline default: the one cloud of the "
                   "quota file). With --quotas or --endpoint only.")
@click.option("--min-available", "min_available", metavar="N|P%", callback=parse_min_available,
              help="Nodes that must stay Ready at the worst moment, a count or a percentage "
                   "of the group (rounded up). Default: one node down at a time.")
@click.option("--nodes", type=click.IntRange(min=0, max=MAX_GROUP_NODES), metavar="N",
              help="Node count of an autoscaled group whose live size is unknown; its quota "
                   "is judged from that size too. Default: the autoscaler max (worst case).")
@click.option("--cycle-minutes", "cycle_minutes", type=CYCLE_MINUTES, metavar="M",
              help="Minutes one cycle takes. Default: the group's own history when live, "
                   "else 6.")
@click.option("--max-parallel", type=click.IntRange(min=1), default=DEFAULT_MAX_PARALLEL,
              show_default=True, metavar="K",
              help="Groups upgraded at once per folder (the cloud's active-operations limit; "
                   "the groups of one cluster run one after another and count once).")
@click.option("--at-current-size", is_flag=True,
              help="Judge autoscaled groups' quotas at their current size, not the worst case "
                   "(offline: the planned N, warned as current-size-assumed). With --quotas "
                   "or --endpoint only.")
@click.option("--strict", is_flag=True,
              help="An unknown quota blocks a surge. With --quotas or --endpoint only.")
@cluster_options
@accept_option
@common_options
def advise(groups: tuple[str, ...], quotas_file: str | None, cloud_id: str | None,
           min_available: MinAvailable | None, nodes: int | None,
           cycle_minutes: float | None, max_parallel: int, at_current_size: bool,
           strict: bool, cluster_files: tuple[str, ...], kubeconfig: str | None,
           kube_context: str | None, accept: tuple[str, ...]) -> None:
    """Find the fastest safe deploy policy of each node group, and a schedule.

    Every policy the platform accepts (max_expansion and max_unavailable 0..100, not both 0,
    clamped to the group) is judged on duration (cycles x minutes per cycle), cost (surge
    node-hours), the quota (one headroom per cloud, shared by its groups), and the nodes
    Ready at the worst moment. The answer: the Pareto front, the fastest policy that nothing
    blocks (ties to the cheaper), why each faster one is blocked, the `ngupgrade set-policy`
    command and the Terraform block that apply it; for several groups, which run together
    under the shared headroom and in what order (a cluster's groups one after another: the
    cloud runs one operation per cluster). With cluster objects (--cluster or
    --kubeconfig) each policy on the front is drain-checked too (docs/drain.md): a blocking
    finding rejects it, and the availability floor only forbids the whole group down;
    --accept CODE (after reading such a finding) lets a policy pass it, and the report
    names what was accepted.

    \b
    Examples:
      ngupgrade advise --quotas quotas.yaml
      ngupgrade advise -g workers --quotas quotas.yaml --min-available 90% -o json
      ngupgrade advise --endpoint api.cloud.yandex.net:443     # live quotas and history
      ngupgrade advise --quotas quotas.yaml --cluster cluster.json   # + the drain check

    \b
    Exit codes:
      0  a safe policy exists for every group
      1  some group has none (the report names what blocks it); or a group's resources
         cannot be placed on quota ids
      2  usage error      3  bad state or quota file      4  cloud API error
    Nothing is changed.
    """
    # here, not at the top: `ngupgrade advise --help` loads none of it
    from ngupgrade.app.advise import AdviseRequest, advice_failure
    from ngupgrade.app.advise import advise as advise_use_case
    from ngupgrade.cli.render.advise import advise_json, advise_text

    settings = settings_of(click.get_current_context())
    accepted = accepted_codes(accept)
    stdin_once(settings, cluster=cluster_files)
    if quotas_file is None and not settings.endpoint:
        idle = [flag for flag, given in (("--strict", strict),
                                         ("--at-current-size", at_current_size),
                                         ("--cloud-id", cloud_id is not None)) if given]
        if idle:
            raise UsageError(f"{', '.join(idle)} judge the quota, which is not checked without "
                             "--quotas FILE or --endpoint",
                             hint="add --quotas FILE (offline) or --endpoint (live)")
    note_unused(settings, connects=quotas_file is None and bool(settings.endpoint),
                offline="with --quotas the limits come from the file, no API call is made"
                if quotas_file is not None else "`advise` reads the cloud only with --endpoint")
    request = AdviseRequest(selectors=groups, quotas_file=quotas_file, cloud_id=cloud_id,
                            at_current_size=at_current_size, strict=strict,
                            min_available=min_available, nodes=nodes,
                            minutes_per_cycle=cycle_minutes, max_parallel=max_parallel,
                            live=quotas_file is None and bool(settings.endpoint),
                            cluster=cluster_source(cluster_files, kubeconfig, kube_context),
                            accept=accepted)
    result = advise_use_case(settings, request)
    if settings.output == "json":
        document = advise_json(result)
        state_notes([g.group for g in result.groups], document)
        emit_json(document)
    else:
        echo_report(advise_text(result), nl=False)
        state_notes([g.group for g in result.groups])
    failure = advice_failure(result)
    if failure is not None:
        raise failure
