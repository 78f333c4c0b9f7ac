"""``preflight --plan ... -o junit``: each plan-change case says what the change table says of
its group (the cause, the nodes, the policy of the roll) and the rolls-together note, not only
the kind of change."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "terraform" / "examples"
WORKERS = "yandex_kubernetes_node_group.workers"
BATCH = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'


def _plan_cases(run_cli) -> dict[str, str]:
    result = run_cli("preflight", "--plan", str(EXAMPLES / "plan-roll.json"),
                     "--quotas", str(EXAMPLES / "quotas.yaml"), "-o", "junit")
    assert result.exit_code == 0, result.stderr
    suite = next(s for s in ET.fromstring(result.stdout) if s.get("name") == "plan changes")
    return {case.get("name", ""): case.findtext("system-out", "") for case in suite}


def test_a_roll_case_carries_cause_policy_and_the_rolls_together_note(run_cli) -> None:
    # Before: <system-out>roll</system-out> for each, nothing else.
    cases = _plan_cases(run_cli)
    lines = cases[WORKERS].splitlines()
    assert lines[:4] == ["change: roll", "caused by: version", "nodes: 3",
                         "policy in the roll: 1/0"]
    assert lines[4].startswith("[note] rolls-together: 2 node groups change in one apply")
    assert f"{WORKERS} (roll), {BATCH} (roll)" in lines[4]
    assert cases[BATCH].splitlines()[3] == "policy in the roll: 2/1"


def test_an_unchanged_group_gets_no_rolls_together_note(run_cli) -> None:
    cases = _plan_cases(run_cli)
    assert cases["yandex_kubernetes_node_group.gpu"] == (
        "change: none\ncaused by: -\nnodes: 1\npolicy in the roll: -")
