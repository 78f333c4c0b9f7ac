"""core/drain/reactions.py on its own: what evicting a pod loses and what a budget does to a
wave, judged by the platform's drain rules (Yandex: a 420 s drain timeout, then the node is
stopped; Selectel: the upgrade stops). Codes, severities, counts and figures; the wording of
the messages is the reports' business."""

from __future__ import annotations

from ngupgrade.core.drain.eviction import BudgetSpec
from ngupgrade.core.drain.reactions import blocks, losses, slows, whole_group
from ngupgrade.core.k8s import LabelSelector, Pod, PodDisruptionBudget, Volume
from ngupgrade.core.platform import SELECTEL_DRAIN_RULES, YANDEX_DRAIN_RULES

POD = Pod("shop", "web-0", node_name="workers-0000")
PDB = PodDisruptionBudget("shop", "web", LabelSelector({"app": "web"}), min_available=2)


def test_a_plain_pod_loses_nothing() -> None:
    assert losses(POD, subject="g1", local=False, node="workers-0000", wave=1,
                  in_place=False, rules=YANDEX_DRAIN_RULES) == []


def test_emptydir_data_goes_with_the_pod() -> None:
    pod = Pod("shop", "cache-0", volumes=(Volume("scratch", "emptyDir"),))
    (f,) = losses(pod, subject="g1", local=False, node="workers-0001", wave=2, in_place=True,
                  rules=YANDEX_DRAIN_RULES)
    assert (f.code, f.severity, f.wave, f.pod, f.node) == (
        "emptydir-data-lost", "warning", 2, "shop/cache-0", "workers-0001")


def test_a_local_volume_blocks_when_its_node_is_deleted_and_waits_when_updated() -> None:
    deleted, = losses(POD, subject="g1", local=True, node="workers-0000", wave=1,
                      in_place=False, rules=YANDEX_DRAIN_RULES)
    updated, = losses(POD, subject="g1", local=True, node="workers-0000", wave=1,
                      in_place=True, rules=YANDEX_DRAIN_RULES)
    assert (deleted.code, deleted.severity) == ("local-volume-pinned", "blocking")
    assert (updated.code, updated.severity) == ("local-volume-pinned", "warning")


def test_a_grace_period_over_the_420_s_timeout_only_where_the_node_is_force_stopped() -> None:
    slow = Pod("shop", "db-0", termination_grace_seconds=600)
    (f,) = losses(slow, subject="g1", local=False, node="n", wave=1, in_place=False,
                  rules=YANDEX_DRAIN_RULES)
    assert f.code == "grace-period-over-drain-timeout" and "600 > the 420 s" in f.message
    at_limit = Pod("shop", "db-1", termination_grace_seconds=420)
    assert losses(at_limit, subject="g1", local=False, node="n", wave=1, in_place=False,
                  rules=YANDEX_DRAIN_RULES) == []
    assert losses(slow, subject="g1", local=False, node="n", wave=1, in_place=False,
                  rules=SELECTEL_DRAIN_RULES) == []


def test_a_budget_that_slows_a_wave_counts_its_waits() -> None:
    f = slows(PDB, 3, 2, "workers-0002", YANDEX_DRAIN_RULES)
    assert (f.code, f.severity, f.count, f.wave, f.pdb) == (
        "pdb-slows-wave", "warning", 3, 2, "shop/web")
    assert "420 s" in f.message
    assert "420 s" not in slows(PDB, 3, 2, "n", SELECTEL_DRAIN_RULES).message


def test_a_blocking_budget_names_the_pods_left_and_the_platform_reaction() -> None:
    left = [(POD, "workers-0000"), (Pod("shop", "web-1"), "workers-0001")]
    f = blocks(PDB, left, 1, 2, BudgetSpec(expected=3, desired=2), YANDEX_DRAIN_RULES)
    assert (f.code, f.severity, f.count, f.pod, f.node) == (
        "pdb-blocks-eviction", "blocking", 2, "shop/web-0", "workers-0000")
    assert "(2 healthy, 2 required" in f.message and "forced-stop" in f.message
    stop = blocks(PDB, left, 1, 2, BudgetSpec(expected=3, desired=2), SELECTEL_DRAIN_RULES)
    assert "ERROR" in stop.message


def test_a_budget_with_neither_knob_refuses_every_eviction() -> None:
    empty = PodDisruptionBudget("shop", "any", LabelSelector({"app": "web"}))
    f = blocks(empty, [(POD, "workers-0000")], 1, 3, BudgetSpec(expected=0, desired=0),
               YANDEX_DRAIN_RULES)
    assert "allows 0 disruptions whatever is healthy" in f.message


def test_the_whole_group_at_once_is_a_warning_on_its_first_node() -> None:
    f = whole_group("catgroup000000000001", 1, ("workers-0000", "workers-0001"))
    assert (f.code, f.severity, f.node, f.subject) == (
        "whole-group-unavailable", "warning", "workers-0000", "catgroup000000000001")
    assert whole_group("g", 1, ()).node is None
