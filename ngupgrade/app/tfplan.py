"""Use cases of ``--plan``: what a saved Terraform plan does to the node groups.

:func:`load_plan` reads and classifies the plan once (any command that takes ``--plan`` starts
here); :func:`plan_rolls` plans each roll with the planned values; :func:`preflight_plan`
checks the quotas of every change that needs nodes. The rules are in
:mod:`ngupgrade.core.change` and :mod:`ngupgrade.core.quota.tfplan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ngupgrade.adapters.state.tfplan import ClusterChange, parse_plan
from ngupgrade.adapters.state.tfplan_source import read_plan_bytes
from ngupgrade.app.load import other_input, select_groups
from ngupgrade.app.quota_check import PreflightRequest, QuotaSource, run_preflight
from ngupgrade.app.settings import Settings
from ngupgrade.app.upgrade_plan import UpgradePlanRequest, plan_node_groups
from ngupgrade.core.change import GroupChange, PlanVerdict, classify_plan
from ngupgrade.core.errors import BadInput, UsageError
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.quota.demand import GroupDemand
from ngupgrade.core.quota.preflight import Preflight
from ngupgrade.core.quota.tfplan import change_demand
from ngupgrade.core.simulate import GroupPlan

NEEDS_NODES = ("roll", "resize", "create", "replace")
"""Change kinds that may need nodes on top of today's usage (quota-checked)."""


@dataclass(frozen=True)
class TfPlanGate:
    """A classified plan: every selected group's change, the clusters, where it came from;
    ``peers``: every node group of the plan, selected or not (planned values, or the prior
    ones of a group the apply deletes; then the prior state's groups the plan does not list),
    whose clusters' ``clusterNodes`` limit counts the groups not checked at their size, as
    ``ngupgrade preflight`` counts the state's groups."""

    verdict: PlanVerdict
    clusters: tuple[ClusterChange, ...]
    source: str
    terraform_version: str | None
    peers: tuple[NodeGroup, ...] = ()

    @property
    def changes(self) -> tuple[GroupChange, ...]:
        return self.verdict.changes

    def rolls(self) -> tuple[GroupChange, ...]:
        """The groups whose nodes are recreated under their deploy policy (for drain checks)."""
        return self.verdict.of_kind("roll")


def load_plan(settings: Settings, selectors: Sequence[str] = (), *,
              sequential: bool = False) -> TfPlanGate:
    """Read ``settings.plan``, keep the selected groups, classify each change.

    Raises:
        UsageError: ``--state`` given with ``--plan`` (the plan carries its prior state), or a
            selector that names no group of the plan.
        BadInput: the plan cannot be read or understood (exit 3).
    """
    if settings.plan is None:
        raise UsageError("no --plan given")
    if "state" in settings.explicit:
        raise UsageError("--state and --plan together: the plan carries the state it was made "
                         "from (prior_state)", hint="drop --state")
    data, label = read_plan_bytes(settings.plan, settings.terraform_bin)
    try:
        parsed = parse_plan(data, label)
    except BadInput as err:  # a state, kubectl objects or a quota file, in JSON or YAML
        other = other_input(data, label, "--plan")
        if other is None:
            raise
        raise other from err
    by_address = {str(c.address): c for c in parsed.changes}
    groups = [g for g in (c.after or c.before for c in parsed.changes) if g is not None]
    chosen = select_groups(groups, selectors)
    picked = [by_address[str(g.address)] for g in chosen]
    verdict = classify_plan(picked, sequential=sequential)
    listed = set(by_address)
    peers = (*groups, *(g for g in parsed.prior_groups if str(g.address) not in listed))
    return TfPlanGate(verdict, parsed.clusters, label, parsed.terraform_version, peers)


def plan_rolls(gate: TfPlanGate, request: UpgradePlanRequest) -> list[GroupPlan | None]:
    """One plan per change, in order: a roll is planned with its planned values (``after``)
    and the deploy policy in force during the roll; any other change has no roll (None).

    Raises:
        PolicyInvalid: an override or a planned policy is invalid (exit 1).
    """
    rolls = [c.group for c in gate.changes if c.kind == "roll"]
    # the groups' policies are the plan's planned values (``after``), named so (an unknown
    # knob is at its worst case there, which the findings name)
    planned = iter(plan_node_groups(rolls, replace(request, declared="plan")))
    return [next(planned) if c.kind == "roll" else None for c in gate.changes]


def preflight_plan(gate: TfPlanGate, quotas: QuotaSource, request: PreflightRequest,
                   **live: Any) -> Preflight:
    """The quota preflight of every change that needs nodes (``roll``, ``resize``, ``create``,
    ``replace``), together by default
    (iits-consulting/terraform-opentelekomcloud-project-factory#62), the plan's other groups
    (``gate.peers``) counted in their cluster's node limit. ``live`` passes the live sources of
    :func:`ngupgrade.app.quota_check.run_preflight` (``directory``, ``nodes``, ``live_groups``).

    Raises: as :func:`ngupgrade.app.quota_check.run_preflight`.
    """
    busy = [c for c in gate.changes if c.kind in NEEDS_NODES]
    if not busy:
        return Preflight(clouds=(), groups=(), suggestions=(), warnings=(),
                               sequential=request.sequential, strict=request.strict,
                               at_current_size=request.at_current_size)
    by_address = {str(c.address): c for c in busy}

    def build(group: NodeGroup, cloud_id: str, current: int | None,
              per_node: Any, live_policy: DeployPolicy | None) -> GroupDemand:
        return change_demand(by_address[str(group.address)], cloud_id, current, per_node,
                             live_policy)

    return run_preflight([c.group for c in busy], quotas, request, build_demand=build,
                         peers=gate.peers, **live)
