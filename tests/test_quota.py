"""Pure quota preflight math: consumption, extra nodes, verdicts, suggestions (C01 C02 C06)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ngupgrade.core.address import TfAddress
from ngupgrade.core.errors import PolicyInvalid, QuotaMappingUnknown
from ngupgrade.core.model import GIB, DeployPolicy, QuotaLimit
from ngupgrade.core.policy import ResolvedPolicy
from ngupgrade.core.quota.catalog import (
    DISKS,
    EXTERNAL_ADDRESSES,
    INSTANCE_CORES,
    INSTANCE_MEMORY,
    INSTANCES,
    MK8S_CORES,
    MK8S_DISK,
    MK8S_MEMORY,
    MK8S_NODES,
    node_consumption,
)
from ngupgrade.core.quota.demand import check_groups, combine, demand_of, extra_nodes, group_demand
from ngupgrade.core.quota.preflight import evaluate, failure_hints, failure_summary
from ngupgrade.core.quota.verdict import fits, verdict
from tests.quota_builders import CLOUD, group, node, ql


def run(groups, quotas, **kw):
    demands = [group_demand(g, CLOUD, kw.pop(f"current_{g.name}", None)) for g in groups]
    return evaluate(demands, {CLOUD: {q.quota_id: q for q in quotas}}, **kw)


def by_id(result):
    return {q.quota_id: q for c in result.clouds for q in c.quotas}


# --- per-node consumption -------------------------------------------------------------------


def test_one_node_consumes_compute_mk8s_and_vpc_in_api_units():
    g = group(res=node(cores=4, memory_gb=16, disk_gb=64, disk_type="network-ssd", nat=True))
    assert node_consumption(g) == {
        INSTANCES: 1, INSTANCE_CORES: 4, INSTANCE_MEMORY: 16 * GIB, DISKS: 1,
        "compute.ssdDisks.size": 64 * GIB,
        MK8S_NODES: 1, MK8S_CORES: 4, MK8S_MEMORY: 16 * GIB, MK8S_DISK: 64 * GIB,
        EXTERNAL_ADDRESSES: 1,
    }


@pytest.mark.parametrize(("disk_type", "quota_id"), [
    ("network-hdd", "compute.hddDisks.size"),
    ("network-ssd", "compute.ssdDisks.size"),
    ("network-ssd-nonreplicated", "compute.ssdNonReplicatedDisks.size"),
    ("network-ssd-io-m3", "compute.ssdIOM3Disks.size"),
])
def test_boot_disk_type_picks_its_disk_size_quota(disk_type, quota_id):
    per_node = node_consumption(group(res=node(disk_gb=93, disk_type=disk_type)))
    assert per_node[quota_id] == 93 * GIB


def test_no_nat_no_public_address():
    assert EXTERNAL_ADDRESSES not in node_consumption(group(res=node(nat=False)))


@pytest.mark.parametrize(("platform", "quota_id"), [
    ("gpu-standard-v2", "compute.instanceGpus.count"),
    ("gpu-standard-v3", "compute.instanceA100Gpus.count"),
    ("standard-v3-t4", "compute.instanceT4Gpus.count"),
])
def test_gpus_go_on_the_gpu_quota_of_their_platform(platform, quota_id):
    per_node = node_consumption(group(res=node(gpus=2, platform=platform)))
    assert per_node[quota_id] == 2
    assert per_node[INSTANCE_CORES] == 2  # a GPU VM's vCPUs still count


def test_high_freq_platform_counts_on_both_core_quotas():
    per_node = node_consumption(group(res=node(cores=8, platform="highfreq-v3")))
    assert per_node["compute.instanceHighFreqCores.count"] == 8
    assert per_node[INSTANCE_CORES] == 8


@pytest.mark.parametrize(("res", "named"), [
    (node(gpus=1, platform="gpu-standard-v4"), "'gpu-standard-v4'"),
    (node(gpus=1, platform=None), "None"),
    (node(disk_type="network-nvme"), "'network-nvme'"),
    (node(platform="highfreq-v9"), "'highfreq-v9'"),
])
def test_unknown_platform_or_disk_type_fails_closed_naming_group_and_value(res, named):
    g = group("gpu", res=res)
    with pytest.raises(QuotaMappingUnknown) as err:
        node_consumption(g)
    assert "yandex_kubernetes_node_group.gpu" in err.value.message
    assert named in err.value.message
    assert err.value.exit_code == 1


def test_unknown_platform_without_gpus_or_own_core_quota_is_fine():
    per_node = node_consumption(group(res=node(platform="standard-v9", gpus=0)))
    assert per_node[INSTANCE_CORES] == 2


def test_missing_node_resources_or_boot_disk_fail_closed():
    with pytest.raises(QuotaMappingUnknown, match="no instance_template"):
        node_consumption(group("bare", no_node=True))
    with pytest.raises(QuotaMappingUnknown, match="no boot_disk"):
        node_consumption(group("nodisk", res=node(disk_type="")))


def test_check_groups_names_every_bad_group_at_once():
    with pytest.raises(QuotaMappingUnknown) as err:
        check_groups([group("a", no_node=True), group("ok"),
                            group("b", res=node(disk_type="network-nvme"))])
    assert "node_group.a" in err.value.message and "node_group.b" in err.value.message


def test_check_groups_refuses_invalid_policy_naming_the_group():
    with pytest.raises(PolicyInvalid, match=r"node_group\.zero: deploy policy: "):
        check_groups([group("zero", policy=(0, 0))])


# --- extra nodes ----------------------------------------------------------------------------


def test_fixed_group_extra_is_clamped_expansion():
    assert extra_nodes(group(size=3, policy=(5, 0))).worst_case == 3  # C04 A
    ex = extra_nodes(group(size=3, policy=(2, 0)))
    assert (ex.worst_case, ex.at_current_size, ex.managed_kubernetes) == (2, 2, 2)
    assert ex.current_source == "fixed"


def test_autoscaled_worst_case_seed_001_max_7_expansion_7_reaches_14_nodes():
    g = group("batch", auto=(1, 7), policy=(7, 0))
    offline = extra_nodes(g)
    assert offline.current_source == "assumed_min" and offline.current == 1
    assert offline.worst_case == 7 + 7 - 1  # grows to max, then 7 surge nodes
    assert offline.current + offline.worst_case == 14
    assert offline.at_current_size == 1
    assert offline.managed_kubernetes == 7  # that service already counts the group at max
    live = extra_nodes(g, current=7)
    assert live.current_source == "api"
    assert live.current + live.worst_case == 14
    assert (live.worst_case, live.at_current_size, live.managed_kubernetes) == (7, 7, 7)


def test_autoscaled_at_current_size_uses_min_e_current():
    ex = extra_nodes(group("batch", auto=(1, 5), policy=(3, 0)), current=2)
    assert ex.at_current_size == 2  # seed 000: 2 nodes at the start, 2 created instead of 3
    assert ex.worst_case == 5 + 3 - 2
    assert ex.managed_kubernetes == 3


def test_unset_policy_is_provider_default_3_0_never_0_0():
    ex = extra_nodes(group(size=4, policy=None))
    assert ex.policy_assumed and (ex.policy.max_expansion, ex.policy.max_unavailable) == (3, 0)
    assert ex.worst_case == 3


# --- C06 quota figures ----------------------------------------------------------------------


def test_c06_unset_policy_4_nodes_extra_6_cores_12_gib_3_public_ips():
    g = group("ng", size=4, policy=None, res=node(cores=2, memory_gb=4, nat=True))
    d = group_demand(g, CLOUD).worst_case
    assert d[INSTANCE_CORES] == 6
    assert d[INSTANCE_MEMORY] == 12 * GIB
    assert d[EXTERNAL_ADDRESSES] == 3
    assert d[MK8S_CORES] == 6


# --- C01 ------------------------------------------------------------------------------------


C01_QUOTAS = [ql(INSTANCE_CORES, 10, 8), ql(INSTANCE_MEMORY, 137438953472, 34359738368)]


def c01_group():
    return group("dev", size=2, policy=(1, 0),
                 res=node(cores=4, memory_gb=16, disk_gb=64, disk_type="network-hdd"))


def test_c01_cores_short_4_needed_2_headroom_memory_passes():
    result = run([c01_group()], C01_QUOTAS)
    q = by_id(result)
    assert not result.ok
    assert q[INSTANCE_CORES].status == "short"
    assert (q[INSTANCE_CORES].demand, q[INSTANCE_CORES].headroom) == (4, 2)
    assert q[INSTANCE_CORES].shortfall == 2
    assert q[INSTANCE_MEMORY].status == "ok"
    assert (q[INSTANCE_MEMORY].demand, q[INSTANCE_MEMORY].headroom) == (16 * GIB, 96 * GIB)
    assert [qid for _, v in result.short for qid in [v.quota_id]] == [INSTANCE_CORES]


def test_c01_suggests_no_surge_with_one_unavailable_min_ready_1_of_2():
    result = run([c01_group()], C01_QUOTAS)
    (s,) = result.suggestions
    assert (s.kind, s.max_expansion, s.max_unavailable) == ("no_surge", 0, 1)
    assert (s.min_ready_nodes, s.nodes, s.peak_nodes) == (1, 2, 2)
    assert s.fits and s.quota_ids == (INSTANCE_CORES,)


def test_c01_variant_b_headroom_zero_is_short_not_unknown():
    g = group("dev", size=2, policy=(1, 0), res=node(cores=2, memory_gb=4, disk_gb=64))
    result = run([g], [ql(INSTANCE_CORES, 4, 4)])
    q = by_id(result)[INSTANCE_CORES]
    assert (q.status, q.demand, q.headroom) == ("short", 2, 0)
    (s,) = result.suggestions
    assert (s.max_expansion, s.max_unavailable, s.min_ready_nodes) == (0, 1, 1)


# --- C02 ------------------------------------------------------------------------------------


def c02_group():
    return group("dev", size=3, policy=(2, 0), res=node(cores=2, memory_gb=8, disk_gb=64))


def test_c02_instances_need_2_headroom_1_suggest_expansion_1_peak_4_cycles_3():
    result = run([c02_group()], [ql(INSTANCES, 4, 3), ql(INSTANCE_CORES, 100, 6)])
    q = by_id(result)
    assert (q[INSTANCES].status, q[INSTANCES].demand, q[INSTANCES].headroom) == ("short", 2, 1)
    assert q[INSTANCE_CORES].status == "ok"
    (s,) = result.suggestions
    assert (s.kind, s.max_expansion, s.max_unavailable) == ("smaller_surge", 1, 0)
    assert (s.peak_nodes, s.cycles_min, s.cycles_max) == (4, 3, 3)
    assert s.fits


def test_c02_headroom_zero_suggests_no_surge_never_0_0():
    result = run([c02_group()], [ql(INSTANCES, 3, 3)])
    (s,) = result.suggestions
    assert (s.max_expansion, s.max_unavailable) == (0, 1)
    assert (s.min_ready_nodes, s.nodes, s.cycles_min) == (2, 3, 3)


def test_no_surge_suggestion_keeps_a_larger_max_unavailable():
    g = group("dev", size=6, policy=(2, 2))
    result = run([g], [ql(INSTANCES, 10, 10)])
    (s,) = result.suggestions
    assert (s.max_expansion, s.max_unavailable, s.min_ready_nodes) == (0, 2, 4)


# --- boundaries, unknown, strict ------------------------------------------------------------


def test_equality_boundary_passes():
    result = run([c02_group()], [ql(INSTANCES, 5, 3)])
    q = by_id(result)[INSTANCES]
    assert (q.demand, q.headroom, q.status) == (2, 2, "ok")


def test_one_over_the_boundary_is_short():
    assert by_id(run([c02_group()], [ql(INSTANCES, 4.5, 3)]))[INSTANCES].status == "short"


def test_absent_quota_or_missing_limit_is_unknown_not_unlimited():
    result = run([c02_group()], [ql(INSTANCES, None, 3), ql(INSTANCE_CORES, 100, None),
                                 ql("compute.disks.count", 100, 0)])  # one quota checked
    q = by_id(result)
    assert q[INSTANCES].status == "unknown" and q[INSTANCES].headroom is None
    assert q[INSTANCE_CORES].status == "unknown"
    assert q[MK8S_NODES].status == "unknown"  # not listed at all
    assert result.ok  # a warning...
    assert any(w.code == "quota-unknown" and INSTANCES in w.message for w in result.warnings)
    assert not run([c02_group()], [ql(INSTANCES, None, 3)], strict=True).ok  # ...a failure


def test_a_source_that_lists_none_of_the_quotas_checks_nothing_and_fails():
    # a quota source that lists none of the surge's quotas (a live cloud that lists none)
    result = run([c02_group()], [])
    rows = [q for c in result.clouds for q in c.quotas]
    assert len(rows) == 9 and {q.status for q in rows} == {"unknown"}
    assert result.checked_nothing and not result.ok
    assert failure_summary(result) == (
        "quota preflight failed: no quota was checked: the source lists none of the 9 quotas "
        "the surge draws on")
    assert "export their limits into the quota file" in failure_hints(result, offline=True)[0]
    one_known = run([c02_group()], [ql(INSTANCES, 10, 3)])
    assert not one_known.checked_nothing and one_known.ok  # one quota checked: unknowns warn


def test_nothing_demanded_is_ok_even_when_unknown():
    g = group("inplace", size=3, policy=(0, 1))
    result = run([g], [], strict=True)
    assert result.ok
    assert {q.status for c in result.clouds for q in c.quotas} == {"ok"}


def test_warnings_for_assumed_policy_and_assumed_size():
    result = run([group("a", policy=None), group("b", auto=(2, 5))], [])
    codes = {w.code for w in result.warnings}
    assert {"policy-assumed", "current-size-assumed"} <= codes


# --- several groups -------------------------------------------------------------------------


def test_groups_of_one_cloud_add_up_or_take_the_largest_when_sequential():
    a = group("a", size=3, policy=(2, 0))
    b = group("b", size=5, policy=(3, 0))
    quotas = [ql(INSTANCES, 10, 6)]
    together = by_id(run([a, b], quotas))[INSTANCES]
    assert (together.demand, together.status) == (5, "short")
    sequential = by_id(run([a, b], quotas, sequential=True))[INSTANCES]
    assert (sequential.demand, sequential.status) == (3, "ok")


def test_one_group_change_is_preferred_when_it_is_enough():
    a = group("a", size=3, policy=(2, 0))
    b = group("b", size=5, policy=(3, 0))
    result = run([a, b], [ql(INSTANCES, 10, 6)])  # need 5, headroom 4
    (s,) = result.suggestions
    assert s.address.endswith(".b") and (s.max_expansion, s.fits) == (2, True)  # 2 + 2


def test_suggestions_across_groups_when_no_single_change_is_enough():
    a = group("a", size=3, policy=(2, 0))
    b = group("b", size=5, policy=(3, 0))
    result = run([a, b], [ql(INSTANCES, 10, 9)])  # need 5, headroom 1
    assert [s.address.rsplit(".", 1)[1] for s in result.suggestions] == ["a", "b"]
    sa, sb = result.suggestions
    assert (sa.max_expansion, sa.max_unavailable, sa.fits) == (0, 1, False)
    assert (sb.max_expansion, sb.fits) == (1, True)  # 0 + 1 == headroom 1


def test_sequential_suggestions_leave_groups_that_fit_alone_untouched():
    a = group("a", size=3, policy=(1, 0))
    b = group("b", size=5, policy=(3, 0))
    result = run([a, b], [ql(INSTANCES, 10, 8)], sequential=True)  # b needs 3, headroom 2
    (s,) = result.suggestions
    assert s.address.endswith(".b") and (s.max_expansion, s.fits) == (2, True)


def test_autoscaled_worst_case_may_not_fit_even_without_surge():
    g = group("batch", auto=(1, 7), policy=(7, 0))
    result = run([g], [ql(INSTANCES, 10, 5)])  # worst case 13 extra, headroom 5
    (s,) = result.suggestions
    assert (s.max_expansion, s.max_unavailable, s.fits) == (0, 1, False)


def test_at_current_size_uses_the_smaller_figures():
    g = group("batch", auto=(1, 7), policy=(7, 0))
    assert run([g], [ql(INSTANCES, 10, 5)], at_current_size=True, current_batch=2).ok


# --- properties -----------------------------------------------------------------------------

sizes = st.integers(min_value=0, max_value=30)
knobs = st.integers(min_value=0, max_value=100)


@st.composite
def groups(draw, name="g"):
    if draw(st.booleans()):
        low = draw(sizes)
        high = draw(st.integers(min_value=max(low, 1), max_value=40))
        g = group(name, auto=(low, high), policy=(draw(knobs), draw(st.integers(1, 100))),
                  res=node(cores=draw(st.integers(1, 16)), nat=draw(st.booleans())))
    else:
        g = group(name, size=draw(sizes), policy=(draw(knobs), draw(st.integers(1, 100))),
                  res=node(cores=draw(st.integers(1, 16)), nat=draw(st.booleans())))
    return g


@given(groups(), st.integers(0, 99), st.one_of(st.none(), st.integers(0, 40)),
       st.booleans())
def test_demand_never_decreases_as_expansion_grows(g, e, current, at_current):
    u = g.policy.max_unavailable
    def tried(e: int) -> ResolvedPolicy:
        return ResolvedPolicy(DeployPolicy(e, u), "override")

    d1 = demand_of(node_consumption(g), extra_nodes(g, current, policy=tried(e)), at_current)
    d2 = demand_of(node_consumption(g), extra_nodes(g, current, policy=tried(e + 1)),
                   at_current)
    assert all(d2[q] >= d1[q] for q in d1)


@given(groups(), st.integers(0, 1000))
def test_equality_boundary_property(g, usage):
    demand = group_demand(g, CLOUD).worst_case[INSTANCES]
    at_edge = verdict(INSTANCES, demand, QuotaLimit(INSTANCES, usage + demand, usage))
    assert at_edge.status == "ok"
    if demand > 0:
        over = verdict(INSTANCES, demand, QuotaLimit(INSTANCES, usage + demand - 1, usage))
        assert over.status == "short"


@given(st.lists(groups(), min_size=1, max_size=5))
def test_sequential_is_at_most_the_sum_and_at_least_each_group(gs):
    demands = [group_demand(g, CLOUD).worst_case for g in gs]
    total = combine(demands)
    largest = combine(demands, sequential=True)
    for qid in total:
        assert largest[qid] <= total[qid]
        assert all(largest[qid] >= d.get(qid, 0) for d in demands)


def _renamed(gs):
    return [replace(g, name=f"g{i}", address=TfAddress(g.address.type, f"g{i}"))
            for i, g in enumerate(gs)]


@given(st.lists(groups(), min_size=1, max_size=4), st.integers(0, 50), st.booleans())
def test_suggestions_never_0_0_lower_expansion_and_fit_when_they_say_so(gs, headroom, sequential):
    gs = _renamed(gs)
    demands = [group_demand(g, CLOUD) for g in gs]
    limits = {INSTANCES: QuotaLimit(INSTANCES, 1000 + headroom, 1000)}
    result = evaluate(demands, {CLOUD: limits}, sequential=sequential)
    policies = {gd.address: gd.extra.policy for gd in demands}
    for s in result.suggestions:
        assert s.max_expansion + s.max_unavailable > 0
        assert s.max_expansion < policies[s.address].max_expansion
        policies[s.address] = DeployPolicy(s.max_expansion, s.max_unavailable)
    if result.suggestions:
        applied = [demand_of(gd.per_node, extra_nodes(
            gd.group, policy=ResolvedPolicy(policies[gd.address], "override")))
                   for gd in demands]
        fitted = fits(combine(applied, sequential), limits, [INSTANCES])
        assert fitted == result.suggestions[-1].fits
