"""Use-case helpers shared by the commands that talk to a cloud: open the gateway, find a group.

A group is named by Terraform address, name or id (README.md). With a state at hand
the selector is resolved there (so the Terraform address and the declared deploy policy are
known); without one, a node-group id (20 lowercase letters and digits) is used as is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ngupgrade.adapters.cloud.gateway import CloudGateway, open_gateway
from ngupgrade.app.settings import Settings
from ngupgrade.app.timing import Timing
from ngupgrade.core.errors import UsageError
from ngupgrade.core.model import DeployPolicy

_YC_ID = re.compile(r"^[a-z][a-z0-9]{19}$")


@dataclass(frozen=True)
class GroupTarget:
    """The node group a command acts on. ``address`` and ``state_policy`` are None without state;
    ``in_state`` says whether the group was found in a Terraform state."""

    id: str
    name: str
    address: str | None
    state_policy: DeployPolicy | None
    in_state: bool


def open_cloud(settings: Settings, timing: Timing | None = None) -> CloudGateway:
    """The gateway for this invocation; its retry backoff sleeps on ``timing`` (real time
    when None: read-only commands)."""
    t = timing or Timing()
    return open_gateway(settings, clock=t.clock, sleep=t.sleep)


def resolve_group(settings: Settings, selector: str, command: str = "this command"
                  ) -> GroupTarget:
    """Find the one node group ``selector`` names.

    The selection rule is :func:`ngupgrade.app.load.select_groups` (one for every command);
    a selector that looks like a node-group id and matches nothing in the state (or with no
    state at all) is used as that id.

    Raises:
        UsageError: nothing or several groups match (and the selector is no id), or the
            group is on a platform ngupgrade does not change (Selectel).
        BadInput: the state cannot be read.
    """
    from ngupgrade.app.load import load_state, match_groups, refuse_changes, select_groups

    try:
        known = load_state(settings).groups
    except UsageError:
        if not _YC_ID.match(selector):
            raise
        known = ()  # no state given and none here: an id still names a group
    if _YC_ID.match(selector) and not match_groups(known, selector):
        refuse_changes([], command, settings)
        return GroupTarget(selector, selector, None, None, in_state=False)
    groups = select_groups(known, [selector])
    refuse_changes(groups, command, settings)
    g = groups[0]
    return GroupTarget(g.id, g.name, str(g.address), g.policy, in_state=True)


@dataclass(frozen=True)
class LiveFacts:
    """What the cloud says now about some node groups, keyed by node-group id.

    ``sizes``: the live node count (``ListNodes``); ``policies``: the live deploy policy
    (``NodeGroupService.Get``; a group whose API answer has no policy is left out, so the
    state's value or the assumed default 3/0 stays in force).
    """

    sizes: dict[str, int]
    policies: dict[str, DeployPolicy]


def live_facts(settings: Settings, group_ids: Sequence[str]) -> LiveFacts:
    """Read the live size and deploy policy of each group (2 calls per group).

    Raises CloudApiError (exit 4): a plan from stale numbers is worse than none.
    """
    sizes: dict[str, int] = {}
    policies: dict[str, DeployPolicy] = {}
    with open_cloud(settings) as gw:
        for gid in group_ids:
            live = gw.get_node_group(gid)
            if live.policy is not None:
                policies[gid] = live.policy
            sizes[gid] = len(gw.list_nodes(gid))
    return LiveFacts(sizes, policies)
