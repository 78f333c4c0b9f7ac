"""``make demo`` runs end to end: fake cloud from terraform/examples, preflight, plan, upgrade."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from ngupgrade import demo

SPEED = 3000  # the demo's ~20 virtual minutes take well under a real second


@pytest.fixture(scope="module")
def demo_run() -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = demo.main(["--speed", str(SPEED)])
    return code, out.getvalue()


def test_demo_finishes_with_a_correct_verdict(demo_run: tuple[int, str]) -> None:
    code, out = demo_run
    assert code == 0
    for text in ("$ ngupgrade preflight -g workers", "Quota preflight: PASS",
                 "$ ngupgrade plan -g workers --max-expansion 2 --max-unavailable 1",
                 "-> set the deploy policy: 1/0 -> 2/1", "nodes on the new version",
                 "verdict: OK, yandex_kubernetes_node_group.workers on 1.30, RUNNING, 3/3 nodes",
                 "-> restore the deploy policy: 2/1 -> 1/0",
                 "workers on 1.30, 3 nodes, deploy policy 1/0; 3 Update calls in all"):
        assert text in out, text


def test_demo_says_its_durations_are_virtual_and_prints_the_time_scale(
        demo_run: tuple[int, str]) -> None:
    # Before: "done in 6m" with no word that 6 virtual minutes took 0.1 s, and the printed
    # upgrade command without the --time-scale it ran with (copied, it gave other numbers).
    _code, out = demo_run
    assert (f"every duration below is the fake's virtual time ({SPEED} virtual seconds a real "
            f"second; the upgrade gets --time-scale={SPEED} to match)") in out
    upgrade = next(line for line in out.splitlines() if line.startswith("$ ngupgrade upgrade"))
    assert upgrade.endswith(f"--time-scale={SPEED}")
    took = re.search(r"the upgrade took ([\d.]+) s of real time: (\S+) of virtual time at "
                     rf"x{SPEED}", out)
    assert took is not None
