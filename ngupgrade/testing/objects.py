"""What the fake cloud's world holds: node groups with their nodes, operations, and refusals.

Plain mutable values, no gRPC: :mod:`ngupgrade.testing.world` changes them,
:mod:`ngupgrade.testing.proto` turns them into API messages. Tests read them through
``FakeCloud.group(...)`` and ``FakeCloud.operation(...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ngupgrade.core.model import AutoScale, DeployPolicy, FixedScale, NodeGroup, NodeResources
from ngupgrade.testing.group_override import GroupOverride


class Refusal(Exception):
    """The cloud refuses a call: ``code`` is a gRPC status name (``NOT_FOUND``,
    ``FAILED_PRECONDITION``, ...), ``message`` the text the API answers with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class FakeNode:
    """One node (a compute instance) of a fake group: ``drained`` = cordoned and evicted;
    ``ready`` its Kubernetes Ready condition; ``stopped`` the instance is stopped;
    ``volumes`` the handles of the volumes attached to it."""

    instance_id: str
    version: str
    drained: bool = False
    ready: bool = True
    stopped: bool = False
    volumes: list[str] = field(default_factory=list)


@dataclass
class FakeGroup:
    """The fake's live node group (read it in assertions through ``FakeCloud.group``).

    ``nodes`` is the live node count; ``new_nodes`` the nodes already on the version an
    upgrade in progress moves to (0 when none runs). ``spec`` is the state value the group was
    seeded from: what one node consumes on quotas is read from it.
    """

    id: str
    name: str
    cluster_id: str
    folder_id: str
    version: str
    status: str
    policy: DeployPolicy | None
    scale: FixedScale | AutoScale
    node: NodeResources | None
    address: str = ""
    members: list[FakeNode] = field(default_factory=list)
    created_nodes: int = 0
    reconciling_until: float = -1.0
    target_version: str | None = None
    spec: NodeGroup | None = field(default=None, repr=False)

    @classmethod
    def seeded(cls, g: NodeGroup, over: GroupOverride | None, folder: str) -> FakeGroup:
        """The live group of state value ``g`` with the scenario's override applied (nodes,
        status, version, policy; ``policy: null`` unsets it); ``folder`` when the state has
        none. Nodes start on the group's version."""
        nodes = g.scale.size if isinstance(g.scale, FixedScale) else g.scale.initial or g.scale.min
        policy, status, version = g.policy, (g.status or "running").upper(), g.version or "1.29"
        if over is not None:
            nodes = over.nodes if over.nodes is not None else nodes
            status = over.status or status
            version = over.version or version
            policy = over.policy if over.policy is not None else (
                None if over.policy_unset else policy)
        fg = cls(id=g.id, name=g.name, cluster_id=g.cluster_id, folder_id=g.folder_id or folder,
                 version=version, status=status, policy=policy, scale=g.scale, node=g.node,
                 address=str(g.address), spec=g)
        for _ in range(nodes):
            fg.add_node(version)
        return fg

    @property
    def nodes(self) -> int:
        """Nodes in the group now (surge nodes included)."""
        return len(self.members)

    @property
    def new_nodes(self) -> int:
        """Nodes on the target version of the upgrade in progress; 0 when none runs."""
        if self.target_version is None:
            return 0
        return sum(1 for n in self.members if n.version == self.target_version)

    def add_node(self, version: str) -> FakeNode:
        """Create one node; every node gets an instance id of its own, never reused."""
        node = FakeNode(f"{self.id[:12]}n{self.created_nodes:04d}", version)
        self.created_nodes += 1
        self.members.append(node)
        return node

    def matches(self, key: str | None) -> bool:
        """True for None (a fault for every group), the group's id, name or address."""
        return key is None or key in (self.id, self.name, self.address)


@dataclass(frozen=True)
class AppliedStep:
    """One step of a version update as the world applied it; sizes are after the step."""

    action: str
    """``create``, ``drain``, ``update_in_place`` or ``delete``."""
    nodes: int
    group_size: int
    new_nodes: int


CALLER_SUBJECT = "ajeng0pgrade0000test"
"""``created_by`` of the operations the fake starts for its caller: the IAM subject (user or
service account id) a real cloud names there."""

OTHER_SUBJECT = "ajecolleague00000001"
"""``created_by`` of the operations someone else started: blockers and past upgrades."""


@dataclass
class FakeOperation:
    """One operation of the fake (``kind``: ``version``, ``policy`` or ``blocker``).

    A version update keeps what it started from: ``start_nodes`` (N), and the policy in force
    clamped to N (``surge`` = E', ``unavailable`` = U'). ``steps`` and ``history`` list the
    steps applied so far (``history`` as text: ``"create 2 -> 7 nodes"``).
    """

    id: str
    kind: str
    description: str
    group_id: str | None
    cluster_id: str
    created: float
    target_version: str = ""
    policy: DeployPolicy | None = None
    start_nodes: int = 0
    surge: int = 0
    unavailable: int = 0
    applied: int = 0
    delay: float = 0.0
    """Seconds the steps moved later while drains held them (the fake's kube API follows)."""
    done: bool = False
    error: tuple[int, str] | None = None
    finished: float = 0.0
    duration: float = 0.0
    polls_left: int | None = None
    ignore_policy: bool = False
    removed: int = 0
    """Nodes the autoscaler removed mid-update (fault ``autoscaler_delete``, Azure/AKS#5340)."""
    steps: list[AppliedStep] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    created_by: str = OTHER_SUBJECT
