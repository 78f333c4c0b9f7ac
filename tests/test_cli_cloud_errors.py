"""Cloud faults a new user meets first: no reachable API, malformed flags before any call."""

from __future__ import annotations

import socket

from tests.conftest import EXAMPLE_STATE


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_endpoint_discovery_failure_is_an_api_error_not_a_bug(run_cli) -> None:
    """Without --insecure the SDK discovers endpoints first; that failure is exit 4."""
    endpoint = f"127.0.0.1:{_closed_port()}"
    for args in (["preflight", "-g", "workers"],
                 ["upgrade", "-g", "workers", "--version", "1.30"]):
        result = run_cli(*args, "--state", str(EXAMPLE_STATE), "--endpoint", endpoint)
        assert result.exit_code == 4, result.stderr
        assert result.stderr.startswith("error: API endpoint discovery: ")
        assert "[UNAVAILABLE]" in result.stderr
        assert "hint: check the network and credentials, or pass --endpoint" in result.stderr
        assert "internal error" not in result.stderr


def test_malformed_version_is_refused_before_any_call(run_cli) -> None:
    endpoint = f"127.0.0.1:{_closed_port()}"  # nothing listens: a call would fail with 4
    result = run_cli("upgrade", "--state", str(EXAMPLE_STATE), "--endpoint", endpoint,
                     "--insecure", "-g", "workers", "--version", "banana")
    assert result.exit_code == 2
    assert "not a Kubernetes version: 'banana'" in result.stderr


# Found here as an xfail; fixed on main (5a70b8d1). Kept as a guard: the SDK's endpoint
# discovery (a TLS --endpoint on a closed port) used to escape as exit 70.
def test_unreachable_tls_endpoint_is_an_api_error(run_cli) -> None:
    result = run_cli("plan", "--state", str(EXAMPLE_STATE), "--endpoint", "127.0.0.1:1")
    assert result.exit_code == 4, result.stderr
    assert "internal error" not in result.stderr
