"""One judge of a policy against every limit: a spread placement group (issue: verdicts that
agree). A spread placement group holds at most 5 VMs (Yandex Compute Cloud docs, "Quotas and
limits", VM limits: "Maximum number of VMs in a single placement group: 5";
https://yandex.cloud/en/docs/compute/concepts/limits, yandex-cloud/docs
en/_includes/compute-limits.md at 0644d4a). The state is the example state as the provider
writes it (terraform/examples/terraform.tfstate), its ``workers`` group put in a
``yandex_compute_placement_group`` written by :func:`ngupgrade.testing.yandex_placement_group`
(the provider's flatten of that resource).

workers: 4 nodes (fixed), so at most 5 - 4 = 1 surge node can be placed: 2/0 (peak 6) cannot.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import EXAMPLES
from tests.test_preflight_limits import _in_placement_group, _state

QUOTAS = str(EXAMPLES / "quotas.yaml")
ROW = ("compute.placementGroupInstances.count", "placement group fd8pg0example")


def _spread_state(tmp_path: Path) -> str:
    workers, extra = _in_placement_group({})
    workers["scale_policy"] = [{"auto_scale": [], "fixed_scale": [{"size": 4}]}]
    return _state(tmp_path, workers=workers, extra=extra)


def test_advise_never_recommends_a_surge_the_placement_group_cannot_hold(run_cli, tmp_path):
    # Before: advise recommended 2/0 (peak 6) and printed its set-policy --apply.
    state = _spread_state(tmp_path)
    result = run_cli("advise", "--state", state, "--quotas", QUOTAS, "-g", "workers",
                     "-o", "json")
    (group,) = result.json()["groups"]
    rec = group["recommended"]
    assert (rec["max_expansion"], rec["max_unavailable"]) == (0, 1)  # 4 cycles, as 1/0
    assert group["quota"]["max_expansion"] == 1
    assert [(f["max_expansion"], f["max_unavailable"]) for f in group["front"]] == [
        (0, 1), (1, 0)]
    (faster,) = [r for r in group["rejected"] if r["max_expansion"] == 2]
    assert faster["reasons"] == [{"code": "quota-short", "message": (
        "cloud b1gexamplecloud000001: compute.placementGroupInstances.count (placement group "
        "fd8pg0example) needs 2 VMs, headroom 1 VM (short by 1 VM)")}]
    assert "--max-expansion 2" not in group["set_policy"]


def test_preflight_fails_the_policy_and_suggests_one_that_fits(run_cli, tmp_path):
    state = _spread_state(tmp_path)
    result = run_cli("preflight", "--state", state, "--quotas", QUOTAS, "-g", "workers",
                     "--max-expansion", "2", "--max-unavailable", "0", "-o", "json")
    assert result.exit_code == 1
    doc = result.json()
    rows = {(q["quota_id"], q["scope"]): q for q in doc["clouds"][0]["quotas"]}
    row = rows[ROW]
    assert (row["limit"], row["usage"], row["headroom"], row["demand"], row["status"],
            row["unit"]) == (5, 4, 1, 2, "short", "VMs")
    (suggestion,) = doc["suggestions"]
    assert (suggestion["max_expansion"], suggestion["max_unavailable"],
            suggestion["peak_nodes"]) == (1, 0, 5)
    assert "spread-placement-group-full" in [w["code"] for w in doc["warnings"]]
    # the suggestion passes
    fixed = run_cli("preflight", "--state", state, "--quotas", QUOTAS, "-g", "workers",
                    "--max-expansion", "1", "--max-unavailable", "0", "-o", "json")
    assert fixed.exit_code == 0, fixed.json()


def test_plan_strict_fails_on_a_surge_the_placement_group_cannot_hold(run_cli, tmp_path):
    # Before: `plan --strict` said nothing.
    state = _spread_state(tmp_path)
    result = run_cli("plan", "--state", state, "-g", "workers", "--max-expansion", "2",
                     "--max-unavailable", "0", "--strict", "-o", "json")
    assert result.exit_code == 1
    (group,) = result.json()["groups"]
    (warning,) = [w for w in group["warnings"] if w["code"] == "spread-placement-group-full"]
    assert "the upgrade's peak is 6 (4 nodes + 2 surge)" in warning["message"]
    fine = run_cli("plan", "--state", state, "-g", "workers", "--max-expansion", "1",
                   "--max-unavailable", "0", "--strict", "-o", "json")
    assert fine.exit_code == 0


def test_advise_without_a_quota_source_still_judges_the_placement_group(run_cli, tmp_path):
    # No quota source: the quotas are not checked, but the placement group's fixed 5 VMs are.
    # Before: 3/0 (peak 7) was recommended, with its set-policy --apply.
    state = _spread_state(tmp_path)
    result = run_cli("advise", "--state", state, "-g", "workers", "-o", "json")
    (group,) = result.json()["groups"]
    assert group["quota"] == {"checked": False, "cloud_id": None, "max_expansion": 1,
                              "unknown": []}
    assert group["recommended"]["max_expansion"] <= 1
    (faster,) = [r for r in group["rejected"] if r["max_expansion"] >= 2]
    assert faster["reasons"][0]["message"] == (
        "compute.placementGroupInstances.count (placement group fd8pg0example) needs "
        f"{faster['max_expansion']} VMs, headroom 1 VM (short by "
        f"{faster['max_expansion'] - 1} VM{'s' if faster['max_expansion'] > 2 else ''})")
    text = run_cli("advise", "--state", state, "-g", "workers")
    assert ("  quota: not checked (give --quotas FILE or --endpoint); the spread placement "
            "group: max_expansion up to 1 fits") in text.stdout.splitlines()
