"""State reading and start-up, each against a baseline measured in the same run.

1. A generated large state (tens of MB, thousands of resources): the whole
   ``ngupgrade groups --output json`` process next to ``jq`` selecting the same resources
   from the same file. Target: at most 0.5x jq's time (issue 2).
2. Start-up: ``ngupgrade groups`` (and ``plan`` when it exists) on the small example state
   next to a bare ``python -c pass`` with the same interpreter. Target: at most 8x.

Installs jq from Debian's packages when it is missing. Prints a table; exits 1 when a
target is missed. Usage: ``python bench/bench_state.py [--resources N] [--runs K]``.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "terraform" / "examples" / "terraform.tfstate"
JQ_FILTER = ('[.resources[] | select(.mode == "managed" and (.type == '
             '"yandex_kubernetes_node_group" or .type == "yandex_kubernetes_cluster"))]')


def ensure_jq() -> str:
    found = shutil.which("jq")
    if found:
        return found
    print("jq is missing: installing it from Debian's packages", flush=True)
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "jq"], check=True)
    found = shutil.which("jq")
    if not found:
        raise SystemExit("could not install jq")
    return found


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


def timed(cmd: list[str], runs: int, env: dict[str, str] | None = None) -> float:
    """Median wall time in seconds of ``runs`` runs (output discarded; must exit 0)."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--resources", type=int, default=6000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    jq = ensure_jq()
    py = sys.executable
    env = dict(os.environ)
    env.pop("NGUPGRADE_STATE", None)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "large.tfstate"
        groups, size = make_large_state(big, args.resources)
        tool = [py, "-m", "ngupgrade", "groups", "--state", str(big), "--output", "json"]
        out = subprocess.run(tool, capture_output=True, check=True, env=env).stdout
        assert len(json.loads(out)["groups"]) == groups, "benchmark state read wrongly"
        t_jq = timed([jq, "-c", JQ_FILTER, str(big)], args.runs)
        t_tool = timed(tool, args.runs, env)
        ratio = t_tool / t_jq
        print(f"large state: {size / 1e6:.1f} MB, {args.resources} resources, "
              f"{groups} node groups")
        print(f"  jq select            {t_jq * 1000:8.1f} ms  (baseline)")
        print(f"  ngupgrade groups     {t_tool * 1000:8.1f} ms  = {ratio:.2f}x jq  "
              f"(target <= 0.50x) {'OK' if ratio <= 0.5 else 'MISSED'}")
        ok &= ratio <= 0.5

    bare = timed([py, "-c", "pass"], args.runs * 3)
    print(f"start-up on the example state (python -c pass = {bare * 1000:.1f} ms, baseline)")
    commands = [["groups"], ["plan"]]
    for command in commands:
        cmd = [py, "-m", "ngupgrade", *command, "--state", str(EXAMPLE)]
        probe = subprocess.run(cmd, capture_output=True, env=env, check=False)
        if probe.returncode == 2 and b"No such command" in probe.stderr:
            print(f"  ngupgrade {command[0]:<10} (not built yet)")
            continue
        t = timed(cmd, args.runs * 2, env)
        ratio = t / bare
        print(f"  ngupgrade {command[0]:<10} {t * 1000:8.1f} ms  = {ratio:.1f}x  "
              f"(target <= 8x) {'OK' if ratio <= 8 else 'MISSED'}")
        ok &= ratio <= 8
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
