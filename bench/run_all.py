"""``make bench``: run every ``bench/bench_*.py``, then print one table of every figure, its
target and its verdict; exit 1 at the end when any figure missed its target or any bench
failed (a bench that crashes is a failure too, named in the table).

Each bench runs to the end whatever the others did. Figures come from
:func:`harness.record`, through the file named by ``NGUPGRADE_BENCH_FIGURES``.
Usage: ``python bench/run_all.py [NAME ...]`` (names without ``bench_``/``.py`` to run some).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import FIGURES_ENV, ROOT  # noqa: E402


def benches(names: list[str]) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    if not names:
        return found
    wanted = {n.removeprefix("bench_").removesuffix(".py") for n in names}
    unknown = wanted - {p.stem.removeprefix("bench_") for p in found}
    if unknown:
        raise SystemExit(f"no such bench: {', '.join(sorted(unknown))} (have: "
                         + ", ".join(p.stem.removeprefix("bench_") for p in found) + ")")
    return [p for p in found if p.stem.removeprefix("bench_") in wanted]


def table(rows: list[dict], failures: list[tuple[str, int, float]]) -> list[str]:
    lines = [f"{'bench':<18} {'figure':<58} {'measured':>9} {'target':>9}  verdict",
             "-" * 106]
    for r in rows:
        measured = f"{r['measured']:.2f}{r['unit']}"
        target = f"{r['bound']} {r['target']:g}{r['unit']}"
        lines.append(f"{r['bench'].removeprefix('bench_'):<18} {r['figure'][:58]:<58} "
                     f"{measured:>9} {target:>9}  {'OK' if r['ok'] else 'MISSED'}")
    for name, code, seconds in failures:
        lines.append(f"{name.removeprefix('bench_'):<18} {'the bench itself':<58} "
                     f"{'exit ' + str(code):>9} {'exit 0':>9}  FAILED ({seconds:.0f} s)")
    return lines


def main() -> int:
    selected = benches(sys.argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        figures = Path(tmp) / "figures.jsonl"
        figures.touch()
        env = {**os.environ, FIGURES_ENV: str(figures), "PYTHONPATH": str(ROOT)}
        failures: list[tuple[str, int, float]] = []
        for path in selected:
            print(f"== {path.relative_to(ROOT)}", flush=True)
            started = time.perf_counter()
            code = subprocess.run([sys.executable, str(path)], env=env, check=False).returncode
            seconds = time.perf_counter() - started
            print(f"   ({seconds:.0f} s, exit {code})", flush=True)
            if code != 0:
                failures.append((path.stem, code, seconds))
        rows = [json.loads(line) for line in figures.read_text().splitlines() if line]
    # a bench that exits 1 because one of its figures missed is not a second failure
    missed_in = {r["bench"] for r in rows if not r["ok"]}
    failures = [f for f in failures if not (f[1] == 1 and f[0] in missed_in)]
    print()
    print("\n".join(table(rows, failures)))
    missed = sum(not r["ok"] for r in rows)
    print(f"\n{len(rows)} figures from {len(selected)} benches: {len(rows) - missed} OK, "
          f"{missed} missed, {len(failures)} bench(es) failed")
    return 1 if missed or failures else 0


if __name__ == "__main__":
    sys.exit(main())
