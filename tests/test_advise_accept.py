"""``--accept CODE`` reaches the advisor's drain judge: ``ngupgrade advise --accept`` and
``ngupgrade upgrade --schedule advised --accept`` (docs/advise.md, "Workloads and --accept").

The example cluster (terraform/examples/cluster.json) blocks every drain of workers (3 nodes,
fixed) that the quota and the floor allow: a bare pod (bare-pod-lost), a YTsaurus component
below its minimum (ytsaurus-below-min-ready), the checkout PDB (pdb-blocks-eviction, then
forced-stop). quotas.yaml leaves 2 public IPs: max_expansion up to 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._upgrade_helpers import cli, example_cloud
from tests.conftest import EXAMPLE_STATE, EXAMPLES

STATE = str(EXAMPLE_STATE)
CLUSTER = str(EXAMPLES / "cluster.json")
QUOTAS = str(EXAMPLES / "quotas.yaml")
WORKERS = "yandex_kubernetes_node_group.workers"
BLOCKING = ("bare-pod-lost", "ytsaurus-below-min-ready", "forced-stop", "pdb-blocks-eviction")
ACCEPT_ALL = tuple(x for code in BLOCKING for x in ("--accept", code))
ADVISE = ("advise", "--state", STATE, "--quotas", QUOTAS, "--cluster", CLUSTER, "-g", "workers")


def _rejected(group: Any) -> dict[tuple[int, int], list[str]]:
    return {(r["max_expansion"], r["max_unavailable"]): [x["code"] for x in r["reasons"]]
            for r in group["rejected"]}


def test_advise_allows_a_policy_blocked_only_by_accepted_findings(run_cli) -> None:
    # Before: `advise` had no --accept (exit 2), so no policy of workers was ever safe here.
    blocked = run_cli(*ADVISE, "-o", "json")
    assert blocked.exit_code == 1
    group, = blocked.json()["groups"]
    assert group["recommended"] is None
    assert _rejected(group)[(1, 0)] == list(BLOCKING)

    result = run_cli(*ADVISE, *ACCEPT_ALL, "-o", "json")
    assert result.exit_code == 0, result.stderr
    group, = result.json()["groups"]
    rec = group["recommended"]
    # 0/2: 3 nodes, 2 down: 2 cycles, 12 min; 1 node Ready (the floor). 1/2 (1..2 cycles,
    # 6..12 min) is as slow in the worst case and costs a surge node: off the front.
    assert (rec["max_expansion"], rec["max_unavailable"], rec["minutes"]) == (
        0, 2, {"min": 12, "max": 12})
    # what is left blocked is the quota (3 IPs, 2 free; 3 + 3 VMs in workers' spread
    # placement group, 5 at most) and the floor, not the drain
    assert _rejected(group) == {(3, 0): ["quota-short", "quota-short"],
                                (0, 3): ["below-min-available"]}
    assert group["warnings"] == [{
        "code": "drain-finding-accepted",
        "message": "0/2 passes the drain check only because you accepted bare-pod-lost, "
                   "ytsaurus-below-min-ready, forced-stop, pdb-blocks-eviction (4 finding(s); "
                   f"`ngupgrade drain-check -g {WORKERS} --max-expansion 0 --max-unavailable "
                   "2` with the same cluster objects lists them)"}]
    # drain-check at that policy finds exactly those four, and passes with them accepted
    check = run_cli("drain-check", "--state", STATE, "--cluster", CLUSTER, "-g", "workers",
                    "--max-expansion", "0", "--max-unavailable", "2", "-o", "json")
    assert check.exit_code == 1
    codes = [f["code"] for f in check.json()["groups"][0]["findings"]
             if f["severity"] == "blocking"]
    assert sorted(set(codes)) == sorted(BLOCKING)
    assert run_cli("drain-check", "--state", STATE, "--cluster", CLUSTER, "-g", "workers",
                   "--max-expansion", "0", "--max-unavailable", "2",
                   *ACCEPT_ALL).exit_code == 0


def test_advise_still_blocks_on_a_finding_not_accepted(run_cli) -> None:
    result = run_cli(*ADVISE, "--accept", "forced-stop", "-o", "json")
    assert result.exit_code == 1
    group, = result.json()["groups"]
    assert _rejected(group)[(1, 0)] == ["bare-pod-lost", "ytsaurus-below-min-ready",
                                        "pdb-blocks-eviction"]
    text = run_cli(*ADVISE, "--accept", "forced-stop")
    assert "forced-stop:" not in text.stdout
    assert "(after reading a drain finding, --accept CODE proceeds past it)" in text.stderr


def test_advise_refuses_an_unknown_code(run_cli) -> None:
    result = run_cli(*ADVISE, "--accept", "forced-stopp")
    assert result.exit_code == 2
    assert "--accept forced-stopp: not a drain-check finding code" in result.stderr
    assert "did you mean forced-stop?" in result.stderr


def test_upgrade_schedule_advised_passes_accept_to_the_advisor(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The fake cloud of the demo scenario (quotas after the increase): the quotas let workers
    surge 3 (3 VMs, 3 IPs of 4 free), its spread placement group only 2 (3 nodes, 5 VMs at
    most), so once the drain findings are accepted 0/2 (two 6-minute cycles, as fast as 2/0
    and no surge node). Dry run: nothing is sent."""
    monkeypatch.chdir(tmp_path)
    argv = ("-g", "workers", "--version", "1.30", "--schedule", "advised",
            "--cluster", CLUSTER, "-o", "json")
    with example_cloud() as fake:
        code, _, err = cli(fake, monkeypatch, capsys, *argv)
        # Before: the same, --accept or not: the advisor never saw the accepted codes.
        assert code == 1
        assert "no safe deploy policy for yandex_kubernetes_node_group.workers" in err
        code, out, err = cli(fake, monkeypatch, capsys, *argv, *ACCEPT_ALL)
        assert code == 0, err
        assert fake.calls_to("NodeGroupService.Update") == []
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    stage, = [e for e in events if e["event"] == "stage"]
    assert [(g["address"], g["policy"]) for g in stage["groups"]] == [
        (WORKERS, {"max_expansion": 0, "max_unavailable": 2})]


def test_the_demo_cloud_advises_0_2_and_blocks_3_0_on_the_placement_group(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/advise.md's worked example, live: with the four findings accepted, the demo cloud
    (quotas after the increase: 3 IPs of 4 free) advises 0/2, 12 min, as offline; 3/0 is
    blocked by workers' spread placement group alone (3 VMs needed, headroom 2)."""
    from ngupgrade.cli import main

    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    with example_cloud() as fake, pytest.raises(SystemExit) as done:
        main(["advise", "--state", STATE, "--endpoint", fake.endpoint, "--insecure",
              "--cluster", CLUSTER, "-g", "workers", *ACCEPT_ALL, "-o", "json"])
    assert int(done.value.code or 0) == 0
    group, = json.loads(capsys.readouterr().out)["groups"]
    rec = group["recommended"]
    assert (rec["max_expansion"], rec["max_unavailable"], rec["minutes"]) == (
        0, 2, {"min": 12, "max": 12})
    reasons = {(r["max_expansion"], r["max_unavailable"]): [x["message"] for x in r["reasons"]]
               for r in group["rejected"]}
    assert [m.split(": ", 1)[1] for m in reasons[(3, 0)]] == [
        "compute.placementGroupInstances.count (placement group fd8examplespread0001) needs "
        "3 VMs, headroom 2 VMs (short by 1 VM)"]
