"""Start-up of the installed command, against a bare interpreter, in pairs in one run.

A: the installed ``ngupgrade`` console script (what a user runs after ``pip install``), B: the
same interpreter doing nothing (``python -c pass``, the interpreter the script runs on). Both
whole processes, in pairs A B A B (CPU seconds of each process, the median of the pairs), with
the package's bytecode cached as after an install.

Targets: ``ngupgrade --help`` and ``ngupgrade COMMAND --help`` for every command at most 4x;
``ngupgrade groups`` and ``ngupgrade plan`` on the example state at most 5x. They hold only
when commands load lazily and rich, grpc, the cloud SDK, boto3 and the kubernetes client are
imported on the paths that use them alone.
Usage: ``python bench/bench_startup.py [--runs R]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from harness import child_env, installed_command, pair_processes, record  # noqa: E402

from ngupgrade.cli import COMMANDS  # noqa: E402

EXAMPLE = ROOT / "terraform" / "examples" / "terraform.tfstate"
HELP_TARGET, RUN_TARGET = 4.0, 5.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    tool, env = installed_command(), child_env()
    bare = [sys.executable, "-c", "pass"]
    cases = [(["--help"], HELP_TARGET)]
    cases += [([name, "--help"], HELP_TARGET) for name in COMMANDS]
    cases += [(["groups", "--state", str(EXAMPLE)], RUN_TARGET),
              (["plan", "--state", str(EXAMPLE)], RUN_TARGET)]
    ok = True
    for words, target in cases:
        pair = pair_processes([tool, *words], bare, runs=args.runs, env=env)
        shown = " ".join(w if w != str(EXAMPLE) else "EXAMPLE" for w in words)
        ok &= record(f"ngupgrade {shown}", pair.ratio, target, baseline="python -c pass",
                     detail=f"{pair.a * 1000:.0f} ms vs {pair.b * 1000:.0f} ms CPU, "
                            f"{pair.spread()}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
