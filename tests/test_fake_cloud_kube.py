"""The fake cloud's Kubernetes side: the ``fake_cloud`` fixture and ``ngupgrade fake-cloud``
serve a fake Kubernetes API whose nodes are the fake groups' nodes (node-group label, template
taints, Yandex allocatable) plus the scenario's ``workloads``, read through the real client."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import EXAMPLE_STATE, ROOT

from ngupgrade.adapters.kube.live import read_live
from ngupgrade.core import k8s
from ngupgrade.core.errors import BadInput
from ngupgrade.testing import kube_objects as ko
from ngupgrade.testing.fake_cloud import FakeCloud
from ngupgrade.testing.scenario import Scenario

pytest_plugins = ["pytester"]
WORKERS, GPU, BATCH = "cat1ng0fixed0000abcd", "cat3ng0gpu000000ijkl", "cat2ng0auto00000efgh"
WORKLOADS = {"workloads": [
    ko.deployment("web", "shop", 2, {"app": "web"}, ko.pod_spec([ko.container("web")])),
    ko.pod("web-0", "shop", ko.pod_spec([ko.container("web", {"cpu": "250m"})],
                                        node_name="workers-0001"),
           labels={"app": "web"}, owner=("apps/v1", "ReplicaSet", "web-1")),
    ko.pdb("web", "shop", {"app": "web"}, min_available=1, healthy=1, desired=1, expected=1),
]}


@pytest.mark.fake_cloud(state=str(EXAMPLE_STATE), scenario=WORKLOADS)
def test_fixture_serves_the_groups_nodes_and_the_workloads(fake_cloud: FakeCloud) -> None:
    assert fake_cloud.kubeconfig is not None and fake_cloud.kubeconfig.exists()
    snap = read_live(str(fake_cloud.kubeconfig)).snapshot
    assert Counter(n.node_group_id for n in snap.nodes) == {WORKERS: 3, GPU: 1, BATCH: 1}
    # the names ListNodes gives as kubernetes_status.id
    listed = {n.kubernetes_node_id for g in (WORKERS, GPU, BATCH)
              for n in fake_cloud.gateway().list_nodes(g)}
    assert {n.name for n in snap.nodes} == listed == {
        "workers-0000", "workers-0001", "workers-0002", "gpu-0000", "batch-0000"}
    nodes = {n.name: n for n in snap.nodes}
    # 4 cores, 16 GiB (Yandex's reservation): cpu 4000 - 80 = 3920m; memory 16 GiB minus
    # ceil(2662.4 MiB) = 2791728743 bytes minus 100 MiB = 14283282841 bytes; ephemeral 90 %
    # of the 64 GiB boot disk = 61847529062 bytes
    assert nodes["workers-0000"].allocatable == {
        "cpu": 3920, "memory": 14283282841, "pods": 110, "ephemeral-storage": 61847529062}
    assert nodes["gpu-0000"].allocatable["nvidia.com/gpu"] == 1
    assert nodes["gpu-0000"].allocatable["cpu"] == 27860       # 28 cores: 140m reserved
    assert nodes["batch-0000"].taints == (k8s.Taint("dedicated", "NoSchedule", "batch"),)
    assert [p.ref for p in snap.pods] == ["shop/web-0"]
    assert snap.pods[0].node_name == "workers-0001"
    assert [(w.kind, w.name, w.replicas) for w in snap.workloads] == [("Deployment", "web", 2)]
    assert [p.ref for p in snap.pdbs] == ["shop/web"]


def test_nodes_given_in_the_workloads_replace_a_groups_generated_ones(tmp_path: Path) -> None:
    given = {"workloads": [ko.node("my-gpu-node", group_id=GPU)]}
    with FakeCloud.from_state(str(EXAMPLE_STATE), given) as fake:
        snap = read_live(str(fake.write_kubeconfig(tmp_path / "config"))).snapshot
    assert sorted(n.name for n in snap.nodes) == [
        "batch-0000", "my-gpu-node", "workers-0000", "workers-0001", "workers-0002"]


def test_scenario_workloads_are_checked_by_the_dump_reader() -> None:
    bad = {"workloads": [ko.node("n", cpu="lots")]}
    with pytest.raises(BadInput) as info:
        Scenario.from_mapping(bad, "scenario.yaml")
    assert str(info.value) == ("scenario.yaml: workloads[0].status.allocatable.cpu: not a "
                               "quantity: 'lots'")
    with pytest.raises(BadInput, match=r"workloads\[0\]\.kind: expected a string"):
        Scenario.from_mapping({"workloads": [{"metadata": {"name": "x"}}]}, "scenario.yaml")
    listed = Scenario.from_mapping({"workloads": ko.as_list([ko.node("n")])}, "s.yaml")
    assert [w["metadata"]["name"] for w in listed.workloads] == ["n"]


def test_the_command_prints_the_kubeconfig_second(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("workloads:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n"
                        "    name: p\n    namespace: ns\n"
                        "    creationTimestamp: 2025-01-20T09:00:00Z\n"
                        "  spec:\n    nodeName: gpu-0000\n    containers: [{name: c}]\n")
    config = tmp_path / "kube" / "config"
    config.parent.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ngupgrade", "fake-cloud", "--state", str(EXAMPLE_STATE),
         "--scenario", str(scenario), "--kubeconfig", str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("endpoint: 127.0.0.1:")
        assert proc.stdout.readline() == f"kubeconfig: {config}\n"
        snap = read_live(str(config)).snapshot
        assert len(snap.nodes) == 5
        assert [(p.ref, p.node_name) for p in snap.pods] == [("ns/p", "gpu-0000")]
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err


def test_the_docs_example_runs_as_written(pytester: pytest.Pytester) -> None:
    text = (ROOT / "docs" / "cloud.md").read_text()
    section = text.split("### The fake Kubernetes API beside it", 1)[1].split("\n### ", 1)[0]
    block = section.split("```python\n", 1)[1].split("```", 1)[0]
    pytester.makepyfile(test_cluster_side=block)
    pytester._monkeypatch.setenv("PYTHONPATH", str(ROOT))  # this checkout, not the venv's
    result = pytester.runpytest_subprocess(
        "-p", "no:ngupgrade_fake_cloud", "-p", "ngupgrade.testing.pytest_plugin", "-q",
        "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
