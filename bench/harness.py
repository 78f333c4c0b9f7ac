"""Shared by the benches: paired measurement and the figures ``make bench`` tabulates.

Every figure is a ratio against a baseline measured in the same run, in pairs: A, B, A, B, ...
so a machine that slows down or speeds up mid-run (other jobs on a shared host) slows both
sides of a pair alike. The figure is the median of the per-pair ratios; the medians of each
side are printed beside it.

* :func:`pair_calls` times two callables in this process (CPU seconds of the process,
  ``time.process_time``: a pair is not skewed by time spent waiting for a core);
* :func:`pair_processes` times two commands as whole processes (user + system seconds from
  ``os.wait4``'s resource usage, the kernel's own accounting of the finished child, and its
  peak resident memory; wall seconds beside them);
* :func:`record` prints a figure with its target and verdict and appends it to the file named
  by ``NGUPGRADE_BENCH_FIGURES`` when set (``bench/run_all.py`` reads it for the table).

A figure is either an upper bound (``measured <= target``, the default) or a lower bound
(``at_least=True``, e.g. a speed-up or a count of distinct cases).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIGURES_ENV = "NGUPGRADE_BENCH_FIGURES"


def installed_command() -> str:
    """The ``ngupgrade`` console script beside this interpreter (what a user runs after
    ``pip install``), not ``python -m ngupgrade``."""
    path = Path(sys.executable).parent / "ngupgrade"
    if not path.exists():
        raise SystemExit(f"{path} is missing: run `make setup` (it installs the command)")
    return str(path)


def find_jq() -> str | None:
    """The path of ``jq``, the baseline of the reading benches: on PATH, else installed from
    Debian's packages when this is a root shell that can (a new machine has none); None when
    neither works, and the bench skips its jq figures, saying so."""
    import shutil

    found = shutil.which("jq")
    if found is None and os.geteuid() == 0 and shutil.which("apt-get"):
        print("jq is missing: installing it from Debian's packages", flush=True)
        for args in (["update", "-qq"], ["install", "-y", "-qq", "jq"]):
            if subprocess.run(["apt-get", *args], check=False).returncode != 0:
                break
        found = shutil.which("jq")
    if found is None:
        print("  skipped: jq is not on PATH (the baseline); install it (apt-get install jq)")
    return found


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a timed child: this one without ``NGUPGRADE_STATE`` (a run must
    read the state it is given) and without ``PYTHONDONTWRITEBYTECODE``, so the package's
    bytecode is cached as on a user's machine (pip compiles it at install) instead of every
    run compiling the sources again."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("NGUPGRADE_STATE", "PYTHONDONTWRITEBYTECODE")}
    env.update(extra)
    return env


@dataclass
class Sample:
    """One run of one side: CPU seconds, wall seconds, peak resident bytes (0 in process)."""

    cpu: float
    wall: float
    peak: int = 0
    out: bytes = b""
    err: bytes = b""


@dataclass
class Paired:
    """The runs of two sides, in pairs. ``ratio`` is the median of the per-pair CPU ratios
    A/B; ``a``/``b`` the median CPU seconds of each side."""

    a_runs: list[Sample] = field(default_factory=list)
    b_runs: list[Sample] = field(default_factory=list)

    @property
    def ratios(self) -> list[float]:
        return [a.cpu / b.cpu for a, b in zip(self.a_runs, self.b_runs, strict=True)
                if b.cpu > 0]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def a(self) -> float:
        return statistics.median(s.cpu for s in self.a_runs)

    @property
    def b(self) -> float:
        return statistics.median(s.cpu for s in self.b_runs)

    @property
    def a_wall(self) -> float:
        return statistics.median(s.wall for s in self.a_runs)

    @property
    def b_wall(self) -> float:
        return statistics.median(s.wall for s in self.b_runs)

    @property
    def a_peak(self) -> int:
        return max(s.peak for s in self.a_runs)

    @property
    def b_peak(self) -> int:
        return max(s.peak for s in self.b_runs)

    def spread(self) -> str:
        """The per-pair ratios' range, to show how noisy the run was."""
        r = self.ratios
        return f"pairs {min(r):.2f}..{max(r):.2f}"


def _call(fn: Callable[[], object]) -> Sample:
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return Sample(time.process_time() - cpu, time.perf_counter() - wall)


def pair_calls(a: Callable[[], object], b: Callable[[], object], runs: int = 5,
               warmup: int = 1) -> Paired:
    """Run ``a`` and ``b`` in turn ``runs`` times each (after ``warmup`` uncounted pairs)."""
    for _ in range(warmup):
        a()
        b()
    paired = Paired()
    for _ in range(runs):
        paired.a_runs.append(_call(a))
        paired.b_runs.append(_call(b))
    return paired


def run_process(cmd: Sequence[str], env: Mapping[str, str] | None = None,
                check: bool = True) -> Sample:
    """One whole process: its user + system seconds and peak memory as the kernel counted
    them at exit (``wait4``), its wall seconds and stdout. ``check``: exit 0 or SystemExit."""
    with tempfile.TemporaryFile() as errors:
        wall = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=subprocess.PIPE, stderr=errors,
                                env=dict(env) if env is not None else None)
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.stdout.close()
        # wait4, not Popen.wait: the resource usage of this child alone, not of all children
        _pid, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - wall
        proc.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        err = errors.read()
    if check and proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with exit {proc.returncode}: "
                         f"{err.decode(errors='replace')[-1500:]}")
    # ru_maxrss survives exec on Linux: a child of a large parent reads large; a bench that
    # judges memory has the child report its own VmHWM (``peak_reported``).
    return Sample(usage.ru_utime + usage.ru_stime, elapsed, usage.ru_maxrss * 1024, out, err)


REPORT_PEAK = ("import atexit, sys\n"
               "def _hwm():\n"
               "    line = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
               "    sys.stderr.write('VmHWM %d\\n' % (int(line.split()[1]) * 1024))\n"
               "atexit.register(_hwm)\n")
"""Python source that makes a Python child print its own peak memory (VmHWM, the high-water
mark of its memory map, which exec resets) on stderr at exit; see :func:`peak_reported`."""


def peak_reported(sample: Sample) -> int:
    """The VmHWM bytes a child printed with :data:`REPORT_PEAK`, or 0."""
    for line in sample.err.decode(errors="replace").splitlines():
        if line.startswith("VmHWM "):
            return int(line.split()[1])
    return 0


def pair_processes(a: Sequence[str], b: Sequence[str], runs: int = 5, warmup: int = 1,
                   env: Mapping[str, str] | None = None) -> Paired:
    """Run the commands ``a`` and ``b`` in turn ``runs`` times each, after ``warmup``
    uncounted pairs; each must exit 0."""
    for _ in range(warmup):
        run_process(a, env)
        run_process(b, env)
    paired = Paired()
    for _ in range(runs):
        paired.a_runs.append(run_process(a, env))
        paired.b_runs.append(run_process(b, env))
    return paired


def record(name: str, measured: float, target: float, *, baseline: str,
           at_least: bool = False, unit: str = "x", detail: str = "") -> bool:
    """Print one figure with its target and verdict; append it to the figures file when
    ``make bench`` runs. True when the target is met."""
    ok = measured >= target if at_least else measured <= target
    sign = ">=" if at_least else "<="
    verdict = "OK" if ok else "MISSED"
    line = (f"  {name}: {measured:.2f}{unit} (target {sign} {target:g}{unit}, baseline: "
            f"{baseline}) {verdict}")
    print(line + (f"  [{detail}]" if detail else ""), flush=True)
    path = os.environ.get(FIGURES_ENV)
    if path:
        row: dict[str, Any] = {"bench": Path(sys.argv[0]).stem, "figure": name,
                               "measured": round(measured, 3), "target": target,
                               "bound": sign, "unit": unit, "baseline": baseline,
                               "ok": ok}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")
    return ok
