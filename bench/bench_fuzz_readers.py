"""``make bench``'s view of bench/fuzz_readers.py: 2,000 hypothesis inputs per reader, one
figure per reader (its exit-70/traceback, hang and memory counts summed; target 0).

Usage: ``python bench/bench_fuzz_readers.py [--examples N]``; ``python bench/fuzz_readers.py``
prints the same run as its own table.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import fuzz_readers  # noqa: E402
from harness import record  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000)
    args = parser.parse_args()
    os.environ.setdefault("NGUPGRADE_JOURNAL_DIR", tempfile.mkdtemp(prefix="ngupgrade-fuzz-j-"))
    print(fuzz_readers.HEADER, flush=True)
    ok = True
    for name, tally in fuzz_readers.run_all(None, args.examples).items():
        ok = record(f"{name}: exit 70/tracebacks + hangs + memory in {tally.inputs} inputs",
                    tally.bugs + tally.hangs + tally.memory, 0, unit="",
                    baseline="none: each is a bug",
                    detail=f"{tally.bugs} exit 70, {tally.hangs} hangs, {tally.memory} memory"
                    ) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
