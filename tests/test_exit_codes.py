"""One exit-code table: ``ngupgrade.core.errors.EXIT_CODES``. Every other place that lists exit
codes (README's table, the root ``--help`` epilog, each command's ``Exit codes:`` section, the
exit-code tables of docs/) is checked against it here, so a code added, dropped or renumbered
in one place and not the others fails."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from ngupgrade.cli import COMMANDS, HELP
from ngupgrade.core import errors

ROOT = Path(__file__).resolve().parent.parent
CODES = [code for code, _ in errors.EXIT_CODES]


def _table_codes(text: str, header: str) -> list[int]:
    """The first column of the markdown table whose header row starts with ``header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    codes = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        codes.append(int(line.split("|")[1].strip()))
    return codes


def _listed(section: str) -> list[int]:
    """The codes of an ``Exit codes:`` text: ``0 ok; 1 ...`` or ``  0  every quota ...``."""
    return [int(n) for n in re.findall(r"(?:^|;|\n| {2})\s*(\d{1,3})\s+(?=[A-Za-z(])", section)]


def test_the_table_has_every_code_once_in_order() -> None:
    assert CODES == [0, 1, 2, 3, 4, 5, 6, 70, 74, 130]
    assert len(set(CODES)) == len(CODES)
    assert all(text for _, text in errors.EXIT_CODES)


def test_every_error_class_exits_with_a_code_of_the_table() -> None:
    def tree(cls: type) -> list[type]:
        return [cls, *(c for sub in cls.__subclasses__() for c in tree(sub))]

    classes = tree(errors.NgUpgradeError)
    assert {c.__name__ for c in classes} >= {
        "UsageError", "CheckFailed", "PolicyInvalid", "QuotaMappingUnknown", "ForeignOperation",
        "GroupNotRunning", "JournalBusy", "BadInput", "NotYaml", "CloudApiError",
        "OutcomeUnknown", "KubeApiError", "OperationFailed", "OperationTimeout", "Stalled",
        "UpgradeInterrupted"}
    assert all(c.__module__ == "ngupgrade.core.errors" for c in classes)
    assert {c.exit_code for c in classes} <= set(CODES)


def test_readme_table_is_the_table() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _table_codes(readme, "| exit code | meaning |") == CODES


def test_root_help_epilog_is_the_table() -> None:
    epilog = HELP[HELP.index("Exit codes:") + len("Exit codes:"):]
    assert _listed(epilog) == CODES


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_lists_only_codes_of_the_table(name: str) -> None:
    module, attribute = COMMANDS[name].split(":")
    command = getattr(importlib.import_module(module), attribute)
    text = command.help or ""
    if "Exit codes:" not in text:
        return
    section = text[text.index("Exit codes:") + len("Exit codes:"):].split("\n\n")[0]
    listed = _listed(section)
    assert listed, name
    assert set(listed) <= set(CODES), (name, listed)


@pytest.mark.parametrize(("doc", "header"), [("docs/quota-preflight.md", "| code | meaning |"),
                                             ("docs/runbook.md", "| code | meaning | next |")])
def test_docs_exit_code_tables_list_only_codes_of_the_table(doc: str, header: str) -> None:
    listed = _table_codes((ROOT / doc).read_text(encoding="utf-8"), header)
    assert listed and set(listed) <= set(CODES), listed
