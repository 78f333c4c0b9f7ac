"""The densest node group's drain check against jq, in one run.

One group of 200 nodes (the per-group node limit, ``managed-kubernetes.groupNodes.count``)
with 110 pods per node (the kubelet's default ``maxPods``), as ``bench/drain_dense.py``
writes it: 22,000 pods of 216 Deployments (a PDB of ``maxUnavailable: 1`` on a third, of
``10%`` on a third) and 2 DaemonSets, as ``kubectl get -A -o json`` prints them. Three
dumps: the pods request 50% of the nodes' cpu; 97% (most evicted pods find no place until
nodes come back); 50% with half the pods requesting memory that fills every node (those find
no place, the rest do). Each at the deploy policies 0/10, 2/1 and 10/0.

Timed as whole processes, in pairs A B A B (CPU seconds, the median of the pairs):

* A: the installed ``ngupgrade drain-check --state STATE --cluster DUMP -o json`` (exit 1
  when it finds blocking findings, as most of these do: that is its answer, not a failure);
* B (baseline): ``jq`` grouping pod names by node on the same file.

Targets (exit 1 when missed): every drain check at most 3x jq; its peak memory (the kernel's
``ru_maxrss``) under 2x the dump's size. Without ``jq`` on PATH the bench says so and skips.
Usage: ``python bench/bench_drain_dense.py [--nodes 200 --per-node 110 --runs 3]``.
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
from bench_kube_dump import JQ_FILTER  # noqa: E402
from harness import Paired, child_env, find_jq, installed_command, record, run_process  # noqa: E402

DUMPS = (("50% cpu", 0.5, False), ("97% cpu", 0.97, False),
         ("half the pods without a place", 0.5, True))
POLICIES = ((0, 10), (2, 1), (10, 0))


def paired(a: list[str], b: list[str], runs: int, env: dict[str, str]) -> Paired:
    """A B A B like ``harness.pair_processes``, but A may exit 1 (blocking findings): it
    must print a report."""
    pair = Paired()
    for _ in range(runs):
        sample = run_process(a, env, check=False)
        if b'"groups"' not in sample.out[:200]:
            raise SystemExit(f"{' '.join(a)} printed no report: "
                             f"{sample.err.decode(errors='replace')[-1500:]}")
        pair.a_runs.append(sample)
        pair.b_runs.append(run_process(b, env))
    return pair


def summary(out: bytes) -> str:
    """Waves, evicted and unplaced pods, findings of a drain-check JSON report."""
    group = json.loads(out)["groups"][0]
    waves = group["waves"]
    return (f"{len(waves)} waves, {sum(w['pods_evicted'] for w in waves)} evictions, "
            f"{sum(len(w['unplaced']) for w in waves)} without a place, "
            f"{len(group['findings'])} findings, verdict {group['verdict']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--per-node", type=int, default=110)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    jq = find_jq()
    if jq is None:
        return 0
    env = child_env(PYTHONPATH=str(ROOT))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for label, fill, half in DUMPS:
            dump = Path(tmp) / "cluster.json"
            started = time.perf_counter()
            counts = json.loads(subprocess.run(
                [sys.executable, str(ROOT / "bench" / "drain_dense.py"), "--generate",
                 str(dump), "--nodes", str(args.nodes), "--per-node", str(args.per_node),
                 "--fill", str(fill), *(["--half-unplaced"] if half else [])],
                check=True, capture_output=True, env=env).stdout)
            size = dump.stat().st_size
            print(f"dump ({label}): {size / 1e6:.0f} MB, " + ", ".join(
                f"{n} {k}" for k, n in sorted(counts.items()))
                + f" (generated in {time.perf_counter() - started:.0f} s)", flush=True)
            peak = 0
            for e, u in POLICIES:
                state = Path(tmp) / f"state-{e}-{u}.tfstate"
                make_state(state, 1, args.nodes, (e, u))
                check = [installed_command(), "drain-check", "--state", str(state),
                         "--cluster", str(dump), "-o", "json"]
                pair = paired(check, [jq, "-c", JQ_FILTER, str(dump)], args.runs, env)
                print(f"  {e}/{u}: {summary(pair.a_runs[-1].out)}")
                ok &= record(f"drain-check / jq, {args.nodes}x{args.per_node} pods, {label},"
                             f" {e}/{u}", pair.ratio, 3.0,
                             baseline="jq grouping pod names by node",
                             detail=f"{pair.a:.1f} s vs {pair.b:.1f} s CPU, {pair.spread()}")
                peak = max(peak, pair.a_peak)
            ok &= record(f"drain-check peak memory / dump size, {label}", peak / size, 2.0,
                         baseline="the dump's size",
                         detail=f"{peak / 1e6:.0f} MB of {size / 1e6:.0f} MB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
