"""Use case ``drain-check``: what each wave of the upgrade does to the pods it evicts.

Reads the node groups (state, or the rolls of a Terraform plan) and the cluster objects
(kubectl ``List`` dumps, or the live API through a kubeconfig: one parser behind both,
``adapters/kube``), plans each group with the group's size taken from the cluster (its nodes
as :mod:`ngupgrade.core.membership` finds them: Yandex's group-id label, Selectel's node
hostnames in the state; as the live count is for ``plan``), and runs the pure
drain simulation (:mod:`ngupgrade.core.drain`) under the group's platform rules. Read-only.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from ngupgrade.app.load import (
    forced_platform,
    load_groups,
    other_input,
    refuse_empty,
    selection_platform,
)
from ngupgrade.app.settings import Settings
from ngupgrade.app.upgrade_plan import UpgradePlanRequest, plan_node_groups
from ngupgrade.core.change import GroupChange
from ngupgrade.core.drain.check import DrainReport, GroupDrainReport, check_group
from ngupgrade.core.drain.findings import (
    CONSTRAINT_NOT_MODELLED,
    GROUP_REMOVED,
    GROUP_SIZE_MISMATCH,
    Finding,
    fails,
)
from ngupgrade.core.drain.index import ClusterIndex
from ngupgrade.core.errors import BadInput, UsageError
from ngupgrade.core.k8s import ClusterSnapshot
from ngupgrade.core.membership import group_node_names, membership_text, nodes_per_group
from ngupgrade.core.model import FixedScale, NodeGroup
from ngupgrade.core.plan_warnings import NODES_OVERRIDE_UNUSED
from ngupgrade.core.platform import platform_of
from ngupgrade.core.policy import ResolvedPolicy, check_overrides, resolve
from ngupgrade.core.simulate import DEFAULT_MINUTES_PER_CYCLE, Duration, GroupPlan

if TYPE_CHECKING:
    from ngupgrade.adapters.kube.decode import KubeRead
    from ngupgrade.app.tfplan import TfPlanGate

REMOVES_NODES = ("replace", "delete")
"""Plan change kinds that delete a group's nodes at once instead of draining them."""


@dataclass(frozen=True)
class ClusterSource:
    """Where the cluster objects come from: dump ``files`` (``-`` is stdin), or the live API
    through ``kubeconfig`` (None: ``$KUBECONFIG`` / ``~/.kube/config``) and ``context``."""

    files: tuple[str, ...] = ()
    live: bool = False
    kubeconfig: str | None = None
    context: str | None = None

    @property
    def given(self) -> bool:
        """True when either input was asked for."""
        return bool(self.files) or self.live


def read_cluster(source: ClusterSource) -> KubeRead:
    """Read the cluster objects once.

    Raises:
        UsageError: both inputs, or neither, were given (exit 2).
        BadInput: a dump cannot be read (exit 3, names the file and JSON path).
        KubeApiError: the live API failed (exit 4, hint: check the kubeconfig and context).
    """
    if source.files and source.live:
        raise UsageError("give the cluster objects one way: --cluster FILE or "
                         "--kubeconfig/--context, not both")
    if source.files:
        from ngupgrade.adapters.kube.dump import read_dumps

        try:
            with _bulk_read():
                return read_dumps(source.files)
        except BadInput as err:
            raise _named(err, source.files) from err
    if source.live:
        from ngupgrade.adapters.kube.live import read_live

        with _bulk_read():
            return read_live(source.kubeconfig, source.context)
    raise UsageError("no cluster objects: pass --cluster FILE (kubectl get nodes,pods,pdb,"
                     "deployments,replicasets,statefulsets,daemonsets,pvc,pv -A -o json) or "
                     "--kubeconfig PATH / --context NAME")


def _named(err: BadInput, files: Sequence[str]) -> BadInput:
    """``err``, or, when the file it names holds a Terraform state or plan or a quota file,
    the error that says so and names the flag that takes it (:func:`other_input`)."""
    path = err.source
    if path is None or path not in files or path == "-":
        return err
    from ngupgrade.adapters.documents import read_bounded

    try:
        data = read_bounded(path, "cluster dump")
    except BadInput:
        return err
    return other_input(data, path, "--cluster") or err


@contextmanager
def _bulk_read() -> Iterator[None]:
    """No cyclic garbage collection while the cluster is read, and what was read is frozen
    out of it afterwards (``gc.freeze``).

    Why: a dump at Kubernetes' limits (150,000 pods) becomes millions of small acyclic
    objects that live until the command ends; each full collection walks all of them, 12
    times during such a read and again on every later one while the check runs (the
    bench of ``bench/bench_drain_check.py``: reading 6.9 s -> 4.4 s CPU, indexing 2.4 s -> 1.2 s).
    Reference counting still frees what is dropped; only cycles among the frozen objects would stay
    until exit.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


DRAIN_HINT = ("fix what blocks the drain (a PDB, room for the evicted pods, a bare pod) or "
              "choose a slower deploy policy (`ngupgrade advise`); after reading a finding, "
              "--accept CODE proceeds past it")
"""What to do about a failed drain check, in every gate (``preflight --cluster``, the
upgrade's pre-change gate)."""


@dataclass(frozen=True)
class DrainCheckRequest:
    """What the user asked ``drain-check`` for.

    ``max_expansion``/``max_unavailable`` override the state's policy; ``nodes`` is the size
    of a group with no node in the cluster objects; ``nodes_at_once`` overrides the platform's
    reading of how a wave drains (``wave``: together; ``one``: one node after another).
    ``accept``: finding codes the user has read and proceeds past; ``strict``: warnings fail.
    """

    selectors: tuple[str, ...] = ()
    cluster: ClusterSource = field(default_factory=ClusterSource)
    max_expansion: int | None = None
    max_unavailable: int | None = None
    nodes: int | None = None
    minutes_per_cycle: float = DEFAULT_MINUTES_PER_CYCLE
    nodes_at_once: Literal["wave", "one"] | None = None
    accept: frozenset[str] = frozenset()
    strict: bool = False
    policies: Mapping[str, ResolvedPolicy] = field(default_factory=dict)
    """By Terraform address, a policy already decided with its source (the upgrade gate's),
    planned as it is (:class:`ngupgrade.app.upgrade_plan.UpgradePlanRequest`)."""


@dataclass(frozen=True)
class DrainCheckResult:
    """The drain report plus what decides the exit code.

    ``failing``: (group address, finding) pairs that fail the check: blocking findings whose
    code is not accepted, ``constraint-not-modelled`` ones unless accepted (docs/drain.md:
    "never a pass"), and with ``strict`` the warnings too. ``unmatched``: the ids of the
    selected groups when none of them has a node in the cluster objects (a dump of another
    cluster, an empty List, a kubeconfig on the wrong context): the check failed, nothing
    was checked.
    """

    report: DrainReport
    notes: tuple[str, ...]
    accepted: frozenset[str]
    strict: bool
    unmatched: tuple[str, ...] = ()
    durations: Mapping[str, Duration] = field(default_factory=dict)
    """Per group address, the plan's estimated wall time (``--cycle-minutes`` per cycle)."""
    plans: Mapping[str, GroupPlan] = field(default_factory=dict)
    """Per group address, the plan the waves follow (its configured policy, the policy's
    source and the effective one, for the report's header); none for a group a Terraform
    plan replaces or deletes."""
    groups: tuple[NodeGroup, ...] = ()
    """The groups checked, for the reports' state notes (``NodeGroup.notes``)."""

    @property
    def failing(self) -> tuple[tuple[str, Finding], ...]:
        """What fails the check, in report order."""
        return tuple((g.address, f) for g in self.report.groups for f in g.findings
                     if fails(f, accepted=self.accepted, strict=self.strict))

    @property
    def ok(self) -> bool:
        """True when nothing fails the check and some group had nodes to check."""
        return not self.failing and not self.unmatched

    @property
    def verdict(self) -> str:
        """The overall verdict after ``--accept``/``--strict``: ``no-group-nodes`` (see
        ``unmatched``), ``blocked`` (a blocking finding fails), ``not-modelled`` (only
        unmodelled constraints fail), ``failed-strict`` (only warnings fail, under
        ``--strict``) or ``ok``."""
        failing = [f for _, f in self.failing]
        if self.unmatched:
            return "no-group-nodes"
        if any(f.severity == "blocking" for f in failing):
            return "blocked"
        if any(f.code == CONSTRAINT_NOT_MODELLED for f in failing):
            return "not-modelled"
        return "failed-strict" if failing else "ok"

    def failure_hint(self) -> str:
        """What to do about a failed check, the one wording of every gate (``drain-check``,
        ``preflight --cluster``, the upgrade's pre-change gate): the cluster objects of
        another cluster, a constraint the check does not model, or a blocking finding."""
        if self.unmatched:
            return ("is this the group's cluster? check --cluster, or --kubeconfig and "
                    "--context (a Yandex group's nodes carry the label "
                    "yandex.cloud/node-group-id; a Selectel group's are the state's "
                    "nodes[].hostname)")
        if self.verdict == "not-modelled":
            return ("check by hand where those pods can go (their anti-affinity, pod affinity "
                    "or topology spread), then --accept constraint-not-modelled")
        return DRAIN_HINT

    def failure_summary(self) -> str:
        """One line naming the first failing findings (the error message of a failed check)."""
        if self.unmatched:
            return ("drain check failed: no node in the cluster objects belongs to a selected "
                    "group (" + ", ".join(self.unmatched) + "): nothing was checked")
        # the same finding may show in several orders of the waves: name it once; name each
        # group once, then its first codes
        per_group: dict[str, list[str]] = {}
        for address, f in self.failing:
            named = f.code + (f" ({f.pod or f.subject})" if f.pod or f.subject else "")
            if named not in per_group.setdefault(address, []):
                per_group[address].append(named)
        parts, shown = [], 0
        for address, codes in per_group.items():
            if shown < 5:
                parts.append(f"{address}: " + ", ".join(codes[:5 - shown]))
            shown += len(codes)
        more = shown - 5
        return ("drain check failed: " + "; ".join(parts)
                + (f"; and {more} more" if more > 0 else ""))


def check_plans(pairs: Iterable[tuple[NodeGroup, GroupPlan]], snapshot: ClusterSnapshot,
                nodes_at_once: Literal["wave", "one"] | None = None) -> DrainReport:
    """Drain-check each ``(group, plan)`` against one cluster, indexed once, each group under
    its own platform's drain rules (:attr:`ngupgrade.core.platform.Platform.drain`)."""
    index = ClusterIndex.build(snapshot)
    reports: list[GroupDrainReport] = []
    for group, plan in pairs:
        rules = platform_of(group).drain
        if nodes_at_once is not None and nodes_at_once != rules.nodes_at_once:
            rules = replace(rules, nodes_at_once=nodes_at_once)
        reports.append(check_group(group, plan, index, rules))
    return DrainReport(tuple(reports))


def drain_check(settings: Settings, request: DrainCheckRequest) -> DrainCheckResult:
    """Load the groups (or the plan's rolls) and the cluster, plan, and drain-check them.

    Raises:
        PolicyInvalid: an invalid override or policy (exit 1).
        UsageError: no or two cluster inputs; a selector names no group (exit 2).
        BadInput: the state, plan or a dump cannot be read (exit 3).
        KubeApiError: the live cluster cannot be read (exit 4).
    """
    check_overrides(request.max_expansion, request.max_unavailable, forced_platform(settings))
    if not request.cluster.given:
        read_cluster(request.cluster)  # raises the usage error before any read
    if settings.plan is None:
        groups = load_groups(settings, request.selectors)
        refuse_empty(groups, request.strict, "drain-check")
        check_overrides(request.max_expansion, request.max_unavailable,
                        selection_platform(groups))
        return drain_check_groups(groups, request)
    from ngupgrade.app.tfplan import load_plan

    check_overrides(request.max_expansion, request.max_unavailable,
                    selection_platform(()))  # a plan's groups: Yandex's fixed bounds, as before
    return drain_gate((), request, plan=load_plan(settings, request.selectors))


def drain_gate(groups: Sequence[NodeGroup], request: DrainCheckRequest, *,
               plan: TfPlanGate | None = None) -> DrainCheckResult:
    """The drain check a gate chains after its quota check (``drain-check``, ``preflight
    --cluster``, ``preflight --plan --cluster``, the upgrade's pre-change gate): ``groups``
    under the policies they are checked with, or with a Terraform ``plan`` the groups it
    rolls and the ones it deletes at once (:func:`plan_drains`; ``groups`` is then ignored).

    Raises:
        UsageError, BadInput, KubeApiError: as :func:`read_cluster`.
    """
    if plan is None:
        return drain_check_groups(groups, request)
    rolls, removed = plan_drains(plan)
    return drain_check_groups(rolls, request, removed=removed)


def plan_drains(gate: TfPlanGate) -> tuple[list[NodeGroup], list[GroupChange]]:
    """What a Terraform plan drains: the groups whose nodes it rolls (their planned values,
    under the policy in force during the roll, :mod:`ngupgrade.core.change`), and the changes
    that delete a group's nodes all at once (``replace``, ``delete``: no drain policy applies,
    yandex-cloud/terraform-provider-yandex#113)."""
    rolls = [replace(c.group, policy=c.policy or c.group.policy) for c in gate.rolls()]
    removed = [c for c in gate.changes if c.kind in REMOVES_NODES]
    return rolls, removed


def drain_check_groups(groups: Sequence[NodeGroup], request: DrainCheckRequest, *,
                       removed: Sequence[GroupChange] = ()) -> DrainCheckResult:
    """Drain-check groups already loaded (``preflight --cluster`` reads the state once);
    ``removed``: a plan's changes that delete a group's nodes at once (one blocking
    ``group-removed`` finding each, see :func:`removed_group_report`).

    Raises:
        UsageError, BadInput, KubeApiError: as :func:`read_cluster`.
    """
    read = read_cluster(request.cluster)
    sizes = nodes_per_group([*groups, *(c.before or c.group for c in removed)],
                            read.snapshot.nodes)
    plans = plan_node_groups(groups, _plan_request(request), live_sizes=sizes)
    report = check_plans(zip(groups, plans, strict=True), read.snapshot, request.nodes_at_once)
    report = DrainReport(tuple(_with_size_drift(r, g, p)
                               for r, g, p in zip(report.groups, groups, plans, strict=True)))
    if removed:
        report = DrainReport(report.groups + tuple(
            removed_group_report(c, read.snapshot) for c in removed))
    every = [*groups, *(c.before or c.group for c in removed)]
    notes = read.notes + _missing_nodes(every, sizes) + tuple(
        f"{g.address}: {w.message}" for g, p in zip(groups, plans, strict=True)
        for w in p.warnings if w.code == NODES_OVERRIDE_UNUSED)
    # a dump of another cluster (or the wrong context) must not pass the gate (exit 1)
    unmatched = tuple(g.id for g in every) if every and not any(
        g.id in sizes for g in every) else ()
    durations = {str(g.address): p.duration for g, p in zip(groups, plans, strict=True)}
    return DrainCheckResult(report, notes, request.accept, request.strict, unmatched,
                            durations, {str(g.address): p
                                        for g, p in zip(groups, plans, strict=True)},
                            tuple(every))


def _with_size_drift(report: GroupDrainReport, group: NodeGroup, plan: GroupPlan
                     ) -> GroupDrainReport:
    """A fixed group whose nodes in the cluster are not the state's size: a
    ``group-size-mismatch`` warning saying which count the waves follow (the cluster's, as
    the upgrade starts from what exists: :func:`ngupgrade.core.simulate.choose_nodes`) and
    what an offline ``plan`` says (the state's size)."""
    if not isinstance(group.scale, FixedScale) or plan.nodes_source != "live":
        return report
    size = group.scale.size
    finding = Finding(
        GROUP_SIZE_MISMATCH, "warning",
        f"the cluster has {plan.nodes} node(s) {membership_text(group)}, the Terraform state "
        f"says fixed size {size}: the waves follow the cluster's {plan.nodes} "
        f"({plan.cycles.max} wave(s)); `ngupgrade plan` without the live count plans {size} "
        "node(s), and the next `terraform apply` resizes the group to "
        f"{size}", subject=group.id)
    return replace(report, findings=(*report.findings, finding))


def removed_group_report(change: GroupChange, snapshot: ClusterSnapshot) -> GroupDrainReport:
    """The drain report of a group that a plan replaces or deletes: its nodes go all at once,
    without a drain under the deploy policy (plan gate yandex-cloud/terraform-provider-yandex#113,
    docs/plan-gate.md), so every pod of a workload on them goes down together: one blocking
    ``group-removed`` finding naming how many nodes and pods (DaemonSet, mirror and finished pods
    are not counted: they go with their node whatever the upgrade)."""
    group = change.before or change.group
    nodes = group_node_names(group, snapshot.nodes)
    on_group = set(nodes)
    pods = [p for p in snapshot.pods if p.node_name in on_group and not p.mirror
            and p.phase in ("Running", "Pending")
            and (p.owner is None or p.owner.kind != "DaemonSet")]
    verb = "replaces" if change.kind == "replace" else "deletes"
    size = f"its {len(nodes)} node(s)" if nodes else "all its nodes"
    finding = Finding(
        GROUP_REMOVED, "blocking",
        f"Terraform {verb} the node group (actions {json.dumps(list(change.actions))}): "
        f"{size} are deleted at once, not drained under the deploy policy, so all "
        f"{len(pods)} pod(s) on them go down together",
        node=None, count=len(pods), subject=group.id)
    return GroupDrainReport(
        address=str(group.address), group_id=group.id,
        policy=resolve(group.policy, platform=platform_of(group)).policy, nodes=nodes,
        waves=(), findings=(finding,), orders=0, exhaustive=True,
        rules=platform_of(group).drain)


def _plan_request(request: DrainCheckRequest) -> UpgradePlanRequest:
    return UpgradePlanRequest(selectors=request.selectors, max_expansion=request.max_expansion,
                              max_unavailable=request.max_unavailable, nodes=request.nodes,
                              minutes_per_cycle=request.minutes_per_cycle,
                              policies=request.policies)


def _missing_nodes(groups: Sequence[NodeGroup], sizes: Mapping[str, int]) -> tuple[str, ...]:
    return tuple(
        f"{g.address}: no node in the cluster objects is {membership_text(g)}; planned "
        "from the state's size, no pod is checked"
        for g in groups if g.id not in sizes)
