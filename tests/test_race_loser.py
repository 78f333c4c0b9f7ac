"""The loser of a race between two runs in two directories: its policy Update was refused,
it waited for the other run's policy operation and attached to it (the same change), but by
then the other run had sent its version Update, so the group reads RECONCILING past the
settle checks. The exit-6 message names that operation and how to attach to it, not only
"still RECONCILING" (fake cloud through the real SDK; the other run is a second gateway)."""

from __future__ import annotations

from pathlib import Path

from ngupgrade.adapters.files import journal as jr
from ngupgrade.core.errors import OperationTimeout
from ngupgrade.upgrade.events import Event
from tests._upgrade_helpers import WORKERS_ID, example_cloud, run


def test_the_loser_names_the_operation_that_keeps_the_group_reconciling(tmp_path: Path
                                                                         ) -> None:
    with example_cloud() as fake:
        other = fake.gateway()

        def the_other_run_goes_on(event: Event) -> None:
            if event.kind == "operation" and getattr(event, "step", "") == jr.STEP_POLICY:
                fake.sleep(30)   # op-1 (the policy, 10 s) is done: the other run's version
                other.update_node_group(WORKERS_ID, version="1.30")   # Update starts op-2

        # 2: workers' spread placement group holds 5 VMs (3 nodes + 3 would not pass the gate)
        out = run(fake, tmp_path / "j.json", max_expansion=2, hook=the_other_run_goes_on)
        other.close()
        assert list(fake.operations) == ["op-1", "op-2"]
    assert out.code == 6, out.error
    assert isinstance(out.error, OperationTimeout)
    assert out.error.message == (
        f"operation op-1 is done but node group {WORKERS_ID} is still RECONCILING (not "
        "RUNNING) after 10 extra checks: operation op-2 (Update node group) runs on it now, "
        "started after op-1 (another run or operator)")   # was: no word of op-2
    assert out.error.operation_id == "op-2"
    assert out.error.hint == ("attach to it: `ngupgrade wait --operation op-2`; once it is "
                              "done, run the same command again with --resume")


# -- hints only suggest what the mode accepts ---------------------------------------------------

def test_an_advised_run_never_hints_at_journal_which_it_refuses(tmp_path: Path) -> None:
    """Two groups stopped mid-upgrade, then A's journal replaced by B's (copied by hand):
    the resumed advised run refuses it (exit 2, nothing sent) without "--journal" in the hint
    (``--schedule advised`` refuses --journal; was: "pass the right --journal")."""
    import shutil

    from tests.test_upgrade_schedule import A_ID, B_ID, world
    from tests.test_upgrade_schedule import run as run_advised

    with world(12, 3, headroom=8) as fake:
        def stop_both(event: Event) -> None:
            if event.kind == "progress":
                raise KeyboardInterrupt

        assert run_advised(fake, tmp_path, hook=stop_both).code == 130
        a, b = (jr.default_path(g, "1.30", str(tmp_path)) for g in (A_ID, B_ID))
        assert jr.load(b) is not None and jr.load(b).outcome is None      # type: ignore
        shutil.copy(b, a)
        sent = len(fake.calls_to("NodeGroupService.Update"))
        out = run_advised(fake, tmp_path, resume=True)
        assert out.code == 2, out.error
        assert len(fake.calls_to("NodeGroupService.Update")) == sent
    assert out.error is not None and out.error.message == (
        f"{a} is the journal of node group {B_ID}, not {A_ID}")
    assert out.error.hint is not None and "--journal" not in out.error.hint
    assert out.error.hint == (
        f"the file holds {B_ID}'s journal under {A_ID}'s name (copied or moved by hand): put "
        f"it back where it was, or delete it to start {A_ID} over, then run the same command "
        "again")
