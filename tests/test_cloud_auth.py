"""Endpoint and credentials of the cloud gateway (ngupgrade/adapters/cloud/auth.py): HOST:PORT
checked up front, service account keys checked before any call, never printed."""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLE_STATE


@pytest.mark.parametrize("endpoint", ["127.0.0.1", "127.0.0.1:99999", "127.0.0.1:1/x",
                                      "localhost:port", "localhost:0", "https://api.example:443",
                                      "api.example:443/v1", ":443", "::1:443", "[nope]:1",
                                      "host:\u00b2", "host: 443"])
def test_endpoint_must_be_host_and_port(endpoint: str) -> None:
    # Before: accepted; every call was then retried as UNAVAILABLE and the run ended with
    # exit 4 after seconds instead of a usage error up front.
    from ngupgrade.adapters.cloud.auth import resolve_transport
    from ngupgrade.core.errors import UsageError

    for insecure in (True, False):
        with pytest.raises(UsageError) as err:
            resolve_transport(endpoint, insecure, None)
        assert str(err.value) == ("--endpoint (or YC_ENDPOINT) must be HOST:PORT with a port "
                                  f"1..65535, not {endpoint!r}")


@pytest.mark.parametrize("endpoint", ["127.0.0.1:1", "localhost:65535", "[::1]:50051",
                                      "api.cloud.yandex.net:443", "my_host.internal:8443"])
def test_endpoint_host_and_port_is_accepted(endpoint: str) -> None:
    from ngupgrade.adapters.cloud.auth import resolve_transport

    assert resolve_transport(endpoint, False, None).endpoint == endpoint


@pytest.mark.parametrize("where", ["flag", "env"])
def test_bad_endpoint_is_a_usage_error_up_front(run_cli, monkeypatch: pytest.MonkeyPatch,
                                                where: str) -> None:
    args = ["preflight", "--state", str(EXAMPLE_STATE)]
    if where == "flag":
        args += ["--endpoint", "127.0.0.1"]
    else:
        monkeypatch.setenv("YC_ENDPOINT", "127.0.0.1")
    result = run_cli(*args)
    assert result.exit_code == 2, result.stderr
    assert result.stderr.splitlines()[0] == (
        "error: --endpoint (or YC_ENDPOINT) must be HOST:PORT with a port 1..65535, "
        "not '127.0.0.1'")


def _pem(key: object, fmt: str = "PKCS8", password: bytes | None = None) -> str:
    from cryptography.hazmat.primitives import serialization

    encryption = (serialization.BestAvailableEncryption(password) if password
                  else serialization.NoEncryption())
    return key.private_bytes(  # type: ignore[attr-defined, no-any-return]
        serialization.Encoding.PEM, getattr(serialization.PrivateFormat, fmt),
        encryption).decode()


def test_service_account_key_with_a_bad_private_key_is_bad_input(
        run_cli, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: the SDK raised RuntimeError('Invalid Service Account Key'), exit 70.
    key = tmp_path / "sa.json"
    key.write_text('{"id": "aje1", "service_account_id": "aje2", "private_key": "nope-SECRET"}')
    monkeypatch.setenv("YC_SERVICE_ACCOUNT_KEY_FILE", str(key))
    for var in ("YC_TOKEN", "YC_IAM_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--endpoint", "127.0.0.1:1",
                     "--insecure")
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"error: {key}: service account key: private_key is not an unencrypted PKCS#8 PEM "
        "private key")
    assert "SECRET" not in result.stderr and "SECRET" not in result.stdout


def test_service_account_key_must_be_an_unencrypted_pkcs8_rsa_key(tmp_path) -> None:
    import json

    from cryptography.hazmat.primitives.asymmetric import ec, rsa

    from ngupgrade.adapters.cloud.auth import Credentials, resolve_credentials
    from ngupgrade.core.errors import BadInput

    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    good = _pem(rsa_key)
    body = good.splitlines()[1]
    bad = {
        "garbage body": "-----BEGIN PRIVATE KEY-----\nSECRETnotbase64\n-----END PRIVATE KEY-----\n",
        "PKCS#1": _pem(rsa_key, "TraditionalOpenSSL"),
        "encrypted": _pem(rsa_key, password=b"pw"),
        "EC": _pem(ec.generate_private_key(ec.SECP256R1())),
    }
    path = tmp_path / "sa.json"

    def read(private_key: str) -> Credentials:
        path.write_text(json.dumps({"id": "k", "service_account_id": "sa",
                                    "private_key": private_key}))
        return resolve_credentials({"YC_SERVICE_ACCOUNT_KEY_FILE": str(path)})

    assert read(good).sdk_kwargs()["service_account_key"]["private_key"] == good
    for name, pem in bad.items():
        with pytest.raises(BadInput) as err:
            read(pem)
        message = str(err.value)
        assert message.startswith(f"{path}: service account key: private_key is not "), name
        assert "SECRET" not in message and body not in message, name
        assert (message.endswith("an RSA key") if name == "EC"
                else message.endswith("an unencrypted PKCS#8 PEM private key")), name


def test_a_printable_ascii_token_is_taken_as_it_is() -> None:
    from ngupgrade.adapters.cloud.auth import resolve_credentials

    creds = resolve_credentials({"YC_IAM_TOKEN": "t1.9euelZq-_~+/=", "YC_TOKEN": "ignored"})
    assert (creds.kind, creds.source, creds.bearer()) == ("iam_token", "YC_IAM_TOKEN",
                                                          "t1.9euelZq-_~+/=")
