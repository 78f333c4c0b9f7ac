"""A mistyped command is answered with the closest one, in the words click uses for a
mistyped option ("(Did you mean '--state'?)"); exit 2, a usage error."""

from __future__ import annotations


def test_a_mistyped_command_names_the_closest(run_cli) -> None:
    # Before: "Error: No such command 'pln'." and nothing else.
    result = run_cli("pln", "--state", "x.tfstate")
    assert result.exit_code == 2
    assert "No such command 'pln'. (Did you mean 'plan'?)" in result.stderr
    drain = run_cli("drain-chek")
    assert "(Did you mean 'drain-check'?)" in drain.stderr


def test_a_command_close_to_nothing_gets_no_guess(run_cli) -> None:
    result = run_cli("xyz")
    assert result.exit_code == 2
    assert "No such command 'xyz'." in result.stderr and "Did you mean" not in result.stderr


def test_the_json_error_carries_the_guess(run_cli) -> None:
    result = run_cli("-o", "json", "upgarde")
    assert result.exit_code == 2
    assert result.json()["error"]["message"] == (
        "No such command 'upgarde'. (Did you mean 'upgrade'?)")
