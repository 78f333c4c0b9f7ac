"""``terraform state pull`` and ``terraform show -json PLAN`` (or ``tofu ...``) through a small
subprocess wrapper.

Why not python-terraform, which the design card names: it is unmaintained (last release
2019), reads ``.terraform/terraform.tfstate`` after every command (with a remote backend
that file is the backend configuration and may hold credentials), and leaks a stray
``-synchronous=true`` flag into commands (python-terraform 0.10.1's source). One ``subprocess.run``
with a fixed argument list is smaller and safer than driving it around those pitfalls.

``state pull`` needs only an initialised backend, no provider plugins (unlike
``show -json``), and takes no lock.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess

from ngupgrade.core.errors import BadInput, UsageError

PULL_TIMEOUT_SECONDS = 300
"""How long ``state pull`` or ``show -json`` may run: a remote backend can be slow, a hung
one (a stuck credential helper, an unreachable backend) must not hold a CI job. Past it the
command and everything it started are killed: exit 3 with a hint. ``NGUPGRADE_TERRAFORM_TIMEOUT``
(seconds, 1..3600) sets it."""

TIMEOUT_ENV = "NGUPGRADE_TERRAFORM_TIMEOUT"
MAX_TIMEOUT_SECONDS = 3600


def terraform_timeout() -> float:
    """Seconds the Terraform CLI may run: ``NGUPGRADE_TERRAFORM_TIMEOUT``, else 300.

    Raises:
        UsageError: the variable is not a number of seconds in 1..3600 (exit 2).
    """
    raw = os.environ.get(TIMEOUT_ENV)
    if raw is None or not raw.strip():
        return PULL_TIMEOUT_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 1 <= value <= MAX_TIMEOUT_SECONDS:  # also refuses nan
        raise UsageError(f"{TIMEOUT_ENV}={raw!r}: expected seconds, 1..{MAX_TIMEOUT_SECONDS}")
    return value

_HINTS = (
    ("terraform init", "run `terraform init` in that directory first"),
    ("not initialized", "run `terraform init` in that directory first"),
    ("backend initialization required", "run `terraform init` in that directory first"),
    ("error acquiring the state lock", "another Terraform run holds the state lock; "
                                       "wait for it to finish (state pull itself takes no lock)"),
    ("state lock", "another Terraform run holds the state lock; wait for it to finish"),
    ("no credential", "the backend needs credentials: export AWS_ACCESS_KEY_ID/"
                      "AWS_SECRET_ACCESS_KEY (or a profile) as `terraform init` did"),
)


def state_pull(directory: str, terraform_bin: str = "terraform",
               timeout: float | None = None, *, workspace: str | None = None) -> bytes:
    """Run ``<terraform_bin> state pull`` in ``directory`` and return its stdout (state JSON).

    ``workspace`` (``--workspace``), unless ``default``, is passed as ``TF_WORKSPACE``, which
    Terraform and OpenTofu read in place of the workspace selected in ``.terraform/``.
    ``timeout`` (seconds) defaults to :func:`terraform_timeout`.

    Raises:
        BadInput: the directory or binary is missing, the command failed (its first error
            line and a hint are in the message), timed out, or printed nothing.
    """
    env = {"TF_WORKSPACE": workspace} if workspace and workspace != "default" else {}
    out = _run(directory, terraform_bin, ["state", "pull"], timeout, env, f"tf:{directory}")
    if not out.strip():
        raise BadInput(f"`{terraform_bin} state pull` printed nothing: the workspace has no state",
                       source=f"tf:{directory}",
                       hint="check the workspace (`terraform workspace show`)")
    return out


def show_plan_json(directory: str, plan_file: str, terraform_bin: str = "terraform",
                   timeout: float | None = None, *, label: str | None = None) -> bytes:
    """Run ``<terraform_bin> show -json PLAN_FILE`` in ``directory``; return the plan JSON.

    ``show -json`` of a saved plan needs the providers of an initialised working directory
    (``terraform show`` loads provider schemas), so it runs in the
    directory where ``terraform plan -out`` ran. Nothing is locked or written.

    Raises:
        BadInput: the directory, plan file or binary is missing, the command failed, timed out
            or printed nothing.
    """
    where = label or f"tf:{directory}"
    if os.path.isdir(directory) and not os.path.isfile(os.path.join(directory, plan_file)):
        raise BadInput(f"no saved plan file {plan_file!r} in {directory}", source=where,
                       hint=f"run `terraform plan -out={plan_file}` there first, or name the "
                            "file: --plan tf:DIR/PLANFILE")
    out = _run(directory, terraform_bin, ["show", "-json", "-no-color", plan_file], timeout, {},
               where)
    if not out.strip():
        raise BadInput(f"`{terraform_bin} show -json {plan_file}` printed nothing", source=where)
    return out


def _run(directory: str, terraform_bin: str, args: list[str], timeout: float | None,
         extra_env: dict[str, str], label: str) -> bytes:
    """Run the Terraform CLI with ``args`` in ``directory``; stdout, or a BadInput."""
    if timeout is None:
        timeout = terraform_timeout()
    if not os.path.isdir(directory):
        raise BadInput("no such directory", source=label)
    binary = shutil.which(terraform_bin)
    if binary is None:
        # the default missing: another CLI may be what this machine has; a CLI the user
        # named missing: its path is what is wrong, not the choice of CLI
        which = ("install it, or pass --terraform-bin (e.g. tofu) / NGUPGRADE_TERRAFORM_BIN"
                 if terraform_bin == "terraform" else
                 f"install {terraform_bin}, or give its full path to --terraform-bin")
        raise BadInput(
            f"cannot find the Terraform CLI {terraform_bin!r} on PATH", source=label,
            hint=f"{which}, or pipe the JSON: {terraform_bin} state pull | ngupgrade ... "
                 f"--state - ({terraform_bin} show -json PLAN | ngupgrade ... --plan -)",
        )
    env = dict(os.environ, TF_IN_AUTOMATION="1", TF_INPUT="0", **extra_env)
    command = " ".join([terraform_bin, *args[:2]])
    try:
        # a session of its own: on timeout the whole process group goes (a backend's helper
        # holding the pipes open would otherwise keep the read waiting)
        proc = subprocess.Popen(
            [binary, *args], cwd=directory, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True,
        )
    except OSError as err:
        raise BadInput(f"cannot run {binary}: {err.strerror}", source=label) from err
    with proc:
        try:
            out, err_bytes = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as err:
            _kill_group(proc)
            raise BadInput(
                f"`{command}` did not finish in {timeout:g} s; stopped", source=label,
                hint=f"check the backend and its credentials (`{command}` by hand in that "
                     f"directory); {TIMEOUT_ENV}=SECONDS (up to {MAX_TIMEOUT_SECONDS}) allows "
                     "longer, or pipe the JSON in with '-'",
            ) from err
    if proc.returncode != 0:
        stderr = err_bytes.decode("utf-8", "replace")
        raise BadInput(
            f"`{command}` failed (exit {proc.returncode}): {_first_error_line(stderr)}",
            source=label, hint=_hint_for(stderr),
        )
    return out


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the command and what it started, then reap it (its pipes closed unread)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    proc.wait()


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
"""Colour codes: Terraform colours its diagnostics even into a pipe (``state pull`` has no
``-no-color``)."""


def _plain(stderr: str) -> str:
    return _ANSI.sub("", stderr)


def _first_error_line(stderr: str) -> str:
    lines = [ln.strip(" │╷╵\t") for ln in _plain(stderr).splitlines()]
    lines = [ln for ln in lines if ln]
    for line in lines:
        if line.lower().startswith("error"):
            return line
    return lines[0] if lines else "(no message)"


def _hint_for(stderr: str) -> str | None:
    lower = _plain(stderr).lower()
    for needle, hint in _HINTS:
        if needle in lower:
            return hint
    return None
