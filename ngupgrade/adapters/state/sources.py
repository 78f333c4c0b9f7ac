"""Where a Terraform state comes from: a file, stdin, ``terraform state pull``, or S3.

Every reader returns the state's bytes and only reads: no lock is taken and nothing is
written (the brief: never write to Terraform state).

``--state`` grammar (README.md): a path; ``-`` for stdin; ``tf:DIR`` for
``terraform state pull`` in DIR; ``s3://BUCKET/KEY`` for the S3 backend on Yandex Object
Storage (Terraform's ``s3`` backend).
"""

from __future__ import annotations

import os
import sys

from ngupgrade.adapters.state.request import StateRequest
from ngupgrade.core.errors import BadInput, UsageError

DEFAULT_STATE_FILE = "terraform.tfstate"
__all__ = ["DEFAULT_STATE_FILE", "StateRequest", "read_local_file", "read_state_bytes"]


def read_state_bytes(request: StateRequest) -> tuple[bytes, str]:
    """Read the state named by ``request``; return ``(bytes, label)`` for error messages.

    Raises:
        UsageError: no ``--state`` and no ``./terraform.tfstate``; an empty ``--state``.
        BadInput: the file, the Terraform CLI or the bucket could not give a state.
    """
    spec = request.spec
    if spec is None:
        if not os.path.exists(DEFAULT_STATE_FILE):
            raise UsageError(
                "no Terraform state given and no ./terraform.tfstate here",
                hint="pass --state PATH|-|tf:DIR|s3://BUCKET/KEY or set NGUPGRADE_STATE",
            )
        spec = DEFAULT_STATE_FILE
    if not spec.strip():
        raise UsageError("--state is empty",
                         hint="pass --state PATH|-|tf:DIR|s3://BUCKET/KEY, or leave it out "
                              "for ./terraform.tfstate")
    if spec == "-":
        return _read_stdin(), "-"
    if spec.startswith("tf:"):
        from ngupgrade.adapters.state.terraform_cli import state_pull

        directory = spec[3:] or "."
        return state_pull(directory, request.terraform_bin, workspace=request.workspace), spec
    if spec.startswith("s3://"):
        from ngupgrade.adapters.state.s3 import read_s3_state  # boto3 only for s3:// states

        return read_s3_state(request, spec)
    return read_local_file(
        spec, missing_hint="pass --state with the path of a Terraform state",
        directory_hint=f"for `terraform state pull` in that directory use --state tf:{spec}"), spec


def _read_stdin() -> bytes:
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("--state - reads the state from stdin, but stdin is a terminal",
                         hint="pipe it: terraform state pull | ngupgrade groups --state -")
    return sys.stdin.buffer.read()


def read_local_file(path: str, *, missing_hint: str, directory_hint: str) -> bytes:
    """The bytes of a local input file (a state or a plan JSON).

    Raises:
        BadInput: ``no such file`` (hint ``missing_hint``), ``is a directory`` (hint
            ``directory_hint``: the ``tf:`` form for that directory), else ``cannot read:``
            and the OS's reason; the source is ``path``.
    """
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError as err:
        raise BadInput("no such file", source=path, hint=missing_hint) from err
    except IsADirectoryError as err:
        raise BadInput("is a directory", source=path, hint=directory_hint) from err
    except OSError as err:
        raise BadInput(f"cannot read: {err.strerror}", source=path) from err
