"""The cloud gateway over the real yandexcloud SDK, against the fake cloud on 127.0.0.1.

No test patches the SDK: every call goes over gRPC. Waits run on the fake's virtual clock.
"""

from __future__ import annotations

import logging

import pytest

from ngupgrade.adapters.cloud.auth import is_loopback, resolve_credentials, resolve_transport
from ngupgrade.adapters.cloud.gateway import open_gateway
from ngupgrade.adapters.cloud.proto import mask_paths
from ngupgrade.adapters.cloud.retry import RetryPolicy
from ngupgrade.app.settings import Settings
from ngupgrade.core.errors import EXIT_API, BadInput, CloudApiError, UsageError
from ngupgrade.core.model import DeployPolicy, FixedScale, QuotaLimit
from ngupgrade.testing import FakeCloud, node_group

GID = "catgroup000000000001"


@pytest.fixture
def fake():
    sc = {"clouds": {"b1gcloud0000000000001": {
        "folders": ["b1gexamplefolder00001"],
        "quotas": {f"compute.q{i:04d}.count": {"limit": i, "usage": 0} for i in range(150)}
        | {"compute.instanceCores.count": {"limit": 32, "usage": None},
           "vpc.externalAddresses.count": {"limit": 8, "usage": 2}}}}}
    with FakeCloud([node_group(GID, size=6, policy=DeployPolicy(1, 0))], sc) as f:
        yield f


def test_reads_go_over_grpc_and_come_back_as_plain_values(fake):
    gw = fake.gateway()
    g = gw.get_node_group(GID)
    assert (g.name, g.status, g.version, g.policy, g.scale) == (
        "workers", "RUNNING", "1.29", DeployPolicy(1, 0), FixedScale(6))
    assert len(gw.list_nodes(GID)) == 6
    cluster = gw.get_cluster("catq0n7i0h9ka1b2c3d4")
    assert (cluster.folder_id, cluster.master_version) == ("b1gexamplefolder00001", "1.29")
    assert gw.get_folder_cloud_id("b1gexamplefolder00001") == "b1gcloud0000000000001"
    assert [c.method for c in fake.calls] == [
        "NodeGroupService.Get", "NodeGroupService.ListNodes", "ClusterService.Get",
        "FolderService.Get"]


def test_quota_limits_are_paginated_and_unset_usage_stays_unknown(fake):
    gw = fake.gateway()
    quotas = gw.list_quota_limits("b1gcloud0000000000001", "compute")
    assert len(quotas) == 151
    assert QuotaLimit("compute.instanceCores.count", 32.0, None) in quotas
    pages = fake.calls_to("QuotaLimitService.List")
    assert len(pages) == 1  # page_size 1000: one page; the fake pages at 1000 too
    assert pages[0].request.resource.type == "resource-manager.cloud"
    assert gw.list_quota_limits("b1gcloud0000000000001", "vpc") == [
        QuotaLimit("vpc.externalAddresses.count", 8.0, 2.0)]


def test_quota_pagination_follows_next_page_token():
    sc = {"clouds": {"c1": {"quotas": {f"compute.q{i:04d}.count": {"limit": 1}
                                       for i in range(2500)}}}}
    with FakeCloud([node_group()], sc) as fake:
        quotas = fake.gateway().list_quota_limits("c1", "compute")
        assert len(quotas) == 2500
        assert [c.request.page_token for c in fake.calls_to("QuotaLimitService.List")] == [
            "", "1000", "2000"]


def test_transient_failure_is_retried_with_one_log_line_per_retry(fake, caplog):
    fake.add_fault({"kind": "rpc_error", "method": "NodeGroupService.Get", "code": "UNAVAILABLE",
                    "times": 2})
    slept: list[float] = []
    gw = fake.gateway(sleep=slept.append)
    with caplog.at_level(logging.WARNING, logger="ngupgrade.adapters.cloud"):
        assert gw.get_node_group(GID).id == GID
    assert [c.code for c in fake.calls_to("NodeGroupService.Get")] == [
        "UNAVAILABLE", "UNAVAILABLE", "OK"]
    assert len(slept) == 2 and all(0 <= s <= 10 for s in slept)
    retries = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
    assert len(retries) == 2
    assert "NodeGroupService.Get(catgroup000000000001): UNAVAILABLE (attempt 1 of 5" in retries[0]


@pytest.mark.parametrize("code", ["DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"])
def test_other_transient_codes_are_retried_on_polls(fake, code):
    gw = fake.gateway(sleep=lambda s: None)
    ref = gw.update_node_group(GID, policy=DeployPolicy(3, 0))
    fake.add_fault({"kind": "rpc_error", "method": "OperationService.Get", "code": code})
    assert gw.get_operation(ref.id).id == ref.id
    assert [c.code for c in fake.calls_to("OperationService.Get")] == [code, "OK"]


def test_retry_is_capped_and_reraises_the_real_error_with_request_id(fake):
    fake.add_fault({"kind": "rpc_error", "method": "NodeGroupService.Get", "code": "UNAVAILABLE",
                    "times": 100, "message": "connection reset"})
    gw = fake.gateway(sleep=lambda s: None, retry=RetryPolicy(attempts=3))
    with pytest.raises(CloudApiError) as exc:
        gw.get_node_group(GID)
    assert len(fake.calls_to("NodeGroupService.Get")) == 3
    err = exc.value
    assert err.code == "UNAVAILABLE" and err.exit_code == EXIT_API
    assert "NodeGroupService.Get(catgroup000000000001): connection reset" in err.message
    assert err.request_id and err.request_id.startswith("fake-")
    assert err.__cause__ is not None


def test_permission_denied_is_not_retried_and_names_code_and_hint(fake):
    fake.add_fault({"kind": "permission_denied", "method": "NodeGroupService.Get"})
    gw = fake.gateway(sleep=lambda s: pytest.fail("must not retry"))
    with pytest.raises(CloudApiError) as exc:
        gw.get_node_group(GID)
    assert exc.value.code == "PERMISSION_DENIED"
    assert "[PERMISSION_DENIED]" in str(exc.value) and "request id fake-" in str(exc.value)
    assert "k8s.editor" in (exc.value.hint or "")
    assert len(fake.calls_to("NodeGroupService.Get")) == 1


def test_not_found_is_a_cloud_api_error(fake):
    with pytest.raises(CloudApiError, match=r"NodeGroupService.Get\(nope\).*NOT_FOUND"):
        fake.gateway().get_node_group("nope")


def test_update_sends_only_changed_policy_paths(fake):
    gw = fake.gateway()
    ref = gw.update_node_group(GID, policy=DeployPolicy(3, 0))
    assert ref.id == "op-1" and not ref.attached
    (call,) = fake.calls_to("NodeGroupService.Update")
    assert list(call.request.update_mask.paths) == ["deploy_policy.max_expansion"]
    assert call.request.deploy_policy.max_expansion == 3
    assert not call.request.HasField("version")


def test_update_version_mask_is_version_only(fake):
    gw = fake.gateway()
    gw.update_node_group(GID, version="1.30")
    (call,) = fake.calls_to("NodeGroupService.Update")
    assert list(call.request.update_mask.paths) == ["version"]
    assert call.request.version.version == "1.30"
    assert not call.request.HasField("deploy_policy")


def test_update_is_bare_one_call_and_an_ambiguous_failure_is_reported_as_is(fake):
    """The gateway never lists operations or waits inside a mutation (issue 9): recovery is
    ngupgrade.upgrade.mutation's (tests/test_mutation.py)."""
    fake.add_fault({"kind": "deadline_after_apply"})
    gw = fake.gateway(sleep=lambda s: pytest.fail("a bare Update never sleeps"))
    with pytest.raises(CloudApiError) as exc:
        gw.update_node_group(GID, version="1.30")
    assert exc.value.code == "DEADLINE_EXCEEDED"
    assert [c.method for c in fake.calls] == ["NodeGroupService.Update"]


def test_mask_paths_rules():
    assert mask_paths(DeployPolicy(1, 0), DeployPolicy(1, 0), None, False) == []
    assert mask_paths(DeployPolicy(1, 0), DeployPolicy(2, 1), None, False) == [
        "deploy_policy.max_expansion", "deploy_policy.max_unavailable"]
    assert mask_paths(None, DeployPolicy(3, 0), None, False) == [
        "deploy_policy.max_expansion", "deploy_policy.max_unavailable"]
    assert mask_paths(None, None, None, True) == ["version"]


def test_update_with_nothing_to_change_is_refused_before_any_mutation(fake):
    with pytest.raises(UsageError, match="nothing to change"):
        fake.gateway().update_node_group(GID, policy=DeployPolicy(1, 0))
    assert fake.calls_to("NodeGroupService.Update") == []


def test_operation_state_carries_group_id_and_error(fake):
    gw = fake.gateway()
    ref = gw.update_node_group(GID, policy=DeployPolicy(2, 0))
    state = gw.get_operation(ref.id)
    assert (state.done, state.node_group_id, state.error_code) == (False, GID, None)
    assert gw.running_operation(GID) is not None
    fake.sleep(10)
    assert gw.get_operation(ref.id).done
    assert gw.running_operation(GID) is None


# -- auth and transport --------------------------------------------------------------------

def test_credentials_order_and_secrets_never_shown(tmp_path):
    c = resolve_credentials({"YC_IAM_TOKEN": "t1.secret", "YC_TOKEN": "y0_secret"})
    assert c.kind == "iam_token" and c.sdk_kwargs() == {"iam_token": "t1.secret"}
    assert "secret" not in repr(c) and "secret" not in str(c)
    assert resolve_credentials({"YC_TOKEN": "y0_secret"}).sdk_kwargs() == {"token": "y0_secret"}
    assert resolve_credentials({}).kind == "metadata"
    import json

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()).decode()
    key = tmp_path / "key.json"
    key.write_text(json.dumps({"id": "k", "service_account_id": "sa", "private_key": pem}))
    c = resolve_credentials({"YC_SERVICE_ACCOUNT_KEY_FILE": str(key)})
    assert c.sdk_kwargs()["service_account_key"]["service_account_id"] == "sa"
    assert "PRIVATE KEY" not in repr(c) and "PRIVATE KEY" not in str(c)


def test_bad_key_file_is_bad_input_naming_the_file_not_the_key(tmp_path):
    key = tmp_path / "key.json"
    key.write_text('{"id": "k", "private_key": "SECRETPEM"}')
    with pytest.raises(BadInput, match="lacks service_account_id") as exc:
        resolve_credentials({"YC_SERVICE_ACCOUNT_KEY_FILE": str(key)})
    assert str(key) in str(exc.value) and "SECRETPEM" not in str(exc.value)
    with pytest.raises(BadInput, match="cannot read"):
        resolve_credentials({"YC_SERVICE_ACCOUNT_KEY_FILE": str(tmp_path / "missing.json")})


def test_insecure_only_on_loopback(tmp_path):
    assert is_loopback("127.0.0.1:1234") and is_loopback("localhost:1") and is_loopback("[::1]:5")
    assert not is_loopback("api.cloud.yandex.net:443") and not is_loopback("10.0.0.1:443")
    with pytest.raises(UsageError, match="loopback"):
        resolve_transport("api.example.com:443", True, None)
    with pytest.raises(UsageError):
        resolve_transport(None, True, None)
    ca = tmp_path / "ca.pem"
    pem = b"-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"
    ca.write_bytes(pem)
    t = resolve_transport("api.example.com:443", False, str(ca))
    assert (t.insecure, t.root_certificates) == (False, pem)


def test_iam_token_goes_as_metadata_on_the_plain_loopback_channel(fake):
    gw = open_gateway(Settings(endpoint=fake.endpoint, insecure=True),
                      environ={"YC_IAM_TOKEN": "t1.abc"})
    gw.get_node_group(GID)
    assert fake.calls[-1].authorization
    fake.gateway().get_node_group(GID)  # no credentials in the environment: none sent
    assert not fake.calls[-1].authorization


def test_retry_time_cap_counts_the_backoff_slept(fake):
    fake.add_fault({"kind": "rpc_error", "method": "NodeGroupService.Get", "code": "UNAVAILABLE",
                    "times": 1000})
    slept: list[float] = []
    gw = fake.gateway(sleep=slept.append,
                      retry=RetryPolicy(attempts=1000, max_seconds=20, initial=2, max_backoff=8))
    with pytest.raises(CloudApiError, match="UNAVAILABLE"):
        gw.get_node_group(GID)
    assert sum(slept[:-1]) < 20 <= sum(slept)
    assert len(fake.calls_to("NodeGroupService.Get")) == len(slept) + 1


def test_rpc_fault_limited_to_one_group():
    other = "catgroup000000000002"
    groups = [node_group(GID), node_group(other, name="other")]
    with FakeCloud(groups, {"faults": [{"kind": "permission_denied", "group": "other"}]}) as f:
        gw = f.gateway()
        assert gw.get_node_group(GID).id == GID
        with pytest.raises(CloudApiError, match="PERMISSION_DENIED"):
            gw.get_node_group(other)


def test_fake_refuses_a_port_in_use():
    with FakeCloud([node_group()]) as first, pytest.raises(UsageError, match="cannot listen"):
        FakeCloud([node_group()]).start(first.port)


def test_open_gateway_over_tls_needs_no_network_until_a_call(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_bytes(b"-----BEGIN CERTIFICATE-----\n")
    gw = open_gateway(Settings(endpoint="api.example.com:443", ca_file=str(ca)),
                      environ={"YC_IAM_TOKEN": "t1.x"})
    gw.close()
    with pytest.raises(UsageError, match="only for a loopback endpoint"):
        open_gateway(Settings(endpoint="api.example.com:443", insecure=True), environ={})


def test_cli_refuses_insecure_to_a_remote_endpoint(run_cli, monkeypatch):
    monkeypatch.chdir("/")
    res = run_cli("--endpoint", "api.cloud.yandex.net:443", "--insecure", "wait",
                  "--operation", "op-1")
    assert res.exit_code == 2 and "--insecure is allowed only for a loopback" in res.stderr
