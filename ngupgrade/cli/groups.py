"""``ngupgrade groups``: list the node groups a Terraform state holds."""

from __future__ import annotations

import click

from ngupgrade.cli._common import (
    common_options,
    emit_json,
    group_option,
    print_table,
    settings_of,
    state_notes,
)
from ngupgrade.cli._flags import note_unused


@click.command()
@group_option
@common_options
def groups(groups: tuple[str, ...]) -> None:
    """List node groups in the Terraform state: deploy policy, scale policy, node shape.

    \b
    Examples:
      ngupgrade groups --state terraform.tfstate
      terraform state pull | ngupgrade groups --state -
      ngupgrade groups --state tf:infra/k8s --terraform-bin tofu
      ngupgrade groups --state s3://tf-states/k8s/terraform.tfstate --workspace prod
      ngupgrade groups -g 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]' -o json

    An unset deploy_policy is shown as unset, with the provider default 3/0 assumed,
    never as 0/0.

    \b
    Exit codes: 0 listed (also when the state holds no node group); 1 --group on a state
    that holds no node group; 2 usage error (e.g. a --group that matches nothing); 3 bad
    state (unreadable, not JSON, unsupported version, or a plan, cluster dump or quota file
    given as the state: the message names the flag that takes it).
    """
    # here, not at the top: `ngupgrade groups --help` loads none of it
    from ngupgrade.app.load import load_groups
    from ngupgrade.cli.render.groups import GROUP_COLUMNS, group_row, groups_json

    settings = settings_of(click.get_current_context())
    note_unused(settings, connects=False, offline="`groups` reads only the Terraform state")
    found = load_groups(settings, groups)
    if settings.output == "json":
        document = groups_json(found)
        state_notes(found, document)
        emit_json(document)
        return
    state_notes(found)
    if not found:
        click.echo("no yandex_kubernetes_node_group resources in this state")
        return
    print_table(GROUP_COLUMNS, [group_row(g) for g in found], whole=("address", "name", "id"))
