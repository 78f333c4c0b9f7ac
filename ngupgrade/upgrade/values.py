"""The values of a runbook upgrade: what the user asked for, a prepared group, a planned call,
a group's result, and the Protocol of the cloud the runbook works against."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ngupgrade.adapters.cloud.types import (
    LiveCluster,
    LiveNode,
    LiveNodeGroup,
    OperationState,
)
from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.simulate import GroupPlan
from ngupgrade.upgrade.mutation import MutationApi

if TYPE_CHECKING:
    from ngupgrade.upgrade.steps import Step

DEFAULT_STALL_SECONDS = 30 * 60.0
"""No progress for this long means stalled (C15: "watchdog 30 min")."""
MIN_TIMEOUT_SECONDS = 60 * 60.0
"""The default wait is twice the plan's longest estimate, and never under an hour (C12)."""


class UpgradeApi(MutationApi, Protocol):
    """What the runbook needs of the cloud (``adapters.cloud.gateway.CloudGateway``): what a
    mutation needs (:class:`~ngupgrade.upgrade.mutation.MutationApi`), and the node list
    and the cluster for progress and the verdict."""

    def list_nodes(self, node_group_id: str) -> list[LiveNode]: ...

    def get_cluster(self, cluster_id: str) -> LiveCluster: ...


@dataclass(frozen=True)
class UpgradeOptions:
    """What the user asked for (issue 6 command line), in seconds where it is a duration.

    ``version`` or ``latest_revision``; ``max_expansion`` / ``max_unavailable`` override the
    policy for the upgrade; ``timeout`` None means twice the plan's longest estimate, at least
    an hour; ``stall_after`` 0 turns the watchdog off.
    """

    version: str | None = None
    latest_revision: bool = False
    max_expansion: int | None = None
    max_unavailable: int | None = None
    restore_policy: bool = False
    timeout: float | None = None
    stall_after: float = DEFAULT_STALL_SECONDS
    resume: bool = False
    minutes_per_cycle: float = 6.0

    @property
    def target_label(self) -> str:
        """The version, or ``latest revision``."""
        return self.version or "latest revision"


@dataclass
class Prepared:
    """One group, read and checked, with its plan, its journal (not yet saved) and its steps.

    ``steps`` are the step objects :meth:`Runbook.run` runs; the dry run lists their planned
    calls, so what it shows and what ``--apply`` sends come from one decision per step.
    """

    group: NodeGroup
    live: LiveNodeGroup
    nodes: list[LiveNode]
    cluster: LiveCluster
    running: OperationState | None
    plan: GroupPlan
    override: DeployPolicy | None
    """The policy the user asked the upgrade to run with (--max-expansion/--max-unavailable),
    or None; whether an Update is needed for it is the policy step's decision."""
    terraform_policy: DeployPolicy | None
    journal: jr.Journal
    resumed: bool
    nothing_to_do: str | None = None
    """Why the group needs no upgrade (already at the target), or None."""
    restore_only: bool = False
    """Already at the target, but the group runs a deploy policy other than the one Terraform
    declares and ``--restore-policy`` was given: only the verdict and the restore run. Decided
    from the cloud and the state, so it holds without a journal (issue 10 item 5)."""
    tight_quota: str | None = None
    """The preflight's quota with the least room after the surge, as text (the watchdog
    names it when a surge node is not created)."""
    steps: list[Step] = field(default_factory=list)

    @property
    def address(self) -> str:
        """The Terraform address."""
        return str(self.group.address)

    @property
    def needs_surge(self) -> bool:
        """True when the version update is still to be sent (the preflight gate counts it)."""
        return (self.nothing_to_do is None and not self.restore_only
                and self.journal.step(jr.STEP_VERSION) is None)


@dataclass(frozen=True)
class PlannedCall:
    """One API call a dry run would make: ``method`` and what it carries."""

    method: str
    detail: str


@dataclass
class GroupResult:
    """How one group's upgrade ended."""

    address: str
    group_id: str
    ok: bool
    version_before: str
    version_after: str
    nodes: int
    steps: dict[str, float] = field(default_factory=dict)
    """Step name -> seconds it took in this run."""
    operations: dict[str, str] = field(default_factory=dict)
    """Step name -> operation id."""
    note: str | None = None
    reminders: list[str] = field(default_factory=list)
    journal_path: str | None = None
