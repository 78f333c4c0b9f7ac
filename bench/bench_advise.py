"""Advising cost, against planning the same groups, in pairs in one run.

Groups in one cloud whose quota headroom of 60 VMs is shared by all of them (policies 1/0,
0/1, 2/2, 3/0 in turn; 10 clusters, 20 folders), at 50, 200, 400 and 1,000 groups, each count
with large groups (200 nodes, the per-group limit) and small ones (3 nodes):

* A: ``advise_groups``: every policy each group accepts (``101 x 101 - 1 = 10200`` per large
  group), judged on quota, floor and cost, the front, the recommendation, the near misses, and
  the schedule of all the groups under the shared headroom;
* B (baseline): ``plan_group`` for every group (one policy each, with its timeline), what
  ``ngupgrade plan`` computes for the same state.

Target: A at most 3x B at every size (CPU time, the median of the pairs A/B). The schedule
must not grow faster than the groups: that is what the 1,000-group rows show.
Usage: ``python bench/bench_advise.py [--groups 50,200,400,1000] [--nodes 200,3]
[--runs R]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from harness import pair_calls, record  # noqa: E402

from ngupgrade.core.address import TfAddress  # noqa: E402
from ngupgrade.core.advise.advice import advise_groups  # noqa: E402
from ngupgrade.core.advise.judge import QuotaJudge  # noqa: E402
from ngupgrade.core.model import (  # noqa: E402
    DeployPolicy,
    FixedScale,
    NodeGroup,
    QuotaLimit,
)
from ngupgrade.core.quota.catalog import INSTANCES  # noqa: E402
from ngupgrade.core.simulate import plan_group  # noqa: E402

CLOUD = "b1gbenchcloud0000001"
TARGET = 3.0


def groups(count: int, nodes: int) -> list[NodeGroup]:
    policies = [DeployPolicy(1, 0), DeployPolicy(0, 1), DeployPolicy(2, 2), DeployPolicy(3, 0)]
    return [
        NodeGroup(address=TfAddress("yandex_kubernetes_node_group", f"ng{i}"), id=f"cat{i:017d}",
                  name=f"ng{i}", cluster_id=f"catcluster{i % 10:010d}",
                  folder_id=f"b1gfolder{i % 20:011d}", version=None, status=None,
                  policy=policies[i % len(policies)], scale=FixedScale(nodes), node=None)
        for i in range(count)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", default="50,200,400,1000")
    parser.add_argument("--nodes", default="200,3")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    ok = True
    for nodes in (int(n) for n in args.nodes.split(",")):
        for count in (int(g) for g in args.groups.split(",")):
            gs = groups(count, nodes)
            shared = {INSTANCES: QuotaLimit(INSTANCES, 1000, 940)}  # 60 VMs for all at once

            def judges(gs: list[NodeGroup] = gs, shared: dict = shared
                       ) -> dict[str, QuotaJudge]:
                return {str(g.address): QuotaJudge(g, CLOUD, {INSTANCES: 1}, shared)
                        for g in gs}

            # fewer pairs for the largest inputs: each pair takes seconds there
            runs = max(3, args.runs * 200 // max(count, 200)) if nodes > 50 else args.runs
            pair = pair_calls(lambda gs=gs: advise_groups(gs, quotas=judges(gs)),
                              lambda gs=gs: [plan_group(g) for g in gs], runs=runs)
            advice = advise_groups(gs, quotas=judges(gs))
            policies = sum(len(a.search.front) for a in advice.groups)
            ok &= record(f"advise / plan, {count} groups of {nodes} nodes", pair.ratio, TARGET,
                         baseline="plan_group of every group",
                         detail=f"advise {pair.a * 1000:.0f} ms, plan {pair.b * 1000:.0f} ms, "
                                f"{len(advice.schedule.stages)} stages, {policies} front "
                                f"entries, {runs} pairs, {pair.spread()}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
