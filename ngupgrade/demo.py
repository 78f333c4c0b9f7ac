"""``make demo``: the workload side and a whole runbook upgrade against the fake cloud.

Starts :class:`~ngupgrade.testing.FakeCloud` in this process on 127.0.0.1, seeded from
``terraform/examples/terraform.tfstate`` and ``terraform/examples/scenario.yaml`` (quotas with
headroom, master 1.30), with a fake Kubernetes API beside it whose workloads hold one
single-replica Deployment ``shop/api`` under a PodDisruptionBudget ``minAvailable: 1`` on node
``workers-0000``; both run on a clock ``SPEED`` times faster than real time. Then runs, through
the real command line, the real SDK and the real Kubernetes client:

1. ``ngupgrade preflight -g workers``                       (quota headroom for the surge)
2. ``ngupgrade plan -g workers --max-expansion 2 --max-unavailable 1``
3. ``ngupgrade drain-check -g workers --cluster terraform/examples/cluster.json ...``
   (what each wave does to the pods of the example cluster dump: its findings, exit 1)
4. ``ngupgrade upgrade -g workers --version 1.30 --max-expansion 2 --max-unavailable 1
   --restore-policy --kubeconfig FAKE --accept ... --apply``: the drain of ``workers-0000``
   is held by the PDB, named while it waits (pod, PDB, forced stop at HH:MM); Yandex stops
   the node 7 virtual minutes into its drain, and the upgrade ends honestly (the verdict and
   the drain summary say which node was forced and which pod went down).

Usage: ``python -m ngupgrade.demo [--speed 60] [--state PATH] [--scenario PATH]``.
Exits with the upgrade's exit code. Durations printed are the fake's virtual time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from ngupgrade.core.errors import NgUpgradeError
from ngupgrade.core.units import human_seconds

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), "terraform", "examples")


def _run(argv: list[str]) -> int:
    """Run one ngupgrade command line in this process; its exit code."""
    from ngupgrade.cli import main

    # Every flag shown, --time-scale too: a copied command gives the same numbers.
    shown = [_short(a) for a in argv]
    print(f"\n$ ngupgrade {' '.join(shown)}", flush=True)
    try:
        main(argv)
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def _short(arg: str) -> str:
    """A path under the working directory as a relative one; anything else as it is."""
    if not os.path.isabs(arg):
        return arg
    rel = os.path.relpath(arg)
    return arg if rel.startswith("..") else rel


def main(argv: list[str] | None = None) -> int:
    """Start the fake cloud, run preflight, plan and the upgrade; the upgrade's exit code."""
    parser = argparse.ArgumentParser(prog="python -m ngupgrade.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--state", default=os.path.join(EXAMPLES, "terraform.tfstate"))
    parser.add_argument("--scenario", default=os.path.join(EXAMPLES, "scenario.yaml"))
    parser.add_argument("--speed", type=float, default=60.0,
                        help="virtual seconds per real second (default 60: a minute a second)")
    args = parser.parse_args(argv)

    from ngupgrade.testing import FakeCloud, RealClock, Scenario

    try:
        Scenario.load(args.scenario)  # its own errors first (file, line, key)
        from ngupgrade.adapters.documents import load_yaml, read_bounded

        raw = load_yaml(read_bounded(args.scenario, "scenario"), args.scenario)
        scenario = Scenario.from_mapping({**raw, "workloads": pdb_blocked_api()},
                                         args.scenario)
        fake = FakeCloud.from_state(args.state, scenario, clock=RealClock(args.speed))
    except NgUpgradeError as err:
        print(f"error: {err.message}", file=sys.stderr)
        return err.exit_code
    with fake, tempfile.TemporaryDirectory(prefix="ngupgrade-demo-") as tmp:
        print(f"fake Yandex Cloud on {fake.endpoint} (gRPC, the real SDK), seeded from "
              f"{os.path.relpath(args.state)} and {os.path.relpath(args.scenario)}; "
              f"its clock runs {args.speed:g}x real time", flush=True)
        print(f"every duration below is the fake's virtual time ({args.speed:g} virtual "
              f"seconds a real second; the upgrade gets --time-scale={args.speed:g} to match)",
              flush=True)
        common = ["--state", args.state, "--endpoint", fake.endpoint, "--insecure"]
        override = ["--max-expansion", "2", "--max-unavailable", "1"]
        code = _run(["preflight", "-g", "workers", *common])
        if code:
            return code
        code = _run(["plan", "-g", "workers", *override, "--state", args.state])
        if code:
            return code
        code = _run(["drain-check", "-g", "workers", *override, "--state", args.state,
                     "--cluster", os.path.join(EXAMPLES, "cluster.json")])
        print(f"\n(the drain check exited {code}: it found what the upgrade would do to the "
              "example cluster's pods. The fake cluster below holds one of those faults, a "
              "single-replica api under a PDB with minAvailable 1, to show the runbook "
              "naming it while the drain waits; --accept says the finding was read.)",
              flush=True)
        started = time.monotonic()
        code = _run(["upgrade", "-g", "workers", "--version", "1.30", *override,
                     "--restore-policy", "--apply", "--journal",
                     os.path.join(tmp, "workers.json"), *common,
                     "--kubeconfig", str(fake.write_kubeconfig(os.path.join(tmp, "kubeconfig"))),
                     "--accept", "pdb-blocks-eviction", "--accept", "forced-stop",
                     f"--time-scale={args.speed:g}"])
        real = time.monotonic() - started
        print(f"\nthe upgrade took {real:.1f} s of real time: {human_seconds(real * args.speed)} "
              f"of virtual time at x{args.speed:g}", flush=True)
        group = fake.group("workers")
        print(f"\nthe fake cloud now says: workers on {group.version}, {group.nodes} nodes, "
              f"deploy policy {group.policy.max_expansion if group.policy else '-'}/"
              f"{group.policy.max_unavailable if group.policy else '-'}; "
              f"{len(fake.calls_to('NodeGroupService.Update'))} Update calls in all",
              flush=True)
        return code



def pdb_blocked_api() -> list[dict[str, object]]:
    """The fake cluster's workloads: Deployment ``shop/api`` with 1 replica on
    ``workers-0000`` under PDB ``shop/api`` ``minAvailable: 1`` (the Kubernetes docs, "API-initiated
    Eviction": 1 healthy - 1 desired = 0 disruptions allowed, so the eviction answers 429 until the
    node is stopped)."""
    from ngupgrade.testing import kube_objects as ko

    spec = ko.pod_spec([ko.container("api", {"cpu": "100m", "memory": "128Mi"})])
    rs = ko.replicaset("api", "shop", 1, {"app": "api"}, spec)
    pod_hash = rs["metadata"]["labels"]["pod-template-hash"]
    return [ko.deployment("api", "shop", 1, {"app": "api"}, spec), rs,
            ko.pod(f"api-{pod_hash}-0", "shop", {**spec, "nodeName": "workers-0000"},
                   labels={"app": "api", "pod-template-hash": pod_hash},
                   owner=("apps/v1", "ReplicaSet", f"api-{pod_hash}")),
            ko.pdb("api", "shop", {"app": "api"}, min_available=1, healthy=1, desired=1,
                   expected=1)]


if __name__ == "__main__":
    sys.exit(main())
