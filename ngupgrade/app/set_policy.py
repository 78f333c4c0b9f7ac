"""Use case ``set-policy``: change a node group's deploy policy safely (Azure/azure-cli#19902).

Order: read the live group; validate the wanted policy (the Yandex deploy-policy page: 0..100 each,
not both 0); compute the masked change (only the paths that differ); with ``apply``, send ONE masked
Update, wait for the operation and the reconcile verdict, then read the group again and
confirm the values took. Nothing is sent when the values are already set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ngupgrade.adapters.cloud.gateway import CloudGateway
from ngupgrade.adapters.cloud.proto import mask_paths
from ngupgrade.adapters.cloud.types import LiveNodeGroup
from ngupgrade.adapters.cloud.waiter import OnPoll, wait_reconciled
from ngupgrade.app.cloud import GroupTarget
from ngupgrade.app.timing import Timing
from ngupgrade.core.errors import CheckFailed, CloudApiError
from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.platform import YANDEX
from ngupgrade.core.policy import check_overrides, policy_text, validate
from ngupgrade.upgrade.mutation import Change, ConflictPolicy, Mutation

OnStarted = Callable[[str], None]
"""Called with the operation id as soon as the Update is accepted (to print how to resume)."""


@dataclass(frozen=True)
class PolicyChange:
    """The change ``set-policy`` would make. ``before`` None: unset in the API (default 3/0)."""

    target: GroupTarget
    live: LiveNodeGroup
    before: DeployPolicy | None
    after: DeployPolicy
    paths: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.paths)

    @property
    def terraform_differs(self) -> bool:
        """True when the Terraform state still declares another policy
        (yandex-cloud/terraform-provider-yandex PR #61, Azure/azure-cli#19902)."""
        return self.target.in_state and self.target.state_policy != self.after


def plan_change(gw: CloudGateway, target: GroupTarget, max_expansion: int | None,
                max_unavailable: int | None) -> PolicyChange:
    """Read the live group and compute the masked change; a value not given keeps the live one.

    Raises PolicyInvalid (before any Update) and CloudApiError; a group id the cloud does
    not know (``NOT_FOUND``) that came from the command line, not from a state, is named as
    such (the generic hint's "the state may be older than the cloud" assumes a state gave it).
    """
    check_overrides(max_expansion, max_unavailable)
    try:
        live = gw.get_node_group(target.id)
    except CloudApiError as err:
        if err.code == "NOT_FOUND" and not target.in_state:
            err.hint = (f"check the id: the cloud has no node group {target.id}, and no "
                        "Terraform state gave it (`yc managed-kubernetes node-group list` "
                        "lists a folder's groups)")
        raise
    current = YANDEX.in_force(live.policy)  # the live API is Yandex's: unset means 3/0
    after = DeployPolicy(
        current.max_expansion if max_expansion is None else max_expansion,
        current.max_unavailable if max_unavailable is None else max_unavailable)
    validate(after, subject=target.address or target.id)
    paths = tuple(mask_paths(live.policy, after, None, False))
    return PolicyChange(target, live, live.policy, after, paths)


@dataclass(frozen=True)
class Applied:
    """How ``set-policy --apply`` ended: the operation waited for and the group read back.

    ``reached_by`` names another operation that had already set the policy (found after
    waiting for it as the blocker of our Update): nothing of ours was sent.
    """

    operation_id: str
    group: LiveNodeGroup
    reached_by: str | None = None


def apply_change(gw: CloudGateway, change: PolicyChange, *, timing: Timing, timeout: float,
                 on_poll: OnPoll | None = None, on_started: OnStarted | None = None,
                 ) -> Applied:
    """Send the masked Update (the one mutation path, :mod:`ngupgrade.upgrade.mutation`),
    wait for it and the reconcile, verify the values took (Azure/azure-cli#19902).

    The wait for another operation in the way is bounded by ``timeout`` too (at most the
    mutation's own 30-minute bound), so ``--timeout 0`` never blocks.

    Raises:
        OperationFailed, OperationTimeout: from the waiter (hashicorp/terraform#15601,
            yandex-cloud/python-sdk ``_operation_waiter.py``).
        CheckFailed: the cloud says done but the policy read back differs
            (Azure/azure-cli#19902).
        CloudApiError: the Update was refused (another operation in the way past the bound);
            OutcomeUnknown when it failed ambiguously and no operation is listed yet.
    """
    t = timing
    conflict = ConflictPolicy(wait_seconds=min(ConflictPolicy.wait_seconds, timeout))
    sent = Mutation(gw, t, conflict).send(change.target.id, Change(policy=change.after),
                                          current=change.live)
    if on_started is not None:
        on_started(sent.operation_id)
    wait_reconciled(gw, change.target.id, sent.operation_id, timeout=timeout, policy=t.poll,
                    clock=t.clock, sleep=t.sleep, on_poll=on_poll)
    reread = gw.get_node_group(change.target.id)
    have = YANDEX.in_force(reread.policy)
    if have != change.after:
        raise CheckFailed(
            f"deploy policy not applied (have {policy_text(have)}, "
            f"want {policy_text(change.after)}) on node group "
            f"{change.target.id}; operation {sent.operation_id} reported success",
            hint="do not start the upgrade with the old policy; check the group in the console")
    return Applied(sent.operation_id, reread, sent.reached_by)
