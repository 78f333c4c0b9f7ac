"""Every reader on every file of the real-input corpus, ``tests/real/`` (each file's repository,
path and commit are in its README): inputs written by Terraform, kubectl, the YTsaurus operator
and the Yandex Cloud CLI, not by this project.

Each file goes through the commands a user runs on it (``groups``, ``plan``, ``preflight``,
``drain-check`` with ``--state``, ``--plan``, ``--cluster`` or ``--quotas``), in process through
the real entry point, and through the adapter entry point those commands use
(:func:`parse_state`, :func:`parse_plan`, :func:`read_dumps`). A valid file is never bad input
(exit 3) and never a bug (exit 70); the figures each file holds are asserted: what the state or
plan holds (no node group: read, never refused), the nodes, pods, PDBs, volumes and YTsaurus
components of a dump, the quota rows of a quota file.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ngupgrade.adapters.kube.dump import read_dumps
from ngupgrade.adapters.kube.live import read_live
from ngupgrade.adapters.kube.yaml_dump import yaml_documents
from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.adapters.state.tfplan import parse_plan
from ngupgrade.core import k8s
from ngupgrade.testing.kube_api import FakeKubeApi
from tests.conftest import EXAMPLE_STATE, EXAMPLES

REAL = Path(__file__).resolve().parent / "real"
QUOTAS = str(EXAMPLES / "quotas.yaml")
CLUSTER = str(EXAMPLES / "cluster.json")

STATES = {  # file -> the form parse_state recognises
    "terraform-v4-cbd.in.tfstate": "v4",
    "terraform-show-json-basic-update.tfstate": "v4",
    "terraform-json-config_resource_depends_on.tfstate": "v4",
    "terraform-json-no_changes-state.json": "show-json",
    "terraform-json-identity-state.json": "show-json",
    "terraform-json-moved_block-show.json": "show-json",
    "terraform-show-json-state-empty.json": "show-json",
}
PLANS = {  # file -> (format_version, terraform_version)
    "terraform-show-json-basic-update.json": ("1.0", None),
    "terraform-show-json-basic-delete.json": ("1.0", None),
    "terraform-show-json-requires-replace.json": ("1.0", None),
    "terraform-show-json-requires-replace-0.2.json": ("0.2", None),
    "terraform-json-identity-plan.json": ("1.2", "1.13.0-dev"),
    "terraform-json-action_reason-plan.json": ("1.2", "1.15.0"),
    "terraform-json-actions-plan.json": ("1.2", None),
    "terraform-json-deep_module-plan.json": ("0.1", "0.12.11"),
    "terraform-json-moved_block-plan.json": ("1.2", "1.5.3"),
    "terraform-json-numerics-plan.json": ("1.2", "1.6.5"),
}
SKIPPED = "skipped 1 objects of kinds the drain check does not read: {} (1)"


def _ki(n: int) -> int:
    return n * 1024


NO_REQUESTS: tuple[dict[str, int], ...] = ({},)
KUBE: dict[str, dict[str, Any]] = {  # file -> what the snapshot holds, and the notes read gave
    "kubectl-neat-pod1-raw.json": {"pods": {("default", "myapp"): ("minikube", NO_REQUESTS)}},
    "kubectl-neat-pod-1-raw.yaml": {"pods": {("default", "myapp"): ("minikube", NO_REQUESTS)}},
    "kubectl-neat-list-1-raw.json": {"pods": {
        ("default", "t1"): ("116-control-plane", NO_REQUESTS),
        ("default", "t2"): ("116-control-plane", NO_REQUESTS)}},
    "kubectl-neat-pv1-raw.json": {"pvs": {"pvc-54fad2fe-4d7b-11e9-9172-0800271788ca": False}},
    "popeye-node-1.yaml": {"nodes": {
        # name -> (ready, unschedulable, taints, allocatable cpu in millicores, memory bytes)
        "n1": (True, False, (), 10_000, _ki(8124744)),
        "n2": (True, False, (k8s.Taint("t2", "NoSchedule"),), 10_000, _ki(8124744)),
        "n3": (True, False, (), None, None),
        "n4": (False, True, (), None, None),
        "n5": (True, False, (), 100, 10 * 2**20),
    }},
    "popeye-pdb-1.yaml": {"pdbs": {
        ("default", "pdb1"): (2, {"app": "p1"}), ("default", "pdb2"): (1, {"app": "p2"}),
        ("default", "pdb3"): (1, {"app": "test4"}), ("default", "pdb4"): (1, {"app": "test5"}),
        ("default", "pdb4-1"): (1, {"app": "test5"})}},
    "kubent-poddisruptionbudget-v1beta1.yaml": {"pdbs": {
        ("default", "xy-pdb"): (2, {"app": "xy"})}},
    "kube-score-all-ok.yaml": {
        "pods": {("testspace", "pod-test-1"): (None, ({"cpu": 1000, "memory": 1},))},
        "notes": (SKIPPED.format("NetworkPolicy"),)},
    "kube-score-list.yaml": {
        "workloads": {("Deployment", "default", "list-deployment-test"):
                      (1, {"app": "list-deployment-test"})},
        "notes": (SKIPPED.format("Service"),)},
    "kube-score-statefulset-host-antiaffinity-required.yaml": {"workloads": {
        ("StatefulSet", "default", "statefulset-required-anti-affinity"): (10, {"app": "foo"})}},
    "kubernetes-multi-resource-list.json": {
        "workloads": {("ReplicationController", "default", "mock"): (1, {"app": "mock"})},
        "notes": (SKIPPED.format("Service"),)},
    "kubernetes-multi-resource-rclist.json": {"workloads": {
        ("ReplicationController", "default", "mock"): (1, {"app": "mock"}),
        ("ReplicationController", "default", "mock2"): (1, {"app": "mock2"})}},
    "ytsaurus-cluster_v1_local.yaml": {"ytsaurus": {("default", "minisaurus"): [
        ("discovery", "minisaurus-yt-discovery"), ("primaryMasters", "minisaurus-yt-master"),
        ("httpProxies", "minisaurus-yt-http-proxy"),
        ("httpProxies", "minisaurus-yt-http-proxy-control"),
        ("rpcProxies", "minisaurus-yt-rpc-proxy"), ("rpcProxies", "minisaurus-yt-rpc-proxy-heavy"),
        ("dataNodes", "minisaurus-yt-data-node"), ("execNodes", "minisaurus-yt-exec-node"),
        ("schedulers", "minisaurus-yt-scheduler"),
        ("controllerAgents", "minisaurus-yt-controller-agent"), ("ui", "minisaurus-yt-ui"),
        ("tabletNodes", "minisaurus-yt-tablet-node"), ("yqlAgents", "minisaurus-yt-yql-agent"),
        ("queryTrackers", "minisaurus-yt-query-tracker")]}},
    "ytsaurus-cluster_v1_minikube.yaml": {"ytsaurus": {("default", "minisaurus"): [
        ("discovery", "minisaurus-yt-discovery"), ("primaryMasters", "minisaurus-yt-master"),
        ("httpProxies", "minisaurus-yt-http-proxy"), ("rpcProxies", "minisaurus-yt-rpc-proxy"),
        ("dataNodes", "minisaurus-yt-data-node"), ("execNodes", "minisaurus-yt-exec-node"),
        ("schedulers", "minisaurus-yt-scheduler"),
        ("controllerAgents", "minisaurus-yt-controller-agent"), ("ui", "minisaurus-yt-ui")]}},
}
QUOTA_FILES = {  # file -> (extra flags, the cloud it answers for)
    "yandex-docs-quota-limit-list.yaml": ((), "b1gia87mbaom********"),
    "yandex-docs-quota-limit-get.yaml": (("--cloud-id", "b1gexamplecloud000001"),
                                         "b1gexamplecloud000001"),
}
OTHER = {  # output of another terraform command -> the flag it is mistaken for, what is said
    "terraform-plan-json-log.jsonlog": (
        "--plan", "the machine-readable log of `terraform plan -json` (one message a line)"),
    "terraform-validate-json.json": (
        "--state", "$: not a Terraform state: the JSON of `terraform validate -json`"),
}
REAL_STATES = sorted((REAL / "real-states").glob("*-state.json"))


def _path(folder: str, name: str) -> str:
    return str(REAL / folder / name)


def _no_crash(result: Any) -> None:
    assert result.exit_code not in (3, 70), (result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr and "a bug in ngupgrade" not in result.stderr


def test_every_corpus_file_is_tried() -> None:
    """Each file of the corpus folders is in a table above and in the README: none is skipped."""
    tables = {"state": STATES, "plan": PLANS, "kube": KUBE, "quota": QUOTA_FILES,
              "other": OTHER}
    readme = (REAL / "README.md").read_text()
    for folder, table in tables.items():
        held = sorted(p.name for p in (REAL / folder).iterdir())
        assert held == sorted(table), folder
        for name in held:
            assert f"`{name}`" in readme, name


@pytest.mark.parametrize("name", sorted(STATES))
def test_state_reader(run_cli, name: str) -> None:
    """A state with no node group reads: groups and plan exit 0 with no group, the commands
    that need a group say there is none, nothing is bad input."""
    path = _path("state", name)
    parsed = parse_state(Path(path).read_bytes(), path)
    assert (parsed.format, parsed.groups, parsed.clusters) == (STATES[name], (), {})
    groups = run_cli("groups", "--state", path, "-o", "json")
    assert groups.exit_code == 0, groups.stderr
    assert groups.json()["groups"] == []  # type: ignore[index]
    plan = run_cli("plan", "--state", path, "-o", "json")
    assert plan.exit_code == 0, plan.stderr
    assert plan.json()["groups"] == []  # type: ignore[index]
    preflight = run_cli("preflight", "--state", path, "--quotas", QUOTAS)
    _no_crash(preflight)
    assert "no node group" in preflight.stdout + preflight.stderr
    _no_crash(run_cli("drain-check", "--state", path, "--cluster", CLUSTER))


@pytest.mark.parametrize("name", sorted(PLANS))
def test_plan_reader(run_cli, name: str) -> None:
    """A plan that changes no node group reads and passes every gate that takes a plan."""
    path = _path("plan", name)
    parsed = parse_plan(Path(path).read_bytes(), path)
    assert (parsed.format_version, parsed.terraform_version) == PLANS[name]
    assert (parsed.changes, parsed.clusters, parsed.prior_groups) == ((), (), ())
    plan = run_cli("plan", "--plan", path, "-o", "json")
    assert plan.exit_code == 0, plan.stderr
    doc = plan.json()
    assert (doc["ok"], doc["groups"], doc["plan"]["findings"]) == (True, [], [])  # type: ignore[index]
    preflight = run_cli("preflight", "--plan", path, "--quotas", QUOTAS)
    assert preflight.exit_code == 0, preflight.stderr
    drain = run_cli("drain-check", "--plan", path, "--cluster", CLUSTER)
    assert drain.exit_code == 0, drain.stderr


def _snapshot_figures(snapshot: k8s.ClusterSnapshot) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    if snapshot.nodes:
        figures["nodes"] = {
            n.name: (n.ready, n.unschedulable, n.taints, n.allocatable.get("cpu"),
                     n.allocatable.get("memory")) for n in snapshot.nodes}
    if snapshot.pods:
        figures["pods"] = {(p.namespace, p.name): (p.node_name,
                                                   tuple(dict(c.requests) for c in p.containers))
                           for p in snapshot.pods}
    if snapshot.workloads:
        figures["workloads"] = {
            (w.kind, w.namespace, w.name): (w.replicas,
                                            dict(w.selector.match_labels) if w.selector else None)
            for w in snapshot.workloads}
    if snapshot.pdbs:
        figures["pdbs"] = {
            (p.namespace, p.name): (p.min_available,
                                    dict(p.selector.match_labels) if p.selector else None)
            for p in snapshot.pdbs}
    if snapshot.pvs:
        figures["pvs"] = {p.name: p.local for p in snapshot.pvs}
    if snapshot.ytsaurus:
        figures["ytsaurus"] = {
            (y.namespace, y.name): [(c.kind, c.pod_labels["yt_component"]) for c in y.components]
            for y in snapshot.ytsaurus}
    return figures


@pytest.mark.parametrize("name", sorted(KUBE))
def test_cluster_reader(run_cli, name: str) -> None:
    """Every object of the dump is read with its figures; ``drain-check`` on it then says that
    no node of the example's group is in it (exit 1: nothing was checked), not bad input."""
    path = _path("kube", name)
    read = read_dumps([path])
    expected = dict(KUBE[name])
    assert read.notes == expected.pop("notes", ())
    assert _snapshot_figures(read.snapshot) == expected
    for yt in read.snapshot.ytsaurus:  # one instance each, but the local sample's 3 data nodes
        assert [c.instance_count for c in yt.components if c.instance_count != 1] == (
            [3] if name == "ytsaurus-cluster_v1_local.yaml" else [])
        assert all(c.min_ready_instance_count is None for c in yt.components)
    drain = run_cli("drain-check", "--state", str(EXAMPLE_STATE), "--cluster", path,
                    "-g", "workers", "-o", "json")
    assert drain.exit_code == 1, drain.stderr
    error = drain.json()["error"]  # type: ignore[index]
    assert error["code"] == "check-failed"
    assert "no node in the cluster objects belongs to a selected group" in error["message"]


def test_the_whole_corpus_is_one_cluster(run_cli) -> None:
    """All dumps given at once (JSON and YAML files side by side, one in CRLF lines) read as
    one snapshot."""
    paths = [_path("kube", name) for name in sorted(KUBE)]
    read = read_dumps(paths)
    snapshot = read.snapshot
    assert (len(snapshot.nodes), len(snapshot.pods), len(snapshot.pdbs), len(snapshot.pvs),
            len(snapshot.workloads), len(snapshot.ytsaurus)) == (5, 4, 6, 1, 4, 1)
    # default/myapp is in two files (JSON and YAML), so are the ReplicationController
    # default/mock and the Ytsaurus default/minisaurus (both operator samples use the name)
    assert "3 objects were read more than once (the last copy counts)" in read.notes
    args = [arg for p in paths for arg in ("--cluster", p)]
    drain = run_cli("drain-check", "--state", str(EXAMPLE_STATE), *args, "-g", "workers")
    assert drain.exit_code == 1, drain.stderr
    _no_crash(drain)


def test_the_live_reader_reads_the_corpus_as_the_dump_reader_does(tmp_path: Path) -> None:
    """The corpus's objects served by a Kubernetes API on loopback as the API serves them
    (typed lists whose items have no kind, pages of 2) and listed through the real client
    give the snapshot the dump reader gives; ReplicationControllers are not listed live."""
    paths = sorted((REAL / "kube").iterdir())
    docs: list[Any] = []
    for path in paths:  # the files as dicts, in the order the dump reader reads them
        docs.extend(json.loads(d) for d in yaml_documents(path.read_bytes(), str(path)))
    with FakeKubeApi(docs) as api:
        live = read_live(str(api.write_kubeconfig(tmp_path / "config")), page_size=2)
    dump = read_dumps([str(p) for p in paths]).snapshot
    assert live.snapshot == replace(dump, workloads=tuple(
        w for w in dump.workloads if w.kind != "ReplicationController"))
    assert (len(live.snapshot.nodes), len(live.snapshot.pods), len(live.snapshot.pdbs),
            len(live.snapshot.workloads), len(live.snapshot.ytsaurus)) == (5, 4, 6, 2, 1)


@pytest.mark.parametrize("name", sorted(QUOTA_FILES))
def test_quota_reader(run_cli, name: str) -> None:
    """The Yandex CLI's quota output is a quota file: its row is read with limit and usage."""
    flags, cloud = QUOTA_FILES[name]
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--quotas", _path("quota", name), *flags, "-o", "json")
    assert result.exit_code == 0, result.stderr
    doc = result.json()
    assert [c["cloud_id"] for c in doc["clouds"]] == [cloud]  # type: ignore[index]
    rows = {q["quota_id"]: q for q in doc["clouds"][0]["quotas"]}  # type: ignore[index]
    disks = rows["compute.disks.count"]
    assert (disks["limit"], disks["usage"], disks["headroom"], disks["demand"],
            disks["status"]) == (64, 30, 34, 1, "ok")
    assert rows["compute.instanceCores.count"]["status"] == "unknown"  # not in the file


@pytest.mark.parametrize("state", REAL_STATES, ids=lambda p: p.name)
def test_drain_check_reads_the_real_states(run_cli, state: Path) -> None:
    """The provider-written states of real-states/ (their figures: tests/test_real_states.py)
    through the drain check: read, and no node of theirs is in the example dump (exit 1)."""
    drain = run_cli("drain-check", "--state", str(state), "--cluster", CLUSTER)
    assert drain.exit_code == 1, drain.stderr
    assert "no node in the cluster objects belongs to a selected group" in drain.stderr


FLAG_OF = {"state": "--state", "plan": "--plan", "kube": "--cluster", "quota": "--quotas"}
RUN_WITH = {  # flag -> the command line that takes FILE through it
    "--state": ["groups", "--state"],
    "--plan": ["plan", "--plan"],
    "--cluster": ["drain-check", "--state", str(EXAMPLE_STATE), "-g", "workers", "--cluster"],
    "--quotas": ["preflight", "--state", str(EXAMPLE_STATE), "--quotas"],
}
WRONG_FLAG = [(folder, name, flag) for folder, table in
              (("state", STATES), ("plan", PLANS), ("kube", KUBE), ("quota", QUOTA_FILES))
              for name in sorted(table) for flag in RUN_WITH if flag != FLAG_OF[folder]]


@pytest.mark.parametrize(("folder", "name", "flag"), WRONG_FLAG,
                         ids=[f"{n}-as-{f[2:]}" for _, n, f in WRONG_FLAG])
def test_every_corpus_file_given_to_another_flag_names_its_own(run_cli, folder: str, name: str,
                                                                flag: str) -> None:
    """A real file given to the wrong flag is bad input that says what it holds and which flag
    takes it, never read as an empty input of the wrong kind."""
    result = run_cli(*RUN_WITH[flag], _path(folder, name))
    assert result.exit_code == 3, (result.exit_code, result.stderr)
    assert f"not what {flag} takes" in result.stderr
    assert f"hint: pass it with {FLAG_OF[folder]} " in result.stderr


@pytest.mark.parametrize(("name", "flag"), [(n, f) for n in sorted(OTHER) for f in RUN_WITH])
def test_another_terraform_output_is_bad_input_under_every_flag(run_cli, name: str,
                                                                flag: str) -> None:
    """The JSON of a command whose output no flag takes is bad input everywhere (never an
    empty state or plan), and named for what it is under the flag it is mistaken for."""
    result = run_cli(*RUN_WITH[flag], _path("other", name))
    assert result.exit_code == 3, (result.exit_code, result.stderr)
    mistaken_for, said = OTHER[name]
    if flag == mistaken_for:
        assert said in result.stderr
