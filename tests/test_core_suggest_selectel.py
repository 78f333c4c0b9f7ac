"""core/quota/suggest.py and core/quota/selectel.py on their own, with real figures: the
largest max_expansion that fits a short quota (never 0/0), several groups together, and what
one Selectel node costs on its project's quotas (vCPUs, MB, GB per pool segment)."""

from __future__ import annotations

from dataclasses import replace

from ngupgrade.core.model import DeployPolicy, Placement, QuotaLimit
from ngupgrade.core.quota import selectel
from ngupgrade.core.quota.demand import combine, group_demand
from ngupgrade.core.quota.suggest import suggest
from ngupgrade.core.quota.verdict import CloudVerdict, verdict
from ngupgrade.testing import node_group, node_resources

CLOUD = "b1gexamplecloud000001"
VMS = "compute.instances.count"


def _cloud(demands, limits, sequential=False):
    total = combine((gd.demand() for gd in demands), sequential)
    return CloudVerdict(CLOUD, tuple(verdict(q, total.get(q, 0), limits.get(q))
                                     for q in sorted(total)))


def test_one_group_short_gets_the_largest_surge_that_fits() -> None:
    # 6 nodes at 4/0 want 4 more VMs; the cloud has room for 2
    gd = group_demand(node_group(size=6, policy=DeployPolicy(4, 0)), CLOUD)
    assert gd.demand()[VMS] == 4
    limits = {VMS: QuotaLimit(VMS, 10, 8)}
    (s,) = suggest(_cloud([gd], limits), [gd], limits)
    assert (s.kind, s.max_expansion, s.max_unavailable) == ("smaller_surge", 2, 0)
    assert (s.nodes, s.peak_nodes, s.min_ready_nodes, s.cycles_min, s.cycles_max) == (
        6, 8, 6, 3, 3)
    assert s.fits and s.fits_together and not s.whole_group_down


def test_no_room_at_all_is_no_surge_with_one_node_down_never_0_0() -> None:
    gd = group_demand(node_group(size=3, policy=DeployPolicy(2, 0)), CLOUD)
    limits = {VMS: QuotaLimit(VMS, 5, 5)}
    (s,) = suggest(_cloud([gd], limits), [gd], limits)
    assert (s.kind, s.max_expansion, s.max_unavailable) == ("no_surge", 0, 1)
    assert (s.peak_nodes, s.min_ready_nodes, s.cycles_max) == (3, 2, 3)


def test_two_groups_together_one_reduced_is_enough() -> None:
    a = group_demand(node_group("cataaaaaaaaaaaaaaaaa", name="a", size=4,
                                policy=DeployPolicy(3, 0)), CLOUD)
    b = group_demand(node_group("catbbbbbbbbbbbbbbbbb", name="b", size=4,
                                policy=DeployPolicy(1, 0)), CLOUD)
    limits = {VMS: QuotaLimit(VMS, 20, 17)}    # 3 free, 4 wanted together
    found = suggest(_cloud([a, b], limits), [a, b], limits)
    assert [(s.address, s.max_expansion) for s in found] == [
        ("yandex_kubernetes_node_group.a", 2)]
    assert found[0].fits


def test_nothing_short_suggests_nothing() -> None:
    gd = group_demand(node_group(size=3), CLOUD)
    limits = {VMS: QuotaLimit(VMS, 100, 0)}
    assert suggest(_cloud([gd], limits), [gd], limits) == []


def test_a_selectel_node_costs_vcpus_mb_and_gb_of_its_pool_segment() -> None:
    g = replace(node_group(cloud="selectel",
                           resources=node_resources(cores=2, memory_gib=4, disk_gib=50,
                                                    disk_type="fast.ru-7a")),
                placement=Placement("prj1", "ru-7", "ru-7a"))
    per_node, problems = selectel.consumption(g)
    assert problems == []
    assert per_node == {"compute_cores.ru-7a": 2, "compute_ram.ru-7a": 4096,
                        "volume_gigabytes_fast.ru-7a": 50}


def test_a_selectel_flavor_without_its_shape_is_named_not_guessed() -> None:
    g = replace(node_group(cloud="selectel", template=False),
                placement=Placement("prj1", "ru-7", "ru-7a", flavor_id="3031"))
    per_node, problems = selectel.consumption(g)
    assert per_node == {}
    assert problems == ["node group selectel_mks_nodegroup_v1.workers: flavor_id '3031' "
                        "without cpus/ram_mb: its vCPUs and RAM are in Selectel's flavor "
                        "catalog, not in the state"]


def test_an_unknown_selectel_volume_type_has_no_quota() -> None:
    g = replace(node_group(cloud="selectel",
                           resources=node_resources(cores=2, memory_gib=4, disk_gib=50,
                                                    disk_type="ultra.ru-7a")),
                placement=Placement("prj1", "ru-7", "ru-7a"))
    per_node, problems = selectel.consumption(g)
    assert "volume_gigabytes_ultra.ru-7a" not in per_node
    assert problems == ["node group selectel_mks_nodegroup_v1.workers: volume type "
                        "'ultra.ru-7a' has no known quota (known: fast, universal, basic, "
                        "local)"]
