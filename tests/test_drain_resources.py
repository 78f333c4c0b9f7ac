"""Requests and allocatable (core/drain/resources.py), numbers computed by hand."""

from __future__ import annotations

from ngupgrade.core.drain.resources import (
    fits,
    pod_request,
    yandex_allocatable,
    yandex_cpu_reserved_millicores,
    yandex_memory_reserved_bytes,
)
from ngupgrade.core.k8s import Container, Pod

MIB = 1 << 20
GIB = 1 << 30


def _pod(containers: tuple[Container, ...], init: tuple[Container, ...] = (),
         overhead: dict[str, int] | None = None) -> Pod:
    return Pod("ns", "p", containers=containers, init_containers=init, overhead=overhead or {})


def test_request_is_the_sum_of_app_containers_plus_a_pod_slot() -> None:
    p = _pod((Container("a", {"cpu": 250, "memory": 64 * MIB}),
              Container("b", {"cpu": 500})))
    assert pod_request(p) == {"cpu": 750, "memory": 64 * MIB, "pods": 1}


def test_init_container_larger_than_the_app_sets_the_request() -> None:
    # app 500m; plain init 800m -> max(500, 800) = 800m; memory: app 256 Mi vs init 64 Mi.
    p = _pod((Container("app", {"cpu": 500, "memory": 256 * MIB}),),
             init=(Container("migrate", {"cpu": 800, "memory": 64 * MIB}),))
    assert pod_request(p) == {"cpu": 800, "memory": 256 * MIB, "pods": 1}


def test_native_sidecar_adds_to_the_app_and_to_later_init_containers() -> None:
    # sidecar 100m (restartPolicy Always) then init 800m: init step = 800 + 100 = 900m;
    # running = app 500 + sidecar 100 = 600m; request = max(600, 900) = 900m.
    p = _pod((Container("app", {"cpu": 500}),),
             init=(Container("proxy", {"cpu": 100}, sidecar=True), Container("init", {"cpu": 800})))
    assert pod_request(p)["cpu"] == 900
    # An init container *before* the sidecar does not see it: max(600, 800) = 800m.
    q = _pod((Container("app", {"cpu": 500}),),
             init=(Container("init", {"cpu": 800}), Container("proxy", {"cpu": 100}, sidecar=True)))
    assert pod_request(q)["cpu"] == 800


def test_overhead_is_added_on_top() -> None:
    p = _pod((Container("app", {"cpu": 500}),), overhead={"cpu": 250, "memory": 120 * MIB})
    assert pod_request(p) == {"cpu": 750, "memory": 120 * MIB, "pods": 1}


def test_fits_checks_extended_resources_but_not_unknown_standard_ones() -> None:
    assert fits({"cpu": 1000, "nvidia.com/gpu": 1}, {"cpu": 1000, "nvidia.com/gpu": 1})
    assert not fits({"cpu": 1000, "nvidia.com/gpu": 1}, {"cpu": 4000})
    assert not fits({"cpu": 1001}, {"cpu": 1000})
    assert fits({"ephemeral-storage": 10 * GIB}, {"cpu": 1000})  # not reported: unchecked


def test_yandex_allocatable_matches_the_docs_examples() -> None:
    # 2 vCPU: 2000 - (60 + 10) = 1930m. 4 GiB: reserved 25 % of 4 GiB = 1024 MiB + 100 MiB
    # eviction threshold = 1124 MiB -> 4096 - 1124 = 2972 MiB exactly.
    small = yandex_allocatable(2, 4 * GIB)
    assert small["cpu"] == 1930
    assert small["memory"] == 2972 * MIB == 3_116_367_872
    # 4 vCPU: 4000 - (60 + 10 + 5 + 5) = 3920m. 8 GiB: 1024 MiB + 20 % of 4 GiB
    # (858993459.2 bytes) + 100 MiB = 2037592883.2 -> 2037592884 bytes (rounded up);
    # 8589934592 - 2037592884 = 6552341708 bytes = 6248.8 MiB ("about 6249").
    mid = yandex_allocatable(4, 8 * GIB)
    assert mid["cpu"] == 3920
    assert mid["memory"] == 6_552_341_708
    # 8 vCPU: 8000 - (80 + 4 x 2.5) = 7910m. 32 GiB: 1073741824 + 858993459.2 (20 % of 4 GiB)
    # + 858993459.2 (10 % of 8 GiB) + 1030792151.04 (6 % of 16 GiB) = 3822520893.44 ->
    # 3822520894, + 104857600 = 3927378494; 34359738368 - 3927378494 = 30432359874 bytes
    # = 29022.56 MiB ("about 29023").
    big = yandex_allocatable(8, 32 * GIB)
    assert big["cpu"] == 7910
    assert big["memory"] == 30_432_359_874


def test_yandex_reservation_rounding_and_the_edges() -> None:
    # 5 cores: 60 + 10 + 10 + 2.5 = 82.5m reserved -> 83m (allocatable errs low).
    assert yandex_cpu_reserved_millicores(5) == 83
    assert yandex_allocatable(5, 8 * GIB)["cpu"] == 4917
    # Below 1 GiB: 255 MiB + 100 MiB = 355 MiB.
    assert yandex_memory_reserved_bytes(512 * MIB) == 355 * MIB
    # 256 GiB: 1024 + 819.2 + 819.2 + 6881.28 (6 % of 112 GiB) + 2621.44 (2 % of 128 GiB)
    # = 12165.12 MiB = 12165 x 1048576 + 0.12 x 1048576 = 12755927040 + 125829.12
    # = 12756052869.12 bytes -> 12756052870, + 100 MiB (104857600) = 12860910470.
    assert yandex_memory_reserved_bytes(256 * GIB) == 12_860_910_470


def test_template_gpus_and_pods_are_carried() -> None:
    alloc = yandex_allocatable(8, 32 * GIB, gpus=1, pods=64, ephemeral_bytes=50 * GIB)
    assert alloc["nvidia.com/gpu"] == 1 and alloc["pods"] == 64
    assert alloc["ephemeral-storage"] == 50 * GIB
