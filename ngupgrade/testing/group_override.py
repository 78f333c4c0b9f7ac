"""One ``node_groups`` entry of a scenario file: live values of a node group that differ from
the Terraform state (nodes, status, version, deploy policy) and its past upgrades (``history``).
Every value is checked (:mod:`ngupgrade.testing.checks`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ngupgrade.core.errors import BadInput
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import checks

STATUSES: tuple[str, ...] = ("PROVISIONING", "RUNNING", "RECONCILING", "STOPPING", "STOPPED",
                             "DELETING", "STARTING")
"""Statuses of a node group and of a cluster (``k8s.v1`` NodeGroup.Status, Cluster.Status)."""
GROUP_KEYS: tuple[str, ...] = ("nodes", "status", "version", "policy", "history")
HISTORY_KEYS: tuple[str, ...] = ("minutes", "error", "description")
MAX_NODES = 1000
"""Nodes a scenario may give one group: far above Yandex's default of 200 nodes per group
(``managed-kubernetes.groupNodes.count``), low enough that a typo cannot exhaust memory."""


@dataclass(frozen=True)
class PastOperation:
    """A finished upgrade of the group before the fake started, listed by its
    ``ListOperations`` (the advisor's calibration reads them): it took ``minutes``; ``error``
    a message when it failed; ``description`` as the API words it."""

    minutes: float
    error: str | None = None
    description: str = "Update node group"

    @classmethod
    def parse(cls, raw: Any, where: str) -> PastOperation:
        """One ``history`` entry. Raises BadInput."""
        h = checks.keys(raw, HISTORY_KEYS, where)
        if "minutes" not in h:
            raise BadInput("minutes is missing (how long the past upgrade took)", path=where)
        error = h.get("error")
        return cls(minutes=checks.seconds(h["minutes"], f"{where}.minutes"),
                   error=None if error is None else checks.text(error, f"{where}.error"),
                   description=checks.text(h.get("description", "Update node group"),
                                           f"{where}.description"))


@dataclass
class GroupOverride:
    """Live values of one node group that differ from the Terraform state; ``history`` its
    past upgrades, oldest first."""

    nodes: int | None = None
    status: str | None = None
    version: str | None = None
    policy: DeployPolicy | None = None
    policy_unset: bool = False
    history: tuple[PastOperation, ...] = ()

    @classmethod
    def parse(cls, raw: Any, where: str) -> GroupOverride:
        """One ``node_groups`` entry. Raises BadInput."""
        g = checks.keys(raw, GROUP_KEYS, where)
        over = cls()
        if g.get("nodes") is not None:
            over.nodes = checks.count(g["nodes"], f"{where}.nodes", high=MAX_NODES)
        if g.get("status") is not None:
            over.status = parse_status(g["status"], f"{where}.status")
        if g.get("version") is not None:
            over.version = checks.text(g["version"], f"{where}.version")
        if "policy" in g:
            over.policy = _policy(g["policy"], f"{where}.policy")
            over.policy_unset = over.policy is None
        if g.get("history") is not None:
            over.history = tuple(PastOperation.parse(h, f"{where}.history[{i}]")
                                 for i, h in enumerate(checks.items(g["history"],
                                                                    f"{where}.history")))
        return over


def parse_status(value: Any, where: str) -> str:
    return checks.choice(value.upper() if isinstance(value, str) else value, where, STATUSES)


def _policy(raw: Any, where: str) -> DeployPolicy | None:
    """A deploy policy as the API holds it (the Yandex deploy-policy page, the parameter table:
    0..100 each, not both 0); null means unset."""
    if raw is None:
        return None
    pol = checks.keys(raw, ("max_expansion", "max_unavailable"), where)
    for key in ("max_expansion", "max_unavailable"):
        if key not in pol:
            raise BadInput(f"{key} is missing (give both values, or null for an unset policy)",
                           path=where)
    policy = DeployPolicy(checks.count(pol["max_expansion"], f"{where}.max_expansion", high=100),
                          checks.count(pol["max_unavailable"], f"{where}.max_unavailable",
                                       high=100))
    if policy.max_expansion == 0 and policy.max_unavailable == 0:
        raise BadInput("max_expansion and max_unavailable cannot both be 0 (the API refuses it)",
                       path=where)
    return policy
