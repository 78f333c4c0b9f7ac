"""Deploy-policy rules: validation, the provider default, clamping, resolution and warnings.

Pure: no I/O, no clock. Every rule names its source:

* seed 000 (Yandex ``deploy-policy.md``): ``max_expansion`` and ``max_unavailable`` are
  integers 0..100, not both 0; server-side default ``3/0``;
* seed 001 (another provider; used only where seed 000 is silent): values are clamped to the
  group size at the start of the upgrade; surge nodes are not counted against the autoscaler
  max; ``max_unavailable`` at or above the autoscaler min can take the whole group down;
* field reports C04 (clamp direction), C05 (0/0 and unset read as 0/0), C12 (a long upgrade
  outlives Terraform's 60-minute update timeout);
* reference facts: ``managed-kubernetes.groupNodes.count`` (200 nodes per group by default),
  the provider's ``yandexKubernetesNodeGroupUpdateTimeout`` (60 minutes).

Warning codes are stable (scripts match on them); messages may change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from ngupgrade.core.errors import PolicyInvalid
from ngupgrade.core.model import PROVIDER_DEFAULT_POLICY, AutoScale, DeployPolicy, ScalePolicy

POLICY_MIN = 0
POLICY_MAX = 100
"""Range of each knob (seed 000; proto ``value: "0-100"``)."""

BOTH_ZERO_MESSAGE = "at least one of max_expansion / max_unavailable must be > 0"
"""The one message for 0/0 (field report C05 A); tests and scripts match it."""

GROUP_NODE_LIMIT = 200
"""Default of the ``managed-kubernetes.groupNodes.count`` quota: nodes in one group."""

GROUP_NODE_LIMIT_QUOTA_ID = "managed-kubernetes.groupNodes.count"

TERRAFORM_UPDATE_TIMEOUT_MINUTES = 60
"""The provider's default ``yandex_kubernetes_node_group`` update timeout (C12)."""

TIMEOUT_BORDERLINE_FRACTION = 0.8
"""An estimate at or above this share of the timeout is borderline: estimates are rough."""

TIMEOUT_SUGGESTION_MARGIN = 1.2
"""``timeouts { update }`` is suggested as the upper estimate plus 20%, in whole hours."""

PolicySource = Literal["state", "default", "override", "live"]
"""Where a policy came from: the Terraform state, the provider default (assumed, the state
leaves it unset), a command-line override, or the live node group from the API."""

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

WARNING_CODES = (
    POLICY_ASSUMED, MAX_EXPANSION_CLAMPED, MAX_UNAVAILABLE_CLAMPED, WHOLE_GROUP_UNAVAILABLE,
    MAX_UNAVAILABLE_AT_AUTOSCALER_MIN, PEAK_ABOVE_AUTOSCALER_MAX, PEAK_ABOVE_GROUP_NODE_LIMIT,
    UPDATE_TIMEOUT_EXCEEDED, UPDATE_TIMEOUT_BORDERLINE, NODES_OUTSIDE_AUTOSCALER_RANGE,
    NODES_OVERRIDE_UNUSED, EMPTY_GROUP, TAINTED_IN_STATE, FIXED_SIZE_DRIFT,
)
"""Every code this module can emit (documented in docs/upgrade-math.md)."""


@dataclass(frozen=True)
class PlanWarning:
    """Something a user must know before an upgrade: a stable ``code`` and a one-line message."""

    code: str
    message: str


@dataclass(frozen=True)
class ResolvedPolicy:
    """The deploy policy a plan uses, before clamping, and where it came from.

    ``assumed`` is True when the state leaves the policy unset and the provider default 3/0
    stands in for it (C05 D, C06): reported as assumed, never read as 0/0.
    """

    policy: DeployPolicy
    source: PolicySource
    assumed: bool = False


def _nodes(count: int) -> str:
    """``node is`` / ``nodes are`` for a count."""
    return "node is" if count == 1 else "nodes are"


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate(policy: DeployPolicy, *, subject: str | None = None) -> None:
    """Check a deploy policy the way the API would, before any API call.

    Rules (seed 000; field report C05): each knob an integer 0..100; not both 0.
    Values above the group size are valid (the service clamps them; C04 C).

    Args:
        policy: the policy as configured (state, override or live).
        subject: what the policy belongs to (a Terraform address); prefixes the message.

    Raises:
        PolicyInvalid: naming each bad knob and its value, or the both-zero rule.
    """
    problems: list[str] = []
    for knob in ("max_expansion", "max_unavailable"):
        value = getattr(policy, knob)
        if not _is_int(value):
            problems.append(f"{knob} must be an integer, got {value!r}")
        elif not POLICY_MIN <= value <= POLICY_MAX:
            problems.append(
                f"{knob} {value} is out of range {POLICY_MIN}..{POLICY_MAX}"
            )
    if not problems and policy.max_expansion == 0 and policy.max_unavailable == 0:
        problems.append(BOTH_ZERO_MESSAGE)
    if problems:
        prefix = f"{subject}: deploy policy: " if subject else "deploy policy: "
        raise PolicyInvalid(
            prefix + "; ".join(problems),
            hint="max_expansion and max_unavailable are integers 0..100, at least one > 0 "
                 "(Yandex default: max_expansion=3, max_unavailable=0)",
        )


def check_overrides(max_expansion: int | None, max_unavailable: int | None) -> None:
    """Check ``--max-expansion`` / ``--max-unavailable`` before any state or API is read.

    Each given value must be an integer 0..100; both given as 0 is the 0/0 policy (C05 A).
    A single override is checked again with the other knob once a group resolves it.

    Raises:
        PolicyInvalid: naming the flag value that breaks the rule.
    """
    problems: list[str] = []
    for knob, value in (("max_expansion", max_expansion), ("max_unavailable", max_unavailable)):
        if value is None:
            continue
        if not _is_int(value):
            problems.append(f"{knob} must be an integer, got {value!r}")
        elif not POLICY_MIN <= value <= POLICY_MAX:
            problems.append(f"{knob} {value} is out of range {POLICY_MIN}..{POLICY_MAX}")
    if not problems and max_expansion == 0 and max_unavailable == 0:
        problems.append(BOTH_ZERO_MESSAGE)
    if problems:
        raise PolicyInvalid(
            "command-line deploy policy: " + "; ".join(problems),
            hint="--max-expansion and --max-unavailable take integers 0..100, at least one > 0",
        )


def clamp(policy: DeployPolicy, nodes: int) -> DeployPolicy:
    """The effective policy for a group of ``nodes`` nodes: ``min(E, N)``, ``min(U, N)``.

    The clamp lowers a value above the group size, never raises one below it (C04: the
    direction is easy to invert). Seed 001 says the service clamps to the size at the start.
    A group of 0 nodes gives 0/0: nothing to do, not an invalid policy.
    """
    if nodes < 0:
        raise ValueError(f"node count must be >= 0, got {nodes}")
    return DeployPolicy(
        max_expansion=min(policy.max_expansion, nodes),
        max_unavailable=min(policy.max_unavailable, nodes),
    )


def default_policy() -> ResolvedPolicy:
    """The provider default 3/0, marked assumed (seed 000; C05 D)."""
    return ResolvedPolicy(PROVIDER_DEFAULT_POLICY, "default", assumed=True)


def in_force(policy: DeployPolicy | None) -> DeployPolicy:
    """The deploy policy a group runs with: an unset one is the server default 3/0 (seed 000;
    an API answer or a state without ``deploy_policy``), never 0/0 (C05)."""
    return policy or PROVIDER_DEFAULT_POLICY


def resolve(
    state: DeployPolicy | None,
    *,
    live: DeployPolicy | None = None,
    max_expansion: int | None = None,
    max_unavailable: int | None = None,
) -> ResolvedPolicy:
    """Pick the deploy policy to plan with, and say where it came from.

    Precedence per knob: a command-line override, else the live group (API), else the state,
    else the provider default 3/0 (assumed). The source is ``override`` when any knob was
    overridden, otherwise that of the base policy. Not validated here: call :func:`validate`.
    """
    if live is not None:
        base = ResolvedPolicy(live, "live")
    elif state is not None:
        base = ResolvedPolicy(state, "state")
    else:
        base = default_policy()
    if max_expansion is None and max_unavailable is None:
        return base
    policy = DeployPolicy(
        max_expansion=base.policy.max_expansion if max_expansion is None else max_expansion,
        max_unavailable=base.policy.max_unavailable if max_unavailable is None
        else max_unavailable,
    )
    # A half override on top of an unset policy still leans on the assumed default.
    half = max_expansion is None or max_unavailable is None
    return ResolvedPolicy(policy, "override", assumed=base.assumed and half)


def policy_warnings(
    resolved: ResolvedPolicy, effective: DeployPolicy, nodes: int, scale: ScalePolicy,
) -> list[PlanWarning]:
    """Warnings about the policy itself for a group of ``nodes`` nodes at the start.

    Codes: ``policy-assumed`` (C05 D), ``max-expansion-clamped`` / ``max-unavailable-clamped``
    with both numbers (C04 A), ``whole-group-unavailable`` when ``U' == N`` (C04 C; seed 001
    examples 2 and 3), ``max-unavailable-at-autoscaler-min`` when ``U >= min`` (seed 001
    example 2), ``peak-above-autoscaler-max`` when ``E' > max - N`` (seed 001: surge nodes are
    not counted against the autoscaler max), ``empty-group`` when ``N == 0``.
    """
    out: list[PlanWarning] = []
    configured = resolved.policy
    if resolved.assumed:
        out.append(PlanWarning(
            POLICY_ASSUMED,
            "deploy_policy is not set in the state; assuming the Yandex default "
            f"max_expansion={PROVIDER_DEFAULT_POLICY.max_expansion}, "
            f"max_unavailable={PROVIDER_DEFAULT_POLICY.max_unavailable} "
            "(set deploy_policy in Terraform to make it explicit)",
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
            f"; the {effective.max_expansion} surge nodes may not be Ready yet"
            if effective.max_expansion else ""
        )
        out.append(PlanWarning(
            WHOLE_GROUP_UNAVAILABLE,
            f"max_unavailable {effective.max_unavailable} equals the group size {nodes}: "
            f"the whole group is drained at once{surge_note}, so its pods may have nowhere "
            "to run (set max_unavailable below the group size)",
        ))
    if isinstance(scale, AutoScale):
        out.extend(_autoscale_warnings(configured, effective, nodes, scale))
    return out


def _autoscale_warnings(
    configured: DeployPolicy, effective: DeployPolicy, nodes: int, scale: AutoScale,
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
        out.append(PlanWarning(
            PEAK_ABOVE_AUTOSCALER_MAX,
            f"max_expansion {effective.max_expansion} is above max - current = "
            f"{scale.max} - {nodes} = {scale.max - nodes}: the group reaches {peak} nodes, "
            f"above the autoscaler max {scale.max} (surge nodes are not counted against it; "
            f"worst case {scale.max + min(configured.max_expansion, scale.max)} nodes)",
        ))
    if not scale.min <= nodes <= scale.max:
        out.append(PlanWarning(
            NODES_OUTSIDE_AUTOSCALER_RANGE,
            f"{nodes} nodes is outside the autoscaler range {scale.min}..{scale.max}",
        ))
    return out


def peak_warnings(
    peak_nodes: int, *, limit: int = GROUP_NODE_LIMIT, worst_case_peak: int | None = None,
) -> list[PlanWarning]:
    """``peak-above-group-node-limit`` when the peak exceeds the per-group node limit.

    ``limit`` is the ``managed-kubernetes.groupNodes.count`` quota (200 by default);
    ``worst_case_peak`` is the peak of an autoscaled group grown to its max, when larger.
    """
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


def suggested_update_timeout(max_minutes: float) -> str:
    """A ``timeouts { update }`` value: the upper estimate plus 20%, rounded up to hours."""
    hours = max(1, math.ceil(max_minutes * TIMEOUT_SUGGESTION_MARGIN / 60))
    return f"{hours}h"


def duration_warnings(
    max_minutes: float, *, timeout_minutes: int = TERRAFORM_UPDATE_TIMEOUT_MINUTES,
) -> list[PlanWarning]:
    """Warn when the upper duration estimate reaches Terraform's update timeout (C12).

    Above the timeout: ``terraform-update-timeout-exceeded``; from 80% of it up to it:
    ``terraform-update-timeout-borderline``. Both name ``timeouts { update = "..." }``.
    """
    def fmt(minutes: float) -> str:
        return f"{minutes:g}"

    setting = f'timeouts {{ update = "{suggested_update_timeout(max_minutes)}" }}'
    if max_minutes > timeout_minutes:
        return [PlanWarning(
            UPDATE_TIMEOUT_EXCEEDED,
            f"the upgrade may take up to {fmt(max_minutes)} min, longer than the "
            f"{timeout_minutes} min update timeout of yandex_kubernetes_node_group: a "
            f"Terraform-driven update would time out while the cloud keeps upgrading; set "
            f"{setting} on the node group, or run the upgrade with `ngupgrade upgrade` "
            "(it resumes)",
        )]
    if max_minutes >= timeout_minutes * TIMEOUT_BORDERLINE_FRACTION:
        return [PlanWarning(
            UPDATE_TIMEOUT_BORDERLINE,
            f"the upgrade may take up to {fmt(max_minutes)} min, close to the "
            f"{timeout_minutes} min update timeout of yandex_kubernetes_node_group; consider "
            f"{setting} on the node group",
        )]
    return []
