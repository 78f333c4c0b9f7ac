"""``ngupgrade fake-cloud``: serve a fake Yandex Cloud seeded from a Terraform state."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import click

from ngupgrade.cli._common import TIME_SCALE, common_options, settings_of
from ngupgrade.cli._flags import note_unused
from ngupgrade.cli._signals import signals_as_interrupt
from ngupgrade.core.errors import BadInput


@click.command("fake-cloud")
@click.option("--scenario", metavar="FILE",
              help="YAML scenario: clouds, quotas, live sizes, versions, faults, "
                   "workloads (docs/cloud.md).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1; 0 picks a free one.")
@click.option("--speed", type=TIME_SCALE, default=1.0,
              show_default=True, help="Virtual seconds per real second (60: a minute a second).")
@click.option("--kubeconfig", "kubeconfig", metavar="PATH",
              help="Where to write the kubeconfig of the fake Kubernetes API (default: a "
                   "temporary file, removed on exit).")
@common_options
def fake_cloud(scenario: str | None, port: int, speed: float, kubeconfig: str | None) -> None:
    """Serve a fake Yandex Cloud on 127.0.0.1 until interrupted (Ctrl-C).

    \b
    The first line printed is `endpoint: 127.0.0.1:PORT`. Point the tool at it with
      ngupgrade --endpoint 127.0.0.1:PORT --insecure ...
    The second is `kubeconfig: PATH`: beside the cloud runs a fake Kubernetes API whose
    nodes are the groups' nodes (labelled yandex.cloud/node-group-id), plus the scenario's
    `workloads:` (docs/cloud.md); read it with --kubeconfig PATH (or KUBECONFIG=PATH).

    \b
    Examples:
      ngupgrade fake-cloud --state terraform.tfstate &
      ngupgrade fake-cloud --state terraform.tfstate --scenario faults.yaml --speed 60
      ngupgrade plan --endpoint 127.0.0.1:PORT --insecure -g workers
      ngupgrade fake-cloud --state terraform.tfstate --kubeconfig /tmp/fake.kubeconfig

    \b
    Exit codes: 0 stopped with Ctrl-C (the normal end); 2 usage error; 3 bad state or
    scenario file, or a kubeconfig path that cannot be written.
    """
    settings = settings_of(click.get_current_context())
    note_unused(settings, connects=False,
                offline="`fake-cloud` serves its own endpoint, 127.0.0.1:--port")
    # The fake is test tooling, so the CLI (not a use case) wires it: nothing below the CLI
    # imports ngupgrade.testing (import-linter contract).
    from ngupgrade.app.load import load_groups
    from ngupgrade.testing.fake_cloud import FakeCloud, RealClock
    from ngupgrade.testing.scenario import Scenario

    with signals_as_interrupt():
        groups = load_groups(settings)
        sc = Scenario.load(scenario) if scenario else Scenario()
        fake = FakeCloud(groups, sc, clock=RealClock(speed)).start(port)
        scratch = None if kubeconfig else tempfile.mkdtemp(prefix="ngupgrade-fake-cloud-")
        try:
            written = fake.write_kubeconfig(kubeconfig or Path(str(scratch)) / "kubeconfig")
        except OSError as err:
            fake.stop()
            raise BadInput(f"cannot write the kubeconfig: {err.strerror}",
                           source=kubeconfig) from err
        try:
            # From here a Ctrl-C at any moment stops the servers: one that comes while the lines
            # below print would otherwise leave their threads running, and the process would hang.
            click.echo(f"endpoint: {fake.endpoint}")
            click.echo(f"kubeconfig: {written}")
            sys.stdout.flush()
            click.echo(f"serving {len(fake.groups)} node group(s) at speed x{speed:g}; use "
                       f"--endpoint {fake.endpoint} --insecure; Ctrl-C or SIGTERM stops", err=True)
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            click.echo("fake cloud stopped", err=True)
        finally:
            fake.stop()
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
