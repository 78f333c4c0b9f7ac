"""The drain check over whole upgrades: seed 001's worked examples and issue 12's rules.

Every expected number below is derived in the comment above it from the seeds, not read off
the code's output.
"""

from __future__ import annotations

from dataclasses import replace

from ngupgrade.core.drain.check import check_group, check_groups, check_model
from ngupgrade.core.drain.drain_model import DrainModel
from ngupgrade.core.k8s import (
    NODE_GROUP_LABEL,
    ClusterSnapshot,
    Container,
    Pod,
    Workload,
)
from ngupgrade.core.platform import SELECTEL_DRAIN_RULES, YANDEX_DRAIN_RULES
from tests.drain_builders import (
    GROUP_ID,
    OTHER_ID,
    cluster,
    codes,
    deployment,
    find,
    group,
    node,
    plan,
    pod,
)

FIVE = [node(f"n{i}") for i in range(1, 6)]   # 4000m, 8 GiB, 110 pods each


def _three_per_node(cpu: int) -> list[Pod]:
    return [pod(f"p-n{i}-{j}", f"n{i}", cpu=cpu) for i in range(1, 6) for j in range(3)]


def test_seed001_five_nodes_at_0_2_fit_on_three() -> None:
    # Seed 001 L124 / S-EX1 (and seed 000 Y-EX1): 5 nodes, max_unavailable 2: the pods of the
    # whole group must fit on 3 nodes. 15 pods x 800m = 12000m = 3 x 4000m: exactly enough.
    # Wave 1 drains 2 nodes (6 pods) onto 3 old nodes with 1600m free each -> 2 each.
    # Wave 2 drains 2 old nodes now holding 5 pods each (10 pods) onto 2 updated nodes
    # (4000m free -> 5 each) and 1 full old node. Wave 3: the last old node's 5 pods go to
    # the 2 nodes updated in wave 2.
    g = group(policy=(0, 2))
    report = check_group(g, plan(g, 5), cluster(FIVE, _three_per_node(800),
                                                workloads=deployment("web", 15)))
    assert report.ok and report.verdict == "clear"
    assert [w.pods_evicted for w in report.waves] == [6, 10, 5]
    assert [w.unplaced for w in report.waves] == [(), (), ()]
    assert [len(w.nodes) for w in report.waves] == [2, 2, 1]
    assert report.orders == 30 and report.exhaustive   # 5! / (2! 2! 1!) = 30
    assert report.findings == ()


def test_seed001_five_nodes_at_0_2_do_not_fit_on_three() -> None:
    # 15 pods x 900m = 13500m > 12000m. A node holds at most 4 such pods (3600m <= 4000m).
    # Wave 1: 6 pods evicted, the 3 old nodes have 1300m free: one more pod each -> 3 placed,
    # 3 Pending (placed largest first, equal pods by name: p-n1-* placed, p-n2-* not) until
    # n1, n2 come back updated. Wave 2: n3, n4 hold 4 pods each (8 evicted); 15 pods must sit
    # on n1, n2, n5 (4 each = 12) -> exactly 3 Pending. Wave 3: 4 updated nodes hold 16.
    g = group(policy=(0, 2))
    report = check_group(g, plan(g, 5), cluster(FIVE, _three_per_node(900),
                                                workloads=deployment("web", 15)))
    assert not report.ok
    first = report.waves[0]
    assert first.nodes == ("n1", "n2")
    assert first.unplaced == ("default/p-n2-0", "default/p-n2-1", "default/p-n2-2")
    assert [w.pods_evicted for w in report.waves] == [6, 8, 4]
    assert [w.pods_unplaced for w in report.waves] == [3, 3, 0]
    misfits = find(report.findings, "pods-do-not-fit")
    assert [(f.wave, f.count, f.severity) for f in misfits] == [(1, 3, "blocking"),
                                                                (2, 3, "blocking")]
    assert "Pending until the nodes of wave 1 are back" in misfits[0].message
    assert "short of cpu" in misfits[0].message
    assert all(f.every_order for f in misfits)   # symmetric nodes: every order


def test_seed001_combined_2_2_must_fit_on_the_three_old_nodes() -> None:
    # Seed 001 L195 / S-EX3: with 2/2 the surge nodes are not Ready at the start of the first
    # cycle: wave 1's pods must fit on the 3 other old nodes. 800m pods fit (as above).
    g = group(policy=(2, 2))
    ok = check_group(g, plan(g, 5), cluster(FIVE, _three_per_node(800),
                                            workloads=deployment("web", 15)))
    assert ok.ok
    assert [w.surge_ready for w in ok.waves] == [0, 2, 2]
    # 900m pods: 3 of the 6 wait for the surge nodes (created in wave 1, Ready later in it).
    tight = check_group(g, plan(g, 5), cluster(FIVE, _three_per_node(900),
                                               workloads=deployment("web", 15)))
    misfit = find(tight.findings, "pods-do-not-fit")[0]
    assert (misfit.wave, misfit.count) == (1, 3)
    assert "Pending until the surge nodes are Ready in wave 1" in misfit.message
    assert tight.waves[0].pods_unplaced == 3 and tight.waves[1].pods_unplaced == 0
    # a wait for the same wave's surge nodes is a warning; the 0/2 case above, where pods
    # wait until updated nodes come back, is blocking
    assert misfit.severity == "warning"


def test_seed001_autoscaling_example_2_drains_both_nodes_at_once() -> None:
    # Seed 001 L262-L278: autoscaled 1..5, shrank to 2 nodes, policy 0/3 -> U' = 2 = N: one
    # wave drains both nodes; the whole group is unavailable. Pods pinned to the group wait
    # Pending until the nodes are back; the unpinned one goes to the other group's node.
    g = group(auto=(1, 5), policy=(0, 3))
    pinned = {NODE_GROUP_LABEL: GROUP_ID}
    pods = [pod("pinned-a", "n1", node_selector=pinned), pod("pinned-b", "n2",
                                                             node_selector=pinned),
            pod("free-c", "n2")]
    nodes = [node("n1"), node("n2"), node("o1", group=OTHER_ID)]
    report = check_group(g, plan(g, 2), cluster(nodes, pods, workloads=deployment("web", 3)))
    assert [w.nodes for w in report.waves] == [("n1", "n2")]
    assert codes(report.findings) == ["pods-do-not-fit", "whole-group-unavailable"]
    assert report.waves[0].unplaced == ("default/pinned-a", "default/pinned-b")
    misfit = find(report.findings, "pods-do-not-fit")[0]
    assert "matches its nodeSelector" in misfit.message and misfit.count == 2
    assert find(report.findings, "whole-group-unavailable")[0].every_order


def _api(n_per_node: dict[str, int], replicas: int, **pdb_kw: object) -> ClusterSnapshot:
    from tests.drain_builders import pdb
    pods = [pod(f"api-{name}-{i}", name, app="api", owner=("ReplicaSet", "api-rs"))
            for name, count in n_per_node.items() for i in range(count)]
    nodes = [node(name) for name in n_per_node] + [node("o1", group=OTHER_ID)]
    return cluster(nodes, pods, workloads=deployment("api", replicas),
                   pdbs=(pdb("api", "api", **pdb_kw),))


def test_seed004_kex3_one_budget_per_wave_makes_evictions_wait() -> None:
    # Seed 004 K-EX3: api runs 6 replicas, PDB maxUnavailable 1 -> desiredHealthy 5,
    # disruptionsAllowed 1. Each node holds 3 api pods; policy 0/1 drains one node per wave:
    # 1 eviction at once, the other 2 each wait for a replacement to become Ready.
    g = group(size=2, policy=(0, 1))
    snap = _api({"n1": 3, "n2": 3}, 6, max_unavailable=1,
                unhealthy_pod_eviction_policy="AlwaysAllow")
    report = check_group(g, plan(g, 2), snap)
    assert report.ok
    assert [w.pdb_waits for w in report.waves] == [2, 2]
    slows = find(report.findings, "pdb-slows-wave")
    assert [(f.wave, f.count, f.pdb) for f in slows] == [(1, 2, "default/api"),
                                                         (2, 2, "default/api")]


def test_budget_is_shared_by_the_wave_or_per_node() -> None:
    # 2 api pods, one on each of 2 nodes drained in the same wave (policy 0/2), allowed 1:
    # draining the wave together, the second eviction waits (1 wait); one node at a time
    # (the "по одному" reading), each node's single pod goes at once (0 waits).
    g = group(size=2, policy=(0, 2))
    snap = _api({"n1": 1, "n2": 1}, 2, max_unavailable=1)
    together = check_group(g, plan(g, 2), snap)
    one = check_group(g, plan(g, 2), snap, replace(YANDEX_DRAIN_RULES, nodes_at_once="one"))
    assert [w.pdb_waits for w in together.waves] == [1]
    assert [w.pdb_waits for w in one.waves] == [0]
    assert one.rules.nodes_at_once == "one"


def test_pdb_that_allows_nothing_blocks_then_the_platform_reacts() -> None:
    # Seed 001 case 2: 1 replica, minAvailable 1 -> disruptionsAllowed 0 -> 429 for ever.
    # Yandex stops the node after 420 s anyway (forced-stop); Selectel stops the upgrade.
    g = group(size=2, policy=(0, 1))
    snap = _api({"n1": 1, "n2": 0}, 1, min_available=1)
    yandex = check_group(g, plan(g, 2), snap)
    assert not yandex.ok
    assert "forced-stop" in codes(yandex.blocking) and "pdb-blocks-eviction" in codes(
        yandex.blocking)
    stop = find(yandex.findings, "forced-stop")[0]
    assert (stop.node, stop.pod, stop.count) == ("n1", "default/api-n1-0", 1)
    assert "420 s" in stop.message
    selectel = check_group(g, plan(g, 2), snap, SELECTEL_DRAIN_RULES)
    assert "upgrade-stops" in codes(selectel.blocking)
    assert "forced-stop" not in codes(selectel.findings)
    # The worst order drains n1 first: the upgrade stops in wave 1; wave 2 never runs.
    assert [w.nodes for w in selectel.waves] == [("n1",)]


def test_a_forced_stop_is_counted_apart_from_the_evictions() -> None:
    # One wave drains n1 and n2 together (2 nodes at 0/2). web-0 (n1) and web-1 (n2) have no
    # PDB: 2 evictions, both go to o1. api-0 (n1) is 1 replica under minAvailable 1: 0
    # disruptions allowed, the eviction API refuses it. Yandex stops n1 after 420 s with it:
    # api-0 goes down (forced-stop), not evicted: evicted 2, blocked 1. Selectel refuses it
    # too and stops the upgrade with api-0 still running: evicted 2, blocked 1.
    from tests.drain_builders import pdb
    g = group(size=2, policy=(0, 2))
    pods = [pod("web-0", "n1"), pod("web-1", "n2"),
            pod("api-0", "n1", app="api", owner=("ReplicaSet", "api-rs"))]
    snap = cluster([node("n1"), node("n2"), node("o1", group=OTHER_ID)], pods,
                   workloads=deployment("web", 2) + deployment("api", 1),
                   pdbs=(pdb("api", "api", min_available=1),))
    yandex = check_group(g, plan(g, 2), snap)
    assert [(w.nodes, w.pods_evicted, w.pods_blocked) for w in yandex.waves] == [
        (("n1", "n2"), 2, 1)]
    assert [(f.node, f.count) for f in find(yandex.findings, "forced-stop")] == [("n1", 1)]
    selectel = check_group(g, plan(g, 2), snap, SELECTEL_DRAIN_RULES)
    assert [(w.pods_evicted, w.pods_blocked) for w in selectel.waves] == [(2, 1)]
    assert "upgrade-stops" in codes(selectel.blocking)


def test_a_pdb_with_neither_field_refuses_every_eviction_and_says_why() -> None:
    # A PDB with neither minAvailable nor maxUnavailable: the disruption controller leaves
    # expectedCount 0, and expectedCount <= 0 forces disruptionsAllowed to 0
    # (pkg/controller/disruption, updatePdbStatus), however many of the 3 pods are healthy.
    g = group(size=3, policy=(0, 1))
    report = check_group(g, plan(g, 3), _api({"n1": 1, "n2": 1, "n3": 1}, 3))
    blocked = find(report.findings, "pdb-blocks-eviction")
    assert blocked
    message = blocked[0].message
    assert message.startswith("PDB default/api sets neither minAvailable nor maxUnavailable, "
                              "so Kubernetes expects 0 pods and allows 0 disruptions")
    assert "0 required" not in message


def test_budget_never_recovers_when_the_replacement_fits_nowhere() -> None:
    # 3 api pods of 3000m on n1, maxUnavailable 1 of 3 -> 1 allowed. Only n1 and n2 in the
    # cluster, n2 full (3500m used of 4000m): the first replacement finds no node, so the
    # budget stays 0 and the other 2 pods cannot be evicted (in whichever wave n1 drains:
    # n2's filler, drained first, goes back onto n2 when it returns).
    from tests.drain_builders import pdb
    g = group(size=2, policy=(0, 1))
    pods = [pod(f"api-{i}", "n1", cpu=1000, app="api", owner=("ReplicaSet", "api-rs"))
            for i in range(3)] + [pod("filler", "n2", cpu=3500, app="other",
                                      owner=("ReplicaSet", "other-rs"))]
    snap = cluster([node("n1"), node("n2")], pods,
                   workloads=deployment("api", 3) + deployment("other", 1),
                   pdbs=(pdb("api", "api", max_unavailable=1),))
    report = check_group(g, plan(g, 2), snap, SELECTEL_DRAIN_RULES)
    blocks = find(report.findings, "pdb-blocks-eviction")
    assert [(f.count, f.pdb) for f in blocks] == [(2, "default/api")]
    assert "0 healthy" not in blocks[0].message and "2 healthy, 2 required" in blocks[0].message


def test_pod_under_two_pdbs_is_never_evicted() -> None:
    from tests.drain_builders import pdb
    g = group(size=2, policy=(0, 1))
    pods = [pod("api-0", "n1", app="api", owner=("ReplicaSet", "api-rs")),
            pod("api-1", "n2", app="api", owner=("ReplicaSet", "api-rs"))]
    snap = cluster([node("n1"), node("n2")], pods, workloads=deployment("api", 2),
                   pdbs=(pdb("a", "api", max_unavailable=1), pdb("b", "api", max_unavailable=1)))
    report = check_group(g, plan(g, 2), snap)
    overlap = find(report.findings, "pdb-overlap")
    assert {f.pod for f in overlap} == {"default/api-0", "default/api-1"}
    assert all(f.every_order and f.severity == "blocking" for f in overlap)
    assert "forced-stop" in codes(report.findings)


def test_losses_bare_pod_emptydir_daemonset_mirror_and_grace() -> None:
    # Seed 001 L72-L74: a bare pod is lost; emptyDir data goes; DaemonSet and mirror pods
    # stay (not evicted). A grace period of 600 s > 420 s cannot end before Yandex stops
    # the node; Selectel has no timeout.
    from tests.drain_builders import EMPTYDIR
    g = group(size=2, policy=(0, 1))
    pods = [pod("bare", "n1", owner=None), pod("cache", "n1", volumes=EMPTYDIR),
            pod("ds", "n1", owner=("DaemonSet", "agent")), pod("static", "n1", owner=None,
                                                             mirror=True),
            pod("slow", "n2", termination_grace_seconds=600)]
    snap = cluster([node("n1"), node("n2"), node("o1", group=OTHER_ID)], pods,
                   workloads=deployment("web", 2))
    report = check_group(g, plan(g, 2), snap)
    assert codes(report.findings) == ["bare-pod-lost", "emptydir-data-lost",
                                      "grace-period-over-drain-timeout"]
    assert find(report.findings, "bare-pod-lost")[0].severity == "blocking"
    # evicted: cache from n1 and slow from n2; ds, static stay; bare is deleted (lost).
    assert sum(w.pods_evicted for w in report.waves) == 2
    selectel = check_group(g, plan(g, 2), snap, SELECTEL_DRAIN_RULES)
    assert "grace-period-over-drain-timeout" not in codes(selectel.findings)


def test_local_volume_pins_the_pod_to_its_node() -> None:
    from ngupgrade.core.k8s import PersistentVolume, PersistentVolumeClaim, Volume
    pods = [pod("db-0", "n1", owner=("StatefulSet", "db"),
                volumes=(Volume("data", "persistentVolumeClaim", "data-db-0"),))]
    extra = dict(pvcs=(PersistentVolumeClaim("default", "data-db-0", "pv-1"),),
                 pvs=(PersistentVolume("pv-1", local=True),))
    sts = (Workload("StatefulSet", "default", "db", replicas=2),)
    nodes = [node("n1"), node("n2")]
    # 0/1: n1 is updated in place: the pod waits for it (warning).
    g = group(size=2, policy=(0, 1))
    in_place = check_group(g, plan(g, 2), cluster(nodes, pods, workloads=sts, **extra))
    pinned = find(in_place.findings, "local-volume-pinned")
    assert [(f.severity, f.node) for f in pinned] == [("warning", "n1")]
    # 1/0: n1 is deleted: the pod never runs again (blocking).
    g2 = group(size=2, policy=(1, 0))
    deleted = check_group(g2, plan(g2, 2), cluster(nodes, pods, workloads=sts, **extra))
    assert [f.severity for f in find(deleted.findings, "local-volume-pinned")] == ["blocking"]


def test_single_replica_disrupted_up_to_once_per_cycle_with_a_surge() -> None:
    # Seed 001 S-EX2: 5 nodes at 2/0 take 3 cycles; a pod moved onto an old node is evicted
    # again when that node drains (L180): a single replica is down up to 3 times.
    g = group(policy=(2, 0))
    pods = [pod("solo-0", "n1", app="solo", owner=("ReplicaSet", "solo-rs"))]
    report = check_group(g, plan(g, 5), cluster(FIVE, pods, workloads=deployment("solo", 1)))
    solo = find(report.findings, "single-replica-disrupted")
    assert [(f.count, f.every_order, f.severity) for f in solo] == [(3, True, "warning")]
    # Pinned by a nodeSelector no other node carries: it can only come back to... nowhere
    # else in the group, so at most once.
    lone = [replace(pods[0], node_selector={"kubernetes.io/hostname": "n1"})]
    report2 = check_group(g, plan(g, 5), cluster(FIVE, lone, workloads=deployment("solo", 1)))
    assert [f.count for f in find(report2.findings, "single-replica-disrupted")] == [1]


def test_single_replica_counts_only_nodes_that_could_take_it() -> None:
    # 3 nodes at 1/0: 3 waves. With n2 and n3 able to take it, solo is down up to
    # 1 + min(3 - 1, 2) = 3 times; with n2 NotReady and n3 cordoned, no other node of the
    # group takes it (h = 0): 1 + min(2, 0) = 1.
    g = group(policy=(1, 0))
    pods = [pod("solo-0", "n1", app="solo", owner=("ReplicaSet", "solo-rs"))]
    healthy = [node("n1"), node("n2"), node("n3")]
    report = check_group(g, plan(g, 3), cluster(healthy, pods, workloads=deployment("solo", 1)))
    assert [f.count for f in find(report.findings, "single-replica-disrupted")] == [3]
    sick = [node("n1"), replace(node("n2"), ready=False), node("n3", unschedulable=True)]
    report2 = check_group(g, plan(g, 3), cluster(sick, pods, workloads=deployment("solo", 1)))
    assert [f.count for f in find(report2.findings, "single-replica-disrupted")] == [1]


def test_surge_node_room_is_the_yandex_formula_minus_daemonsets() -> None:
    # Template 2 vCPU / 4 GiB: allocatable 1930m (docs). A DaemonSet of 500m lands first:
    # 1430m left. A 1400m pod fits on the surge node, a 1500m pod does not (and the other
    # node of the group is draining in the same wave at 2/0).
    ds_template = Pod("kube-system", "agent", owner=None,
                      containers=(Container("a", {"cpu": 500}),))
    agent = Workload("DaemonSet", "kube-system", "agent", template=ds_template)
    g = group(size=2, cores=2, mem_gib=4, policy=(2, 0))
    model = DrainModel.build(g, cluster([node("n1"), node("n2")], []), surge_slots=1)
    assert model.rooms["surge-1"].free["cpu"] == 1930
    for size, fits in ((1400, True), (1500, False)):
        pods = [pod("big", "n1", cpu=size)]
        snap = cluster([node("n1", cpu=2000), node("n2", cpu=2000)], pods,
                       workloads=(agent, *deployment("web", 2)))
        report = check_group(g, plan(g, 2), snap)
        assert report.ok is fits, size
    model2 = DrainModel.build(g, cluster([node("n1")], [], workloads=(agent,)), surge_slots=1)
    assert model2.rooms["surge-1"].free["cpu"] == 1430
    labels = model2.rooms["surge-1"].node.labels
    assert labels[NODE_GROUP_LABEL] == GROUP_ID and labels["kubernetes.io/os"] == "linux"


def test_gpu_pod_needs_a_gpu_node() -> None:
    # The template has 1 GPU: the surge node offers nvidia.com/gpu 1; the old node's pod that
    # needs it fits there (1/0) but nowhere at 0/1 with no other GPU node.
    pods = [pod("train", "n1", requests={"nvidia.com/gpu": 1})]
    nodes = [node("n1", gpus=1), node("n2")]
    g = group(size=2, gpus=1, policy=(1, 0))
    assert check_group(g, plan(g, 2), cluster(nodes, pods, workloads=deployment("web", 1))).ok
    g0 = group(size=2, gpus=1, policy=(0, 1))
    report = check_group(g0, plan(g0, 2), cluster(nodes, pods, workloads=deployment("web", 1)))
    assert "short of nvidia.com/gpu" in find(report.findings, "pods-do-not-fit")[0].message


def test_unmodelled_constraint_is_reported_never_passed() -> None:
    g = group(size=2, policy=(0, 1))
    pods = [pod("spread", "n1", constraints=("podAntiAffinity.required",))]
    report = check_group(g, plan(g, 2), cluster([node("n1"), node("n2")], pods,
                                                workloads=deployment("web", 2)))
    assert codes(report.findings) == ["constraint-not-modelled"]
    assert report.ok and report.verdict == "not-modelled"


def test_check_groups_and_the_model_reused_for_many_policies() -> None:
    g = group(policy=(0, 2))
    snap = cluster(FIVE, _three_per_node(900), workloads=deployment("web", 15))
    model = DrainModel.build(g, snap)
    verdicts = {pol: check_model(model, plan(g, 5, pol)).ok
                for pol in [(0, 1), (0, 2), (1, 0), (3, 0)]}
    # 0/1: one node's 3 pods (2700m) onto 4 nodes with 1300m free each: fits.
    # 0/2: does not (above). 1/0 and 3/0: a new empty node per drained node: fits.
    assert verdicts == {(0, 1): True, (0, 2): False, (1, 0): True, (3, 0): True}
    both = check_groups([(g, plan(g, 5))], snap)
    assert not both.ok and both.groups[0].address == "yandex_kubernetes_node_group.workers"


def test_nodes_without_pods_say_nothing_was_checked_for_workloads() -> None:
    # a dump of the nodes alone (`kubectl get nodes -o json`): 5 labelled nodes, no pod
    g = group(policy=(1, 0))
    report = check_group(g, plan(g, 5), cluster(FIVE, []))
    (finding,) = find(report.findings, "no-pods-on-nodes")
    assert (finding.severity, finding.every_order) == ("warning", True)
    assert finding.message == (
        "the cluster objects hold no pod on the group's 5 node(s), and no "
        "PodDisruptionBudget: nothing was checked for workloads (export the pods and PDBs "
        "too: kubectl get nodes,pods,pdb,... -A -o json)")
    assert report.ok and report.verdict == "warnings"
    with_pods = check_group(g, plan(g, 5), cluster(FIVE, [pod("p", "n1", cpu=100)]))
    assert "no-pods-on-nodes" not in codes(with_pods.findings)
