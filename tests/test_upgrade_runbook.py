"""The runbook upgrade on the fake cloud, over gRPC through the real SDK, on a virtual clock.

Every branch of issue 6: success, a policy that did not take (C16 A), an operation error
(C10), a timeout then resume (C11/C12), a stall (C15), another operation in progress (C13),
an interruption at each step then resume, a version ahead of the master, the quota gate.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest

from ngupgrade.adapters.files import journal as jr
from ngupgrade.cli.render.quota import preflight_json
from ngupgrade.cli.render.upgrade_plan import plan_json
from ngupgrade.core.errors import CheckFailed, OperationFailed, Stalled
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, node_group
from ngupgrade.upgrade.events import Event
from tests._upgrade_helpers import (
    POLICY_MASK,
    WORKERS_ID,
    example_cloud,
    run,
    scenario,
    updates,
    version_updates,
)


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    return tmp_path / "journal.json"


def test_success_with_override_and_restore(journal: Path) -> None:
    with example_cloud() as fake:
        out = run(fake, journal, max_expansion=2, max_unavailable=1, restore=True)
        assert out.code == 0, out.error
        # C16 order: policy alone, version alone, policy back; nothing else was updated.
        assert updates(fake) == [POLICY_MASK, ["version"], POLICY_MASK]
        sent = fake.calls_to("NodeGroupService.Update")
        assert (sent[0].request.deploy_policy.max_expansion,
                sent[0].request.deploy_policy.max_unavailable) == (2, 1)
        assert sent[1].request.version.version == "1.30"
        assert (sent[2].request.deploy_policy.max_expansion,
                sent[2].request.deploy_policy.max_unavailable) == (1, 0)
        group = fake.group("workers")
        assert (group.version, group.nodes, group.policy) == ("1.30", 3, DeployPolicy(1, 0))
        verdict = out.of("verdict")[-1].data
        assert verdict["ok"] and verdict["version"] == "1.30" and verdict["status"] == "RUNNING"
        assert (verdict["nodes"], verdict["start_nodes"], verdict["operation_id"]) == (3, 3, "op-2")
        # progress: nodes on the new version out of the total, moving forward to 3/3
        progress = [e.data for e in out.of("progress")]
        assert progress and progress[0]["new_nodes"] == 0 and progress[0]["total"] == 3
        assert max(p["new_nodes"] for p in progress) == 3
        assert max(p["nodes"] for p in progress) == 5          # peak N + E' = 3 + 2
        assert {p["cycles"] for p in progress} == {3}
        summary = out.of("summary")[-1].data
        assert summary["ok"] and summary["groups"][0]["operations"] == {
            jr.STEP_POLICY: "op-1", jr.STEP_VERSION: "op-2", jr.STEP_RESTORE: "op-3"}
        # the journal: 0600, every step done with its operation, nothing left behind
        assert stat.S_IMODE(os.stat(journal).st_mode) == 0o600
        assert sorted(os.listdir(journal.parent)) == ["journal.json"]
        saved = json.loads(journal.read_text())
        assert saved["outcome"] == "done"
        assert {k: v["operation_id"] for k, v in saved["steps"].items()} == {
            jr.STEP_POLICY: "op-1", jr.STEP_VERSION: "op-2", jr.STEP_VERIFY: None,
            jr.STEP_RESTORE: "op-3"}
        assert saved["start"]["policy"] == {"max_expansion": 1, "max_unavailable": 0}
        reminders = [e.data["message"] for e in out.of("reminder")]
        assert any('version = "1.30"' in r for r in reminders)


def test_success_without_override_sends_one_update(journal: Path) -> None:
    with example_cloud() as fake:
        out = run(fake, journal)
        assert out.code == 0, out.error
        assert updates(fake) == [["version"]]
        assert fake.group("workers").version == "1.30"


def test_c16_b_policy_applied_then_version_and_terraform_warning(journal: Path) -> None:
    """C16 variant B: HCL 1/0, fixed 6, --max-expansion 3: E'=3, peak 9, cycles 2 (not 6)."""
    groups = [node_group(WORKERS_ID, size=6, policy=DeployPolicy(1, 0))]
    with FakeCloud(groups, scenario(versions=None)).start() as fake:
        out = run(fake, journal, groups=groups, max_expansion=3)
        assert out.code == 0, out.error
        masks = updates(fake)
        assert len(masks) == 2
        assert set(masks[0]) <= set(POLICY_MASK) and "version" not in masks[0]
        assert masks[1] == ["version"]
        plan = plan_json(out.of("plan")[0].plans)["groups"][0]
        assert plan["effective_policy"] == {"max_expansion": 3, "max_unavailable": 0}
        assert (plan["peak_nodes"], plan["cycles"]) == (9, {"min": 2, "max": 2})
        warning = out.of("warning")[0].data["message"]
        assert "Terraform declares 1/0" in warning and "terraform apply" in warning
        reminder = " ".join(e.data["message"] for e in out.of("reminder"))
        assert "now runs 3/0" in reminder and "--restore-policy" in reminder


def test_c16_a_policy_not_applied_aborts_before_version(journal: Path) -> None:
    groups = [node_group(WORKERS_ID, size=6, policy=DeployPolicy(1, 0))]
    sc = scenario(versions=None, faults=[{"kind": "policy_ignored"}])
    with FakeCloud(groups, sc).start() as fake:
        out = run(fake, journal, groups=groups, max_expansion=3)
        assert out.code == 1
        assert isinstance(out.error, CheckFailed)
        assert "deploy policy not applied (have 1/0, want 3/0)" in out.error.message
        assert len(updates(fake)) == 1                           # one Update in total
        assert fake.group(WORKERS_ID).version == "1.29"
        assert json.loads(journal.read_text())["outcome"] == "failed"


def test_c10_operation_error_midway_exit_5(journal: Path) -> None:
    sc_faults = [{"kind": "operation_error", "at_step": 3, "code": 9,
                  "message": "<precondition text>"}]
    with example_cloud(faults=sc_faults) as fake:
        out = run(fake, journal)
        assert out.code == 5
        err = out.error
        assert isinstance(err, OperationFailed)
        assert (err.operation_id, err.code, err.code_name) == ("op-1", 9, "FAILED_PRECONDITION")
        assert "<precondition text>" in err.message
        assert "version is unchanged: 1.29" in err.message
        verdict = out.of("verdict")[-1].data
        assert verdict["ok"] is False and verdict["version_unchanged"] is True
        assert verdict["error"] == {"code": 9, "code_name": "FAILED_PRECONDITION",
                                    "message": "<precondition text>"}
        assert "summary" not in out.kinds()
        assert fake.group("workers").status == "RUNNING"        # RUNNING is not success
        assert json.loads(journal.read_text())["outcome"] == "failed"


def test_timeout_then_resume_one_version_update(journal: Path) -> None:
    with example_cloud() as fake:
        out = run(fake, journal, timeout=120)
        assert out.code == 6
        assert out.error is not None and "op-1" in out.error.message
        assert "--resume" in (out.error.hint or "")
        assert not fake.operation("op-1").done                  # nothing was cancelled
        again = run(fake, journal, resume=True)
        assert again.code == 0, again.error
        assert version_updates(fake) == 1
        attached = [e.data for e in again.of("operation") if e.data.get("attached")]
        assert attached and attached[0]["operation_id"] == "op-1"
        assert fake.group("workers").version == "1.30"


def test_resume_without_journal_uses_the_clouds_record(journal: Path) -> None:
    with example_cloud() as fake:
        assert run(fake, journal, timeout=120).code == 6
        journal.unlink()
        again = run(fake, journal, resume=True)
        assert again.code == 0, again.error
        assert version_updates(fake) == 1
        assert fake.group("workers").version == "1.30"


def test_c15_stall_exit_6_never_cancels(journal: Path) -> None:
    """C15: 3 nodes 1/0 (cycles 3, peak 4); 1/3 new at +10 min, unchanged after; 30 min."""
    faults = [{"kind": "stall", "at_step": 3}]
    with example_cloud(step_seconds=200, faults=faults) as fake:
        out = run(fake, journal, timeout=90 * 60, stall_after=30 * 60)
        assert out.code == 6
        assert isinstance(out.error, Stalled)
        # the stall comes after a delete: nothing cordoned, nothing not Ready; the watchdog
        # says so rather than guess a PodDisruptionBudget (issue 13)
        (diagnosis,) = out.of("diagnosis")
        assert diagnosis.data["cause"] == "nothing-visible"
        assert "nothing-visible: nothing visible holds it" in out.error.message
        assert "1/3 nodes done" in out.error.message
        assert "operation's log" in (out.error.hint or "")
        assert "NOT cancelled" in out.error.message and "op-1" in out.error.message
        plan = plan_json(out.of("plan")[0].plans)["groups"][0]
        assert (plan["cycles"]["max"], plan["peak_nodes"]) == (3, 4)
        progress = [e for e in out.of("progress")]
        first_third = next(e for e in progress if e.data["new_nodes"] == 1
                           and e.data["nodes"] == 3)
        assert 600 <= first_third.data["elapsed"] < 700          # 1/3 at about +10 min
        assert progress[-1].data["new_nodes"] == 1 and progress[-1].data["total"] == 3
        # stalled 30 min after the last change, within one poll interval (30 s cap)
        assert 600 + 1800 <= progress[-1].data["elapsed"] <= 600 + 1800 + 30 + 200
        assert not fake.operation("op-1").done
        assert version_updates(fake) == 1


def test_c13_another_operation_on_the_group_refused(journal: Path) -> None:
    faults = [{"kind": "operation_in_progress", "operation_id": "op-9",
               "description": "master upgrade", "group": "workers", "seconds": 600}]
    with example_cloud(faults=faults) as fake:
        out = run(fake, journal)
        assert out.code == 1
        assert out.error is not None and "op-9" in out.error.message
        assert "ngupgrade wait --operation op-9" in (out.error.hint or "")
        assert updates(fake) == []


def test_c13_conflict_at_update_is_bounded_and_names_it(journal: Path) -> None:
    """Another group's operation blocks the cluster: the Update is refused, never success."""
    faults = [{"kind": "operation_in_progress", "operation_id": "op-9",
               "description": "master upgrade", "group": "gpu", "seconds": 3600}]
    with example_cloud(faults=faults) as fake:
        out = run(fake, journal)
        assert out.code == 4
        assert out.error is not None and "op-9" in out.error.message
        assert "nothing was changed" in out.error.message
        assert "ngupgrade wait" in (out.error.hint or "")
        assert len(updates(fake)) <= 2
        assert fake.group("workers").version == "1.29"
        # no operation was started: the journal does not block the next run
        assert json.loads(journal.read_text())["steps"] == {}
        fake.sleep(3600)                                        # the blocker finishes
        again = run(fake, journal)
        assert again.code == 0, again.error
        assert version_updates(fake) == 2                       # the refused one, then one


def test_c13_blocker_finishes_then_one_retry_succeeds(journal: Path) -> None:
    """C13 base: Update refused while op-9 runs; wait for op-9, retry: 2 Updates, success."""
    faults = [{"kind": "operation_in_progress", "operation_id": "op-9",
               "description": "master upgrade", "group": "gpu", "polls": 2}]
    with example_cloud(faults=faults) as fake:
        out = run(fake, journal)
        assert out.code == 0, out.error
        assert updates(fake) == [["version"], ["version"]]
        assert fake.operation("op-9").done
        assert fake.group("workers").version == "1.30"
        op = [e.data for e in out.of("operation")][-1]
        assert op["update_calls"] == 2


@pytest.mark.parametrize(("target", "master", "why"), [
    ("1.31", "1.30", "ahead of the master"),
    ("1.31", "1.31", "one minor version per step"),
    ("1.28", "1.30", "older than the current"),
])
def test_version_rules_refused_before_any_change(journal: Path, target: str, master: str,
                                                 why: str) -> None:
    clusters = {"catq0n7i0h9ka1b2c3d4": {"master_version": master}}
    with example_cloud(clusters=clusters, versions=None) as fake:
        out = run(fake, journal, version=target)
        assert out.code == 1
        assert out.error is not None and why in out.error.message
        assert updates(fake) == []


def test_not_running_refused(journal: Path) -> None:
    with example_cloud(node_groups={"workers": {"status": "STOPPED"}}) as fake:
        out = run(fake, journal)
        assert out.code == 1
        assert out.error is not None and "STOPPED, not RUNNING" in out.error.message
        assert updates(fake) == []


def test_quota_gate_fails_before_any_change(journal: Path) -> None:
    """C01 kind: the surge does not fit; exit 1 and no Update at all."""
    with example_cloud() as fake:
        fake.set_quota("b1gexamplecloud000001", "compute.instanceCores.count", 60.0, 54.0)
        out = run(fake, journal, max_expansion=2, max_unavailable=1)
        assert out.code == 1
        assert out.error is not None and "compute.instanceCores.count" in out.error.message
        assert out.of("preflight")[0].data["ok"] is False
        assert updates(fake) == []
        assert not journal.exists()


def test_dry_run_makes_no_mutating_call(journal: Path) -> None:
    with example_cloud() as fake:
        out = run(fake, journal, apply=False, max_expansion=2, max_unavailable=1, restore=True)
        assert out.code == 0
        assert updates(fake) == []
        mutating = {c.method for c in fake.calls} - {
            "NodeGroupService.Get", "NodeGroupService.ListNodes", "NodeGroupService.ListOperations",
            "ClusterService.Get", "FolderService.Get", "QuotaLimitService.List",
            "ApiEndpointService.List", "OperationService.Get"}
        assert mutating == set()
        calls = out.of("dry_run")[0].data["calls"]["yandex_kubernetes_node_group.workers"]
        assert [c["method"] for c in calls].count("NodeGroupService.Update") == 3
        assert not journal.exists()


def test_unfinished_journal_needs_resume(journal: Path) -> None:
    with example_cloud() as fake:
        assert run(fake, journal, timeout=120).code == 6
        again = run(fake, journal)
        assert again.code == 2
        assert again.error is not None and "unfinished upgrade" in again.error.message
        other = run(fake, journal, version="1.31", resume=True)
        assert other.code == 2
        assert other.error is not None and "records an upgrade to 1.30" in other.error.message
        assert version_updates(fake) == 1


def test_already_on_target_is_nothing_to_do(journal: Path) -> None:
    with example_cloud(node_groups={"workers": {"version": "1.30"}}) as fake:
        out = run(fake, journal)
        assert out.code == 0
        assert updates(fake) == []
        assert "already on 1.30" in out.of("verdict")[-1].data["note"]


# -- interruptions at every step, then resume -------------------------------------------------

def _reference_events() -> list[Event]:
    with example_cloud() as fake, tempfile.TemporaryDirectory() as tmp:
        out = run(fake, Path(tmp) / "journal.json", max_expansion=2, max_unavailable=1,
                  restore=True)
        assert out.code == 0
        return out.events


REFERENCE = _reference_events()
RUN_EVENTS = [i for i, e in enumerate(REFERENCE) if e.kind not in ("summary",)]


@pytest.mark.parametrize("index", RUN_EVENTS,
                         ids=[f"{i}-{REFERENCE[i].kind}-{REFERENCE[i].data.get('step', '')}"
                              for i in RUN_EVENTS])
def test_interrupt_at_each_step_then_resume(journal: Path, index: int) -> None:
    seen = [0]

    def interrupt(event: Event) -> None:
        seen[0] += 1
        if seen[0] - 1 == index:
            raise KeyboardInterrupt

    with example_cloud() as fake:
        first = run(fake, journal, max_expansion=2, max_unavailable=1, restore=True,
                    hook=interrupt)
        assert first.code == 130
        again = run(fake, journal, max_expansion=2, max_unavailable=1, restore=True,
                    resume=True)
        assert again.code == 0, again.error
        # the same end as an uninterrupted run, and no step's Update sent twice
        assert updates(fake) == [POLICY_MASK, ["version"], POLICY_MASK]
        group = fake.group("workers")
        assert (group.version, group.nodes, group.policy) == ("1.30", 3, DeployPolicy(1, 0))
        assert json.loads(journal.read_text())["outcome"] == "done"


class _CrashAfterUpdate:
    """A gateway whose Update reaches the cloud, then the process "dies" before the journal
    records the operation id."""

    def __init__(self, gateway: object, crash_on: int) -> None:
        self._gw = gateway
        self._crash_on = crash_on
        self._n = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._gw, name)

    def update_node_group(self, *args: object, **kwargs: object) -> object:
        ref = self._gw.update_node_group(*args, **kwargs)  # type: ignore[attr-defined]
        self._n += 1
        if self._n == self._crash_on:
            raise KeyboardInterrupt
        return ref


@pytest.mark.parametrize("crash_on", [1, 2, 3], ids=["policy", "version", "restore"])
def test_crash_between_update_and_journal_reattaches(journal: Path, crash_on: int) -> None:
    with example_cloud() as fake:
        gw = fake.gateway()
        try:
            first = run(fake, journal, max_expansion=2, max_unavailable=1, restore=True,
                        api=_CrashAfterUpdate(gw, crash_on))
        finally:
            gw.close()
        assert first.code == 130
        saved = json.loads(journal.read_text())
        step = [jr.STEP_POLICY, jr.STEP_VERSION, jr.STEP_RESTORE][crash_on - 1]
        assert saved["steps"][step]["operation_id"] is None
        again = run(fake, journal, max_expansion=2, max_unavailable=1, restore=True,
                    resume=True)
        assert again.code == 0, again.error
        assert updates(fake) == [POLICY_MASK, ["version"], POLICY_MASK]
        assert fake.group("workers").version == "1.30"


def test_several_groups_one_after_another(journal: Path) -> None:
    batch = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'
    with example_cloud() as fake:
        out = run(fake, journal, group=("workers", batch))
        assert out.code == 0, out.error
        started = [e.group for e in out.of("group_started")]
        assert started == ["yandex_kubernetes_node_group.workers", batch]
        # the second group's Update comes after the first group's verdict
        kinds = [(e.kind, e.group) for e in out.events]
        first_verdict = kinds.index(("verdict", "yandex_kubernetes_node_group.workers"))
        second_op = kinds.index(("operation", batch))
        assert first_verdict < second_op
        gate = preflight_json(out.of("preflight")[0].report)
        assert gate["mode"]["sequential"] is True
        assert version_updates(fake) == 2
        assert fake.group("batch").version == "1.30" and fake.group("workers").version == "1.30"
        # one journal per group under the journal directory
        assert len([p for p in os.listdir(journal.parent) if p.startswith("upgrade-")]) == 2


def test_latest_revision_without_a_new_revision_is_nothing_to_do(journal: Path) -> None:
    with example_cloud() as fake:
        out = run(fake, journal, version=None, latest_revision=True)
        assert out.code == 0, out.error
        assert updates(fake) == []
        assert "no newer revision" in out.of("verdict")[-1].data["note"]


def test_group_still_reconciling_after_done_is_waited_for(journal: Path) -> None:
    with example_cloud(faults=[{"kind": "reconciling_after_done", "seconds": 30}]) as fake:
        out = run(fake, journal)
        assert out.code == 0, out.error
        assert out.of("verdict")[-1].data["status"] == "RUNNING"


def test_update_answered_deadline_but_applied_is_attached_not_resent(journal: Path) -> None:
    with example_cloud(faults=[{"kind": "deadline_after_apply"}]) as fake:
        out = run(fake, journal)
        assert out.code == 0, out.error
        assert version_updates(fake) == 1
        assert [e.data["attached"] for e in out.of("operation")] == [True]
        assert fake.group("workers").version == "1.30"


def test_api_lost_mid_wait_keeps_the_journal_open_and_resume_finishes(journal: Path) -> None:
    """Polls fail past their retries while the version update runs: exit 4 with a resume hint,
    the journal stays open (never "failed"), and --resume attaches: one version Update."""
    with example_cloud() as fake:

        def cut_the_line(event: Event) -> None:
            if event.kind == "operation":
                fake.add_fault({"kind": "rpc_error", "method": "OperationService.Get",
                                "code": "UNAVAILABLE", "times": 5})  # all 5 tries

        out = run(fake, journal, hook=cut_the_line)
        assert out.code == 4
        assert out.error is not None and "UNAVAILABLE" in out.error.message
        assert "--resume" in (out.error.hint or "")
        recorded = json.loads(journal.read_text())
        assert recorded["outcome"] is None
        assert recorded["steps"]["version_update"]["operation_id"] == "op-1"
        assert recorded["steps"]["version_update"]["status"] == "started"
        again = run(fake, journal, resume=True)
        assert again.code == 0, again.error
        assert version_updates(fake) == 1
        assert fake.group("workers").version == "1.30"


def test_restore_without_override_when_the_live_policy_drifted(journal: Path) -> None:
    """The cloud runs 2/1 while Terraform declares 1/0: --restore-policy puts 1/0 back even
    without an override, and the dry run lists exactly the Updates --apply then sends."""
    drifted = {"workers": {"policy": {"max_expansion": 2, "max_unavailable": 1}}}
    with example_cloud(node_groups=drifted) as fake:
        dry = run(fake, journal, apply=False, restore=True)
        planned = dry.of("dry_run")[0].data["calls"]["yandex_kubernetes_node_group.workers"]
        assert [c["method"] for c in planned].count("NodeGroupService.Update") == 2
        out = run(fake, journal, restore=True)
        assert out.code == 0, out.error
        assert updates(fake) == [["version"], POLICY_MASK]
        assert fake.group("workers").policy == DeployPolicy(1, 0)


def test_ambiguous_update_failure_keeps_the_step_for_resume(journal: Path) -> None:
    """Update answers UNAVAILABLE and no operation shows up: the step stays "started" in the
    journal (it may still land), exit 4 says --resume; the resume finds nothing and sends it."""
    with example_cloud(faults=[{"kind": "rpc_error", "method": "NodeGroupService.Update",
                                "code": "UNAVAILABLE", "times": 1}]) as fake:
        out = run(fake, journal)
        assert out.code == 4
        assert out.error is not None and "--resume" in (out.error.hint or "")
        recorded = json.loads(journal.read_text())
        assert recorded["outcome"] is None
        assert recorded["steps"]["version_update"]["status"] == "started"
        assert recorded["steps"]["version_update"]["operation_id"] is None
        again = run(fake, journal, resume=True)
        assert again.code == 0, again.error
        assert [c.code for c in fake.calls_to("NodeGroupService.Update")] == ["UNAVAILABLE", "OK"]
        assert fake.group("workers").version == "1.30"


def test_each_later_group_is_read_again_before_its_turn(journal: Path) -> None:
    """An operation that starts on the second group while the first one upgrades is seen
    when its turn comes: refused with its id, nothing sent to it."""
    batch = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'
    with example_cloud() as fake:

        def meanwhile(event: Event) -> None:
            if event.kind == "verdict" and event.group == "yandex_kubernetes_node_group.workers":
                fake.add_fault({"kind": "operation_in_progress", "operation_id": "op-77",
                                "description": "auto upgrade", "group": "batch",
                                "seconds": 3600})

        out = run(fake, journal, group=("workers", batch), hook=meanwhile)
        assert out.code == 1
        assert out.error is not None and "op-77" in out.error.message
        assert version_updates(fake) == 1
        assert fake.group("workers").version == "1.30" and fake.group("batch").version == "1.29"


def test_override_equal_to_the_server_default_of_an_unset_policy_sends_nothing(
        journal: Path) -> None:
    """The API shows no deploy_policy (the server default 3/0 applies): --max-expansion 3
    --max-unavailable 0 is already in force, so no policy Update is sent (as set-policy).
    workers outside a spread placement group (the example's holds 5 VMs: 3 + 3 do not fit)."""
    groups = [node_group(WORKERS_ID, size=3, policy=DeployPolicy(1, 0))]
    sc = scenario(versions=None, node_groups={"workers": {"policy": None}})
    with FakeCloud(groups, sc).start() as fake:
        out = run(fake, journal, groups=groups, max_expansion=3, max_unavailable=0)
        assert out.code == 0, out.error
        assert updates(fake) == [["version"]]
        skipped = [e.data["reason"] for e in out.of("step_skipped")]
        assert "deploy policy already 3/0" in skipped


def test_dry_run_lists_the_updates_apply_sends_when_the_api_shows_no_policy(
        journal: Path) -> None:
    """Issue 9: Terraform declares 3/0 and the API returns no deploy_policy, so the server
    default 3/0 is in force (reference 1.2, seed 000): --restore-policy has nothing to put
    back. The dry run must list exactly the one version Update that --apply sends."""
    groups = [node_group(WORKERS_ID, size=3, policy=DeployPolicy(3, 0))]
    sc = scenario(versions=None, node_groups={"workers": {"policy": None}})
    with FakeCloud(groups, sc).start() as fake:
        dry = run(fake, journal, groups=groups, apply=False, restore=True)
        assert dry.code == 0, dry.error
        planned = dry.of("dry_run")[0].data["calls"]["yandex_kubernetes_node_group.workers"]
        assert [c["method"] for c in planned].count("NodeGroupService.Update") == 1
        out = run(fake, journal, groups=groups, restore=True)
        assert out.code == 0, out.error
        assert updates(fake) == [["version"]]
        listed = out.of("calls")[0].data["calls"]["yandex_kubernetes_node_group.workers"]
        assert [c["method"] for c in listed].count("NodeGroupService.Update") == 1
        # and no reminder that Terraform's 3/0 differs from the unset (3/0) policy
        assert not any("deploy_policy" in e.data["message"] for e in out.of("reminder"))


def test_an_override_with_restore_policy_is_a_note_not_a_drift_warning(tmp_path: Path) -> None:
    """workers: Terraform declares 1/0, the run overrides 2/1 with --restore-policy: the drift
    the warning is about is taken care of, so no policy-differs-from-terraform warning; a note
    says the run puts 1/0 back. Without --restore-policy the warning stays."""
    with example_cloud() as fake:
        kept = run(fake, tmp_path / "a.json", max_expansion=2, max_unavailable=1,
                   restore=True, apply=False)
        left = run(fake, tmp_path / "b.json", max_expansion=2, max_unavailable=1,
                   apply=False)
    assert kept.code == 0 and left.code == 0
    assert [e.code for e in kept.of("warning")
            if e.code == "policy-differs-from-terraform"] == []
    assert any("--restore-policy puts 1/0 back after the upgrade" in e.message
               for e in kept.of("note"))
    (warning,) = [e for e in left.of("warning") if e.code == "policy-differs-from-terraform"]
    assert "pass --restore-policy to put it back right after the upgrade" in warning.message
