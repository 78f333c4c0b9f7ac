"""``--min-available N|P%`` is read by one callback (``cli._common.parse_min_available``) for
both commands that take it: a value that is neither a count nor a percentage up to 100 is a
usage error (exit 2) naming the option, before any state is read."""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLE_STATE


@pytest.mark.parametrize("command", [
    ["advise", "-g", "workers"],
    ["upgrade", "-g", "workers", "--version", "1.30", "--schedule", "advised"],
])
@pytest.mark.parametrize(("value", "message"), [
    ("101%", "--min-available '101%': a percentage is 0..100"),
    ("9x", "--min-available '9x': expected a node count N or a percentage P% (e.g. 18 or 90%)"),
])
def test_a_bad_min_available_is_a_usage_error(run_cli, command: list[str], value: str,
                                              message: str) -> None:
    result = run_cli(*command, "--state", str(EXAMPLE_STATE), "--min-available", value)
    assert result.exit_code == 2, result.stderr
    assert result.stdout == ""
    assert f"Error: Invalid value for '--min-available': {message}\n" in result.stderr
