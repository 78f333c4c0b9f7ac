"""Cluster objects in the shapes real clusters have and the examples lacked: terminating pods,
cordoned nodes, managedFields and last-applied annotations, ``kubectl get -o yaml``, a List
inside a List, JSON documents one after another, PDBs in policy/v1beta1, and one cluster in
several files.

The fixtures in ``tests/fixtures/kube/`` are written in the producers' exact forms:

* ``nodes.yaml``: ``kubectl get nodes -o yaml``: the ``kind: List`` wrapper with
  ``metadata: {resourceVersion: ""}`` (kubectl ``staging/src/k8s.io/kubectl/pkg/cmd/get/get.go``
  ``printGeneric``, kubernetes/kubernetes@012b4f493b6cbc8defd8628dfdaf993fd9915f77; the same
  wrapper in itaysk/kubectl-neat ``test/fixtures/list-1-raw.yaml``
  @18016d88778dbb4ca356a7df9d19c8b7408a39dd), keys sorted, strings YAML would misread
  quoted; a Node's fields as in kubernetes/kubernetes
  ``staging/src/k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/node.yaml``
  @112ed56f1a5d6596bb297c599030b849cedfa6eb, on Yandex's labels. One node is
  cordoned as ``kubectl cordon`` and the node lifecycle controller leave it:
  ``spec.unschedulable: true``, the ``node.kubernetes.io/unschedulable:NoSchedule`` taint
  with ``timeAdded``, and their ``managedFields`` entries (``kubectl-cordon``,
  ``kube-controller-manager``, ``fieldsV1`` with ``k:``/``v:`` keys).
* ``shop.json``: ``kubectl get deployments,replicasets,pods -n shop -o json`` (4-space indent,
  keys sorted): Deployments with ``kubectl.kubernetes.io/last-applied-configuration``, every
  object with ``managedFields``; two pods terminating (``deletionTimestamp``,
  ``deletionGracePeriodSeconds``), one of them bare (a ``kubectl run`` pod being deleted).
* ``pdbs-v1beta1.json``: ``kubectl get --raw /apis/policy/v1beta1/namespaces/shop/
  poddisruptionbudgets``: the API server's compact JSON in Go field order, a typed
  ``PodDisruptionBudgetList`` whose items carry no apiVersion, one PDB with ``selector: {}``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ngupgrade.adapters.kube import read_dump_bytes, read_dumps
from ngupgrade.core import k8s
from ngupgrade.core.drain.selectors import selector_matches
from ngupgrade.core.errors import BadInput
from tests.conftest import EXAMPLE_STATE, CliResult

Run = Callable[..., CliResult]
KUBE = Path(__file__).parent / "fixtures" / "kube"
NODES, SHOP, PDBS = KUBE / "nodes.yaml", KUBE / "shop.json", KUBE / "pdbs-v1beta1.json"
OTHER = "cl1o2k8pbgd3n6sgjm4e-ovyx"  # the batch group's node, 15890m cpu, cordoned
ADIS, EKIQ, UWYB = ("cl1qvnd6ul2r7hbt4ijn-adis", "cl1qvnd6ul2r7hbt4ijn-ekiq",
                    "cl1qvnd6ul2r7hbt4ijn-uwyb")
CORDON = """    taints:
    - effect: NoSchedule
      key: node.kubernetes.io/unschedulable
      timeAdded: "2026-12-01T21:03:11Z"
    unschedulable: true
"""


def drain_check(run_cli: Run, *files: Path) -> dict[str, Any]:
    args = ["drain-check", "--state", str(EXAMPLE_STATE), "-g", "workers", "-o", "json"]
    for path in files:
        args += ["--cluster", str(path)]
    result = run_cli(*args)
    assert result.exit_code in (0, 1), result.stdout + result.stderr
    return json.loads(result.stdout)["groups"][0]


def waves(group: dict[str, Any]) -> list[tuple[str, int, int]]:
    return sorted((w["nodes"][0], w["pods_evicted"], w["pods_unplaced"]) for w in group["waves"])


# ---- the whole cluster, three files, three forms -------------------------------------------

def test_one_cluster_in_three_files_as_kubectl_and_the_api_write_them(run_cli: Run) -> None:
    # workers (1/0, 3 nodes): adis holds web + big (6 cpu); ekiq web + a web pod terminating;
    # uwyb web + the terminating bare pod. big fits only the batch node, which is cordoned.
    group = drain_check(run_cli, NODES, SHOP, PDBS)
    assert group["nodes"] == [ADIS, EKIQ, UWYB]
    # terminating pods are not evicted again (ekiq and uwyb evict their one web pod only)
    assert waves(group) == [(ADIS, 2, 1), (EKIQ, 1, 0), (UWYB, 1, 0)]
    codes = sorted((f["code"], f["severity"], f.get("pod")) for f in group["findings"])
    # no bare-pod-lost for the bare pod being deleted; legacy-all (v1beta1, selector {})
    # selects nothing, so no pdb-overlap with web and no pdb-blocks-eviction
    assert codes == [("pods-do-not-fit", "blocking", "shop/big-5f7d8b9c4-h2r9d"),
                     ("single-replica-disrupted", "warning", "shop/big-5f7d8b9c4-h2r9d")]
    unfit = next(f for f in group["findings"] if f["code"] == "pods-do-not-fit")
    assert "3 matching open node(s), none with room for cpu 6000m" in unfit["message"]


def test_a_cordoned_node_takes_no_pod(run_cli: Run, tmp_path: Path) -> None:
    text = NODES.read_text()
    assert text.count(CORDON) == 1
    uncordoned = tmp_path / "nodes.yaml"
    uncordoned.write_text(text.replace(CORDON, ""))
    # the same cluster with the batch node open: big goes there, nothing is left unplaced
    group = drain_check(run_cli, uncordoned, SHOP, PDBS)
    assert waves(group) == [(ADIS, 2, 0), (EKIQ, 1, 0), (UWYB, 1, 0)]
    assert "pods-do-not-fit" not in {f["code"] for f in group["findings"]}
    node = {n.name: n for n in read_dumps([str(NODES)]).snapshot.nodes}[OTHER]
    assert (node.unschedulable, node.taints) == (
        True, (k8s.Taint("node.kubernetes.io/unschedulable", "NoSchedule"),))
    assert node.allocatable["cpu"] == 15890


def test_terminating_pods_and_managed_fields_read_as_the_api_writes_them() -> None:
    snap = read_dumps([str(SHOP)]).snapshot
    pods = {p.name: p for p in snap.pods}
    assert sorted(n for n, p in pods.items() if p.terminating) == [
        "debug-shell", "web-6d4cf56db6-q8s2j"]
    assert pods["debug-shell"].owner is None
    assert pods["big-5f7d8b9c4-h2r9d"].containers[0].requests == {"cpu": 6000,
                                                                  "memory": 256 << 20}
    deployments = {(w.kind, w.name): w.replicas for w in snap.workloads}
    assert deployments == {("Deployment", "big"): 1, ("Deployment", "web"): 3,
                           ("ReplicaSet", "big-5f7d8b9c4"): 1, ("ReplicaSet", "web-6d4cf56db6"): 3}


# ---- policy/v1beta1 --------------------------------------------------------------------------

def _pdb_doc(api_version: str, selector: dict[str, Any] | None) -> bytes:
    spec: dict[str, Any] = {"minAvailable": 1}
    if selector is not None:
        spec["selector"] = selector
    return json.dumps({"apiVersion": api_version, "kind": "PodDisruptionBudget",
                       "metadata": {"name": "b", "namespace": "shop"}, "spec": spec}).encode()


MATCH_NONE_AS_V1 = {"matchExpressions": [  # a v1beta1 {} read through policy/v1
    {"key": "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match", "operator": "Exists"}]}
MATCH_ALL_AS_V1BETA1 = {"matchExpressions": [  # a v1 {} read through policy/v1beta1
    {"key": "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match",
     "operator": "DoesNotExist"}]}


@pytest.mark.parametrize(("api_version", "selector", "selects_any_pod"), [
    ("policy/v1", {}, True),
    ("policy/v1beta1", {}, False),
    ("policy/v1", None, False),
    ("policy/v1beta1", None, False),
    ("policy/v1", MATCH_NONE_AS_V1, False),
    ("policy/v1beta1", MATCH_ALL_AS_V1BETA1, True),
    ("policy/v1beta1", {"matchLabels": {"app": "web"}}, True),
])
def test_an_empty_selector_means_what_its_api_version_says(
        api_version: str, selector: dict[str, Any] | None, selects_any_pod: bool) -> None:
    (pdb,) = read_dump_bytes(_pdb_doc(api_version, selector), "pdb.json").snapshot.pdbs
    assert selector_matches(pdb.selector, {"app": "web"}) is selects_any_pod


def test_a_typed_v1beta1_list_lends_its_items_its_api_version() -> None:
    pdbs = {p.name: p for p in read_dumps([str(PDBS)]).snapshot.pdbs}
    assert pdbs["legacy-all"].selector is None
    assert pdbs["legacy-all"].min_available == 5
    assert pdbs["web"].selector == k8s.LabelSelector({"app": "web"})


# ---- YAML --------------------------------------------------------------------------------------

HAND_WRITTEN = b"""\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
    namespace: ns
    creationTimestamp: 2026-11-20T10:02:18Z
    deletionTimestamp: 2026-12-02T00:01:52Z
  spec:
    nodeName: n1
    containers:
    - name: a
      resources: {requests: {cpu: 1, memory: 1e3}}
    - name: b
      resources: {requests: {cpu: 0.5, memory: 1.5e+3}}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: 2, memory: 4Gi, pods: 110}}
"""


def test_hand_written_yaml_times_and_numeric_quantities() -> None:
    # unquoted times stay text (a YAML loader would make them datetimes); numbers YAML reads
    # as int or float (cpu: 1, cpu: 0.5, memory: 1.5e+3) and `1e3` (a string in YAML 1.1)
    # are the quantities they spell
    snap = read_dump_bytes(HAND_WRITTEN, "c.yaml").snapshot
    (pod,) = snap.pods
    assert pod.terminating is True
    assert [c.requests for c in pod.containers] == [{"cpu": 1000, "memory": 1000},
                                                    {"cpu": 500, "memory": 1500}]
    assert snap.nodes[0].allocatable == {"cpu": 2000, "memory": 4 << 30, "pods": 110}


def test_the_yaml_and_json_exports_are_the_same_cluster(tmp_path: Path) -> None:
    import yaml

    as_json = tmp_path / "nodes.json"
    as_json.write_text(json.dumps(yaml.safe_load(NODES.read_text())))
    assert read_dumps([str(NODES)]).snapshot == read_dumps([str(as_json)]).snapshot
    assert len(read_dumps([str(NODES)]).snapshot.nodes) == 4


@pytest.mark.parametrize(("data", "message"), [
    (b"apiVersion: v1\nkind: List\nitems: [\n", "c.yaml: neither JSON nor YAML: "),
    (b"just some words\n", "c.yaml: $: not a kubectl List or Kubernetes object: the YAML "
                           "holds a str, not a mapping"),
    (b"kind: List\nitems:\n- kind: Pod\n  metadata: {name: p}\n  spec: {containers: [{name: c,"
     b" resources: {requests: {cpu: 1x}}}]}\n",
     "c.yaml: $.items[0].spec.containers[0].resources.requests.cpu: not a quantity: '1x'"),
    (b"---\nkind: Node\nmetadata: {name: n}\n---\nkind: Node\nmetadata: {namespace: x}\n",
     "c.yaml (document 2): $.metadata: missing metadata.name"),
])
def test_bad_yaml_names_the_file_and_where(data: bytes, message: str) -> None:
    with pytest.raises(BadInput) as info:
        read_dump_bytes(data, "c.yaml")
    assert str(info.value).startswith(message)


# ---- Lists in Lists, documents in a row ----------------------------------------------------------

def test_a_list_inside_a_list_is_read_not_skipped() -> None:
    # the nesting of kubernetes/kubernetes staging/src/k8s.io/apimachinery/pkg/util/manifest/
    # testdata/misc-sample-multidoc-nested-lists-1.yaml@c5b828e4f74f76b6e6d2a2f12cfdc194af855ced
    # (kubectl's -f reader takes it; kubectl get itself always writes one flat List)
    data = b"""\
---
kind: List
apiVersion: v1
---
kind: List
apiVersion: v1
items:
- kind: List
  apiVersion: v1
  items:
  - kind: List
    apiVersion: v1
    items: []
  - kind: NodeList
    apiVersion: v1
    items:
    - metadata: {name: n1}
  - kind: List
    apiVersion: v1
- kind: List
  apiVersion: v1
  items:
  - {apiVersion: v1, kind: Service, metadata: {name: s, namespace: a}}
  - {apiVersion: v1, kind: Node, metadata: {name: n2}}
"""
    result = read_dump_bytes(data, "nested.yaml")
    assert [n.name for n in result.snapshot.nodes] == ["n1", "n2"]
    assert result.notes == ("skipped 1 objects of kinds the drain check does not read: "
                            "Service (1)",)
    inner = {"kind": "List", "items": [{"kind": "List", "items": [
        {"kind": "Node", "metadata": {"name": "n3"}}]}]}
    snap = read_dump_bytes(json.dumps(inner).encode(), "nested.json").snapshot
    assert [n.name for n in snap.nodes] == ["n3"]


def test_json_exports_appended_to_one_file_are_all_read(tmp_path: Path) -> None:
    # kubectl get nodes -o yaml ... ; kubectl get pods -o json >> cluster.json
    nodes = json.dumps({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
                        "items": [{"apiVersion": "v1", "kind": "Node",
                                   "metadata": {"name": "n1"}}]}, indent=4)
    pods = SHOP.read_text()
    path = tmp_path / "cluster.json"
    path.write_text(nodes + "\n" + pods + "\n" + '{"kind": "Node", "metadata": {"name": "n2"}}')
    snap = read_dumps([str(path)]).snapshot
    assert [n.name for n in snap.nodes] == ["n1", "n2"]
    assert len(snap.pods) == 6
    path.write_text(nodes + '\n{"kind": "Node", "metadata": {"namespace": "x"}}\n')
    with pytest.raises(BadInput) as info:
        read_dumps([str(path)])
    assert str(info.value) == (f"{path} (document 2): $.metadata: missing metadata.name")


def test_yaml_exports_appended_without_separator_are_refused_not_half_read(
        tmp_path: Path) -> None:
    # kubectl get nodes -o yaml > f; kubectl get pods -o yaml >> f: one mapping with every
    # top-level key twice, which a YAML loader reads as the pods alone
    path = tmp_path / "cluster.yaml"
    path.write_text(NODES.read_text() + "apiVersion: v1\nitems: []\nkind: List\n")
    with pytest.raises(BadInput) as info:
        read_dumps([str(path)])
    lines = NODES.read_text().count("\n")
    assert str(info.value) == (f"{path}: key 'apiVersion' is written twice in one mapping "
                               f"(lines 1 and {lines + 1}): YAML keeps only the second")
    path.write_text(NODES.read_text() + "---\napiVersion: v1\nitems: []\nkind: List\n")
    assert len(read_dumps([str(path)]).snapshot.nodes) == 4


def test_the_live_api_serving_the_same_cluster_gives_the_same_check(
        run_cli: Run, tmp_path: Path) -> None:
    # the same objects listed live (managedFields, terminating pods, the cordoned node); the
    # API server serves PDBs through policy/v1, where the v1beta1 empty selector reads as
    # `Exists` on the v1beta1 label (pkg/apis/policy/v1beta1/conversion.go)
    import yaml

    from ngupgrade.testing.kube_api import FakeKubeApi

    pdbs = []
    for item in json.loads(PDBS.read_text())["items"]:
        spec = dict(item["spec"])
        if spec.get("selector") == {}:
            spec["selector"] = MATCH_NONE_AS_V1
        pdbs.append({**item, "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                     "spec": spec})
    objects = (yaml.safe_load(NODES.read_text())["items"]
               + json.loads(SHOP.read_text())["items"] + pdbs)
    with FakeKubeApi(objects) as api:
        config = api.write_kubeconfig(tmp_path / "config")
        result = run_cli("drain-check", "--state", str(EXAMPLE_STATE), "-g", "workers",
                         "--kubeconfig", str(config), "-o", "json")
    live = json.loads(result.stdout)["groups"][0]
    files = drain_check(run_cli, NODES, SHOP, PDBS)
    assert (waves(live), live["findings"]) == (waves(files), files["findings"])
    assert waves(live) == [(ADIS, 2, 1), (EKIQ, 1, 0), (UWYB, 1, 0)]
