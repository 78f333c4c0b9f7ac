"""What ``terraform apply`` is about to do to each node group: the change kinds of a plan.

Pure: plain values in (what the plan adapter read from ``terraform show -json PLANFILE``),
plain values out. One owner for each decision below; each rule names its source.

Change kinds (docs/plan-gate.md), most severe first:

* ``replace``: Terraform deletes and creates the group (``actions`` ``["delete","create"]``, or
  ``["create","delete"]`` with ``create_before_destroy``; ``hashicorp/terraform``
  ``internal/command/jsonplan/plan.go``, ``Change.Actions``). The deploy policy does not apply:
  every node of the old group is deleted with it (yandex-cloud/terraform-provider-yandex#113,
  ``yandex-cloud/terraform-provider-yandex#113``). Delete-first leaves no node of the group for
  the time between; create-first needs a second whole group's quota at once. The attributes the
  provider marks ForceNew (``yandex/resource_yandex_kubernetes_node_group.go`` @ b52b1df):
  ``cluster_id``, ``allocation_policy`` (the block; ``location.subnet_id``),
  ``allowed_unsafe_sysctls``, ``instance_template.nat`` (deprecated),
  ``instance_template.container_network.pod_mtu``, ``instance_template.gpu_settings.*``, and the
  ``scale_policy.auto_scale`` and ``allocation_policy`` blocks as a whole (added or removed:
  switching fixed <-> auto; their fields ``min``/``max``/``initial``/``location.zone`` are
  not ForceNew). A ForceNew attribute changed in a plan that says ``["update"]`` (a provider
  whose schema differs from this list) is taken as a replace too: the worst case.
  Also a replace, though Terraform plans an in-place ``update``: a change of ``node_taints``.
  The service "recreates the node group: first, all nodes in the group are deleted, then nodes
  with the taint are added" (``yandex-cloud/docs``
  ``en/managed-kubernetes/operations/node-group/node-group-update.md#assign-taint``).
* ``create`` / ``delete``: a whole group added (its nodes need quota) or removed.
* ``roll``: nodes recreated or updated under the deploy policy. A version change, and any
  change of the node template: "When modifying a node group (including during a Kubernetes
  version update) ... new nodes ... are created with the new parameters" (``deploy-policy.md``,
  the Yandex deploy-policy page); metadata changes recreate every node
  (``node-group-update.md#update-metadata``). ``allocation_policy.location.zone`` is updatable in
  place by the provider; moving nodes to another zone recreates them: a roll. An attribute this
  module does not know is taken as a roll (the worst of the update kinds) and named.
* ``resize``: only ``scale_policy`` sizes change (``fixed_scale.size``, ``auto_scale.min/max/
  initial``): nodes are added or removed, none recreated (``node-group-update.md``: "You can
  update ... scaling ... You cannot change the scaling type").
* ``in-place``: no node recreated: the group's ``name``, ``description``, cloud ``labels``,
  ``node_labels`` ("Adding Kubernetes labels does not result in recreation of a node group",
  ``node-label-management.md``), ``maintenance_policy``, ``deploy_policy``.
* ``none``: ``["no-op"]`` (or ``["read"]``).

The deploy policy during a roll: the provider sends one ``NodeGroupService.Update`` whose
``update_mask`` holds every changed field (``resourceYandexKubernetesNodeGroupUpdate``:
``d.HasChange`` over ``nodeGroupUpdateFieldsMap``), so a new ``deploy_policy`` and a new
``version`` of one apply arrive in the same request; the provider does not set the policy
first. Which policy the service rolls that request with is not documented. The roll is planned
with the new policy (``after``); the quota preflight takes the worse of the two surges and a
warning says so (Azure/azure-cli#19902 shows a surge sent with an upgrade being ignored elsewhere).

Unknown values after apply (``after_unknown``) are named in every report and taken at their
worst: a scale size as :data:`UNKNOWN_SIZE` (the per-group node quota), a deploy-policy knob as
100 (the API's bound), any other attribute as changed. Node resources that decide quotas
(cores, memory, disk, GPUs) have no worst case: the finding is blocking.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ngupgrade.core.address import TfAddress
from ngupgrade.core.model import MAX_GROUP_NODES, DeployPolicy, NodeGroup
from ngupgrade.core.platform import YANDEX
from ngupgrade.core.policy import policy_text
from ngupgrade.core.units import counted

ChangeKind = Literal["roll", "resize", "in-place", "replace", "create", "delete", "none"]
CHANGE_KINDS: tuple[ChangeKind, ...] = (
    "replace", "create", "delete", "roll", "resize", "in-place", "none")
Severity = Literal["blocking", "warning", "info"]
ReplaceOrder = Literal["delete-first", "create-first"]

UNKNOWN_SIZE: int = YANDEX.group_node_limit or MAX_GROUP_NODES
"""An unknown node count after apply is taken as the most nodes one group may hold
(``managed-kubernetes.groupNodes.count``, 200 by default: the Yandex Cloud docs' quota tables).
Terraform plans here are of ``yandex_kubernetes_node_group``: Yandex's rules."""

UNKNOWN_POLICY_KNOB = YANDEX.knob_max
"""An unknown ``max_expansion``/``max_unavailable`` is taken as 100, the API's bound (the Yandex
deploy-policy page); the simulation clamps it to the group size."""

KNOWN_ACTIONS: tuple[tuple[str, ...], ...] = (
    ("no-op",), ("read",), ("create",), ("update",), ("delete",), ("delete", "create"),
    ("create", "delete"), ("forget",))
"""Every ``change.actions`` Terraform writes (``internal/command/jsonplan/plan.go``,
``Change.Actions``; ``forget``: a ``removed`` block with ``destroy = false``, Terraform 1.7)."""

NO_CHANGE_ACTIONS: tuple[tuple[str, ...], ...] = (("no-op",), ("read",), ("forget",))
"""Actions that leave the node group's nodes alone (``forget`` drops it from state only)."""

# Attribute paths are dotted, list indices left out: "instance_template.resources.cores".
IGNORED = ("id", "status", "created_at", "instance_group_id", "version_info", "timeouts")
"""Computed by the service, never a cause: Terraform may show them unknown on any update."""

FORCE_NEW = ("cluster_id", "allocation_policy.location.subnet_id", "allowed_unsafe_sysctls",
             "instance_template.nat", "instance_template.container_network.pod_mtu",
             "instance_template.gpu_settings")
"""ForceNew in the provider schema, with everything below (module docstring;
``gpu_settings.gpu_cluster_id`` and ``gpu_environment`` are both ForceNew)."""

FORCE_NEW_BLOCKS = ("scale_policy.auto_scale", "allocation_policy",
                    "instance_template.container_network")
"""Blocks whose addition or removal replaces the group, which the plan shows as a change of
the block's own path: ``auto_scale`` and ``allocation_policy`` are ForceNew as a whole while
their fields are not (``auto_scale.min/max/initial``, ``location.zone``: ``ForceNew: false``;
fixed <-> auto scale); ``container_network`` holds only the ForceNew ``pod_mtu``."""

SERVICE_RECREATES = ("node_taints",)
"""Updated in place by Terraform, but the service deletes every node first (module docstring)."""

RESIZE = ("scale_policy.fixed_scale.size", "scale_policy.auto_scale.min",
          "scale_policy.auto_scale.max", "scale_policy.auto_scale.initial")
IN_PLACE = ("name", "description", "labels", "node_labels", "maintenance_policy",
            "deploy_policy")
ROLL = ("version", "instance_template", "allocation_policy")
NODE_RESOURCES = ("instance_template.resources", "instance_template.boot_disk",
                  "instance_template.platform_id")
"""What one node consumes (:mod:`ngupgrade.core.quota.catalog`): unknown here, no quota can be
judged."""

# Stable finding codes.
REPLACE_DELETES_ALL_NODES = "replace-deletes-all-nodes"
TAINTS_RECREATE_GROUP = "taints-recreate-group"
UNKNOWN_AFTER_APPLY = "unknown-after-apply"
UNKNOWN_NODE_RESOURCES = "unknown-node-resources"
POLICY_CHANGES_WITH_ROLL = "policy-changes-with-roll"
UNCLASSIFIED_ATTRIBUTE = "unclassified-attribute"
GROUP_DELETED = "group-deleted"
ROLLS_TOGETHER = "rolls-together"

CHANGING_KINDS = ("roll", "replace", "create", "resize")
"""The kinds of change that put nodes in motion: two of them in one apply run at the same time
(the :data:`ROLLS_TOGETHER` note names every such group)."""


@dataclass(frozen=True)
class PlannedChange:
    """One node-group instance in a plan's ``resource_changes``, as the adapter read it.

    ``before``/``after`` are None for a create/delete. ``after`` already carries the worst case
    of each unknown value (:data:`UNKNOWN_SIZE`, :data:`UNKNOWN_POLICY_KNOB`); ``unknown`` names
    the unknown paths, ``changed`` the attributes whose known values differ. ``replace_paths``
    are Terraform's own (``change.replace_paths``), ``action_reason`` its keyword.
    """

    address: TfAddress
    actions: tuple[str, ...]
    before: NodeGroup | None
    after: NodeGroup | None
    changed: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    replace_paths: tuple[str, ...] = ()
    action_reason: str | None = None
    deposed: str | None = None


@dataclass(frozen=True)
class Finding:
    """Something the plan gate must say: a stable ``code``, a severity and one line."""

    code: str
    severity: Severity
    message: str


@dataclass(frozen=True)
class GroupChange:
    """The classified change of one node group.

    ``group`` is the group as it will be (``after``), or as it is for a delete. ``attributes``
    are the causes of ``kind`` (dotted paths). ``policy`` is the deploy policy the roll is planned
    with; ``quota_policy`` the one its surge is counted with (the larger ``max_expansion`` when the
    same apply changes the policy). ``replace_order`` says which side of a replace runs first.
    """

    address: TfAddress
    kind: ChangeKind
    actions: tuple[str, ...]
    group: NodeGroup
    before: NodeGroup | None
    attributes: tuple[str, ...]
    unknown: tuple[str, ...]
    findings: tuple[Finding, ...]
    policy: DeployPolicy | None = None
    quota_policy: DeployPolicy | None = None
    replace_order: ReplaceOrder | None = None
    action_reason: str | None = None

    @property
    def blocking(self) -> bool:
        """True when a finding stops the gate (exit 1)."""
        return any(f.severity == "blocking" for f in self.findings)


def _actions(actions: Sequence[str]) -> str:
    """``["delete", "create"]`` as the plan JSON writes it."""
    return "[" + ", ".join(f'"{a}"' for a in actions) + "]"


def _under(path: str, prefixes: Iterable[str]) -> bool:
    return any(path == p or path.startswith(p + ".") for p in prefixes)


def _nodes_of(group: NodeGroup | None) -> int:
    if group is None:
        return 0
    return group.scale.most_nodes


def _force_new(path: str) -> bool:
    return _under(path, FORCE_NEW) or path in FORCE_NEW_BLOCKS


def classify(change: PlannedChange) -> GroupChange:
    """Classify one node group's planned change (rules and sources: module docstring).

    Raises:
        ValueError: a change with neither ``before`` nor ``after``, or actions outside
            :data:`KNOWN_ACTIONS` (the adapter never makes either).
    """
    actions = change.actions
    group = change.after or change.before
    if group is None:
        raise ValueError(f"{change.address}: a change without before or after")
    unknown = tuple(p for p in change.unknown if not _under(p, IGNORED))
    change = replace(change, unknown=unknown)
    causes = tuple(p for p in dict.fromkeys(change.changed + unknown)
                   if not _under(p, IGNORED))
    findings: list[Finding] = []
    if unknown:
        findings.append(Finding(UNKNOWN_AFTER_APPLY, "warning", _unknown_text(change)))
    where = str(change.address)
    if "delete" in actions and "create" in actions:
        order: ReplaceOrder = ("create-first" if actions.index("create") < actions.index("delete")
                               else "delete-first")
        why = change.replace_paths or tuple(p for p in causes if _force_new(p)) or causes
        reason = ", ".join(why) or (change.action_reason or "replace requested")
        n_before, n_after = _nodes_of(change.before), _nodes_of(change.after)
        side = ("the new group's nodes are created first: a second whole group "
                f"({counted(n_after, 'node')}) needs quota at once, then all "
                f"{counted(n_before, 'node')} of the "
                "old one are deleted" if order == "create-first" else
                f"all {counted(n_before, 'node')} are deleted before the new group exists")
        findings.append(Finding(
            REPLACE_DELETES_ALL_NODES, "blocking",
            f"{where}: Terraform replaces the node group (actions {_actions(actions)}; caused by "
            f"{reason}): the deploy policy does not apply, {side}"))
        return GroupChange(change.address, "replace", actions, group, change.before, why,
                           change.unknown, tuple(findings), replace_order=order,
                           action_reason=change.action_reason)
    if actions == ("create",):
        return GroupChange(change.address, "create", actions, group, None, (), change.unknown,
                           tuple(findings), action_reason=change.action_reason)
    if actions == ("delete",):
        findings.append(Finding(
            GROUP_DELETED, "warning",
            f"{where}: the node group and its {counted(_nodes_of(change.before), 'node')} "
            "are deleted; "
            "their pods must fit on other groups"))
        return GroupChange(change.address, "delete", actions, group, change.before, (),
                           change.unknown, tuple(findings), action_reason=change.action_reason)
    if actions not in KNOWN_ACTIONS:
        raise ValueError(f"{change.address}: unknown actions {list(actions)}")
    if actions != ("update",) or not causes:
        return GroupChange(change.address, "none", actions, group, change.before, (),
                           change.unknown, tuple(findings))
    taints = tuple(p for p in causes if _under(p, SERVICE_RECREATES))
    if taints:
        findings.append(Finding(
            TAINTS_RECREATE_GROUP, "blocking",
            f"{where}: node_taints change: the service recreates the node group, all "
            f"{counted(_nodes_of(change.before), 'node')} deleted first, the deploy policy "
            "does not "
            "apply (docs: node-group-update.md#assign-taint)"))
        return GroupChange(change.address, "replace", actions, group, change.before, taints,
                           change.unknown, tuple(findings), replace_order="delete-first")
    forced = tuple(p for p in causes if _force_new(p))
    if forced:
        findings.append(Finding(
            REPLACE_DELETES_ALL_NODES, "blocking",
            f"{where}: {', '.join(forced)} changed, ForceNew in the provider schema, yet the "
            f"plan says {_actions(actions)} (a provider whose schema ngupgrade does not know?): "
            f"taken as a replace, the worst case: the deploy policy does not apply, all "
            f"{counted(_nodes_of(change.before), 'node')} are deleted before the new group "
            "exists"))
        return GroupChange(change.address, "replace", actions, group, change.before, forced,
                           change.unknown, tuple(findings), replace_order="delete-first",
                           action_reason=change.action_reason)
    resources = tuple(p for p in change.unknown if _under(p, NODE_RESOURCES))
    if resources:
        findings.append(Finding(
            UNKNOWN_NODE_RESOURCES, "blocking",
            f"{where}: {', '.join(resources)} unknown until apply: what a node consumes cannot "
            "be judged (figures use the values before apply)"))
    roll = tuple(p for p in causes if _under(p, ROLL))
    unclassified = tuple(p for p in causes if not _under(p, ROLL + RESIZE + IN_PLACE))
    if unclassified:
        findings.append(Finding(
            UNCLASSIFIED_ATTRIBUTE, "warning",
            f"{where}: {', '.join(unclassified)}: not known to ngupgrade; taken as a roll "
            "(nodes recreated under the deploy policy), the worst update"))
    if roll or unclassified:
        return _roll(change, group, roll + unclassified, findings)
    resize = tuple(p for p in causes if _under(p, RESIZE))
    if resize:
        return GroupChange(change.address, "resize", actions, group, change.before, resize,
                           change.unknown, tuple(findings))
    return GroupChange(change.address, "in-place", actions, group, change.before, causes,
                       change.unknown, tuple(findings))


def _roll(change: PlannedChange, group: NodeGroup, causes: tuple[str, ...],
          findings: list[Finding]) -> GroupChange:
    new = group.policy
    old = change.before.policy if change.before is not None else None
    quota_policy = new
    if new is not None and old is not None and new != old:
        worse = DeployPolicy(max(new.max_expansion, old.max_expansion),
                             max(new.max_unavailable, old.max_unavailable))
        quota_policy = DeployPolicy(worse.max_expansion, new.max_unavailable)
        findings.append(Finding(
            POLICY_CHANGES_WITH_ROLL, "warning",
            f"{change.address}: deploy_policy {policy_text(old)} -> "
            f"{policy_text(new)} in the same apply as the roll: the "
            "provider sends both in one Update, and which one the service rolls with is not "
            f"documented; planned with the new {policy_text(new)}, quota "
            f"counted with max_expansion {worse.max_expansion}, up to {worse.max_unavailable} "
            "node(s) down at once; apply the policy alone first to be sure"))
    return GroupChange(change.address, "roll", change.actions, group, change.before, causes,
                       change.unknown, tuple(findings), policy=new, quota_policy=quota_policy,
                       action_reason=change.action_reason)


def _unknown_text(change: PlannedChange) -> str:
    taken = []
    for path in change.unknown:
        if _under(path, RESIZE):
            taken.append(f"{path} as {UNKNOWN_SIZE}" if not path.endswith(".min")
                         and not path.endswith(".initial") else f"{path} as 0")
        elif _under(path, ("deploy_policy",)):
            taken.append(f"{path} as {UNKNOWN_POLICY_KNOB}")
        else:
            taken.append(f"{path} as changed")
    return (f"{change.address}: known only after apply: {', '.join(change.unknown)}; "
            f"worst case assumed ({'; '.join(taken)})")


BLOCKING_HINTS = {
    REPLACE_DELETES_ALL_NODES: "a replace deletes every node of the group: make the change one "
                               "the provider updates in place, or accept the downtime outside "
                               "this gate (docs/plan-gate.md)",
    UNKNOWN_NODE_RESOURCES: "node resources known only after apply cannot be judged: make them "
                            "known at plan time (apply what they are computed from first), "
                            "then gate the new plan (docs/plan-gate.md, values known only "
                            "after apply)",
}
"""What to do about each blocking finding code (``taints-recreate-group`` is a replace too)."""


def blocking_hints(findings: Sequence[Finding]) -> list[str]:
    """One hint per kind of blocking finding in ``findings`` (:data:`BLOCKING_HINTS`, in
    their order), so a gate that fails for unknown node resources does not talk of a replace.
    A code without its own hint points at docs/plan-gate.md."""
    kinds = dict.fromkeys(REPLACE_DELETES_ALL_NODES if f.code == TAINTS_RECREATE_GROUP
                          else f.code for f in findings if f.severity == "blocking")
    return [BLOCKING_HINTS.get(code, f"{code}: see docs/plan-gate.md") for code in kinds]


@dataclass(frozen=True)
class PlanVerdict:
    """Every node group's change in one plan, and the findings across groups."""

    changes: tuple[GroupChange, ...]
    findings: tuple[Finding, ...]

    @property
    def blocking(self) -> tuple[Finding, ...]:
        """Blocking findings of every group, in group order."""
        return tuple(f for c in self.changes for f in c.findings if f.severity == "blocking")

    def of_kind(self, *kinds: ChangeKind) -> tuple[GroupChange, ...]:
        return tuple(c for c in self.changes if c.kind in kinds)


def classify_plan(changes: Sequence[PlannedChange], *, sequential: bool = False) -> PlanVerdict:
    """Classify every group and add what concerns several of them
    (iits-consulting/terraform-opentelekomcloud-project-factory#62).

    Terraform applies independent resources in parallel (``terraform apply -parallelism``,
    default 10), so groups that roll, are replaced or created in one apply are sent at the
    same time; the service runs one operation of a cluster at a time (a second one waits or
    is refused: :func:`ngupgrade.core.quota.demand.concurrency`), so the preflight counts one
    group of each cluster at a time and the clusters together, unless ``sequential`` (right
    only with ``-parallelism=1``), and the finding says so.
    """
    classified = tuple(classify(c) for c in changes)
    busy = [c for c in classified if c.kind in CHANGING_KINDS]
    findings: list[Finding] = []
    if len(busy) > 1:
        names = ", ".join(f"{c.address} ({c.kind})" for c in busy)
        how = ("counted one after another (--sequential): true only with `terraform apply "
               "-parallelism=1`" if sequential else
               "the service runs one operation of a cluster at a time (a group's Update waits "
               "or is refused while another runs), so the extra nodes of one group of each "
               "cluster are counted at a time, the clusters' together (--sequential if you "
               "apply with -parallelism=1)")
        findings.append(Finding(
            ROLLS_TOGETHER, "info",
            f"{len(busy)} node groups change in one apply and Terraform changes them at the "
            f"same time: {names}; {how}"))
    return PlanVerdict(classified, tuple(findings))
