"""The drain check's entry points: one group against its plan, or every group. Pure.

Usage (the integrator's ``app/drain_check.py`` and the advisor)::

    index = ClusterIndex.build(snapshot)                  # once per cluster
    model = DrainModel.build(group, index)                # once per group
    report = check_model(model, plan)                     # per candidate plan (fast)
    report = check_group(group, plan, snapshot)           # the same in one call
    reports = check_groups([(group, plan), ...], snapshot, YANDEX_DRAIN_RULES)

Each plan's timeline is followed wave by wave (:mod:`walk`) for several orders of the
group's nodes (:mod:`waves`); the report keeps the worst order's waves and the findings of
all orders, each saying whether it happens in every order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ngupgrade.core.drain.drain_model import DrainModel
from ngupgrade.core.drain.findings import (
    DRAIN_DEPENDENT,
    GROUP_SIZE_MISMATCH,
    NO_PODS_ON_NODES,
    ORDER_INDEPENDENT,
    SINGLE_REPLICA_DISRUPTED,
    Finding,
)
from ngupgrade.core.drain.index import SCALABLE_KINDS, ClusterIndex
from ngupgrade.core.drain.walk import OrderResult, WaveSummary, walk
from ngupgrade.core.drain.waves import orders, wave_shapes
from ngupgrade.core.k8s import ClusterSnapshot
from ngupgrade.core.membership import membership_text
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.platform import YANDEX_DRAIN_RULES, DrainRules
from ngupgrade.core.simulate import GroupPlan

_SEVERITY_RANK = {"blocking": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class GroupDrainReport:
    """What the upgrade of one group does to its pods.

    ``policy`` the effective deploy policy checked; ``waves`` those of the worst order;
    ``findings`` of every order evaluated (blocking first); ``orders`` how many orders were
    run and ``exhaustive`` whether they were all the possible ones; ``rules`` the platform
    reaction used (``rules.nodes_at_once`` says whether a wave's nodes drain together).
    """

    address: str
    group_id: str
    policy: DeployPolicy
    nodes: tuple[str, ...]
    waves: tuple[WaveSummary, ...]
    findings: tuple[Finding, ...]
    orders: int
    exhaustive: bool
    rules: DrainRules

    @property
    def blocking(self) -> tuple[Finding, ...]:
        """The findings that mean downtime or data loss."""
        return tuple(f for f in self.findings if f.severity == "blocking")

    @property
    def ok(self) -> bool:
        """No blocking finding in any order evaluated."""
        return not self.blocking

    @property
    def verdict(self) -> str:
        """``blocked``, ``not-modelled`` (a constraint the check cannot judge), ``warnings``
        or ``clear``."""
        if self.blocking:
            return "blocked"
        if any(f.code == "constraint-not-modelled" for f in self.findings):
            return "not-modelled"
        if any(f.severity == "warning" for f in self.findings):
            return "warnings"
        return "clear"


@dataclass(frozen=True)
class DrainReport:
    """Every group's report; ``ok`` when none has a blocking finding."""

    groups: tuple[GroupDrainReport, ...]

    @property
    def ok(self) -> bool:
        """True when no group has a blocking finding."""
        return all(g.ok for g in self.groups)


def check_model(model: DrainModel, plan: GroupPlan,
                rules: DrainRules = YANDEX_DRAIN_RULES) -> GroupDrainReport:
    """Run ``plan`` (a plan of ``model.group``) under ``rules`` on the model: the orders of
    the group's nodes, each walked wave by wave; the worst order's waves, every order's
    findings."""
    shapes = wave_shapes(plan.timeline, plan.effective.max_unavailable)
    model.add_surge(sum(s.created for s in shapes))
    nodes = model.group_nodes
    sizes, left = [], len(nodes)
    for shape in shapes:  # the real nodes fill the plan's waves; fewer nodes, shorter waves
        sizes.append(min(shape.drain, left))
        left -= sizes[-1]
    extra: list[Finding] = []
    if len(nodes) != plan.nodes:
        extra.append(Finding(
            GROUP_SIZE_MISMATCH, "warning",
            f"the plan has {plan.nodes} node(s), the cluster {len(nodes)} "
            f"{membership_text(model.group)}: waves follow the plan"
            + (f"; {left} node(s) are not drained in this check" if left > 0 else ""),
            subject=model.group.id))
    extra += _no_pods(model)
    assignments, exhaustive = orders(nodes, sizes, load=model.load, concerns=model.concerns())
    results = [walk(model, shapes, a, rules) for a in assignments] or [OrderResult()]
    worst = max(results, key=lambda r: r.score)
    findings = _merge(worst, results, exhaustive) + extra
    findings += _single_replica(model, len(shapes), results)
    findings.sort(key=lambda f: (_SEVERITY_RANK[f.severity], f.wave or 0, f.code, f.subject))
    return GroupDrainReport(
        address=str(model.group.address), group_id=model.group.id, policy=plan.effective,
        nodes=nodes, waves=tuple(worst.waves), findings=tuple(findings),
        orders=len(assignments), exhaustive=exhaustive, rules=rules)


def _no_pods(model: DrainModel) -> list[Finding]:
    """A warning when the group has nodes and the objects no pod on them (a dump of the nodes
    alone, ``kubectl get nodes -o json``): the drain is then clear because nothing was
    checked, which the report must say."""
    nodes = model.group_nodes
    if not nodes or any(model.pods_on.get(name) for name in nodes):
        return []
    pdbs = "" if model.index.snapshot.pdbs else ", and no PodDisruptionBudget"
    return [Finding(
        NO_PODS_ON_NODES, "warning",
        f"the cluster objects hold no pod on the group's {len(nodes)} node(s){pdbs}: nothing "
        "was checked for workloads (export the pods and PDBs too: kubectl get "
        "nodes,pods,pdb,... -A -o json)", subject=model.group.id)]


def _merge(worst: OrderResult, results: Sequence[OrderResult], exhaustive: bool
           ) -> list[Finding]:
    """The worst order's findings, then those only other orders show; ``every_order`` is
    True when the finding's key shows in every order and that was all of them (or its code
    cannot depend on the order; where an order's run stopped the upgrade, not the codes that
    hold only because every node drains, :data:`DRAIN_DEPENDENT`)."""
    stops = any(r.stopped_at is not None for r in results)
    independent = ORDER_INDEPENDENT - DRAIN_DEPENDENT if stops else ORDER_INDEPENDENT
    keys_per_order = [{f.key for f in r.findings} for r in results]
    out: list[Finding] = []
    taken: set[tuple[str, str]] = set()
    for result in [worst, *(r for r in results if r is not worst)]:
        for finding in result.findings:
            if result is not worst and finding.key in taken:
                continue
            found = sum(finding.key in keys for keys in keys_per_order)
            every = finding.code in independent or (exhaustive and found == len(results))
            out.append(_with_every(finding, every, found, len(results)))
        taken |= {f.key for f in result.findings}
    return out


def _with_every(finding: Finding, every: bool, found: int, evaluated: int) -> Finding:
    return Finding(**{**finding.__dict__, "every_order": every, "orders_found": found,
                      "orders_evaluated": evaluated})


def _single_replica(model: DrainModel, waves: int, results: Sequence[OrderResult]
                    ) -> list[Finding]:
    """Single-replica workloads: how often each is down. Up to ``1 + min(w - 1, h)`` times,
    ``w`` the waves that run and ``h`` the other nodes of the group that could take the pod
    (it moves onto an old node that drains later: the Selectel strategy page, "Обновление с
    дополнительными нодами", descheduler#650). The Selectel strategy page's 5 nodes at 2/0: 3 cycles
    -> up to 3 times.

    Whether it is down at all is what each order's run saw (``OrderResult.downs``): on Yandex
    in every order (every node drains, and a refused eviction ends in the forced stop); under
    a platform that stops the upgrade on a refused eviction (Selectel, the strategy page, "Если PDB
    не дает вытеснить поды": the blocked node stays old and running, later waves do not run), not in
    an order that stops before evicting it, and never when its own eviction is refused
    (``OrderResult.held``).
    """
    if waves == 0:
        return []
    index = model.index
    out = []
    seen: set[str] = set()
    for name in model.group_nodes:
        for pod in model.pods_on[name]:
            owner = index.top_owner.get(pod.ref)
            if (owner is None or owner in seen or owner.split(" ", 1)[0] not in SCALABLE_KINDS
                    or index.replicas.get(owner) != 1 or pod.phase != "Running"):
                continue
            seen.add(owner)
            hosts = 0 if index.local_pv.get(pod.ref) else model.hosts_for(
                pod, index.volume_terms.get(pod.ref, ()))
            down = [r for r in results if r.downs.get(pod.ref)]
            run = max((r.stopped_at or waves for r in down), default=waves)
            times = 1 + min(run - 1, hosts) if down else 0
            out.append(Finding(
                SINGLE_REPLICA_DISRUPTED, "warning",
                f"{owner} runs 1 replica ({pod.ref} on {name}): " + _single_text(
                    pod.ref, name, waves, run, hosts, len(down), results),
                pod=pod.ref, node=name, count=times, subject=owner,
                every_order=len(down) == len(results), orders_found=len(down),
                orders_evaluated=len(results)))
    return out


def _single_text(ref: str, node: str, waves: int, run: int, hosts: int, down: int,
                 results: Sequence[OrderResult]) -> str:
    """What :func:`_single_replica` says of one pod, down in ``down`` of the ``results``
    (``run`` waves at most where it is down)."""
    moved = "a pod moved onto an old node is evicted again when that node drains"
    span = (f"{waves} wave(s)" if run == waves
            else f"{run} of {waves} wave(s) before the upgrade stops")
    worst = f"up to {1 + min(run - 1, hosts)} time(s) in the worst ({span}; {moved})"
    total = len(results)
    if down == total:
        return f"down at least once in every order, {worst}"
    stops = any(r.stopped_at is not None for r in results)
    why = (f"the upgrade stops (upgrade-stops) before it is evicted and it keeps running on "
           f"{node}" if stops else
           "its node is not drained in this check (the plan has fewer nodes: "
           "group-size-mismatch)")
    if down:
        return (f"down in {down} of the {total} order(s) evaluated, {worst}; in the other "
                f"{total - down} {why}")
    if stops and all(ref in r.held for r in results):
        why = ("its eviction is refused (pdb-blocks-eviction), so the upgrade stops "
               f"(upgrade-stops) with it still running on {node}")
    then = "once the upgrade can pass" if stops else "in an upgrade that drains its node"
    return (f"not taken down in any of the {total} order(s) evaluated: {why}; {then}, it is "
            f"down at least once, up to {1 + min(waves - 1, hosts)} time(s) ({waves} "
            f"wave(s); {moved})")


def check_group(group: NodeGroup, plan: GroupPlan, cluster: ClusterSnapshot | ClusterIndex,
                rules: DrainRules = YANDEX_DRAIN_RULES) -> GroupDrainReport:
    """Check one group's plan against the cluster (builds the model; for many plans of one
    group, build a :class:`DrainModel` once and call :func:`check_model`)."""
    return check_model(DrainModel.build(group, cluster), plan, rules)


def check_groups(plans: Iterable[tuple[NodeGroup, GroupPlan]],
                 cluster: ClusterSnapshot | ClusterIndex,
                 rules: DrainRules = YANDEX_DRAIN_RULES) -> DrainReport:
    """Check every ``(group, plan)`` against one cluster (indexed once)."""
    index = cluster if isinstance(cluster, ClusterIndex) else ClusterIndex.build(cluster)
    return DrainReport(tuple(check_group(g, p, index, rules) for g, p in plans))
