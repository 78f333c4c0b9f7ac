"""``ngupgrade drain-check`` end to end: example state + kubectl dumps written as kubectl does.

The numbers are worked by hand from the rules in docs/drain.md: ``workers`` is a fixed group
of 3 nodes (deploy policy 1/0 in the example state), so the upgrade has 3 waves of one node
each, and a 1-replica Deployment under a PDB with ``minAvailable: 1`` can never be evicted
(seed 004: disruptionsAllowed = 1 healthy - 1 desired = 0, HTTP 429): on Yandex the node is
stopped after 7 minutes with the pod still on it (forced stop).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLE_STATE, CliResult

STATE = str(EXAMPLE_STATE)
Run = Callable[..., CliResult]
WORKERS = "cat1ng0fixed0000abcd"


def node(name: str, group: str = WORKERS, cpu: str = "3920m", memory: str = "12Gi"
         ) -> dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"yandex.cloud/node-group-id": group,
                                              "kubernetes.io/hostname": name}},
        "spec": {},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


def pod(name: str, node_name: str, *, owner: tuple[str, str] | None = None,
        labels: dict[str, str] | None = None, cpu: str = "100m",
        volumes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "app", "labels": labels or {}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1],
                                    "uid": f"uid-{owner[1]}", "controller": True}]
    return {
        "apiVersion": "v1", "kind": "Pod", "metadata": meta,
        "spec": {"nodeName": node_name, "volumes": volumes or [],
                 "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


def deployment(name: str, replicas: int) -> list[dict[str, Any]]:
    """A Deployment and its ReplicaSet (the pods' controller owner)."""
    return [
        {"apiVersion": "apps/v1", "kind": "Deployment",
         "metadata": {"name": name, "namespace": "app", "uid": f"uid-{name}"},
         "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}}},
        {"apiVersion": "apps/v1", "kind": "ReplicaSet",
         "metadata": {"name": f"{name}-rs", "namespace": "app", "uid": f"uid-{name}-rs",
                      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                           "name": name, "uid": f"uid-{name}",
                                           "controller": True}]},
         "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}}},
    ]


def pdb(name: str, app: str, *, min_available: int, healthy: int, desired: int
        ) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "app", "generation": 1},
        "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": app}}},
        "status": {"observedGeneration": 1, "disruptionsAllowed": max(0, healthy - desired),
                   "currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": healthy},
    }


def dump(tmp_path: Path, items: list[dict[str, Any]], name: str = "cluster.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def calm_cluster() -> list[dict[str, Any]]:
    """3 workers nodes; a 3-replica web (one pod per node) under minAvailable 2."""
    items = [node("w1"), node("w2"), node("w3"), *deployment("web", 3),
             pdb("web", "web", min_available=2, healthy=3, desired=2)]
    items += [pod(f"web-{i}", f"w{i}", owner=("ReplicaSet", "web-rs"), labels={"app": "web"})
              for i in (1, 2, 3)]
    return items


def blocked_cluster() -> list[dict[str, Any]]:
    """calm_cluster plus a 1-replica api on w2 under minAvailable 1 (never evictable)."""
    return [*calm_cluster(), *deployment("api", 1),
            pdb("api", "api", min_available=1, healthy=1, desired=1),
            pod("api-0", "w2", owner=("ReplicaSet", "api-rs"), labels={"app": "api"})]


def test_calm_cluster_passes_with_three_one_node_waves(tmp_path: Path, run_cli: Run) -> None:
    path = dump(tmp_path, calm_cluster())
    result = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path,
                 "-o", "json")
    assert result.exit_code == 0, result.stdout
    doc = json.loads(result.stdout)
    assert doc["ok"] is True
    (group,) = doc["groups"]
    assert group["address"] == "yandex_kubernetes_node_group.workers"
    assert group["policy"] == {"max_expansion": 1, "max_unavailable": 0}
    assert [len(w["nodes"]) for w in group["waves"]] == [1, 1, 1]
    # one web pod per wave, and it finds room (a surge node is Ready before each drain at 1/0)
    assert [w["pods_evicted"] for w in group["waves"]] == [1, 1, 1]
    assert [w["pods_unplaced"] for w in group["waves"]] == [0, 0, 0]
    assert not [f for f in group["findings"] if f["severity"] == "blocking"]


def test_single_replica_under_min_available_1_blocks_and_forces_the_stop(
        tmp_path: Path, run_cli: Run) -> None:
    path = dump(tmp_path, blocked_cluster())
    result = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path,
                 "-o", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["ok"] is False
    codes = {(f["code"], f["pod"], f["pdb"]) for f in doc["groups"][0]["findings"]
             if f["severity"] == "blocking"}
    assert ("pdb-blocks-eviction", "app/api-0", "app/api") in codes
    forced = [f for f in doc["groups"][0]["findings"] if f["code"] == "forced-stop"]
    assert forced and forced[0]["node"] == "w2"
    # the error object of a failed check names the finding
    assert "pdb-blocks-eviction" in result.stdout


def test_a_forced_stop_is_blocked_not_evicted_in_the_wave_table(tmp_path: Path, run_cli: Run
                                                                ) -> None:
    # 1/0, one node per wave; web's PDB (minAvailable 2 of 3) lets its one pod per wave go.
    # api-0 (1 replica, minAvailable 1) is refused on w2: Yandex stops w2 with it (it went
    # down, it was not evicted). The worst order (w1, w2, w3) then places it on the old w3,
    # the node with the most room, where wave 3 is refused it again and stops w3: evicted
    # 1, 1, 1 (the web pods) and blocked 0, 1, 1 (the evicted column used to say 1, 2, 2).
    path = dump(tmp_path, blocked_cluster())
    base = ["drain-check", "--state", STATE, "-g", "workers", "--cluster", path]
    doc = json.loads(run_cli(*base, "-o", "json").stdout)
    waves = [(w["nodes"], w["pods_evicted"], w["pods_blocked"])
             for w in doc["groups"][0]["waves"]]
    assert waves == [(["w1"], 1, 0), (["w2"], 1, 1), (["w3"], 1, 1)]
    forced = [(f["wave"], f["node"], f["count"]) for f in doc["groups"][0]["findings"]
              if f["code"] == "forced-stop"]
    assert forced == [(2, "w2", 1), (3, "w3", 1)]
    text = run_cli(*base).stdout
    header = next(line for line in text.splitlines() if line.lstrip().startswith("wave "))
    # the refused evictions' column says what Yandex does with them (it said "blocked", which
    # under Selectel's rules means pods left running): one meaning per column
    assert header.split() == ["wave", "nodes", "drained", "surge", "Ready", "evicted",
                              "forced", "down", "no", "place", "PDB", "waits"]
    rows = [line.split() for line in text.splitlines() if line.startswith(("  1 ", "  2 "))]
    assert rows == [["1", "w1", "1", "1", "0", "0", "0"], ["2", "w2", "2", "1", "1", "0", "0"]]


def test_accept_proceeds_past_read_findings(tmp_path: Path, run_cli: Run) -> None:
    path = dump(tmp_path, blocked_cluster())
    base = ["drain-check", "--state", STATE, "-g", "workers", "--cluster", path]
    assert run_cli(*base, "--accept", "pdb-blocks-eviction").exit_code == 1  # forced-stop remains
    result = run_cli(*base, "--accept", "pdb-blocks-eviction", "--accept", "forced-stop")
    assert result.exit_code == 0, result.stdout
    assert "accepted finding(s)" in result.stdout


def test_strict_fails_on_warnings(tmp_path: Path, run_cli: Run) -> None:
    scratch = pod("scratch", "w1", owner=("ReplicaSet", "web-rs"), labels={"app": "other"},
                  volumes=[{"name": "tmp", "emptyDir": {}}])
    items = [*calm_cluster(), scratch]
    path = dump(tmp_path, items)
    base = ["drain-check", "--state", STATE, "-g", "workers", "--cluster", path, "-o", "json"]
    relaxed = run_cli(*base)
    assert relaxed.exit_code == 0, relaxed.stdout
    codes = {f["code"] for f in json.loads(relaxed.stdout)["groups"][0]["findings"]}
    assert "emptydir-data-lost" in codes
    assert run_cli(*base, "--strict").exit_code == 1


def test_junit_has_a_failure_per_blocking_finding(tmp_path: Path, run_cli: Run) -> None:
    path = dump(tmp_path, blocked_cluster())
    result = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path,
                 "-o", "junit")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout[result.stdout.index("<"):])
    failures = [c for c in root.iter("testcase") if c.find("failure") is not None]
    names = {c.get("name", "") for c in failures}
    assert "verdict" in names
    assert any(n.startswith("pdb-blocks-eviction") for n in names)


def test_two_dumps_and_stdin_are_one_cluster(tmp_path: Path, run_cli: Run) -> None:
    items = blocked_cluster()
    first = dump(tmp_path, items[:3], "nodes.json")
    rest = json.dumps({"apiVersion": "v1", "kind": "List", "items": items[3:]})
    result = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", first,
                     "--cluster", "-", "-o", "json", stdin=rest.encode())
    assert result.exit_code == 1
    assert json.loads(result.stdout)["groups"][0]["nodes"] == ["w1", "w2", "w3"]


@pytest.mark.parametrize(("args", "words"), [
    ((), "daemonsets,pvc,pv -A -o json"),
    (("--accept", "pdb-block-eviction"), "did you mean pdb-blocks-eviction"),
])
def test_usage_errors_exit_2(tmp_path: Path, run_cli: Run, args: tuple[str, ...], words: str
                             ) -> None:
    extra = () if not args else ("--cluster", dump(tmp_path, calm_cluster()))
    result = run_cli("drain-check", "--state", STATE, *extra, *args)
    assert result.exit_code == 2
    assert words in result.stderr


def test_both_inputs_is_a_usage_error(tmp_path: Path, run_cli: Run) -> None:
    result = run_cli("drain-check", "--state", STATE, "--cluster", dump(tmp_path, calm_cluster()),
                 "--kubeconfig", str(tmp_path / "kubeconfig"))
    assert result.exit_code == 2
    assert "one way" in result.stderr


def test_a_corrupt_dump_names_the_file_and_exits_3(tmp_path: Path, run_cli: Run) -> None:
    path = tmp_path / "cluster.json"
    path.write_text('{"apiVersion": "v1", "kind": "List", "items": [')
    result = run_cli("drain-check", "--state", STATE, "--cluster", str(path))
    assert result.exit_code == 3
    assert "cluster.json" in result.stderr


def test_junit_output_is_refused_where_there_are_no_checks(run_cli: Run) -> None:
    result = run_cli("groups", "--state", STATE, "-o", "junit")
    assert result.exit_code == 2
    assert "--output junit is for drain-check and preflight" in result.stderr


def test_a_group_without_labelled_nodes_is_named(tmp_path: Path, run_cli: Run) -> None:
    path = dump(tmp_path, calm_cluster())
    result = run_cli("drain-check", "--state", STATE, "-g", "gpu", "-g", "workers",
                     "--cluster", path)
    assert result.exit_code == 0, result.stdout
    assert "no node in the cluster objects is labelled" in result.stderr


@pytest.mark.parametrize("items", [
    [],  # an empty List
    [node("x1", group="cat9other00000000000")],  # another cluster's dump
])
def test_no_selected_group_with_a_node_fails_the_check(tmp_path: Path, run_cli: Run,
                                                       items: list[dict[str, Any]]) -> None:
    path = dump(tmp_path, items)
    result = run_cli("drain-check", "--state", STATE, "--cluster", path, "-o", "json")
    assert result.exit_code == 1, result.stdout
    doc = json.loads(result.stdout)
    assert (doc["ok"], doc["verdict"]) == (False, "no-group-nodes")
    text = run_cli("drain-check", "--state", STATE, "-g", "gpu", "--cluster", path)
    assert text.exit_code == 1
    assert "drain check: FAILED: no selected group has a node" in text.stdout
    assert "(cat3ng0gpu000000ijkl): nothing was checked" in text.stderr
    # a bare {"kind": "List"} is the same empty cluster
    bare = tmp_path / "bare.json"
    bare.write_text('{"kind": "List"}')
    assert run_cli("drain-check", "--state", STATE, "--cluster", str(bare)).exit_code == 1


# -- preflight --cluster: the quota gate and the drain verdict in one run ---------------------

QUOTAS = str(EXAMPLE_STATE.parent / "quotas.yaml")


def test_preflight_with_cluster_includes_the_drain_verdict(tmp_path: Path, run_cli: Run
                                                           ) -> None:
    path = dump(tmp_path, blocked_cluster())
    base = ["preflight", "--state", STATE, "-g", "workers", "--quotas", QUOTAS,
            "--cluster", path]
    result = run_cli(*base, "-o", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["ok"] is False
    assert doc["drain"]["ok"] is False
    assert {f["code"] for f in doc["drain"]["groups"][0]["findings"]} >= {
        "pdb-blocks-eviction", "forced-stop"}
    assert "drain check failed" in result.stderr
    accepted = run_cli(*base, "--accept", "pdb-blocks-eviction", "--accept", "forced-stop",
                       "-o", "json")
    doc = json.loads(accepted.stdout)
    # workers at 1/0 needs 1 VM, 4 cores, 16 GiB, 1 IP: all fit quotas.yaml (2 IPs left)
    assert doc["drain"]["ok"] is True
    assert doc["ok"] is True
    assert accepted.exit_code == 0


def test_preflight_junit_has_a_case_per_quota_and_per_finding(tmp_path: Path, run_cli: Run
                                                               ) -> None:
    path = dump(tmp_path, blocked_cluster())
    result = run_cli("preflight", "--state", STATE, "-g", "workers", "--quotas", QUOTAS,
                     "--cluster", path, "-o", "junit")
    root = ET.fromstring(result.stdout)
    suites = {s.get("name", ""): s for s in root.iter("testsuite")}
    quota_suites = [s for name, s in suites.items() if name.startswith("preflight ")]
    assert quota_suites
    quota_cases = {c.get("name") for s in quota_suites for c in s.iter("testcase")}
    assert "compute.instances.count" in quota_cases
    drain = suites["drain-check yandex_kubernetes_node_group.workers"]
    failed = {c.get("name", "").split()[0] for c in drain.iter("testcase")
              if c.find("failure") is not None}
    assert {"verdict", "pdb-blocks-eviction", "forced-stop"} <= failed


# -- advise --cluster: the drain check judges the workloads of each policy --------------------

def test_advise_with_cluster_rejects_what_the_drain_check_blocks(tmp_path: Path, run_cli: Run
                                                                  ) -> None:
    base = ["advise", "--state", STATE, "-g", "workers", "--quotas", QUOTAS, "-o", "json"]
    calm = run_cli(*base, "--cluster", dump(tmp_path, calm_cluster(), "calm.json"))
    assert calm.exit_code == 0, calm.stderr
    (group,) = calm.json()["groups"]  # type: ignore[index]
    # with cluster objects the floor only forbids all 3 nodes down: 0/2, 1/2 and 2/0 all take
    # 2 waves at worst (ceil(3/2)); 0/2 surges no node, so it wins (1/2's lucky 1 wave is no
    # objective of the front). Its first wave drains 2 web pods under a PDB that allows 1: a
    # wait (pdb-slows-wave), not a block.
    assert (group["recommended"]["max_expansion"],
            group["recommended"]["max_unavailable"]) == (0, 2)
    assert group["recommended"]["cycles"] == {"min": 2, "max": 2}
    blocked = run_cli(*base, "--cluster", dump(tmp_path, blocked_cluster(), "blocked.json"))
    assert blocked.exit_code == 1
    (group,) = blocked.json()["groups"]  # type: ignore[index]
    assert group["recommended"] is None
    codes = {r["code"] for rej in group["rejected"] for r in rej["reasons"]}
    assert "pdb-blocks-eviction" in codes


# -- --plan: a replace or delete takes every pod of the group down at once --------------------

PLAN_REPLACE = str(EXAMPLE_STATE.parent / "plan-replace.json")


def test_a_planned_replace_is_a_blocking_drain_finding(tmp_path: Path, run_cli: Run) -> None:
    # plan-replace.json replaces workers (delete, then create): its 3 labelled nodes go at
    # once with the 3 web pods; the DaemonSet pod on w1 goes with its node and is not counted
    daemon = pod("agent-w1", "w1", owner=("DaemonSet", "agent"))
    path = dump(tmp_path, [*calm_cluster(), daemon])
    result = run_cli("drain-check", "--plan", PLAN_REPLACE, "--cluster", path, "-o", "json")
    assert result.exit_code == 1, result.stdout
    doc = json.loads(result.stdout)
    assert doc["ok"] is False
    (group,) = doc["groups"]
    assert group["address"] == "yandex_kubernetes_node_group.workers"
    assert group["nodes"] == ["w1", "w2", "w3"]
    assert group["waves"] == []
    (finding,) = group["findings"]
    assert (finding["code"], finding["severity"], finding["count"]) == (
        "group-removed", "blocking", 3)
    assert "replaces the node group" in finding["message"]
    text = run_cli("drain-check", "--plan", PLAN_REPLACE, "--cluster", path)
    assert text.exit_code == 1
    assert "group-removed" in text.stderr


def test_preflight_with_a_planned_replace_fails_the_drain_part(tmp_path: Path, run_cli: Run
                                                                ) -> None:
    path = dump(tmp_path, calm_cluster())
    result = run_cli("preflight", "--plan", PLAN_REPLACE, "--quotas", QUOTAS, "--cluster", path,
                     "-o", "json")
    assert result.exit_code == 1
    drain = json.loads(result.stdout)["drain"]
    assert drain["ok"] is False
    assert [f["code"] for g in drain["groups"] for f in g["findings"]] == ["group-removed"]


# -- a constraint the check does not model is never a silent pass ----------------------------

def spread_cluster() -> list[dict[str, Any]]:
    """calm_cluster where web-1 also requires anti-affinity to other web pods per hostname:
    the check does not model it (docs/drain.md, Rule 3: never a pass)."""
    items = calm_cluster()
    web1 = next(i for i in items if i["metadata"]["name"] == "web-1")
    term = {"labelSelector": {"matchLabels": {"app": "web"}},
            "topologyKey": "kubernetes.io/hostname"}
    web1["spec"]["affinity"] = {
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return items


def test_an_unmodelled_constraint_fails_unless_accepted(tmp_path: Path, run_cli: Run) -> None:
    base = ["drain-check", "--state", STATE, "-g", "workers", "--cluster",
            dump(tmp_path, spread_cluster())]
    result = run_cli(*base, "-o", "json")
    assert result.exit_code == 1, result.stdout
    doc = json.loads(result.stdout)
    assert (doc["ok"], doc["verdict"]) == (False, "not-modelled")
    assert doc["groups"][0]["verdict"] == "not-modelled"
    text = run_cli(*base)
    assert text.exit_code == 1
    assert "drain check: NOT MODELLED" in text.stdout
    assert "--accept constraint-not-modelled" in text.stderr
    accepted = run_cli(*base, "--accept", "constraint-not-modelled", "-o", "json")
    assert accepted.exit_code == 0, accepted.stdout
    doc = accepted.json()
    assert (doc["ok"], doc["verdict"]) == (True, "ok")  # type: ignore[index]


def test_advise_says_an_unmodelled_constraint_instead_of_a_clear_recommendation(
        tmp_path: Path, run_cli: Run) -> None:
    base = ["advise", "--state", STATE, "-g", "workers", "--quotas", QUOTAS,
            "--cluster", dump(tmp_path, spread_cluster())]
    (group,) = run_cli(*base, "-o", "json").json()["groups"]  # type: ignore[index]
    (warning,) = [w for w in group["warnings"] if w["code"] == "constraint-not-modelled"]
    assert "1 pod(s)" in warning["message"] and "app/web-1" in warning["message"]
    text = run_cli(*base).stdout
    assert "workloads: checked against the cluster objects, NOT FULLY MODELLED" in text


def test_cycle_minutes_is_bounded_and_gives_the_duration(tmp_path: Path, run_cli: Run) -> None:
    base = ["drain-check", "--state", STATE, "-g", "workers", "--cluster",
            dump(tmp_path, calm_cluster())]
    huge = run_cli(*base, "--cycle-minutes", "1e308")
    assert huge.exit_code == 2  # the shared bound of plan/advise/upgrade: at most a day
    assert "0<x<=1440" in huge.stderr
    # workers: 3 nodes at 1/0 -> 3 cycles of one node; at 10 min per cycle, 30 min
    doc = run_cli(*base, "--cycle-minutes", "10", "-o", "json").json()
    assert doc["groups"][0]["duration"] == {  # type: ignore[index]
        "minutes_per_cycle": 10.0, "min_minutes": 30.0, "max_minutes": 30.0}
    assert "duration: 30 min at 10 min per cycle" in run_cli(*base, "--cycle-minutes",
                                                             "10").stdout


@pytest.mark.parametrize(("command", "args", "named"), [
    ("drain-check", ("--state", "-", "--cluster", "-"), "--state and --cluster"),
    ("drain-check", ("--plan", "-", "--cluster", "-"), "--plan and --cluster"),
    ("advise", ("--state", "-", "--cluster", "-"), "--state and --cluster"),
    ("preflight", ("--state", "-", "--quotas", QUOTAS, "--pdbs", "-"), "--state and --pdbs"),
    ("preflight", ("--state", STATE, "--quotas", QUOTAS, "--pdbs", "-", "--cluster", "-"),
     "--cluster and --pdbs"),
])
def test_stdin_for_two_inputs_is_a_usage_error(run_cli: Run, command: str,
                                               args: tuple[str, ...], named: str) -> None:
    result = run_cli(command, *args, stdin=EXAMPLE_STATE.read_bytes())
    assert result.exit_code == 2, result.stderr
    assert f"stdin can be given only once: {named} read '-'" in result.stderr


# -- the live path: Kubernetes API failures are exit 4 with their own JSON code ---------------

def test_a_kube_api_error_has_its_own_json_code(tmp_path: Path, run_cli: Run) -> None:
    from ngupgrade.testing.kube_api import FakeKubeApi

    with FakeKubeApi(calm_cluster(), token="t") as api:
        api.fail("/api/v1/nodes", 403, "nodes is forbidden", times=None)
        config = api.write_kubeconfig(tmp_path / "config")
        result = run_cli("drain-check", "--state", STATE, "--kubeconfig", str(config),
                         "-o", "json")
    assert result.exit_code == 4
    error = json.loads(result.stdout)["error"]
    assert (error["code"], error["exit_code"], error["http_status"]) == ("kube-api", 4, 403)
    missing = run_cli("drain-check", "--state", STATE, "--kubeconfig",
                      str(tmp_path / "nowhere"), "-o", "json")
    assert missing.json()["error"]["code"] == "kube-api"  # type: ignore[index]
    assert missing.json()["error"]["http_status"] is None  # type: ignore[index]


def test_an_html_answer_is_a_kube_api_error(tmp_path: Path, run_cli: Run) -> None:
    # a proxy in front of the API server answers every call with its own HTML page (200)
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Proxy(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<html><head><title>502 Bad Gateway</title></head><body/></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        config = tmp_path / "config"
        config.write_text(json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "p",
            "clusters": [{"name": "c", "cluster": {
                "server": f"http://127.0.0.1:{server.server_address[1]}"}}],
            "users": [{"name": "u", "user": {"token": "t"}}],
            "contexts": [{"name": "p", "context": {"cluster": "c", "user": "u"}}]}))
        result = run_cli("drain-check", "--state", STATE, "--kubeconfig", str(config))
    finally:
        server.shutdown()
        server.server_close()
    assert result.exit_code == 4, result.stderr
    assert "/api/v1/nodes: the server answered text/html, not Kubernetes API JSON: " \
           "502 Bad Gateway" in result.stderr
    assert "--kubeconfig" in result.stderr  # the kubeconfig hint, not "export with -o json"


def test_accepted_findings_turn_the_group_verdict_too(tmp_path: Path, run_cli: Run) -> None:
    # blocked_cluster fails on pdb-blocks-eviction and forced-stop (api-0 on w2): both accepted
    base = ["drain-check", "--state", STATE, "-g", "workers", "--cluster",
            dump(tmp_path, blocked_cluster()), "--accept", "pdb-blocks-eviction",
            "--accept", "forced-stop"]
    doc = run_cli(*base, "-o", "json").json()
    (group,) = doc["groups"]  # type: ignore[index]
    assert (doc["ok"], group["ok"], group["verdict"]) == (True, True, "accepted")  # type: ignore[index]
    accepted = {(f["code"], f["severity"]) for f in group["findings"] if f["accepted"]}
    assert accepted == {("pdb-blocks-eviction", "blocking"), ("forced-stop", "blocking")}
    # every blocking finding is accepted, so the header counts them all as accepted
    blocking = sum(1 for f in group["findings"] if f["severity"] == "blocking")
    header = run_cli(*base).stdout.splitlines()[0]
    assert header.endswith(f"ACCEPTED ({blocking} blocking, {blocking} of them accepted, "
                           "1 warning)")
    half = run_cli(*base[:-2], "-o", "json").json()["groups"][0]  # type: ignore[index]
    assert (half["ok"], half["verdict"]) == (False, "blocked")


@pytest.mark.parametrize("labelled", [2, 4])
def test_a_fixed_group_of_another_size_in_the_cluster_is_warned(
        tmp_path: Path, run_cli: Run, labelled: int) -> None:
    # workers is fixed at 3 in the state; at 1/0 one node per wave: the waves follow the
    # cluster's labelled nodes, so 2 or 4 waves, and the mismatch is said
    items = [node(f"w{i}") for i in range(1, labelled + 1)]
    result = run_cli("drain-check", "--state", STATE, "-g", "workers", "--nodes", "3",
                     "--cluster", dump(tmp_path, items), "-o", "json")
    assert result.exit_code == 0, result.stdout
    doc = json.loads(result.stdout)
    (group,) = doc["groups"]
    assert len(group["waves"]) == labelled
    (mismatch,) = [f for f in group["findings"] if f["code"] == "group-size-mismatch"]
    assert mismatch["severity"] == "warning"
    assert (f"the Terraform state says fixed size 3: the waves follow the cluster's "
            f"{labelled} ({labelled} wave(s))") in mismatch["message"]
    assert doc["notes"] == [f"yandex_kubernetes_node_group.workers: --nodes 3 not used: the "
                            f"live size is known, planning with {labelled} nodes"]


def test_a_dump_of_nodes_alone_warns_that_no_workload_was_checked(
        tmp_path: Path, run_cli: Run) -> None:
    path = dump(tmp_path, [node("w1"), node("w2"), node("w3")])  # kubectl get nodes -o json
    said = ("the cluster objects hold no pod on the group's 3 node(s), and no "
            "PodDisruptionBudget: nothing was checked for workloads")
    text = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path)
    assert text.exit_code == 0
    assert "WARNING  no-pods-on-nodes" in text.stdout and said in text.stdout
    as_json = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path,
                      "-o", "json")
    (group,) = json.loads(as_json.stdout)["groups"]
    (finding,) = [f for f in group["findings"] if f["code"] == "no-pods-on-nodes"]
    assert finding["severity"] == "warning" and finding["message"].startswith(said)
    strict = run_cli("drain-check", "--state", STATE, "-g", "workers", "--cluster", path,
                     "--strict")
    assert strict.exit_code == 1 and "no-pods-on-nodes" in strict.stderr
