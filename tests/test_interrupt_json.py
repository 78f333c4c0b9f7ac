"""An interrupt (Ctrl-C, SIGTERM) during ``upgrade -o json`` ends the NDJSON stream with an
error line in README's vocabulary: ``code`` ``interrupted``, exit 130, and the operation the
cloud keeps running in ``operation_id`` (the same id the message names). Run through the
command line (its signal handlers) against the fake cloud through the real SDK; the example
state is terraform/examples/terraform.tfstate, written as the provider writes it."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from ngupgrade.adapters.files import journal as jr
from ngupgrade.upgrade.events import Event
from tests._upgrade_helpers import cli, example_cloud


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_an_interrupt_in_the_json_stream_is_interrupted_with_its_operation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        signum: int) -> None:
    import ngupgrade.cli._upgrade_display as cmd

    original = cmd.NdjsonDisplay.event
    sent: list[str] = []

    def event(self: Any, ev: Event) -> None:
        original(self, ev)
        if not sent and ev.kind == "operation" and getattr(ev, "step", "") == jr.STEP_VERSION:
            sent.append(str(getattr(ev, "operation_id", "")))
            os.kill(os.getpid(), signum)   # on the main thread the handler raises right here
            time.sleep(0.3)

    monkeypatch.setattr(cmd.NdjsonDisplay, "event", event)
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-o", "json", "-g", "workers",
                             "--version", "1.30", "--apply", "--journal",
                             str(tmp_path / "j.json"))
    assert sent, "the signal was never sent"
    assert code == 130, err
    last = json.loads(out.strip().splitlines()[-1])
    assert last["event"] == "error"
    assert last["error"]["code"] == "interrupted"
    assert last["error"]["exit_code"] == 130
    assert last["operation_id"] == last["error"]["operation_id"] == sent[0]
    assert sent[0] in last["message"]
