"""Plain values the cloud gateway returns: live node groups, nodes, clusters, operations.

No SDK import here, so use cases and the pure core can name these types without paying for
grpc. Statuses are the names of the API enums (``yandex/cloud/k8s/v1``), e.g. ``RUNNING``,
``RECONCILING``; memory and disk are bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ngupgrade.core.model import DeployPolicy, ScalePolicy

GroupStatus = Literal[
    "STATUS_UNSPECIFIED", "PROVISIONING", "RUNNING", "RECONCILING", "STOPPING", "STOPPED",
    "DELETING", "STARTING",
]
"""``NodeGroup.Status`` names (``yandex.cloud.k8s.v1.NodeGroup.Status``)."""

BROKEN_STATUSES: frozenset[str] = frozenset({"STOPPING", "STOPPED", "DELETING"})
"""Group statuses that never reconcile to RUNNING on their own: an upgrade verdict is an error."""


@dataclass(frozen=True)
class LiveNodeGroup:
    """``NodeGroupService.Get``: what the cloud says about a node group now.

    ``policy`` is None when the API returns no ``deploy_policy`` (the server default 3/0 then
    applies: the deploy-policy page). ``version`` is ``version_info.current_version`` (falls back to
    ``node_version``). ``scale`` is None when the group has no scale policy in the answer.
    """

    id: str
    name: str
    cluster_id: str
    status: str
    version: str
    policy: DeployPolicy | None
    scale: ScalePolicy | None
    new_revision_available: bool = False


@dataclass(frozen=True)
class LiveNode:
    """One node of ``NodeGroupService.ListNodes``: its ``Node.Status`` name and instance id.

    ``unschedulable`` is True when the node carries the ``node.kubernetes.io/unschedulable``
    taint (cordoned for a drain). During an upgrade the set of ``(instance_id, status,
    unschedulable)`` changes at every step (nodes created, cordoned, deleted): a stall
    watchdog can compare it between polls.
    """

    instance_id: str
    status: str
    kubernetes_node_id: str = ""
    unschedulable: bool = False
    ready: bool | None = None
    """The Kubernetes ``Ready`` condition (``kubernetes_status.conditions``); None when the
    API lists no conditions (then the platform's ``status`` READY stands in)."""
    ready_message: str = ""
    """The ``Ready`` condition's message when it is not True (e.g. the kubelet's reason)."""
    volumes: tuple[str, ...] = ()
    """``kubernetes_status.attached_volumes``: the volume handles still attached."""


@dataclass(frozen=True)
class LiveCluster:
    """``ClusterService.Get``: folder of the cluster, its status and master version."""

    id: str
    folder_id: str
    status: str
    master_version: str


@dataclass(frozen=True)
class OperationRef:
    """Handle of a mutation: wait for it (:mod:`.waiter`); never assume it is done.

    ``attached`` is True when the Update call itself failed ambiguously (a deadline or
    UNAVAILABLE) and the operation it had started was found through ``ListOperations``.
    ``update_calls`` counts the Update requests sent for this mutation (conflict retries,
    hashicorp/terraform-provider-google#3650).
    """

    id: str
    node_group_id: str
    description: str = ""
    attached: bool = False
    update_calls: int = 1


@dataclass(frozen=True)
class OperationState:
    """``OperationService.Get`` (or one item of ``ListOperations``).

    ``done`` False means in progress. When done, ``error_code`` is None on success or the
    google.rpc code number (``error_code_name`` e.g. ``FAILED_PRECONDITION``) with
    ``error_message``. ``node_group_id`` comes from the operation metadata when it names one;
    ``created_by`` is the IAM subject (user or service account id) that started it, "" when
    the API leaves it unset. Times are seconds since the epoch (0.0 when the API leaves them
    unset). The rest of an operation (``error.details``, metadata and responses of other
    types) is not read.
    """

    id: str
    description: str
    done: bool
    error_code: int | None = None
    error_code_name: str | None = None
    error_message: str | None = None
    node_group_id: str | None = None
    created_at: float = 0.0
    modified_at: float = 0.0
    result: LiveNodeGroup | None = None
    """The node group a finished Update answered with (its ``response``): what the operation
    left. None while it runs, after an error, or when the response is not a NodeGroup."""
    created_by: str = ""

    @property
    def failed(self) -> bool:
        """Finished with an error (hashicorp/terraform#15601: never read as success)."""
        return self.done and self.error_code is not None


def newest(operations: Iterable[OperationState]) -> OperationState | None:
    """The most recently created operation (ties broken by id), or None for none."""
    return max(operations, key=lambda op: (op.created_at, op.id), default=None)
