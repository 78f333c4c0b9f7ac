"""Quota files as ``yc quota-manager quota-limit list --service SERVICE --resource-type
resource-manager.cloud --resource-id CLOUD --format json|yaml`` writes them, one service at a
time, and the ways users combine the services into one file.

The form: ``yc`` prints the ``ListQuotaLimitsResponse`` itself, snake_case keys (``resource``
{``id``, ``type``}, ``quota_limits`` [{``quota_id``, ``limit``, ``usage``}]), as the Yandex
docs show its output (yandex-cloud/docs ``en/_includes/quota-manager/
get-quota-service-cli-output.md``@79a55763cf0d7c68223006889c7dfb9a337368b5, for ``--service
iam``). ``limit`` and ``usage`` are ``google.protobuf.DoubleValue`` (yandex-cloud/cloudapi
``yandex/cloud/quotamanager/v1/quota_limit_service.proto``
@05c8506c34f8aefcd341bb52adfc4a5b64e4a6f2), so proto-JSON writes them as JSON numbers (not
the strings of int64 fields), and YAML as plain numbers. The figures are the example cloud's
(``terraform/examples/quotas.yaml``), so every form must give the same preflight as that file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ngupgrade.adapters.files.quota_file import parse_quota_text
from ngupgrade.core.errors import BadInput
from tests.conftest import EXAMPLE_STATE, EXAMPLES, CliResult

Run = Callable[..., CliResult]
CLOUD = "b1gexamplecloud000001"
SERVICES: dict[str, list[tuple[str, int, int]]] = {
    "compute": [
        ("compute.disks.count", 64, 23),
        ("compute.hddDisks.size", 2199023255552, 858993459200),
        ("compute.instanceA100Gpus.count", 1, 1),
        ("compute.instanceCores.count", 96, 54),
        ("compute.instanceMemory.size", 412316860416, 206158430208),
        ("compute.instances.count", 24, 11),
        ("compute.ssdDisks.size", 1099511627776, 429496729600),
        ("compute.ssdNonReplicatedDisks.size", 599147937792, 199715979264),
    ],
    "managed-kubernetes": [
        ("managed-kubernetes.cores.count", 240, 54),
        ("managed-kubernetes.disk.size", 32985348833280, 1288490188800),
        ("managed-kubernetes.memory.size", 1030792151040, 206158430208),
        ("managed-kubernetes.nodes.count", 160, 11),
    ],
    "vpc": [("vpc.externalAddresses.count", 8, 6)],
}


def yc_json(service: str) -> str:
    """One ``yc ... --service SERVICE --format json`` output (2-space indent, proto order)."""
    return json.dumps({
        "resource": {"id": CLOUD, "type": "resource-manager.cloud"},
        "quota_limits": [{"quota_id": q, "limit": limit, "usage": usage}
                         for q, limit, usage in SERVICES[service]],
    }, indent=2) + "\n"


def yc_yaml(service: str) -> str:
    """One ``yc ... --service SERVICE --format yaml`` output, as the docs print it."""
    lines = ["resource:", f"  id: {CLOUD}", "  type: resource-manager.cloud", "quota_limits:"]
    for quota, limit, usage in SERVICES[service]:
        lines += [f"  - quota_id: {quota}", f"    limit: {limit}", f"    usage: {usage}"]
    return "\n".join(lines) + "\n"


def preflight_rows(run_cli: Run, quotas: Path) -> list[dict[str, Any]]:
    # --together: the example's three groups (one cluster) all at once, the sum
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(quotas),
                     "--together", "-o", "json")
    assert result.exit_code in (0, 1), result.stdout + result.stderr
    (cloud,) = json.loads(result.stdout)["clouds"]
    assert cloud["cloud_id"] == CLOUD
    return cloud["quotas"]


@pytest.mark.parametrize("combine", [
    # for s in compute managed-kubernetes vpc; do yc ... --service $s --format json; done
    pytest.param(lambda: "".join(yc_json(s) for s in SERVICES), id="json-one-after-another"),
    # ... | jq -s . (a list of the responses)
    pytest.param(lambda: json.dumps([json.loads(yc_json(s)) for s in SERVICES]),
                 id="json-list"),
    # for s in ...; do echo ---; yc ... --service $s --format yaml; done
    pytest.param(lambda: "".join("---\n" + yc_yaml(s) for s in SERVICES), id="yaml-documents"),
])
def test_the_three_services_combined_give_the_preflight_of_the_short_form(
        run_cli: Run, tmp_path: Path, combine: Callable[[], str]) -> None:
    path = tmp_path / "quotas"
    path.write_text(combine())
    rows = preflight_rows(run_cli, path)
    assert rows == preflight_rows(run_cli, EXAMPLES / "quotas.yaml")
    cores = next(r for r in rows if r["quota_id"] == "compute.instanceCores.count")
    assert (cores["limit"], cores["usage"], cores["headroom"], cores["status"]) == (
        96, 54, 42, "short")


@pytest.mark.parametrize("form", [yc_json, yc_yaml])
def test_one_service_as_yc_prints_it(form: Callable[[str], str]) -> None:
    quotas = parse_quota_text(form("compute"), "compute.quotas")
    limits = quotas.list_quota_limits(CLOUD, "compute")
    memory = next(q for q in limits if q.quota_id == "compute.instanceMemory.size")
    assert (memory.limit, memory.usage) == (412316860416.0, 206158430208.0)
    assert len(limits) == 8


def test_yaml_outputs_appended_without_separator_are_refused_not_half_read() -> None:
    # `yc ... --format yaml >> quotas.yaml` twice: one mapping with `resource:` twice, which
    # a YAML loader reads as the second service alone (the compute quotas silently gone)
    with pytest.raises(BadInput) as info:
        parse_quota_text(yc_yaml("compute") + yc_yaml("vpc"), "quotas.yaml")
    assert str(info.value) == ("quotas.yaml: key 'resource' is written twice in one mapping "
                               "(lines 1 and 29): YAML keeps only the second")
    assert info.value.hint == "two outputs appended to one file? put a line `---` between them"


def test_a_broken_document_among_several_is_named_by_number() -> None:
    text = yc_json("compute") + yc_json("vpc").replace('"limit": 8', '"limit": "eight"')
    with pytest.raises(BadInput) as info:
        parse_quota_text(text, "quotas.json")
    assert str(info.value) == ("quotas.json (document 2): $.quota_limits[0].limit: expected a "
                               "number, found 'eight'")
    with pytest.raises(BadInput) as info:
        parse_quota_text(yc_json("compute") + "{", "quotas.json")
    assert str(info.value).startswith("quotas.json (document 2): not JSON: ")


def test_the_same_quota_in_two_documents_must_agree() -> None:
    other = yc_json("vpc").replace('"usage": 6', '"usage": 7')
    with pytest.raises(BadInput, match=r"quotas.json \(document 2\): \$: "
                                       r"vpc.externalAddresses.count appears twice"):
        parse_quota_text(yc_json("vpc") + other, "quotas.json")
    again = parse_quota_text(yc_json("vpc") + yc_json("vpc"), "quotas.json")  # an export twice
    assert [q.quota_id for q in again.list_quota_limits(CLOUD, "vpc")] == [
        "vpc.externalAddresses.count"]
