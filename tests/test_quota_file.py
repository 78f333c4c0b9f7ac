"""The offline quota file: both forms of DESIGN.md section 5, JSON and YAML, and bad files."""

from __future__ import annotations

import json

import pytest

from ngupgrade.adapters.files.quota_file import parse_quota_text, read_quota_file
from ngupgrade.core.errors import BadInput
from ngupgrade.core.model import QuotaLimit

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


def test_duplicate_quota_with_different_values_is_bad_input():
    doc = [{"resource": {"id": "A"}, "quotaLimits": [{"quotaId": "vpc.x.count", "limit": 1}]},
           {"resource": {"id": "A"}, "quotaLimits": [{"quotaId": "vpc.x.count", "limit": 2}]}]
    with pytest.raises(BadInput, match=r"\$\[1\]\.quotaLimits\[0\]: vpc.x.count appears twice"):
        parse_quota_text(json.dumps(doc), "q.json")


def test_missing_file_is_bad_input(tmp_path):
    with pytest.raises(BadInput, match="cannot read quota file"):
        read_quota_file(str(tmp_path / "nope.json"))
