"""The fake cloud at the platform's limits: RPC latency while its Kubernetes API follows an
upgrade, against a plain gRPC servicer, in one run.

The fake (``ngupgrade.testing.FakeCloud``, in a process of its own, on a ``RealClock`` at
``--speed``) serves 5 node groups of 200 nodes (Yandex's per-group limit; 1,000 nodes in one
cluster) with 110 pods on every node (the kubelet's default ``maxPods``;
``kube_cluster.filled_workloads``: 110,000 pods, 1,080 Deployments, 720 PDBs), and its
Kubernetes API follows the upgrade (cordons, evictions under the PDBs, replacements placed,
drains timed). This process runs ``ngupgrade upgrade --apply`` of one group (the use case,
``run_upgrade``, on real time scaled by the same speed, with kube access: the drain gate
reads the live cluster, the watch follows the draining nodes' pods) through the SDK's stubs
on a plain gRPC channel, and times every RPC as the client sees it (an interceptor: from the
call to its answer, each retry its own call). A probe thread beside it calls
``OperationService.Get`` of the fake and of the baseline in turn (A B A B, every 50 ms).

Baseline (B): a plain gRPC servicer in a process of its own on loopback, answering the same
``OperationService.Get`` with a fixed operation: what any fake costs on this host now.

Targets (exit 1 when missed): every RPC of the upgrade and of the probe answers within
100 ms (p99 and max), none misses its deadline, and the upgrade ends OK. Printed beside:
p50/p99/max of each side, the fake's step cost (the longest ``World.tick`` holding the
world's lock, and the longest that applied a step) and its Kubernetes API's answer times.
Usage: ``python bench/bench_fake_scale.py [--groups 5 --nodes 200 --per-node 110 --policy 3/0
--speed 300]``; ``--budget SECONDS`` ends a run that cannot finish (the fake before it was
incremental: every tick re-read the whole cluster).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from harness import child_env, record  # noqa: E402

TARGET_MS = 100.0
CLUSTER = "catq0n7i0h9ka1b2c3d4"
TIB = 1 << 40
QUOTAS = {  # room for the surge beside 1,000 nodes of 8 vCPU / 32 GiB / 64 GiB SSD
    "compute.instances.count": {"limit": 2000, "usage": 1000},
    "compute.instanceCores.count": {"limit": 16000, "usage": 8000},
    "compute.instanceMemory.size": {"limit": 64 * TIB, "usage": 32 * TIB},
    "compute.disks.count": {"limit": 2000, "usage": 1000},
    "compute.ssdDisks.size": {"limit": 128 * TIB, "usage": 64 * TIB},
}


def group_id(g: int) -> str:
    return f"catgroup{g:012d}"


def groups_of(args: argparse.Namespace) -> list[Any]:
    """The node groups, as the fake and the client both build them (8 vCPU / 32 GiB)."""
    from ngupgrade.core.model import DeployPolicy
    from ngupgrade.testing import node_group

    surge, down = (int(v) for v in args.policy.split("/"))
    return [node_group(group_id(g), name=f"pool{g}", size=args.nodes, cores=8, memory_gib=32,
                       cluster_id=CLUSTER, policy=DeployPolicy(surge, down))
            for g in range(args.groups)]


# ---- the servers (child processes) ---------------------------------------------------------

def serve_fake(args: argparse.Namespace) -> int:
    """The fake, until stdin closes; then one JSON line of its lock and kube API times."""
    from ngupgrade.testing import FakeCloud, RealClock, Scenario
    from ngupgrade.testing.kube_api import FakeKubeApi
    from ngupgrade.testing.kube_cluster import filled_workloads
    from ngupgrade.testing.world import World

    ticks: list[float] = []
    steps: list[float] = []
    answers: list[float] = []
    tick, answer = World.tick, FakeKubeApi._answer

    def timed_tick(world: World) -> None:
        applied = sum(op.applied for op in world.operations.values())
        started = time.perf_counter()
        tick(world)
        spent = time.perf_counter() - started
        ticks.append(spent)
        if sum(op.applied for op in world.operations.values()) != applied:
            steps.append(spent)

    def timed_answer(api: FakeKubeApi, *a: Any) -> Any:
        started = time.perf_counter()
        try:
            return answer(api, *a)
        finally:
            answers.append(time.perf_counter() - started)

    World.tick = timed_tick  # type: ignore[method-assign]
    FakeKubeApi._answer = timed_answer  # type: ignore[method-assign]
    groups = groups_of(args)
    built = time.perf_counter()
    # the workloads are built by the kit's own builder, so the scenario's check of a
    # hand-written file (every object read by the drain check's reader) is skipped
    scenario = Scenario.from_mapping({"step_seconds": args.step_seconds,
                                      "versions": ["1.29", "1.30"],
                                      "clusters": {CLUSTER: {"master_version": "1.30"}},
                                      "clouds": {"b1gfakecloud00000001": {
                                          "folders": ["b1gexamplefolder00001"],
                                          "quotas": QUOTAS}}})
    scenario.workloads = filled_workloads(groups, args.per_node)
    fake = FakeCloud(groups, scenario, clock=RealClock(args.speed)).start()
    config = fake.write_kubeconfig(Path(args.dir) / "kubeconfig")
    pods = sum(1 for o in scenario.workloads if o.get("kind") == "Pod")
    print(json.dumps({"endpoint": fake.endpoint, "kubeconfig": str(config), "pods": pods,
                      "setup": time.perf_counter() - built}), flush=True)
    ticks.clear()
    steps.clear()
    answers.clear()
    sys.stdin.read()
    fake.stop()
    print(json.dumps({"ticks": ticks, "steps": steps, "kube": answers}), flush=True)
    return 0


def serve_baseline(_args: argparse.Namespace) -> int:
    """A plain OperationService on loopback answering one fixed operation, until stdin
    closes."""
    from concurrent import futures

    import grpc
    from yandex.cloud.operation import operation_pb2
    from yandex.cloud.operation import operation_service_pb2_grpc as operation_grpc

    answer = operation_pb2.Operation(id="op-1", description="Update node group",
                                     created_by="ajeng0pgrade0000test", done=False)

    class Plain(operation_grpc.OperationServiceServicer):
        def Get(self, request: Any, context: Any) -> Any:
            return answer

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    operation_grpc.add_OperationServiceServicer_to_server(Plain(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(json.dumps({"endpoint": f"127.0.0.1:{port}"}), flush=True)
    sys.stdin.read()
    server.stop(0.2).wait()
    return 0


def child(role: str, args: argparse.Namespace, tmp: str) -> tuple[subprocess.Popen[str], dict]:
    """Start this file as ``role``; return the process and its first line."""
    cmd = [sys.executable, __file__, f"--serve-{role}", "--dir", tmp,
           *(f"--{k.replace('_', '-')}={v}" for k, v in vars(args).items()
             if k in ("groups", "nodes", "per_node", "policy", "speed", "step_seconds"))]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=child_env(PYTHONPATH=str(ROOT)))
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"the {role} server did not start (exit {proc.wait()})")
    return proc, json.loads(line)


# ---- the client (this process) -------------------------------------------------------------

@dataclass
class Timings:
    """RPCs as the client saw them: (method, seconds, status code name)."""

    calls: list[tuple[str, float, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def interceptor(self) -> Any:
        import grpc

        timings = self

        class Timed(grpc.UnaryUnaryClientInterceptor):
            def intercept_unary_unary(self, continuation: Any, details: Any,
                                      request: Any) -> Any:
                started = time.perf_counter()
                response = continuation(details, request)
                code = response.code()  # waits for the answer
                with timings.lock:
                    timings.calls.append((str(details.method).rsplit("/", 2)[-2:][0]
                                          + "." + str(details.method).rsplit("/", 1)[-1],
                                          time.perf_counter() - started, code.name))
                return response

        return Timed()

    def seconds(self) -> list[float]:
        with self.lock:
            return [s for _m, s, _c in self.calls]

    def codes(self, name: str) -> int:
        with self.lock:
            return sum(1 for _m, _s, c in self.calls if c == name)


def timed_channel(endpoint: str, timings: Timings) -> Any:
    import grpc

    return grpc.intercept_channel(grpc.insecure_channel(endpoint), timings.interceptor())


def gateway(endpoint: str, timings: Timings, deadline: float, sleep: Callable[[float], None]
            ) -> Any:
    """ngupgrade's CloudGateway over the SDK's stubs on one timed plain channel."""
    from ngupgrade.adapters.cloud.gateway import CloudGateway

    channel = timed_channel(endpoint, timings)
    return CloudGateway(lambda ctor: ctor(channel), call_timeout=deadline, sleep=sleep,
                        close=channel.close)


def probe(fake: str, base: str, out: tuple[Timings, Timings], stop: threading.Event,
          operation: Callable[[], str], deadline: float) -> None:
    """A B A B: OperationService.Get of the fake's running operation, then the baseline's."""
    import grpc
    from yandex.cloud.operation import operation_service_pb2 as svc
    from yandex.cloud.operation import operation_service_pb2_grpc as stubs

    sides = [stubs.OperationServiceStub(timed_channel(fake, out[0])),
             stubs.OperationServiceStub(timed_channel(base, out[1]))]
    while not stop.wait(0.05):
        request = svc.GetOperationRequest(operation_id=operation())
        for stub in sides:
            with contextlib.suppress(grpc.RpcError):  # counted by the interceptor, by code
                stub.Get(request, timeout=deadline)


def upgrade(args: argparse.Namespace, fake: dict, base: dict, tmp: str
            ) -> tuple[int, str, Timings, Timings, Timings, float]:
    """Run the upgrade of pool0 with the probe beside it; (exit code, error, upgrade RPCs,
    fake probes, baseline probes, wall seconds)."""
    from ngupgrade.app.drain_check import ClusterSource
    from ngupgrade.app.settings import Settings
    from ngupgrade.app.timing import Timing
    from ngupgrade.app.upgrade import UpgradeRequest, run_upgrade
    from ngupgrade.core.drain.findings import CODES
    from ngupgrade.core.errors import NgUpgradeError
    from ngupgrade.upgrade.events import Event, OperationSeen, Progress
    from ngupgrade.upgrade.values import UpgradeOptions

    ends = time.monotonic() + args.budget

    def sleep(seconds: float) -> None:
        if time.monotonic() > ends:
            raise KeyboardInterrupt  # the budget is over: the run ends as after Ctrl-C
        time.sleep(seconds / args.speed)

    timing = Timing(lambda: time.monotonic() * args.speed, sleep)
    calls, probes, baseline = Timings(), Timings(), Timings()
    operation = ["op-0"]

    def hook(event: Event) -> None:
        if isinstance(event, (OperationSeen, Progress)):
            operation[0] = event.operation_id

    stop = threading.Event()
    side = threading.Thread(target=probe, args=(fake["endpoint"], base["endpoint"],
                                                (probes, baseline), stop,
                                                lambda: operation[0], args.deadline),
                            daemon=True)
    request = UpgradeRequest(
        selectors=("pool0",), apply=True, journal=str(Path(tmp) / "journal.json"),
        journal_dir=tmp, options=UpgradeOptions(version="1.30", stall_after=3600),
        cluster=ClusterSource(live=True, kubeconfig=fake["kubeconfig"]),
        accept=frozenset(CODES if args.accept == "all" else args.accept.split(",")))
    api = gateway(fake["endpoint"], calls, args.deadline, sleep)
    started = time.perf_counter()
    code, error = 0, ""
    side.start()
    try:
        run_upgrade(Settings(), request, timing=timing, api=api, emit=hook,
                    groups=groups_of(args))
    except NgUpgradeError as err:
        code, error = err.exit_code, str(err)
    except KeyboardInterrupt:
        code, error = 130, f"stopped after the --budget of {args.budget:g} s"
    finally:
        stop.set()
        side.join()
        api.close()
    return code, error, calls, probes, baseline, time.perf_counter() - started


def ms(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(name: str, values: list[float]) -> str:
    return (f"{name}: {len(values)} calls, p50 {ms(values, 0.5):.1f} ms, p99 "
            f"{ms(values, 0.99):.1f} ms, max {ms(values, 1.0):.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--groups", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--per-node", type=int, default=110)
    parser.add_argument("--policy", default="3/0", help="deploy policy of the groups (E/U)")
    parser.add_argument("--speed", type=float, default=300.0)
    parser.add_argument("--step-seconds", type=float, default=60.0)
    parser.add_argument("--deadline", type=float, default=5.0, help="each RPC's deadline, s")
    parser.add_argument("--budget", type=float, default=600.0,
                        help="real seconds the upgrade may take before it is stopped")
    parser.add_argument("--accept", default="all",
                        help="drain findings the gate proceeds past (comma-separated; all: "
                             "every code, the default: this bench measures the fake, and the "
                             "drain check foresees PDB waits the fake's instant replacements "
                             "never make)")
    parser.add_argument("--serve-fake", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-baseline", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_fake:
        return serve_fake(args)
    if args.serve_baseline:
        return serve_baseline(args)
    with tempfile.TemporaryDirectory() as tmp:
        return run(args, tmp)


def run(args: argparse.Namespace, tmp: str) -> int:
    base_proc, base = child("baseline", args, tmp)
    fake_proc, fake = child("fake", args, tmp)
    print(f"fake: {args.groups} groups of {args.nodes} nodes, {fake['pods']} pods, policy "
          f"{args.policy}, step {args.step_seconds:g} s, speed x{args.speed:g}; set up in "
          f"{fake['setup']:.0f} s", flush=True)
    try:
        code, error, calls, probes, baseline, wall = upgrade(args, fake, base, tmp)
    finally:
        for proc in (fake_proc, base_proc):
            assert proc.stdin is not None
            proc.stdin.close()
        assert fake_proc.stdout is not None
        lines = fake_proc.stdout.read().strip().splitlines()
        server = json.loads(lines[-1]) if lines else {"ticks": [], "steps": [], "kube": []}
        fake_proc.wait()
        base_proc.wait()
    return report(args, code, error, calls, probes, baseline, wall, server)


def report(args: argparse.Namespace, code: int, error: str, calls: Timings, probes: Timings,
           baseline: Timings, wall: float, server: dict) -> int:
    print(f"upgrade: exit {code} after {wall:.0f} s{': ' + error if error else ''}")
    print("  " + summary("the upgrade's RPCs", calls.seconds()))
    methods = sorted({m for m, _s, _c in calls.calls})
    for m in methods:
        print("    " + summary(m, [s for mm, s, _c in calls.calls if mm == m]))
    print("  " + summary("probe, the fake's OperationService.Get", probes.seconds()))
    print("  " + summary("probe, the plain servicer's Get (baseline)", baseline.seconds()))
    ticks, steps = server["ticks"], server["steps"]
    print(f"  the fake's lock: {summary('ticks', ticks)}; "
          f"{summary('ticks applying a step', steps)}")
    print(f"  the fake's Kubernetes API: {summary('answers', server['kube'])}")
    every = calls.seconds() + probes.seconds()
    late = sum(1 for s in every if s * 1000 > TARGET_MS)
    missed = calls.codes("DEADLINE_EXCEEDED") + probes.codes("DEADLINE_EXCEEDED")
    base_line = (f"a plain gRPC servicer's Get on loopback: p50 {ms(baseline.seconds(), 0.5):.1f}"
                 f", p99 {ms(baseline.seconds(), 0.99):.1f}, max "
                 f"{ms(baseline.seconds(), 1.0):.1f} ms")
    ok = record("RPC latency p99 while the kube follower works", ms(every, 0.99), TARGET_MS,
                unit=" ms", baseline=base_line,
                detail=f"p50 {ms(every, 0.5):.1f} ms; ratio of p50s "
                       f"{ms(every, 0.5) / max(1e-9, ms(baseline.seconds(), 0.5)):.1f}x")
    ok &= record("RPC latency max while the kube follower works", ms(every, 1.0), TARGET_MS,
                 unit=" ms", baseline=base_line, detail=f"{late} of {len(every)} over 100 ms")
    ok &= record("RPCs past their deadline", missed, 0, unit="",
                 baseline=f"{args.deadline:g} s deadline, none may miss it")
    ok &= record("the upgrade's exit code", code, 0, unit="", baseline="0: the upgrade ends OK")
    ok &= record("longest step under the world's lock", ms(steps, 1.0), TARGET_MS, unit=" ms",
                 baseline="the RPC budget", detail=summary("ticks", ticks))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
