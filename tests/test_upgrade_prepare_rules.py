"""upgrade/prepare.py's rules on plain values: the policy a live group runs when Terraform
declares another (an unset API policy is the server's 3/0), the size an upgrade is planned
with (the journal's start, else the configured fixed size while an operation runs, else the
live count), and the knobs a resumed run keeps."""

from __future__ import annotations

from ngupgrade.adapters.cloud.types import LiveNode, LiveNodeGroup, OperationState
from ngupgrade.adapters.files.journal import Journal
from ngupgrade.core.model import DeployPolicy, FixedScale
from ngupgrade.testing import node_group
from ngupgrade.upgrade import prepare
from ngupgrade.upgrade.values import UpgradeOptions

GROUP = node_group(size=3, policy=DeployPolicy(1, 0))


def live(policy: DeployPolicy | None, scale: FixedScale | None = None) -> LiveNodeGroup:
    return LiveNodeGroup(GROUP.id, "workers", GROUP.cluster_id, "RUNNING", "1.29", policy,
                         scale)


def nodes(count: int) -> list[LiveNode]:
    return [LiveNode(f"i{n}", "RUNNING") for n in range(count)]


def test_policy_drift_is_the_live_policy_only_when_terraform_declares_another() -> None:
    assert prepare.policy_drift(live(DeployPolicy(1, 0)), GROUP) is None
    assert prepare.policy_drift(live(DeployPolicy(2, 1)), GROUP) == DeployPolicy(2, 1)
    assert prepare.policy_drift(live(None), GROUP) == DeployPolicy(3, 0)  # the server default
    undeclared = node_group(size=3, policy=None)
    assert prepare.policy_drift(live(DeployPolicy(2, 1)), undeclared) is None


def journal(**changes: object) -> Journal:
    values: dict[str, object] = dict(
        group_id=GROUP.id, address=str(GROUP.address), name="workers", target="1.30",
        latest_revision=False, start_version="1.29", start_nodes=3, start_node_ids=[],
        start_policy=DeployPolicy(1, 0), terraform_policy=DeployPolicy(1, 0),
        restore_policy=False, override=None)
    values.update(changes)
    return Journal(**values)  # type: ignore[arg-type]


def test_the_size_to_plan_with_is_the_group_s_before_this_upgrade() -> None:
    op = OperationState("op-1", "Update node group", done=False)
    mid = prepare._Seen(live(DeployPolicy(2, 1), FixedScale(3)), nodes(5), None, op)
    assert prepare._start_nodes(mid, GROUP, None) == 3        # not the 5 with its surge
    idle = prepare._Seen(live(DeployPolicy(1, 0)), nodes(4), None, None)
    assert prepare._start_nodes(idle, GROUP, None) == 4       # the live count
    assert prepare._start_nodes(mid, GROUP, journal(start_nodes=6)) == 6  # the journal's


def test_a_resume_without_flags_keeps_the_journal_s_policy_named_as_it_was_chosen() -> None:
    resumed = journal(override=DeployPolicy(2, 0), override_source="advised")
    plain = UpgradeOptions(version="1.30", resume=True)
    assert prepare._policy_to_plan(plain, resumed) == (2, 0, "advised")
    flags = UpgradeOptions(version="1.30", resume=True, max_expansion=1, max_unavailable=0)
    assert prepare._policy_to_plan(flags, resumed) == (1, 0, "override")
    assert prepare._policy_to_plan(flags, None) == (1, 0, "override")
