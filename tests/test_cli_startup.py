"""Start-up: commands load lazily, heavy libraries load only where used, and nothing a user
reads changes for it (the root help's command list, a table in a pipe). Timing is
``bench/bench_startup.py``'s; these check what is imported and what is printed."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ngupgrade.cli import COMMANDS, SUMMARIES, cli
from ngupgrade.cli._common import rich_table
from ngupgrade.cli.render.table import plain_table
from tests.conftest import EXAMPLE_STATE

HEAVY = ("rich", "grpc", "yandexcloud", "yandex", "boto3", "botocore", "kubernetes")
"""Libraries that only the paths using them may import."""

PROBE = ("import atexit, json, sys\n"
         "atexit.register(lambda: sys.__stderr__.write('MODULES ' + json.dumps(sorted("
         "sys.modules)) + '\\n'))\n"
         "from ngupgrade.cli import main\n"
         "main(sys.argv[1:])\n")


def modules_after(*words: str) -> set[str]:
    """The modules loaded by one run of ``ngupgrade WORDS`` in a fresh interpreter, its stdout
    a pipe (as in a script or CI)."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *words], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stderr.splitlines() if x.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES ")))


def use_cases(modules: set[str]) -> list[str]:
    """Loaded modules of the use cases, adapters and orchestration (the settings aside: every
    command reads its options into them)."""
    return sorted(m for m in modules if m.startswith(
        ("ngupgrade.app.", "ngupgrade.adapters.", "ngupgrade.upgrade"))
        and m != "ngupgrade.app.settings")


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_root_help_imports_no_command() -> None:
    loaded = modules_after("--help")
    commands = {target.split(":")[0] for target in COMMANDS.values()}
    assert sorted(loaded & commands) == []
    assert heavy(loaded) == []
    assert use_cases(loaded) == []


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_help_loads_no_use_case_and_no_heavy_library(name: str) -> None:
    loaded = modules_after(name, "--help")
    assert heavy(loaded) == []
    assert use_cases(loaded) == []


@pytest.mark.parametrize("name", ["groups", "plan"])
def test_offline_commands_in_a_pipe_load_no_heavy_library(name: str) -> None:
    loaded = modules_after(name, "--state", str(EXAMPLE_STATE))
    assert heavy(loaded) == []
    assert not any(m.startswith("ngupgrade.adapters.cloud") for m in loaded)


def test_root_help_lists_the_commands_as_click_would_from_the_commands() -> None:
    """The summaries give the very lines click derives from each command's own help, at
    every width a terminal may give."""
    ctx = click.Context(cli)
    assert list(SUMMARIES) == list(COMMANDS)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None and not command.hidden
        for limit in range(10, 130):
            assert click.Command(name, help=SUMMARIES[name]).get_short_help_str(limit) == \
                command.get_short_help_str(limit), (name, limit)


@pytest.mark.parametrize("width", [60, 80, 100, 200])
def test_root_help_equals_an_eager_group(width: int) -> None:
    ctx = click.Context(cli, info_name="ngupgrade", terminal_width=width, max_content_width=100,
                        help_option_names=["-h", "--help"])
    lazy = cli.get_help(ctx)

    class Eager(click.Group):
        """A plain click group holding the imported commands, in the same order."""

        def list_commands(self, ctx: click.Context) -> list[str]:
            return list(self.commands)

    eager = Eager(name=cli.name, help=cli.help, params=cli.params,
                        context_settings=cli.context_settings,
                        commands={n: cli.get_command(ctx, n) for n in COMMANDS})
    eager_ctx = click.Context(eager, info_name="ngupgrade", terminal_width=width,
                              max_content_width=100, help_option_names=["-h", "--help"])
    assert lazy == eager.get_help(eager_ctx)
    assert "  groups       List node groups in the Terraform state" in lazy


def test_plain_table_is_richs_on_the_groups_columns() -> None:
    columns = ["address", "name", "id", "version", "scale", "deploy policy E/U", "node"]
    rows = [['module.pools["prod"].yandex_kubernetes_node_group.this["batch"]', "batch",
             "cat2ng0auto00000efgh", "1.29", "auto 1..7", "2/1",
             "standard-v3: 2 cores @50%, 4 GiB, 96 GiB network-hdd, preemptible"],
            ["yandex_kubernetes_node_group.gpu", "gpu", "cat3ng0gpu000000ijkl", "", "fixed 1",
             "unset (3/0 assumed)", "—"]]
    text = plain_table(columns, rows)
    assert text == rich_table(columns, rows, whole=("address", "name", "id"))
    assert text is not None
    header, rule, first = text.splitlines()[:3]
    assert header.startswith("  address" + " " * 59 + "name    id ")
    assert rule[0] == " " and set(rule[1:]) == {"─"}
    assert first.startswith('  module.pools["prod"].yandex_kubernetes_node_group.this["batch"]'
                            '   batch   cat2ng0auto00000efgh   1.29')


def test_plain_table_leaves_wide_characters_to_rich() -> None:
    assert plain_table(["name"], [["节点"]]) is None
    assert plain_table(["name"], [["a\tb"]]) is None
    assert plain_table(["a"], [["x"]], title="a title wider than the table") is None


CELL = st.text(alphabet=st.sampled_from([*"aZ09 -_.[]\"'/:@%(),", "й", "Ж", "é", "—"]),
               max_size=12)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(CELL.filter(bool), min_size=n, max_size=n),
    st.lists(st.lists(CELL, min_size=n, max_size=n), max_size=5),
    st.one_of(st.none(), CELL.filter(lambda t: t.strip() != "")))))
def test_plain_table_is_what_rich_prints_in_a_pipe(table: tuple) -> None:
    columns, rows, title = table
    text = plain_table(columns, rows, title)
    if text is not None:
        assert text == rich_table(columns, rows, title, whole=columns[:1])
