"""A full cluster's drain check against jq, in one run.

5,000 nodes and 150,000 pods (Kubernetes' published limits, kubernetes.io/docs/setup/
best-practices/cluster-large) in 25 node groups of 200, as ``bench/drain_dense.py`` writes
them: 30 pods per node (28 of Deployments, a PDB of ``maxUnavailable: 1`` on a third, of
``10%`` on a third; 2 DaemonSets) requesting 97% of every node's cpu, so each wave's
evicted pods mostly wait for the surge nodes, and a Terraform state of the 25 groups at
``--policy`` (default 2/1). Where ``bench_drain_check.py`` has room everywhere, this cluster
is full.

Timed as whole processes, in pairs A B A B (CPU seconds, the median of the pairs):

* A: the installed ``ngupgrade drain-check --state STATE --cluster DUMP -o json``;
* B (baseline): ``jq`` grouping pod names by node on the same file.

Targets (exit 1 when missed): the drain check at most 1x jq; its peak memory (the kernel's
``ru_maxrss``) under 2x the dump's size. Without ``jq`` on PATH the bench says so and skips.
Usage: ``python bench/bench_drain_full.py [--nodes 5000 --per-node 30 --groups 25
--fill 0.97 --policy 2/1 --runs 3]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_drain_check import make_state  # noqa: E402
from bench_drain_dense import paired  # noqa: E402
from bench_kube_dump import JQ_FILTER  # noqa: E402
from harness import child_env, find_jq, installed_command, record  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--per-node", type=int, default=30)
    parser.add_argument("--groups", type=int, default=25)
    parser.add_argument("--fill", type=float, default=0.97)
    parser.add_argument("--policy", default="2/1", help="E/U of every group")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    jq = find_jq()
    if jq is None:
        return 0
    e, u = (int(x) for x in args.policy.split("/"))
    env = child_env(PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        dump, state = Path(tmp) / "cluster.json", Path(tmp) / "terraform.tfstate"
        started = time.perf_counter()
        counts = json.loads(subprocess.run(
            [sys.executable, str(ROOT / "bench" / "drain_dense.py"), "--generate", str(dump),
             "--nodes", str(args.nodes), "--per-node", str(args.per_node), "--fill",
             str(args.fill), "--groups", str(args.groups)],
            check=True, capture_output=True, env=env).stdout)
        make_state(state, args.groups, args.nodes // args.groups, (e, u))
        size = dump.stat().st_size
        print(f"dump: {size / 1e6:.0f} MB, " + ", ".join(f"{n} {k}" for k, n in
                                                          sorted(counts.items()))
              + f"; {args.groups} groups of {args.nodes // args.groups} nodes at {e}/{u}, "
              f"{args.fill:.0%} cpu (generated in {time.perf_counter() - started:.0f} s)",
              flush=True)
        check = [installed_command(), "drain-check", "--state", str(state), "--cluster",
                 str(dump), "-o", "json"]
        pair = paired(check, [jq, "-c", JQ_FILTER, str(dump)], args.runs, env)
        groups = json.loads(pair.a_runs[-1].out)["groups"]
        print(f"  {len(groups)} groups checked, {sum(len(g['waves']) for g in groups)} waves, "
              f"{sum(len(w['unplaced']) for g in groups for w in g['waves'])} pods without "
              f"a place, {sum(len(g['findings']) for g in groups)} findings")
        ok = record(f"drain-check / jq, {args.nodes} nodes {args.fill:.0%} cpu at {e}/{u}",
                    pair.ratio, 1.0, baseline="jq grouping pod names by node",
                    detail=f"{pair.a:.1f} s vs {pair.b:.1f} s CPU, {pair.spread()}")
        ok &= record(f"drain-check peak memory / dump size, {args.nodes} nodes full",
                     pair.a_peak / size, 2.0, baseline="the dump's size",
                     detail=f"{pair.a_peak / 1e6:.0f} MB of {size / 1e6:.0f} MB")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
