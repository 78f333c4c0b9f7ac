"""Advising cost, against planning the same groups in the same run (issue 14).

200 groups of 200 nodes (the per-group limit; policies 1/0, 0/1, 2/2, 3/0 as in
bench_plan.py), all in one cloud with a quota headroom of 60 VMs shared by all of them:

1. baseline: ``plan_group`` for every group (one policy each, with its timeline);
2. ``advise_groups``: every policy each group accepts (``101 x 101 - 1 = 10200`` per group,
   2,040,000 in all), judged on quota, floor and cost, the front, the recommendation, the near
   misses, and the schedule of all 200. Target: at most 3x the baseline;
3. the same without a quota source and with ``--min-available 0`` (every ``U'`` allowed, the
   largest front): printed for information.

Prints a table; exits 1 when the target is missed.
Usage: ``python bench/bench_advise.py [--groups K] [--runs R]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ngupgrade.core.address import TfAddress  # noqa: E402
from ngupgrade.core.advise.group import advise_groups  # noqa: E402
from ngupgrade.core.advise.judge import MinAvailable, QuotaJudge  # noqa: E402
from ngupgrade.core.model import (  # noqa: E402
    DeployPolicy,
    FixedScale,
    NodeGroup,
    QuotaLimit,
)
from ngupgrade.core.quota.catalog import INSTANCES  # noqa: E402
from ngupgrade.core.simulate import plan_group  # noqa: E402

CLOUD = "b1gbenchcloud0000001"


def groups(count: int) -> list[NodeGroup]:
    policies = [DeployPolicy(1, 0), DeployPolicy(0, 1), DeployPolicy(2, 2), DeployPolicy(3, 0)]
    return [
        NodeGroup(address=TfAddress("yandex_kubernetes_node_group", f"ng{i}"), id=f"cat{i:017d}",
                  name=f"ng{i}", cluster_id=f"catcluster{i % 10:010d}",
                  folder_id=f"b1gfolder{i % 20:011d}", version=None, status=None,
                  policy=policies[i % len(policies)], scale=FixedScale(200), node=None)
        for i in range(count)
    ]


def best(fn, runs: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return min(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    gs = groups(args.groups)
    shared = {INSTANCES: QuotaLimit(INSTANCES, 1000, 940)}  # 60 VMs for every group at once

    def judges() -> dict[str, QuotaJudge]:
        return {str(g.address): QuotaJudge(g, CLOUD, {INSTANCES: 1}, shared) for g in gs}

    t_plan = best(lambda: [plan_group(g) for g in gs], args.runs)
    t_advise = best(lambda: advise_groups(gs, quotas=judges()), args.runs)
    t_open = best(lambda: advise_groups(gs, min_available=MinAvailable(count=0)), args.runs)
    advice = advise_groups(gs, quotas=judges())
    front = sum(len(a.search.front) for a in advice.groups)
    print(f"{args.groups} groups of 200 nodes, 10200 accepted policies each; "
          f"{front} front entries, {len(advice.schedule.stages)} schedule stages")
    print(f"  plan (one policy each)       {t_plan * 1000:8.1f} ms  (baseline)")
    ratio = t_advise / t_plan
    verdict = "OK" if ratio <= 3 else "MISSED"
    print(f"  advise, quota + floor        {t_advise * 1000:8.1f} ms  = {ratio:.2f}x  "
          f"(target <= 3x) {verdict}")
    print(f"  advise, no quota, floor 0    {t_open * 1000:8.1f} ms  = {t_open / t_plan:.2f}x  "
          "(information: the widest front)")
    return 0 if ratio <= 3 else 1


if __name__ == "__main__":
    raise SystemExit(main())
