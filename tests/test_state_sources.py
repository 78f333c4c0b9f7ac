"""State sources a user names with --state: file, stdin, tf:DIR (stand-in terraform), S3 (moto)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from ngupgrade.adapters.state.s3 import object_key
from ngupgrade.adapters.state.sources import StateRequest, read_state_bytes
from ngupgrade.adapters.state.terraform_cli import state_pull
from ngupgrade.adapters.state.tfplan_source import read_plan_bytes
from ngupgrade.core.errors import BadInput, UsageError
from tests.conftest import EXAMPLE_STATE


def test_file_and_missing_file(tmp_path: Path) -> None:
    data, label = read_state_bytes(StateRequest(str(EXAMPLE_STATE)))
    assert data == EXAMPLE_STATE.read_bytes() and label == str(EXAMPLE_STATE)
    with pytest.raises(BadInput, match="no such file"):
        read_state_bytes(StateRequest(str(tmp_path / "nope.tfstate")))
    with pytest.raises(BadInput, match="is a directory") as err:
        read_state_bytes(StateRequest(str(tmp_path)))
    assert err.value.hint is not None and "tf:" in err.value.hint


def test_plan_file_missing_or_a_directory_says_which_and_how_to_name_it(tmp_path: Path) -> None:
    missing = str(tmp_path / "plan.json")
    with pytest.raises(BadInput) as err:
        read_plan_bytes(missing)
    assert (err.value.message, err.value.hint) == (
        f"{missing}: no such file",
        "pass --plan with the output of `terraform show -json PLANFILE`")
    with pytest.raises(BadInput) as err:
        read_plan_bytes(str(tmp_path))
    assert (err.value.message, err.value.hint) == (
        f"{tmp_path}: is a directory",
        f"to run `terraform show -json tfplan` there use --plan tf:{tmp_path}")


def test_default_is_terraform_tfstate_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=r"no \./terraform.tfstate"):
        read_state_bytes(StateRequest(None))
    (tmp_path / "terraform.tfstate").write_bytes(b'{"version": 4}')
    assert read_state_bytes(StateRequest(None)) == (b'{"version": 4}', "terraform.tfstate")


# ---- tf:DIR through the stand-in terraform --------------------------------------------------

@pytest.fixture
def tf_dir(tmp_path: Path) -> Path:
    work = tmp_path / "infra"
    work.mkdir()
    (work / ".terraform").mkdir()
    (work / "fake-state.json").write_bytes(EXAMPLE_STATE.read_bytes())
    return work


def test_state_pull_runs_terraform_in_the_directory(stand_in_terraform: Path, tf_dir: Path
                                                    ) -> None:
    assert state_pull(str(tf_dir)) == EXAMPLE_STATE.read_bytes()
    calls = [json.loads(line) for line in stand_in_terraform.read_text().splitlines()]
    assert calls == [{"argv": ["state", "pull"], "cwd": str(tf_dir)}]


def test_tofu_is_used_when_named(stand_in_terraform: Path, tf_dir: Path) -> None:
    data, label = read_state_bytes(StateRequest(f"tf:{tf_dir}", terraform_bin="tofu"))
    assert data == EXAMPLE_STATE.read_bytes() and label == f"tf:{tf_dir}"


def test_not_initialised(stand_in_terraform: Path, tf_dir: Path) -> None:
    (tf_dir / ".terraform").rmdir()
    with pytest.raises(BadInput) as err:
        state_pull(str(tf_dir))
    assert "Backend initialization required" in str(err.value)
    assert "(exit 1)" in str(err.value)
    assert err.value.hint == "run `terraform init` in that directory first"


def test_state_locked(stand_in_terraform: Path, tf_dir: Path) -> None:
    (tf_dir / ".terraform" / "fake-locked").touch()
    with pytest.raises(BadInput, match="Error acquiring the state lock") as err:
        state_pull(str(tf_dir))
    assert err.value.hint is not None and "lock" in err.value.hint


def test_empty_workspace(stand_in_terraform: Path, tf_dir: Path) -> None:
    (tf_dir / "fake-state.json").unlink()
    with pytest.raises(BadInput, match="printed nothing"):
        state_pull(str(tf_dir))


def test_missing_binary_and_directory(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="cannot find the Terraform CLI 'no-such-tf'") as err:
        state_pull(str(tmp_path), "no-such-tf")
    assert err.value.hint is not None and "--state -" in err.value.hint
    with pytest.raises(BadInput, match="no such directory"):
        state_pull(str(tmp_path / "missing"))


def test_a_named_cli_not_found_is_not_told_to_pass_the_flag_given(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """`--terraform-bin tofu` with no tofu: the hint names installing tofu or its path, never
    'pass --terraform-bin (e.g. tofu)', which the user already did."""
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BadInput) as err:
        state_pull(str(tmp_path), "tofu")
    assert err.value.hint == (
        "install tofu, or give its full path to --terraform-bin, or pipe the JSON: tofu state "
        "pull | ngupgrade ... --state - (tofu show -json PLAN | ngupgrade ... --plan -)")
    with pytest.raises(BadInput) as default:
        state_pull(str(tmp_path))
    assert default.value.hint is not None and default.value.hint.startswith(
        "install it, or pass --terraform-bin (e.g. tofu)")
    with pytest.raises(BadInput, match="no such directory"):
        state_pull(str(tmp_path / "missing"))


# ---- s3:// against moto's server on loopback -----------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


@pytest.fixture
def bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    import boto3

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    name = f"tf-states-{_free_port()}"
    s3.create_bucket(Bucket=name)
    state = EXAMPLE_STATE.read_bytes()
    s3.put_object(Bucket=name, Key="k8s/terraform.tfstate", Body=state)
    s3.put_object(Bucket=name, Key="env:/prod/k8s/terraform.tfstate", Body=b'{"version": 4}')
    s3.put_object(Bucket=name, Key="workspaces/stage/k8s/terraform.tfstate", Body=b"{}")
    return name


def test_object_key_layout() -> None:
    assert object_key("k8s/terraform.tfstate", "default") == "k8s/terraform.tfstate"
    assert object_key("k8s/terraform.tfstate", "prod") == "env:/prod/k8s/terraform.tfstate"
    assert object_key("a", "stage", "workspaces/") == "workspaces/stage/a"


def test_s3_default_and_named_workspaces(bucket: str, s3_endpoint: str) -> None:
    request = StateRequest(f"s3://{bucket}/k8s/terraform.tfstate", s3_endpoint=s3_endpoint)
    data, label = read_state_bytes(request)
    assert data == EXAMPLE_STATE.read_bytes()
    assert label == f"s3://{bucket}/k8s/terraform.tfstate"
    prod = StateRequest(request.spec, workspace="prod", s3_endpoint=s3_endpoint)
    assert read_state_bytes(prod) == (b'{"version": 4}',
                                      f"s3://{bucket}/env:/prod/k8s/terraform.tfstate")
    stage = StateRequest(request.spec, workspace="stage", workspace_key_prefix="workspaces",
                         s3_endpoint=s3_endpoint)
    assert read_state_bytes(stage)[0] == b"{}"


def test_s3_missing_key_names_the_object_and_workspace(bucket: str, s3_endpoint: str) -> None:
    request = StateRequest(f"s3://{bucket}/k8s/terraform.tfstate", workspace="dev",
                           s3_endpoint=s3_endpoint)
    with pytest.raises(BadInput) as err:
        read_state_bytes(request)
    assert str(err.value) == f"s3://{bucket}/env:/dev/k8s/terraform.tfstate: no such state object"
    assert err.value.hint is not None and "--workspace dev" in err.value.hint


def test_s3_missing_bucket_and_bad_url(s3_endpoint: str, bucket: str) -> None:
    with pytest.raises(BadInput, match="no such bucket"):
        read_state_bytes(StateRequest("s3://no-such-bucket-x/k", s3_endpoint=s3_endpoint))
    with pytest.raises(UsageError, match="bad S3 state address"):
        read_state_bytes(StateRequest("s3://only-bucket", s3_endpoint=s3_endpoint))


def test_s3_unreachable_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    endpoint = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(BadInput, match="cannot reach"):
        read_state_bytes(StateRequest("s3://b/k", s3_endpoint=endpoint))


@pytest.mark.parametrize("endpoint", ["notaurl", "http://", "ftp//x"])
def test_s3_endpoint_that_is_not_a_url_is_a_usage_error(
        run_cli, monkeypatch: pytest.MonkeyPatch, endpoint: str) -> None:
    # Before: botocore's ValueError("Invalid endpoint") escaped: exit 70.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "k")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    result = run_cli("groups", "--state", "s3://bucket/k8s.tfstate", "--s3-endpoint", endpoint)
    assert result.exit_code == 2, result.stderr
    assert f"bad --s3-endpoint {endpoint!r}" in result.stderr


def test_workspace_flag_reaches_terraform_state_pull(run_cli, tmp_path) -> None:
    # Before: --workspace was used for s3:// only; with tf:DIR it was accepted and ignored,
    # so `--state tf:DIR --workspace prod` silently read the selected (default) workspace.
    import stat

    tf = tmp_path / "terraform"
    tf.write_text("#!/bin/sh\n"
                  "if [ \"$TF_WORKSPACE\" = prod ]; then cat prod.json\n"
                  "else cat default.json; fi\n")
    tf.chmod(tf.stat().st_mode | stat.S_IEXEC)
    work = tmp_path / "infra"
    work.mkdir()
    doc = EXAMPLE_STATE.read_text()
    (work / "default.json").write_text('{"version": 4, "resources": []}')
    (work / "prod.json").write_text(doc)
    base = ("groups", "--state", f"tf:{work}", "--terraform-bin", str(tf), "-o", "json")
    assert run_cli(*base).json()["groups"] == []
    prod = run_cli(*base, "--workspace", "prod")
    assert prod.exit_code == 0, prod.stderr
    assert len(prod.json()["groups"]) == 3


@pytest.mark.parametrize("spec", ["", "  "])
def test_empty_state_flag_is_a_usage_error(run_cli, spec: str) -> None:
    # Before: "error: no such file" with no file named (exit 3).
    result = run_cli("groups", "--state", spec)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.startswith("error: --state is empty")


# What Terraform 1.11 writes to stderr for `state pull` in a directory whose S3 backend was never
# initialised, with no ~/.terraformrc: a warning first, then the error, coloured into a pipe.
_REAL_TERRAFORM_STDERR = (
    "There are some problems with the CLI configuration:\n"
    "\u2577\n\u2502 Warning: Unable to open CLI configuration file\n\u2502\n"
    "\u2502 The CLI configuration file at \"/root/.terraformrc\" does not exist.\n\u2575\n\n"
    "\x1b[31m\x1b[31m\u2577\x1b[0m\x1b[0m\n"
    "\x1b[31m\u2502\x1b[0m \x1b[0m\x1b[1m\x1b[31mError: \x1b[0m\x1b[0m\x1b[1mBackend "
    "initialization required, please run \"terraform init\"\x1b[0m\n"
    "\x1b[31m\u2502\x1b[0m \x1b[0m\x1b[0mReason: Initial configuration of the requested "
    "backend \"s3\"\n\x1b[31m\u2575\x1b[0m\x1b[0m\n"
)


def test_terraform_error_is_found_under_colour_and_a_warning(run_cli, tmp_path) -> None:
    # Before: with the real Terraform CLI the message was "There are some problems with the
    # CLI configuration:" (the colour codes hid the "Error:" line); the hint was right only
    # by luck of a substring.
    import stat

    tf = tmp_path / "terraform"
    (tmp_path / "stderr.txt").write_text(_REAL_TERRAFORM_STDERR)
    tf.write_text(f"#!/bin/sh\ncat '{tmp_path / 'stderr.txt'}' >&2\nexit 1\n")
    tf.chmod(tf.stat().st_mode | stat.S_IEXEC)
    result = run_cli("groups", "--state", f"tf:{tmp_path}", "--terraform-bin", str(tf))
    assert result.exit_code == 3
    assert result.stderr.splitlines()[0].endswith(
        'failed (exit 1): Error: Backend initialization required, please run "terraform init"')
    assert "\x1b" not in result.stderr
    assert "hint: run `terraform init` in that directory first" in result.stderr


def test_a_hung_terraform_is_stopped_at_the_timeout(stand_in_terraform: Path, tf_dir: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in hangs 60 s with a child holding its stdout; NGUPGRADE_TERRAFORM_TIMEOUT=1
    stops state pull and show -json after 1 s (the child too), exit 3 with a hint."""
    import time

    from ngupgrade.adapters.state.terraform_cli import show_plan_json

    (tf_dir / ".terraform" / "fake-hang").touch()
    (tf_dir / "tfplan").write_bytes(b"{}")
    monkeypatch.setenv("NGUPGRADE_TERRAFORM_TIMEOUT", "1")
    for run in (lambda: state_pull(str(tf_dir)),
                lambda: show_plan_json(str(tf_dir), "tfplan")):
        started = time.monotonic()
        with pytest.raises(BadInput, match="did not finish in 1 s") as err:
            run()
        assert time.monotonic() - started < 10
        assert err.value.hint is not None and "NGUPGRADE_TERRAFORM_TIMEOUT" in err.value.hint
    for bad in ("0", "nan", "soon", "3601"):
        monkeypatch.setenv("NGUPGRADE_TERRAFORM_TIMEOUT", bad)
        with pytest.raises(UsageError, match="NGUPGRADE_TERRAFORM_TIMEOUT"):
            state_pull(str(tf_dir))
