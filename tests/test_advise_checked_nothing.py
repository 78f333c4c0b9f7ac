"""``advise`` with a quota source that lists none of the quotas the surge draws on fails as
``preflight`` does (exit 1, "no quota was checked"): no policy is recommended as fitting a
quota nothing was checked against (docs/advise.md)."""

from __future__ import annotations

from pathlib import Path

STATE = str(Path(__file__).parent / "real" / "real-states"
            / "real-13-vitaliy-auto-preemptible-state.json")
SAID = "no quota was checked: the source lists none of the 10 quotas the surge draws on"


def test_advise_fails_when_the_quota_source_lists_none(run_cli, tmp_path: Path) -> None:
    # the real-13 state (an autoscaled preemptible group) against a file that lists only a
    # quota the surge does not draw on, as in test_preflight_junit
    quotas = tmp_path / "q.json"
    quotas.write_text('{"b1gcloudvitaliy49513": {"vpc.networks.count": {"limit": 5, '
                      '"usage": 1}}}')
    preflight = run_cli("preflight", "--state", STATE, "--quotas", str(quotas))
    assert preflight.exit_code == 1 and SAID in preflight.stderr
    for fmt in ("table", "json"):
        advised = run_cli("advise", "--state", STATE, "--quotas", str(quotas), "-o", fmt)
        assert advised.exit_code == 1, advised.stdout
        assert f"quota preflight failed: {SAID}" in advised.stderr
        assert "export their limits into the quota file" in advised.stderr
        assert "recommended" not in advised.stdout and "fits" not in advised.stdout


def test_a_file_that_lists_the_quotas_still_advises(run_cli, tmp_path: Path) -> None:
    quotas = tmp_path / "q.json"
    quotas.write_text('{"b1gcloudvitaliy49513": {"compute.instances.count": {"limit": 100, '
                      '"usage": 6}}}')
    advised = run_cli("advise", "--state", STATE, "--quotas", str(quotas))
    assert advised.exit_code == 0, advised.stderr
    assert "recommended: 6/0" in advised.stdout
