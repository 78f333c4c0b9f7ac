"""The reader fuzz harness (bench/fuzz_readers.py) in the suite: a few inputs per reader, and
the inputs it found that were bugs (exit 70), each now bad input (exit 3).

The bench runs 2,000 inputs per reader and prints the figures; here each reader gets a few so
that a reader newly able to crash, hang or balloon fails the suite. Found by the harness: a
journal whose ``start.nodes`` holds a 300-digit integer (OverflowError in the cycle estimate)
or a list where a string goes (TypeError), and a state whose ``auto_upgrade`` holds an integer
of 5,000 digits (msgspec's ValidationError escaped the attribute's soft read).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_STATE, ROOT

sys.path.insert(0, str(ROOT / "bench"))

import fuzz_readers


@pytest.fixture(scope="module")
def tallies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, fuzz_readers.Tally]:
    import os

    os.environ.setdefault("NGUPGRADE_JOURNAL_DIR", str(tmp_path_factory.mktemp("journals")))
    return fuzz_readers.run_all(None, examples=6)


@pytest.mark.parametrize("reader", ["state-v4", "show-json", "plan", "cluster-json",
                                    "cluster-yaml", "quotas-json", "quotas-yaml", "scenario",
                                    "journal"])
def test_no_reader_crashes_hangs_or_balloons(tallies, reader: str) -> None:
    tally = tallies[reader]
    assert tally.inputs == 6
    assert (tally.bugs, tally.hangs, tally.memory) == (0, 0, 0), tally.examples
    assert set(tally.exits) <= {0, 1, 3, 4, 6}, tally.exits


@pytest.fixture(scope="module")
def refusing_cloud():
    from tests._upgrade_helpers import example_cloud

    with example_cloud(faults=[{"kind": "permission_denied",
                                "method": "NodeGroupService.Update", "times": None}]) as fake:
        yield fake


@pytest.mark.parametrize(("where", "value", "said"), [
    (("start", "nodes"), 10 ** 300,
     "$.start.nodes: journal not understood: expected a whole number from 0 to 100000, found "
     "1" + "0" * 59),
    (("start", "nodes"), -1,
     "$.start.nodes: journal not understood: expected a whole number from 0 to 100000, found "
     "-1"),
    (("group_id",), ["cat1ng0fixed0000abcd"],
     "$.group_id: journal not understood: expected a string, found list"),
    (("steps", "version_update", "known_operations"), "op-1",
     "$.steps.version_update.known_operations: journal not understood: expected a list of "
     "strings, found 'op-1'"),
    (("override",), {"max_expansion": True, "max_unavailable": 0},
     "$.override.max_expansion: journal not understood: expected a whole number from 0 to "
     "100000, found True"),
], ids=["huge-nodes", "negative-nodes", "list-id", "string-list", "bool-policy"])
def test_a_journal_value_of_the_wrong_type_is_bad_input(refusing_cloud, monkeypatch, capsys,
                                                         tmp_path: Path, where: tuple[str, ...],
                                                         value: object, said: str) -> None:
    from tests._upgrade_helpers import cli

    doc = json.loads(json.dumps(fuzz_readers.JOURNAL))
    parent = doc
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = value
    journal = tmp_path / "journal.json"
    journal.write_text(json.dumps(doc))
    code, _out, err = cli(refusing_cloud, monkeypatch, capsys, "-g", "workers", "--version",
                          "1.30", "--apply", "--resume", "--journal", str(journal))
    assert code == 3, err
    assert err.splitlines()[0] == f"error: {journal}: {said}"
    assert refusing_cloud.calls_to("NodeGroupService.Update") == []


def test_an_auto_upgrade_of_5000_digits_is_noted_not_a_crash(run_cli, tmp_path: Path) -> None:
    doc = json.loads(EXAMPLE_STATE.read_text())
    for res in doc["resources"]:
        if res["type"] == "yandex_kubernetes_node_group":
            for inst in res["instances"]:
                inst["attributes"]["maintenance_policy"] = [{"auto_upgrade": "HUGE",
                                                              "auto_repair": True,
                                                              "maintenance_window": []}]
    state = tmp_path / "state.tfstate"
    state.write_text(json.dumps(doc).replace('"HUGE"', "1" + "0" * 5000))  # past msgspec's int
    result = run_cli("groups", "--state", str(state), "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_a_plan_nested_900_deep_is_bad_input(run_cli, tmp_path: Path) -> None:
    # Before: RecursionError in copy.deepcopy of the worst case (exit 70).
    from tests.conftest import EXAMPLES

    text = (EXAMPLES / "plan-roll.json").read_text()
    doc = json.loads(text)
    index = next(i for i, rc in enumerate(doc["resource_changes"])
                 if rc["type"] == "yandex_kubernetes_node_group")
    doc["resource_changes"][index]["change"]["after"]["labels"] = "DEEP"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(doc).replace('"DEEP"', "[" * 900 + "]" * 900))
    result = run_cli("plan", "--plan", str(plan), "-o", "json")
    assert result.exit_code == 3, result.stderr
    where = f"$.resource_changes[{index}].change.after.labels" + "[0]" * 99
    assert result.stderr.splitlines()[0] == (f"error: {plan}: {where}: nested more than 100 "
                                             "levels deep (no real document is)")


def test_a_pdb_file_with_a_huge_integer_is_bad_input(run_cli, tmp_path: Path) -> None:
    # Before: the ValueError of Python's int-conversion limit escaped (exit 70).
    from tests.conftest import EXAMPLES

    pdbs = tmp_path / "pdbs.json"
    pdbs.write_text('{"apiVersion": "v1", "kind": "List", "items": [], "x": 1' + "0" * 5000
                    + "}")
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "workers", "--quotas",
                     str(EXAMPLES / "quotas.yaml"), "--pdbs", str(pdbs))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"error: {pdbs}: holds an integer of more than 4300 digits, which no producer writes "
        "and Python refuses to read")
