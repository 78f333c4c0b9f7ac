"""Every YAML reader goes through one bounded loader (adapters/documents.py).

A 342-byte alias bomb (nine anchors of nine aliases: 9**9 strings read as a tree) given as
``--quotas`` to preflight, advise or upgrade, or as ``--scenario`` to fake-cloud, pinned a CPU
until killed: the surrogate walk visited the aliases as a tree. A 10 MB scenario scalar was
parsed for 11 s before it was refused. Now each is bad input (exit 3) naming the file, before
any walk: aliases are bounded (go-yaml's rule: at most 10 times the written nodes), cycles and
nesting past 100 levels are refused, and sizes are checked before reading.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ngupgrade.core.errors import BadInput
from tests.conftest import EXAMPLE_STATE, EXAMPLES


def alias_bomb() -> str:
    """The reported file: 342 bytes, 28 nodes written, 490,329,064 read as a tree."""
    levels = "abcdefghi"
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in itertools.pairwise(levels):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


BOMB_SAID = ("YAML aliases expand 28 nodes to 490329064 (a YAML alias bomb?): refused; "
             "aliases may expand a document 10 times at most")


def test_the_bomb_is_342_bytes() -> None:
    assert len(alias_bomb()) == 342


@pytest.mark.parametrize("command", [
    ["preflight", "--cloud-id", "b1gexamplecloud000001"],
    ["advise", "-g", "workers"],
], ids=["preflight", "advise"])
def test_alias_bomb_as_quotas_is_bad_input(run_cli, tmp_path: Path, command: list[str]) -> None:
    bomb = tmp_path / "quotas.yaml"
    bomb.write_text(alias_bomb())
    result = run_cli(*command, "--state", str(EXAMPLE_STATE), "--quotas", str(bomb))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == f"error: {bomb}: {BOMB_SAID}"


def test_alias_bomb_as_selectel_project_quotas_is_bad_input(run_cli, tmp_path: Path) -> None:
    bomb = tmp_path / "quotas.yaml"
    bomb.write_text(alias_bomb())
    result = run_cli("preflight", "--state", str(EXAMPLES / "selectel" / "terraform.tfstate"),
                     "--quotas", str(bomb))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == f"error: {bomb}: {BOMB_SAID}"


@pytest.fixture(scope="module")
def idle_cloud():
    from tests._upgrade_helpers import example_cloud

    with example_cloud() as fake:
        yield fake


def test_alias_bomb_as_upgrade_quotas_changes_nothing(idle_cloud, monkeypatch, capsys,
                                                     tmp_path: Path) -> None:
    from tests._upgrade_helpers import cli

    bomb = tmp_path / "quotas.yaml"
    bomb.write_text(alias_bomb())
    monkeypatch.chdir(tmp_path)
    code, _out, err = cli(idle_cloud, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                          "--quotas", str(bomb), "--apply")
    assert code == 3, err
    assert err.splitlines()[0] == f"error: {bomb}: {BOMB_SAID}"
    assert idle_cloud.calls_to("NodeGroupService.Update") == []


def test_alias_bomb_as_scenario_is_bad_input(run_cli, tmp_path: Path) -> None:
    bomb = tmp_path / "scenario.yaml"
    bomb.write_text(alias_bomb())
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--scenario", str(bomb))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == f"error: {bomb}: {BOMB_SAID}"


def test_a_ten_megabyte_scenario_is_refused_before_it_is_parsed(run_cli, tmp_path: Path) -> None:
    big = tmp_path / "scenario.yaml"
    big.write_text("step_seconds: 1\nnote: " + "x" * 10_000_000 + "\n")
    result = run_cli("fake-cloud", "--state", str(EXAMPLE_STATE), "--scenario", str(big))
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"error: {big}: scenario is larger than 4 MiB (no real one is): refused before "
        "reading it")


def test_a_ten_megabyte_quota_file_is_refused_before_it_is_parsed(run_cli, tmp_path: Path) -> None:
    big = tmp_path / "quotas.yaml"
    big.write_text("b1gcloud: {compute.instances.count: {limit: 1, usage: 0}}\n#"
                   + "x" * 10_000_000 + "\n")
    result = run_cli("preflight", "--state", str(EXAMPLE_STATE), "--quotas", str(big),
                     "--cloud-id", "b1gcloud")
    assert result.exit_code == 3, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"error: {big}: quota file is larger than 4 MiB (no real one is): refused before "
        "reading it")


def test_a_kubeconfig_alias_bomb_is_refused_before_the_client_loads_it(run_cli,
                                                                     tmp_path: Path) -> None:
    bomb = tmp_path / "kubeconfig"
    bomb.write_text(alias_bomb())
    result = run_cli("drain-check", "--state", str(EXAMPLE_STATE), "-g", "workers",
                     "--kubeconfig", str(bomb))
    assert result.exit_code == 4, result.stderr
    assert result.stderr.splitlines()[0] == f"error: kubeconfig {bomb}: {BOMB_SAID}"


# ---- the loader itself ----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "said"), [
    ("a: &a [*a]\n", "a YAML alias refers to a node that holds it (a cycle): refused"),
    ("a: &a {b: *a}\n", "a YAML alias refers to a node that holds it (a cycle): refused"),
    ("a: " + "[" * 101 + "]" * 101 + "\n",
     "nested more than 100 levels deep (no real document is)"),
    ("".join("  " * i + "- \n" for i in range(150)) + "  " * 150 + "x\n",
     "nested more than 100 levels deep (no real document is)"),
    ("a: " + "[" * 5000 + "]" * 5000 + "\n",
     "nested more than 100 levels deep (no real document is)"),
    ("a: 1" + "0" * 5000 + "\n",
     "holds an integer of more than 4300 digits, which no producer writes and Python refuses "
     "to read"),
    ("a: 2024-13-45\n", "holds a value YAML cannot read: month must be in 1..12"),
    ("a: [\n", "not YAML: did not find expected node content at line 2, "
               "column 1 (while parsing a flow node from line 2)"),
], ids=["cycle-list", "cycle-map", "deep-flow", "deep-block", "deeper-than-libyaml", "int-digits",
        "bad-date", "not-yaml"])
def test_the_loader_refuses_naming_the_file(text: str, said: str) -> None:
    from ngupgrade.adapters.documents import load_yaml

    with pytest.raises(BadInput) as err:
        load_yaml(text, "f.yaml")
    assert str(err.value) == f"f.yaml: {said}"


def test_anchors_within_the_bound_are_read_as_pyyaml_reads_them() -> None:
    from ngupgrade.adapters.documents import load_yaml

    text = ("defaults: &d {limit: 10, usage: 2}\n"
            "a: *d\n"
            "b: {<<: *d, usage: 5}\n"
            "deep: " + "[" * 99 + "]" * 99 + "\n")
    doc = load_yaml(text, "f.yaml")
    assert doc["a"] == {"limit": 10, "usage": 2}
    assert doc["b"] == {"limit": 10, "usage": 5}
    assert doc["a"] is doc["defaults"]
    depth, node = 1, doc["deep"]
    while node:
        node, depth = node[0], depth + 1
    assert depth == 99


def test_aliases_may_expand_a_document_ten_times() -> None:
    from ngupgrade.adapters.documents import load_yaml

    items = ", ".join(str(i) for i in range(2000))
    ok = f"base: &b [{items}]\n" + "".join(f"k{i}: *b\n" for i in range(8))
    assert len(load_yaml(ok, "f.yaml")) == 9
    bomb = f"base: &b [{items}]\n" + "".join(f"k{i}: *b\n" for i in range(20))
    with pytest.raises(BadInput, match="YAML aliases expand 2023 nodes to 42043"):
        load_yaml(bomb, "f.yaml")
