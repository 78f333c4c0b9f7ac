"""The Makefile a newcomer runs first (issue 11 item 13): `make demo` installs the runtime
alone and says so; `make test`/`make lint` (and CI) get the development tools.

Read with `make -n` against a virtualenv path that does not exist, as on a fresh clone:
nothing is installed or run.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _dry_run(target: str, tmp_path: Path) -> list[str]:
    # under `make test` the suite runs inside make: without --no-print-directory the nested
    # make adds "Entering/Leaving directory" lines (MAKELEVEL is inherited)
    out = subprocess.run(["make", "--no-print-directory", "-n", target,
                          f"VENV={tmp_path / 'venv'}"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def _installs(lines: list[str]) -> list[str]:
    return [line for line in lines if "pip install" in line and "--upgrade pip" not in line]


def test_demo_on_a_fresh_clone_installs_the_runtime_alone_and_says_so(tmp_path: Path) -> None:
    # Before: a silent `pip install -e '.[dev]'` (moto's server, mypy, ruff, hypothesis) of
    # about 3 minutes before the demo printed anything.
    lines = _dry_run("demo", tmp_path)
    (install,) = _installs(lines)
    assert install.endswith("pip install --quiet -e .")
    said = [line for line in lines if line.startswith("echo ")]
    assert any("installing ngupgrade and its runtime dependencies" in s for s in said)
    assert any("running the demo" in s for s in said)
    assert lines[-1].endswith("-m ngupgrade.demo --state terraform/examples/terraform.tfstate")


@pytest.mark.parametrize("target", ["test", "lint", "setup"])
def test_tests_and_lint_get_the_development_tools(tmp_path: Path, target: str) -> None:
    (install,) = _installs(_dry_run(target, tmp_path))
    assert install.endswith("pip install --quiet -e '.[dev]'")


def test_ci_still_installs_everything_and_runs_the_tests_and_the_linters() -> None:
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
             if line.strip().startswith("make ")]
    assert steps == ["make setup", "make test", "make lint"]
