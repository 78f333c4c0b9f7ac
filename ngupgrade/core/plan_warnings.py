"""Warnings a plan or a preflight carries: the one warning type, its stable codes, and the
checks of a deploy policy, a peak and a duration against the platform's limits. Pure.

The numbers are the :class:`~ngupgrade.core.platform.Platform`'s (``platform=``, Yandex when
not given). Sources:

* the Yandex Cloud docs page "Node group deploy policy" and the Selectel docs page "Стратегия
  обновления версии Kubernetes в группе нод Managed Kubernetes" (``docs/sources.md``): values
  are reduced to the group size at the start of the upgrade; surge nodes are not counted
  against the autoscaler max; ``max_unavailable`` at or above the autoscaler min can take the
  whole group down;
* public issues: the clamp's direction (MicrosoftDocs/azure-docs#90212), an unset policy
  (stackitcloud/terraform-provider-stackit#530), a long upgrade outliving the client's wait
  (terraform-google-modules/terraform-google-kubernetes-engine#939; here Terraform's
  60-minute update timeout);
* reference facts: ``managed-kubernetes.groupNodes.count`` (200 nodes per group by default),
  the provider's ``yandexKubernetesNodeGroupUpdateTimeout`` (60 minutes).

Warning codes are stable (scripts match on them); messages may change. The deploy-policy rules
themselves (validation, the default, clamping, resolution) are :mod:`ngupgrade.core.policy`'s.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from ngupgrade.core.model import AutoScale, DeployPolicy, PlacementGroup, ScalePolicy
from ngupgrade.core.platform import YANDEX, Platform
from ngupgrade.core.policy import ResolvedPolicy
from ngupgrade.core.units import counted

GROUP_NODE_LIMIT_QUOTA_ID = "managed-kubernetes.groupNodes.count"

TIMEOUT_BORDERLINE_FRACTION = 0.8
"""An estimate at or above this share of the timeout is borderline: estimates are rough."""

TIMEOUT_SUGGESTION_MARGIN = 1.2
"""``timeouts { update }`` is suggested as the upper estimate plus 20%, in whole hours."""

# Stable warning codes.
POLICY_ASSUMED = "policy-assumed"
MAX_EXPANSION_CLAMPED = "max-expansion-clamped"
MAX_UNAVAILABLE_CLAMPED = "max-unavailable-clamped"
WHOLE_GROUP_UNAVAILABLE = "whole-group-unavailable"
MAX_UNAVAILABLE_AT_AUTOSCALER_MIN = "max-unavailable-at-autoscaler-min"
PEAK_ABOVE_AUTOSCALER_MAX = "peak-above-autoscaler-max"
PEAK_ABOVE_GROUP_NODE_LIMIT = "peak-above-group-node-limit"
UPDATE_TIMEOUT_EXCEEDED = "terraform-update-timeout-exceeded"
UPDATE_TIMEOUT_BORDERLINE = "terraform-update-timeout-borderline"
NODES_OUTSIDE_AUTOSCALER_RANGE = "nodes-outside-autoscaler-range"
NODES_OVERRIDE_UNUSED = "nodes-override-unused"
EMPTY_GROUP = "empty-group"
TAINTED_IN_STATE = "tainted-in-state"
FIXED_SIZE_DRIFT = "fixed-size-drift"
PLACEMENT_FULL = "spread-placement-group-full"

WARNING_CODES = (
    POLICY_ASSUMED, MAX_EXPANSION_CLAMPED, MAX_UNAVAILABLE_CLAMPED, WHOLE_GROUP_UNAVAILABLE,
    MAX_UNAVAILABLE_AT_AUTOSCALER_MIN, PEAK_ABOVE_AUTOSCALER_MAX, PEAK_ABOVE_GROUP_NODE_LIMIT,
    UPDATE_TIMEOUT_EXCEEDED, UPDATE_TIMEOUT_BORDERLINE, NODES_OUTSIDE_AUTOSCALER_RANGE,
    NODES_OVERRIDE_UNUSED, EMPTY_GROUP, TAINTED_IN_STATE, FIXED_SIZE_DRIFT, PLACEMENT_FULL,
)
"""Every stable warning code, wherever it is emitted (documented in docs/upgrade-math.md)."""

INFORMATIONAL = frozenset({MAX_EXPANSION_CLAMPED, MAX_UNAVAILABLE_CLAMPED,
                           NODES_OVERRIDE_UNUSED, EMPTY_GROUP})
"""The codes that only inform: the plan already holds what they say and nothing is to be done
(the service reduces ``E``/``U`` above the group size to it at the start, Yandex Cloud docs
"Node group deploy policy"; ``--nodes`` was not needed; an empty group replaces nothing).
``plan --strict`` does not fail on them; a whole group drained at once, by a clamp or not, is
``whole-group-unavailable``, which is no such code."""


HARD_LIMITS = frozenset({PEAK_ABOVE_GROUP_NODE_LIMIT, PLACEMENT_FULL})
"""The codes of a limit the cloud enforces, which the ``upgrade`` gate's quota preflight refuses
whatever the flags (docs/runbook.md, "Plan and gate"): the nodes of one group
(``managed-kubernetes.groupNodes.count``, Yandex docs, Managed Service for Kubernetes "Quotas
and limits") and the VMs of a spread placement group (5; Yandex Compute Cloud docs, "Quotas and
limits"). ``plan --accept`` refuses them (a usage error): a plan that passes on them would be a
green gate for an upgrade that cannot run."""


def strict_failures(warnings: Iterable[PlanWarning], accepted: Iterable[str] = ()
                    ) -> list[PlanWarning]:
    """The warnings that fail ``plan --strict``: every one whose code is neither
    :data:`INFORMATIONAL` nor ``accepted`` (``--accept CODE``: the user has read it), in
    order. The one rule of the strict gate."""
    passed = INFORMATIONAL | frozenset(accepted)
    return [w for w in warnings if w.code not in passed]


@dataclass(frozen=True)
class PlanWarning:
    """Something a user must know before an upgrade: a stable ``code`` and a one-line message.

    The one warning type of every report (``plan``, ``preflight``). ``group``: the address
    of the node group it is about, when the producer knows one (the ``upgrade`` gate sends such
    a warning as its own ``warning`` event; reports render ``code`` and ``message`` only)."""

    code: str
    message: str
    group: str | None = None


def _nodes(count: int) -> str:
    """``node is`` / ``nodes are`` for a count."""
    return "node is" if count == 1 else "nodes are"


def policy_warnings(
    resolved: ResolvedPolicy, effective: DeployPolicy, nodes: int, scale: ScalePolicy,
    platform: Platform = YANDEX,
) -> list[PlanWarning]:
    """Warnings about the policy itself for a group of ``nodes`` nodes at the start.

    Codes: ``policy-assumed``, ``max-expansion-clamped`` / ``max-unavailable-clamped`` with
    both numbers, ``whole-group-unavailable`` when ``U' == N`` (the Selectel strategy page's
    autoscaling examples 2 and 3), ``max-unavailable-at-autoscaler-min`` when ``U >= min``
    (its example 2), ``peak-above-autoscaler-max`` when ``E' > max - N`` (same section:
    surge nodes are not counted against the autoscaler max), ``empty-group`` when ``N == 0``.
    """
    out: list[PlanWarning] = []
    configured = resolved.policy
    if resolved.assumed:
        default = platform.default_policy
        out.append(PlanWarning(
            POLICY_ASSUMED,
            f"{platform.policy_noun} is not set in the state; assuming the {platform.vendor} "
            f"default max_expansion={default.max_expansion}, "
            f"max_unavailable={default.max_unavailable} ({platform.unset_hint})",
        ))
    if nodes == 0:
        out.append(PlanWarning(
            EMPTY_GROUP, "the group has 0 nodes: the upgrade replaces no node",
        ))
        return out
    if configured.max_expansion > effective.max_expansion:
        out.append(PlanWarning(
            MAX_EXPANSION_CLAMPED,
            f"max_expansion {configured.max_expansion} is above the group size {nodes}: "
            f"at most {effective.max_expansion} surge {_nodes(effective.max_expansion)} created",
        ))
    if configured.max_unavailable > effective.max_unavailable:
        out.append(PlanWarning(
            MAX_UNAVAILABLE_CLAMPED,
            f"max_unavailable {configured.max_unavailable} is above the group size {nodes}: "
            f"at most {effective.max_unavailable} {_nodes(effective.max_unavailable)} down at once",
        ))
    if effective.max_unavailable >= nodes:
        surge_note = (
            f"; the {counted(effective.max_expansion, 'surge node')} may not be Ready yet"
            if effective.max_expansion else ""
        )
        out.append(PlanWarning(
            WHOLE_GROUP_UNAVAILABLE,
            f"max_unavailable {effective.max_unavailable} equals the group size {nodes}: "
            f"the whole group is drained at once{surge_note}, so its pods may have nowhere "
            "to run (set max_unavailable below the group size)",
        ))
    if isinstance(scale, AutoScale):
        out.extend(_autoscale_warnings(configured, effective, nodes, scale, platform))
    return out


def _autoscale_warnings(
    configured: DeployPolicy, effective: DeployPolicy, nodes: int, scale: AutoScale,
    platform: Platform,
) -> list[PlanWarning]:
    out: list[PlanWarning] = []
    if configured.max_unavailable > 0 and configured.max_unavailable >= scale.min:
        advice = (
            "use max_unavailable=0 with max_expansion >= 1"
            if scale.min <= 1
            else f"set max_unavailable to at most {scale.min - 1}"
        )
        out.append(PlanWarning(
            MAX_UNAVAILABLE_AT_AUTOSCALER_MIN,
            f"max_unavailable {configured.max_unavailable} is at or above the autoscaler min "
            f"{scale.min}: if the group has shrunk to its min when the upgrade starts, every "
            f"node is drained at once ({advice})",
        ))
    peak = nodes + effective.max_expansion
    if peak > scale.max:
        # the worst case is never below what this plan itself reaches (N above the max)
        worst = max(peak, platform.worst_case_peak(configured, scale))
        tail = f"; worst case {worst} nodes" if worst > peak else ""
        if nodes <= scale.max:
            text = (f"max_expansion {effective.max_expansion} is above max - current = "
                    f"{scale.max} - {nodes} = {scale.max - nodes}: the group reaches {peak} "
                    f"nodes, above the autoscaler max {scale.max} (surge nodes are not "
                    f"counted against it{tail})")
        else:
            text = (f"{nodes} nodes are already above the autoscaler max {scale.max}; with "
                    f"max_expansion {effective.max_expansion} the group reaches {peak} nodes "
                    "(surge nodes are not counted against it)")
        out.append(PlanWarning(PEAK_ABOVE_AUTOSCALER_MAX, text))
    if not scale.min <= nodes <= scale.max:
        out.append(PlanWarning(
            NODES_OUTSIDE_AUTOSCALER_RANGE,
            f"{nodes} nodes is outside the autoscaler range {scale.min}..{scale.max}",
        ))
    return out


def peak_warnings(
    peak_nodes: int, *, limit: int | None = YANDEX.group_node_limit,
    worst_case_peak: int | None = None,
) -> list[PlanWarning]:
    """``peak-above-group-node-limit`` when the peak exceeds the per-group node limit.

    ``limit`` is the ``managed-kubernetes.groupNodes.count`` quota (Yandex: 200 by default),
    None when the platform documents none (then no warning); ``worst_case_peak`` is the peak
    of an autoscaled group grown to its max, when larger.
    """
    if limit is None:
        return []
    if peak_nodes > limit:
        return [PlanWarning(
            PEAK_ABOVE_GROUP_NODE_LIMIT,
            f"peak {peak_nodes} nodes is above the per-group node limit {limit} "
            f"({GROUP_NODE_LIMIT_QUOTA_ID}): the surge nodes cannot be created; "
            "lower max_expansion or raise the quota",
        )]
    if worst_case_peak is not None and worst_case_peak > limit:
        return [PlanWarning(
            PEAK_ABOVE_GROUP_NODE_LIMIT,
            f"if the autoscaler grows the group to its max first, the peak is "
            f"{worst_case_peak} nodes, above the per-group node limit {limit} "
            f"({GROUP_NODE_LIMIT_QUOTA_ID})",
        )]
    return []


SPREAD_PLACEMENT_MAX_VMS = 5
"""VMs in one spread placement group: Yandex Compute Cloud docs, "Quotas and limits", VM
limits, "Maximum number of VMs in a single placement group: 5"
(https://yandex.cloud/en/docs/compute/concepts/limits)."""


def spread_placement(placement: PlacementGroup | None) -> bool:
    """True when ``placement`` limits its VMs to :data:`SPREAD_PLACEMENT_MAX_VMS`: a spread
    placement group, or one whose strategy the state does not hold (spread assumed, the
    worst case); a partition placement group has no such limit."""
    return placement is not None and placement.strategy != "partition"


def placement_warning(placement: PlacementGroup | None, nodes: int, surge: int,
                      prefix: str = "") -> PlanWarning | None:
    """``spread-placement-group-full`` when ``nodes`` (the VMs of the group's placement group
    before the upgrade) plus ``surge`` (the extra nodes at its peak) exceed
    :data:`SPREAD_PLACEMENT_MAX_VMS`: the surge nodes cannot be placed. The one wording of
    that rule (``plan``, ``preflight``, ``advise``, the upgrade gate); ``prefix`` names the
    group where the report does not (``ADDRESS: ``). None when the peak fits."""
    if not spread_placement(placement) or nodes + surge <= SPREAD_PLACEMENT_MAX_VMS:
        return None
    assert placement is not None
    assumed = "" if placement.strategy else " (spread assumed: the state does not hold it)"
    room = max(0, SPREAD_PLACEMENT_MAX_VMS - nodes)
    return PlanWarning(
        PLACEMENT_FULL,
        f"{prefix}its nodes run in spread placement group {placement.id}{assumed}, "
        f"which holds at most {SPREAD_PLACEMENT_MAX_VMS} VMs; the upgrade's peak is "
        f"{nodes + surge} ({nodes} nodes + {surge} surge), so "
        + (f"at most {room} surge node(s) can be placed: max_expansion {room} or less"
           if nodes <= SPREAD_PLACEMENT_MAX_VMS else
           f"even its {nodes} nodes do not fit: use a partition placement group"))


def suggested_update_timeout(max_minutes: float) -> str:
    """A ``timeouts { update }`` value: the upper estimate plus 20%, rounded up to hours."""
    hours = max(1, math.ceil(max_minutes * TIMEOUT_SUGGESTION_MARGIN / 60))
    return f"{hours}h"


def duration_warnings(
    max_minutes: float, *, timeout_minutes: int | None = None, platform: Platform = YANDEX,
) -> list[PlanWarning]:
    """Warn when the upper duration estimate reaches Terraform's update timeout (a long
    upgrade outlives the client's wait:
    terraform-google-modules/terraform-google-kubernetes-engine#939).

    Above the timeout: ``terraform-update-timeout-exceeded``; from 80% of it up to it:
    ``terraform-update-timeout-borderline``. Both name ``timeouts { update = "..." }``.
    ``timeout_minutes`` defaults to the platform's (Yandex 60); a platform whose upgrades
    Terraform does not run (Selectel: cluster-level) gets none.
    """
    if timeout_minutes is None:
        timeout_minutes = platform.terraform_update_timeout_minutes
    if timeout_minutes is None:
        return []
    resource = platform.node_group_type
    def fmt(minutes: float) -> str:
        return f"{minutes:g}"

    setting = f'timeouts {{ update = "{suggested_update_timeout(max_minutes)}" }}'
    if max_minutes > timeout_minutes:
        return [PlanWarning(
            UPDATE_TIMEOUT_EXCEEDED,
            f"the upgrade may take up to {fmt(max_minutes)} min, longer than the "
            f"{timeout_minutes} min update timeout of {resource}: a "
            f"Terraform-driven update would time out while the cloud keeps upgrading; set "
            f"{setting} on the node group, or run the upgrade with `ngupgrade upgrade` "
            "(it resumes)",
        )]
    if max_minutes >= timeout_minutes * TIMEOUT_BORDERLINE_FRACTION:
        return [PlanWarning(
            UPDATE_TIMEOUT_BORDERLINE,
            f"the upgrade may take up to {fmt(max_minutes)} min, close to the "
            f"{timeout_minutes} min update timeout of {resource}; consider "
            f"{setting} on the node group",
        )]
    return []


