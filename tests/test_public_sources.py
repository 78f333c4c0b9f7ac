"""Docs, README, ARCHITECTURE.md and the package cite only public sources.

Users and maintainers cannot open the seed files, the field-report list or the project's
issues, so a citation such as "seed 001 L234", "S-EX1", "field report C24", "issue 10" or
"DESIGN section 3" names nothing they can read. The public page (title and section), the
public issue (`yandex-cloud/terraform-provider-yandex#113`) or a row of docs/sources.md is
cited instead (docs/sources.md lists every rule with its source).

No file of ngupgrade/ holds such a citation (NOT_YET_CLEAN, the list of files still being
swept with their ceilings, is empty and only shrinks).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A seed file ("seed 001", "seeds 001 and 004"), a line of one ("L72", "L88-L92"), a worked
# example's id ("S-EX1", "K-EX3"), a field report's id ("C13"), an issue number ("issue 14"),
# the design document ("DESIGN section 8").
CITATION = re.compile(
    r"\b[Ss]eeds? [0-9]{3}\b|\bC[0-9]{2}\b|\b[Ii]ssues? [0-9]+|DESIGN|\bL[0-9]{2,3}\b"
    r"|\b[A-Z]-EX[0-9]"
)

PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]

# ngupgrade/ files not swept yet, with the most citations each may still hold (lower the number
# or drop the file as it is cleaned, never raise it). Empty: every file of ngupgrade/ is clean.
NOT_YET_CLEAN: dict[str, int] = {}


def citations(text: str) -> list[tuple[int, str]]:
    """(line number, matched text) of each citation of a private source in text."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in CITATION.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        "the drain deletes it (seed 001 L72)",
        "Seed 000 adds that the order may differ",
        "HTTP 429; seeds 001 and 004",
        "*Example (seed 004 K-EX3):*",
        "(field report C13: the cloud runs one operation at a time)",
        "`--schedule advised` (issue 14)",
        "| duration | cycles | DESIGN section 3 |",
        "retried, then the upgrade stops (L80, L88-L92)",
    ],
)
def test_each_kind_of_private_citation_is_found(text: str) -> None:
    assert citations(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "`yandex-cloud/terraform-provider-yandex#113`: a replace destroyed the group",
        "Selectel's \"Комбинированный сценарий\": 20 nodes at 2/2",
        "`compute.instanceCores.count` is short; exit 5 with code C",
        "a 4000m node, 120 orders, `max_expansion` 7",
    ],
)
def test_public_citations_pass(text: str) -> None:
    assert citations(text) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_cite_only_public_sources(page: Path) -> None:
    assert citations(page.read_text()) == []


def test_sources_page_lists_the_public_pages() -> None:
    text = (ROOT / "docs" / "sources.md").read_text()
    for source in (
        "https://yandex.cloud/en/docs/managed-kubernetes/concepts/node-group/deploy-policy",
        "Стратегия обновления версии Kubernetes в группе нод Managed Kubernetes",
        "Стратегии обновления YTsaurus",
        "API-initiated Eviction",
        "yandex-cloud/terraform-provider-yandex#113",
    ):
        assert source in text


def test_package_gains_no_private_citation() -> None:
    grown = []
    for path in sorted((ROOT / "ngupgrade").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        found = citations(path.read_text())
        if len(found) > NOT_YET_CLEAN.get(name, 0):
            grown.append(f"{name}: {len(found)} > {NOT_YET_CLEAN.get(name, 0)}: {found[:3]}")
    assert grown == []


def test_links_to_a_sources_row_name_a_heading_of_sources_md() -> None:
    from tests.test_docs_cite_what_exists import _anchor

    sources = (ROOT / "docs" / "sources.md").read_text()
    headings = {_anchor(h) for h in re.findall(r"^#+ (.*)$", sources, re.M)}
    links = [(page.name, anchor) for page in PAGES
             for anchor in re.findall(r"sources\.md#([\w-]+)", page.read_text())]
    assert len(links) >= 4  # docs/drain.md, selectel.md, advise.md, upgrade-math.md link rows
    assert [link for link in links if link[1] not in headings] == []
