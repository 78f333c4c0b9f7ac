"""Tables follow the terminal's width (COLUMNS, or the tty's): on 80 columns no table line is
wider, except an id or an address, never cut, on a line of its own under its row; a pipe
without COLUMNS keeps each table as wide as its cells."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "terraform" / "examples"
STATE = str(EXAMPLES / "terraform.tfstate")
QUOTAS = str(EXAMPLES / "quotas.yaml")
REAL = ROOT / "tests" / "real" / "real-states"
MODULE_STATE = str(REAL / "real-03-yc-k8s-module-ex1-state.json")
MODULE_QUOTAS = str(REAL / "real-03-yc-k8s-module-ex1-quotas.json")
MODULE_ADDRESS = 'module.kube.yandex_kubernetes_node_group.kube_node_groups["yc-k8s-ng-01"]'

TABLE_HEADS = ("  address ", "  name ", "  quota ", "  group ", "  cloud ", "  change ",
               "  wave ")
"""The first words of each table's header row, as the renderers print them."""


def table_lines(text: str) -> list[str]:
    """The lines of every table in ``text``: from a header row to the blank line or the
    next unindented line after it."""
    found, inside = [], False
    for line in text.splitlines():
        if line.startswith(TABLE_HEADS) or any(line == h.rstrip() for h in TABLE_HEADS):
            inside = True
        elif not line.strip() or not line.startswith(" ") or line.startswith(
                ("  findings", "  BLOCKING", "  WARNING", "  INFO")):
            inside = False
        if inside:
            found.append(line)
    return found


def words(lines: list[str]) -> list[str]:
    """The table's figures, ids, names and addresses (words with a digit, a dot or a
    bracket): a narrow quota table writes the unit once, in a column of its own."""
    return sorted(w for line in lines for w in line.split() if re.search(r"[0-9.\[]", w))


def too_wide(lines: list[str], width: int) -> list[str]:
    """Lines wider than ``width`` that are not one unbreakable word on a line of its own (in
    a command broken for the shell, with its `` \\``)."""
    return [line for line in lines
            if len(line) > width and " " in line.strip().removesuffix(" \\")]


COMMANDS = [
    ("groups", "--state", STATE),
    ("groups", "--state", MODULE_STATE),
    ("preflight", "--state", STATE, "--quotas", QUOTAS),
    ("preflight", "--state", MODULE_STATE, "--quotas", MODULE_QUOTAS),
    ("preflight", "--plan", str(EXAMPLES / "plan-roll.json"), "--quotas", QUOTAS),
    ("plan", "--plan", str(EXAMPLES / "plan-roll.json")),
    ("drain-check", "--state", STATE, "--cluster", str(EXAMPLES / "cluster.json"),
     "-g", "workers"),
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(Path(x).name for x in a))
def test_tables_fit_an_80_column_terminal(run_cli, monkeypatch, argv) -> None:
    # Before: groups 216 columns wide, the quota table 169 with a module address in a
    # quota's name, the plan's change table and the waves as wide as their cells.
    wide = run_cli(*argv).stdout
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(*argv)
    tables = table_lines(result.stdout)
    assert tables, result.stdout
    assert too_wide(tables, 80) == []
    # nothing is lost: every word of the wide output's tables is in the narrow one's
    assert words(table_lines(wide)) == words(tables)


ADVISE = [("advise", "--state", STATE, "--quotas", QUOTAS, "-g", "workers"),
          ("advise", "--state", MODULE_STATE, "--quotas", MODULE_QUOTAS),
          ("plan", "--state", MODULE_STATE)]


@pytest.mark.parametrize("argv", COMMANDS + ADVISE,
                         ids=lambda a: " ".join(Path(x).name for x in a))
def test_every_line_fits_but_a_long_word_or_a_command(run_cli, monkeypatch, argv) -> None:
    # Before: warnings, suggestions, findings and advise's lines ran to 365 columns.
    wide = run_cli(*argv).stdout
    monkeypatch.setenv("COLUMNS", "80")
    narrow = run_cli(*argv).stdout
    assert too_wide(narrow.splitlines(), 80) == []
    assert words(wide.splitlines()) == words(narrow.splitlines())


def test_a_module_address_is_printed_whole_on_a_line_of_its_own(run_cli, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = run_cli("preflight", "--state", MODULE_STATE, "--quotas", MODULE_QUOTAS).stdout
    rows = out.splitlines()
    at = rows.index("    " + MODULE_ADDRESS + ")")  # the quota's scope: "(group ADDRESS)"
    assert rows[at - 1] == "    managed-kubernetes.groupNodes.count (group"
    assert re.fullmatch(r" +200 +4 +196 +3 +nodes +ok", rows[at - 2]), rows[at - 2: at + 1]
    groups = run_cli("groups", "--state", MODULE_STATE).stdout.splitlines()
    assert "    " + MODULE_ADDRESS in groups
    assert max(len(line) for line in groups) <= 80


def test_a_pipe_keeps_each_table_as_wide_as_its_cells(run_cli) -> None:
    out = run_cli("groups", "--state", MODULE_STATE).stdout.splitlines()
    assert out[2].startswith("  " + MODULE_ADDRESS + "   yc-k8s-ng-01   catyck010000000cl003")
    assert len(out[0]) > 150


def test_fit_rows_wraps_at_spaces_and_moves_what_cannot_wrap() -> None:
    from ngupgrade.cli.render.table import fit_rows

    rows = [["address", "id", "node"],
            ["module.a.yandex_kubernetes_node_group.b", "cat1", "standard-v3: 4 cores, 16 GiB"]]
    assert fit_rows(rows) == ["  address                                  id    node",
                              "  module.a.yandex_kubernetes_node_group.b  cat1  "
                              "standard-v3: 4 cores, 16 GiB"]
    assert fit_rows(rows, 30, whole=(0, 1)) == [
        "  id    node",
        "    address",
        "  cat1  standard-v3: 4 cores,",
        "        16 GiB",
        "    module.a.yandex_kubernetes_node_group.b",
    ]
    # a cell with a word longer than its column moves under the row, in its own order
    quota = [["quota", "limit"], ["nodes (group module.a.yandex_kubernetes_node_group.b)", "9"]]
    assert fit_rows(quota, 30) == ["  quota" + " " * 18 + "limit", " " * 25 + "9",
                                   "    nodes (group",
                                   "    module.a.yandex_kubernetes_node_group.b)"]


def test_wrap_prose_keeps_words_commands_and_field_gaps() -> None:
    from ngupgrade.cli.render.table import wrap_prose

    text = ("  BLOCKING bare-pod-lost  wave 1  pod shop/debug-shell  node cl1wrk0fixed0abcd-ahyg\n"
            "    ngupgrade set-policy -g yandex_kubernetes_node_group.workers --max-expansion 2\n"
            "short")
    assert wrap_prose(text, None) == text
    assert wrap_prose(text, 40).split("\n") == [
        "  BLOCKING bare-pod-lost  wave 1  pod",
        "    shop/debug-shell  node",
        "    cl1wrk0fixed0abcd-ahyg",
        "    ngupgrade set-policy -g \\",
        "        yandex_kubernetes_node_group.workers \\",
        "        --max-expansion 2",
        "short"]


def test_a_wrapped_command_pastes_as_the_same_command(run_cli, monkeypatch) -> None:
    # Before: advise's set-policy line ran to 149 columns on an 80-column terminal.
    import shlex

    monkeypatch.setenv("COLUMNS", "80")
    out = run_cli("advise", "--state", MODULE_STATE, "--quotas", MODULE_QUOTAS).stdout
    start = out.index("    ngupgrade set-policy -g")
    end = out.index("--apply", start) + len("--apply")
    assert shlex.split(out[start:end].replace("\\\n", "")) == [
        "ngupgrade", "set-policy", "-g", MODULE_ADDRESS, "--max-expansion", "4",
        "--max-unavailable", "0", "--apply"]
    assert "    ngupgrade set-policy -g \\\n        '" + MODULE_ADDRESS + "' \\\n" in out


def test_the_upgrade_gates_tables_fit_80_columns(tmp_path: Path, monkeypatch, capsys) -> None:
    # Before: the upgrade's quota table as wide as its cells (the preflight's, 100+ columns).
    from tests._upgrade_helpers import cli, example_cloud

    monkeypatch.setenv("COLUMNS", "80")
    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--max-expansion", "2", "--max-unavailable", "1",
                             "--journal", str(tmp_path / "j.json"))
    assert code == 0, err
    tables = table_lines(out)
    assert any(line.startswith("  quota ") for line in tables)
    assert too_wide(tables, 80) == []
    assert "    yandex_kubernetes_node_group.workers" in tables


def _upgrade_lines(tmp_path: Path, monkeypatch, capsys, *extra: str) -> tuple[str, str]:
    from tests._upgrade_helpers import cli, example_cloud

    with example_cloud() as fake:
        code, out, err = cli(fake, monkeypatch, capsys, "-g", "workers", "--version", "1.30",
                             "--max-expansion", "2", "--max-unavailable", "1",
                             "--journal", str(tmp_path / "j.json"), *extra)
    assert code == 0, err
    return out, err


@pytest.mark.parametrize("extra", [(), ("--apply",)], ids=["dry-run", "apply"])
def test_every_upgrade_line_fits_80_columns(tmp_path: Path, monkeypatch, capsys,
                                            extra) -> None:
    # Before: progress lines 107-122 columns, API calls 148-172, the verdict 149, the
    # summary 197, note: lines 244 and 272.
    wide_out, wide_err = _upgrade_lines(tmp_path, monkeypatch, capsys, *extra)
    assert too_wide((wide_out + wide_err).splitlines(), 80) != []       # there is a wrap to do
    monkeypatch.setenv("COLUMNS", "80")
    out, err = _upgrade_lines(tmp_path, monkeypatch, capsys, *extra)
    assert too_wide(out.splitlines(), 80) == []
    assert too_wide(err.splitlines(), 80) == []
    assert words(wide_out.splitlines()) == words(out.splitlines())      # nothing lost


def test_set_policy_and_error_lines_fit_80_columns(run_cli, monkeypatch) -> None:
    # Before: the set-policy dry-run line 136 columns; error:/hint: lines as long as written.
    from tests._upgrade_helpers import example_cloud

    with example_cloud() as fake:
        argv = ("--state", STATE, "--endpoint", fake.endpoint, "--insecure", "set-policy",
                "-g", "workers", "--max-expansion", "3", "--max-unavailable", "1")
        wide = run_cli(*argv)
        monkeypatch.setenv("COLUMNS", "80")
        narrow = run_cli(*argv)
    assert wide.exit_code == 0 == narrow.exit_code, narrow.stderr
    assert too_wide((wide.stdout + wide.stderr).splitlines(), 80) != []
    assert too_wide(narrow.stdout.splitlines() + narrow.stderr.splitlines(), 80) == []
    bad = ("plan", "--state", STATE, "-g", "no-such-group", "--max-expansion", "2")
    assert max(len(line) for line in wide_error(run_cli, monkeypatch, bad)) > 80
    lines = run_cli(*bad).stderr.splitlines()                          # COLUMNS=80 again
    assert lines[0] == "error: no node group matches 'no-such-group'"
    assert lines[1] == "hint: node groups in this state: yandex_kubernetes_node_group.gpu (gpu),"
    assert too_wide(lines, 80) == []


def wide_error(run_cli, monkeypatch, argv) -> list[str]:
    """stderr lines of ``argv`` with no width known (a pipe); COLUMNS=80 set again after."""
    monkeypatch.delenv("COLUMNS")
    try:
        return run_cli(*argv).stderr.splitlines()
    finally:
        monkeypatch.setenv("COLUMNS", "80")
