"""Shared test helpers: the example state, an in-process CLI runner, the stand-in terraform."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "terraform" / "examples"
EXAMPLE_STATE = EXAMPLES / "terraform.tfstate"
EXAMPLE_SHOW_JSON = EXAMPLES / "show.json"
FIXTURE_BIN = Path(__file__).resolve().parent / "fixtures" / "bin"


@dataclass
class CliResult:
    """What one ``ngupgrade`` run left behind."""

    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> object:
        return json.loads(self.stdout)


class CliRunner:
    """Runs ``ngupgrade ARGS`` in-process through the real entry point.

    ``timing``: the one Timing main() hands to the cloud use cases; set it to a fake cloud's
    virtual clock (``Timing(fake.now, fake.sleep)``) and no test sleeps real seconds. None:
    real time.
    """

    def __init__(self, capsys: pytest.CaptureFixture[str],
                 monkeypatch: pytest.MonkeyPatch) -> None:
        self.capsys = capsys
        self.monkeypatch = monkeypatch
        self.timing: object = None

    def __call__(self, *args: str, stdin: bytes | None = None) -> CliResult:
        from ngupgrade.cli import main

        self.capsys.readouterr()
        if stdin is not None:
            fake = io.TextIOWrapper(io.BytesIO(stdin))
            self.monkeypatch.setattr(sys, "stdin", fake)
        code = 0
        try:
            main(list(args), timing=self.timing)  # type: ignore[arg-type]
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = self.capsys.readouterr()
        return CliResult(code, out, err)


@pytest.fixture(autouse=True)
def _journals_in_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every test's journals under its own ``tmp_path/.ngupgrade`` (where a test that changes
    into tmp_path finds them), never in the developer's ~/.local/state/ngupgrade."""
    monkeypatch.setenv("NGUPGRADE_JOURNAL_DIR", str(tmp_path / ".ngupgrade"))


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """Run ``ngupgrade ARGS`` in-process through the real entry point; capture exit and output."""
    # The developer's environment must not leak into tests.
    for var in ("NGUPGRADE_STATE", "NGUPGRADE_OUTPUT", "YC_ENDPOINT", "TF_WORKSPACE",
                "NGUPGRADE_TERRAFORM_BIN", "NGUPGRADE_S3_ENDPOINT", "NGUPGRADE_PLATFORM",
                "COLUMNS"):  # tables follow COLUMNS (cli._common.terminal_width)
        monkeypatch.delenv(var, raising=False)
    return CliRunner(capsys, monkeypatch)


@pytest.fixture
def example_state_bytes() -> bytes:
    return EXAMPLE_STATE.read_bytes()


@pytest.fixture
def stand_in_terraform(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Put the stand-in terraform/tofu first on PATH; return the path of its call log."""
    log = tmp_path / "terraform-calls.jsonl"
    monkeypatch.setenv("PATH", f"{FIXTURE_BIN}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("FAKE_TF_LOG", str(log))
    return log


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables follow COLUMNS; pytest-xdist's workers (and some CI runners) set it, so every
    test starts without it, as a pipe would, and the tests that need a width set their own."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
