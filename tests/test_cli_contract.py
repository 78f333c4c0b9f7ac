"""The command-line contract every command shares (issue 11): version, pipes, errors in JSON.

Each test failed before its fix, run as the user runs ngupgrade.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ngupgrade import __version__
from tests.conftest import EXAMPLE_STATE, EXAMPLES

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


# ---- item 10: a reader that stops early is not a failed check -------------------------------

def _run_into_closed_pipe(*argv: str) -> subprocess.CompletedProcess[bytes]:
    """Run ngupgrade with stdout a pipe nobody reads any more: every write gets EPIPE.

    The same as `ngupgrade groups -o json | head -c 100` on a large state, without the race.
    """
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "ngupgrade", *argv], stdout=write_end,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=60,
                              env={**os.environ, "NGUPGRADE_OUTPUT": ""})
    finally:
        os.close(write_end)


@pytest.fixture(scope="module")
def served_cloud():
    """The example state served by a fake cloud at speed x600 (dry runs and idle waits only)."""
    from ngupgrade.adapters.state.parse import parse_state
    from ngupgrade.testing import FakeCloud, RealClock

    groups = parse_state(EXAMPLE_STATE.read_bytes(), source=str(EXAMPLE_STATE)).groups
    fake = FakeCloud(groups, clock=RealClock(600)).start()
    yield fake
    fake.stop()


@pytest.mark.parametrize("argv", [
    ["groups", "-o", "json"], ["groups"], ["plan", "-o", "json"], ["plan"],
    ["preflight", "--quotas", str(EXAMPLES / "quotas.yaml"), "--sequential", "-o", "json"],
    ["--help"], ["plan", "--help"], ["--version"],
])
def test_stdout_closed_early_exits_0_silently(argv: list[str]) -> None:
    # Before: click turned EPIPE into exit 1 ("a check failed"), or the flush at interpreter
    # exit printed "Exception ignored ... BrokenPipeError" and exited 120.
    result = _run_into_closed_pipe("--state", str(EXAMPLE_STATE), *argv)
    assert (result.returncode, result.stderr.decode()) == (0, "")


@pytest.mark.parametrize("argv", [
    ["set-policy", "-g", "workers", "--max-expansion", "2"],
    ["upgrade", "-g", "workers", "--version", "1.30"],
    ["wait", "-g", "workers", "--timeout", "0"],
    ["wait", "-g", "workers", "--timeout", "0", "-o", "json"],
])
def test_stdout_closed_early_exits_0_silently_on_cloud_commands(served_cloud,
                                                                argv: list[str]) -> None:
    result = _run_into_closed_pipe("--state", str(EXAMPLE_STATE), "--endpoint",
                                   served_cloud.endpoint, "--insecure", *argv)
    assert (result.returncode, result.stderr.decode()) == (0, ""), result.stderr
