"""Credentials and transport security, as the Yandex tools resolve them.

Order (the first one set wins): ``YC_IAM_TOKEN`` (an IAM token), ``YC_TOKEN`` (an OAuth
token, exchanged for IAM tokens by the SDK), ``YC_SERVICE_ACCOUNT_KEY_FILE`` (an authorized key
JSON with ``id``, ``service_account_id``, ``private_key``), else the metadata service of the VM
the tool runs on (the SDK's default). A token is never printed, logged or put in an error:
:class:`Credentials` shows only its kind.

Transport: an ``--endpoint`` on loopback (127.0.0.0/8, ``localhost``, ``::1``) may be plain text
with ``--insecure`` (the fake cloud); anything else is TLS, with ``--ca-file`` for a custom CA.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ngupgrade.core.bounds import INT_LIMIT_MESSAGE, is_int_limit
from ngupgrade.core.errors import BadInput, UsageError
from ngupgrade.core.text import LONE_SURROGATE_MESSAGE, lone_surrogate_path

CredentialKind = Literal["iam_token", "oauth_token", "service_account_key", "metadata"]


@dataclass(frozen=True)
class Credentials:
    """Which credentials to hand to the SDK. ``repr`` and ``str`` never show the secret."""

    kind: CredentialKind
    source: str
    _secret: Any = field(default=None, repr=False, compare=False)

    def sdk_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``yandexcloud.SDK(...)``; empty means the metadata service."""
        if self.kind == "iam_token":
            return {"iam_token": self._secret}
        if self.kind == "oauth_token":
            return {"token": self._secret}
        if self.kind == "service_account_key":
            return {"service_account_key": self._secret}
        return {}

    def bearer(self) -> str | None:
        """The IAM token to send as ``authorization: Bearer`` on a plain-text loopback channel."""
        return self._secret if self.kind == "iam_token" else None

    def __str__(self) -> str:
        return f"{self.kind} (from {self.source})"


def resolve_credentials(environ: Mapping[str, str]) -> Credentials:
    """Pick credentials from the environment in the order of the Yandex tools.

    Raises:
        UsageError: ``YC_IAM_TOKEN`` or ``YC_TOKEN`` holds a character a gRPC header cannot
            carry (a line break, a non-ASCII letter); the message names the variable, never
            the token.
        BadInput: ``YC_SERVICE_ACCOUNT_KEY_FILE`` names a file that cannot be read or is not an
            authorized key: a field missing, or a ``private_key`` that is not an unencrypted RSA
            PEM key (the message names the file and the field, never the key).
    """
    if environ.get("YC_IAM_TOKEN"):
        return Credentials("iam_token", "YC_IAM_TOKEN",
                           _header_safe(environ["YC_IAM_TOKEN"], "YC_IAM_TOKEN"))
    if environ.get("YC_TOKEN"):
        return Credentials("oauth_token", "YC_TOKEN", _header_safe(environ["YC_TOKEN"], "YC_TOKEN"))
    path = environ.get("YC_SERVICE_ACCOUNT_KEY_FILE")
    if path:
        return Credentials("service_account_key", path, _read_key_file(path))
    return Credentials("metadata", "metadata service (169.254.169.254)")


_HEADER_SAFE = re.compile(r"[\x20-\x7e]+")
"""What a gRPC metadata value may hold: printable ASCII (RFC 7540 8.1.2 via gRPC's HTTP/2
spec). Anything else, sent as ``authorization: Bearer ...``, ends as "Invalid metadata
[INTERNAL]" from the C core, naming nothing."""


_SOURCE = {"YC_IAM_TOKEN": "yc iam create-token", "YC_TOKEN": "yc config get token"}


def _header_safe(token: str, variable: str) -> str:
    """``token`` when it can travel in a header; else a UsageError naming ``variable``."""
    if _HEADER_SAFE.fullmatch(token):
        return token
    what = ("a line break" if any(c in token for c in "\r\n")
            else "a non-ASCII character" if any(ord(c) > 0x7E for c in token)
            else "a control character")
    raise UsageError(
        f"{variable} holds {what}; a token is printable ASCII only (the value is not shown)",
        hint=f"set it again without it, e.g. export {variable}=\"$({_SOURCE[variable]})\" "
             "(command substitution drops the trailing newline); a token pasted from a "
             "document may carry a non-ASCII look-alike")


def _read_key_file(path: str) -> dict[str, str]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise BadInput(f"cannot read service account key: {err.strerror}", source=path) from err
    except json.JSONDecodeError as err:
        raise BadInput(f"service account key is not JSON (line {err.lineno})", source=path) from err
    except UnicodeDecodeError as err:
        raise BadInput(f"service account key is not UTF-8 text (byte {err.start})",
                       source=path) from err
    except RecursionError as err:
        raise BadInput("service account key nested too deeply", source=path) from err
    except ValueError as err:  # an integer past Python's digit limit
        if not is_int_limit(err):
            raise
        raise BadInput(f"service account key {INT_LIMIT_MESSAGE}", source=path) from err
    where = lone_surrogate_path(data)
    if where is not None:
        raise BadInput(f"service account key {LONE_SURROGATE_MESSAGE}", source=path, path=where)
    if not isinstance(data, dict):
        raise BadInput("service account key is not a JSON object", source=path)
    missing = [k for k in ("id", "service_account_id", "private_key") if not data.get(k)]
    if missing:
        raise BadInput(f"service account key lacks {', '.join(missing)}", source=path,
                       hint="create one with `yc iam key create --service-account-name NAME "
                            "--output key.json`")
    key = {k: str(data[k]) for k in ("id", "service_account_id", "private_key")}
    _check_private_key(key["private_key"], path)
    return key


def _check_private_key(pem: str, path: str) -> None:
    """The SDK signs its JWT with PS256: ``private_key`` must be an unencrypted RSA PEM key.

    Otherwise the SDK raises RuntimeError('Invalid Service Account Key ...') or fails when it
    signs. The message names the file, never the key.
    """
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    hint = ("create one with `yc iam key create --service-account-name NAME --output key.json`; "
            "private_key starts with -----BEGIN PRIVATE KEY-----")
    not_pem = "service account key: private_key is not an unencrypted PKCS#8 PEM private key"
    if "-----BEGIN PRIVATE KEY-----" not in pem:  # the SDK's own check (PKCS#1 fails it too)
        raise BadInput(not_pem, source=path, hint=hint)
    try:
        key = load_pem_private_key(pem.encode("utf-8", "surrogatepass"), password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as err:
        raise BadInput(not_pem, source=path, hint=hint) from err
    if not isinstance(key, RSAPrivateKey):
        raise BadInput("service account key: private_key is not an RSA key", source=path,
                       hint=hint)


def is_loopback(endpoint: str) -> bool:
    """True for ``127.x.x.x:PORT``, ``localhost:PORT``, ``[::1]:PORT``."""
    host = endpoint.rsplit(":", 1)[0] if ":" in endpoint else endpoint
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Transport:
    """How to reach the API: ``endpoint`` None is the public cloud via discovery."""

    endpoint: str | None
    insecure: bool
    root_certificates: bytes | None


_HOSTNAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?")


def check_endpoint(endpoint: str) -> None:
    """Accept ``HOST:PORT`` only: a host name, an IPv4 address or ``[IPv6]``, port 1..65535.

    gRPC takes anything as a target and only fails when it connects, so a typo (no port, a URL,
    a path) would be retried as UNAVAILABLE for seconds and end as an API error (exit 4).

    Raises:
        UsageError: naming ``--endpoint``/``YC_ENDPOINT`` and the value.
    """
    host, sep, port = endpoint.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        try:
            good_host = isinstance(ipaddress.ip_address(host[1:-1]), ipaddress.IPv6Address)
        except ValueError:
            good_host = False
    else:
        good_host = _HOSTNAME.fullmatch(host) is not None
    good_port = port.isascii() and port.isdigit() and 1 <= int(port) <= 65535
    if not (sep and good_host and good_port):
        raise UsageError(f"--endpoint (or YC_ENDPOINT) must be HOST:PORT with a port 1..65535, "
                         f"not {endpoint!r}",
                         hint="e.g. api.cloud.yandex.net:443, or 127.0.0.1:PORT for the fake "
                              "cloud; no scheme, no path")


PEM_CERTIFICATE = "-----BEGIN CERTIFICATE-----"
"""The line that opens each certificate of a PEM bundle (RFC 7468 section 2)."""
_PEM_LINE = re.compile(rb"^[ \t]*-----BEGIN CERTIFICATE-----[ \t]*\r?$", re.MULTILINE)
"""That line on a line of its own: inside a JSON string (a Terraform state's
``cluster_ca_certificate``) it is no certificate gRPC can read."""


def resolve_transport(endpoint: str | None, insecure: bool, ca_file: str | None) -> Transport:
    """Check the endpoint flags together.

    Raises:
        UsageError: an endpoint that is not ``HOST:PORT``; ``--insecure`` without an endpoint or
            with a non-loopback one.
        BadInput: ``--ca-file`` cannot be read, or holds no PEM certificate (no line
            ``-----BEGIN CERTIFICATE-----``: a DER file, a key, a state file), which
            gRPC would take and fail on only at the first call ("Failed to create security
            handshaker", exit 4).
    """
    if endpoint:
        check_endpoint(endpoint)
    if insecure and not endpoint:
        raise UsageError("--insecure needs --endpoint (a loopback address such as the fake cloud)")
    if insecure and endpoint and not is_loopback(endpoint):
        raise UsageError(f"--insecure is allowed only for a loopback endpoint, not {endpoint}",
                         hint="use TLS; pass --ca-file for a custom certificate authority")
    roots = None
    if ca_file:
        try:
            with open(ca_file, "rb") as fh:
                roots = fh.read()
        except OSError as err:
            raise BadInput(f"cannot read CA bundle: {err.strerror}", source=ca_file) from err
        if not _PEM_LINE.search(roots):
            raise BadInput(f"not a PEM CA bundle: no {PEM_CERTIFICATE} line",
                           source=ca_file,
                           hint="--ca-file takes the certificate authority's certificate(s) in "
                                "PEM; a DER one converts with `openssl x509 -inform DER -in "
                                "ca.der -out ca.pem`")
    return Transport(endpoint, bool(insecure), roots)
