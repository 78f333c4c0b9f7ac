"""Option types and shared options of the command line (ngupgrade/cli/_common.py): finite
numbers, bounded counts, single-target options given once, values from the environment named."""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLE_STATE


@pytest.mark.parametrize("command", [["plan"], ["upgrade", "-g", "workers", "--version", "1.30"]])
@pytest.mark.parametrize("value", ["nan", "inf", "1e400"])
def test_cycle_minutes_must_be_finite(run_cli, value: str, command: list[str]) -> None:
    # Before: nan and inf passed FloatRange and crashed the duration maths (exit 70).
    result = run_cli(*command, "--state", str(EXAMPLE_STATE), "--cycle-minutes", value)
    assert result.exit_code == 2, result.stderr
    assert "--cycle-minutes" in result.stderr
    assert "not a finite number" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_fake_cloud_speed_must_be_finite(run_cli, value: str) -> None:
    # Before: the fake cloud served "at speed xnan" with a broken virtual clock.
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--speed", value)
    assert result.exit_code == 2, result.stderr
    assert "--speed" in result.stderr


def test_nodes_flag_is_bounded_like_the_state(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--nodes", "100000000")
    assert result.exit_code == 2, result.stderr
    assert "--nodes" in result.stderr


@pytest.mark.parametrize("args", [
    ("set-policy", "-g", "workers", "-g", "gpu", "--max-expansion", "2"),
    ("set-policy", "-g", "workers", "-g", "gpu", "--max-expansion", "2", "--apply"),
    ("wait", "-g", "workers", "-g", "gpu"),
    ("wait", "--operation", "op-1", "--operation", "op-2"),
])
def test_repeated_single_target_option_is_a_usage_error(run_cli, args: tuple[str, ...]) -> None:
    # Before: click kept the last --group silently, so `set-policy -g workers -g gpu --apply`
    # changed gpu alone while the user may have meant workers (or both).
    result = run_cli(*args, "--state", str(EXAMPLE_STATE), "--endpoint", "127.0.0.1:9",
                     "--insecure")
    assert result.exit_code == 2, result.stderr
    assert "given 2 times" in result.stderr
    assert "NodeGroupService" not in result.stderr  # refused before any cloud call


def test_bad_value_from_the_environment_names_the_variable(
        run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: "Invalid value for '--output'" although no --output was typed.
    result = run_cli("groups", "--state", str(EXAMPLE_STATE))
    assert result.exit_code == 0
    monkeypatch.setenv("NGUPGRADE_OUTPUT", "xml")
    result = run_cli("groups", "--state", str(EXAMPLE_STATE))
    assert result.exit_code == 2
    assert "(from the environment variable NGUPGRADE_OUTPUT)" in result.stderr
    monkeypatch.delenv("NGUPGRADE_OUTPUT")
    typed = run_cli("groups", "--state", str(EXAMPLE_STATE), "--output", "yaml")
    assert typed.exit_code == 2
    assert "environment" not in typed.stderr


# ---- shared flags a run does not use (issue 11 item 8) --------------------------------------
# One rule: a typed flag is checked as the run that uses it would check it, then named on
# stderr as not used; from the environment it is ambient and never noted.

QUOTAS = str(EXAMPLE_STATE.parent / "quotas.yaml")
OFFLINE_RUNS = {
    "groups": (["groups"], "`groups` reads only the Terraform state"),
    "plan": (["plan", "-g", "workers"], "`plan` reads the cloud only with --endpoint"),
    "preflight --quotas": (["preflight", "-g", "workers", "--quotas", QUOTAS],
                           "with --quotas the limits come from the file, no API call is made"),
    "advise --quotas": (["advise", "-g", "workers", "--quotas", QUOTAS],
                        "with --quotas the limits come from the file, no API call is made"),
}


@pytest.mark.parametrize("run", sorted(OFFLINE_RUNS))
def test_an_unreadable_ca_file_is_refused_where_it_is_not_used(run_cli, run: str) -> None:
    # Before: `groups --endpoint H:P --ca-file /nonexistent` exited 0.
    argv, _why = OFFLINE_RUNS[run]
    result = run_cli(*argv, "--state", str(EXAMPLE_STATE), "--ca-file", "/nonexistent/ca.pem")
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == (
        "error: /nonexistent/ca.pem: cannot read CA bundle: No such file or directory")


def test_fake_cloud_refuses_an_unreadable_ca_file_too(run_cli) -> None:
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--ca-file", "/nonexistent")
    assert result.exit_code == 3


@pytest.mark.parametrize("run", ["groups", "preflight --quotas", "advise --quotas"])
def test_insecure_with_a_remote_endpoint_is_refused_offline_as_live(run_cli, run: str) -> None:
    # Before: offline `preflight --quotas F --endpoint H:P --insecure` passed a combination
    # that the live path refuses.
    argv, _why = OFFLINE_RUNS[run]
    result = run_cli(*argv, "--state", str(EXAMPLE_STATE),
                     "--endpoint", "api.cloud.yandex.net:443", "--insecure")
    assert result.exit_code == 2, result.stderr
    assert ("--insecure is allowed only for a loopback endpoint, not api.cloud.yandex.net:443"
            in result.stderr)


@pytest.mark.parametrize("run", ["groups", "preflight --quotas", "advise --quotas"])
def test_valid_connection_flags_of_an_offline_run_are_named_as_not_used(run_cli, run: str
                                                                        ) -> None:
    argv, why = OFFLINE_RUNS[run]
    result = run_cli(*argv, "--state", str(EXAMPLE_STATE), "-o", "json",
                     "--endpoint", "127.0.0.1:9", "--insecure")
    assert result.exit_code in (0, 1), result.stderr  # the run's own verdict
    assert f"note: --endpoint, --insecure not used: {why}" in result.stderr.splitlines()
    result.json()  # stdout is the report, untouched


def test_a_ca_file_alone_on_plan_is_named_as_not_used(run_cli, tmp_path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "-g", "workers", "--ca-file", str(ca))
    assert result.exit_code == 0
    assert result.stderr == ("note: --ca-file not used: `plan` reads the cloud only with "
                             "--endpoint\n")


def test_state_source_flags_beside_a_file_state_are_named_as_not_used(run_cli) -> None:
    result = run_cli("groups", "--state", str(EXAMPLE_STATE), "--terraform-bin", "tofu",
                     "--workspace", "prod", "--s3-endpoint", "https://s3.example")
    assert result.exit_code == 0
    assert result.stderr == (f"note: --terraform-bin, --workspace, --s3-endpoint not used: the "
                             f"Terraform state comes from {str(EXAMPLE_STATE)!r}\n")


def test_flags_from_the_environment_are_ambient(run_cli, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    # YC_ENDPOINT set for the commands that call the cloud says nothing on those that do not.
    monkeypatch.setenv("YC_ENDPOINT", "127.0.0.1:9")
    monkeypatch.setenv("TF_WORKSPACE", "prod")
    result = run_cli("groups", "--state", str(EXAMPLE_STATE))
    assert (result.exit_code, result.stderr) == (0, "")


@pytest.mark.parametrize("argv", [
    ["groups", "--endpoint", "127.0.0.1:9"],
    ["set-policy", "-g", "workers", "--max-expansion", "1", "--endpoint", "127.0.0.1:9"],
])
def test_a_ca_file_that_is_not_pem_is_bad_input_at_load(run_cli, argv: list[str]) -> None:
    # Before: the state file as --ca-file was taken; the first call failed with exit 4,
    # "Failed to create security handshaker", naming neither the flag nor the file.
    result = run_cli(*argv, "--state", str(EXAMPLE_STATE), "--ca-file", str(EXAMPLE_STATE))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[:2] == [
        f"error: {EXAMPLE_STATE}: not a PEM CA bundle: no -----BEGIN CERTIFICATE----- line",
        "hint: --ca-file takes the certificate authority's certificate(s) in PEM; a DER one "
        "converts with `openssl x509 -inform DER -in ca.der -out ca.pem`"]
