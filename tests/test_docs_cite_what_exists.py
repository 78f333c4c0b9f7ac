"""The README and docs point only at documents the repository holds (was: docs/cloud.md
cited "DESIGN.md section 4", a file that is not in it), and every link's #anchor is a heading
of the page it names."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces -."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_cited_md_file_is_in_the_repository() -> None:
    missing = []
    for page in PAGES:
        for name in re.findall(r"(?<![\w/.-])([\w./-]+\.md)\b", page.read_text()):
            if "/" in name and not name.startswith(("docs/", "./", "../")):
                continue  # a page of another project's docs (the Yandex Cloud docs' paths)
            if not ((page.parent / name).exists() or (ROOT / name).exists()
                    or (ROOT / "docs" / name).exists()):
                missing.append(f"{page.relative_to(ROOT)}: {name}")
    assert missing == []


def test_the_quota_draw_link_names_a_heading() -> None:
    text = (ROOT / "docs" / "cloud.md").read_text()
    link = re.search(r"\]\(quota-preflight\.md#([\w-]+)\)", text)
    assert link is not None
    headings = [_anchor(h) for h in re.findall(r"^#+ (.*)$",
                                               (ROOT / "docs" / "quota-preflight.md").read_text(),
                                               re.M)]
    assert link.group(1) in headings
