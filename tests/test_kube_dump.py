"""Cluster dumps (kubectl JSON) -> ClusterSnapshot: every field the drain check reads, the input
forms (List, typed list, single object, several files, stdin) and bad input (exit 3, file and
JSON path, no traceback)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from _kube_samples import GROUP, objects

from ngupgrade.adapters.kube import read_dump_bytes, read_dumps
from ngupgrade.core import k8s
from ngupgrade.core.errors import EXIT_BAD_INPUT, EXIT_USAGE, BadInput, UsageError
from ngupgrade.testing import kube_objects as ko

GIB = 1 << 30
MIB = 1 << 20


def read(*items: dict[str, Any]) -> k8s.ClusterSnapshot:
    return read_dump_bytes(json.dumps(ko.as_list(items)).encode(), "cluster.json").snapshot


def bad(data: bytes | dict[str, Any], source: str = "cluster.json") -> BadInput:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    with pytest.raises(BadInput) as info:
        read_dump_bytes(raw, source)
    assert info.value.exit_code == EXIT_BAD_INPUT
    return info.value


# ---- nodes -----------------------------------------------------------------------------------

def test_node_allocatable_labels_taints_and_ready() -> None:
    node = ko.node("n1", group_id=GROUP, extra={"nvidia.com/gpu": "1"},
                   taints=[{"key": "dedicated", "value": "batch", "effect": "NoSchedule"},
                           {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}],
                   unschedulable=True, ready=False)
    (value,) = read(node).nodes
    assert value.name == "n1"
    assert value.node_group_id == GROUP
    assert value.labels[k8s.ZONE_LABEL] == "ru-central1-a"
    # 3920m; 13948518Ki = 13948518 * 1024; hugepages "0" left out
    assert value.allocatable == {"cpu": 3920, "memory": 13948518 * 1024, "pods": 110,
                                 "ephemeral-storage": 59763732382, "nvidia.com/gpu": 1}
    assert value.taints == (k8s.Taint("dedicated", "NoSchedule", "batch"),
                            k8s.Taint("node.kubernetes.io/unschedulable", "NoSchedule", ""))
    assert value.unschedulable is True
    assert value.ready is False


def test_node_ready_from_condition_and_default_without_conditions() -> None:
    ready = ko.node("a")
    bare = {"kind": "Node", "metadata": {"name": "b"}}
    no_ready = {"kind": "Node", "metadata": {"name": "c"},
                "status": {"conditions": [{"type": "DiskPressure", "status": "False"}]}}
    nodes = {n.name: n for n in read(ready, bare, no_ready).nodes}
    assert nodes["a"].ready is True
    assert nodes["b"].ready is True           # hand-written, no conditions at all
    assert nodes["c"].ready is False          # conditions without Ready: Unknown, not ready
    assert nodes["b"].allocatable == {}


# ---- pods ------------------------------------------------------------------------------------

def _full_pod() -> dict[str, Any]:
    spec = ko.pod_spec(
        [ko.container("app", {"cpu": "500m", "memory": "1.5Gi"}),
         ko.container("limits-only", None, limits={"cpu": "1", "memory": "512Mi"}),
         ko.container("mixed", {"cpu": "100m"}, limits={"cpu": "200m", "memory": "64Mi"})],
        init_containers=[ko.container("migrate", {"cpu": "2"}, port=None),
                         ko.container("proxy", {"cpu": "50m", "memory": "32Mi"},
                                      restart_policy="Always", port=None)],
        node_name="n1",
        volumes=[{"name": "scratch", "emptyDir": {}},
                 {"name": "data", "persistentVolumeClaim": {"claimName": "data-0"}},
                 {"name": "logs", "hostPath": {"path": "/var/log", "type": ""}},
                 {"name": "tmp", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
                 {"name": "cfg", "configMap": {"name": "cfg"}}],
        node_selector={"yandex.cloud/node-group-id": GROUP},
        affinity={
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In",
                                           "values": ["a", "b"]}]},
                    {"matchFields": [{"key": "metadata.name", "operator": "In",
                                      "values": ["n1"]}]}]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "x"}},
                 "topologyKey": "kubernetes.io/hostname"}]}},
        tolerations=[{"key": "dedicated", "operator": "Equal", "value": "batch",
                      "effect": "NoSchedule"}, {"operator": "Exists"}],
        grace=600, priority=1000,
        extra={"overhead": {"cpu": "250m", "memory": "120Mi"},
               "topologySpreadConstraints": [
                   {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": "x"}}},
                   {"maxSkew": 1, "topologyKey": "host",
                    "whenUnsatisfiable": "ScheduleAnyway"}]})
    return ko.pod("app-0", "prod", spec, labels={"app": "x"},
                  owner=("apps/v1", "StatefulSet", "app"),
                  annotations={"kubernetes.io/config.mirror": "abc"}, deleting=True)


def test_pod_every_field() -> None:
    (pod,) = read(_full_pod()).pods
    assert (pod.namespace, pod.name, pod.ref) == ("prod", "app-0", "prod/app-0")
    assert pod.labels == {"app": "x"}
    assert pod.node_name == "n1"
    assert (pod.phase, pod.ready, pod.terminating, pod.mirror) == ("Running", True, True, True)
    assert pod.owner == k8s.OwnerRef("StatefulSet", "app", ko.uid("StatefulSet", "prod", "app"))
    assert pod.uid == ko.uid("Pod", "prod", "app-0")
    assert pod.containers == (
        k8s.Container("app", {"cpu": 500, "memory": 3 * GIB // 2}),
        # only limits: the API server's defaulting makes them the requests
        k8s.Container("limits-only", {"cpu": 1000, "memory": 512 * MIB}),
        # a request given wins; a resource with only a limit takes the limit
        k8s.Container("mixed", {"cpu": 100, "memory": 64 * MIB}),
    )
    assert pod.init_containers == (
        k8s.Container("migrate", {"cpu": 2000}),
        k8s.Container("proxy", {"cpu": 50, "memory": 32 * MIB}, sidecar=True),
    )
    assert pod.overhead == {"cpu": 250, "memory": 120 * MIB}
    assert pod.node_selector == {"yandex.cloud/node-group-id": GROUP}
    assert pod.required_node_affinity == (
        (k8s.Requirement("zone", "In", ("a", "b")),),
        (k8s.Requirement("metadata.name", "In", ("n1",)),),
    )
    assert pod.tolerations == (k8s.Toleration("dedicated", "Equal", "batch", "NoSchedule"),
                               k8s.Toleration("", "Exists", "", ""))
    assert pod.volumes == (
        k8s.Volume("scratch", "emptyDir"),
        k8s.Volume("data", "persistentVolumeClaim", "data-0"),
        k8s.Volume("logs", "hostPath"),
        k8s.Volume("tmp", "ephemeral", "app-0-tmp"),   # the claim the ephemeral controller makes
        k8s.Volume("cfg", "other"),
        k8s.Volume("kube-api-access", "other"),
    )
    assert pod.termination_grace_seconds == 600
    assert pod.priority == 1000
    # ScheduleAnyway is no constraint; required anti-affinity and DoNotSchedule are
    assert pod.constraints == ("podAntiAffinity.required",
                               "topologySpreadConstraints.DoNotSchedule")


def test_pod_defaults_and_bare_pod() -> None:
    minimal = {"kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
    pending = ko.pod("q", "ns", ko.pod_spec([ko.container("c", {"cpu": "1"})]),
                     phase="Pending", ready=False)
    ownerless = ko.pod("r", "ns", ko.pod_spec([ko.container("c")], node_name="n"))
    ownerless["metadata"]["ownerReferences"] = [  # not the controller: still a bare pod
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "u"}]
    pods = {p.name: p for p in read(minimal, pending, ownerless).pods}
    p = pods["p"]
    assert (p.namespace, p.phase, p.ready, p.node_name, p.owner) == (
        "default", "Running", True, None, None)
    assert p.containers == (k8s.Container("c", {}),)
    assert (p.termination_grace_seconds, p.priority, p.constraints, p.mirror) == (
        30, 0, (), False)
    assert (pods["q"].phase, pods["q"].ready, pods["q"].node_name) == ("Pending", False, None)
    assert pods["r"].owner is None


# ---- controllers, PDBs, storage ------------------------------------------------------------------

def test_workloads() -> None:
    labels = {"app": "w"}
    spec = ko.pod_spec([ko.container("c", None, limits={"cpu": "100m", "memory": "50Mi"})],
                       tolerations=[])
    rc = {"apiVersion": "v1", "kind": "ReplicationController",
          "metadata": {"name": "old", "namespace": "ns"},
          "spec": {"replicas": 4, "selector": {"app": "old"}}}
    snap = read(ko.deployment("w", "ns", 3, labels, spec),
                ko.replicaset("w", "ns", 3, labels, spec),
                ko.statefulset("s", "ns", 2, labels, spec),
                ko.daemonset("d", "ns", labels, spec, 9),
                rc, {"kind": "Deployment", "metadata": {"name": "unset", "namespace": "ns"}})
    by = {(w.kind, w.name): w for w in snap.workloads}
    dep = by["Deployment", "w"]
    assert (dep.replicas, dep.owner, dep.template) == (3, None, None)
    assert dep.selector == k8s.LabelSelector({"app": "w"})
    rs = by["ReplicaSet", f"w-{ko.pod_hash('w')}"]
    assert rs.replicas == 3
    assert rs.owner == k8s.OwnerRef("Deployment", "w", ko.uid("Deployment", "ns", "w"))
    assert by["StatefulSet", "s"].replicas == 2
    assert by["Deployment", "unset"].replicas == 1          # the API default
    assert by["ReplicationController", "old"].replicas == 4
    assert by["ReplicationController", "old"].selector == k8s.LabelSelector({"app": "old"})
    ds = by["DaemonSet", "d"]
    assert ds.replicas is None
    template = ds.template
    assert template is not None
    assert (template.namespace, template.name, template.node_name, template.labels) == (
        "ns", "d", None, {"app": "w"})
    assert template.owner == k8s.OwnerRef("DaemonSet", "d", ko.uid("DaemonSet", "ns", "d"))
    assert template.containers == (k8s.Container("c", {"cpu": 100, "memory": 50 * MIB}),)
    # the DaemonSet controller's tolerations, which every pod it makes carries
    assert {(t.key, t.effect) for t in template.tolerations} == {
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule")}


def test_pdb_spec_status_and_generations() -> None:
    synced = ko.pdb("a", "ns", {"app": "a"}, min_available=2, healthy=3, desired=2, expected=3,
                    policy="AlwaysAllow")
    behind = ko.pdb("b", "ns", {"app": "b"}, max_unavailable="25%", healthy=4, desired=3,
                    expected=4, generation=3, observed=2)
    no_status = {"kind": "PodDisruptionBudget", "metadata": {"name": "c", "namespace": "ns"},
                 "spec": {"minAvailable": "50%", "selector": {}}}
    null_selector = {"kind": "PodDisruptionBudget", "metadata": {"name": "d", "namespace": "ns"},
                     "spec": {"maxUnavailable": 1}, "status": {"disruptionsAllowed": 0}}
    pdbs = {p.name: p for p in read(synced, behind, no_status, null_selector).pdbs}
    a = pdbs["a"]
    assert (a.min_available, a.max_unavailable, a.unhealthy_pod_eviction_policy) == (
        2, None, "AlwaysAllow")
    assert a.selector == k8s.LabelSelector({"app": "a"})
    assert (a.generation, a.observed_generation, a.disruptions_allowed, a.current_healthy,
            a.desired_healthy, a.expected_pods) == (1, 1, 1, 3, 2, 3)
    b = pdbs["b"]
    assert (b.max_unavailable, b.generation, b.observed_generation, b.disruptions_allowed) == (
        "25%", 3, 2, 1)
    assert b.unhealthy_pod_eviction_policy == "IfHealthyBudget"
    c = pdbs["c"]
    assert c.selector == k8s.LabelSelector()          # {} selects the whole namespace
    assert (c.min_available, c.generation, c.observed_generation, c.disruptions_allowed,
            c.expected_pods) == ("50%", 0, None, None, None)
    d = pdbs["d"]
    assert d.selector is None                          # null selects nothing
    assert (d.generation, d.observed_generation, d.disruptions_allowed) == (0, 0, 0)


def test_pvc_and_pv() -> None:
    snap = read(ko.pvc("data", "ns", "pv-1"), ko.pv("pv-1", claim=("ns", "data"),
                                                    local_path="/mnt/ssd", node_name="n2"),
                ko.pv("pv-net"), {"kind": "PersistentVolumeClaim",
                                  "metadata": {"name": "pending", "namespace": "ns"}, "spec": {}})
    assert snap.pvcs == (k8s.PersistentVolumeClaim("ns", "data", "pv-1"),
                         k8s.PersistentVolumeClaim("ns", "pending", None))
    local, net = snap.pvs
    assert local == k8s.PersistentVolume("pv-1", True, (
        (k8s.Requirement("kubernetes.io/hostname", "In", ("n2",)),),))
    assert net.local is False
    assert net.node_affinity == (
        (k8s.Requirement("failure-domain.beta.kubernetes.io/zone", "In", ("ru-central1-a",)),),)


def test_claims_the_objects_lack_are_noted() -> None:
    # db-0 uses claim data (present, bound to pv-gone: absent) and claim logs (absent);
    # web uses an emptyDir only: 2 volumes cannot be judged local or not, web's is fine
    def with_volumes(name: str, volumes: list[dict[str, Any]]) -> dict[str, Any]:
        return ko.pod(name, "ns", {"nodeName": "n1", "volumes": volumes,
                                   "containers": [{"name": "c", "image": "x"}]})

    db = with_volumes("db-0", [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                               {"name": "l", "persistentVolumeClaim": {"claimName": "logs"}}])
    web = with_volumes("web", [{"name": "t", "emptyDir": {}}])
    doc = ko.as_list([db, web, ko.pvc("data", "ns", "pv-gone")])
    result = read_dump_bytes(json.dumps(doc).encode(), "c.json")
    assert result.notes == (
        "2 PersistentVolumeClaim volume(s) of pods lack their PersistentVolumeClaim or "
        "PersistentVolume in the cluster objects (ns/db-0 (volume pv-gone), ns/db-0 (claim "
        "logs)): whether they are local volumes that pin the pod to its node cannot be "
        "judged; add pvc,pv to `kubectl get`",)
    whole = ko.as_list([db, ko.pvc("data", "ns", "pv-1"), ko.pvc("logs", "ns", "pv-1"),
                        ko.pv("pv-1", claim=("ns", "data"))])
    assert read_dump_bytes(json.dumps(whole).encode(), "c.json").notes == ()


# ---- Ytsaurus ------------------------------------------------------------------------------

def test_ytsaurus_components_and_operator_labels() -> None:
    yt = ko.ytsaurus("prod", "yt", {
        # seed 002: 5 proxies, 3 must stay ready -> at most max(1, 5 - 3) = 2 down at once
        "httpProxies": [{"instanceCount": 5, "minReadyInstanceCount": 3},
                        {"role": "heavy", "instanceCount": 2, "minReadyInstanceCount": 1}],
        "rpcProxies": [{"role": "default", "instanceCount": 3}],
        "primaryMasters": {"instanceCount": 3, "minReadyInstanceCount": 2, "cellTag": 1},
        "secondaryMasters": [{"instanceCount": 3, "cellTag": 2}],
        "dataNodes": [{"name": "ssd", "instanceCount": 4}, {"instanceCount": 0}],
        "discovery": {"instanceCount": 1},
        "schedulers": {"instanceCount": 2},
        "strawberry": {"image": "x"},          # no instanceCount: not a component here
        "controllerAgents": None,
    })
    (value,) = read(yt).ytsaurus
    assert (value.namespace, value.name) == ("yt", "prod")
    got = {(c.kind, c.name): (c.instance_count, c.min_ready_instance_count,
                              c.pod_labels["yt_component"]) for c in value.components}
    # yt_component = <resource name>-<ComponentLabel>[-<group>] (pkg/labeller/labeller.go)
    assert got == {
        ("httpProxies", ""): (5, 3, "prod-yt-http-proxy"),
        ("httpProxies", "heavy"): (2, 1, "prod-yt-http-proxy-heavy"),
        ("rpcProxies", ""): (3, None, "prod-yt-rpc-proxy"),
        ("primaryMasters", ""): (3, 2, "prod-yt-master"),
        ("secondaryMasters", "2"): (3, None, "prod-yt-master-2"),
        ("dataNodes", "ssd"): (4, None, "prod-yt-data-node-ssd"),
        ("discovery", ""): (1, None, "prod-yt-discovery"),
        ("schedulers", ""): (2, None, "prod-yt-scheduler"),
    }


def test_ytsaurus_bad_component_names_its_path() -> None:
    yt = ko.ytsaurus("prod", "yt", {"httpProxies": [{"instanceCount": "five"}]})
    err = bad(ko.as_list([yt]))
    assert str(err) == ("cluster.json: $.items[0].spec.httpProxies[0].instanceCount: "
                        "Expected `int | null`, got `str`")


# ---- input forms -----------------------------------------------------------------------------

def test_the_sample_cluster_reads_whole() -> None:
    snap = read(*objects())
    assert [n.name for n in snap.nodes] == ["node-0", "node-1", "node-2"]
    assert len(snap.pods) == 2 + 1 + 3 + 1 + 5
    assert [(w.kind, w.name) for w in snap.workloads] == [
        ("DaemonSet", "agent"), ("Deployment", "web"), ("ReplicaSet", f"web-{ko.pod_hash('web')}"),
        ("StatefulSet", "db")]
    assert [p.ref for p in snap.pdbs] == ["shop/web"]
    # sorted by (namespace, name) whatever the input order
    refs = [p.ref for p in snap.pods]
    assert refs == sorted(refs, key=lambda r: tuple(r.split("/")))


def test_typed_list_and_single_object() -> None:
    pod = ko.pod("p", "ns", ko.pod_spec([ko.container("c", {"cpu": "1"})], node_name="n"))
    item = {k: v for k, v in pod.items() if k not in ("kind", "apiVersion")}  # as the API lists
    typed = {"kind": "PodList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"},
             "items": [item]}
    from_typed = read_dump_bytes(json.dumps(typed).encode(), "pods.json").snapshot.pods
    single = read_dump_bytes(json.dumps(pod).encode(), "pod.json").snapshot.pods
    assert from_typed == single
    assert single[0].containers[0].requests == {"cpu": 1000}


def test_unknown_kinds_are_skipped_with_a_note() -> None:
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "a"}}
    ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "a"}}
    doc = ko.as_list([svc, ko.node("n"), svc, ev])
    result = read_dump_bytes(json.dumps(doc).encode(), "c.json")
    assert [n.name for n in result.snapshot.nodes] == ["n"]
    assert result.notes == ("skipped 3 objects of kinds the drain check does not read: "
                            "Event (1), Service (2)",)
    services = {"kind": "ServiceList", "apiVersion": "v1", "items": [svc, svc]}
    assert read_dump_bytes(json.dumps(services).encode(), "s.json").notes == (
        "skipped 2 objects of kinds the drain check does not read: Service (2)",)
    assert read_dump_bytes(json.dumps(svc).encode(), "s.json").snapshot == k8s.ClusterSnapshot()


def test_several_files_merge_and_duplicates_count_once(tmp_path: Path) -> None:
    everything = objects()
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(ko.as_list(everything[:10])))
    second.write_text(json.dumps(ko.as_list(everything[8:])))  # two objects in both
    merged = read_dumps([str(second), str(first)])
    assert merged.snapshot == read(*everything)
    assert merged.notes == ("2 objects were read more than once (the last copy counts)",)


def test_stdin_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nodes = tmp_path / "nodes.json"
    nodes.write_text(json.dumps(ko.as_list([ko.node("n1")])))
    pods = ko.as_list([ko.pod("p", "ns", ko.pod_spec([ko.container("c")], node_name="n1"))])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(pods).encode())))
    snap = read_dumps([str(nodes), "-"]).snapshot
    assert ([n.name for n in snap.nodes], [p.name for p in snap.pods]) == (["n1"], ["p"])
    with pytest.raises(UsageError) as info:
        read_dumps(["-", str(nodes), "-"])
    assert info.value.exit_code == EXIT_USAGE


# ---- bad input ---------------------------------------------------------------------------------

def _with_cpu(value: object) -> dict[str, Any]:
    items: list[dict[str, Any]] = [ko.node(f"n{i}") for i in range(12)]
    items.append(ko.pod("p", "ns", ko.pod_spec([ko.container("c", {"cpu": "1"})])))
    items[12]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = value
    return ko.as_list(items)


def test_bad_quantity_names_file_and_path() -> None:
    assert str(bad(_with_cpu("1x"))) == (
        "cluster.json: $.items[12].spec.containers[0].resources.requests.cpu: "
        "not a quantity: '1x'")
    assert str(bad(_with_cpu("-1"))) == (
        "cluster.json: $.items[12].spec.containers[0].resources.requests.cpu: "
        "must not be negative: '-1'")


@pytest.mark.parametrize(("doc", "message"), [
    ({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"},
                                 "status": {"allocatable": {"memory": "lots"}}}]},
     "$.items[0].status.allocatable.memory: not a quantity: 'lots'"),
    ({"kind": "List", "items": [{"kind": "Deployment", "metadata": {"name": "d"},
                                 "spec": {"replicas": "3"}}]},
     "$.items[0].spec.replicas: Expected `int | null`, got `str`"),
    ({"kind": "List", "items": [{"kind": "Deployment", "metadata": {"name": "d"},
                                 "spec": {"replicas": -1}}]},
     "$.items[0].spec.replicas: must not be negative: -1"),
    ({"kind": "List", "items": [{"kind": "PodDisruptionBudget", "metadata": {"name": "b"},
                                 "spec": {"minAvailable": "50"}}]},
     "$.items[0].spec.minAvailable: not an integer or a percentage like '50%': '50'"),
    ({"kind": "List", "items": [{"kind": "Pod", "metadata": {"namespace": "x"}}]},
     "$.items[0].metadata: missing metadata.name"),
    ({"kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "p"},
                                 "status": {"phase": "Exploded"}}]},
     "$.items[0].status.phase: Invalid enum value 'Exploded'"),
    ({"kind": "List", "items": [{"metadata": {"name": "p"}}]},
     "$.items[0]: Object missing required field `kind`"),
    ({"kind": "List", "items": [ko.daemonset("d", "ns", {"a": "b"}, ko.pod_spec(
        [ko.container("c", {"memory": "1 Gi"})]), 1)]},
     "$.items[0].spec.template.spec.containers[0].resources.requests.memory: "
     "not a quantity: '1 Gi'"),
    ({"kind": "List", "items": {"a": 1}}, "$.items: Expected `array | null`, got `object`"),
    ({"hello": "world"},
     "$: not a kubectl List or Kubernetes object: no \"kind\" and no \"items\""),
])
def test_bad_values(doc: dict[str, Any], message: str) -> None:
    assert str(bad(doc)) == f"cluster.json: {message}"


@pytest.mark.parametrize(("data", "start"), [
    (b"", "cluster.json: empty input"),
    (b"  \n", "cluster.json: empty input"),
    (b'{"kind": "List", "items": [{"kind": "Node", "metad', "cluster.json: $: not valid JSON"),
    (b'{"kind": "List", "items": [{"kind": "\xff\xfe"}]}',  # said where, not "invalid JSON"
     "cluster.json: $.items[0]: not UTF-8 text at byte offset 37 (line 1): byte FF is not "
     "UTF-8"),
    (b"[]", "cluster.json: $: Expected `object`, got `array`"),
    (b"[" * 100_000, "cluster.json: $"),
])
def test_unreadable_documents(data: bytes, start: str) -> None:
    assert str(bad(data)).startswith(start)


def test_truncation_gets_a_hint() -> None:
    # YAML is read (tests/test_kube_shapes.py); a cut-off JSON export says what it looks like
    assert "complete" in (bad(b'{"kind": "List", "items": [').hint or "")


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"missing\.json: cannot read"):
        read_dumps([str(tmp_path / "missing.json")])
    with pytest.raises(BadInput, match="is a directory"):
        read_dumps([str(tmp_path)])
    broken = tmp_path / "cut.json"
    broken.write_bytes(json.dumps(ko.as_list(objects())).encode()[:5000])
    with pytest.raises(BadInput, match=r"^.*cut\.json: \$: not valid JSON: Input data was "
                                       r"truncated$"):
        read_dumps([str(broken)])


# ---- cut-off YAML ------------------------------------------------------------------------------
# kubectl writes YAML through sigs.k8s.io/yaml, which sorts keys (kubernetes/kubectl
# pkg/cmd/get, printers.YAMLPrinter): a List ends with `kind: List` and `metadata:
# {resourceVersion: ""}`, so a file cut anywhere in `items` still parses, without them.


def _yaml_dump() -> str:
    import yaml
    return yaml.safe_dump(ko.as_list(objects()), sort_keys=True, default_flow_style=False)


@pytest.mark.parametrize("cut", ["\nkind: List", "\n  status:", "\n- apiVersion:"])
def test_a_cut_off_yaml_dump_is_refused(tmp_path: Path, cut: str) -> None:
    text = _yaml_dump()
    assert text.rstrip().endswith("resourceVersion: ''")
    where = text.rindex(cut)
    path = tmp_path / "cluster.yaml"
    path.write_text(text[:where] + "\n")
    with pytest.raises(BadInput) as info:
        read_dumps([str(path)])
    assert info.value.exit_code == EXIT_BAD_INPUT
    assert str(info.value) == (
        f"{path}: $: the file looks cut off: kubectl writes kind: List at the end, and this "
        "document has items and no kind")
    assert "export it again" in (info.value.hint or "")
    assert "new file" in (info.value.hint or "")


def test_the_whole_yaml_dump_reads() -> None:
    whole = read_dump_bytes(_yaml_dump().encode(), "cluster.yaml").snapshot
    assert whole == read(*objects())
