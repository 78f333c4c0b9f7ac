"""An attribute that only feeds a warning or a note never makes a state unreadable: the state
is read, and every report that shows the group says what was not checked (``state_notes`` in
JSON, ``note:`` lines on stderr in a table report). What the math needs (scale, deploy policy,
resources, ids) stays bad input, exit 3.

The example state's workers (fixed 3 at 1/0: 3 cycles, 18 minutes) get the damaged attribute;
every other attribute is as terraform-provider-yandex@b52b1df writes it.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ngupgrade.testing import weekly_window
from ngupgrade.testing.fake_cloud import FakeCloud
from tests._tfplan import WORKERS, Edit, edit, plans, write
from tests._tfplan import state as plan_state
from tests.conftest import EXAMPLE_STATE, EXAMPLES

QUOTAS = str(EXAMPLES / "quotas.yaml")
CLUSTER = str(EXAMPLES / "cluster.json")
QUARTER_PAST = {"maintenance_policy": [{"auto_repair": True, "auto_upgrade": True,
                                        "maintenance_window": [
                                            {"day": "monday", "duration": "3h0m0s",
                                             "start_time": "quarter past three"}]}]}
QUARTER_PAST_NOTE = {
    "group": WORKERS,
    "attribute": "maintenance_policy[0].maintenance_window[0].start_time",
    "value": "'quarter past three'",
    "why": "is not a time of day (HH:MM, HH:MM:SS or HH:MM:SS.fffffffff)",
    "not_checked": "auto-upgrade window not checked",
    "message": "auto-upgrade window not checked: maintenance_policy[0].maintenance_window[0]."
               "start_time 'quarter past three' is not a time of day (HH:MM, HH:MM:SS or "
               "HH:MM:SS.fffffffff)"}


def _state(tmp_path: Path, **workers: Any) -> str:
    doc = json.loads(EXAMPLE_STATE.read_text())
    res = next(r for r in doc["resources"] if r.get("name") == "workers")
    res["instances"][0]["attributes"].update(workers)
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    return str(path)


COMMANDS = {
    "groups": ["groups", "-g", "workers"],
    "plan": ["plan", "-g", "workers"],
    "preflight": ["preflight", "-g", "workers", "--quotas", QUOTAS],
    "advise": ["advise", "-g", "workers", "--quotas", QUOTAS],
    "drain-check": ["drain-check", "-g", "workers", "--cluster", CLUSTER],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_report_reads_the_state_and_notes_the_window(run_cli, tmp_path: Path,
                                                           command: str) -> None:
    # Before: exit 3 ("maintenance window start_time ... is not HH:MM") for every command.
    state = _state(tmp_path, **QUARTER_PAST)
    argv = COMMANDS[command]
    plain = run_cli(*argv, "--state", str(EXAMPLE_STATE), "-o", "json")
    result = run_cli(*argv, "--state", state, "-o", "json")
    assert result.exit_code == plain.exit_code, result.stderr
    doc = result.json()
    assert doc.pop("state_notes") == [QUARTER_PAST_NOTE]
    assert plain.json().pop("state_notes") == []
    text = run_cli(*argv, "--state", state)
    assert f"note: {WORKERS}: {QUARTER_PAST_NOTE['message']}\n" in text.stderr


def test_the_plan_figures_do_not_change(run_cli, tmp_path: Path) -> None:
    doc = run_cli("plan", "-g", "workers", "--state", _state(tmp_path, **QUARTER_PAST),
                  "-o", "json").json()
    (group,) = doc["groups"]
    assert (group["nodes"], group["surge_nodes"], group["peak_nodes"]) == (3, 1, 4)
    assert group["duration"]["max_minutes"] == 18


@pytest.mark.parametrize(("attrs", "attribute", "value", "not_checked"), [
    ({"maintenance_policy": [{"auto_repair": True, "auto_upgrade": "yes",
                              "maintenance_window": []}]},
     "maintenance_policy[0].auto_upgrade", "'yes'", "auto-upgrade window not checked"),
    ({"maintenance_policy": [{"auto_repair": True, "auto_upgrade": True, "maintenance_window": [
        {"day": "monday", "duration": 3, "start_time": "15:00:00.000000000"}]}]},
     "maintenance_policy[0].maintenance_window[0].duration", "3",
     "auto-upgrade window not checked"),
    ({"maintenance_policy": {"auto_upgrade": True}},
     "maintenance_policy", '{"auto_upgrade": true}', "auto-upgrade window not checked"),
    ({"labels": ["env", "prod"]}, "labels", '["env", "prod"]', "labels not read"),
    ({"node_labels": {"role": 1}}, "node_labels", '{"role": 1}',
     "not given to the new nodes the drain check models"),
    ({"node_taints": "dedicated=gpu:NoSchedule"}, "node_taints",
     "'dedicated=gpu:NoSchedule'", "not given to the new nodes the drain check models"),
    ({"allocation_policy": [{"location": [{"zone": 7}]}]},
     "allocation_policy[0].location[0].zone", "7", "zonal quotas not checked"),
    ({"version": 1.3}, "version", "1.3", "version not shown"),
    ({"version_info": {"current_version": "1.30"}}, "version_info",
     '{"current_version": "1.30"}', "version not shown"),
    ({"status": ["running"]}, "status", '["running"]', "status not shown"),
])
def test_each_warning_only_attribute_is_noted(run_cli, tmp_path: Path, attrs: dict,
                                              attribute: str, value: str,
                                              not_checked: str) -> None:
    result = run_cli("preflight", "-g", "workers", "--quotas", QUOTAS,
                     "--state", _state(tmp_path, **attrs), "-o", "json")
    assert result.exit_code == 0, result.stderr
    (note,) = result.json()["state_notes"]
    assert (note["attribute"], note["value"], note["not_checked"]) == (attribute, value,
                                                                       not_checked)
    assert note["why"].startswith("is not")


def test_a_placement_policy_not_understood_skips_the_placement_limit(run_cli,
                                                                     tmp_path: Path) -> None:
    doc = json.loads(EXAMPLE_STATE.read_text())
    res = next(r for r in doc["resources"] if r.get("name") == "workers")
    res["instances"][0]["attributes"]["instance_template"][0]["placement_policy"] = [
        {"placement_group_id": 42}]
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    result = run_cli("preflight", "-g", "workers", "--quotas", QUOTAS, "--state", str(path),
                     "-o", "json")
    assert result.exit_code == 0, result.stderr
    (note,) = result.json()["state_notes"]
    assert note["message"] == (
        "placement group limit not checked: instance_template[0].placement_policy[0]."
        "placement_group_id 42 is not what the provider writes (expected `str | null`, got `int`)")


def test_auto_upgrade_off_needs_no_window(run_cli, tmp_path: Path) -> None:
    off = {"maintenance_policy": [{"auto_repair": True, "auto_upgrade": False,
                                   "maintenance_window": [
        {"day": "monday", "duration": "3h0m0s", "start_time": "quarter past three"}]}]}
    result = run_cli("groups", "--state", _state(tmp_path, **off), "-o", "json")
    assert result.json()["state_notes"] == []


@pytest.mark.parametrize(("attrs", "path"), [
    ({"deploy_policy": [{"max_expansion": "2", "max_unavailable": 0}]},
     "deploy_policy[0].max_expansion"),
    ({"scale_policy": [{"fixed_scale": [{"size": "3"}]}]}, "scale_policy[0].fixed_scale[0].size"),
    ({"id": 17}, "attributes.id"),
])
def test_what_the_math_needs_stays_bad_input(run_cli, tmp_path: Path, attrs: dict,
                                             path: str) -> None:
    result = run_cli("plan", "--state", _state(tmp_path, **attrs))
    assert result.exit_code == 3
    assert path in result.stderr


def test_a_plans_prior_state_and_planned_values_are_read_with_notes(run_cli,
                                                                    tmp_path: Path) -> None:
    doc = plan_state()
    res = next(r for r in doc["resources"] if r.get("name") == "workers")
    res["instances"][0]["attributes"].update(QUARTER_PAST)
    plan = plans.build_plan(doc, {WORKERS: Edit(["update"], edit(version="1.30"))})
    path = write(tmp_path, plan)
    result = run_cli("preflight", "--plan", path, "--quotas", QUOTAS, "-o", "json")
    assert result.exit_code in (0, 1), result.stderr  # read: the verdict is the quotas'
    assert [n["message"] for n in result.json()["state_notes"]] == [
        QUARTER_PAST_NOTE["message"]]
    assert run_cli("plan", "--plan", path).exit_code == 0


def test_the_fake_cloud_seeds_from_such_a_state(tmp_path: Path) -> None:
    # what the fake_cloud(state=...) marker and `ngupgrade fake-cloud --state` call
    fake = FakeCloud.from_state(_state(tmp_path, **QUARTER_PAST))
    assert fake.group("workers").id == "cat1ng0fixed0000abcd"



def test_a_plans_after_in_hcl_form_beside_the_providers_before(run_cli, tmp_path: Path) -> None:
    # The state (before) holds the provider's form; the planned after carries what the user
    # typed in HCL for a changed window (the provider reads it with parseDayTime/parseDuration).
    doc = plan_state()
    res = next(r for r in doc["resources"] if r.get("name") == "workers")
    res["instances"][0]["attributes"]["maintenance_policy"] = [
        {"auto_repair": True, "auto_upgrade": True,
         "maintenance_window": [weekly_window("monday", "15:00", timedelta(hours=3))]}]
    hcl = [{"auto_repair": True, "auto_upgrade": True, "maintenance_window": [
        {"day": "FRIDAY", "duration": "4h30m", "start_time": "22:30"}]}]
    plan = plans.build_plan(doc, {WORKERS: Edit(["update"], edit(maintenance_policy=hcl))})
    result = run_cli("preflight", "--plan", write(tmp_path, plan), "--quotas", QUOTAS,
                     "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    assert result.json()["state_notes"] == []


def test_a_cluster_master_not_understood_is_noted_on_its_groups(run_cli, tmp_path: Path) -> None:
    doc = json.loads(EXAMPLE_STATE.read_text())
    cluster = next(r for r in doc["resources"] if r["type"] == "yandex_kubernetes_cluster")
    cluster_id = cluster["instances"][0]["attributes"]["id"]
    cluster["instances"][0]["attributes"]["master"] = {"version": "1.30"}
    path = tmp_path / "state.tfstate"
    path.write_text(json.dumps(doc))
    result = run_cli("groups", "-g", "workers", "--state", str(path), "-o", "json")
    assert result.exit_code == 0, result.stderr
    (note,) = result.json()["state_notes"]
    assert (note["attribute"], note["not_checked"]) == (
        f"master (of yandex_kubernetes_cluster {cluster_id})", "master version not shown")


def test_upgrade_notes_what_it_does_not_check(tmp_path: Path, monkeypatch, capsys) -> None:
    from tests._upgrade_helpers import cli, example_cloud

    state = _state(tmp_path, **QUARTER_PAST)
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--state", state, "-o", "json")
    assert code == 0, err
    notes = [e for e in map(json.loads, out.splitlines()) if e.get("event") == "note"]
    assert {"group": WORKERS, "message": QUARTER_PAST_NOTE["message"]}.items() <= notes[0].items()


def _workers(tmp_path: Path, **attrs: Any) -> Any:
    from ngupgrade.adapters.state.parse import parse_state
    path = _state(tmp_path, **attrs)
    groups = parse_state(Path(path).read_bytes(), path).groups
    return next(g for g in groups if g.name == "workers")


def test_one_bad_taint_keeps_the_good_ones_and_notes_each_bad_one(tmp_path: Path) -> None:
    # node_taints is a list of strings (the provider's schema, TypeList of TypeString)
    workers = _workers(tmp_path, node_taints=["dedicated=gpu:NoSchedule", 5, "nocolon",
                                              "k=v:Bogus", "spot:PreferNoSchedule"])
    assert [(t.key, t.value, t.effect) for t in workers.node_taints] == [
        ("dedicated", "gpu", "NoSchedule"), ("spot", "", "PreferNoSchedule")]
    assert [(n.attribute, n.value) for n in workers.notes] == [
        ("node_taints[1]", "5"), ("node_taints[2]", "'nocolon'"),
        ("node_taints[3]", "'k=v:Bogus'")]


def test_a_window_with_several_bad_fields_notes_each(tmp_path: Path) -> None:
    workers = _workers(tmp_path, maintenance_policy=[{
        "auto_repair": True, "auto_upgrade": True, "maintenance_window": [
            {"day": "someday", "duration": "forever", "start_time": "quarter past three"}]}])
    where = "maintenance_policy[0].maintenance_window[0]"
    assert [n.attribute for n in workers.notes] == [
        f"{where}.start_time", f"{where}.duration", f"{where}.day"]
    assert workers.maintenance is None
