"""The scenario file of the fake cloud (ngupgrade/testing/scenario.py): every value is checked
against what the fake can do, naming the key and the closest valid value (issue 10 item 11),
and no file makes the loader or the world crash or hang (fuzz)."""

from __future__ import annotations

import math
import string

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ngupgrade.core.errors import BadInput
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import Scenario, VirtualClock, node_group
from ngupgrade.testing.objects import Refusal
from ngupgrade.testing.scenario import FAULT_KEYS, METHODS, SCENARIO_KEYS
from ngupgrade.testing.world import World
from tests.conftest import EXAMPLE_STATE

GID = "catgroup000000000001"


def _world(raw: object) -> World:
    sc = Scenario.from_mapping(raw, source="s.yaml")  # type: ignore[arg-type]
    return World(sc, VirtualClock(), [node_group(GID, size=3, policy=DeployPolicy(1, 0))])


@pytest.mark.parametrize(("raw", "message", "hint"), [
    # the four cases of issue 10 item 11
    ({"faults": [{"kind": "stall", "group": "wrkers"}]},
     "faults[0].group: no node group 'wrkers' in the fake (it holds: workers)",
     "did you mean 'workers'?"),
    ({"faults": [{"kind": "rpc_error", "method": "NodeGroupService.Updat"}]},
     "faults[0].method: expected one of *, " + ", ".join(METHODS) +
     ", found 'NodeGroupService.Updat'", "did you mean 'NodeGroupService.Update'?"),
    ({"faults": [{"kind": "operation_error", "at_step": "1"}]},
     "faults[0].at_step: expected a whole number, found '1'", None),
    ({"node_groups": {"workers": {"policy": {"max_expansion": 1, "max_unavailable": -1}}}},
     "node_groups.workers.policy.max_unavailable: expected a whole number 0..100, found -1",
     None),
    ({"faults": [{"kind": "operation_in_progress", "operation_id": {"a": 1}}]},
     "faults[0].operation_id: expected a string, found a dict", None),
    # codes, counts, ranges, names
    ({"faults": [{"kind": "rpc_error", "code": "unavailable"}]},
     "faults[0].code: expected one of " + ", ".join(
         ["CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
          "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
          "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
          "UNAUTHENTICATED"]) + ", found 'unavailable'", "did you mean 'UNAVAILABLE'?"),
    ({"faults": [{"kind": "operation_error", "code": 0}]},
     "faults[0].code: expected a whole number 1..16, found 0", None),
    ({"faults": [{"kind": "rpc_error", "times": 0}]},
     "faults[0].times: expected a whole number >= 1, found 0", None),
    ({"faults": [{"kind": "stall", "at_step": -1}]},
     "faults[0].at_step: expected a whole number >= 0, found -1", None),
    ({"faults": [{"kind": "operation_error", "at_step": 0}]},
     "faults[0].at_step: expected a whole number >= 1, found 0", None),
    ({"faults": [{"kind": "running_after_update"}]},
     "faults[0].seconds: a running_after_update fault needs seconds > 0 (0 changes nothing)",
     None),
    ({"faults": [{"kind": "reconciling_after_done", "seconds": -5}]},
     "faults[0].seconds: expected a number >= 0, found -5", None),
    ({"faults": [{"kind": "operation_in_progress", "scope": "clustr"}]},
     "faults[0].scope: expected one of node_group, cluster, found 'clustr'",
     "did you mean 'cluster'?"),
    ({"faults": [{"kind": "stall", "at_stp": 2}]},
     "faults[0]: unknown fault keys for kind stall: at_stp (known: at_step, group)",
     "did you mean 'at_step'?"),
    ({"faults": [{"kind": "deadline_after_apply", "method": "NodeGroupService.Get"}]},
     "faults[0]: unknown fault keys for kind deadline_after_apply: method (known: times, "
     "group)", None),
    ({"faults": [{"kind": "operation_in_progress"}, {"kind": "operation_in_progress"}]},
     "faults[1].operation_id: operation op-9 is scripted twice",
     "give each operation_in_progress its own operation_id"),
    ({"faults": {"kind": "stall"}}, "faults: expected a list, found dict", None),
    ({"node_groups": {"wrkers": {"nodes": 4}}},
     "node_groups.wrkers: no node group 'wrkers' in the fake (it holds: workers)",
     "did you mean 'workers'?"),
    ({"node_groups": {"workers": {"nodes": 1001}}},
     "node_groups.workers.nodes: expected a whole number 0..1000, found 1001", None),
    ({"node_groups": {"workers": {"nodes": 2.5}}},
     "node_groups.workers.nodes: expected a whole number, found 2.5", None),
    ({"node_groups": {"workers": {"status": "runing"}}},
     "node_groups.workers.status: expected one of PROVISIONING, RUNNING, RECONCILING, "
     "STOPPING, STOPPED, DELETING, STARTING, found 'RUNING'", "did you mean 'RUNNING'?"),
    ({"node_groups": {"workers": {"version": 1.3}}},
     "node_groups.workers.version: expected a string, found 1.3",
     "quote it: a YAML number loses its trailing zeros (1.30 reads as 1.3)"),
    ({"node_groups": {"workers": {"policy": {"max_expansion": 0, "max_unavailable": 0}}}},
     "node_groups.workers.policy: max_expansion and max_unavailable cannot both be 0 (the API "
     "refuses it)", None),
    ({"node_groups": {"workers": {"policy": {"max_expansion": 2}}}},
     "node_groups.workers.policy: max_unavailable is missing (give both values, or null for an "
     "unset policy)", None),
    ({"clusters": {"catq0n7i0h9ka1b2c3d5": {"status": "RUNNING"}}},
     "clusters.catq0n7i0h9ka1b2c3d5: no cluster 'catq0n7i0h9ka1b2c3d5' in the fake (it holds: "
     "catq0n7i0h9ka1b2c3d4)", "did you mean 'catq0n7i0h9ka1b2c3d4'?"),
    ({"versions": ["1.29", 1.3]}, "versions[1]: expected a string, found 1.3",
     "quote it: a YAML number loses its trailing zeros (1.30 reads as 1.3)"),
    ({"versions": []}, "versions: an empty list offers no version at all",
     "list the versions an Update may ask for, or leave the key out"),
    ({"step_seconds": -1}, "step_seconds: expected a number >= 0, found -1", None),
    ({"policy_seconds": True}, "policy_seconds: expected a number, found True", None),
    ({"clouds": {"c": {"quotas": {"comput.instances.count": {"limit": 5}}}}},
     "clouds.c.quotas.comput.instances.count: quota id 'comput.instances.count' is not of a "
     "service ngupgrade reads (compute, managed-kubernetes, vpc)", "did you mean 'compute'?"),
    ({"clouds": {"c": {"quotas": {"compute.instances.count": {"limit": -1}}}}},
     "clouds.c.quotas.compute.instances.count.limit: expected a number >= 0, found -1", None),
    ({"clouds": {"a": {"folders": ["f1"]}, "b": {"folders": ["f1"]}}},
     "clouds.b.folders[0]: folder f1 is in cloud a already", None),
], ids=lambda v: None)
def test_every_value_is_checked_naming_the_key_and_the_closest_valid_value(raw, message, hint):
    with pytest.raises(BadInput) as err:
        _world(raw)
    assert str(err.value) == f"s.yaml: {message}"
    assert err.value.hint == hint


def test_valid_values_are_read_as_written():
    world = _world({
        "step_seconds": 0, "versions": ["1.29", "1.30"],
        "node_groups": {"yandex_kubernetes_node_group.workers": {
            "nodes": 0, "status": "stopped", "policy": None}},
        "clusters": {"catq0n7i0h9ka1b2c3d4": {"status": "reconciling"}},
        "faults": [{"kind": "rpc_error", "code": 14, "times": None, "group": "workers"},
                   {"kind": "operation_error", "code": "ABORTED", "at_step": 2},
                   {"kind": "stall", "at_step": 0},
                   {"kind": "operation_in_progress", "operation_id": "op-a", "polls": 0,
                    "times": 0}]})
    g = world.groups[GID]
    assert (g.nodes, g.status, g.policy) == (0, "STOPPED", None)
    assert world.clusters["catq0n7i0h9ka1b2c3d4"]["status"] == "RECONCILING"
    assert [(f.kind, f.code, f.times) for f in world.faults[:2]] == [
        ("rpc_error", 14, None), ("operation_error", "ABORTED", 1)]


def test_every_method_a_fault_may_name_is_served():
    """METHODS (what the scenario accepts) is exactly what the servicers serve."""
    from ngupgrade.testing.servicers import Services

    served = Services(_world(None), [], lambda: "127.0.0.1:1").served()
    assert sorted(served) == sorted(METHODS)


def test_a_fault_added_later_is_checked_against_the_groups_too():
    world = _world(None)
    with pytest.raises(BadInput, match="fault group 'wrkers' names no node group") as err:
        world.add_fault({"kind": "stall", "group": "wrkers"})
    assert err.value.hint == "did you mean 'workers'?"


def test_fake_cloud_command_exits_3_on_a_bad_value(run_cli, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("faults:\n  - {kind: rpc_error, method: NodeGroupService.Updat}\n")
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--scenario", str(path))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0].startswith(f"error: {path}: faults[0].method: ")
    assert result.stderr.splitlines()[1] == "hint: did you mean 'NodeGroupService.Update'?"


# -- fuzz ----------------------------------------------------------------------------------------

_junk = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.integers(), st.just(10 ** 400),
    st.floats(allow_nan=True, allow_infinity=True), st.text(string.printable, max_size=8),
    st.sampled_from(["RUNNING", "workers", "1.30", "NodeGroupService.Update", "UNAVAILABLE",
                     "cluster", "op-1", "*", GID]),
    st.lists(st.integers(0, 3), max_size=2), st.dictionaries(st.text(max_size=3),
                                                             st.integers(), max_size=2))


def _mapping(keys: tuple[str, ...]) -> st.SearchStrategy[dict]:
    return st.dictionaries(st.one_of(st.sampled_from(keys), st.text(max_size=4)), _junk,
                           max_size=len(keys) + 1)


_fault = st.builds(lambda kind, rest: {"kind": kind, **rest},
                   st.one_of(st.sampled_from(list(FAULT_KEYS)), _junk),
                   _mapping(("method", "code", "message", "times", "at_step", "seconds",
                             "polls", "operation_id", "description", "group", "scope")))
_scenario = st.one_of(_junk, st.fixed_dictionaries({}, optional={
    "step_seconds": _junk, "policy_seconds": _junk, "versions": st.one_of(_junk, st.lists(_junk)),
    "clouds": st.dictionaries(st.text(max_size=3), st.fixed_dictionaries({}, optional={
        "folders": st.one_of(_junk, st.lists(_junk, max_size=2)),
        "quotas": st.dictionaries(st.sampled_from(["compute.instances.count", "x"]),
                                  st.one_of(_junk, _mapping(("limit", "usage"))))}),
        max_size=2),
    "clusters": st.dictionaries(st.sampled_from(["catq0n7i0h9ka1b2c3d4", "c"]),
                                st.one_of(_junk, _mapping(("folder_id", "status",
                                                           "master_version")))),
    "node_groups": st.dictionaries(st.sampled_from(["workers", GID, "w"]), st.one_of(
        _junk, _mapping(("nodes", "status", "version")),
        st.fixed_dictionaries({"policy": st.one_of(_junk, _mapping(("max_expansion",
                                                                     "max_unavailable")))}))),
    "faults": st.one_of(_junk, st.lists(st.one_of(_fault, _junk), max_size=3)),
    "extra": _junk}))


@settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_scenario)
def test_fuzz_any_scenario_is_read_or_refused_and_the_world_never_crashes_or_hangs(raw):
    """No exit 70: the only error is BadInput; a scenario that loads drives an upgrade of its
    world to the end (or to its scripted stall) in bounded time."""
    try:
        world = _world(raw)
    except BadInput:
        return
    try:
        op = world.update(GID, version="1.30", max_expansion=1, max_unavailable=1)
    except Refusal:
        return
    for _ in range(10):
        world.clock.advance(max(world.scenario.step_seconds, 1.0) * 400)
        world.tick()
    assert op.done or op.applied <= 3 * 1000 + 1
    assert math.isfinite(world.clock.now())


@settings(max_examples=150, deadline=2000)
@given(text=st.text(max_size=60))
def test_fuzz_scenario_text_is_read_or_refused(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("s") / "s.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        Scenario.load(str(path))
    except BadInput as err:
        assert "\n" not in str(err)


def test_yaml_of_the_demo_scenario_is_still_valid():
    sc = Scenario.load(str(EXAMPLE_STATE.parent / "scenario.yaml"))
    assert sc.step_seconds == 60 and sc.versions == ["1.29", "1.30"]
    assert yaml.safe_load((EXAMPLE_STATE.parent / "scenario.yaml").read_text())
    assert set(SCENARIO_KEYS) >= set(yaml.safe_load(
        (EXAMPLE_STATE.parent / "scenario.yaml").read_text()))


def test_binary_scenario_file_is_bad_input(run_cli, tmp_path) -> None:
    # Before: UnicodeDecodeError was not caught (fake-cloud --scenario exited 70).
    from ngupgrade.core.errors import BadInput
    from ngupgrade.testing.scenario import Scenario

    path = tmp_path / "scenario.yaml"
    path.write_bytes(b"\xff\xfe\x00faults: []")
    with pytest.raises(BadInput) as err:
        Scenario.load(str(path))
    assert str(err.value) == f"{path}: scenario is not UTF-8 text (byte 0xff at offset 0)"
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--scenario", str(path))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == f"error: {err.value}"


_KNOWN = ("step_seconds, policy_seconds, versions, clouds, clusters, node_groups, faults, "
          "workloads")


@pytest.mark.parametrize(("raw", "message", "hint"), [
    ({"fault": [{"kind": "stall", "at_step": 1}]},
     f"unknown key 'fault' in scenario (known: {_KNOWN})", "did you mean 'faults'?"),
    ([], f"scenario must be a mapping of {_KNOWN}, found list", None),
    ({"faults": [], "nodegroups": {}, "x": 1},
     f"unknown keys 'nodegroups', 'x' in scenario (known: {_KNOWN})",
     "did you mean 'node_groups'?"),
    ({"node_groups": {"workers": {"node": 4}}},
     "unknown key 'node' in node_groups.workers (known: nodes, status, version, policy, "
     "history)",
     "did you mean 'nodes'?"),
    ({"node_groups": {"workers": {"policy": {"max_surge": 1, "max_unavailable": 0}}}},
     "unknown key 'max_surge' in node_groups.workers.policy (known: max_expansion, "
     "max_unavailable)", None),
    ({"clouds": {"b1g": {"quota": {}}}},
     "unknown key 'quota' in clouds.b1g (known: folders, quotas)", "did you mean 'quotas'?"),
    ({"clouds": {"b1g": {"quotas": {"compute.instances.count": {"limt": 5}}}}},
     "unknown key 'limt' in clouds.b1g.quotas.compute.instances.count (known: limit, usage)",
     "did you mean 'limit'?"),
    ({"clusters": {"cat": {"version": "1.30"}}},
     "unknown key 'version' in clusters.cat (known: folder_id, master_version, status)",
     "did you mean 'master_version'?"),
], ids=["typo", "list", "several", "group", "policy", "cloud", "quota", "cluster"])
def test_scenario_refuses_what_it_does_not_understand(raw: object, message: str,
                                                      hint: str | None) -> None:
    # Before: unknown keys were ignored, so a typo ('fault:' for 'faults:') silently ran a
    # runbook test without its fault; a list instead of a mapping (`[]`) was accepted too.
    from ngupgrade.core.errors import BadInput
    from ngupgrade.testing.scenario import Scenario

    with pytest.raises(BadInput) as err:
        Scenario.from_mapping(raw, source="scenario.yaml")  # type: ignore[arg-type]
    assert str(err.value) == f"scenario.yaml: {message}"
    assert err.value.hint == hint


@pytest.mark.parametrize(("raw", "message"), [
    ({"step_seconds": float("nan")}, "step_seconds: expected a finite number, found nan"),
    ({"policy_seconds": float("inf")}, "policy_seconds: expected a finite number, found inf"),
    ({"clouds": {"b1g": {"quotas": {"compute.instances.count": {"limit": float("inf")}}}}},
     "clouds.b1g.quotas.compute.instances.count.limit: expected a finite number, found inf"),
    ({"clouds": {"b1g": {"quotas": {"compute.instances.count": {"usage": 10 ** 400}}}}},
     "clouds.b1g.quotas.compute.instances.count.usage: expected a finite number, found an "
     "integer of 401 digits"),
], ids=["nan-step", "inf-policy", "inf-limit", "huge-usage"])
def test_scenario_numbers_must_be_finite(raw: object, message: str) -> None:
    # Before: nan/inf went into the virtual clock and quotas; 10**400 raised OverflowError.
    from ngupgrade.core.errors import BadInput
    from ngupgrade.testing.scenario import Scenario

    with pytest.raises(BadInput) as err:
        Scenario.from_mapping(raw, source="scenario.yaml")  # type: ignore[arg-type]
    assert str(err.value) == f"scenario.yaml: {message}"


def test_deeply_nested_scenario_is_bad_input(tmp_path) -> None:
    # Before: yaml.safe_load raised RecursionError (fake-cloud --scenario exited 70).
    from ngupgrade.core.errors import BadInput
    from ngupgrade.testing.scenario import Scenario

    path = tmp_path / "scenario.yaml"
    path.write_text("faults: " + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(BadInput) as err:
        Scenario.load(str(path))
    assert str(err.value) == f"{path}: nested more than 100 levels deep (no real document is)"


def test_empty_scenario_is_all_defaults(run_cli, tmp_path) -> None:
    from ngupgrade.testing.scenario import Scenario

    path = tmp_path / "scenario.yaml"
    path.write_text("# nothing yet\n")
    assert Scenario.load(str(path)) == Scenario()
    path.write_text("fault:\n  - {kind: stall, at_step: 1}\n")
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--scenario", str(path))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines() == [
        f"error: {path}: unknown key 'fault' in scenario (known: {_KNOWN})",
        "hint: did you mean 'faults'?"]


def test_scenario_that_is_not_yaml_is_one_line(tmp_path) -> None:
    from ngupgrade.core.errors import BadInput
    from ngupgrade.testing.scenario import Scenario

    path = tmp_path / "scenario.yaml"
    path.write_text("faults: [\n")
    with pytest.raises(BadInput) as err:
        Scenario.load(str(path))
    assert str(err.value) == (f"{path}: scenario is not YAML: did not find expected node "
                              "content at line 2, column 1 (while parsing a flow node from "
                              "line 2)")
