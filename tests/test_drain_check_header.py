"""``drain-check``'s group header names the deploy policy as ``plan`` does: the configured
values, where they came from, and the effective policy when the group's size changes it.

The example state's ``workers`` is fixed at 3 nodes with 1/0; ``--max-unavailable 5`` is an
override, and 5 nodes down at once in a group of 3 is clamped to 3 (seed 000: at most the
group's size): effective 1/3.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import EXAMPLE_STATE, CliResult
from tests.test_drain_check_cli import calm_cluster, dump

STATE = str(EXAMPLE_STATE)
Run = Callable[..., CliResult]
CLAMPED = ("max_expansion 1, max_unavailable 5 (command-line override); "
           "effective 1/3 at 3 nodes")


def _lines(text: str, prefix: str) -> list[str]:
    return [line.strip()[len(prefix):].strip() for line in text.splitlines()
            if line.strip().startswith(prefix)]


def test_the_header_names_configured_source_and_effective_policy_as_plan_does(
        tmp_path: Path, run_cli: Run) -> None:
    path = dump(tmp_path, calm_cluster())
    args = ("--state", STATE, "-g", "workers", "--max-unavailable", "5")
    drain = run_cli("drain-check", *args, "--cluster", path)
    plan = run_cli("plan", *args)
    assert _lines(plan.stdout, "deploy policy") == [CLAMPED]
    assert _lines(drain.stdout, "deploy policy:") == [CLAMPED]
    # the first line keeps the effective policy it always showed
    assert drain.stdout.startswith("yandex_kubernetes_node_group.workers  policy 1/3  ")


def test_the_state_s_policy_is_named_as_from_the_state(tmp_path: Path, run_cli: Run) -> None:
    path = dump(tmp_path, calm_cluster())
    drain = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path)
    assert drain.exit_code == 0, drain.stderr
    assert _lines(drain.stdout, "deploy policy:") == [
        "max_expansion 1, max_unavailable 0 (from the state)"]


def test_json_carries_the_configured_policy_and_its_source(tmp_path: Path, run_cli: Run
                                                           ) -> None:
    path = dump(tmp_path, calm_cluster())
    result = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path,
                     "--max-unavailable", "5", "-o", "json")
    (group,) = json.loads(result.stdout)["groups"]
    assert group["policy"] == {"max_expansion": 1, "max_unavailable": 3}  # effective, as before
    assert group["configured_policy"] == {"max_expansion": 1, "max_unavailable": 5,
                                          "source": "override", "assumed": False}
