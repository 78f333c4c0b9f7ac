"""Every file ngupgrade reads, fuzzed with text that is not text (issue 11 item 9).

A lone UTF-16 surrogate (``"\\ud800"`` in JSON, or in YAML's double quotes) anywhere in a key or
a string, and a byte that is not UTF-8, must be bad input (exit 3) naming the file, through the
command that reads it; before, a quota file with one in a resource id exited 70 (a bug) when
the report printed it. Readers: the state (file and stdin), the quota file (JSON, YAML), the
PDB list, the upgrade journal, the service-account key, the fake cloud's scenario, the
Terraform plan (`--plan`), Selectel's project quota file and the cluster dump (`--cluster`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import EXAMPLE_STATE, EXAMPLES

FUZZ = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

QUOTAS_SHORT = yaml.safe_load((EXAMPLES / "quotas.yaml").read_text())
QUOTAS_PROTO = [{"resource": {"id": cloud, "type": "resource-manager.cloud"},
                 "quotaLimits": [{"quotaId": qid, **values} for qid, values in quotas.items()]}
                for cloud, quotas in QUOTAS_SHORT.items()]
PDBS = {"apiVersion": "v1", "kind": "List", "items": [{
    "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    "status": {"currentHealthy": 2, "desiredHealthy": 1, "disruptionsAllowed": 1,
               "expectedPods": 2}}]}
JOURNAL = {
    "format": 1, "group_id": "cat1ng0fixed0000abcd",
    "address": "yandex_kubernetes_node_group.workers", "name": "workers", "target": "1.30",
    "latest_revision": False,
    "start": {"version": "1.29", "nodes": 3, "node_ids": ["n1", "n2", "n3"],
              "policy": {"max_expansion": 1, "max_unavailable": 0},
              "terraform_policy": {"max_expansion": 1, "max_unavailable": 0}},
    "override": None, "restore_policy": False,
    "steps": {"version_update": {"status": "started", "operation_id": "op-1",
                                 "known_operations": [], "started_at": "2024-01-01T00:00:00Z",
                                 "finished_at": None}},
    "outcome": None, "updated_at": "2024-01-01T00:00:00Z",
}
SCENARIO = yaml.safe_load((EXAMPLES / "scenario.yaml").read_text())


# ---- the fault: one lone surrogate in one string of a valid document ------------------------

def _string_slots(node: Any, path: tuple = ()) -> list[tuple[tuple, bool]]:
    """Every string of the document: (path to it, is it a key)."""
    slots: list[tuple[tuple, bool]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str):
                slots.append(((*path, key), True))
            slots += _string_slots(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            slots += _string_slots(value, (*path, i))
    elif isinstance(node, str):
        slots.append((path, False))
    return slots


@st.composite
def with_lone_surrogate(draw: st.DrawFn, base: Any) -> Any:
    """``base`` with a lone surrogate (U+D800..U+DFFF) put into one of its strings or keys."""
    doc = copy.deepcopy(base)
    path, is_key = draw(st.sampled_from(_string_slots(base)))
    surrogate = chr(draw(st.integers(0xD800, 0xDFFF)))
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    old = path[-1] if is_key else parent[path[-1]]
    at = draw(st.integers(0, len(old)))
    new = old[:at] + surrogate + old[at:]
    if is_key:
        parent[new] = parent.pop(old)
    else:
        parent[path[-1]] = new
    return doc


def _json(doc: Any) -> bytes:
    return json.dumps(doc).encode()  # ensure_ascii: the surrogate as a \udXXX escape


def _yaml(doc: Any) -> bytes:
    text = yaml.safe_dump(doc, allow_unicode=False)  # writes "\uD800" in double quotes
    assert "\\u" in text.lower() or "\\U" in text
    return text.encode()


@st.composite
def with_bad_byte(draw: st.DrawFn, base: Any, dump: Callable[[Any], bytes]) -> bytes:
    """``base`` dumped, with one byte that cannot start or continue UTF-8 put inside a string."""
    data = dump(base)
    quotes = [i for i, b in enumerate(data) if b == ord('"')]
    at = draw(st.sampled_from(quotes)) + 1
    return data[:at] + bytes([draw(st.sampled_from([0x80, 0xC0, 0xF8, 0xFF]))]) + data[at:]


def _assert_bad_input(result: Any, path: Path | str, data: bytes) -> None:
    assert result.exit_code == 3, (result.exit_code, result.stderr)
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"error: {path}"), first
    if data.isascii():  # the surrogate, as an escape: said as it is (not "truncated")
        assert "holds a lone UTF-16 surrogate" in first, first
    assert "Traceback" not in result.stderr


# ---- one test per reader, through the command that reads it ---------------------------------

STATE = json.loads(EXAMPLE_STATE.read_text())


# The state's reader validates escapes everywhere but UTF-8 only in what it decodes (a stray
# byte in a resource it skips is never read as text), so the state is fuzzed with surrogates.
@FUZZ
@given(data=with_lone_surrogate(STATE).map(_json))
def test_state_file(run_cli, tmp_path: Path, data: bytes) -> None:
    state = tmp_path / "fuzz.tfstate"
    state.write_bytes(data)
    _assert_bad_input(run_cli("groups", "--state", str(state), "-o", "json"), state, data)


@FUZZ
@given(data=with_lone_surrogate(STATE).map(_json))
def test_state_on_stdin(run_cli, data: bytes) -> None:
    _assert_bad_input(run_cli("plan", "--state", "-", stdin=data), "-", data)


QUOTA_DOCS = st.one_of(
    with_lone_surrogate(QUOTAS_SHORT).map(_json), with_lone_surrogate(QUOTAS_SHORT).map(_yaml),
    with_lone_surrogate(QUOTAS_PROTO).map(_json), with_bad_byte(QUOTAS_PROTO, _json))


@FUZZ
@given(data=QUOTA_DOCS)
def test_quota_file(run_cli, tmp_path: Path, data: bytes) -> None:
    quotas = tmp_path / "quotas.yaml"
    quotas.write_bytes(data)
    _assert_bad_input(run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas",
                              str(quotas), "--cloud-id", "b1gexamplecloud000001", "-o", "json"),
                      quotas, data)


def test_quota_file_the_reported_case(run_cli, tmp_path: Path) -> None:
    # The file: the resource id holds "\udc80"; was exit 70 printing the report.
    quotas = tmp_path / "quotas.json"
    doc = copy.deepcopy(QUOTAS_PROTO)
    doc[0]["resource"]["id"] = "b1gexamplecloud000001\udc80"
    quotas.write_bytes(_json(doc))
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(quotas))
    _assert_bad_input(result, quotas, _json(doc))
    assert "$[0].resource.id: holds a lone UTF-16 surrogate" in result.stderr


@FUZZ
@given(data=st.one_of(with_lone_surrogate(PDBS).map(_json), with_bad_byte(PDBS, _json)))
def test_pdb_file(run_cli, tmp_path: Path, data: bytes) -> None:
    pdbs = tmp_path / "pdbs.json"
    pdbs.write_bytes(data)
    _assert_bad_input(run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "workers",
                              "--quotas", str(EXAMPLES / "quotas.yaml"), "--pdbs", str(pdbs)),
                      pdbs, data)


@pytest.fixture(scope="module")
def idle_cloud():
    """The example state served by a fake cloud; the journal is refused before any change."""
    from tests._upgrade_helpers import example_cloud

    with example_cloud() as fake:
        yield fake


@FUZZ
@given(data=st.one_of(with_lone_surrogate(JOURNAL).map(_json), with_bad_byte(JOURNAL, _json)))
def test_upgrade_journal(idle_cloud, monkeypatch, capsys, tmp_path: Path, data: bytes) -> None:
    from tests._upgrade_helpers import cli

    journal = tmp_path / "journal.json"
    journal.write_bytes(data)
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                          "--apply", "--resume", "--journal", str(journal))
    assert code == 3, err
    assert err.startswith(f"error: {journal}"), err
    assert "holds a lone UTF-16 surrogate" in err or not data.isascii()
    assert idle_cloud.calls_to("NodeGroupService.Update") == []


@pytest.fixture(scope="module")
def key_pem() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


@FUZZ
@given(data=st.data())
def test_service_account_key(run_cli, monkeypatch, tmp_path: Path, key_pem: str,
                             data: st.DataObject) -> None:
    base = {"id": "aje0key", "service_account_id": "aje0sa", "created_at": "2024-01-01T00:00:00Z",
            "key_algorithm": "RSA_2048", "private_key": key_pem}
    key = tmp_path / "key.json"
    text = data.draw(st.one_of(with_lone_surrogate(base).map(_json), with_bad_byte(base, _json)))
    key.write_bytes(text)
    for var in ("YC_IAM_TOKEN", "YC_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("YC_SERVICE_ACCOUNT_KEY_FILE", str(key))
    # Port 9 on loopback answers nothing: the key is read before any call is tried.
    result = run_cli("wait", "--state", str(EXAMPLE_STATE), "-g", "workers", "--timeout", "0",
                     "--endpoint", "127.0.0.1:9", "--insecure")
    _assert_bad_input(result, key, text)


@FUZZ
@given(data=st.one_of(with_lone_surrogate(SCENARIO).map(_yaml),
                      with_lone_surrogate(SCENARIO).map(_json)))
def test_fake_cloud_scenario(tmp_path: Path, data: bytes) -> None:
    # Through the loader `fake-cloud --scenario` and the fake_cloud fixture call: a valid
    # scenario would make `fake-cloud` serve forever.
    from ngupgrade.core.errors import BadInput
    from ngupgrade.testing import Scenario

    scenario = tmp_path / "scenario.yaml"
    scenario.write_bytes(data)
    with pytest.raises(BadInput) as caught:
        Scenario.load(str(scenario))
    # JSON's path ($.a.b) when read as JSON; libyaml refuses the escape itself, at its line
    assert str(caught.value).startswith((f"{scenario}: $", f"{scenario}: holds"))
    assert "holds a lone UTF-16 surrogate" in str(caught.value)


PLAN = json.loads((EXAMPLES / "plan-roll.json").read_text())


@FUZZ
@given(data=with_lone_surrogate(PLAN).map(_json))
def test_terraform_plan(run_cli, tmp_path: Path, data: bytes) -> None:
    plan = tmp_path / "plan.json"
    plan.write_bytes(data)
    _assert_bad_input(run_cli("plan", "--plan", str(plan), "-o", "json"), plan, data)


SELECTEL = EXAMPLES / "selectel"
PROJECT_QUOTAS = yaml.safe_load((SELECTEL / "quotas.yaml").read_text())


@FUZZ
@given(data=st.one_of(with_lone_surrogate(PROJECT_QUOTAS).map(_json),
                      with_lone_surrogate(PROJECT_QUOTAS).map(_yaml)))
def test_selectel_project_quota_file(run_cli, tmp_path: Path, data: bytes) -> None:
    quotas = tmp_path / "quotas.yaml"
    quotas.write_bytes(data)
    _assert_bad_input(run_cli("preflight", "--state", str(SELECTEL / "terraform.tfstate"),
                              "--quotas", str(quotas)), quotas, data)


@FUZZ
@given(data=st.data())
def test_cluster_dump(run_cli, tmp_path: Path, data: st.DataObject) -> None:
    from tests.test_drain_check_cli import calm_cluster

    base = {"apiVersion": "v1", "kind": "List", "items": calm_cluster()}
    text = data.draw(with_lone_surrogate(base).map(_json))
    cluster = tmp_path / "cluster.json"
    cluster.write_bytes(text)
    result = run_cli("drain-check", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--cluster", str(cluster))
    _assert_bad_input(result, cluster, text)  # said as it is, not "invalid utf-16 pair"
