"""Deploy-policy rules: validation, the platform's default, clamping, resolution and warnings.

Pure: no I/O, no clock. The numbers that differ between platforms (bounds, default, node
limit, Terraform timeout) are the :class:`~ngupgrade.core.platform.Platform`'s; every function
takes one (``platform=``, Yandex when not given, so the Yandex rules read as before). Sources:

* seed 000 (Yandex ``deploy-policy.md``): ``max_expansion`` and ``max_unavailable`` are
  integers 0..100, not both 0; server-side default ``3/0``;
* seed 001 (Selectel's upgrade strategy): each 0..the node count (the autoscaler max when
  autoscaled), not both 0, default ``0/1``; values are reduced to the group size at the start
  of the upgrade; surge nodes are not counted against the autoscaler max;
  ``max_unavailable`` at or above the autoscaler min can take the whole group down;
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
from ngupgrade.core.model import AutoScale, DeployPolicy, ScalePolicy
from ngupgrade.core.platform import YANDEX, Platform

POLICY_MIN = 0
"""Lower bound of each knob on every platform (seed 000 L15, L20; seed 001 L30, L44)."""

BOTH_ZERO_MESSAGE = "at least one of max_expansion / max_unavailable must be > 0"
"""The one message for 0/0 (field report C05 A); tests and scripts match it."""

GROUP_NODE_LIMIT_QUOTA_ID = "managed-kubernetes.groupNodes.count"

TIMEOUT_BORDERLINE_FRACTION = 0.8
"""An estimate at or above this share of the timeout is borderline: estimates are rough."""

TIMEOUT_SUGGESTION_MARGIN = 1.2
"""``timeouts { update }`` is suggested as the upper estimate plus 20%, in whole hours."""

PolicySource = Literal["state", "default", "override", "live", "plan"]
"""Where a policy came from: the Terraform state, the platform default (assumed, the state
leaves it unset), a command-line override, the live node group from the API, or a Terraform
plan (the surge a roll is counted with when the same apply changes the policy)."""

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
    """Something a user must know before an upgrade: a stable ``code`` and a one-line message.

    The one warning type of every report (``plan``, ``preflight``). ``group``: the address
    of the node group it is about, when the producer knows one (the ``upgrade`` gate sends such
    a warning as its own ``warning`` event; reports render ``code`` and ``message`` only)."""

    code: str
    message: str
    group: str | None = None


@dataclass(frozen=True)
class ResolvedPolicy:
    """The deploy policy a plan uses, before clamping, and where it came from.

    ``assumed`` is True when the state leaves the policy unset and the platform's default
    (Yandex 3/0, Selectel 0/1) stands in for it (C05 D, C06): reported as assumed, never read
    as 0/0.
    """

    policy: DeployPolicy
    source: PolicySource
    assumed: bool = False


def policy_text(policy: DeployPolicy | None) -> str:
    """``2/1`` (max_expansion/max_unavailable), or ``unset``: the one way reports print E/U."""
    return "unset" if policy is None else f"{policy.max_expansion}/{policy.max_unavailable}"


def _nodes(count: int) -> str:
    """``node is`` / ``nodes are`` for a count."""
    return "node is" if count == 1 else "nodes are"


def _range_problems(values: tuple[tuple[str, object], ...], upper: int | None,
                    upper_why: str, *, none_given: bool = False) -> list[str]:
    """``knob must be an integer`` / ``knob V is out of range 0..MAX`` for each bad value.

    With ``none_given``, a None value is a flag not given (skipped), not a bad value.
    """
    problems: list[str] = []
    for knob, value in values:
        if value is None and none_given:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            problems.append(f"{knob} must be an integer, got {value!r}")
        elif upper is None and value < POLICY_MIN:  # the bound is the group's, not known yet
            problems.append(f"{knob} {value} must be >= {POLICY_MIN}")
        elif upper is not None and not POLICY_MIN <= value <= upper:
            problems.append(f"{knob} {value} is out of range {POLICY_MIN}..{upper}{upper_why}")
    return problems


def _bounds_hint(platform: Platform, flags: bool = False) -> str:
    names = ("--max-expansion and --max-unavailable take" if flags
             else "max_expansion and max_unavailable are")
    upper = (str(platform.knob_max) if platform.knob_max is not None
             else "the node count (the autoscaler max when autoscaled)")
    return (f"{names} integers {POLICY_MIN}..{upper}, at least one > 0 "
            f"({platform.vendor} default: max_expansion={platform.default_policy.max_expansion}, "
            f"max_unavailable={platform.default_policy.max_unavailable})")


def _upper(platform: Platform, scale: ScalePolicy | None) -> tuple[int | None, str]:
    """The upper bound of each knob and, when it is the group's, why (for the message)."""
    if platform.knob_max is not None:
        return platform.knob_max, ""
    if scale is None:
        return None, ""
    why = " (the autoscaler max)" if isinstance(scale, AutoScale) else " (the node count)"
    return platform.upper_bound(scale), why


def validate(policy: DeployPolicy, *, subject: str | None = None,
             platform: Platform = YANDEX, scale: ScalePolicy | None = None) -> None:
    """Check a deploy policy the way the platform would, before any API call.

    Rules: each knob an integer from 0 to the platform's bound (Yandex 100, seed 000;
    Selectel the group's node count or autoscaler max, seed 001 L30, L44: checked when
    ``scale`` is given); not both 0 (seed 000 L25; seed 001 L36, L48; field report C05).
    On Yandex, values above the group size are valid (the service clamps them; C04 C).

    Args:
        policy: the policy as configured (state, override or live).
        subject: what the policy belongs to (a Terraform address); prefixes the message.
        platform: whose bounds apply.
        scale: the group's scale policy (the bound of a platform without a fixed one).

    Raises:
        PolicyInvalid: naming each bad knob and its value, or the both-zero rule.
    """
    upper, why = _upper(platform, scale)
    problems = _range_problems((("max_expansion", policy.max_expansion),
                                ("max_unavailable", policy.max_unavailable)), upper, why)
    if not problems and policy.max_expansion == 0 and policy.max_unavailable == 0:
        problems.append(BOTH_ZERO_MESSAGE)
    if problems:
        prefix = f"{subject}: deploy policy: " if subject else "deploy policy: "
        raise PolicyInvalid(prefix + "; ".join(problems), hint=_bounds_hint(platform))


def check_overrides(max_expansion: int | None, max_unavailable: int | None,
                    platform: Platform = YANDEX) -> None:
    """Check ``--max-expansion`` / ``--max-unavailable`` before any state or API is read.

    Each given value must be an integer from 0 to the platform's fixed bound (Yandex 100;
    Selectel's bound is the group's, checked once a group resolves them); both given as 0 is
    the 0/0 policy (C05 A). A single override is checked again with the other knob once a
    group resolves it.

    Raises:
        PolicyInvalid: naming the flag value that breaks the rule.
    """
    problems = _range_problems((("max_expansion", max_expansion),
                                ("max_unavailable", max_unavailable)), platform.knob_max, "",
                               none_given=True)
    if not problems and max_expansion == 0 and max_unavailable == 0:
        problems.append(BOTH_ZERO_MESSAGE)
    if problems:
        raise PolicyInvalid("command-line deploy policy: " + "; ".join(problems),
                            hint=_bounds_hint(platform, flags=True))


def clamp(policy: DeployPolicy, nodes: int) -> DeployPolicy:
    """The effective policy for a group of ``nodes`` nodes: ``min(E, N)``, ``min(U, N)``.

    The clamp lowers a value above the group size, never raises one below it (C04: the
    direction is easy to invert). Seed 001 L229-L232: the service reduces the values to the
    size at the start (both platforms: ``Platform.reduces_to_current_size``).
    A group of 0 nodes gives 0/0: nothing to do, not an invalid policy.
    """
    if nodes < 0:
        raise ValueError(f"node count must be >= 0, got {nodes}")
    return DeployPolicy(
        max_expansion=min(policy.max_expansion, nodes),
        max_unavailable=min(policy.max_unavailable, nodes),
    )


def default_policy(platform: Platform = YANDEX) -> ResolvedPolicy:
    """The platform's default (Yandex 3/0, Selectel 0/1), marked assumed (C05 D)."""
    return ResolvedPolicy(platform.default_policy, "default", assumed=True)


def in_force(policy: DeployPolicy | None, platform: Platform = YANDEX) -> DeployPolicy:
    """The deploy policy a group runs with: an unset one (an API answer or a state without
    ``deploy_policy``) is the platform's default, never 0/0 (C05); see
    :meth:`Platform.in_force`."""
    return platform.in_force(policy)


def resolve(
    state: DeployPolicy | None,
    *,
    live: DeployPolicy | None = None,
    max_expansion: int | None = None,
    max_unavailable: int | None = None,
    platform: Platform = YANDEX,
) -> ResolvedPolicy:
    """Pick the deploy policy to plan with, and say where it came from.

    Precedence per knob: a command-line override, else the live group (API), else the state,
    else the platform's default (assumed). The source is ``override`` when any knob was
    overridden, otherwise that of the base policy. Not validated here: call :func:`validate`.
    """
    if live is not None:
        base = ResolvedPolicy(live, "live")
    elif state is not None:
        base = ResolvedPolicy(state, "state")
    else:
        base = default_policy(platform)
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
    platform: Platform = YANDEX,
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


def suggested_update_timeout(max_minutes: float) -> str:
    """A ``timeouts { update }`` value: the upper estimate plus 20%, rounded up to hours."""
    hours = max(1, math.ceil(max_minutes * TIMEOUT_SUGGESTION_MARGIN / 60))
    return f"{hours}h"


def duration_warnings(
    max_minutes: float, *, timeout_minutes: int | None = None, platform: Platform = YANDEX,
) -> list[PlanWarning]:
    """Warn when the upper duration estimate reaches Terraform's update timeout (C12).

    Above the timeout: ``terraform-update-timeout-exceeded``; from 80% of it up to it:
    ``terraform-update-timeout-borderline``. Both name ``timeouts { update = "..." }``.
    ``timeout_minutes`` defaults to the platform's (Yandex 60); a platform whose upgrades
    Terraform does not run (Selectel: cluster-level, reference section 5) gets none.
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


def terraform_block(policy: DeployPolicy) -> str:
    """The ``deploy_policy`` block to put in the node group's Terraform configuration
    (``yandex_kubernetes_node_group``; reference section 1.2)."""
    return (f"deploy_policy {{\n  max_expansion   = {policy.max_expansion}\n"
            f"  max_unavailable = {policy.max_unavailable}\n}}")
