"""``preflight -o junit``: a test case per check and per finding, the suggested policies and
the warnings included (README, "For scripts"); the document fails exactly when the run does."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from tests.conftest import EXAMPLE_STATE, EXAMPLES

STATE = str(EXAMPLE_STATE)
QUOTAS = str(EXAMPLES / "quotas.yaml")
CLOUD = "b1gexamplecloud000001"
GPU = "yandex_kubernetes_node_group.gpu"
BATCH = 'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'
START = ["--start-at", "2026-12-01T10:00"]


def suites(xml: str) -> dict[str, ET.Element]:
    return {s.get("name", ""): s for s in ET.fromstring(xml).iter("testsuite")}


def cases(suite: ET.Element) -> dict[str, tuple[str, str | None]]:
    """Case name -> (outcome, its message): failure, skipped or passed (no message)."""
    out: dict[str, tuple[str, str | None]] = {}
    for case in suite.iter("testcase"):
        for outcome in ("failure", "skipped"):
            found = case.find(outcome)
            if found is not None:
                out[case.get("name", "")] = (outcome, found.get("message"))
                break
        else:
            out[case.get("name", "")] = ("passed", None)
    return out


def test_the_suggested_policy_and_the_warnings_are_cases(run_cli) -> None:
    # Before: 13 cases, one per quota row, and nothing for the 0/1 WHOLE GROUP DOWN
    # suggestion nor for the warnings the table prints.
    # --together: the three groups' surges at once (by default one group of their cluster
    # at a time, and only the A100 GPUs are short)
    res = run_cli("preflight", "--state", STATE, "--quotas", QUOTAS, "-o", "junit", *START,
                  "--together")
    assert res.exit_code == 1  # cores and A100 GPUs short
    got = suites(res.stdout)
    (suggestion,) = got["preflight suggestions"].iter("testcase")
    assert suggestion.get("name") == f"{GPU} 0/1"
    assert suggestion.findtext("system-out") == (
        f"{GPU}: max_expansion=0 max_unavailable=1: no surge nodes, min ready 0 of 1 node "
        "(0%), 1 cycle; WHOLE GROUP DOWN: every node drained at once, its workloads offline "
        "(fixes compute.instanceA100Gpus.count, compute.instanceCores.count)")
    warnings = got["preflight warnings"]
    assert cases(warnings) == {
        f"current-size-assumed {BATCH}": ("skipped", f"warning: {BATCH}: live node count "
                                                     "unknown; assumed the autoscaler min 1"),
        f"auto-upgrade-window {BATCH}": (
            "skipped", f"warning: {BATCH}: auto_upgrade is on with no maintenance window (any "
                       "time): the service may start its own upgrade of the group during this "
                       "upgrade (from 2026-12-01 10:00 UTC, up to 42 min at 6 min a cycle); set "
                       "maintenance_policy.auto_upgrade = false for the run, or start it "
                       "outside the window")}
    assert (warnings.get("tests"), warnings.get("skipped"), warnings.get("failures")) == (
        "2", "2", "0")
    # the quota cases are as before: the two short ones fail
    failed = [n for n, (o, _) in cases(got[f"preflight {CLOUD}"]).items() if o == "failure"]
    assert failed == ["compute.instanceA100Gpus.count", "compute.instanceCores.count"]


def test_strict_fails_only_the_warnings_that_fail_the_run(run_cli, tmp_path: Path) -> None:
    # batch alone fits; its warnings do not fail `preflight --strict` (exit 0), so no case
    # fails; a quota the file does not list does fail under --strict (exit 1), and its
    # quota-unknown warning case with it.
    ok = run_cli("preflight", "--state", STATE, "--quotas", QUOTAS, "-g", "batch", "--strict",
                 "-o", "junit", *START)
    assert ok.exit_code == 0, ok.stderr
    assert ET.fromstring(ok.stdout).get("failures") == "0"
    assert {n: o for n, (o, _) in cases(suites(ok.stdout)["preflight warnings"]).items()} == {
        f"current-size-assumed {BATCH}": "skipped", f"auto-upgrade-window {BATCH}": "skipped"}
    doc = yaml.safe_load(Path(QUOTAS).read_text())
    del doc[CLOUD]["compute.hddDisks.size"]
    missing = tmp_path / "quotas.yaml"
    missing.write_text(yaml.safe_dump(doc))
    message = (f"cloud {CLOUD}: compute.hddDisks.size is unknown (not listed by the quota "
               "source); its demand is unchecked")
    loose = run_cli("preflight", "--state", STATE, "--quotas", str(missing), "-g", "batch",
                    "-o", "junit", *START)
    assert loose.exit_code == 0
    assert cases(suites(loose.stdout)["preflight warnings"])["quota-unknown"] == (
        "skipped", f"warning (fails with --strict): {message}")
    strict = run_cli("preflight", "--state", STATE, "--quotas", str(missing), "-g", "batch",
                     "--strict", "-o", "junit", *START)
    assert strict.exit_code == 1
    assert cases(suites(strict.stdout)["preflight warnings"])["quota-unknown"] == (
        "failure", message)


def test_a_quota_source_that_lists_none_of_the_quotas_fails_in_every_format(
        run_cli, tmp_path: Path) -> None:
    # the real-13 state (an autoscaled preemptible group) against a file that lists only a
    # quota the surge does not draw on: every demanded row unknown, nothing was checked
    state = str(Path(__file__).parent / "real" / "real-states"
                / "real-13-vitaliy-auto-preemptible-state.json")
    quotas = tmp_path / "q.json"
    quotas.write_text('{"b1gcloudvitaliy49513": {"vpc.networks.count": {"limit": 5, '
                      '"usage": 1}}}')
    said = ("no quota was checked: the source lists none of the 10 quotas the surge draws on")
    text = run_cli("preflight", "--state", state, "--quotas", str(quotas))
    assert text.exit_code == 1
    assert text.stdout.startswith(f"Quota preflight: FAIL: {said}  [")
    assert f"quota preflight failed: {said}" in text.stderr
    as_json = run_cli("preflight", "--state", state, "--quotas", str(quotas), "-o", "json")
    assert as_json.exit_code == 1
    document = yaml.safe_load(as_json.stdout)
    assert (document["ok"], document["checked_nothing"]) == (False, True)
    junit = run_cli("preflight", "--state", state, "--quotas", str(quotas), "-o", "junit")
    assert junit.exit_code == 1
    rows = cases(suites(junit.stdout)["preflight b1gcloudvitaliy49513"])
    assert len(rows) == 10
    assert {outcome for outcome, _ in rows.values()} == {"failure"}
    assert rows["compute.disks.count"][1] == f"compute.disks.count: limit unknown; {said}"
