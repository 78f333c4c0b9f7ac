"""The whole drain check at Kubernetes' published limits, against jq, in one run (issue 12).

A generated cluster of 5,000 nodes, 150,000 pods and 3,000 PodDisruptionBudgets
(``bench_kube_dump.make_dump``: Deployments with a PDB each, DaemonSets on every node),
its nodes in 25 node groups of 200 (the per-group node limit, ``managed-kubernetes.
groupNodes.count``), and a Terraform state holding those 25 groups (fixed 200 nodes,
deploy policy ``--policy``, default 2/1). Timed as whole processes, in pairs A B A B (CPU
seconds; the median of the pairs):

* A: the installed ``ngupgrade drain-check --state STATE --cluster DUMP -o json``: read the
  state and the dump, map the nodes to their groups, plan and simulate every group;
* B (baseline): ``jq`` grouping pod names by node on the same file.

Targets (exit 1 when missed): the drain check at most 2x jq; its peak memory (the kernel's
``ru_maxrss``) under 3x the dump's size.
Usage: ``python bench/bench_drain_check.py [--nodes 5000 --pods 150000 --pdbs 3000
--groups 25 --policy 2/1 --runs 3]``.
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

import bench_kube_dump as kube_bench  # noqa: E402
from harness import (  # noqa: E402
    child_env,
    find_jq,
    installed_command,
    pair_processes,
    record,
    run_process,
)

from ngupgrade.testing import TfState, yandex_node_group  # noqa: E402


def group_id(g: int) -> str:
    """The node-group id ``bench_kube_dump`` labels nodes with (``i % GROUPS``)."""
    return f"catgroup{g:012d}"


def make_state(path: Path, groups: int, nodes_per_group: int, policy: tuple[int, int]) -> None:
    """A Terraform v4 state with ``groups`` fixed node groups of ``nodes_per_group`` (the
    ``for_each`` instances of one resource), written by the test kit's state writer."""
    state = TfState(terraform_version="1.9.0", lineage="bench")
    for g in range(groups):
        state.add("yandex_kubernetes_node_group", "pool", yandex_node_group(
            id=group_id(g), name=f"pool-{g:02d}", cluster_id="catbenchcluster0000",
            fixed=nodes_per_group, deploy=policy, cores=4, memory=16, disk_type="network-ssd",
            subnet_ids=["e9b0"]), index_key=f"pool-{g:02d}")
    state.write(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--pdbs", type=int, default=3000)
    parser.add_argument("--groups", type=int, default=25)
    parser.add_argument("--policy", default="2/1", help="E/U of every group")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    e, u = (int(x) for x in args.policy.split("/"))
    jq = find_jq()
    if jq is None:
        return 0
    env = child_env(PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        dump, state = Path(tmp) / "cluster.json", Path(tmp) / "terraform.tfstate"
        started = time.perf_counter()
        # generated in a child, so this process stays small: a child's peak (ru_maxrss)
        # includes what it inherited before exec
        counts = json.loads(subprocess.run(
            [sys.executable, str(ROOT / "bench" / "bench_kube_dump.py"), "--generate",
             str(dump), "--nodes", str(args.nodes), "--pods", str(args.pods), "--pdbs",
             str(args.pdbs), "--groups", str(args.groups)],
            check=True, capture_output=True, env=env).stdout)
        make_state(state, args.groups, args.nodes // args.groups, (e, u))
        size = dump.stat().st_size
        print(f"dump: {size / 1e6:.0f} MB, " + ", ".join(f"{n} {k}" for k, n in
                                                          sorted(counts.items()))
              + f"; {args.groups} groups of {args.nodes // args.groups} nodes at {e}/{u} "
              f"(generated in {time.perf_counter() - started:.0f} s)", flush=True)
        check = [installed_command(), "drain-check", "--state", str(state), "--cluster",
                 str(dump), "-o", "json"]
        probe = run_process(check, env, check=False)
        report = json.loads(probe.out or b"{}")
        if "groups" not in report:
            print(probe.err.decode(errors="replace")[-2000:])
            return 1
        pair = pair_processes(check, [jq, "-c", kube_bench.JQ_FILTER, str(dump)],
                              runs=args.runs, warmup=0, env=env)
        waves = sum(len(g["waves"]) for g in report["groups"])
        findings = sum(len(g["findings"]) for g in report["groups"])
        print(f"  {len(report['groups'])} groups checked, {waves} waves, {findings} findings")
        ok = record(f"drain-check / jq, {args.nodes} nodes at {e}/{u}", pair.ratio, 2.0,
                    baseline="jq grouping pod names by node",
                    detail=f"{pair.a:.1f} s vs {pair.b:.1f} s CPU, {pair.spread()}")
        ok &= record(f"drain-check peak memory / dump size, {args.nodes} nodes",
                     pair.a_peak / size, 3.0, baseline="the dump's size",
                     detail=f"{pair.a_peak / 1e6:.0f} MB of {size / 1e6:.0f} MB")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
