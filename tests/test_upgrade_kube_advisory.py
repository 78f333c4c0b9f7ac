"""The Kubernetes side of the live drain watch is advisory: a failed read during the version
update (one 500, a 403 on PDBs, a read timeout) never ends ``upgrade``. It is tried again
with backoff; a read that keeps failing switches that kind off with one warning naming what
is no longer seen, and the cloud operation is followed to its verdict (exit 0).

On the fake cloud through the real SDK, its Kubernetes API (which follows the upgrade) on
loopback through the real client, the fault armed by the scenario's ``kube_error`` once the
version update applied its first step (after the drain gate's reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ngupgrade.core.errors import BadInput
from ngupgrade.testing import Scenario
from tests._upgrade_helpers import example_cloud, run, version_updates

PODS = "/api/v1/pods"
PDBS = "/apis/policy/v1/poddisruptionbudgets"


def upgrade_with(tmp_path: Path, fault: dict[str, Any]) -> tuple[Any, list[Any]]:
    """Upgrade the example ``workers`` to 1.30 with kube access and ``fault``; the outcome
    and the requests the fake Kubernetes API received."""
    with example_cloud(faults=[{"kind": "kube_error", "at_step": 1, **fault}]) as fake:
        kubeconfig = str(fake.write_kubeconfig(tmp_path / "kubeconfig"))
        out = run(fake, tmp_path / "j.json", kubeconfig=kubeconfig)
        assert version_updates(fake) == 1
        assert fake.group("workers").version == "1.30"
        assert fake.kube is not None
        requests = list(fake.kube.requests)
    return out, requests


def degraded(out: Any) -> list[str]:
    return [w.message for w in out.of("warning") if w.code == "kube-watch-degraded"]


def test_one_500_during_the_watch_is_tried_again_and_the_upgrade_ends_well(
        tmp_path: Path) -> None:
    # armed from the test, at the first progress line (FakeKubeApi.fail, as a scenario's
    # kube_error does at its step)
    with example_cloud() as fake:
        kubeconfig = str(fake.write_kubeconfig(tmp_path / "kubeconfig"))
        armed: list[int] = []

        def at_first_progress(event: Any) -> None:
            if event.kind == "progress" and not armed and fake.kube is not None:
                armed.append(len(fake.kube.requests))
                fake.kube.fail(PODS, 500)

        out = run(fake, tmp_path / "j.json", kubeconfig=kubeconfig, hook=at_first_progress)
        assert fake.kube is not None
        requests = fake.kube.requests[armed[0]:]
        assert version_updates(fake) == 1 and fake.group("workers").version == "1.30"
    assert out.code == 0, out.error                                     # was: exit 4
    assert degraded(out) == []                                          # the retry answered
    (verdict,) = out.of("verdict")
    assert verdict.ok and verdict.version == "1.30"                     # type: ignore
    # the watch went on reading pods after the failed call
    watch = [r for r in requests if r.path == PODS and "fieldSelector" in r.query]
    assert len(watch) > 3


def test_a_403_on_pdbs_switches_them_off_with_a_warning_and_the_pods_are_still_read(
        tmp_path: Path) -> None:
    out, requests = upgrade_with(tmp_path, {"path": PDBS, "status": 403, "times": None})
    assert out.code == 0, out.error                                     # was: exit 4
    (message,) = degraded(out)                                          # once, not per poll
    assert message.startswith("the Kubernetes API read failed: http://127.0.0.1:")
    assert f"{PDBS}: 403 Forbidden" in message
    assert "the watch no longer sees the PodDisruptionBudgets that hold pods" in message
    assert "the cloud operation is followed to its verdict" in message
    (verdict,) = out.of("verdict")
    assert verdict.ok                                                   # type: ignore
    failed_at = max(i for i, r in enumerate(requests) if r.path == PDBS)
    assert [r for r in requests[failed_at:] if r.path == PDBS] == [requests[failed_at]]
    assert any(r.path == PODS for r in requests[failed_at + 1:])        # pods still read


def test_a_read_timeout_is_tried_again_then_the_watch_is_cloud_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ngupgrade.upgrade.pods as pods

    monkeypatch.setattr(pods, "WATCH_TIMEOUT", 0.2)     # the fake answers after 0.5 s
    out, requests = upgrade_with(tmp_path, {"path": PODS, "status": None, "delay": 0.5,
                                            "times": None})
    assert out.code == 0, out.error
    (message,) = degraded(out)
    assert "read failed after 3 attempts" in message and "no answer in time" in message
    assert "no longer sees the pods of draining nodes" in message
    assert "the watch is now cloud-only" in message
    (verdict,) = out.of("verdict")
    assert verdict.ok and verdict.version == "1.30" and verdict.nodes == 3   # type: ignore
    tried = [r for r in requests if r.path == PODS and "fieldSelector" in r.query]
    assert len(tried) == 3                           # 3 attempts, once each; then no more


def test_the_scenario_refuses_a_kube_error_that_changes_nothing() -> None:
    with pytest.raises(BadInput, match=r"faults\[0\]\.delay: a kube_error fault with status "
                                       r"null needs delay > 0"):
        Scenario.from_mapping({"faults": [{"kind": "kube_error", "status": None}]}, "s.yaml")
    with pytest.raises(BadInput, match=r"faults\[0\]\.path: expected one of /api/v1/nodes"):
        Scenario.from_mapping({"faults": [{"kind": "kube_error", "path": "/api/v1/pod"}]},
                              "s.yaml")


def test_once_the_pods_are_no_longer_seen_no_drain_event_counts_them(tmp_path: Path) -> None:
    # the pods list answers 403 from step 1 on: the watch is cloud-only; a drain after that
    # cannot say "0 pods left" (it no longer reads them)
    out, _requests = upgrade_with(tmp_path, {"path": PODS, "status": 403, "times": None})
    assert out.code == 0, out.error
    (message,) = degraded(out)
    assert "no longer sees the pods of draining nodes" in message
    warned = next(i for i, e in enumerate(out.events)
                  if e.kind == "warning" and e.code == "kube-watch-degraded")   # type: ignore
    after = [e for e in out.events[warned:] if e.kind == "drain"]
    assert {e.phase for e in after} >= {"started", "finished"}          # type: ignore
    assert [e for e in after if e.phase == "pods_left"] == []           # type: ignore
    (summary,) = out.of("drain_summary")
    assert all("pods_stopped" not in n for n in summary.nodes)          # type: ignore
