"""One rule for an out-of-range ``--max-expansion`` / ``--max-unavailable``.

A value the platform accepts for no node group (Yandex: 0..100, Yandex Cloud docs, "Node group
deploy policy"; any platform: below 0) is a usage error (exit 2) naming the range, in every
command that takes the flags, before any API call. A value valid in general but not for
one group (Selectel: 0..the node count, Selectel docs "Стратегия обновления версии Kubernetes
в группе нод", "Расширение размера группы, макс") is that group's failed policy check (exit
1) naming the group and its bound. States: terraform/examples (the provider's own forms).
"""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLE_STATE, EXAMPLES

COMMANDS = {
    "plan": ["plan"],
    "preflight": ["preflight", "--quotas", str(EXAMPLES / "quotas.yaml")],
    "drain-check": ["drain-check", "--cluster", str(EXAMPLES / "cluster.json")],
    "set-policy": ["set-policy", "-g", "workers"],
    "upgrade": ["upgrade", "-g", "workers", "--version", "1.30"],
}
SELECTEL = str(EXAMPLES / "selectel" / "terraform.tfstate")


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("option", ["--max-expansion", "--max-unavailable"])
def test_above_what_yandex_accepts_for_any_group_is_a_usage_error(run_cli, command,
                                                                   option) -> None:
    # Before: exit 1 ("a check failed") for 101, while -1 was exit 2.
    state = str(EXAMPLE_STATE)
    result = run_cli(*COMMANDS[command], "--state", state, option, "101", "-o", "json")
    assert result.exit_code == 2, result.stderr
    error = result.json()["error"]
    assert (error["code"], error["exit_code"]) == ("usage", 2)
    assert error["message"] == (f"{option} 101 is out of range 0..100 (the range Yandex "
                                "accepts for any node group)")
    below = run_cli(*COMMANDS[command], "--state", state, option, "-1")
    assert below.exit_code == 2


def test_valid_in_general_but_not_for_this_group_names_the_group_and_its_bound(run_cli):
    # Selectel's bound is the group's node count: 101 is no usage error there, and 4 is too
    # many for a 3-node group (exit 1, a check failed, naming the group).
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--platform", "selectel",
                     "-g", "workers", "--max-expansion", "101", "-o", "json")
    assert result.exit_code == 1
    error = result.json()["error"]
    assert error["code"] == "policy-invalid"
    assert error["message"].startswith("yandex_kubernetes_node_group.workers: deploy policy: "
                                       "max_expansion 101 is out of range 0..3 (the node count)")


def test_both_zero_stays_the_policy_check(run_cli) -> None:
    # 0/0 is a combination the platform refuses, not a value out of range: as a state's 0/0
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--max-expansion", "0",
                     "--max-unavailable", "0", "-o", "json")
    assert (result.exit_code, result.json()["error"]["code"]) == (1, "policy-invalid")


@pytest.mark.parametrize("command", ["plan", "preflight", "drain-check"])
def test_a_selectel_group_is_told_its_own_bound_not_yandex_s(run_cli, command) -> None:
    # The selected group is Selectel's (no --platform): 101 is its policy check (exit 1)
    # naming 0..5, its node count. Before: "out of range 0..100 (the range Yandex accepts
    # for any node group)", exit 2, checked before the state said whose groups they are.
    extra = {"preflight": ["--quotas", str(EXAMPLES / "selectel" / "quotas.yaml")],
             "drain-check": ["--cluster", str(EXAMPLES / "selectel" / "cluster.json")],
             }.get(command, [])
    result = run_cli(command, *extra, "--state", SELECTEL, "-g",
                     "selectel_mks_nodegroup_v1.workers", "--max-expansion", "101", "-o", "json")
    assert result.exit_code == 1, result.stderr
    error = result.json()["error"]
    assert error["code"] == "policy-invalid"
    assert ("selectel_mks_nodegroup_v1.workers: deploy policy: max_expansion 101 is out of "
            "range 0..5 (the node count)") in error["message"]
    assert "Yandex" not in error["message"] + error["hint"]


@pytest.mark.parametrize("value", ["-1", "abc"])
@pytest.mark.parametrize("option", ["--max-expansion", "--max-unavailable"])
def test_a_value_no_platform_takes_names_the_range_in_message_and_hint(run_cli, value,
                                                                       option) -> None:
    # Before: click's "-1 is not in the range x>=0." and "'abc' is not a valid integer.",
    # the JSON hint null.
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), option, value, "-o", "json")
    assert result.exit_code == 2
    error = result.json()["error"]
    assert (error["code"], error["exit_code"]) == ("usage", 2)
    assert error["message"] == (f"Invalid value for '{option}': '{value}' is not a node count: "
                                "0..100 on Yandex, 0..the node count on Selectel")
    assert error["hint"] == (
        "--max-expansion and --max-unavailable take integers 0..100, at least one > 0 (Yandex "
        "default: max_expansion=3, max_unavailable=0); on Selectel 0..the group's node count "
        "(the autoscaler max when autoscaled)")
