"""``make demo``: the whole runbook upgrade against the fake cloud, in a few seconds.

Starts :class:`~ngupgrade.testing.FakeCloud` in this process on 127.0.0.1, seeded from
``terraform/examples/terraform.tfstate`` and ``terraform/examples/scenario.yaml`` (quotas with
headroom, master 1.30), on a clock that runs ``SPEED`` times faster than real time. Then runs,
through the real command line and the real SDK:

1. ``ngupgrade preflight -g workers``                       (quota headroom for the surge)
2. ``ngupgrade plan -g workers --max-expansion 2 --max-unavailable 1``
3. ``ngupgrade upgrade -g workers --version 1.30 --max-expansion 2 --max-unavailable 1
   --restore-policy --apply``                                (with progress and the verdict)

Usage: ``python -m ngupgrade.demo [--speed 60] [--state PATH] [--scenario PATH]``.
Exits with the upgrade's exit code.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from ngupgrade.core.errors import NgUpgradeError

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "terraform", "examples")


def _run(argv: list[str]) -> int:
    """Run one ngupgrade command line in this process; its exit code."""
    from ngupgrade.cli import main

    shown = [os.path.relpath(a) if os.path.isabs(a) else a for a in argv
             if not a.startswith("--time-scale")]
    print(f"\n$ ngupgrade {' '.join(shown)}", flush=True)
    try:
        main(argv)
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Start the fake cloud, run preflight, plan and the upgrade; the upgrade's exit code."""
    parser = argparse.ArgumentParser(prog="python -m ngupgrade.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state", default=os.path.join(EXAMPLES, "terraform.tfstate"))
    parser.add_argument("--scenario", default=os.path.join(EXAMPLES, "scenario.yaml"))
    parser.add_argument("--speed", type=float, default=60.0,
                        help="virtual seconds per real second (default 60: a minute a second)")
    args = parser.parse_args(argv)

    from ngupgrade.testing import FakeCloud, RealClock

    try:
        fake = FakeCloud.from_state(args.state, args.scenario, clock=RealClock(args.speed))
    except NgUpgradeError as err:
        print(f"error: {err.message}", file=sys.stderr)
        return err.exit_code
    with fake, tempfile.TemporaryDirectory(prefix="ngupgrade-demo-") as tmp:
        print(f"fake Yandex Cloud on {fake.endpoint} (gRPC, the real SDK), seeded from "
              f"{os.path.relpath(args.state)} and {os.path.relpath(args.scenario)}; "
              f"its clock runs {args.speed:g}x real time", flush=True)
        common = ["--state", args.state, "--endpoint", fake.endpoint, "--insecure"]
        override = ["--max-expansion", "2", "--max-unavailable", "1"]
        code = _run(["preflight", "-g", "workers", *common])
        if code:
            return code
        code = _run(["plan", "-g", "workers", *override, "--state", args.state])
        if code:
            return code
        code = _run(["upgrade", "-g", "workers", "--version", "1.30", *override,
                     "--restore-policy", "--apply", "--journal",
                     os.path.join(tmp, "workers.json"), *common,
                     f"--time-scale={args.speed:g}"])
        group = fake.group("workers")
        print(f"\nthe fake cloud now says: workers on {group.version}, {group.nodes} nodes, "
              f"deploy policy {group.policy.max_expansion if group.policy else '-'}/"
              f"{group.policy.max_unavailable if group.policy else '-'}; "
              f"{len(fake.calls_to('NodeGroupService.Update'))} Update calls in all",
              flush=True)
        return code


if __name__ == "__main__":
    sys.exit(main())
