"""Six real node-group configurations, written as terraform-provider-yandex writes state, give
their documented figures through the real CLI (``groups``, ``plan`` and ``preflight --quotas``,
``-o json``).

The files are in ``tests/real/real-states/`` (their README says where each configuration comes
from and how its state was written: the provider's flatten functions at commit b52b1df). Every
``*-expected.json`` was computed from docs/upgrade-math.md and docs/quota-preflight.md by a
separate script, not by ngupgrade, and is asserted here exactly as written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent / "real" / "real-states"
CASES = sorted(p.name.removesuffix("-expected.json") for p in HERE.glob("*-expected.json"))


def _files(case: str) -> tuple[str, str, dict[str, Any]]:
    expected = json.loads((HERE / f"{case}-expected.json").read_text())
    return (str(HERE / f"{case}-state.json"), str(HERE / f"{case}-quotas.json"), expected)


def test_every_case_is_here() -> None:
    assert CASES == ["real-01-provider-example", "real-03-yc-k8s-module-ex1",
                     "real-06-lzy-module-gpu-autoscale0", "real-08-otus-v035-oldstate",
                     "real-10-valyanchik-3groups-3-1", "real-13-vitaliy-auto-preemptible"]


@pytest.mark.parametrize("case", CASES)
def test_groups_reads_each_node(run_cli, case: str) -> None:
    state, _, expected = _files(case)
    result = run_cli("groups", "--state", state, "-o", "json")
    assert result.exit_code == 0, result.stderr
    got = {g["address"]: g for g in result.json()["groups"]}
    assert sorted(got) == sorted(g["address"] for g in expected["groups"])
    for want in expected["groups"]:
        assert got[want["address"]]["node"] == want["node"], want["address"]
        assert got[want["address"]]["policy"] == want["policy"], want["address"]


@pytest.mark.parametrize("case", CASES)
def test_plan_gives_the_documented_figures(run_cli, case: str) -> None:
    state, _, expected = _files(case)
    result = run_cli("plan", "--state", state, "-o", "json")
    assert result.exit_code == 0, result.stderr
    got = {g["address"]: g for g in result.json()["groups"]}
    assert sorted(got) == sorted(g["address"] for g in expected["groups"])
    for want in expected["groups"]:
        plan = got[want["address"]]
        figures = {"nodes": plan["nodes"], "surge_nodes": plan["surge_nodes"],
                   "peak_nodes": plan["peak_nodes"],
                   "min_available_nodes": plan["min_available_nodes"],
                   "cycles": plan["cycles"],
                   "duration": {"min_minutes": plan["duration"]["min_minutes"],
                                "max_minutes": plan["duration"]["max_minutes"]}}
        assert figures == want["plan"], want["address"]
        assert plan["policy"] == want["policy"], want["address"]


def _preflight(run_cli, case: str, *argv: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
    state, quotas, expected = _files(case)
    result = run_cli("preflight", "--state", state, "--quotas", quotas, *argv, "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, result.json(), expected


def _rows(doc: dict[str, Any], cloud_id: str) -> list[dict[str, Any]]:
    """The cloud-wide rows the upgrade asks something of (the expected files list those)."""
    (cloud,) = [c for c in doc["clouds"] if c["cloud_id"] == cloud_id]
    return sorted(({k: q[k] for k in ("quota_id", "demand", "headroom", "status", "shortfall")}
                   for q in cloud["quotas"] if q["scope"] is None and q["demand"]),
                  key=lambda q: q["quota_id"])


@pytest.mark.parametrize("case", CASES)
def test_preflight_gives_the_documented_demand_and_verdict(run_cli, case: str) -> None:
    # the expected figures add every group's surge up (groups upgraded together, as the docs
    # counted when they were made): --together; the default counts one group of a Yandex
    # cluster at a time (tests/test_verdicts_together.py)
    code, doc, expected = _preflight(run_cli, case, "--together")
    got = {g["address"]: g for g in doc["groups"]}
    for want in expected["groups"]:
        group = got[want["address"]]
        assert group["cloud_id"] == expected["cloud_id"]
        assert group["extra_nodes"] == want["extra_nodes"], want["address"]
        assert group["per_node"] == want["per_node"], want["address"]
        assert group["demand"] == want["demand"], want["address"]
    assert _rows(doc, expected["cloud_id"]) == expected["quotas_worst_case"]
    assert doc["ok"] is expected["ok_worst_case"]
    assert code == (0 if expected["ok_worst_case"] else 1)


@pytest.mark.parametrize("case", [c for c in CASES
                                  if "quotas_at_current_size" in _files(c)[2]])
def test_preflight_at_current_size(run_cli, case: str) -> None:
    code, doc, expected = _preflight(run_cli, case, "--at-current-size")
    assert _rows(doc, expected["cloud_id"]) == expected["quotas_at_current_size"]
    assert doc["ok"] is expected["ok_at_current_size"]
    assert code == (0 if expected["ok_at_current_size"] else 1)
