"""The values of a runbook upgrade: what the user asked for, a planned call, a group's result,
and the Protocol of the cloud the runbook works against. The prepared group, which lists its
steps, is in :mod:`ngupgrade.upgrade.context`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from ngupgrade.adapters.cloud.types import LiveCluster, LiveNode
from ngupgrade.upgrade.mutation import MutationApi

DEFAULT_STALL_SECONDS = 30 * 60.0
"""No progress for this long means stalled (aws/containers-roadmap#1282: "watchdog 30 min")."""
MIN_TIMEOUT_SECONDS = 60 * 60.0
"""The default wait is twice the plan's longest estimate, and never under an hour
(terraform-google-modules/terraform-google-kubernetes-engine#939)."""


class UpgradeApi(MutationApi, Protocol):
    """What the runbook needs of the cloud (``adapters.cloud.gateway.CloudGateway``): what a
    mutation needs (:class:`~ngupgrade.upgrade.mutation.MutationApi`), and the node list
    and the cluster for progress and the verdict."""

    def list_nodes(self, node_group_id: str) -> list[LiveNode]: ...

    def get_cluster(self, cluster_id: str) -> LiveCluster: ...


@dataclass(frozen=True)
class UpgradeOptions:
    """What the user asked for , in seconds where it is a duration.

    ``version`` or ``latest_revision``; ``max_expansion`` / ``max_unavailable`` override the
    policy for the upgrade, given by ``policy_source``: the flags (``override``) or the stage
    of ``upgrade --schedule advised`` (``advised``), as the plan and the journal name it;
    ``timeout`` None means twice the plan's longest estimate, at least an hour;
    ``stall_after`` 0 turns the watchdog off.
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
    policy_source: Literal["override", "advised"] = "override"
    schedule: Literal["sequential", "advised"] = "sequential"
    """The mode of the run (``--schedule``): hints name only the flags it accepts."""

    @property
    def target_label(self) -> str:
        """The version, or ``latest revision``."""
        return self.version or "latest revision"


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
    """Step name -> seconds it took; on resume a step an earlier run finished keeps the
    seconds its journal recorded, and the step attached to counts from its operation's
    start."""
    operations: dict[str, str] = field(default_factory=dict)
    """Step name -> operation id."""
    note: str | None = None
    reminders: list[str] = field(default_factory=list)
    journal_path: str | None = None
    since: float | None = None
    """Wall seconds (epoch) when the group's first journaled step started: on resume, in an
    earlier run (the summary's time counts from it); None when no step had started."""
    earlier: set[str] = field(default_factory=set)
    """The steps an earlier run finished (a resumed run carries them from the journal)."""
