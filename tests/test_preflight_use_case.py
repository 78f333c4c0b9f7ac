"""The preflight use case (app/preflight.preflight): a request in, a report out, the one error
of a failed check from the report. The gates of the next checks (versions, addresses, canary
health) land here once for preflight, --plan and --cluster; this pins what it returns today on
the example state, plan, quota file and cluster dump."""

from __future__ import annotations

from pathlib import Path

import pytest

from ngupgrade.app.drain_check import DRAIN_HINT, ClusterSource
from ngupgrade.app.preflight import PreflightReport, PreflightRequest, preflight
from ngupgrade.app.settings import Settings
from ngupgrade.core.errors import UsageError

EX = Path(__file__).resolve().parents[1] / "terraform" / "examples"
STATE, QUOTAS = str(EX / "terraform.tfstate"), str(EX / "quotas.yaml")


def test_a_state_s_group_passes_offline_and_names_its_policy_s_source() -> None:
    report = preflight(Settings(state=STATE),
                       PreflightRequest(quotas_file=QUOTAS, selectors=("workers",)))
    assert isinstance(report, PreflightReport)
    assert (report.ok, report.offline, report.selectel, report.gate, report.drain) == (
        True, True, False, None, None)
    assert [(gd.address, gd.extra.policy_source) for gd in report.result.groups] == [
        ("yandex_kubernetes_node_group.workers", "state")]
    assert report.failure() is None


def test_the_drain_chained_after_the_quotas_fails_with_the_one_drain_hint() -> None:
    report = preflight(Settings(state=STATE), PreflightRequest(
        quotas_file=QUOTAS, selectors=("workers",),
        cluster=ClusterSource(files=(str(EX / "cluster.json"),))))
    assert report.result.ok and report.drain is not None and not report.drain.ok
    failure = report.failure()
    assert failure is not None and failure.exit_code == 1
    assert failure.message.startswith("drain check failed: yandex_kubernetes_node_group."
                                      "workers: bare-pod-lost (shop/debug-shell)")
    assert failure.hint == DRAIN_HINT


def test_a_terraform_plan_brings_its_changes_and_refuses_policy_flags() -> None:
    report = preflight(Settings(plan=str(EX / "plan-roll.json")),
                       PreflightRequest(quotas_file=QUOTAS))
    assert report.gate is not None
    assert [c.kind for c in report.gate.changes] == ["none", "roll", "roll"]
    assert report.ok and report.failure() is None
    with pytest.raises(UsageError, match="a Terraform plan brings its own deploy policies"):
        preflight(Settings(plan=str(EX / "plan-roll.json")),
                  PreflightRequest(quotas_file=QUOTAS, max_expansion=1))


def test_which_cloud_is_asked_once_for_every_gate() -> None:
    from ngupgrade.app.quota_check import quota_cloud

    class TwoClouds:
        cloud_ids = ("b1gone", "b1gtwo")

        def single_cloud_id(self) -> None:
            return None

    assert quota_cloud("b1gtwo", TwoClouds(), "q.yaml") == "b1gtwo"
    with pytest.raises(UsageError) as err:
        quota_cloud(None, TwoClouds(), "q.yaml")
    assert err.value.message == "which cloud? the quota file q.yaml holds b1gone, b1gtwo"
    assert err.value.hint == "pass --cloud-id ID"
