"""Planning cost, against a baseline measured in the same run.

1. In-process: ``plan_group`` + ``group_plan_json`` for the largest groups a plan meets
   (200 nodes, the per-group limit; policies 1/0, 0/1, 2/2, 3/0) next to ``json.dumps`` of
   the very documents produced (the least any JSON report costs). Target: at most 3x.
2. The text report of the same groups (pictures, elision) next to the same baseline.
   Target: at most 3x.
3. Start-up: ``ngupgrade plan`` on the example state next to ``ngupgrade groups`` (plan must
   not pull in the SDK, grpc or boto3). Target: at most 1.3x.

Prints a table; exits 1 when a target is missed.
Usage: ``python bench/bench_plan.py [--groups K] [--runs R]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EXAMPLE = ROOT / "terraform" / "examples" / "terraform.tfstate"

from ngupgrade.cli.render.plan import group_plan_json, plan_text  # noqa: E402
from ngupgrade.core.address import TfAddress  # noqa: E402
from ngupgrade.core.model import DeployPolicy, FixedScale, NodeGroup  # noqa: E402
from ngupgrade.core.simulate import plan_group  # noqa: E402


def groups(count: int) -> list[NodeGroup]:
    policies = [DeployPolicy(1, 0), DeployPolicy(0, 1), DeployPolicy(2, 2), DeployPolicy(3, 0)]
    return [
        NodeGroup(address=TfAddress("yandex_kubernetes_node_group", f"ng{i}"), id=f"cat{i:017d}",
                  name=f"ng{i}", cluster_id="catq0n7i0h9ka1b2c3d4", folder_id=None,
                  version=None, status=None, policy=policies[i % len(policies)],
                  scale=FixedScale(200), node=None)
        for i in range(count)
    ]


def best(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return min(samples)


def timed_cmd(cmd: list[str], runs: int, env: dict[str, str]) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    ok = True
    gs = groups(args.groups)
    plans = [plan_group(g) for g in gs]
    docs = [group_plan_json(p) for p in plans]
    steps = sum(len(p.timeline) for p in plans)

    t_base = best(lambda: json.dumps({"groups": docs}), args.runs)
    t_plan = best(lambda: [group_plan_json(plan_group(g)) for g in gs], args.runs)
    t_text = best(lambda: plan_text([plan_group(g) for g in gs]), args.runs)
    print(f"{args.groups} groups of 200 nodes, {steps} timeline steps")
    print(f"  json.dumps of the report   {t_base * 1000:8.1f} ms  (baseline)")
    for label, t in (("plan + JSON document", t_plan), ("plan + text report", t_text)):
        ratio = t / t_base
        verdict = "OK" if ratio <= 3 else "MISSED"
        print(f"  {label:<26} {t * 1000:8.1f} ms  = {ratio:.2f}x  (target <= 3x) {verdict}")
        ok &= ratio <= 3

    env = dict(os.environ)
    env.pop("NGUPGRADE_STATE", None)
    env["PYTHONPATH"] = str(ROOT)
    py = sys.executable
    base_cmd = [py, "-m", "ngupgrade", "groups", "--state", str(EXAMPLE)]
    plan_cmd = [py, "-m", "ngupgrade", "plan", "--state", str(EXAMPLE)]
    t_groups = timed_cmd(base_cmd, args.runs * 2, env)
    t_plan_cmd = timed_cmd(plan_cmd, args.runs * 2, env)
    ratio = t_plan_cmd / t_groups
    print("start-up on the example state")
    print(f"  ngupgrade groups           {t_groups * 1000:8.1f} ms  (baseline)")
    print(f"  ngupgrade plan             {t_plan_cmd * 1000:8.1f} ms  = {ratio:.2f}x  "
          f"(target <= 1.3x) {'OK' if ratio <= 1.3 else 'MISSED'}")
    ok &= ratio <= 1.3
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
