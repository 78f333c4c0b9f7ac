"""The drain check as the advisor's workload judge. Pure.

:class:`DrainJudge` is a :class:`~ngupgrade.core.advise.judge.WorkloadJudge`: for one policy it
plans the group as ``ngupgrade plan`` would (:func:`ngupgrade.core.simulate.plan_group`, the
same ``N``), runs the plan on a :class:`~ngupgrade.core.drain.drain_model.DrainModel` built once for
the group (docs/drain.md), and returns the blocking findings as reasons, keeping their
stable codes (``pdb-blocks-eviction``, ``pods-do-not-fit``, ``forced-stop``...), except those
whose code the user accepted (``--accept CODE``, as ``drain-check`` and the upgrade's drain
gate take it: :func:`ngupgrade.core.drain.findings.fails`): a policy blocked only by accepted
findings is allowed, and the judge keeps what it waived. The search asks it only for the
members of the front, each at most once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ngupgrade.core.advise.judge import Reason
from ngupgrade.core.drain.check import check_model
from ngupgrade.core.drain.drain_model import DrainModel
from ngupgrade.core.drain.findings import CONSTRAINT_NOT_MODELLED
from ngupgrade.core.drain.index import ClusterIndex
from ngupgrade.core.k8s import ClusterSnapshot
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.platform import DrainRules, platform_of
from ngupgrade.core.simulate import plan_group

DRAIN_ACCEPTED = "drain-finding-accepted"
"""The advice's warning: the policy to apply has drain findings the user accepted."""


@dataclass
class DrainJudge:
    """Judges the workloads of ``group`` planned at ``nodes`` nodes (the advisor's ``N``)
    under each policy, in ``cluster`` (pass one :class:`ClusterIndex` for every group of a
    cluster). ``rules`` None: the group's platform's (``platform_of(group).drain``). ``checked``
    counts the drain simulations run; ``unmodelled`` keeps, per subject, the message of each
    ``constraint-not-modelled`` finding seen (the check cannot clear those pods: the advice
    says so instead of recommending as if clear). ``accepted``: the finding codes the user
    accepted (``--accept``): they block no policy, and an accepted
    ``constraint-not-modelled`` is not kept in ``unmodelled`` (the user checked those pods);
    ``waived`` keeps, per effective policy, the reasons accepted (one per code and subject),
    for the report to name.
    """

    group: NodeGroup
    cluster: ClusterSnapshot | ClusterIndex
    nodes: int
    rules: DrainRules | None = None
    accepted: frozenset[str] = frozenset()
    checked: int = 0
    unmodelled: dict[str, str] = field(default_factory=dict)
    waived: dict[DeployPolicy, list[Reason]] = field(default_factory=dict)
    _model: DrainModel | None = field(default=None, repr=False)

    def __call__(self, policy: DeployPolicy) -> list[Reason]:
        """The blocking findings of the drain under ``policy`` (an effective one) that were
        not accepted, one reason per code and subject (the message of the first)."""
        if self._model is None:
            self._model = DrainModel.build(self.group, self.cluster)
        plan = plan_group(self.group, live_size=self.nodes, max_expansion=policy.max_expansion,
                          max_unavailable=policy.max_unavailable)
        report = check_model(self._model, plan, self.rules or platform_of(self.group).drain)
        self.checked += 1
        for finding in report.findings:
            if finding.code == CONSTRAINT_NOT_MODELLED and finding.code not in self.accepted:
                self.unmodelled.setdefault(finding.subject, finding.message)
        seen: set[tuple[str, str]] = set()
        out: list[Reason] = []
        waived: list[Reason] = []
        for finding in report.blocking:
            if finding.key not in seen:
                seen.add(finding.key)
                reason = Reason(finding.code, finding.message)
                (waived if finding.code in self.accepted else out).append(reason)
        if waived:
            self.waived[policy] = waived
        return out
