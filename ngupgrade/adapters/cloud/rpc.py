"""One RPC to the cloud: the plumbing under :class:`~ngupgrade.adapters.cloud.gateway.CloudGateway`.

Every call gets a stub made once (under a lock), a deadline (``call_timeout`` seconds) and a
fresh ``x-client-request-id``; any gRPC failure leaves here as
:class:`~ngupgrade.core.errors.CloudApiError` (exit 4) with the code, the message, the request
id (``x-request-id`` from the answer, else the one we sent) and a hint. Reads and polls
(:meth:`Rpc.read`, :meth:`Rpc.listed`) retry the transient codes
(:mod:`ngupgrade.adapters.cloud.retry`); a mutation (:meth:`Rpc.once`) is one call, never
retried. Nothing here knows a message shape (:mod:`ngupgrade.adapters.cloud.proto` does).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ngupgrade.adapters.cloud.retry import RetryPolicy, call_with_retry, rpc_code_name
from ngupgrade.core.errors import CloudApiError

StubFactory = Callable[[Any], Any]
"""Gives a ready stub for a ``yandex.cloud.*_pb2_grpc.*Stub`` class (wraps ``sdk.client``)."""

DEFAULT_RETRY = RetryPolicy()

PAGE_SIZE = 1000
"""``page_size`` of every list call (the API's maximum)."""

MAX_PAGES = 1000
"""Pages one listing may take before :meth:`Rpc.listed` gives up."""

_HINTS = {
    "UNAUTHENTICATED": "set YC_IAM_TOKEN, YC_TOKEN or YC_SERVICE_ACCOUNT_KEY_FILE "
                       "(see docs/cloud.md)",
    "PERMISSION_DENIED": "the account needs k8s.viewer to read and k8s.editor to change node "
                         "groups, resource-manager.viewer for folders, quota-manager.viewer "
                         "for quotas",
    "NOT_FOUND": "check the id; the state may be older than the cloud",
}


def translate(err: BaseException, what: str, client_request_id: str | None = None
              ) -> CloudApiError:
    """A ``grpc.RpcError`` as a :class:`CloudApiError` naming the call, code and request id."""
    code = rpc_code_name(err) or "UNKNOWN"
    details = getattr(err, "details", None)
    message = (details() if callable(details) else None) or str(err)
    request_id = None
    for getter in ("trailing_metadata", "initial_metadata"):
        fn = getattr(err, getter, None)
        try:
            pairs = fn() if callable(fn) else None
        except Exception:
            pairs = None
        for key, value in pairs or ():
            if key == "x-request-id":
                request_id = str(value)
        if request_id:
            break
    return CloudApiError(f"{what}: {message}", code=code,
                         request_id=request_id or client_request_id, hint=_HINTS.get(code))


class Rpc:
    """Calls of the SDK's stubs with a deadline, request ids, retry of reads and translation.

    ``stubs`` makes a stub for a ``*Stub`` class; ``metadata`` goes with every call (the bearer
    token on the fake cloud's plain channel); ``sleep`` drives the retry backoff.
    """

    def __init__(self, stubs: StubFactory, *, call_timeout: float, retry: RetryPolicy,
                 sleep: Callable[[float], None] = time.sleep,
                 metadata: Sequence[tuple[str, str]] = ()) -> None:
        self._stubs = stubs
        self._cache: dict[Any, Any] = {}
        # The preflight calls the gateway from a thread pool; the SDK's channel cache and
        # endpoint discovery are not thread-safe, so stubs are made under a lock.
        self._cache_lock = threading.Lock()
        self.call_timeout = call_timeout
        self.retry = retry
        self.sleep = sleep
        self.metadata = tuple(metadata)

    def stub(self, ctor: Any) -> Any:
        """The stub for ``ctor``, made on first use. Raises CloudApiError (endpoint discovery)."""
        stub = self._cache.get(ctor)
        if stub is not None:
            return stub
        with self._cache_lock:
            stub = self._cache.get(ctor)
            if stub is not None:
                return stub
            try:
                stub = self._cache[ctor] = self._stubs(ctor)
            except Exception as err:
                # The SDK discovers service endpoints (ApiEndpointService.List) while making
                # the first client; a failure there is a transport error like any other.
                if rpc_code_name(err) is None:
                    raise
                api = translate(err, "API endpoint discovery")
                raise CloudApiError(
                    api.message, hint="check the network and credentials, or pass --endpoint "
                                      "HOST:PORT (the fake cloud: --endpoint 127.0.0.1:PORT "
                                      "--insecure)") from err
        return stub

    def _send(self, fn: Any, request: Any, ids: list[str]) -> Any:
        rid = str(uuid.uuid4())
        ids.append(rid)
        return fn(request, timeout=self.call_timeout,
                  metadata=(*self.metadata, ("x-client-request-id", rid)))

    def read(self, ctor: Any, method: str, request: Any, *, what: str) -> Any:
        """``ctor.method(request)``, retried on transient codes. Raises CloudApiError."""
        fn = getattr(self.stub(ctor), method)
        ids: list[str] = []
        try:
            return call_with_retry(lambda: self._send(fn, request, ids), what=what,
                                   policy=self.retry, sleep=self.sleep)
        except Exception as err:
            if rpc_code_name(err) is None:
                raise
            raise translate(err, what, ids[-1] if ids else None) from err

    def listed(self, ctor: Any, method: str, request_type: Any, fields: Mapping[str, Any],
               items: str, *, what: str, limit: int = MAX_PAGES) -> Iterator[Any]:
        """Every item of a list call, page after page: each request is
        ``request_type(**fields, page_size=PAGE_SIZE, page_token=token)`` (the first token
        ``""``, then each answer's ``next_page_token``), each page a :meth:`read`, the items the
        answer's field ``items``. Raises CloudApiError, also past ``limit`` pages."""
        token = ""
        for _ in range(limit):
            page = self.read(ctor, method, request_type(**fields, page_size=PAGE_SIZE,
                                                        page_token=token), what=what)
            yield from getattr(page, items)
            token = page.next_page_token
            if not token:
                return
        raise CloudApiError(f"more than {limit} pages; giving up")

    def once(self, ctor: Any, method: str, request: Any, *, what: str) -> Any:
        """``ctor.method(request)`` once, never retried (a mutation). Raises CloudApiError."""
        fn = getattr(self.stub(ctor), method)
        ids: list[str] = []
        try:
            return self._send(fn, request, ids)
        except Exception as err:
            if rpc_code_name(err) is None:
                raise
            raise translate(err, what, ids[-1]) from err
