"""The command-line contract every command shares (issue 11): version, pipes, errors in JSON.

Each test failed before its fix, run as the user runs ngupgrade.
"""

from __future__ import annotations

import pytest

from ngupgrade import __version__
from tests.conftest import EXAMPLE_STATE

# ---- item 7: a root --version before a command is a usage error -----------------------------

def test_root_version_alone_prints_the_version(run_cli) -> None:
    result = run_cli("--version")
    assert result.exit_code == 0
    assert result.stdout == f"ngupgrade, version {__version__}\n"


@pytest.mark.parametrize("argv", [
    ["--version", "1.30", "upgrade", "-g", "workers"],   # the Kubernetes version misplaced
    ["--version", "groups"],
    ["--state", str(EXAMPLE_STATE), "--version", "plan", "-g", "workers"],
])
def test_root_version_before_a_command_is_a_usage_error(run_cli, argv: list[str]) -> None:
    # Before: printed "ngupgrade, version 0.1.0" and exited 0, a silent pass in CI.
    result = run_cli(*argv)
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert "--version before a command" in result.stderr
    assert "ngupgrade upgrade -g GROUP --version 1.30" in result.stderr
