"""The one Update path (ngupgrade.upgrade.mutation) on the fake cloud, through the real SDK.

Ambiguous failures and another operation in progress (field report C13) are tested here, once;
the runbook's and set-policy's tests only check that they go through it.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ngupgrade.adapters.cloud.waiter import Timing
from ngupgrade.core.errors import CloudApiError, OutcomeUnknown
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, node_group
from ngupgrade.upgrade.events import Event
from ngupgrade.upgrade.mutation import (
    AMBIGUOUS_CODES,
    DEFAULT_CONFLICT,
    Change,
    ConflictPolicy,
    Mutation,
)
from tests._upgrade_helpers import example_cloud, run, updates

GID = "catgroup000000000001"
VERSION = Change(version="1.30")


@pytest.fixture
def fake():
    with FakeCloud([node_group(GID, size=6, policy=DeployPolicy(1, 0))]) as f:
        yield f


def _mutation(fake: FakeCloud, gw, conflict: ConflictPolicy = DEFAULT_CONFLICT,
              sleep=None) -> Mutation:
    return Mutation(gw, Timing(fake.now, sleep or fake.sleep), conflict)


def test_ambiguous_codes_are_the_two_that_leave_the_outcome_open():
    assert frozenset({"DEADLINE_EXCEEDED", "UNAVAILABLE"}) == AMBIGUOUS_CODES


def test_one_update_one_list_operations_before_it(fake):
    gw = fake.gateway()
    current = gw.get_node_group(GID)
    sent = _mutation(fake, gw).send(GID, VERSION, current=current)
    assert (sent.operation_id, sent.attached, sent.update_calls) == ("op-1", False, 1)
    assert [c.method for c in fake.calls] == [
        "NodeGroupService.Get", "NodeGroupService.ListOperations", "NodeGroupService.Update"]


def test_ambiguous_update_attaches_to_the_operation_it_started(fake):
    """A deadline on Update after the cloud applied it: one Update, attach via ListOperations."""
    fake.add_fault({"kind": "deadline_after_apply"})
    gw = fake.gateway()
    sent = _mutation(fake, gw).send(GID, VERSION, current=gw.get_node_group(GID))
    assert sent.attached and sent.operation_id == "op-1" and sent.update_calls == 1
    assert [c.code for c in fake.calls_to("NodeGroupService.Update")] == ["DEADLINE_EXCEEDED"]
    assert len(fake.calls_to("NodeGroupService.ListOperations")) == 2  # before and after


def test_ambiguous_update_with_nothing_listed_is_an_unknown_outcome_never_a_negative(fake):
    """Issue 10 item 6: ListOperations not caught up is no proof that nothing started."""
    fake.add_fault({"kind": "rpc_error", "method": "NodeGroupService.Update",
                    "code": "UNAVAILABLE"})
    slept: list[float] = []
    gw = fake.gateway()
    with pytest.raises(OutcomeUnknown) as exc:
        _mutation(fake, gw, sleep=slept.append).send(GID, VERSION,
                                                     current=gw.get_node_group(GID))
    assert exc.value.code == "UNAVAILABLE" and exc.value.exit_code == 4
    assert "the outcome is unknown" in exc.value.message
    assert "no operation was started" not in exc.value.message
    assert f"ngupgrade wait --group {GID}" in (exc.value.hint or "")
    assert len(fake.calls_to("NodeGroupService.Update")) == 1
    assert slept == [1.0, 2.0, 4.0]                       # 4 looks over 7 s
    assert len(fake.calls_to("NodeGroupService.ListOperations")) == 1 + 4


def test_c13_waits_for_the_blocking_operation_reads_again_then_retries_once(fake, caplog):
    """C13 base: Update -> FAILED_PRECONDITION; op-9 done after 2 polls; 2 Updates in all."""
    fake.add_fault({"kind": "operation_in_progress", "operation_id": "op-9",
                    "description": "master upgrade", "polls": 2})
    gw = fake.gateway()
    with caplog.at_level(logging.WARNING, logger="ngupgrade.upgrade.mutation"):
        sent = _mutation(fake, gw).send(GID, VERSION, current=gw.get_node_group(GID))
    assert sent.update_calls == 2 and sent.operation_id != "op-9" and sent.reached_by is None
    assert [c.code for c in fake.calls_to("NodeGroupService.Update")] == [
        "FAILED_PRECONDITION", "OK"]
    assert [c.request.operation_id for c in fake.calls_to("OperationService.Get")] == [
        "op-9"] * 3
    # after the wait: the group read again (not at 1.30 yet) before the second Update
    methods = [c.method for c in fake.calls]
    last_poll = len(methods) - 1 - methods[::-1].index("OperationService.Get")
    assert methods[last_poll + 1:] == ["NodeGroupService.Get", "NodeGroupService.ListOperations",
                                       "NodeGroupService.Update"]
    assert any("waiting for op-9 (master upgrade)" in r.getMessage() for r in caplog.records)


def test_c13_variant_refused_four_times_with_retry_limit_three_names_op9(fake):
    fake.add_fault({"kind": "operation_in_progress", "operation_id": "op-9", "polls": 2,
                    "times": 4})
    gw = fake.gateway()
    with pytest.raises(CloudApiError) as exc:
        _mutation(fake, gw, ConflictPolicy(attempts=3, wait_seconds=600)).send(
            GID, VERSION, current=gw.get_node_group(GID))
    assert "refused 3 times" in exc.value.message and "op-9" in exc.value.message
    assert exc.value.code == "FAILED_PRECONDITION"
    assert len(fake.calls_to("NodeGroupService.Update")) == 3
    assert "ngupgrade wait --operation op-9" in (exc.value.hint or "")


def test_c13_blocker_past_the_bound_exits_naming_it(fake):
    fake.add_fault({"kind": "operation_in_progress", "operation_id": "op-9", "seconds": 7200})
    gw = fake.gateway()
    start = fake.now()
    with pytest.raises(CloudApiError, match=r"op-9 \(master upgrade\) still running after 600 s"):
        _mutation(fake, gw, ConflictPolicy(attempts=2, wait_seconds=600)).send(
            GID, VERSION, current=gw.get_node_group(GID))
    assert fake.now() - start == pytest.approx(600)
    assert len(fake.calls_to("NodeGroupService.Update")) == 1


def test_c13_blocker_on_the_cluster_is_found_through_cluster_operations(fake):
    """A master upgrade is listed by ClusterService.ListOperations, not by the node group's."""
    fake.add_fault({"kind": "operation_in_progress", "operation_id": "op-9",
                    "description": "master upgrade", "polls": 2, "scope": "cluster"})
    gw = fake.gateway()
    sent = _mutation(fake, gw).send(GID, VERSION, current=gw.get_node_group(GID))
    assert sent.update_calls == 2
    (listed,) = fake.calls_to("ClusterService.ListOperations")
    assert listed.request.cluster_id == "catq0n7i0h9ka1b2c3d4"
    assert [c.request.operation_id for c in fake.calls_to("OperationService.Get")] == [
        "op-9"] * 3


def test_blocker_that_was_the_same_change_is_attached_to_not_repeated(fake):
    """Issue 10 item 1: another operator's Update to 1.30 runs when ours arrives. After it,
    the group is on 1.30: nothing more is sent, and we attach to their operation."""
    gw = fake.gateway()
    current = gw.get_node_group(GID)                     # read before the other Update
    other = fake.gateway().update_node_group(GID, version="1.30")
    sent = _mutation(fake, gw).send(GID, VERSION, current=current)
    assert (sent.operation_id, sent.reached_by, sent.attached) == (other.id, other.id, True)
    assert [c.code for c in fake.calls_to("NodeGroupService.Update")] == [
        "OK", "FAILED_PRECONDITION"]
    assert list(fake.operations) == ["op-1"]               # one operation for one intent
    assert fake.group(GID).version == "1.30"


def test_after_a_wait_only_what_is_still_needed_is_sent(fake):
    """Wanted 3/1 from 1/0; meanwhile someone set 3/0: the retry's mask is max_unavailable
    alone (computed from the group as read after the wait)."""
    gw = fake.gateway()
    current = gw.get_node_group(GID)
    fake.gateway().update_node_group(GID, policy=DeployPolicy(3, 0))
    sent = _mutation(fake, gw).send(GID, Change(policy=DeployPolicy(3, 1)), current=current)
    assert sent.update_calls == 2 and sent.reached_by is None
    masks = [list(c.request.update_mask.paths) for c in fake.calls_to("NodeGroupService.Update")]
    assert masks == [["deploy_policy.max_expansion"],
                     ["deploy_policy.max_expansion", "deploy_policy.max_unavailable"],
                     ["deploy_policy.max_unavailable"]]
    fake.sleep(60)
    assert fake.group(GID).policy == DeployPolicy(3, 1)


# -- the runbook's Updates go through it: calls around each Update ----------------------------

def _calls_before_each_update(fake: FakeCloud, marks: list[int]) -> list[list[str]]:
    """For each Update, the calls made between the event mark before it and the Update."""
    methods = [c.method for c in fake.calls]
    at = [i for i, m in enumerate(methods) if m == "NodeGroupService.Update"]
    return [methods[m:u] for m, u in zip(marks, at, strict=True)]


def test_each_runbook_update_costs_one_get_and_one_list_operations(tmp_path: Path) -> None:
    """Issue 9: before every Update of an upgrade with an override and a restore, exactly one
    NodeGroupService.Get (the step's look at the group) and one ListOperations."""
    marks: list[int] = []
    with example_cloud() as fake:

        def mark(event: Event) -> None:
            # the step before each Update is over (or the group has just begun)
            if event.kind == "group_started" or (
                    event.kind == "step_finished" and event.data["step"] != "version_update"):
                marks.append(len(fake.calls))

        out = run(fake, tmp_path / "j.json", max_expansion=2, max_unavailable=1, restore=True,
                  hook=mark)
        assert out.code == 0, out.error
        assert len(updates(fake)) == 3
        before = _calls_before_each_update(fake, [marks[0], marks[1], marks[2]])
    assert before == [["NodeGroupService.Get", "NodeGroupService.ListOperations"]] * 3


def test_two_upgrades_of_one_group_at_once_make_one_version_operation(tmp_path: Path) -> None:
    """Issue 10 item 1, the runbook: another run's version Update lands between our checks and
    ours. Ours is refused, waits for it, reads the group (1.30) and attaches: exit 0, one
    version operation, no second rolling upgrade."""
    with example_cloud() as fake:
        other = fake.gateway()

        def race(event: Event) -> None:
            if event.kind == "step_started" and event.data["step"] == "version_update":
                other.update_node_group("cat1ng0fixed0000abcd", version="1.30")

        out = run(fake, tmp_path / "j.json", hook=race)
        other.close()
        assert out.code == 0, out.error
        notes = [e.data["message"] for e in out.of("note")]
        assert any("version 1.30 already in place after operation op-1" in n for n in notes)
        assert [c.code for c in fake.calls_to("NodeGroupService.Update")] == [
            "OK", "FAILED_PRECONDITION"]
        assert list(fake.operations) == ["op-1"]
        group = fake.group("workers")
        assert (group.version, group.nodes, group.status) == ("1.30", 3, "RUNNING")
        verdict = out.of("verdict")[-1].data
        assert verdict["ok"] and verdict["operation_id"] == "op-1"


LIMIT = "The limit on maximum number of active operations has exceeded"


def test_c23_active_operations_limit_is_retried_every_5_s_then_one_operation(fake):
    """C23 (d): the first two Updates answer the limit, the third is accepted: three calls,
    one operation, 10 s of waiting."""
    fake.add_fault({"kind": "rpc_error", "method": "NodeGroupService.Update",
                    "code": "RESOURCE_EXHAUSTED", "message": LIMIT, "times": 2})
    slept: list[float] = []
    gw = fake.gateway()
    sent = _mutation(fake, gw, sleep=slept.append).send(GID, VERSION,
                                                        current=gw.get_node_group(GID))
    assert (sent.operation_id, sent.update_calls, sent.attached) == ("op-1", 3, False)
    assert [c.code for c in fake.calls_to("NodeGroupService.Update")] == [
        "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED", "OK"]
    assert list(fake.operations) == ["op-1"]
    assert slept == [5.0, 5.0]


def test_c23_persistent_limit_ends_not_submitted_with_no_operation(fake):
    """C23 (e): past the bound (60 s: 13 calls, 12 waits of 5 s) a distinct "not submitted"
    outcome quoting the limit, and no operation id."""
    fake.add_fault({"kind": "rpc_error", "method": "NodeGroupService.Update",
                    "code": "RESOURCE_EXHAUSTED", "message": LIMIT, "times": 100})
    slept: list[float] = []
    gw = fake.gateway()
    with pytest.raises(CloudApiError) as exc:
        _mutation(fake, gw, sleep=slept.append).send(GID, VERSION,
                                                     current=gw.get_node_group(GID))
    assert not isinstance(exc.value, OutcomeUnknown)
    assert LIMIT in exc.value.message
    assert "not submitted: refused 13 times in 60 s" in exc.value.message
    assert "no operation was started" in exc.value.message
    assert getattr(exc.value, "operation_id", None) is None
    assert slept == [5.0] * 12
    assert len(fake.calls_to("NodeGroupService.Update")) == 13
    assert fake.operations == {}
