"""RPC retry policy: what to do when a *call* fails transiently (not: is the operation done?).

Only the named transient gRPC codes are retried, and only for reads and polls: UNAVAILABLE,
DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED. Backoff is exponential with full jitter, capped both
by attempts and by elapsed time; the last real ``grpc.RpcError`` is re-raised; one log line per
retry. Mutations never go through here (see ``CloudGateway.update_node_group``).
``sleep`` is injected so tests retry without sleeping (the stamina/hcloud habit, STYLE.md).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import tenacity

log = logging.getLogger("ngupgrade.adapters.cloud")

T = TypeVar("T")

TRANSIENT_CODES: frozenset[str] = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED",
                                             "RESOURCE_EXHAUSTED"})
"""gRPC status code names retried on reads and polls."""


def rpc_code_name(err: BaseException) -> str | None:
    """The gRPC code name of a ``grpc.RpcError`` (e.g. ``UNAVAILABLE``), else None."""
    code = getattr(err, "code", None)
    if not callable(code):
        return None
    try:
        value = code()
    except Exception:  # a RpcError without status: not ours to judge
        return None
    return getattr(value, "name", None)


def is_transient(err: BaseException) -> bool:
    """True for a ``grpc.RpcError`` whose code is in :data:`TRANSIENT_CODES`."""
    return rpc_code_name(err) in TRANSIENT_CODES


@dataclass(frozen=True)
class RetryPolicy:
    """Caps of the RPC retry: at most ``attempts`` calls and ``max_seconds`` of retrying.

    Waits are ``random(0, min(max_backoff, initial * 2**n))`` seconds (full jitter).
    """

    attempts: int = 5
    max_seconds: float = 60.0
    initial: float = 0.5
    max_backoff: float = 10.0


class _StopAfterSlept(tenacity.stop.stop_base):
    """Stop once the backoff slept so far reaches ``seconds`` (``RetryCallState.idle_for``)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __call__(self, retry_state: tenacity.RetryCallState) -> bool:
        return retry_state.idle_for >= self.seconds


def call_with_retry(fn: Callable[[], T], *, what: str, policy: RetryPolicy = RetryPolicy(),
                    sleep: Callable[[float], None] = time.sleep) -> T:
    """Call ``fn()``; retry transient gRPC failures per ``policy``; re-raise the last error.

    ``what`` names the call in the log line (e.g. ``NodeGroupService.Get(catq...)``).
    """

    def before_sleep(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        delay = state.next_action.sleep if state.next_action else 0.0
        log.warning("retrying %s: %s (attempt %d of %d, next in %.1f s)", what,
                    rpc_code_name(exc) if exc else "?", state.attempt_number, policy.attempts,
                    delay)

    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception(is_transient),
        # the time cap counts both the real time spent and the backoff slept (which is all
        # there is when ``sleep`` is injected)
        stop=tenacity.stop_any(
            tenacity.stop_after_attempt(policy.attempts),
            tenacity.stop_after_delay(policy.max_seconds),
            _StopAfterSlept(policy.max_seconds)),
        wait=tenacity.wait_random_exponential(multiplier=policy.initial, max=policy.max_backoff),
        sleep=sleep,
        reraise=True,
        before_sleep=before_sleep,
    )
    return retrying(fn)
