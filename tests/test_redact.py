"""A credential written into a URL (``https://KEY:SECRET@host``) is never printed: the
userinfo of every URL or endpoint ngupgrade prints is hidden (RFC 3986 section 3.2.1), in
the error lines, the hints, the JSON ``error`` object and the report's ``inputs``."""

from __future__ import annotations

import json
import socket

import pytest
from conftest import EXAMPLE_STATE

from ngupgrade.core.redact import redact_urls, redact_values


@pytest.mark.parametrize(("text", "shown"), [
    ("cannot reach https://AKIAKEY:s3cr3t@storage.example:443/b",
     "cannot reach https://***@storage.example:443/b"),
    ("Invalid endpoint: ht!tp://AKIAKEY:s3cr3t@", "Invalid endpoint: ht!tp://***@"),
    ("http://token@127.0.0.1:8080/api/v1/pods: 403", "http://***@127.0.0.1:8080/api/v1/pods: 403"),
    ("https://u:p@[::1]:8443/", "https://***@[::1]:8443/"),
    ("not 'KEY:SECRET@127.0.0.1:9'", "not '***@127.0.0.1:9'"),      # an --endpoint, no scheme
    # no credential: unchanged
    ("s3://tf-states/k8s/terraform.tfstate", "s3://tf-states/k8s/terraform.tfstate"),
    ("http://[::1]:80/x", "http://[::1]:80/x"),
    ("write to ops@example.com at 08:00 UTC", "write to ops@example.com at 08:00 UTC"),
])
def test_the_userinfo_of_a_url_is_hidden(text: str, shown: str) -> None:
    assert redact_urls(text) == shown


def test_json_values_are_redacted_everywhere_in_them() -> None:
    doc = {"inputs": {"endpoint": "K:S@h:1", "options": {"urls": ["https://a:b@h/"]},
                      "nodes": 3, "plan": None}}
    assert redact_values(doc) == {"inputs": {"endpoint": "***@h:1",
                                             "options": {"urls": ["https://***@h/"]},
                                             "nodes": 3, "plan": None}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("output", ["table", "json"])
def test_an_s3_endpoint_with_a_key_in_it_is_not_echoed(
        run_cli, monkeypatch: pytest.MonkeyPatch, output: str) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    port = _free_port()  # nothing listens: botocore names the endpoint in its error
    res = run_cli("groups", "--state", "s3://tf-states/k8s/terraform.tfstate", "-o", output,
                  "--s3-endpoint", f"http://AKIAEXAMPLEKEY:s3cr3tValue@127.0.0.1:{port}")
    assert res.exit_code == 3
    shown = res.stdout + res.stderr
    assert "s3cr3tValue" not in shown and "AKIAEXAMPLEKEY" not in shown   # was: both echoed
    assert f"cannot reach http://***@127.0.0.1:{port}" in shown
    if output == "json":
        assert json.loads(res.stdout)["error"]["message"] == (
            f"s3://tf-states/k8s/terraform.tfstate: cannot reach http://***@127.0.0.1:{port}")


def test_a_bad_s3_endpoint_and_an_endpoint_with_a_key_are_not_echoed(run_cli) -> None:
    res = run_cli("groups", "--state", "s3://tf-states/k", "--s3-endpoint",
                  "ht!tp://AKIAEXAMPLEKEY:s3cr3tValue@")
    assert res.exit_code == 2
    assert "s3cr3tValue" not in res.stderr and "ht!tp://***@" in res.stderr
    res = run_cli("plan", "-g", "workers", "--state", str(EXAMPLE_STATE), "-o", "json",
                  "--endpoint", "KEY:S3CRET@127.0.0.1:9", "--insecure")
    assert res.exit_code == 2
    assert "S3CRET" not in res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert doc["ngupgrade"]["inputs"]["endpoint"] == "***@127.0.0.1:9"
    assert doc["error"]["message"].endswith("not '***@127.0.0.1:9'")
