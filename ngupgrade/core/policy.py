"""Deploy-policy rules: validation, the platform's default, clamping and resolution.

Pure: no I/O, no clock. The numbers that differ between platforms (bounds, default) are the
:class:`~ngupgrade.core.platform.Platform`'s; every function takes one (``platform=``, Yandex
when not given, so the Yandex rules read as before). Sources:

* Yandex Cloud docs, "Node group deploy policy" (the parameter table): ``max_expansion`` and
  ``max_unavailable`` are integers 0..100, not both 0; server-side default ``3/0``;
* Selectel docs, "Стратегия обновления версии Kubernetes в группе нод Managed Kubernetes"
  ("Параметры обновления нод"; "Особенности обновления нод при автомасштабировании"): each
  0..the node count (the autoscaler max when autoscaled), not both 0, default ``0/1``; values
  are reduced to the group size at the start of the upgrade;
* the clamp's direction: MicrosoftDocs/azure-docs#90212 and hashicorp/terraform-provider-aws#26535;
  0/0 and unset read as 0/0: stackitcloud/terraform-provider-stackit#530 and
  hashicorp/terraform-provider-google#17164.

Each rule with its figure: ``docs/sources.md``.

The warnings about a policy (clamped values, the whole group down, the autoscaler's range, the
Terraform timeout) are :mod:`ngupgrade.core.plan_warnings`'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ngupgrade.core.errors import PolicyInvalid, UsageError
from ngupgrade.core.model import AutoScale, DeployPolicy, ScalePolicy
from ngupgrade.core.platform import YANDEX, Platform

POLICY_MIN = 0
"""Lower bound of each knob on every platform (both platforms' parameter tables)."""

BOTH_ZERO_MESSAGE = "at least one of max_expansion / max_unavailable must be > 0"
"""The one message for 0/0 (stackitcloud/terraform-provider-stackit#530); tests and scripts
match it."""

PolicySource = Literal["state", "default", "override", "live", "plan", "advised"]
"""Where a policy came from: the Terraform state, the platform default (assumed, the state
leaves it unset), a command-line override, the live node group from the API, a Terraform
plan (the surge a roll is counted with when the same apply changes the policy), or the
advisor's schedule (``upgrade --schedule advised``: the policy a group's stage gives it)."""


@dataclass(frozen=True)
class ResolvedPolicy:
    """The deploy policy a plan uses, before clamping, and where it came from.

    ``assumed`` is True when the state leaves the policy unset and the platform's default
    (Yandex 3/0, Selectel 0/1) stands in for it (yandex-cloud/terraform-provider-yandex PR #61:
    old states have no ``deploy_policy``): reported as assumed, never read as 0/0.
    """

    policy: DeployPolicy
    source: PolicySource
    assumed: bool = False


def policy_text(policy: DeployPolicy | None) -> str:
    """``2/1`` (max_expansion/max_unavailable), or ``unset``: the one way reports print E/U."""
    return "unset" if policy is None else f"{policy.max_expansion}/{policy.max_unavailable}"


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

    Rules (``docs/sources.md``): each knob an integer from 0 to the platform's bound (Yandex
    100; Selectel the group's node count or autoscaler max: checked when ``scale`` is given);
    not both 0 (both platforms' pages; hashicorp/terraform-provider-google#17164). On Yandex,
    values above the group size are valid (the service clamps them).

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


def override_range_hint() -> str:
    """What ``--max-expansion``/``--max-unavailable`` take on every platform, for a usage
    error given before the groups are known (the deploy-policy page: Yandex 0..100; the
    Selectel strategy page: 0..the node count)."""
    return (f"{_bounds_hint(YANDEX, flags=True)}; on Selectel {POLICY_MIN}..the group's node "
            "count (the autoscaler max when autoscaled)")


def check_overrides(max_expansion: int | None, max_unavailable: int | None,
                    platform: Platform | None = YANDEX) -> None:
    """Check ``--max-expansion`` / ``--max-unavailable`` before any state or API is read.

    One rule for the flags' values: a value the platform accepts for no group at all (below 0;
    above Yandex's fixed 100) is a usage error naming the range, like any value an option
    cannot take; a value valid in general but not for one group (Selectel's 0..the node
    count) is that group's policy check, once a group resolves it (:func:`validate`:
    ``PolicyInvalid``, exit 1, naming the group and its bound). Both given as 0 is the 0/0
    policy, a combination the platform refuses (the deploy-policy page): ``PolicyInvalid``, as
    a state's 0/0 is. A single override is checked again with the other knob once a group
    resolves it. ``platform`` None: not known yet (before the state is read without
    ``--platform``): only what no platform takes is refused, and the caller checks again
    with the selected groups' platform.

    Raises:
        UsageError: a value outside the platform's range for any group (exit 2).
        PolicyInvalid: both flags 0 (exit 1).
    """
    problems = _range_problems((("max_expansion", max_expansion),
                                ("max_unavailable", max_unavailable)),
                               platform.knob_max if platform else None, "", none_given=True)
    if problems and platform is None:
        raise UsageError("; ".join(problems).replace("max_expansion", "--max-expansion", 1)
                         .replace("max_unavailable", "--max-unavailable", 1),
                         hint=override_range_hint())
    if problems and platform is not None:
        flags = "; ".join(p.replace("max_expansion", "--max-expansion", 1)
                          .replace("max_unavailable", "--max-unavailable", 1) for p in problems)
        raise UsageError(f"{flags} (the range {platform.vendor} accepts for any node group)",
                         hint=_bounds_hint(platform, flags=True))
    if max_expansion == 0 and max_unavailable == 0:
        raise PolicyInvalid("command-line deploy policy: " + BOTH_ZERO_MESSAGE,
                            hint=_bounds_hint(platform or YANDEX, flags=True))


def clamp(policy: DeployPolicy, nodes: int) -> DeployPolicy:
    """The effective policy for a group of ``nodes`` nodes: ``min(E, N)``, ``min(U, N)``.

    The clamp lowers a value above the group size, never raises one below it (the direction
    is easy to invert: MicrosoftDocs/azure-docs#90212). The Selectel strategy page, "Особенности
    обновления нод при автомасштабировании": the service reduces the values to the size at the
    start (both platforms: ``Platform.reduces_to_current_size``).
    A group of 0 nodes gives 0/0: nothing to do, not an invalid policy.
    """
    if nodes < 0:
        raise ValueError(f"node count must be >= 0, got {nodes}")
    return DeployPolicy(
        max_expansion=min(policy.max_expansion, nodes),
        max_unavailable=min(policy.max_unavailable, nodes),
    )


def default_policy(platform: Platform = YANDEX) -> ResolvedPolicy:
    """The platform's default (Yandex 3/0, Selectel 0/1), marked assumed."""
    return ResolvedPolicy(platform.default_policy, "default", assumed=True)


def in_force(policy: DeployPolicy | None, platform: Platform = YANDEX) -> DeployPolicy:
    """The deploy policy a group runs with: an unset one (an API answer or a state without
    ``deploy_policy``) is the platform's default, never 0/0; see
    :meth:`Platform.in_force`."""
    return platform.in_force(policy)


def resolve(
    state: DeployPolicy | None,
    *,
    live: DeployPolicy | None = None,
    max_expansion: int | None = None,
    max_unavailable: int | None = None,
    platform: Platform = YANDEX,
    declared: PolicySource = "state",
    chosen: PolicySource = "override",
) -> ResolvedPolicy:
    """Pick the deploy policy to plan with, and say where it came from: the one place a
    policy's source is named (callers pass where their values came from; nothing relabels the
    answer afterwards).

    Precedence per knob: a command-line override, else the live group (API), else the state,
    else the platform's default (assumed). The source is ``chosen`` when any knob was
    overridden (``override`` for the flags, ``advised`` for the advisor's schedule), otherwise
    that of the base policy: ``live``, ``declared`` for ``state`` (``state``, or ``plan`` when
    the declared policy is a Terraform plan's planned value), or ``default``. Not validated
    here: call :func:`validate`.
    """
    if live is not None:
        base = ResolvedPolicy(live, "live")
    elif state is not None:
        base = ResolvedPolicy(state, declared)
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
    return ResolvedPolicy(policy, chosen, assumed=base.assumed and half)


def terraform_block(policy: DeployPolicy) -> str:
    """The ``deploy_policy`` block to put in the node group's Terraform configuration
    (``yandex_kubernetes_node_group`` of terraform-provider-yandex)."""
    return (f"deploy_policy {{\n  max_expansion   = {policy.max_expansion}\n"
            f"  max_unavailable = {policy.max_unavailable}\n}}")
