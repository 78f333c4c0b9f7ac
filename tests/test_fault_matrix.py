"""Issue 10's fault matrix, through the fake cloud and the real SDK: for each case the exit
code, the verdict's words, the Update calls and operations created, the group's end state.

Items 2 (the journal's lock), 3 (C23), 4 (wait --group), 5 (no journal, a temporary policy
left), 7 (someone else's operation on --resume), 8, 9 (signals), 10 (a journal naming an
unknown operation), 12 (RECONCILING after a policy step, STOPPED after success, a token with a
newline, a UTF-16/BOM state, stdin twice) and the done-when race (two processes at once).
(Item 1, the blocker that was the same change, and item 6, an unknown outcome, are in
tests/test_mutation.py, next to the one Update path they test; item 11 in the fake's tests.)
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from ngupgrade.core.errors import ForeignOperation
from ngupgrade.core.model import DeployPolicy
from ngupgrade.upgrade.events import Event
from tests._upgrade_helpers import POLICY_MASK, cli, example_cloud, run, updates

WORKERS = "cat1ng0fixed0000abcd"
Capsys = pytest.CaptureFixture[str]


# -- item 2: two runs in one directory share one journal: the second is refused --------------

def test_second_run_on_the_same_journal_is_refused_naming_the_holder(tmp_path: Path) -> None:
    journal = tmp_path / "j.json"
    second: list[object] = []
    with example_cloud() as fake:

        def start_another(event: Event) -> None:
            if event.kind == "step_started" and not second:
                second.append(run(fake, journal))  # a second CI job, same runner, same dir

        first = run(fake, journal, hook=start_another)
        assert first.code == 0, first.error
        (other,) = second
        assert other.code == 1                                          # type: ignore[attr-defined]
        message = other.error.message                                   # type: ignore[attr-defined]
        assert "another ngupgrade run holds this journal" in message
        assert f"pid {os.getpid()} on host" in message and "nothing was changed" in message
        assert "--resume" in (other.error.hint or "")                   # type: ignore[attr-defined]
        assert len(fake.calls_to("NodeGroupService.Update")) == 1
        assert list(fake.operations) == ["op-1"]
        group = fake.group("workers")
        assert (group.version, group.nodes, group.status) == ("1.30", 3, "RUNNING")
    assert sorted(os.listdir(tmp_path)) == ["j.json"]                   # the lock is gone
    again = None
    with example_cloud() as fake:
        again = run(fake, journal)                                      # free again after
    assert again.code == 0, again.error


# -- item 9: SIGTERM and SIGHUP end like Ctrl-C -----------------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_sigterm_and_sighup_end_like_ctrl_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: Capsys, signum: int) -> None:
    import ngupgrade.cli._upgrade_display as cmd

    original = cmd.PlainDisplay.event

    def event(self: cmd.PlainDisplay, ev: Event) -> None:
        original(self, ev)
        if ev.kind == "progress":
            os.kill(os.getpid(), signum)                # CI cancel, systemd stop, lost tty

    monkeypatch.setattr(cmd.PlainDisplay, "event", event)
    before = signal.getsignal(signum)
    journal = tmp_path / "j.json"
    with example_cloud() as fake:
        code, _out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                              "--apply", "--journal", str(journal))
        assert code == 130
        assert "operation op-1 keeps running" in err and "--resume" in err
        assert str(journal) in err
        assert not fake.operation("op-1").done                         # nothing cancelled
        assert len(fake.calls_to("NodeGroupService.Update")) == 1
        assert signal.getsignal(signum) == before                       # handler put back
        monkeypatch.setattr(cmd.PlainDisplay, "event", original)
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--apply", "--resume", "--journal", str(journal))
        assert code == 0, err
        assert "operation op-1 attached to" in out
        assert len(fake.calls_to("NodeGroupService.Update")) == 1
        assert list(fake.operations) == ["op-1"]
        assert fake.group("workers").version == "1.30"


# -- item 4: `wait --group` after a failed upgrade reports the failure ------------------------

def test_wait_group_reports_the_latest_operations_failure(tmp_path: Path, run_cli) -> None:
    from ngupgrade.app.timing import Timing
    from tests._upgrade_helpers import STATE

    faults = [{"kind": "operation_error", "at_step": 3, "code": 9, "message": "drain failed"}]
    with example_cloud(faults=faults) as fake:
        failed = run(fake, tmp_path / "j.json")
        assert failed.code == 5                                  # the exit-6/5 hint says: wait
        run_cli.timing = Timing(fake.now, fake.sleep)
        common = ("--endpoint", fake.endpoint, "--insecure", "--state", STATE)
        res = run_cli(*common, "wait", "--group", "workers")
        assert res.exit_code == 5                                # was 0, "done": true
        assert ("operation op-1 failed: FAILED_PRECONDITION (9): drain failed; it is the "
                "latest operation on node group cat1ng0fixed0000abcd") in res.stderr
        assert "the group is RUNNING on 1.29" in res.stderr
        res = run_cli(*common, "-o", "json", "wait", "--group", "workers")
        assert res.exit_code == 5
        assert '"done": true' not in res.stdout
        assert len(fake.calls_to("NodeGroupService.Update")) == 1   # wait never sends one
        assert list(fake.operations) == ["op-1"]
        assert fake.group("workers").version == "1.29"


def test_wait_group_after_a_good_upgrade_names_its_latest_operation(tmp_path: Path,
                                                                   run_cli) -> None:
    import json

    from ngupgrade.app.timing import Timing
    from tests._upgrade_helpers import STATE

    with example_cloud() as fake:
        assert run(fake, tmp_path / "j.json").code == 0
        run_cli.timing = Timing(fake.now, fake.sleep)
        common = ("--endpoint", fake.endpoint, "--insecure", "--state", STATE)
        res = run_cli(*common, "wait", "--group", "workers")
        assert res.exit_code == 0, res.stderr
        assert ("no unfinished operation on node group cat1ng0fixed0000abcd (status RUNNING); "
                "its latest operation op-1 (Update node group) finished without error; "
                "version 1.30") in res.stdout
        doc = json.loads(run_cli(*common, "-o", "json", "wait", "--group", "workers").stdout)
        assert doc["latest_operation"] == {"id": "op-1", "description": "Update node group",
                                           "ok": True}
        assert doc["group"] == {"id": WORKERS, "status": "RUNNING", "version": "1.30"}
        assert len(fake.calls_to("NodeGroupService.Update")) == 1


# -- item 8: --resume with other policy flags is refused; without flags it keeps the journal's --

def test_resume_with_another_policy_is_refused_and_without_flags_keeps_the_journals(
        tmp_path: Path) -> None:
    journal = tmp_path / "j.json"
    with example_cloud() as fake:
        first = run(fake, journal, max_expansion=2, max_unavailable=1, timeout=120)
        assert first.code == 6
        other = run(fake, journal, max_expansion=3, max_unavailable=1, resume=True)
        assert other.code == 2
        assert other.error is not None
        assert (f"{journal} records this upgrade with deploy policy 2/1, not 3/1"
                in other.error.message)
        again = run(fake, journal, resume=True)                  # no flags: the journal's 2/1
        assert again.code == 0, again.error
        plan = again.of("plan")[0].plans[0]                      # type: ignore[attr-defined]
        assert plan.policy.policy.max_expansion == 2 and plan.policy.policy.max_unavailable == 1
        masks = [list(c.request.update_mask.paths)
                 for c in fake.calls_to("NodeGroupService.Update")]
        assert masks == [["deploy_policy.max_expansion", "deploy_policy.max_unavailable"],
                         ["version"]]                            # one per intent
        assert list(fake.operations) == ["op-1", "op-2"]
        group = fake.group("workers")
        assert (group.version, group.nodes) == ("1.30", 3)


# -- item 10: a journal naming an operation the cloud forgot: exit 3, one way forward --------

def test_journal_with_an_operation_the_cloud_does_not_know_is_bad_input(tmp_path: Path) -> None:
    import json

    journal = tmp_path / "j.json"
    with example_cloud() as fake:
        assert run(fake, journal, timeout=120).code == 6
        saved = json.loads(journal.read_text())
        saved["steps"]["version_update"]["operation_id"] = "op-404"
        journal.write_text(json.dumps(saved))
        again = run(fake, journal, resume=True)
        assert again.code == 3                                   # was 4, then 4 again forever
        assert again.error is not None
        assert (f"{journal}: records operation op-404 for step version_update, which the "
                "cloud does not know (NOT_FOUND)") in again.error.message
        assert "delete the journal" in (again.error.hint or "")
        journal.unlink()                                         # the one way forward
        done = run(fake, journal, resume=True)
        assert done.code == 0, done.error
        assert len(fake.calls_to("NodeGroupService.Update")) == 1
        assert list(fake.operations) == ["op-1"]
        assert fake.group("workers").version == "1.30"


# -- item 3: the active-operations limit (C23) ------------------------------------------------

LIMIT = "The limit on maximum number of active operations has exceeded"


@pytest.mark.parametrize(("times", "code", "updates", "operations", "version"), [
    (2, 0, 3, ["op-1"], "1.30"),          # C23 (d): two refusals, then accepted
    (100, 4, 13, [], "1.29"),             # C23 (e): persistent: not submitted
])
def test_active_operations_limit_is_a_bounded_retryable_refusal(
        tmp_path: Path, times: int, code: int, updates: int, operations: list[str],
        version: str) -> None:
    import json

    faults = [{"kind": "rpc_error", "method": "NodeGroupService.Update",
               "code": "RESOURCE_EXHAUSTED", "message": LIMIT, "times": times}]
    journal = tmp_path / "j.json"
    with example_cloud(faults=faults) as fake:
        out = run(fake, journal)
        assert out.code == code, out.error
        assert len(fake.calls_to("NodeGroupService.Update")) == updates
        assert list(fake.operations) == operations
        assert fake.group("workers").version == version
        if code:
            assert out.error is not None
            assert "not submitted" in out.error.message and LIMIT in out.error.message
            assert getattr(out.error, "operation_id", None) is None
            # a definite refusal: the step never began, the next run starts it afresh
            assert json.loads(journal.read_text())["steps"] == {}


# -- item 12: a policy step is done only once the group reads RUNNING again ------------------

def test_restore_step_is_done_only_when_the_group_reads_running_again(tmp_path: Path) -> None:
    """The group reads RECONCILING 45 s after each operation is done: the restore step waits
    for RUNNING before it says "done" (it used to finish at the operation's end)."""
    faults = [{"kind": "reconciling_after_done", "seconds": 45, "group": "workers"}]
    seen: dict[str, str] = {}
    with example_cloud(faults=faults) as fake:

        def status_at_finish(event: Event) -> None:
            if event.kind == "step_finished":
                g = fake.group("workers")
                seen[event.data["step"]] = fake._world.group_status(g)

        out = run(fake, tmp_path / "j.json", max_expansion=2, max_unavailable=1, restore=True,
                  hook=status_at_finish)
        assert out.code == 0, out.error
        assert seen == {"policy_update": "RUNNING", "version_update": "RECONCILING",
                        "verify": "RUNNING", "restore_policy": "RUNNING"}
        restore_op = fake.operation("op-3")
        assert fake.now() >= restore_op.finished + 45     # waited out the reconcile
        assert updates(fake) == [POLICY_MASK, ["version"], POLICY_MASK]
        assert list(fake.operations) == ["op-1", "op-2", "op-3"]
        group = fake.group("workers")
        assert (group.version, group.policy, group.nodes) == ("1.30", DeployPolicy(1, 0), 3)


# -- item 12: the operation succeeded but the group is STOPPED: say so, exit 1 ---------------

def test_group_stopped_after_a_good_operation_is_named_not_an_operation_failure(
        tmp_path: Path) -> None:
    with example_cloud() as fake:

        def stop(event: Event) -> None:
            if event.kind == "progress":
                fake.group("workers").status = "STOPPED"    # someone stops it meanwhile

        out = run(fake, tmp_path / "j.json", hook=stop)
        assert out.code == 1                                # was 5 "operation failed"
        assert out.error is not None
        assert ("operation op-1 finished without error, but node group "
                f"{WORKERS} is STOPPED") in out.error.message
        assert "failed" not in out.error.message
        assert "RUNNING again" in (out.error.hint or "")
        assert fake.operation("op-1").error is None
        assert len(fake.calls_to("NodeGroupService.Update")) == 1
        assert list(fake.operations) == ["op-1"]
        group = fake.group("workers")
        assert (group.version, group.status, group.nodes) == ("1.30", "STOPPED", 3)


# -- item 12: a token a gRPC header cannot carry names its variable (exit 2) -----------------

@pytest.mark.parametrize(("variable", "value", "what"), [
    ("YC_IAM_TOKEN", "t1.SECRET\n", "a line break"),
    ("YC_IAM_TOKEN", "t1.SECRET\r\nx", "a line break"),
    ("YC_TOKEN", "y0_SECRETé", "a non-ASCII character"),
    ("YC_IAM_TOKEN", "t1.SECRET\x07", "a control character"),
])
def test_token_a_header_cannot_carry_is_a_usage_error_naming_the_variable(
        run_cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str, value: str,
        what: str) -> None:
    """It used to end as "Invalid metadata [INTERNAL]" (exit 4), naming nothing. A gRPC
    metadata value is printable ASCII (0x20..0x7E); the token is never printed."""
    from ngupgrade.app.timing import Timing
    from tests._upgrade_helpers import STATE

    for var in ("YC_TOKEN", "YC_IAM_TOKEN", "YC_SERVICE_ACCOUNT_KEY_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(variable, value)
    with example_cloud() as fake:
        run_cli.timing = Timing(fake.now, fake.sleep)
        res = run_cli("--endpoint", fake.endpoint, "--insecure", "--state", STATE, "upgrade",
                      "-g", "workers", "--version", "1.30", "--apply", "--journal",
                      str(tmp_path / "j.json"))
        assert res.exit_code == 2, res.stderr
        assert res.stderr.splitlines()[0] == (
            f"error: {variable} holds {what}; a token is printable ASCII only (the value is "
            "not shown)")
        assert "SECRET" not in res.stderr and "SECRET" not in res.stdout
        assert fake.calls == []                            # refused before any call
        assert fake.operations == {}
        group = fake.group("workers")
        assert (group.version, group.nodes) == ("1.29", 3)


# -- item 12: a UTF-16 or BOM state is named as such, with how to convert it ------------------

@pytest.mark.parametrize(("encode", "what", "convert"), [
    (lambda t: t.encode("utf-16"), "UTF-16 LE with a byte order mark (BOM)",
     "iconv -f UTF-16 -t UTF-8"),
    (lambda t: t.encode("utf-16-le"), "UTF-16 LE (NUL bytes between the characters)",
     "iconv -f UTF-16LE -t UTF-8"),
    (lambda t: t.encode("utf-16-be"), "UTF-16 BE (NUL bytes between the characters)",
     "iconv -f UTF-16BE -t UTF-8"),
    (lambda t: t.encode("utf-8-sig"), "UTF-8 with a byte order mark (BOM, bytes EF BB BF)",
     "sed '1s/^\\xEF\\xBB\\xBF//'"),
], ids=["utf16-bom", "utf16le", "utf16be", "utf8-bom"])
def test_utf16_or_bom_state_is_named_not_called_truncated(run_cli, tmp_path: Path, encode,
                                                          what: str, convert: str) -> None:
    """PowerShell's `terraform state pull > state.json` writes UTF-16; the hint used to ask
    "a truncated download?"."""
    from ngupgrade.app.timing import Timing
    from tests._upgrade_helpers import STATE

    state = tmp_path / "state.json"
    state.write_bytes(encode(Path(STATE).read_text(encoding="utf-8")))
    with example_cloud() as fake:
        run_cli.timing = Timing(fake.now, fake.sleep)
        res = run_cli("--endpoint", fake.endpoint, "--insecure", "--state", str(state),
                      "upgrade", "-g", "workers", "--version", "1.30", "--apply",
                      "--journal", str(tmp_path / "j.json"))
        assert res.exit_code == 3, res.stderr
        assert res.stderr.splitlines()[0] == (
            f"error: {state}: $: the state is {what}; Terraform writes UTF-8 JSON without a "
            "BOM")
        # beside the state, never onto it: `> state.json` empties the file iconv reads
        assert f"{convert} {state} > {tmp_path}/state.utf8.json" in res.stderr
        assert "truncated" not in res.stderr
        assert fake.calls == [] and fake.operations == {}
        assert fake.group("workers").version == "1.29"


# -- item 5: no journal, already on the target, a temporary policy left: decided from the cloud --

def _stopped_before_restore(fake, journal: Path) -> None:
    """An upgrade with a temporary 2/1 (Terraform declares 1/0) and --restore-policy stops
    during the version update (exit 6); the operation then finishes and the journal is lost
    (deleted, or it stayed on another runner)."""
    first = run(fake, journal, max_expansion=2, max_unavailable=1, restore=True, timeout=120)
    assert first.code == 6, first.error
    fake.sleep(3600)
    assert fake.operation("op-2").done and fake.group("workers").version == "1.30"
    journal.unlink()


def test_restore_policy_resume_without_journal_puts_terraforms_policy_back(
        tmp_path: Path) -> None:
    journal = tmp_path / "j.json"
    with example_cloud() as fake:
        _stopped_before_restore(fake, journal)
        out = run(fake, journal, restore=True, resume=True)
        assert out.code == 0, out.error                    # was: "nothing to do", 2/1 left
        notes = [e.data["message"] for e in out.of("note")]
        assert not any(n.startswith("nothing to do") for n in notes)
        assert ("already on 1.30, but the group runs deploy policy 2/1 while Terraform "
                "declares 1/0 for yandex_kubernetes_node_group.workers: --restore-policy puts "
                "1/0 back") in notes
        verdict = out.of("verdict")[-1].data
        assert verdict["ok"] and verdict["version"] == "1.30" and verdict["status"] == "RUNNING"
        finished = [e.data["step"] for e in out.of("step_finished")]
        assert finished == ["verify", "restore_policy"]
        assert updates(fake) == [POLICY_MASK, ["version"], POLICY_MASK]   # one per intent
        assert list(fake.operations) == ["op-1", "op-2", "op-3"]
        group = fake.group("workers")
        assert (group.version, group.policy, group.nodes, group.status) == (
            "1.30", DeployPolicy(1, 0), 3, "RUNNING")
        again = run(fake, journal, restore=True, resume=True)   # now truly nothing to do
        assert again.code == 0, again.error
        assert "nothing to do: already on 1.30" in [e.data["message"] for e in again.of("note")]
        assert len(updates(fake)) == 3


def test_resume_without_journal_and_without_restore_names_the_policy_left(
        tmp_path: Path) -> None:
    journal = tmp_path / "j.json"
    with example_cloud() as fake:
        _stopped_before_restore(fake, journal)
        out = run(fake, journal, resume=True)
        assert out.code == 0, out.error
        (warning,) = [e.data for e in out.of("warning")]
        assert warning["code"] == "policy-differs-from-terraform"
        assert ("yandex_kubernetes_node_group.workers is on 1.30 but runs deploy policy 2/1, "
                "while Terraform declares 1/0") in warning["message"]
        assert ("`ngupgrade set-policy -g yandex_kubernetes_node_group.workers "
                "--max-expansion 1 --max-unavailable 0 --apply`") in warning["message"]
        assert updates(fake) == [POLICY_MASK, ["version"]]    # nothing sent: named only
        assert list(fake.operations) == ["op-1", "op-2"]
        group = fake.group("workers")
        assert (group.version, group.policy) == ("1.30", DeployPolicy(2, 1))


# -- item 7: --resume never adopts someone else's operation as its step's ---------------------

class _DiesBeforeUpdate:
    """The gateway of a run killed right after the journal recorded the version step and
    before its Update left (the step is open with no operation id)."""

    def __init__(self, gateway) -> None:
        self._gw = gateway

    def __getattr__(self, name: str):
        return getattr(self._gw, name)

    def update_node_group(self, *args, **kwargs):
        raise KeyboardInterrupt


def _open_version_step(fake, journal: Path) -> None:
    import json

    gw = fake.gateway()
    try:
        out = run(fake, journal, api=_DiesBeforeUpdate(gw))
    finally:
        gw.close()
    assert out.code == 130
    step = json.loads(journal.read_text())["steps"]["version_update"]
    assert (step["status"], step["operation_id"], step["known_operations"]) == (
        "started", None, [])
    assert fake.calls_to("NodeGroupService.Update") == []


@pytest.mark.parametrize("finished", [True, False], ids=["finished", "running"])
def test_resume_refuses_to_adopt_an_operation_that_changed_something_else(
        tmp_path: Path, finished: bool) -> None:
    """After the journal's snapshot someone else (terraform apply) sets deploy policy 2/1 (3/1
    would not pass the gate: 3 + 3 VMs in the example's spread placement group of 5):
    op-1. --resume used to adopt it as its version update, wait, and fail "did not verify".
    Now: a finished op-1 is judged by what it left (the group it answered with); a running one
    is waited for first, then judged the same way, and never journaled as ours."""
    import json

    journal = tmp_path / "j.json"
    with example_cloud() as fake:
        _open_version_step(fake, journal)
        fake.sleep(600)
        theirs = fake.gateway()
        theirs.update_node_group(WORKERS, policy=DeployPolicy(2, 1))
        theirs.close()
        if finished:
            fake.sleep(60)
        out = run(fake, journal, resume=True)
        assert out.code == 1, out.error
        assert out.error is not None and out.error.operation_id == "op-1"  # type: ignore[attr-defined]
        # still running at --resume: waited for (5 s), then judged: finished by then
        assert out.error.message.startswith(
            "yandex_kubernetes_node_group.workers: operation op-1 (Update node group, started "
            "2027-01-15T08:10:00+00:00 by ajeng0pgrade0000test, finished) ")
        assert ("is not the operation of step version_update (the step began "
                "2027-01-15T08:00:00+00:00): it changed version 1.29 (unchanged), deploy "
                "policy 1/0 -> 2/1, not version 1.30 as this step asks. Someone else started "
                "it; it was not adopted, and nothing was sent") in out.error.message
        assert "did not verify" not in out.error.message
        assert "run the same command again without --resume" in (out.error.hint or "")
        assert "ngupgrade wait --operation op-1" in (out.error.hint or "")
        saved = json.loads(journal.read_text())
        assert saved["steps"]["version_update"]["operation_id"] is None   # never journaled
        assert saved["outcome"] == "failed"
        assert updates(fake) == [POLICY_MASK]              # theirs only: nothing sent by us
        assert list(fake.operations) == ["op-1"]
        group = fake.group("workers")
        assert (group.version, group.policy, group.nodes) == ("1.29", DeployPolicy(2, 1), 3)
        # the way forward the hint gives: one version Update, one operation
        again = run(fake, journal)
        assert again.code == 0, again.error
        assert updates(fake) == [POLICY_MASK, ["version"]]
        assert list(fake.operations) == ["op-1", "op-2"]
        assert fake.group("workers").version == "1.30"


def test_resume_still_adopts_the_same_change_started_by_someone_else(tmp_path: Path) -> None:
    """Another operator's version update to 1.30 after the snapshot is what this step asks
    for: attached to (one version operation), the verdict passes."""
    journal = tmp_path / "j.json"
    with example_cloud() as fake:
        _open_version_step(fake, journal)
        theirs = fake.gateway()
        theirs.update_node_group(WORKERS, version="1.30")
        theirs.close()
        out = run(fake, journal, resume=True)
        assert out.code == 0, out.error
        assert out.of("verdict")[-1].data["operation_id"] == "op-1"
        assert updates(fake) == [["version"]]
        assert list(fake.operations) == ["op-1"]
        group = fake.group("workers")
        assert (group.version, group.nodes, group.status) == ("1.30", 3, "RUNNING")


def test_an_operation_created_before_the_step_began_is_not_its() -> None:
    """Timing: an operation missing from the step's snapshot (the list lagged) that was
    created more than CLOCK_SKEW_SECONDS before the step began is not the step's; one created
    after it, whose result is not known yet, may be."""
    from ngupgrade.adapters.cloud.types import OperationState
    from ngupgrade.adapters.files import journal as jr
    from ngupgrade.upgrade.adopt import CLOCK_SKEW_SECONDS, match

    j = jr.Journal(group_id=WORKERS, address="a", name="workers", target="1.30",
                   latest_revision=False, start_version="1.29", start_nodes=3,
                   start_node_ids=[], start_policy=DeployPolicy(1, 0),
                   terraform_policy=DeployPolicy(1, 0), override=None, restore_policy=False)
    j.steps["version_update"] = jr.StepRecord(started_at="2027-01-15T08:00:00+00:00")
    began = 1_800_000_000.0                     # 2027-01-15T08:00:00Z
    early = OperationState("op-7", "Update node group", done=True, error_code=13,  # no result
                           created_at=began - CLOCK_SKEW_SECONDS - 1)
    with pytest.raises(ForeignOperation, match=r"op-7 .* it started before this step began"):
        match([early], j, "version_update", WORKERS)
    late = OperationState("op-8", "Update node group", done=False, created_at=began + 5)
    found = match([early, late], j, "version_update", WORKERS)
    assert found is not None and (found.operation_id, found.provisional) == ("op-8", True)
    assert match([], j, "version_update", WORKERS) is None


# -- Done when: two `upgrade --apply` of one group at once, as two processes ------------------

@pytest.mark.parametrize("where", ["same-directory", "two-directories"])
def test_two_concurrent_processes_make_one_version_operation(tmp_path: Path,
                                                            where: str) -> None:
    """Two CI jobs start `ngupgrade upgrade --apply` of one group together, as separate
    processes against one fake cloud running 120x real time (the upgrade takes 540 virtual
    seconds, 4.5 real ones, longer than a process takes to start, so the two overlap). Same
    directory: one journal, the lock refuses the second (exit 1, naming the holder). Two
    directories: the later one either refuses at its check ("another operation is in
    progress") or, when both passed their checks, has its Update refused, waits, reads 1.30
    and attaches. Either way: one version operation."""
    import subprocess
    import sys

    from ngupgrade.testing import FakeCloud, RealClock
    from tests._upgrade_helpers import ROOT, STATE, scenario

    dirs = [tmp_path / "a", tmp_path / "a"] if where == "same-directory" else [
        tmp_path / "a", tmp_path / "b"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("YC_", "NGUPGRADE_"))}
    with FakeCloud.from_state(STATE, scenario(), clock=RealClock(120)).start() as fake:
        argv = [sys.executable, "-m", "ngupgrade", "--endpoint", fake.endpoint, "--insecure",
                "--state", STATE, "upgrade", "-g", "workers", "--version", "1.30", "--apply",
                "--time-scale", "120"]
        procs = []
        for d in dirs:
            d.mkdir(exist_ok=True)
            procs.append(subprocess.Popen(
                [*argv, "--journal", str(d / "j.json")], cwd=ROOT, env=env, text=True,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        ends = [(p.wait(timeout=180), *p.communicate()) for p in procs]
        codes = sorted(code for code, _out, _err in ends)
        text = "\n".join(out + err for _code, out, err in ends)
        assert fake.operation("op-1").done
        assert list(fake.operations) == ["op-1"]                    # one version operation
        assert [list(c.request.update_mask.paths)
                for c in fake.calls_to("NodeGroupService.Update") if c.code == "OK"] == [
            ["version"]]
        group = fake.group("workers")
        assert (group.version, group.nodes, group.status) == ("1.30", 3, "RUNNING")
    if where == "same-directory":
        assert codes == [0, 1], text
        assert "another ngupgrade run holds this journal: pid" in text
        assert len(fake.calls_to("NodeGroupService.Update")) == 1
    elif codes == [0, 1]:
        assert "another operation is in progress on this node group: op-1" in text, text
        assert len(fake.calls_to("NodeGroupService.Update")) == 1
    else:
        assert codes == [0, 0], text
        assert "version 1.30 already in place after operation op-1" in text
        assert [c.code for c in fake.calls_to("NodeGroupService.Update")] == [
            "OK", "FAILED_PRECONDITION"]


# -- item 12: two inputs reading stdin are a usage error (the shared cli check) ---------------

@pytest.mark.parametrize(("args", "named"), [
    (("preflight", "-g", "workers", "--state", "-", "--pdbs", "-"), "--state and --pdbs"),
    (("upgrade", "-g", "workers", "--version", "1.30", "--apply", "--state", "-",
      "--cluster", "-"), "--state and --cluster"),
])
def test_two_inputs_reading_stdin_are_a_usage_error_before_any_call(
        run_cli, tmp_path: Path, args: tuple[str, ...], named: str) -> None:
    """`--state - --pdbs -` used to read stdin twice (the second input got nothing and failed
    as bad input of the wrong kind). Refused by cli._common.stdin_once, before any call."""
    from ngupgrade.app.timing import Timing
    from tests._upgrade_helpers import STATE

    with example_cloud() as fake:
        run_cli.timing = Timing(fake.now, fake.sleep)
        res = run_cli("--endpoint", fake.endpoint, "--insecure", *args,
                      stdin=Path(STATE).read_bytes())
        assert res.exit_code == 2, res.stderr
        assert f"stdin can be given only once: {named} read '-'" in res.stderr
        assert fake.calls == [] and fake.operations == {}
        assert fake.group("workers").version == "1.29"
