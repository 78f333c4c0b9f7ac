"""The whole drain check at Kubernetes' published limits, against jq, in one run (issue 12).

A generated cluster of 5,000 nodes, 150,000 pods and 3,000 PodDisruptionBudgets
(``bench_kube_dump.make_dump``: Deployments with a PDB each, DaemonSets on every node),
its nodes in 25 node groups of 200 (the per-group node limit, ``managed-kubernetes.
groupNodes.count``), and a Terraform state holding those 25 groups (fixed 200 nodes,
deploy policy ``--policy``, default 2/1). Timed as whole processes:

* ``ngupgrade drain-check --state STATE --cluster DUMP -o json``: read the state and the dump,
  map the nodes to their groups, plan and simulate every group;
* baseline: ``jq`` grouping pod names by node on the same file.

Targets (exit 1 when missed): the drain check at most 2x jq; its peak memory under 3x the
dump's size. Prints the figures side by side.
Usage: ``PYTHONPATH=. python bench/bench_drain_check.py [--nodes 5000 --pods 150000
--pdbs 3000 --groups 25 --policy 2/1 --runs 1]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_kube_dump as kube_bench  # noqa: E402

# The check reports its own peak (VmHWM) at exit: ru_maxrss of a child forked from this
# process would count the parent's pages too.
CHECK = ("import sys, atexit\n"
         "def hwm():\n"
         "    line = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
         "    sys.stderr.write('VmHWM %d\\n' % (int(line.split()[1]) * 1024))\n"
         "atexit.register(hwm)\n"
         "from ngupgrade.cli import main\n"
         "main(sys.argv[1:])\n")


def group_id(g: int) -> str:
    """The node-group id ``bench_kube_dump`` labels nodes with (``i % GROUPS``)."""
    return f"catgroup{g:012d}"


def make_state(path: Path, groups: int, nodes_per_group: int, policy: tuple[int, int]) -> None:
    """A Terraform v4 state with ``groups`` fixed node groups of ``nodes_per_group``."""
    resources: list[dict[str, Any]] = []
    for g in range(groups):
        attrs = {
            "id": group_id(g), "name": f"pool-{g:02d}", "cluster_id": "catbenchcluster0000",
            "version": "1.29", "status": "running", "node_labels": {}, "node_taints": [],
            "deploy_policy": [{"max_expansion": policy[0], "max_unavailable": policy[1]}],
            "scale_policy": [{"fixed_scale": [{"size": nodes_per_group}], "auto_scale": []}],
            "instance_template": [{
                "platform_id": "standard-v3", "nat": False,
                "resources": [{"cores": 4, "core_fraction": 100, "memory": 16, "gpus": 0}],
                "boot_disk": [{"type": "network-ssd", "size": 64}],
                "network_interface": [{"nat": False, "subnet_ids": ["e9b0"]}],
                "scheduling_policy": [{"preemptible": False}]}],
        }
        resources.append({"mode": "managed", "type": "yandex_kubernetes_node_group",
                          "name": "pool", "provider": 'provider["registry.terraform.io/'
                                                      'yandex-cloud/yandex"]',
                          "instances": [{"index_key": f"pool-{g:02d}", "schema_version": 0,
                                         "attributes": attrs}]})
    path.write_text(json.dumps({"version": 4, "terraform_version": "1.9.0", "serial": 1,
                                "lineage": "bench", "outputs": {}, "resources": resources}))


def timed(cmd: list[str], env: dict[str, str], runs: int) -> tuple[float, int, bytes, bytes]:
    """Median wall seconds, the peak the process reported (or 0), stdout, stderr."""
    results = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, env=env, check=False)
        results.append((time.perf_counter() - start, proc))
    results.sort(key=lambda r: r[0])
    wall, proc = results[len(results) // 2]
    peak = 0
    for line in proc.stderr.decode(errors="replace").splitlines():
        if line.startswith("VmHWM "):
            peak = int(line.split()[1])
    return wall, peak, proc.stdout, proc.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--pdbs", type=int, default=3000)
    parser.add_argument("--groups", type=int, default=25)
    parser.add_argument("--policy", default="2/1", help="E/U of every group")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    e, u = (int(x) for x in args.policy.split("/"))
    jq = shutil.which("jq") or "/usr/bin/jq"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryDirectory() as tmp:
        dump, state = Path(tmp) / "cluster.json", Path(tmp) / "terraform.tfstate"
        kube_bench.GROUPS = args.groups
        started = time.perf_counter()
        counts = kube_bench.make_dump(dump, args.nodes, args.pods, args.pdbs)
        make_state(state, args.groups, args.nodes // args.groups, (e, u))
        size = dump.stat().st_size
        print(f"dump: {size / 1e6:.0f} MB, " + ", ".join(f"{n} {k}" for k, n in
                                                          sorted(counts.items()))
              + f"; {args.groups} groups of {args.nodes // args.groups} nodes at {e}/{u} "
              f"(generated in {time.perf_counter() - started:.0f} s)", flush=True)
        t_jq, _, _, _ = timed([jq, "-c", kube_bench.JQ_FILTER, str(dump)], env, args.runs)
        print(f"  jq group pod names by node  {t_jq:7.2f} s  (baseline)", flush=True)
        t_ng, peak, out, err = timed(
            [sys.executable, "-c", CHECK, "drain-check", "--state", str(state), "--cluster",
             str(dump), "-o", "json"], env, args.runs)
        report = json.loads(out)
        if "groups" not in report:
            print(err.decode(errors="replace")[-2000:])
            return 1
        waves = sum(len(g["waves"]) for g in report["groups"])
        findings = sum(len(g["findings"]) for g in report["groups"])
        ratio, memory = t_ng / t_jq, peak / size
        print(f"  ngupgrade drain-check       {t_ng:7.2f} s  = {ratio:.2f}x jq (target <= 2x) "
              f"{'OK' if ratio <= 2 else 'MISSED'}; peak {peak / 1e6:.0f} MB = {memory:.2f}x "
              f"the file (target < 3x) {'OK' if memory < 3 else 'MISSED'}")
        print(f"  {len(report['groups'])} groups checked, {waves} waves, {findings} findings")
        return 0 if ratio <= 2 and memory < 3 else 1


if __name__ == "__main__":
    sys.exit(main())
