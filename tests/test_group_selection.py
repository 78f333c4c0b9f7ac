"""`-g NAME` is one rule in every command (ngupgrade/app/load.py select_groups): a name that
several node groups share is a usage error naming each by address and id; an address or an id
names one group.

Before: `plan`, `upgrade` (with --apply: an Update to each), `drain-check`, `preflight`,
`advise` and `groups` took every group of that name; only `set-policy` and `wait` refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ngupgrade.testing import FakeCloud
from tests._upgrade_helpers import STATE, fake_timing, scenario

EXAMPLES = Path(STATE).parent
GPU = ("yandex_kubernetes_node_group.gpu", "cat3ng0gpu000000ijkl")
WORKERS = ("yandex_kubernetes_node_group.workers", "cat1ng0fixed0000abcd")
MESSAGE = ("'gpu' matches 2 node groups: yandex_kubernetes_node_group.gpu "
           "(cat3ng0gpu000000ijkl), yandex_kubernetes_node_group.workers (cat1ng0fixed0000abcd)")
HINT = "name one by its Terraform address or id"


@pytest.fixture
def two_gpus(tmp_path: Path) -> Path:
    """The example state with `workers` renamed `gpu`: two groups answer to that name."""
    doc = json.loads(Path(STATE).read_text())
    (workers,) = [r for r in doc["resources"]
                  if r["type"] == "yandex_kubernetes_node_group" and r["name"] == "workers"]
    workers["instances"][0]["attributes"]["name"] = "gpu"
    path = tmp_path / "two-gpus.tfstate"
    path.write_text(json.dumps(doc))
    return path


COMMANDS = {
    "groups": [],
    "plan": [],
    "drain-check": ["--cluster", str(EXAMPLES / "cluster.json")],
    "preflight": ["--quotas", str(EXAMPLES / "quotas.yaml")],
    "advise": ["--quotas", str(EXAMPLES / "quotas.yaml")],
    "upgrade": ["--version", "1.30"],
    "upgrade --schedule advised": ["--version", "1.30", "--schedule", "advised",
                                   "--quotas", str(EXAMPLES / "quotas.yaml")],
    "set-policy": ["--max-expansion", "1"],
    "wait": [],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_shared_name_is_a_usage_error_naming_each_match(run_cli, two_gpus, command):
    name = command.split()[0]
    result = run_cli(name, "--state", str(two_gpus), "-g", "gpu", *COMMANDS[command],
                     "-o", "json")
    assert result.exit_code == 2, result.stdout
    error = result.json()["error"]
    assert (error["code"], error["message"], error["hint"]) == ("usage", MESSAGE, HINT)


@pytest.mark.parametrize("selector, expected", [
    (GPU[0], GPU), (GPU[1], GPU), (WORKERS[0], WORKERS), (WORKERS[1], WORKERS)])
@pytest.mark.parametrize("command", ["groups", "plan"])
def test_an_address_or_an_id_names_one_group(run_cli, two_gpus, command, selector, expected):
    result = run_cli(command, "--state", str(two_gpus), "-g", selector, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert [(g["address"], g["id"]) for g in result.json()["groups"]] == [expected]


def test_a_name_one_group_has_still_selects_it(run_cli):
    result = run_cli("plan", "--state", STATE, "-g", "gpu", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert [g["address"] for g in result.json()["groups"]] == [GPU[0]]


def test_upgrade_apply_by_a_shared_name_sends_nothing(two_gpus, monkeypatch, capsys):
    """The runbook case: `upgrade -g gpu --apply` on the fake cloud (real SDK) used to send
    a version Update to both groups; now it stops before any call."""
    from ngupgrade.cli import main

    monkeypatch.delenv("YC_IAM_TOKEN", raising=False)
    monkeypatch.chdir(two_gpus.parent)   # the journal, were one written
    with FakeCloud.from_state(str(two_gpus), scenario()) as fake:
        with pytest.raises(SystemExit) as done:
            main(["upgrade", "--state", str(two_gpus), "--endpoint", fake.endpoint,
                  "--insecure", "-g", "gpu", "--version", "1.30", "--apply"],
                 timing=fake_timing(fake))
        assert done.value.code == 2
        assert fake.calls == []
        assert fake.operations == {}
    err = capsys.readouterr().err
    assert f"error: {MESSAGE}\nhint: {HINT}" in err


def test_the_terraform_resource_name_selects_its_group(run_cli, tmp_path: Path):
    """`-g gpu_pool` where the group's own name is `gpu` (the resource is renamed in the
    state's code): the resource name people type works as a name does."""
    doc = json.loads(Path(STATE).read_text())
    (gpu,) = [r for r in doc["resources"]
              if r["type"] == "yandex_kubernetes_node_group" and r["name"] == "gpu"]
    gpu["name"] = "gpu_pool"
    path = tmp_path / "renamed.tfstate"
    path.write_text(json.dumps(doc))
    result = run_cli("plan", "--state", str(path), "-g", "gpu_pool", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert [g["address"] for g in result.json()["groups"]] == [
        "yandex_kubernetes_node_group.gpu_pool"]


def test_a_for_each_resource_name_is_shared_by_its_instances(run_cli, tmp_path: Path):
    """`this` names every instance of `module.pools["prod"].…this[...]`; with two instances it
    is refused as a shared name, never taken as both."""
    doc = json.loads(Path(STATE).read_text())
    (pool,) = [r for r in doc["resources"] if r["name"] == "this"]
    twin = json.loads(json.dumps(pool["instances"][0]))
    twin["index_key"] = "batch2"
    twin["attributes"]["id"] = "cat2ng0auto0000twin0"
    twin["attributes"]["name"] = "batch2"
    pool["instances"].append(twin)
    path = tmp_path / "twins.tfstate"
    path.write_text(json.dumps(doc))
    result = run_cli("plan", "--state", str(path), "-g", "this")
    assert result.exit_code == 2
    assert "'this' matches 2 node groups" in result.stderr


@pytest.mark.parametrize(("typed", "meant"), [("wrkers", "workers"), ("gpux", "gpu")])
def test_an_unknown_name_says_which_group_was_meant(run_cli, typed: str, meant: str):
    result = run_cli("plan", "--state", STATE, "-g", typed)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == (
        f"error: no node group matches {typed!r}: did you mean {meant}?")


def test_nothing_close_suggests_nothing(run_cli):
    result = run_cli("plan", "--state", STATE, "-g", "zzzzzzzz")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[0] == "error: no node group matches 'zzzzzzzz'"
