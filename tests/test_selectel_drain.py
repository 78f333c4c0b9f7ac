"""The drain check on a Selectel state: the example dump terraform/examples/selectel/cluster.json.

A Selectel group's Kubernetes nodes are the hostnames its state lists (``nodes[].hostname``:
Selectel documents no node label naming the group, core/membership.py); the upgrade runs under
SELECTEL_DRAIN_RULES (a PDB-blocked eviction is retried, then the upgrade stops with the
cluster in ERROR: seed 001 L80, L88-L92), and a surge node offers Selectel's documented
allocatable (reserve-resources-for-system-daemons: the same bands as Yandex's).

The example's ``workers`` (5 nodes workers-0..4, 4 vCPU / 8192 MB) hold, besides DaemonSet
pods: coredns on workers-0 and workers-2 (PDB maxUnavailable 1), frontend on workers-0,
workers-2, workers-4 (PDB maxUnavailable 1), session-cache with an emptyDir on workers-1, and
checkout (1 replica, PDB minAvailable 1: never evictable) on workers-3.
"""

from __future__ import annotations

import importlib.util
import json

from conftest import EXAMPLES

from ngupgrade.adapters.kube import read_dumps
from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.core.drain.check import GroupDrainReport, check_group
from ngupgrade.core.drain.drain_model import DrainModel
from ngupgrade.core.k8s import NODE_GROUP_LABEL, ClusterSnapshot, Node
from ngupgrade.core.membership import group_node_names, is_member, nodes_per_group
from ngupgrade.core.model import DeployPolicy, NodeGroup
from ngupgrade.core.platform import SELECTEL_DRAIN_RULES
from ngupgrade.core.simulate import plan_group
from ngupgrade.testing import node_group

SELECTEL = EXAMPLES / "selectel"
STATE = SELECTEL / "terraform.tfstate"
CLUSTER = SELECTEL / "cluster.json"
WORKERS = "selectel_mks_nodegroup_v1.workers"
WORKER_NODES = ("workers-0", "workers-1", "workers-2", "workers-3", "workers-4")


def _groups() -> dict[str, NodeGroup]:
    return {str(g.address): g for g in parse_state(STATE.read_bytes(), "terraform.tfstate").groups}


def _snapshot() -> ClusterSnapshot:
    return read_dumps([str(CLUSTER)]).snapshot


def _check(policy: DeployPolicy) -> GroupDrainReport:
    group = _groups()[WORKERS]
    plan = plan_group(group, max_expansion=policy.max_expansion,
                      max_unavailable=policy.max_unavailable)
    return check_group(group, plan, _snapshot(), SELECTEL_DRAIN_RULES)


def test_the_file_is_what_its_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("generate_selectel_cluster",
                                                  SELECTEL / "generate_cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert json.loads(CLUSTER.read_text()) == module.build()


def test_a_selectel_group_s_nodes_are_the_state_s_hostnames() -> None:
    groups = _groups()
    assert groups[WORKERS].node_names == WORKER_NODES
    nodes = _snapshot().nodes
    assert not any(NODE_GROUP_LABEL in n.labels for n in nodes)  # Selectel sets no such label
    assert group_node_names(groups[WORKERS], nodes) == WORKER_NODES
    assert nodes_per_group(groups.values(), nodes) == {
        "63ed5342-b22c-4c7a-9d41-c1fe4a142c13": 5, "7a1c0e9b-3d2f-4b8a-a6e5-0f9d8c7b6a51": 2,
        "c4d5e6f7-0a1b-4c2d-8e3f-9a0b1c2d3e4f": 3}


def test_membership_by_hostname_label_and_yandex_by_its_label() -> None:
    selectel = NodeGroup(**{**_groups()[WORKERS].__dict__, "node_names": ("host-a",)})
    renamed = Node("node-1", {"kubernetes.io/hostname": "host-a"}, {})
    assert is_member(selectel, renamed)
    assert not is_member(selectel, Node("host-b", {NODE_GROUP_LABEL: selectel.id}, {}))
    yandex = node_group(id="cat1", name="workers")
    assert is_member(yandex, Node("x", {NODE_GROUP_LABEL: "cat1"}, {}))
    assert not is_member(yandex, Node("cat1", {}, {}))  # a Yandex node is found by its label


def test_a_surge_node_gets_selectel_s_allocatable_and_no_yandex_label() -> None:
    """4 vCPU: 4000 - (60 + 10 + 5 + 5) = 3920m. 8 GiB: 25 % of 4 GiB + 20 % of 4 GiB =
    1073741824 + 858993459.2 -> 1932735284 B, + 100 MiB (104857600) = 2037592884 reserved;
    8589934592 - 2037592884 = 6552341708 B (6248.8 MiB)."""
    model = DrainModel.build(_groups()[WORKERS], _snapshot())
    surge = model.surge_node(1)
    assert (surge.allocatable["cpu"], surge.allocatable["memory"]) == (3920, 6552341708)
    assert NODE_GROUP_LABEL not in surge.labels
    assert surge.labels["role"] == "workers"


def test_default_0_1_stops_the_upgrade_at_checkout_s_node() -> None:
    """0/1: five waves of one node, updated in place; 5! = 120 orders, all run. checkout's
    PDB (minAvailable 1, 1 healthy) allows 0: in every order the upgrade stops in the wave
    that drains workers-3, and the waves after it never run. Every order scores 2 blocking;
    those draining workers-1 (session-cache's emptyDir) before workers-3 add a warning, the
    first of them in name order is name order itself: workers-0, -1, -2, -3, then stop.
    Evicted: workers-0 coredns + frontend = 2; workers-1 session-cache = 1; workers-2 coredns
    + frontend = 2; workers-3 none (checkout stays, old and running)."""
    report = _check(DeployPolicy(0, 1))
    assert (report.orders, report.exhaustive) == (120, True)
    assert [w.nodes for w in report.waves] == [("workers-0",), ("workers-1",), ("workers-2",),
                                              ("workers-3",)]
    assert [w.pods_evicted for w in report.waves] == [2, 1, 2, 0]
    assert [w.pods_blocked for w in report.waves] == [0, 0, 0, 1]  # checkout, left running
    assert [w.in_place for w in report.waves] == [w.nodes for w in report.waves]
    stops = [f for f in report.findings if f.code == "upgrade-stops"]
    (stop,) = stops
    assert (stop.wave, stop.node, stop.pdb, stop.severity) == (4, "workers-3", "shop/checkout",
                                                              "blocking")
    assert stop.pod is not None and stop.pod.startswith("shop/checkout-")
    assert stop.every_order
    assert "later waves do not run" in stop.message
    assert not any(f.code == "forced-stop" for f in report.findings)  # that is Yandex's
    assert not report.ok


def test_surge_2_0_stops_in_wave_2_after_the_emptydir_node_is_deleted() -> None:
    """2/0: waves of 2, 2, 1 nodes, each after 2 surge nodes are Ready, the drained nodes
    deleted; 5!/(2!2!1!) = 30 orders. The worst drains workers-0 and workers-2 first (both
    coredns and two frontend pods share a wave: 1 wait each), then workers-1 and workers-3:
    session-cache goes (its emptyDir with its deleted node) and checkout blocks: the upgrade
    stops in wave 2 and workers-4 is never drained. Evicted 4 then 1; surge Ready 2 then 4."""
    report = _check(DeployPolicy(2, 0))
    assert (report.orders, report.exhaustive) == (30, True)
    assert [w.nodes for w in report.waves] == [("workers-0", "workers-2"),
                                              ("workers-1", "workers-3")]
    assert [w.surge_ready for w in report.waves] == [2, 4]
    assert [w.pods_evicted for w in report.waves] == [4, 1]
    assert [w.pdb_waits for w in report.waves] == [2, 0]
    assert [w.deleted for w in report.waves] == [w.nodes for w in report.waves]
    (stop,) = [f for f in report.findings if f.code == "upgrade-stops"]
    assert (stop.wave, stop.node, stop.pdb) == (2, "workers-3", "shop/checkout")
    (lost,) = [f for f in report.findings if f.code == "emptydir-data-lost"]
    assert (lost.wave, lost.node) == (2, "workers-1")
    assert lost.pod is not None and lost.pod.startswith("shop/session-cache-")
    assert "workers-4" not in {n for w in report.waves for n in w.nodes}


def test_drain_check_cli_on_the_selectel_example(run_cli) -> None:
    res = run_cli("drain-check", "--state", str(STATE), "--cluster", str(CLUSTER), "-o", "json")
    assert res.exit_code == 1
    doc = res.json()
    assert set(doc) >= {"ok", "verdict", "groups", "accepted", "notes"}
    assert (doc["ok"], doc["verdict"], doc["notes"]) == (False, "blocked", [])
    verdicts = {g["address"]: (g["verdict"], len(g["nodes"]), g["rules"]["on_blocked_eviction"])
                for g in doc["groups"]}
    assert verdicts == {WORKERS: ("blocked", 5, "stop-upgrade"),
                        "selectel_mks_nodegroup_v1.batch": ("clear", 2, "stop-upgrade"),
                        "selectel_mks_nodegroup_v1.cache": ("clear", 3, "stop-upgrade")}
    (workers,) = [g for g in doc["groups"] if g["address"] == WORKERS]
    assert workers["policy"] == {"max_expansion": 0, "max_unavailable": 1}  # Selectel's default
    codes = {f["code"] for f in workers["findings"] if f["severity"] == "blocking"}
    assert codes == {"pdb-blocks-eviction", "upgrade-stops"}
    text = run_cli("drain-check", "--state", str(STATE), "--cluster", str(CLUSTER),
                   "-g", WORKERS)
    assert text.exit_code == 1
    assert "a blocked eviction stops the upgrade (ERROR)" in text.stdout
    assert "upgrade-stops" in text.stderr


def test_single_replica_findings_say_what_selectel_s_stop_does_to_the_pod() -> None:
    """0/1, all 120 orders. checkout (1 replica, minAvailable 1) is refused in every order and
    the upgrade stops with it still running on workers-3: it is never down (the finding used
    to say "down at least once in every order"). session-cache on workers-1 goes down only in
    the orders that drain workers-1 before workers-3: 4!/2 = 60 of the 120 (in the others the
    upgrade stops first). Where it goes down, up to 1 + min(5 - 1, 4 other nodes) = 5 times:
    the orders that drain workers-3 last run all 5 waves."""
    report = _check(DeployPolicy(0, 1))
    single = {f.subject: f for f in report.findings if f.code == "single-replica-disrupted"}
    checkout = single["Deployment shop/checkout"]
    assert (checkout.severity, checkout.every_order, checkout.count) == ("warning", False, 0)
    assert checkout.message.startswith(
        "Deployment shop/checkout runs 1 replica (shop/checkout-")
    assert ("not taken down in any of the 120 order(s) evaluated: its eviction is refused "
            "(pdb-blocks-eviction), so the upgrade stops (upgrade-stops) with it still running "
            "on workers-3; once the upgrade can pass, it is down at least once, up to 5 "
            "time(s)") in checkout.message
    cache = single["Deployment shop/session-cache"]
    assert (cache.every_order, cache.count) == (False, 5)
    assert cache.message.endswith(
        "down in 60 of the 120 order(s) evaluated, up to 5 time(s) in the worst (5 wave(s); a "
        "pod moved onto an old node is evicted again when that node drains); in the other 60 "
        "the upgrade stops (upgrade-stops) before it is evicted and it keeps running on "
        "workers-1")


def test_pod_findings_under_selectel_hold_in_every_order_only_where_every_order_drains_it(
        ) -> None:
    """0/1, all 120 orders: session-cache's emptyDir on workers-1 is lost only in the 60
    orders that drain workers-1 before workers-3 (checkout's node, where the upgrade stops);
    in the others its node stays old and running with the data. The finding said "every
    order" (a pod's own property shows whatever the order: true only where every node
    drains), while single-replica-disrupted for the same pod said 60 of 120."""
    report = _check(DeployPolicy(0, 1))
    (lost,) = [f for f in report.findings if f.code == "emptydir-data-lost"]
    assert lost.pod is not None and lost.pod.startswith("shop/session-cache-")
    assert lost.every_order is False
    (cache,) = [f for f in report.findings if f.code == "single-replica-disrupted"
                and f.subject == "Deployment shop/session-cache"]
    assert cache.every_order is False

