"""Use case ``plan``: what will an upgrade do to each selected node group?

Reads the state (through :func:`ngupgrade.app.load.load_groups`), validates every deploy
policy before anything else, and plans each group with the pure core
(:func:`ngupgrade.core.simulate.plan_group`). No cloud call yet: live sizes and live policies come
in through ``live_sizes`` / ``live_policies`` (keyed by node-group id), the seam where the cloud
gateway plugs in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ngupgrade.app.load import forced_platform, load_groups, selection_platform
from ngupgrade.app.settings import Settings
from ngupgrade.core import platform as plat
from ngupgrade.core.errors import UsageError
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.policy import PolicySource, ResolvedPolicy, check_overrides
from ngupgrade.core.simulate import (
    DEFAULT_MINUTES_PER_CYCLE,
    GroupPlan,
    plan_group,
    resolve_group_policy,
)


@dataclass(frozen=True)
class UpgradePlanRequest:
    """What the user asked ``plan`` for.

    ``selectors``: Terraform addresses, names or ids (empty: every group).
    ``max_expansion`` / ``max_unavailable``: overrides, to compare policies without editing
    Terraform. ``nodes``: ``N`` for autoscaled groups whose live size is unknown.
    ``minutes_per_cycle``: the time one cycle takes (default 6,
    terraform-google-modules/terraform-google-kubernetes-engine#939). ``group_node_limit`` /
    ``update_timeout_minutes``: None means each group's platform's. ``method``: the in-place method
    of the groups (Selectel: ``reboot`` or ``reinstall``, not in the state); None leaves it unknown,
    and the plan's data notes say so. ``declared``: what the groups' own policy is (``state``, or
    ``plan`` for a Terraform plan's planned values); ``policies``: by Terraform address, a policy
    already decided with its source (the upgrade gate's: the override, the advised stage's or the
    live one), planned as it is. Both name the source once, in
    :func:`ngupgrade.core.policy.resolve`.
    """

    selectors: tuple[str, ...] = ()
    max_expansion: int | None = None
    max_unavailable: int | None = None
    nodes: int | None = None
    minutes_per_cycle: float = DEFAULT_MINUTES_PER_CYCLE
    group_node_limit: int | None = None
    update_timeout_minutes: int | None = None
    method: str | None = None
    declared: PolicySource = "state"
    policies: Mapping[str, ResolvedPolicy] = field(default_factory=dict)


def plan_node_groups(
    groups: Sequence[NodeGroup],
    request: UpgradePlanRequest,
    *,
    live_sizes: Mapping[str, int] | None = None,
    live_policies: Mapping[str, DeployPolicy] | None = None,
) -> list[GroupPlan]:
    """Plan each group, in order.

    Every group's resolved policy is validated first, so one invalid policy fails the whole
    command before any plan is made (and, once live data is fetched, before any API call).

    Raises:
        PolicyInvalid: an override or a group's policy is invalid (exit 1).
        UsageError: ``request.method`` is not one of a group's platform's methods.
    """
    check_overrides(request.max_expansion, request.max_unavailable, selection_platform(groups))
    sizes = live_sizes or {}
    policies = live_policies or {}
    for group in groups:
        resolve_group_policy(group, live_policy=policies.get(group.id),
                             max_expansion=request.max_expansion,
                             max_unavailable=request.max_unavailable,
                             decided=request.policies.get(str(group.address)))
    return [
        plan_group(
            group,
            live_size=sizes.get(group.id),
            live_policy=policies.get(group.id),
            nodes_override=request.nodes,
            max_expansion=request.max_expansion,
            max_unavailable=request.max_unavailable,
            minutes_per_cycle=request.minutes_per_cycle,
            group_node_limit=request.group_node_limit,
            update_timeout_minutes=request.update_timeout_minutes,
            method=_method(group, request.method),
            declared=request.declared,
            decided=request.policies.get(str(group.address)),
        )
        for group in groups
    ]


def _method(group: NodeGroup, name: str | None) -> plat.InPlaceMethod | None:
    if name is None:
        return None
    platform = plat.platform_of(group)
    try:
        return platform.method(name)
    except ValueError as err:
        raise UsageError(f"--method {name}: {group.address} is on {platform.title}, which "
                         f"updates nodes in place by "
                         f"{' or '.join(m.name for m in platform.in_place_methods)}") from err


def plan(
    settings: Settings,
    request: UpgradePlanRequest,
    *,
    live_sizes: Mapping[str, int] | None = None,
    live_policies: Mapping[str, DeployPolicy] | None = None,
    live: bool = False,
) -> list[GroupPlan]:
    """Load the selected node groups from the state (once) and plan them.

    Overrides are checked before the state is read. With ``live``, the node count and deploy
    policy of each group come from the cloud API (``settings.endpoint``), read after the
    state so that stdin or a remote state is fetched only once.

    Raises:
        PolicyInvalid: an invalid override or policy in the state (exit 1).
        BadInput: the state cannot be read or understood (exit 3).
        UsageError: a selector names no group (exit 2).
    """
    check_overrides(request.max_expansion, request.max_unavailable, forced_platform(settings))
    groups = load_groups(settings, request.selectors)
    if live:
        from ngupgrade.app.cloud import live_facts  # the SDK only when the cloud is asked

        # Only Yandex groups have a live API here; Selectel's are planned from the state.
        facts = live_facts(settings, [g.id for g in groups if g.platform == "yandex"])
        live_sizes, live_policies = facts.sizes, facts.policies
    return plan_node_groups(groups, request, live_sizes=live_sizes,
                            live_policies=live_policies)
