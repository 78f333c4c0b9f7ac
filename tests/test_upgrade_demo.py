"""``make demo`` runs end to end: fake cloud from terraform/examples, preflight, plan, upgrade."""

from __future__ import annotations

import pytest

from ngupgrade import demo


def test_demo_finishes_with_a_correct_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    # 3000x: the demo's ~8 virtual minutes take a fraction of a real second.
    assert demo.main(["--speed", "3000"]) == 0
    out = capsys.readouterr().out
    for text in ("$ ngupgrade preflight -g workers", "Quota preflight: PASS",
                 "$ ngupgrade plan -g workers --max-expansion 2 --max-unavailable 1",
                 "-> set the deploy policy: 1/0 -> 2/1", "nodes on the new version",
                 "verdict: OK, yandex_kubernetes_node_group.workers on 1.30, RUNNING, 3/3 nodes",
                 "-> restore the deploy policy: 2/1 -> 1/0",
                 "workers on 1.30, 3 nodes, deploy policy 1/0; 3 Update calls in all"):
        assert text in out, text
