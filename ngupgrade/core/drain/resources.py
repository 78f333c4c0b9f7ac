"""Requests and allocatable, in the scheduler's units (millicores, bytes, counts). Pure.

* :func:`pod_request`: a pod's effective request as the scheduler computes it (kubernetes
  ``component-helpers/resource/helpers.go: PodRequests``), init containers and native
  sidecars included, plus ``spec.overhead``; limits do not matter.
* :func:`yandex_allocatable`: what a Yandex node of a template offers to pods (docs
  ``managed-kubernetes/concepts/node-group/allocatable-resources``);
  :func:`template_allocatable` the same for a node group's platform (Selectel documents the
  same reservation bands).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction

from ngupgrade.core.k8s import Pod

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL = "ephemeral-storage"
PODS = "pods"
GPU = "nvidia.com/gpu"
STANDARD = frozenset({CPU, MEMORY, EPHEMERAL, PODS})
"""Resources every real node reports; one missing from a node's allocatable is not checked
(unknown), while a missing extended resource (``nvidia.com/gpu``...) is zero."""

MIB = 1 << 20
GIB_BYTES = 1 << 30
DEFAULT_MAX_PODS = 110
"""kubelet's default ``maxPods``; used for a surge node only when no node of its group shows
its ``pods`` allocatable."""


def add(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    """Per-resource sum."""
    out = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0) + value
    return out


def _max(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    out = dict(a)
    for key, value in b.items():
        if value > out.get(key, 0):
            out[key] = value
    return out


def pod_request(pod: Pod) -> dict[str, int]:
    """The effective request of ``pod``, including one ``pods`` slot.

    ``PodRequests``: the app containers' sum, plus every native sidecar (an init container
    with ``restartPolicy: Always``, which keeps running); each init container in turn needs
    its own request plus the sidecars started before it (a sidecar: the sidecars up to and
    including itself); the result is the per-resource max of the running total and every
    init step, plus ``spec.overhead``. Example: app 500m, sidecar 100m, init 800m after the
    sidecar -> max(500+100, 800+100) = 900m.
    """
    # Summed in place (the dict-returning add/_max per container cost 3 dicts a container;
    # this runs once per pod of a 150,000-pod cluster). Same keys, same values.
    running: dict[str, int] = {}
    for c in pod.containers:
        _add_into(running, c.requests)
    init_peak: dict[str, int] = {}
    if pod.init_containers:
        sidecars: dict[str, int] = {}
        for c in pod.init_containers:
            if c.sidecar:
                _add_into(running, c.requests)
                _add_into(sidecars, c.requests)
                step: Mapping[str, int] = sidecars
            else:
                step = add(c.requests, sidecars)
            _max_into(init_peak, step)
    total = _max(running, init_peak) if init_peak else running
    _add_into(total, pod.overhead)
    total[PODS] = 1
    return total


def _add_into(out: dict[str, int], b: Mapping[str, int]) -> None:
    for key, value in b.items():
        out[key] = out.get(key, 0) + value


def _max_into(out: dict[str, int], b: Mapping[str, int]) -> None:
    for key, value in b.items():
        if value > out.get(key, 0):
            out[key] = value


def fits(request: Mapping[str, int], free: Mapping[str, int]) -> bool:
    """True when every requested amount fits the free room (see :data:`STANDARD`)."""
    for key, amount in request.items():
        if amount <= 0:
            continue
        room = free.get(key)
        if room is None:
            if key in STANDARD:
                continue
            return False
        if amount > room:
            return False
    return True


def short_of(request: Mapping[str, int], free: Mapping[str, int]) -> tuple[str, ...]:
    """The resources ``request`` does not fit in ``free`` (for messages)."""
    return tuple(k for k, v in request.items() if v > 0 and (
        (free.get(k) is None and k not in STANDARD) or v > free.get(k, v)))


def sum_requests(pods: Iterable[Pod]) -> dict[str, int]:
    """Requests of the pods bound to a node that hold room (terminal pods hold none)."""
    total: dict[str, int] = {}
    for pod in pods:
        if pod.phase not in ("Succeeded", "Failed"):
            total = add(total, pod_request(pod))
    return total


# Yandex reservation tables (docs allocatable-resources): (size of the band, share reserved).
_CPU_BANDS = ((1, Fraction(6, 100)), (1, Fraction(1, 100)), (2, Fraction(5, 1000)))
_CPU_REST = Fraction(25, 10000)
_MEM_BANDS = ((4, Fraction(25, 100)), (4, Fraction(20, 100)), (8, Fraction(10, 100)),
              (112, Fraction(6, 100)))
_MEM_REST = Fraction(2, 100)
_MEM_SMALL = 255 * MIB
_EVICTION_THRESHOLD = 100 * MIB


def yandex_cpu_reserved_millicores(cores: int) -> int:
    """CPU the kubelet reserves on a Yandex node: 6 % of core 1, 1 % of core 2, 0.5 % of
    cores 3-4, 0.25 % of each core above 4. Rounded up to a whole millicore (5 cores reserve
    82.5m -> 83m), so the allocatable errs low, never high. 2 cores -> 70m, 4 -> 80m,
    8 -> 90m."""
    left, reserved = Fraction(cores), Fraction(0)
    for size, share in _CPU_BANDS:
        part = min(left, Fraction(size))
        reserved += part * share * 1000
        left -= part
    reserved += left * _CPU_REST * 1000
    return math.ceil(reserved)


def yandex_memory_reserved_bytes(memory_bytes: int) -> int:
    """Memory reserved on a Yandex node: 255 MiB below 1 GiB, else 25 % of the first 4 GiB,
    20 % of the next 4, 10 % of the next 8, 6 % of the next 112, 2 % above 128 GiB; plus the
    100 MiB eviction threshold. The docs write MB/GB; they are read as binary (MiB/GiB, the
    reference marks it ⚠; the docs' own examples agree only this way). Rounded up to a whole
    byte. 4 GiB -> 1124 MiB; 8 GiB -> 1943.2 MiB; 32 GiB -> 3745.44 MiB."""
    if memory_bytes < GIB_BYTES:
        return _MEM_SMALL + _EVICTION_THRESHOLD
    left, reserved = Fraction(memory_bytes), Fraction(0)
    for size_gib, share in _MEM_BANDS:
        part = min(left, Fraction(size_gib * GIB_BYTES))
        reserved += part * share
        left -= part
    reserved += left * _MEM_REST
    return math.ceil(reserved) + _EVICTION_THRESHOLD


def template_allocatable(platform: str, cores: int, memory_bytes: int, *, gpus: int = 0,
                         pods: int = DEFAULT_MAX_PODS,
                         ephemeral_bytes: int | None = None) -> dict[str, int]:
    """Allocatable of a new node of a template on ``platform`` (``yandex`` or ``selectel``):
    capacity minus the reservation that platform documents. Shapes and units as
    :func:`yandex_allocatable`.

    Each platform's own source: Yandex, docs ``managed-kubernetes/concepts/node-group/
    allocatable-resources``; Selectel, docs ``managed-kubernetes/node-groups/
    reserve-resources-for-system-daemons`` ("Резервирование ресурсов для системных
    компонентов"): vCPU 6 % of the first core, 1 % of the second, 0.5 % of the third and
    fourth, 0.25 % of each further core; RAM 255 MB below 1 GB, else 25 % of the first 4 GB,
    20 % of the next 4, 10 % of the next 8, 6 % of the next 112, 2 % above 128 GB; plus 100 MB
    for eviction. The bands are Yandex's, so one table serves both (MB/GB read as binary as
    for Yandex). Selectel reserves them on new nodes of clusters on Kubernetes 1.27 and
    later, which a surge node is (existing nodes only after a reinstall, so a current node's
    allocatable may be larger).
    """
    del platform  # both platforms document the same bands (above)
    return yandex_allocatable(cores, memory_bytes, gpus=gpus, pods=pods,
                              ephemeral_bytes=ephemeral_bytes)


def yandex_allocatable(cores: int, memory_bytes: int, *, gpus: int = 0,
                       pods: int = DEFAULT_MAX_PODS,
                       ephemeral_bytes: int | None = None) -> dict[str, int]:
    """Allocatable of a Yandex node: capacity minus the reservations above.

    ``cores`` whole vCPUs (core fraction does not change the reservation), ``memory_bytes``
    bytes; ``gpus`` become ``nvidia.com/gpu``; ``pods`` and ``ephemeral_bytes`` are taken as
    given (the formula does not cover them; see :data:`STANDARD` for a None). Examples from
    the docs: 2 vCPU/4 GiB -> 1930m and 2972 MiB; 4/8 -> 3920m and 6248.8 MiB; 8/32 -> 7910m
    and 29022.56 MiB.
    """
    out = {CPU: cores * 1000 - yandex_cpu_reserved_millicores(cores),
           MEMORY: memory_bytes - yandex_memory_reserved_bytes(memory_bytes),
           PODS: pods}
    if gpus:
        out[GPU] = gpus
    if ephemeral_bytes is not None:
        out[EPHEMERAL] = ephemeral_bytes
    return out
