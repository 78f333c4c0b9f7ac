"""Reading a large state, against jq on the same file, in pairs in one run.

A generated state of about 24 MB (6,000 resources, 1 in 20 a node group, bulky attributes as
real states carry): the installed ``ngupgrade groups --output json`` next to ``jq`` selecting
the node groups and clusters from the same file, both whole processes, in pairs (CPU seconds,
the median of the pairs). Target: at most 0.5x jq. Start-up on a small state is
``bench_startup.py``'s.

Installs jq from Debian's packages when it is missing. Prints a table; exits 1 when a
target is missed. Usage: ``python bench/bench_state.py [--resources N] [--runs K]``.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from harness import (  # noqa: E402
    child_env,
    find_jq,
    installed_command,
    pair_processes,
    record,
    run_process,
)

EXAMPLE = ROOT / "terraform" / "examples" / "terraform.tfstate"
JQ_FILTER = ('[.resources[] | select(.mode == "managed" and (.type == '
             '"yandex_kubernetes_node_group" or .type == "yandex_kubernetes_cluster"))]')


def make_large_state(path: Path, resources: int) -> tuple[int, int]:
    """Write a v4 state with ``resources`` resources, 1 in 20 of them node groups."""
    base = json.loads(EXAMPLE.read_text())
    by_type = {r["type"]: r for r in base["resources"]}
    node_group = by_type["yandex_kubernetes_node_group"]
    filler_types = [r for r in base["resources"] if r["type"] != "yandex_kubernetes_node_group"]
    out = []
    groups = 0
    for i in range(resources):
        if i % 20 == 0:
            res = copy.deepcopy(node_group)
            res["module"] = f'module.team["t{i}"]'
            res["instances"][0]["attributes"]["id"] = f"catng{i:015d}"
            res["instances"][0]["attributes"]["name"] = f"ng-{i}"
            groups += 1
        else:
            res = copy.deepcopy(filler_types[i % len(filler_types)])
            res["name"] = f"r{i}"
            res["module"] = f'module.m{i % 50}["k.{i}"]'
            attrs = res["instances"][0].setdefault("attributes", {})
            # Real states carry bulky attributes (user-data, certificates, policies).
            attrs["metadata"] = {"user-data": "#cloud-config\n" + ("x" * 40 + "\n") * 60}
        out.append(res)
    base["resources"] = out
    path.write_text(json.dumps(base, indent=2))
    return groups, path.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resources", type=int, default=6000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    jq = find_jq()
    if jq is None:
        return 0
    env = child_env()
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "large.tfstate"
        groups, size = make_large_state(big, args.resources)
        tool = [installed_command(), "groups", "--state", str(big), "--output", "json"]
        out = run_process(tool, env).out
        assert len(json.loads(out)["groups"]) == groups, "benchmark state read wrongly"
        pair = pair_processes(tool, [jq, "-c", JQ_FILTER, str(big)], runs=args.runs, env=env)
        print(f"large state: {size / 1e6:.1f} MB, {args.resources} resources, "
              f"{groups} node groups")
        ok = record("ngupgrade groups -o json / jq, large state", pair.ratio, 0.5,
                    baseline="jq selecting the node groups and clusters",
                    detail=f"{pair.a * 1000:.0f} ms vs {pair.b * 1000:.0f} ms CPU, "
                           f"{pair.spread()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
