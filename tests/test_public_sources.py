"""Docs, README, ARCHITECTURE.md and the package cite only public sources.

Users and maintainers cannot open the seed files, the field-report list or the project's
issues, so a citation such as "seed 001 L234", "S-EX1", "field report C24", "issue 10" or
"DESIGN section 3" names nothing they can read. The public page (title and section), the
public issue (`yandex-cloud/terraform-provider-yandex#113`) or a row of docs/sources.md is
cited instead (docs/sources.md lists every rule with its source).

ngupgrade/ is being swept file by file: a file in NOT_YET_CLEAN may keep at most its listed
number of such citations (the list only shrinks), and every other file none.
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

# ngupgrade/ files not swept yet, with the most citations each may still hold (counted when
# this list was written; lower the number or drop the file as it is cleaned, never raise it).
NOT_YET_CLEAN: dict[str, int] = {
    "ngupgrade/adapters/cloud/auth.py": 1,
    "ngupgrade/adapters/cloud/gateway.py": 3,
    "ngupgrade/adapters/cloud/types.py": 2,
    "ngupgrade/adapters/cloud/waiter.py": 11,
    "ngupgrade/adapters/files/journal.py": 4,
    "ngupgrade/adapters/files/quota_file.py": 1,
    "ngupgrade/adapters/kube/live.py": 1,
    "ngupgrade/adapters/kube/ytsaurus_objects.py": 1,
    "ngupgrade/adapters/state/encoding.py": 1,
    "ngupgrade/adapters/state/sources.py": 1,
    "ngupgrade/app/cloud.py": 1,
    "ngupgrade/app/drain_check.py": 3,
    "ngupgrade/app/gate.py": 1,
    "ngupgrade/app/quota_check.py": 7,
    "ngupgrade/app/scheduled.py": 3,
    "ngupgrade/app/set_policy.py": 9,
    "ngupgrade/app/settings.py": 1,
    "ngupgrade/app/stage_run.py": 1,
    "ngupgrade/app/tfplan.py": 2,
    "ngupgrade/app/upgrade.py": 4,
    "ngupgrade/app/upgrade_plan.py": 1,
    "ngupgrade/app/wait.py": 5,
    "ngupgrade/cli/__init__.py": 2,
    "ngupgrade/cli/_common.py": 1,
    "ngupgrade/cli/_flags.py": 1,
    "ngupgrade/cli/_upgrade_display.py": 1,
    "ngupgrade/cli/render/advise.py": 2,
    "ngupgrade/cli/render/drain.py": 1,
    "ngupgrade/cli/render/groups.py": 4,
    "ngupgrade/cli/render/quota.py": 2,
    "ngupgrade/cli/render/upgrade_plan.py": 4,
    "ngupgrade/cli/upgrade.py": 1,
    "ngupgrade/core/address.py": 2,
    "ngupgrade/core/advise/__init__.py": 2,
    "ngupgrade/core/advise/calibrate.py": 1,
    "ngupgrade/core/advise/candidates.py": 11,
    "ngupgrade/core/advise/judge.py": 10,
    "ngupgrade/core/advise/recommend.py": 3,
    "ngupgrade/core/advise/schedule.py": 4,
    "ngupgrade/core/advise/workloads.py": 1,
    "ngupgrade/core/change.py": 6,
    "ngupgrade/core/drain/__init__.py": 1,
    "ngupgrade/core/drain/blockers.py": 5,
    "ngupgrade/core/drain/check.py": 6,
    "ngupgrade/core/drain/drain_model.py": 2,
    "ngupgrade/core/drain/eviction.py": 4,
    "ngupgrade/core/drain/facts.py": 3,
    "ngupgrade/core/drain/findings.py": 3,
    "ngupgrade/core/drain/fit.py": 1,
    "ngupgrade/core/drain/index.py": 3,
    "ngupgrade/core/drain/unplaced.py": 7,
    "ngupgrade/core/drain/waves.py": 7,
    "ngupgrade/core/drain/ytsaurus.py": 6,
    "ngupgrade/core/errors.py": 7,
    "ngupgrade/core/k8s.py": 1,
    "ngupgrade/core/model.py": 6,
    "ngupgrade/core/quota/__init__.py": 1,
    "ngupgrade/core/quota/catalog.py": 1,
    "ngupgrade/core/quota/demand.py": 7,
    "ngupgrade/core/quota/limits.py": 1,
    "ngupgrade/core/quota/preflight.py": 1,
    "ngupgrade/core/quota/selectel.py": 4,
    "ngupgrade/core/quota/suggest.py": 9,
    "ngupgrade/core/quota/tfplan.py": 3,
    "ngupgrade/core/quota/verdict.py": 2,
    "ngupgrade/core/rollout.py": 3,
    "ngupgrade/core/simulate.py": 9,
    "ngupgrade/core/stall.py": 6,
    "ngupgrade/demo.py": 1,
    "ngupgrade/testing/checks.py": 1,
    "ngupgrade/testing/fake_cloud.py": 2,
    "ngupgrade/testing/faults.py": 1,
    "ngupgrade/testing/group_override.py": 4,
    "ngupgrade/testing/kube_follow.py": 1,
    "ngupgrade/testing/objects.py": 1,
    "ngupgrade/testing/quotas.py": 3,
    "ngupgrade/testing/rollout.py": 3,
    "ngupgrade/testing/scenario.py": 3,
    "ngupgrade/testing/world.py": 8,
    "ngupgrade/upgrade/adopt.py": 1,
    "ngupgrade/upgrade/context.py": 3,
    "ngupgrade/upgrade/events.py": 4,
    "ngupgrade/upgrade/pods.py": 1,
    "ngupgrade/upgrade/prepare.py": 4,
    "ngupgrade/upgrade/progress.py": 5,
    "ngupgrade/upgrade/rules.py": 1,
    "ngupgrade/upgrade/runbook.py": 5,
    "ngupgrade/upgrade/steps.py": 5,
    "ngupgrade/upgrade/values.py": 3,
    "ngupgrade/upgrade/watch.py": 2,
}


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
