"""docs/upgrade-math.md shows the pictures exactly as `ngupgrade plan` prints them."""

from __future__ import annotations

import re

import pytest
from _plan_groups import auto, fixed

from ngupgrade.cli.render.upgrade_plan import timeline_lines
from ngupgrade.core.simulate import plan_group
from tests.conftest import ROOT

DOC = ROOT / "docs" / "upgrade-math.md"
MARKER = re.compile(
    r"<!-- picture: (?:auto=(\d+)\.\.(\d+) )?N=(\d+) E=(\d+) U=(\d+) -->\n```\n(.*?)\n```",
    re.S,
)


def _pictures() -> list[tuple[str, str, str]]:
    found = []
    for m in MARKER.finditer(DOC.read_text(encoding="utf-8")):
        lo, hi, n, e, u, body = m.groups()
        if lo is None:
            plan = plan_group(fixed(int(n), int(e), int(u)))
        else:
            plan = plan_group(auto(int(lo), int(hi), int(e), int(u)), live_size=int(n))
        found.append((m.group(0).splitlines()[0], body, "\n".join(timeline_lines(plan))))
    return found


def test_the_doc_has_the_seed_pictures() -> None:
    assert len(_pictures()) == 7


@pytest.mark.parametrize(("marker", "shown", "printed"), _pictures())
def test_doc_picture_matches_the_tool(marker: str, shown: str, printed: str) -> None:
    assert shown == printed, marker
