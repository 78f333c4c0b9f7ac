"""The command-line contract every command shares (issue 11): version, pipes, errors in JSON.

Each test failed before its fix, run as the user runs ngupgrade.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
    ["preflight", "--quotas", str(EXAMPLES / "quotas.yaml"), "-g", "workers", "-o", "json"],
    ["--help"], ["plan", "--help"], ["--version"],
    ["fake-cloud"],  # its servers stopped too: before, their threads kept the process alive
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


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [["groups"], ["groups", "-o", "json"], ["plan"],
                                  ["preflight", "--quotas", str(EXAMPLES / "quotas.yaml"),
                                   "-o", "junit"]])
def test_a_full_disk_under_stdout_is_exit_74_not_a_bug(argv: list[str]) -> None:
    # Before: exit 70, "internal error (a bug in ngupgrade): OSError: [Errno 28] ...".
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "ngupgrade", "--state",
                                 str(EXAMPLE_STATE), *argv], stdout=full,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=60,
                                env={**os.environ, "NGUPGRADE_OUTPUT": ""})
    assert result.returncode == 74
    assert result.stderr.decode().splitlines() == [
        "error: cannot write the output (stdout): No space left on device",
        "hint: free space on that disk or write the output elsewhere"]


# ---- item 11: with -o json every failure prints one JSON object on stdout -------------------

GID = "catgroup000000000001"


@pytest.fixture
def cloud(monkeypatch: pytest.MonkeyPatch, run_cli):
    """A fake cloud with one fixed group of 3 (policy 1/0) on the test's virtual clock."""
    from ngupgrade.app.timing import Timing
    from ngupgrade.core.model import DeployPolicy
    from ngupgrade.testing import FakeCloud, node_group

    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    monkeypatch.delenv("YC_TOKEN", raising=False)
    monkeypatch.chdir("/")  # no ./terraform.tfstate: the group is named by id
    fake = FakeCloud([node_group(GID, size=3, policy=DeployPolicy(1, 0))]).start()
    run_cli.timing = Timing(fake.now, fake.sleep)
    yield fake
    fake.stop()


def _one_error(result, code: str, exit_code: int) -> dict:
    """The failure's one JSON object on stdout, checked for the keys every failure has."""
    assert result.exit_code == exit_code, result.stderr
    doc = json.loads(result.stdout)  # one document: json.loads refuses two
    error = doc["error"]
    assert (error["code"], error["exit_code"]) == (code, exit_code)
    assert {"message", "hint", "operation_id"} <= set(error)
    assert error["message"] in result.stderr  # the same words people read
    return doc


def test_json_failure_of_set_policy_names_the_operation(cloud, run_cli) -> None:
    # Before: `set-policy ... --timeout 0 -o json` exited 6 with 0 bytes on stdout.
    result = run_cli("--endpoint", cloud.endpoint, "--insecure", "set-policy", "-g", GID,
                     "--max-unavailable", "1", "--apply", "--timeout", "0", "-o", "json")
    error = _one_error(result, "timeout", 6)["error"]
    assert error["operation_id"] == "op-1"
    assert "ngupgrade wait --operation op-1" in error["hint"]


def test_json_failure_of_wait_names_the_operation(cloud, run_cli) -> None:
    cloud.gateway().update_node_group(GID, version="1.30")
    result = run_cli("--endpoint", cloud.endpoint, "--insecure", "wait", "-g", GID,
                     "--timeout", "0", "-o", "json")
    assert _one_error(result, "timeout", 6)["error"]["operation_id"] == "op-1"


def test_json_failure_of_an_unknown_group(run_cli) -> None:
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "nosuch", "-o", "json",
                     "--quotas", str(EXAMPLES / "quotas.yaml"))
    error = _one_error(result, "usage", 2)["error"]
    assert error["message"] == "no node group matches 'nosuch'"
    assert error["operation_id"] is None


def test_json_failure_of_a_check_is_the_report_with_an_error(run_cli, tmp_path: Path) -> None:
    # The report and the verdict in one object (not two documents on stdout).
    short = tmp_path / "quotas.json"
    short.write_text(json.dumps({"b1gexamplecloud000001": {
        "compute.instances.count": {"limit": 11, "usage": 11}}}))
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--quotas", str(short), "-o", "json")
    doc = _one_error(result, "check-failed", 1)
    assert doc["ok"] is False
    short_rows = [q["quota_id"] for q in doc["clouds"][0]["quotas"] if q["status"] == "short"]
    assert short_rows == ["compute.instances.count"]


def test_json_failure_of_bad_input_names_the_file(run_cli, tmp_path: Path) -> None:
    state = tmp_path / "broken.tfstate"
    state.write_text("{not json")
    for command in ("groups", "plan"):
        result = run_cli(command, "--state", str(state), "-o", "json")
        error = _one_error(result, "bad-input", 3)["error"]
        assert error["source"] == str(state)


def test_json_failure_of_an_invalid_policy(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "workers", "-o", "json",
                     "--max-expansion", "0", "--max-unavailable", "0")
    _one_error(result, "policy-invalid", 1)


@pytest.mark.parametrize("argv", [
    ["groups", "-o", "json", "--no-such-flag"],          # click stops before reading -o
    ["-o", "json", "plan", "--cycle-minutes", "nan"],
    ["--output=json", "wait"],                            # neither --group nor --operation
])
def test_json_failure_of_a_usage_error(run_cli, argv: list[str]) -> None:
    result = run_cli("--state", str(EXAMPLE_STATE), *argv)
    _one_error(result, "usage", 2)


def test_json_from_the_environment_too(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NGUPGRADE_OUTPUT", "json")
    _one_error(run_cli("groups", "--state", "/nonexistent.tfstate"), "bad-input", 3)


def test_json_failure_of_fake_cloud(run_cli, tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("faults: [{kind: nosuch}]\n")
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--scenario", str(scenario),
                     "-o", "json")
    _one_error(result, "bad-input", 3)


def test_upgrade_stream_ends_with_one_error_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # NDJSON: the failure is the stream's last event, once, with the same error object.
    from tests._upgrade_helpers import cli, example_cloud

    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--apply", "--timeout", "2m", "-o", "json",
                             "--journal", str(tmp_path / "j.json"))
    assert code == 6, err
    events = [json.loads(line) for line in out.splitlines()]
    errors = [e for e in events if e["event"] == "error"]
    assert errors == [events[-1]]
    assert (errors[0]["exit_code"], errors[0]["operation_id"]) == (6, "op-1")
    assert errors[0]["error"]["code"] == "timeout"
    assert errors[0]["error"]["operation_id"] == "op-1"


def test_upgrade_usage_error_is_one_error_event(run_cli) -> None:
    result = run_cli("upgrade", "--state", str(EXAMPLE_STATE), "-g", "workers", "-o", "json")
    assert result.exit_code == 2
    (event,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert (event["event"], event["error"]["code"]) == ("error", "usage")


@pytest.mark.parametrize("command", ["groups", "plan", "preflight", "set-policy", "wait",
                                     "fake-cloud"])
def test_every_command_help_has_examples_and_exit_codes(run_cli, command: str) -> None:
    # Before: `groups --help` had no exit codes, `fake-cloud --help` neither examples nor codes.
    result = run_cli(command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout
    assert "Exit codes:" in result.stdout


def test_internal_error_is_two_lines_even_for_a_multiline_message(
        run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: the exception text went out whole (a gRPC error or an SDK RuntimeError is 5+
    # lines), burying the hint to rerun with NGUPGRADE_DEBUG=1.
    import ngupgrade.app.load as load  # `groups` imports it when it runs

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("first line\n\tdetails = second\n\tthird")

    monkeypatch.delenv("NGUPGRADE_DEBUG", raising=False)
    monkeypatch.setattr(load, "load_groups", broken)
    result = run_cli("groups", "--state", str(EXAMPLE_STATE))
    assert result.exit_code == 70
    assert result.stderr.splitlines() == [
        "internal error (a bug in ngupgrade): RuntimeError: first line [...]",
        "hint: rerun with NGUPGRADE_DEBUG=1 for the traceback, and report it",
    ]


def _strict_json(text: str) -> object:
    import json

    def refuse(word: str) -> None:
        raise ValueError(f"not JSON: {word}")

    return json.loads(text, parse_constant=refuse)


def test_json_output_never_prints_nan_or_infinity(run_cli, tmp_path) -> None:
    # Before: a quota file with `limit: .inf` made `preflight -o json` print
    # "limit": Infinity, "headroom": NaN: invalid JSON on stdout with exit 1.
    quotas = tmp_path / "q.yaml"
    quotas.write_text("b1gexamplecloud000001: {compute.instanceCores.count: "
                      "{limit: .inf, usage: .inf}}\n")
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(quotas),
                     "-o", "json")
    if result.stdout:
        _strict_json(result.stdout)
    assert "Traceback" not in result.stderr


def test_set_policy_json_names_its_apply_flag_apply(cloud, run_cli) -> None:
    # `upgrade -o json` writes "apply"; set-policy wrote only "apply_" (the Python name)
    result = run_cli("--endpoint", cloud.endpoint, "--insecure", "set-policy", "-g", GID,
                     "--max-unavailable", "1", "-o", "json")
    assert result.exit_code == 0, result.stderr
    options = result.json()["ngupgrade"]["inputs"]["options"]
    assert (options["apply"], options["apply_"]) == (False, False)
