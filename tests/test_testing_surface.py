"""The test kit's stable surface (docs/cloud.md, "The stable surface"): ``ngupgrade.testing``
exports the names the docs list and no internal one, each with its own docstring; the fake's
tables are read-only snapshots, changed only through its methods; ``timing()`` and
``gateway()`` are typed."""

from __future__ import annotations

import inspect

import pytest

import ngupgrade.testing as kit
from ngupgrade.adapters.cloud.waiter import Timing
from ngupgrade.testing import FakeCloud, node_group

STABLE = {
    "EXAMPLES", "Call", "FakeCloud", "Fault", "RealClock", "Scenario", "VirtualClock",
    "node_group", "node_resources", "TfState", "daily_window", "instance_template",
    "network_interface", "selectel_cluster", "selectel_node_group", "weekly_window",
    "yandex_cluster", "yandex_node_group", "yandex_node_group_v035", "yandex_placement_group",
    "yandex_subnet"}


def test_all_is_the_documented_surface_and_each_name_says_what_it_is() -> None:
    assert set(kit.__all__) == STABLE
    assert not hasattr(kit, "World")
    for name in STABLE - {"EXAMPLES"}:
        obj = getattr(kit, name)
        own = vars(obj).get("__doc__") if inspect.isclass(obj) else obj.__doc__
        assert own and len(own.split()) >= 3, name
    public = [n for n, v in vars(FakeCloud).items() if not n.startswith("_")
              and (callable(v) or isinstance(v, property | classmethod))]
    undocumented = [n for n in public if not (getattr(FakeCloud, n).__doc__ or "").strip()]
    assert undocumented == []


def test_the_fake_tables_are_read_only_and_change_through_its_methods() -> None:
    with FakeCloud([node_group(size=3)], {"clouds": {"b1gcloud": {"quotas": {
            "compute.instances.count": {"limit": 10, "usage": 3}}}}}) as fake:
        with pytest.raises(TypeError):
            fake.quotas["b1gcloud"]["compute.instances.count"] = (1.0, 0.0)  # type: ignore[index]
        with pytest.raises(TypeError):
            fake.operations["op-9"] = None  # type: ignore[index]
        assert fake.quotas["b1gcloud"]["compute.instances.count"] == (10.0, 3.0)
        fake.set_quota("b1gcloud", "compute.instances.count", 4.0)
        assert fake.quota("b1gcloud", "compute.instances.count").limit == 4.0
        op = fake.update(node_group(size=3).id, version="1.30")
        assert list(fake.operations) == [op.id] and fake.calls == []


def test_timing_and_gateway_are_typed_and_run_on_the_fake_clock() -> None:
    assert inspect.signature(FakeCloud.timing).return_annotation == "Timing"
    assert inspect.signature(FakeCloud.gateway).return_annotation == "CloudGateway"
    with FakeCloud([node_group(size=3)]) as fake:
        timing = fake.timing()
        assert isinstance(timing, Timing)
        timing.sleep(60)
        assert (timing.clock(), fake.now()) == (60.0, 60.0)
        assert timing.wall() == 1_800_000_060
