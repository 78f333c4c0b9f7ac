"""``terraform state pull`` (or ``tofu state pull``) through a small subprocess wrapper.

Why not python-terraform, which the design card names: it is unmaintained (last release
2019), reads ``.terraform/terraform.tfstate`` after every command (with a remote backend
that file is the backend configuration and may hold credentials), and leaks a stray
``-synchronous=true`` flag into commands (reference section 5). One ``subprocess.run`` with
a fixed argument list is smaller and safer than driving it around those pitfalls.

``state pull`` needs only an initialised backend, no provider plugins (unlike
``show -json``), and takes no lock.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from ngupgrade.core.errors import BadInput

PULL_TIMEOUT_SECONDS = 300
"""A remote backend can be slow; past this the pull is abandoned with a clear error."""

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
               timeout: float = PULL_TIMEOUT_SECONDS, *, workspace: str | None = None) -> bytes:
    """Run ``<terraform_bin> state pull`` in ``directory`` and return its stdout (state JSON).

    ``workspace`` (``--workspace``), unless ``default``, is passed as ``TF_WORKSPACE``, which
    Terraform and OpenTofu read in place of the workspace selected in ``.terraform/``.

    Raises:
        BadInput: the directory or binary is missing, the command failed (its first error
            line and a hint are in the message), timed out, or printed nothing.
    """
    label = f"tf:{directory}"
    if not os.path.isdir(directory):
        raise BadInput("no such directory", source=label)
    binary = shutil.which(terraform_bin)
    if binary is None:
        raise BadInput(
            f"cannot find the Terraform CLI {terraform_bin!r} on PATH", source=label,
            hint="install it, or pass --terraform-bin (e.g. tofu) / NGUPGRADE_TERRAFORM_BIN, "
                 "or pipe the state: terraform state pull | ngupgrade ... --state -",
        )
    env = dict(os.environ, TF_IN_AUTOMATION="1", TF_INPUT="0")
    if workspace and workspace != "default":
        env["TF_WORKSPACE"] = workspace
    try:
        done = subprocess.run(
            [binary, "state", "pull"], cwd=directory, env=env, capture_output=True,
            timeout=timeout, check=False, stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as err:
        raise BadInput(f"`{terraform_bin} state pull` did not finish in {timeout:.0f} s",
                       source=label) from err
    except OSError as err:
        raise BadInput(f"cannot run {binary}: {err.strerror}", source=label) from err
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        raise BadInput(
            f"`{terraform_bin} state pull` failed (exit {done.returncode}): "
            f"{_first_error_line(stderr)}",
            source=label, hint=_hint_for(stderr),
        )
    if not done.stdout.strip():
        raise BadInput(f"`{terraform_bin} state pull` printed nothing: the workspace has no state",
                       source=label, hint="check the workspace (`terraform workspace show`)")
    return done.stdout


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
