"""Reading node groups from Terraform state: v4, show -json, and the field reports C06, C07, C09."""

from __future__ import annotations

import copy
import json

import pytest

from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.core.errors import BadInput
from ngupgrade.core.k8s import Taint
from ngupgrade.core.model import GIB, AutoScale, BootDisk, DeployPolicy, FixedScale
from ngupgrade.testing import TfState, yandex_node_group
from tests.conftest import EXAMPLE_SHOW_JSON, EXAMPLE_STATE
from tests.state_docs import FIXED_SCALE, state_doc


def _state(resources: list[dict]) -> bytes:
    return json.dumps({"version": 4, "terraform_version": "1.9.8", "serial": 1,
                       "lineage": "x", "outputs": {}, "resources": resources}).encode()


def _ng(attributes: dict, **instance: object) -> dict:
    return {"mode": "managed", "type": "yandex_kubernetes_node_group", "name": "ng",
            "provider": 'provider["registry.terraform.io/yandex-cloud/yandex"]',
            "instances": [{"schema_version": 0, "attributes": attributes, **instance}]}


def test_example_state_has_three_groups_with_exact_values() -> None:
    parsed = parse_state(EXAMPLE_STATE.read_bytes(), "example")
    by_name = {g.name: g for g in parsed.groups}
    assert [str(g.address) for g in parsed.groups] == [
        "yandex_kubernetes_node_group.gpu",
        "yandex_kubernetes_node_group.workers",
        'module.pools["prod"].yandex_kubernetes_node_group.this["batch"]',
    ]
    workers = by_name["workers"]
    assert workers.id == "cat1ng0fixed0000abcd"
    assert workers.cluster_id == "catq0n7i0h9ka1b2c3d4"
    assert workers.folder_id == "b1gexamplefolder00001"
    assert workers.master_version == "1.30"
    assert workers.version == "1.29"
    assert workers.policy == DeployPolicy(1, 0)
    assert workers.scale == FixedScale(3)
    assert workers.node is not None
    assert workers.node.memory_bytes == 16 * GIB == 17179869184
    assert workers.node.boot_disk == BootDisk("network-ssd", 64 * GIB)
    assert workers.node.nat is True
    batch = by_name["batch"]
    assert batch.scale == AutoScale(min=1, max=7, initial=1)
    assert batch.node is not None and batch.node.preemptible and batch.node.core_fraction == 50
    gpu = by_name["gpu"]
    # no deploy_policy in HCL: the provider stores the API's default 3/0
    assert gpu.policy == DeployPolicy(3, 0)
    assert gpu.node is not None and gpu.node.gpus == 1
    assert gpu.node.platform_id == "gpu-standard-v3"
    assert parsed.skipped == 0


def test_show_json_gives_the_same_groups_as_raw_state() -> None:
    raw = parse_state(EXAMPLE_STATE.read_bytes(), "raw")
    shown = parse_state(EXAMPLE_SHOW_JSON.read_bytes(), "show")
    assert shown.format == "show-json" and raw.format == "v4"
    assert sorted(shown.groups, key=lambda g: g.id) == sorted(raw.groups, key=lambda g: g.id)


# ---- C06: a missing, computed or empty deploy_policy -------------------------------------

def _group(**template: object) -> dict:
    """One group as the provider writes it: fixed 4, 2 cores, 4 GB, NAT on its interface."""
    return yandex_node_group(id="ng-c06", fixed=4, cores=2, memory=4, nat=True, **template)


C06_ATTRS = {k: v for k, v in _group().items() if k != "deploy_policy"}
"""No ``deploy_policy`` attribute: provider v0.35.0 had none (tests/real/real-states case 08)."""


def _with_resources(resources: dict) -> dict:
    """C06_ATTRS with the template's ``resources`` block replaced (values no provider writes)."""
    attrs = copy.deepcopy(C06_ATTRS)
    attrs["instance_template"][0]["resources"] = [resources]
    return attrs


@pytest.mark.parametrize("variant", ["empty-list", "absent", "null"])
def test_c06_unset_deploy_policy_is_not_zero(variant: str) -> None:
    attrs = dict(C06_ATTRS)
    if variant == "empty-list":
        attrs["deploy_policy"] = []
    elif variant == "null":
        attrs["deploy_policy"] = None
    group = parse_state(_state([_ng(attrs)]), "c06").groups[0]
    assert group.policy is None
    assert group.scale == FixedScale(4)
    assert group.node is not None
    assert group.node.nat is True  # from network_interface[0].nat; the template's is false
    assert group.node.cores == 2 and group.node.memory_bytes == 4 * GIB


def test_c06_explicit_policy_is_read() -> None:
    attrs = dict(C06_ATTRS, deploy_policy=[{"max_expansion": 3, "max_unavailable": 0}])
    assert parse_state(_state([_ng(attrs)]), "c06").groups[0].policy == DeployPolicy(3, 0)


# ---- C07: for_each string keys, module paths, keys with dots; data sources -----------------

def _c07_state() -> bytes:
    state = TfState()
    for key, ng, policy, gpus in (("cpu", "ng-1", (1, 0), 0), ("gpu.v100", "ng-2", (0, 1), 1)):
        state.add("yandex_kubernetes_node_group", "ng", yandex_node_group(
            id=ng, fixed=3 if gpus == 0 else 1, deploy=policy, gpus=gpus),
            module='module.k8s["prod"]', index_key=key)
    # the data source flattens the same function (data_source_yandex_kubernetes_node_group.go)
    state.add("yandex_kubernetes_node_group", "lookup", {**yandex_node_group(id="ng-1"),
                                                         "node_group_id": "ng-1"}, mode="data")
    return json.dumps(state.to_v4()).encode()


def test_c07_for_each_keys_and_modules() -> None:
    parsed = parse_state(_c07_state(), "c07")
    assert [str(g.address) for g in parsed.groups] == [
        'module.k8s["prod"].yandex_kubernetes_node_group.ng["cpu"]',
        'module.k8s["prod"].yandex_kubernetes_node_group.ng["gpu.v100"]',
    ]
    assert [g.policy for g in parsed.groups] == [DeployPolicy(1, 0), DeployPolicy(0, 1)]
    assert parsed.skipped == 1  # the data source, not counted twice
    assert [g.scale for g in parsed.groups] == [FixedScale(3), FixedScale(1)]
    assert parsed.groups[1].node is not None and parsed.groups[1].node.gpus == 1


def test_count_keys_are_ints_and_deposed_objects_are_skipped() -> None:
    state = TfState()
    for key, ng, deposed, tainted in ((0, "a", None, False), (0, "old", "00000001", False),
                                      (1, "b", None, True)):
        state.add("yandex_kubernetes_node_group", "ng", yandex_node_group(id=ng, fixed=2),
                  index_key=key, deposed=deposed, tainted=tainted)
    parsed = parse_state(json.dumps(state.to_v4()).encode(), "count")
    assert [(str(g.address), g.tainted) for g in parsed.groups] == [
        ("yandex_kubernetes_node_group.ng[0]", False),
        ("yandex_kubernetes_node_group.ng[1]", True),
    ]
    assert parsed.skipped == 1


# ---- C09: state format versions ------------------------------------------------------------

V3_STATE = {"version": 3, "modules": [{"path": ["root", "k8s"], "resources": {
    "yandex_kubernetes_node_group.ng.1": {"type": "yandex_kubernetes_node_group", "primary": {
        "id": "<ng-id>", "attributes": {
            "deploy_policy.#": "1", "deploy_policy.0.max_expansion": "3",
            "deploy_policy.0.max_unavailable": "0", "scale_policy.0.fixed_scale.0.size": "2"}}}}}]}


def test_c09_v3_is_refused_with_version_and_remedy() -> None:
    with pytest.raises(BadInput) as err:
        parse_state(json.dumps(V3_STATE).encode(), "old.tfstate")
    assert "unsupported state version 3" in str(err.value)
    assert "old.tfstate" in str(err.value)
    assert err.value.hint is not None and "0.12" in err.value.hint
    assert err.value.exit_code == 3


def test_c09_v5_is_refused_naming_the_version() -> None:
    with pytest.raises(BadInput, match="unknown state version 5"):
        parse_state(b'{"version": 5, "resources": {"new": "shape"}}', "future.tfstate")


def test_c09_v4_parses() -> None:
    assert parse_state(b'{"version": 4, "resources": []}', "empty").groups == ()


# ---- bad input: one line with file and JSON path --------------------------------------------

@pytest.mark.parametrize(("data", "message", "path"), [
    (b"", "empty input", None),
    (b"{not json", "not valid JSON", "$"),
    (EXAMPLE_STATE.read_bytes()[:5000], "not valid JSON", "$"),
    (b"[1, 2]", "Expected `object`", "$"),
    (b'{"serial": 1}', 'no "version" key', "$"),
])
def test_bad_documents(data: bytes, message: str, path: str | None) -> None:
    with pytest.raises(BadInput) as err:
        parse_state(data, "f.tfstate")
    assert message in str(err.value)
    assert str(err.value).startswith("f.tfstate")
    assert err.value.path == path


def test_a_byte_of_another_encoding_is_named_with_its_offset_in_the_whole_file() -> None:
    """The byte sits inside ``resources`` (decoded later, as a slice): the offset and line
    are still the file's, not the slice's."""
    data = EXAMPLE_STATE.read_bytes()
    at = data.index(b'"workers"') + 2
    bad = data[:at] + "ö".encode("latin-1") + data[at + 1:]
    with pytest.raises(BadInput) as err:
        parse_state(bad, "f.tfstate")
    line = data.count(b"\n", 0, at) + 1
    assert str(err.value).startswith(
        f"f.tfstate: $: not UTF-8 text at byte offset {at} (line {line}): byte F6 is not UTF-8")
    assert "iconv -f WINDOWS-1251 -t UTF-8 f.tfstate > f.utf8.tfstate" in (err.value.hint or "")


def test_a_lone_surrogate_escape_is_named_not_called_truncated() -> None:
    data = EXAMPLE_STATE.read_bytes()
    at = data.index(b'"workers"') + 1
    bad = data[:at] + b"\\udc80" + data[at:]
    with pytest.raises(BadInput) as err:
        parse_state(bad, "f.tfstate")
    assert f"not text at byte offset {at} " in str(err.value)
    assert str(err.value).endswith("\\udc80")
    assert "terraform state pull > state.json" in (err.value.hint or "")


def test_wrong_type_names_the_json_path() -> None:
    attrs = _with_resources({"cores": "4", "memory": 4})
    with pytest.raises(BadInput) as err:
        parse_state(_state([_ng(attrs)]), "s.tfstate")
    assert err.value.path == "$.resources[0].instances[0].attributes.instance_template[0]" \
                             ".resources[0].cores"
    assert "Expected `int`, got `str`" in str(err.value)


def test_missing_id_and_missing_scale_policy_are_errors() -> None:
    with pytest.raises(BadInput, match="missing required field `id`"):
        parse_state(_state([_ng({"scale_policy": []})]), "s")
    with pytest.raises(BadInput, match="has no scale_policy") as err:
        parse_state(_state([_ng({"id": "x", "scale_policy": []})]), "s")
    assert err.value.path == "$.resources[0].instances[0].attributes.scale_policy"


def test_memory_may_be_fractional_gb() -> None:
    attrs = _with_resources({"cores": 2, "memory": 0.5})
    group = parse_state(_state([_ng(attrs)]), "s").groups[0]
    assert group.node is not None and group.node.memory_bytes == 536870912


def test_node_labels_and_taints_are_read_for_the_surge_nodes() -> None:
    attrs = dict(C06_ATTRS, node_labels={"pool": "batch"},
                 node_taints=["dedicated=batch:NoSchedule", "spot:PreferNoSchedule"])
    group = parse_state(_state([_ng(attrs)]), "s").groups[0]
    assert group.node_labels == {"pool": "batch"}
    assert group.node_taints == (Taint("dedicated", "NoSchedule", "batch"),
                                 Taint("spot", "PreferNoSchedule", ""))
    example = {g.name: g for g in parse_state(EXAMPLE_STATE.read_bytes(), "x").groups}
    assert example["batch"].node_taints == (Taint("dedicated", "NoSchedule", "batch"),)
    assert example["workers"].node_taints == ()
    assert example["workers"].node_labels == {"role": "workers"}
    assert example["gpu"].node_labels == {"accelerator": "a100"}


def test_a_bad_node_taint_is_left_out_and_noted() -> None:
    # Before: bad input (exit 3) for every command, though only the drain check's model of the
    # new nodes reads the taints.
    attrs = dict(C06_ATTRS, node_taints=["dedicated=batch:Sometimes", "gpu=yes:NoSchedule"])
    (group,) = parse_state(_state([_ng(attrs)]), "s.tfstate").groups
    assert group.node_taints == (Taint("gpu", "NoSchedule", "yes"),)
    assert [n.message for n in group.notes] == [
        "not given to the new nodes the drain check models: node_taints[0] "
        "'dedicated=batch:Sometimes' is not key=value:Effect with Effect one of NoSchedule, "
        "PreferNoSchedule, NoExecute"]


@pytest.mark.parametrize(("label", "doc", "where"), [
    ("negative fixed size", state_doc({"fixed_scale": [{"size": -3}]}), "fixed_scale[0].size"),
    ("fixed size beyond a cluster", state_doc({"fixed_scale": [{"size": 10**6}]}),
     "fixed_scale[0].size"),
    ("fixed size beyond int64", state_doc({"fixed_scale": [{"size": 2**64}]}),
     "fixed_scale[0].size"),
    ("negative autoscaler min", state_doc({"auto_scale": [{"min": -1, "max": 3, "initial": 1}]}),
     "auto_scale[0].min"),
    ("autoscaler min above max", state_doc({"auto_scale": [{"min": 5, "max": 2, "initial": 5}]}),
     "auto_scale[0]"),
    ("memory 1e400 GB (inf)", state_doc(FIXED_SCALE, {"cores": 2, "memory": 1e400}),
     "resources[0].memory"),
    ("negative memory", state_doc(FIXED_SCALE, {"cores": 2, "memory": -4}), "resources[0].memory"),
    ("negative cores", state_doc(FIXED_SCALE, {"cores": -2, "memory": 4}), "resources[0].cores"),
])
@pytest.mark.parametrize("command", ["groups", "plan", "preflight"])
def test_impossible_values_in_state_are_bad_input(
        run_cli, tmp_path, label: str, doc: bytes, where: str, command: str) -> None:
    # Before: a negative size crashed plan (exit 70), memory 1e400 crashed groups (exit 70),
    # a size of 10**6 took 30 s and 480 MB of JSON, 10**30 was killed for memory.
    state = tmp_path / "bad.tfstate"
    state.write_bytes(doc.replace(b"Infinity", b"1e400"))
    args = [command, "--state", str(state)]
    if command == "preflight":
        quotas = tmp_path / "q.yaml"
        quotas.write_text("cl: {compute.instances.count: {limit: 10, usage: 1}}\n")
        args += ["--quotas", str(quotas)]
    result = run_cli(*args)
    assert result.exit_code == 3, (label, result.stderr)
    assert where in result.stderr, label
    assert result.stderr.startswith(f"error: {state}: $.resources[0]"), result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize("doc", [
    b'{"version": 4, "resources": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    b'{"format_version": "1.0", "values": {"root_module": '
    + b'{"resources": [], "child_modules": [' * 5000 + b"]}" * 5000 + b"}}",
], ids=["v4", "show-json"])
def test_deeply_nested_state_is_bad_input(run_cli, tmp_path, doc: bytes) -> None:
    # Before: RecursionError, exit 70.
    state = tmp_path / "deep.tfstate"
    state.write_bytes(doc)
    result = run_cli("groups", "--state", str(state))
    assert result.exit_code == 3, result.stderr
    assert "nested too deeply" in result.stderr


def test_node_group_with_only_flat_attributes_is_not_silently_dropped(run_cli, tmp_path) -> None:
    # Before: a v4 state upgraded from v3 and never refreshed keeps "attributes_flat"; the node
    # group vanished and `groups` said "no yandex_kubernetes_node_group resources" (C09's kind:
    # a silent misread).
    import json

    doc = {"version": 4, "terraform_version": "0.12.31", "resources": [{
        "mode": "managed", "type": "yandex_kubernetes_node_group", "name": "ng",
        "instances": [{"schema_version": 0, "attributes_flat": {
            "id": "catng", "scale_policy.0.fixed_scale.0.size": "3"}}]}]}
    state = tmp_path / "flat.tfstate"
    state.write_text(json.dumps(doc))
    result = run_cli("groups", "--state", str(state))
    assert result.exit_code == 3, result.stdout
    assert "yandex_kubernetes_node_group.ng has only attributes_flat" in result.stderr
    assert "$.resources[0].instances[0].attributes_flat" in result.stderr


# ---- one reading per address (issue 11 item 6) --------------------------------------------------

def _two_workers(tmp_path, *, same_resource: bool) -> tuple[str, str]:
    """The example state with `workers` held twice, sizes 3 and 7: as a second resource block,
    or as a second instance of the one block. Returns (state path, second instance's path)."""
    doc = json.loads(EXAMPLE_STATE.read_text())
    index = next(i for i, r in enumerate(doc["resources"]) if r.get("name") == "workers"
                 and r["type"] == "yandex_kubernetes_node_group")
    workers = doc["resources"][index]
    twin = json.loads(json.dumps(workers["instances"][0]))
    twin["attributes"]["scale_policy"][0]["fixed_scale"][0]["size"] = 7
    if same_resource:
        workers["instances"].append(twin)
        where = f"$.resources[{index}].instances[1].attributes"
    else:
        doc["resources"].append({**workers, "instances": [twin]})
        where = f"$.resources[{len(doc['resources']) - 1}].instances[0].attributes"
    path = tmp_path / "twice.tfstate"
    path.write_text(json.dumps(doc))
    return str(path), where


@pytest.mark.parametrize("same_resource", [False, True], ids=["two blocks", "two instances"])
def test_an_address_held_twice_is_bad_input(run_cli, tmp_path, same_resource: bool) -> None:
    # Before: accepted, and `-g workers` planned the first (3 nodes) without a word.
    state, where = _two_workers(tmp_path, same_resource=same_resource)
    first = next(i for i, r in enumerate(json.loads(EXAMPLE_STATE.read_text())["resources"])
                 if r["name"] == "workers" and r["type"] == "yandex_kubernetes_node_group")
    result = run_cli("plan", "--state", state, "-g", "workers")
    assert result.exit_code == 3, result.stdout
    assert result.stderr.splitlines()[0] == (
        f"error: {state}: {where}: node group yandex_kubernetes_node_group.workers appears "
        f"twice (first at $.resources[{first}].instances[0].attributes)")


def test_an_address_held_twice_in_show_json_is_bad_input(run_cli, tmp_path) -> None:
    doc = json.loads(EXAMPLE_SHOW_JSON.read_text())
    resources = doc["values"]["root_module"]["resources"]
    index = next(i for i, r in enumerate(resources)
                 if r["address"] == "yandex_kubernetes_node_group.workers")
    resources.append(resources[index])
    state = tmp_path / "show.json"
    state.write_text(json.dumps(doc))
    result = run_cli("groups", "--state", str(state))
    assert result.exit_code == 3
    assert (f"$.values.root_module.resources[{len(resources) - 1}].values: node group "
            "yandex_kubernetes_node_group.workers appears twice") in result.stderr


def test_fixed_and_auto_scale_together_is_bad_input(run_cli, tmp_path) -> None:
    # Before: read as autoscaled 1..5, the fixed size 3 ignored.
    state = tmp_path / "both.tfstate"
    state.write_bytes(state_doc({"fixed_scale": [{"size": 3}],
                                 "auto_scale": [{"min": 1, "max": 5, "initial": 1}]}))
    result = run_cli("groups", "--state", str(state))
    assert result.exit_code == 3
    assert result.stderr.splitlines()[0] == (
        f"error: {state}: $.resources[0].instances[0].attributes.scale_policy[0]: node group "
        "yandex_kubernetes_node_group.bad has both fixed_scale and auto_scale (the provider "
        "allows one)")
