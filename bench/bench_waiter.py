"""Polls and completion delay of ngupgrade's waiter vs the yandexcloud SDK waiter.

Both run against the fake cloud over gRPC through the real SDK:

* the SDK waiter (``sdk.wait_operation_and_get_result``) is run for a few real seconds on a
  never-ending operation, to measure its poll rate in this run (it sleeps a fixed second; its
  channel is pinned to the fake with the subclass workaround of reference section 3.4); over a
  30-minute operation that rate means ~1800 polls. It also shows C11: at its timeout it
  returns the unfinished operation as a result;
* ngupgrade's waiter runs on the fake's virtual clock for operations of 5 min .. 6 h and
  reports polls made and the delay between completion and the poll that noticed it.

Targets (issue 5): at most 1/20 of the SDK waiter's polls for a 30-minute operation, and
completion noticed within one poll interval (cap 30 s). Exit 1 when a target is missed.
Run: ``python bench/bench_waiter.py`` (``make bench`` sets ``PYTHONPATH``)
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import record

from ngupgrade.adapters.cloud.waiter import PollPolicy, wait_operation
from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing import FakeCloud, node_group

GID = "catgroup000000000001"
SDK_SECONDS = 3.0


def sdk_poll_rate() -> tuple[float, bool]:
    """Polls per second of the SDK waiter, and whether it returned an unfinished operation."""
    import yandexcloud
    from yandex.cloud.k8s.v1 import node_group_service_pb2 as svc
    from yandex.cloud.k8s.v1 import node_group_service_pb2_grpc as stubs

    logging.getLogger().setLevel(logging.ERROR)  # the SDK helper logs to the root logger
    with FakeCloud([node_group(GID, size=3)], {"faults": [{"kind": "stall", "at_step": 0}]}
                   ) as fake:
        endpoint = fake.endpoint

        class PinnedSDK(yandexcloud.SDK):
            def client(self, stub_ctor: Any, interceptor: Any = None, endpoint: Any = None,
                       insecure: bool = False) -> Any:
                return super().client(stub_ctor, interceptor=interceptor,
                                      endpoint=pinned, insecure=True)

        pinned = endpoint
        sdk = PinnedSDK()
        op = sdk.client(stubs.NodeGroupServiceStub).Update(svc.UpdateNodeGroupRequest(
            node_group_id=GID, update_mask={"paths": ["version"]},
            version={"version": "1.30"}), timeout=5)
        start = time.monotonic()
        result = sdk.wait_operation_and_get_result(op, timeout=SDK_SECONDS)
        elapsed = time.monotonic() - start
        polls = len(fake.calls_to("OperationService.Get"))
        returned_unfinished = result is not None and not fake.operation(op.id).done
        # the first Get is immediate, then one per sleep(1)
        return (polls - 1) / elapsed, returned_unfinished


def ours(op_seconds: float, policy: PollPolicy) -> tuple[int, float]:
    """Polls made and completion-to-notice delay for an operation of ``op_seconds``."""
    steps = 9  # 3 nodes, 1/0: create, drain, delete x 3
    with FakeCloud([node_group(GID, size=3, policy=DeployPolicy(1, 0))],
                   {"step_seconds": op_seconds / steps}) as fake:
        gw = fake.gateway()
        ref = gw.update_node_group(GID, version="1.30")
        start = fake.now()
        wait_operation(gw, ref.id, timeout=op_seconds * 2, policy=policy, clock=fake.now,
                       sleep=fake.sleep)
        noticed = fake.now() - start
        finished = fake.operation(ref.id).finished
        gw.close()
        return len(fake.calls_to("OperationService.Get")), noticed - finished


def main() -> int:
    policy = PollPolicy()
    rate, unfinished = sdk_poll_rate()
    print(f"SDK waiter: {rate:.2f} polls/s measured over {SDK_SECONDS:.0f} s real time; "
          f"returned an unfinished operation as a result at its timeout: {unfinished}")
    print(f"ngupgrade waiter: interval {policy.initial:g} s x{policy.factor:g} up to a "
          f"{policy.cap:g} s cap\n")
    print(f"{'operation':>10} {'SDK polls':>10} {'ours':>6} {'ratio':>7} "
          f"{'noticed after (max)':>20}")
    ok = True
    for minutes in (5, 30, 120, 360):
        seconds = minutes * 60.0
        sdk_polls = seconds * rate
        # completion at a few offsets, so it does not line up with a poll by chance
        runs = [ours(seconds + offset, policy) for offset in (0.7, 7.3, 19.9)]
        polls = max(p for p, _ in runs)
        delay = max(d for _, d in runs)
        ratio = sdk_polls / polls
        print(f"{minutes:>8} m {sdk_polls:>10.0f} {polls:>6} {ratio:>6.1f}x {delay:>18.1f} s")
        if minutes == 30:
            ok &= record("polls / the SDK waiter's, 30-minute operation", polls / sdk_polls,
                         1 / 20, baseline="yandexcloud's wait_operation_and_get_result",
                         detail=f"{polls} vs {sdk_polls:.0f}")
        ok &= record(f"completion noticed after, {minutes}-minute operation", delay,
                     policy.cap, unit=" s", baseline="one poll interval at its cap")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
