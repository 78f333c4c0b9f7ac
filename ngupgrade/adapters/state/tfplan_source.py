"""Where a Terraform plan's JSON comes from: ``--plan FILE``, ``-``, or ``tf:DIR[/PLANFILE]``.

Grammar (docs/plan-gate.md):

* a path: the JSON that ``terraform show -json PLANFILE`` wrote;
* ``-``: the same JSON on stdin (``terraform show -json tfplan | ngupgrade preflight --plan -``);
* ``tf:DIR``: run ``terraform show -json tfplan`` in DIR (the file ``terraform plan
  -out=tfplan`` wrote, :data:`DEFAULT_PLAN_FILE`);
* ``tf:DIR/PLANFILE`` (PLANFILE an existing file): run ``terraform show -json PLANFILE`` in DIR.
  ``show`` needs the providers of the working directory, so the plan file is named relative
  to the directory ``terraform plan`` ran in.

Only reads: nothing is locked, applied or written.
"""

from __future__ import annotations

import os
import sys

from ngupgrade.adapters.state.sources import read_local_file
from ngupgrade.core.errors import BadInput, UsageError

DEFAULT_PLAN_FILE = "tfplan"
"""The plan file name ``tf:DIR`` reads: the name the Terraform docs use (``-out=tfplan``)."""


def read_plan_bytes(spec: str, terraform_bin: str = "terraform") -> tuple[bytes, str]:
    """Read the plan named by ``spec``; return ``(bytes, label)`` for error messages.

    Raises:
        UsageError: an empty ``--plan``, or ``-`` with a terminal on stdin.
        BadInput: the file, directory, plan file or Terraform CLI could not give the JSON.
    """
    if not spec.strip():
        raise UsageError("--plan is empty", hint="pass --plan FILE|-|tf:DIR[/PLANFILE]")
    if spec == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("--plan - reads the plan JSON from stdin, but stdin is a terminal",
                             hint="pipe it: terraform show -json tfplan | ngupgrade preflight "
                                  "--plan -")
        return sys.stdin.buffer.read(), "-"
    if spec.startswith("tf:"):
        from ngupgrade.adapters.state.terraform_cli import show_plan_json

        target = spec[3:] or "."
        if os.path.isfile(target):
            directory, plan_file = os.path.split(target)
            return show_plan_json(directory or ".", plan_file, terraform_bin, label=spec), spec
        parent, name = os.path.split(target.rstrip("/"))
        if not os.path.isdir(target) and os.path.isdir(parent or "."):
            raise BadInput(f"no directory or saved plan file {name!r} in {parent or '.'}",
                           source=spec,
                           hint=f"run `terraform plan -out={name}` in {parent or '.'} first, or "
                                f"check the name (tf:DIR runs `show` on DIR/{DEFAULT_PLAN_FILE})")
        return show_plan_json(target, DEFAULT_PLAN_FILE, terraform_bin, label=spec), spec
    return read_local_file(
        spec, missing_hint="pass --plan with the output of `terraform show -json PLANFILE`",
        directory_hint=f"to run `terraform show -json tfplan` there use --plan tf:{spec}"), spec
