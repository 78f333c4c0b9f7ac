"""The offline quota file: both forms of DESIGN.md section 5, JSON and YAML, and bad files."""

from __future__ import annotations

import json

import pytest

from ngupgrade.adapters.files.quota_file import parse_quota_text, read_quota_file
from ngupgrade.core.errors import BadInput
from ngupgrade.core.model import QuotaLimit
from tests.conftest import EXAMPLE_STATE, EXAMPLES

PROTO_CAMEL = {
    "resource": {"id": "b1gcloudA", "type": "resource-manager.cloud"},
    "quotaLimits": [
        {"quotaId": "compute.instanceCores.count", "limit": 10.0, "usage": 8.0},
        {"quotaId": "compute.instances.count", "limit": 12, "usage": "3"},
        {"quotaId": "compute.instanceGpus.count"},
    ],
    "nextPageToken": "",
}
PROTO_SNAKE_MK8S = {
    "resource": {"id": "b1gcloudA", "type": "resource-manager.cloud"},
    "quota_limits": [{"quota_id": "managed-kubernetes.nodes.count", "limit": 160, "usage": 11}],
}


def test_proto_json_one_object_camel_case():
    f = parse_quota_text(json.dumps(PROTO_CAMEL), "q.json")
    assert f.cloud_ids == ("b1gcloudA",)
    assert f.single_cloud_id() == "b1gcloudA"
    compute = {q.quota_id: q for q in f.list_quota_limits("b1gcloudA", "compute")}
    assert compute["compute.instanceCores.count"] == QuotaLimit(
        "compute.instanceCores.count", 10.0, 8.0)
    assert compute["compute.instances.count"].usage == 3.0
    assert compute["compute.instanceGpus.count"] == QuotaLimit(
        "compute.instanceGpus.count", None, None)  # unset wrappers: unknown, never unlimited
    assert f.list_quota_limits("b1gcloudA", "vpc") == []


def test_proto_json_list_of_responses_mixed_case_merges_per_cloud():
    other = {"resource": {"id": "b1gcloudB", "type": "resource-manager.cloud"},
             "quotaLimits": [{"quotaId": "vpc.externalAddresses.count", "limit": 8, "usage": 8}]}
    f = parse_quota_text(json.dumps([PROTO_CAMEL, PROTO_SNAKE_MK8S, other]), "q.json")
    assert f.cloud_ids == ("b1gcloudA", "b1gcloudB")
    assert f.single_cloud_id() is None
    assert [q.quota_id for q in f.list_quota_limits("b1gcloudA", "managed-kubernetes")] == [
        "managed-kubernetes.nodes.count"]
    assert f.list_quota_limits("b1gcloudB", "vpc") == [
        QuotaLimit("vpc.externalAddresses.count", 8.0, 8.0)]


def test_short_form_yaml(tmp_path):
    path = tmp_path / "quotas.yaml"
    path.write_text(
        "b1gcloudA:\n"
        "  compute.instanceCores.count: {limit: 4, usage: 4}\n"
        "  compute.instanceMemory.size: {limit: 137438953472, usage: 34359738368}\n"
        "  vpc.externalAddresses.count: {limit: 8}\n")
    f = read_quota_file(str(path))
    assert f.single_cloud_id() == "b1gcloudA"
    compute = {q.quota_id: q for q in f.list_quota_limits("b1gcloudA", "compute")}
    assert compute["compute.instanceCores.count"].headroom == 0  # zero, not unknown
    assert f.list_quota_limits("b1gcloudA", "vpc")[0].headroom is None


def test_bare_list_of_quota_limits_names_no_cloud_and_answers_any():
    f = parse_quota_text(json.dumps(PROTO_SNAKE_MK8S["quota_limits"]), "q.json")
    assert f.cloud_ids == () and f.single_cloud_id() is None
    assert f.list_quota_limits("whatever", "managed-kubernetes")[0].limit == 160


def test_cloud_not_in_file_is_bad_input_naming_what_it_holds():
    f = parse_quota_text(json.dumps(PROTO_CAMEL), "q.json")
    with pytest.raises(BadInput, match=r"q\.json: no quotas for cloud b1gother.*b1gcloudA"):
        f.list_quota_limits("b1gother", "compute")


@pytest.mark.parametrize(("text", "where"), [
    ("{not json: [", "q.json: neither JSON"),
    ("[]", "q.json: $: an empty list"),
    ("{}", "q.json: $: an empty object"),
    ('{"b1gcloudA": {}}', "q.json: $.b1gcloudA: cloud b1gcloudA holds no quotas"),
    ('[{"resource": {"id": "b1gcloudA", "type": "resource-manager.cloud"}, '
     '"quota_limits": []}]', "q.json: $: cloud b1gcloudA holds no quotas"),
    ('{"resource": {"id": "b1gcloudA"}, "quotaLimits": null}',
     "q.json: $: cloud b1gcloudA holds no quotas"),
    ('{"quotaLimits": []}', "q.json: $: the response holds no quotas"),
    ('"text"', "q.json: $: expected an object or a list"),
    ('{"b1g": {"compute.instances.count": {"limit": "many"}}}',
     "q.json: $.b1g.compute.instances.count.limit: expected a number"),
    ('{"b1g": {"compute.instances.count": {"limit": true}}}',
     "q.json: $.b1g.compute.instances.count.limit: expected a number, found a boolean"),
    ('{"b1g": {"compute.instances.count": {"limit": -1}}}',
     "q.json: $.b1g.compute.instances.count.limit: expected a non-negative"),
    ('{"b1g": {"cores": {"limit": 1}}}', "q.json: $.b1g.cores: 'cores' is not a quota id"),
    ('{"b1g": [1, 2]}', "q.json: $.b1g: expected an object"),
    ('{"quotaLimits": [{"limit": 1}]}', r"q.json: $.quotaLimits[0]: quota id missing"),
    ('{"quotaLimits": {"a": 1}}', r"q.json: $.quotaLimits: expected a list"),
    ('[{"resource": {"id": "x", "type": "billing.account"}, "quotaLimits": []}]',
     r"q.json: $[0].resource.type: quotas of a 'billing.account'"),
    ('[1]', r"q.json: $[0]: expected a ListQuotaLimitsResponse"),
    ('{"b1g": {"compute.instances.count": {"limit": 1}, "compute.instances.count ": 2}}',
     "q.json: $.b1g.compute.instances.count : expected {limit, usage}"),
])
def test_bad_files_are_bad_input_naming_file_and_path(text, where):
    with pytest.raises(BadInput) as err:
        parse_quota_text(text, "q.json")
    assert err.value.exit_code == 3
    assert str(err.value).startswith(where), str(err.value)


def test_an_empty_page_next_to_a_full_one_is_read():
    # one `yc ... --format json` output per service, appended: a service may list nothing
    doc = [{"resource": {"id": "A"}, "quota_limits": []},
           {"resource": {"id": "A"}, "quota_limits": [{"quota_id": "vpc.x.count", "limit": 3}]}]
    f = parse_quota_text(json.dumps(doc), "q.json")
    assert [q.limit for q in f.list_quota_limits("A", "vpc")] == [3]


def test_duplicate_quota_with_different_values_is_bad_input():
    doc = [{"resource": {"id": "A"}, "quotaLimits": [{"quotaId": "vpc.x.count", "limit": 1}]},
           {"resource": {"id": "A"}, "quotaLimits": [{"quotaId": "vpc.x.count", "limit": 2}]}]
    with pytest.raises(BadInput, match=r"\$\[1\]\.quotaLimits\[0\]: vpc.x.count appears twice"):
        parse_quota_text(json.dumps(doc), "q.json")


def test_missing_file_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match=r"no such file \(the quota file\)") as err:
        read_quota_file(str(tmp_path / "nope.json"))
    assert err.value.hint is not None and "docs/quota-preflight.md" in err.value.hint


@pytest.mark.parametrize(("encode", "said"), [
    (lambda t: t.encode("utf-16"), "not UTF-8 text at byte offset 0 (line 1): UTF-16 text"),
    (lambda t: t.replace("b1gcloud", "b1gcloud\u00e9").encode("latin-1"),
     "not UTF-8 text at byte offset 10 (line 1): byte E9 is not UTF-8"),
], ids=["utf16", "latin1"])
def test_a_quota_file_that_is_not_utf8_is_named_at_its_byte(run_cli, tmp_path, encode,
                                                            said: str) -> None:
    # Before: "cannot read quota file: 'utf-8' codec can't decode byte 0xff in position 0".
    quotas = tmp_path / "quotas.json"
    quotas.write_bytes(encode('{"b1gcloud": {"compute.instances.count": {"limit": 10}}}'))
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(quotas),
                     "--cloud-id", "b1gcloud")
    assert result.exit_code == 3, result.stderr
    error, hint = result.stderr.splitlines()[:2]
    assert error.startswith(f"error: {quotas}: {said}")
    assert f"-t UTF-8 {quotas} > {tmp_path}/quotas.utf8.json" in hint


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000,
                                  "a: " + "[" * 100_000 + "]" * 100_000],
                         ids=["json", "yaml"])
def test_deeply_nested_quota_file_is_bad_input(run_cli, tmp_path, text: str) -> None:
    # Before: json.loads/yaml.safe_load raised RecursionError (exit 70).
    from ngupgrade.adapters.files.quota_file import parse_quota_text
    from ngupgrade.core.errors import BadInput

    with pytest.raises(BadInput) as err:
        parse_quota_text(text, "q.json")
    assert str(err.value) == "q.json: nested more than 100 levels deep (no real document is)"
    quotas = tmp_path / "q.json"
    quotas.write_text(text)
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(quotas),
                     "--cloud-id", "b1gcloud")
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == (f"error: {quotas}: nested more than 100 levels "
                                             "deep (no real document is)")


@pytest.mark.parametrize("text", [
    '{"cl": {"compute.instances.count": {"limit": 1' + "0" * 400 + ', "usage": 1}}}',
    "cl: {compute.instances.count: {limit: 1" + "0" * 400 + ", usage: 1}}\n",
], ids=["json", "yaml"])
def test_quota_limit_too_large_for_a_double_is_bad_input(text: str) -> None:
    # Before: float(huge int) raised OverflowError (exit 70).
    from ngupgrade.adapters.files.quota_file import parse_quota_text
    from ngupgrade.core.errors import BadInput

    with pytest.raises(BadInput) as err:
        parse_quota_text(text, "q.json")
    assert str(err.value) == ("q.json: $.cl.compute.instances.count.limit: expected a finite "
                              "number, found an integer of 401 digits")


@pytest.mark.parametrize("text", ['{"cl": {"compute.instances.count": {"limit": 1' + "0" * 5000
                                  + "}}}", "cl: {compute.instances.count: {limit: 1" + "0" * 5000
                                  + "}}\n"], ids=["json", "yaml"])
def test_quota_limit_with_thousands_of_digits_is_bad_input(text: str) -> None:
    # Before: int() of over 4300 digits raised ValueError inside json.loads/yaml (exit 70).
    from ngupgrade.adapters.files.quota_file import parse_quota_text
    from ngupgrade.core.errors import BadInput

    with pytest.raises(BadInput) as err:
        parse_quota_text(text, "q.json")
    assert str(err.value) == ("q.json: holds an integer of more than 4300 digits, which no "
                              "producer writes and Python refuses to read")


@pytest.mark.parametrize("value", [".inf", "Infinity", "1e400", '"1e400"', '"-inf"', ".nan"])
def test_infinite_quota_limit_is_bad_input(value: str) -> None:
    # Before: inf was accepted; inf - inf = nan headroom, printed as 'SHORT by nan cores'.
    from ngupgrade.adapters.files.quota_file import parse_quota_text
    from ngupgrade.core.errors import BadInput

    with pytest.raises(BadInput) as err:
        parse_quota_text(f"cl: {{compute.instances.count: {{limit: {value}, usage: 1}}}}\n",
                         "q.yaml")
    assert str(err.value).startswith(
        "q.yaml: $.cl.compute.instances.count.limit: expected a finite number, found ")


@pytest.mark.parametrize("value", ["Infinity", "1e400", '"Infinity"', "NaN"])
def test_infinite_quota_limit_in_json_is_bad_input(value: str) -> None:
    from ngupgrade.adapters.files.quota_file import parse_quota_text
    from ngupgrade.core.errors import BadInput

    with pytest.raises(BadInput, match=r"\.usage: expected a finite number"):
        parse_quota_text(f'{{"quotaLimits": [{{"quotaId": "compute.instances.count", '
                         f'"limit": 5, "usage": {value}}}]}}', "q.json")


@pytest.mark.parametrize(("text", "yaml_says"), [
    # libyaml's words (PyYAML's loader when built with it, as its wheels are)
    ("key: value: bad: [\n", "mapping values are not allowed in this context at line 1, "
                             "column 11"),
    ("a: [1, 2\nb: 3\n", "did not find expected ',' or ']' at line 2, column 2 "
                          "(while parsing a flow sequence from line 1)"),
    ("a: \x00\n", "unacceptable character #x0000 at position 3: control characters are not "
                  "allowed"),
], ids=["scanner", "parser", "reader"])
def test_quota_file_that_is_neither_json_nor_yaml_is_one_line(text: str, yaml_says: str) -> None:
    # Before: the YAML parser's message went into the BadInput as is, with its caret picture:
    # five lines instead of one with the line and column.
    from ngupgrade.adapters.files.quota_file import parse_quota_text
    from ngupgrade.core.errors import BadInput

    with pytest.raises(BadInput) as err:
        parse_quota_text(text, "q.yaml")
    assert "\n" not in str(err.value)
    assert str(err.value).startswith("q.yaml: neither JSON (")
    assert str(err.value).endswith(f") nor YAML ({yaml_says})")
# ---- unknown keys (issue 11 item 5): a typo is bad input, never "unknown quotas, PASS" ------

@pytest.mark.parametrize(("doc", "path", "closest"), [
    ({"b1gcloudA": {"compute.instances.count": {"limit": 24, "used": 11}}},
     "$.b1gcloudA.compute.instances.count.used", "usage"),
    ({"b1gcloudA": {"compute.instances.count": {"limits": 24, "usage": 11}}},
     "$.b1gcloudA.compute.instances.count.limits", "limit"),
    ({**PROTO_CAMEL, "quotaLimits": [{"quotaId": "compute.instances.count", "limit": 24,
                                      "usages": 11}]},
     "$.quotaLimits[0].usages", "usage"),
    ({"resource": {"id": "b1gcloudA"}, "quota_limit": []}, "$.quota_limit", "quota_limits"),
    ([{"resource": {"ID": "b1gcloudA"}, "quotaLimits": []}], "$[0].resource.ID", "id"),
])
def test_unknown_key_is_bad_input_naming_the_closest_known_one(run_cli, tmp_path, doc, path,
                                                               closest):
    # Before: `used:` for `usage:` passed the gate as "PASS with N unknown quotas", exit 0.
    quotas = tmp_path / "quotas.json"
    quotas.write_text(json.dumps(doc))
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--quotas", str(quotas), "--cloud-id", "b1gcloudA")
    assert result.exit_code == 3, result.stdout
    assert result.stderr.splitlines()[0].startswith(f"error: {quotas}: {path}: unknown key")
    assert f"hint: did you mean {closest!r}?" in result.stderr


def test_the_readme_typo_in_yaml(run_cli, tmp_path):
    quotas = tmp_path / "quotas.yaml"
    quotas.write_text((EXAMPLES / "quotas.yaml").read_text().replace("usage:", "used:"))
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(quotas))
    assert result.exit_code == 3
    assert ("$.b1gexamplecloud000001.compute.instances.count.used: unknown key 'used' "
            "(known: limit, usage)") in result.stderr


def test_one_quota_limit_as_yc_quota_limit_get_prints_it():
    """`yc quota-manager quota-limit get` prints one QuotaLimit (yandex-cloud/docs
    en/quota-manager/operations/read-quotas.md at 79a5576, "quota_id: compute.disks.count /
    limit: 64 / usage: 30"): read like a bare list of one, naming no cloud."""
    f = parse_quota_text("quota_id: compute.disks.count\nlimit: 64\nusage: 30\n", "q.yaml")
    assert f.cloud_ids == ()
    assert f.list_quota_limits("b1gany", "compute") == [
        QuotaLimit("compute.disks.count", 64.0, 30.0)]
    with pytest.raises(BadInput, match=r"q\.json: \$\.usedd: unknown key 'usedd'"):
        parse_quota_text('{"quotaId": "compute.disks.count", "usedd": 1}', "q.json")


def test_yaml_whose_first_key_is_quoted_is_read_as_yaml(tmp_path) -> None:
    """`"b1g...":` opens as a JSON string followed by more text: a YAML mapping, not a broken
    stream of JSON documents."""
    path = tmp_path / "quotas.yaml"
    path.write_text('"b1gexamplecloud000001":\n  compute.instances.count:\n'
                    '    limit: 24\n    usage: 11\n')
    source = read_quota_file(str(path))
    assert list(source.cloud_ids) == ["b1gexamplecloud000001"]
