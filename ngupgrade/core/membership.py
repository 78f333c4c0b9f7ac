"""Which Kubernetes nodes are a node group's: the one owner of that decision. Pure.

The platforms name a node's group differently:

* Yandex puts the label ``yandex.cloud/node-group-id=<group id>`` on every node of a group
  (:data:`ngupgrade.core.k8s.NODE_GROUP_LABEL`; Yandex docs, node labels).
* Selectel documents no label naming the group: its node-group pages and the Terraform
  provider's ``selectel_mks_nodegroup_v1`` docs list only the user's ``labels`` and
  ``taints`` ("List of Kubernetes labels applied to each node in the node group"), which
  several groups may share. What it does give is each node's hostname in the group's
  ``nodes`` attribute (``selectel/terraform-provider-selectel``, ``selectel/mks.go``:
  ``flattenMKSNodegroupV1Nodes`` writes ``id``, ``ip`` and ``hostname`` of the MKS API's node
  view), and the kubelet registers a node under its hostname (the node's name and its
  ``kubernetes.io/hostname`` label). So a Selectel group's nodes are those whose name or
  hostname label the state lists (:attr:`NodeGroup.node_names`). A state older than the
  cluster (nodes replaced since the last refresh) misses the new nodes: the drain check then
  names the group as having fewer nodes than planned, and ``terraform apply -refresh-only``
  brings the list up to date.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ngupgrade.core.k8s import HOSTNAME_LABEL, NODE_GROUP_LABEL, Node
from ngupgrade.core.model import NodeGroup


def is_member(group: NodeGroup, node: Node) -> bool:
    """True when ``node`` is one of ``group``'s (see the module docstring for each platform)."""
    if group.platform == "selectel":
        return (node.name in group.node_names
                or node.labels.get(HOSTNAME_LABEL, "") in group.node_names)
    return node.labels.get(NODE_GROUP_LABEL) == group.id


def group_node_names(group: NodeGroup, nodes: Iterable[Node]) -> tuple[str, ...]:
    """The names of ``group``'s nodes among ``nodes``, sorted."""
    return tuple(sorted(n.name for n in nodes if is_member(group, n)))


def nodes_per_group(groups: Iterable[NodeGroup], nodes: Iterable[Node]) -> dict[str, int]:
    """Node group id -> how many of ``nodes`` are that group's; groups with none are left out
    (a missing key means "not in the cluster objects", not 0)."""
    listed = list(nodes)
    counts = {g.id: sum(1 for n in listed if is_member(g, n)) for g in groups}
    return {gid: count for gid, count in counts.items() if count}


def group_labels(group: NodeGroup) -> Mapping[str, str]:
    """The labels the platform puts on every node of ``group`` to name it (a new surge node
    gets them): Yandex's group-id label; none for Selectel."""
    return {} if group.platform == "selectel" else {NODE_GROUP_LABEL: group.id}


def membership_text(group: NodeGroup) -> str:
    """How the group's nodes are found, for messages: ``labelled yandex.cloud/node-group-id=
    <id>`` or ``named in the state's nodes[].hostname of <address>``."""
    if group.platform == "selectel":
        return f"named in the state's nodes[].hostname of {group.address}"
    return f"labelled {NODE_GROUP_LABEL}={group.id}"
