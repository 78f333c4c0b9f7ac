"""How one call is made (``adapters.cloud.rpc``), on stubs that stand in for the SDK's.

Pagination, retry and the bare Update are tested over gRPC against the fake cloud
(test_cloud_gateway.py); these are the limits the fake cannot reach: a listing that never
ends, and the request id a bare call reports when it fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest

from ngupgrade.adapters.cloud.retry import RetryPolicy
from ngupgrade.adapters.cloud.rpc import PAGE_SIZE, Rpc
from ngupgrade.core.errors import CloudApiError


@dataclass
class Page:
    things: list[str]
    next_page_token: str


@dataclass
class Request:
    owner: str
    page_size: int
    page_token: str


@dataclass
class EndlessStub:
    """``List`` answers one item and a next token, forever; keeps every call."""

    calls: list[tuple[Request, dict[str, str]]] = field(default_factory=list)

    def List(self, request: Request, *, timeout: float, metadata: Any) -> Page:
        self.calls.append((request, dict(metadata)))
        n = len(self.calls)
        return Page([f"thing-{n}"], f"after-{n}")


class Unavailable(grpc.RpcError):
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection reset"


@dataclass
class FailingStub:
    metadata: list[dict[str, str]] = field(default_factory=list)

    def Update(self, request: Any, *, timeout: float, metadata: Any) -> Any:
        self.metadata.append(dict(metadata))
        raise Unavailable()


def test_a_listing_that_never_ends_gives_up_after_the_page_limit() -> None:
    stub = EndlessStub()
    rpc = Rpc(lambda ctor: stub, call_timeout=5.0, retry=RetryPolicy(), sleep=lambda s: None)
    items = rpc.listed("Stub", "List", Request, {"owner": "g1"}, "things", what="List(g1)",
                       limit=3)
    assert [next(items) for _ in range(3)] == ["thing-1", "thing-2", "thing-3"]
    with pytest.raises(CloudApiError, match="more than 3 pages; giving up"):
        next(items)
    assert [(r.owner, r.page_size, r.page_token) for r, _md in stub.calls] == [
        ("g1", PAGE_SIZE, ""), ("g1", PAGE_SIZE, "after-1"), ("g1", PAGE_SIZE, "after-2")]
    assert len({md["x-client-request-id"] for _r, md in stub.calls}) == 3


def test_a_bare_call_is_made_once_and_its_failure_names_the_request_id_it_sent() -> None:
    stub = FailingStub()
    rpc = Rpc(lambda ctor: stub, call_timeout=5.0, retry=RetryPolicy(),
              sleep=lambda s: pytest.fail("a bare call is never retried"),
              metadata=[("authorization", "Bearer t")])
    with pytest.raises(CloudApiError) as exc:
        rpc.once("Stub", "Update", object(), what="NodeGroupService.Update(g1, mask=version)")
    (sent,) = stub.metadata
    assert sent["authorization"] == "Bearer t"
    err = exc.value
    assert (err.code, err.request_id) == ("UNAVAILABLE", sent["x-client-request-id"])
    assert err.message == ("NodeGroupService.Update(g1, mask=version): connection reset "
                           f"[UNAVAILABLE] (request id {sent['x-client-request-id']})")
