"""Shared flags that a run does not use: checked as if used, then named.

Every shared option is accepted by every command, before or after its name, so a script can
pass one set of flags to all of them. One rule for a flag typed on the command line that this
run does not use (``groups --endpoint H:P``, ``preflight --quotas F --insecure``, an
``--s3-endpoint`` beside a file state):

* its value is checked as the run that uses it would check it: an ``--endpoint`` that is not
  HOST:PORT or ``--insecure`` with a remote endpoint is a usage error (exit 2), a
  ``--ca-file`` that cannot be read is bad input (exit 3), never a silent pass;
* then one ``note:`` line on stderr names it as not used, and why.

Values from the environment (``YC_ENDPOINT``, ``TF_WORKSPACE``, ...) are ambient: they apply to
whichever command needs them and are never noted.
"""

from __future__ import annotations

import click

from ngupgrade.app.settings import Settings

CONNECTION = {"endpoint": "--endpoint", "insecure": "--insecure", "ca_file": "--ca-file"}
"""Settings attribute -> flag, for the flags that reach the cloud API."""

S3_ONLY = {"s3_endpoint": "--s3-endpoint", "s3_region": "--s3-region",
           "workspace_key_prefix": "--workspace-key-prefix"}
"""Flags that only an ``s3://`` state uses."""


def note_unused(settings: Settings, *, connects: bool, offline: str = "",
                reads_state: bool = True) -> None:
    """Check and name the typed shared flags this run does not use.

    ``connects``: whether the run calls the cloud API; ``offline`` says why not, as it is
    printed (``"`groups` reads only the Terraform state"``). ``reads_state``: whether the run
    reads a Terraform state (or plan) at all.

    Raises:
        UsageError: an ``--endpoint`` that is not HOST:PORT, ``--insecure`` without a loopback
            endpoint (the live path's own check, ``adapters.cloud.auth.resolve_transport``).
        BadInput: a ``--ca-file`` that cannot be read.
    """
    typed = settings.explicit
    if not connects and typed & CONNECTION.keys():
        from ngupgrade.adapters.cloud.auth import resolve_transport

        resolve_transport(settings.endpoint, bool(settings.insecure), settings.ca_file)
        _note([flag for attr, flag in CONNECTION.items() if attr in typed], offline)
    _note(_unused_state_flags(settings, reads_state), _state_reason(settings, reads_state))


def _unused_state_flags(settings: Settings, reads_state: bool) -> list[str]:
    typed = settings.explicit
    source = settings.plan or settings.state or ""
    via_terraform = source.startswith("tf:")
    s3 = (settings.state or "").startswith("s3://") and settings.plan is None
    unused = []
    if "terraform_bin" in typed and not (reads_state and via_terraform):
        unused.append("--terraform-bin")
    if "workspace" in typed and not (reads_state and (via_terraform or s3)):
        unused.append("--workspace")
    unused += [flag for attr, flag in S3_ONLY.items()
               if attr in typed and not (reads_state and s3)]
    return unused


def _state_reason(settings: Settings, reads_state: bool) -> str:
    if not reads_state:
        return "this run reads no Terraform state"
    if settings.plan is not None:
        return f"the Terraform plan comes from {settings.plan!r}"
    return f"the Terraform state comes from {settings.state or './terraform.tfstate'!r}"


def _note(flags: list[str], why: str) -> None:
    if flags:
        click.echo(f"note: {', '.join(flags)} not used: {why}", err=True)
