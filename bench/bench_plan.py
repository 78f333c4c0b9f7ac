"""Planning cost, against a plain loop a user could write instead, in pairs in one run.

200 groups of 200 nodes (the per-group limit; policies 1/0, 0/1, 2/2, 3/0 in turn):

* A: ``plan_group`` + ``group_plan_json`` of every group, then ``json.dumps`` of the report
  (what ``ngupgrade plan -o json`` computes after reading the state);
* A': the text report of the same groups (``plan_text``: pictures, elision);
* B (the floor): the same groups as the state holds them (dicts, ``json.loads`` of their
  JSON), a plain loop over each group's waves writing one dict per step (create, drain,
  update in place / delete: the fields of the plan's timeline), and ``json.dumps`` of it all.
  Any planner does at least this much.

Targets: A and A' each at most 3x B (CPU time, median of the pairs). Start-up of the command
is ``bench_startup.py``'s.
Usage: ``python bench/bench_plan.py [--groups K] [--runs R]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from harness import pair_calls, record  # noqa: E402

from ngupgrade.cli.render.upgrade_plan import group_plan_json, plan_text  # noqa: E402
from ngupgrade.core.address import TfAddress  # noqa: E402
from ngupgrade.core.model import DeployPolicy, FixedScale, NodeGroup  # noqa: E402
from ngupgrade.core.simulate import plan_group  # noqa: E402

POLICIES = [(1, 0), (0, 1), (2, 2), (3, 0)]
TARGET = 3.0


def groups(count: int) -> list[NodeGroup]:
    return [
        NodeGroup(address=TfAddress("yandex_kubernetes_node_group", f"ng{i}"), id=f"cat{i:017d}",
                  name=f"ng{i}", cluster_id="catq0n7i0h9ka1b2c3d4", folder_id=None,
                  version=None, status=None, policy=DeployPolicy(*POLICIES[i % len(POLICIES)]),
                  scale=FixedScale(200), node=None)
        for i in range(count)
    ]


def raw_groups(count: int) -> str:
    """The same groups as a state's attributes hold them, as JSON text."""
    return json.dumps([{"id": f"cat{i:017d}", "name": f"ng{i}",
                        "deploy_policy": [{"max_expansion": POLICIES[i % 4][0],
                                           "max_unavailable": POLICIES[i % 4][1]}],
                        "scale_policy": [{"fixed_scale": [{"size": 200}]}]}
                       for i in range(count)])


def floor(text: str) -> str:
    """The plain loop: per group, per wave, the steps of a rolling update as dicts."""
    out = []
    for g in json.loads(text):
        policy = g["deploy_policy"][0]
        e, u = policy["max_expansion"], policy["max_unavailable"]
        n = g["scale_policy"][0]["fixed_scale"][0]["size"]
        steps: list[dict[str, Any]] = []
        done, wave = 0, 0
        while done < n:
            wave += 1
            batch = min(e + u, n - done)
            surge = min(e, batch)
            if surge:
                steps.append({"wave": wave, "action": "create", "nodes": surge,
                              "group_size": n + surge, "new_nodes": done + surge})
            steps.append({"wave": wave, "action": "drain", "nodes": batch,
                          "group_size": n + surge, "new_nodes": done + surge})
            done += batch
            steps.append({"wave": wave, "action": "delete" if surge else "update_in_place",
                          "nodes": batch, "group_size": n, "new_nodes": done})
        out.append({"id": g["id"], "name": g["name"], "nodes": n, "surge_nodes": e,
                    "cycles": wave, "timeline": steps})
    return json.dumps({"groups": out})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--groups", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    gs, text = groups(args.groups), raw_groups(args.groups)
    steps = sum(len(plan_group(g).timeline) for g in gs)
    print(f"{args.groups} groups of 200 nodes, {steps} timeline steps")
    ok = True
    json_pair = pair_calls(
        lambda: json.dumps({"groups": [group_plan_json(plan_group(g)) for g in gs]}),
        lambda: floor(text), runs=args.runs)
    ok &= record("plan + JSON report / plain loop", json_pair.ratio, TARGET,
                 baseline="json.loads + a loop over the waves + json.dumps",
                 detail=f"{json_pair.a * 1000:.0f} ms vs {json_pair.b * 1000:.0f} ms, "
                        f"{json_pair.spread()}")
    text_pair = pair_calls(lambda: plan_text([plan_group(g) for g in gs]),
                           lambda: floor(text), runs=args.runs)
    ok &= record("plan + text report / plain loop", text_pair.ratio, TARGET,
                 baseline="json.loads + a loop over the waves + json.dumps",
                 detail=f"{text_pair.a * 1000:.0f} ms vs {text_pair.b * 1000:.0f} ms, "
                        f"{text_pair.spread()}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
