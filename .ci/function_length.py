"""No function over 100 lines in ngupgrade/ (ARCHITECTURE.md: functions of a screen or two).

Run by ``make lint``. Counts a function from its ``def`` line to its last line, docstring and
comments included (what a reader scrolls through). Ruff's PLR0915 counts statements and mccabe
counts branches; neither measures the length a reader sees, so this is a small AST walk.

Usage: python .ci/function_length.py [LIMIT] (default 100); exit 1 naming each longer one.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

LIMIT = 100
EXEMPT: set[str] = set()
"""Functions over the limit while another change to their module is under way; each is split
by concern once it lands, and its entry goes. Named on every run."""


def long_functions(root: Path, limit: int = LIMIT) -> list[tuple[str, int, str, int]]:
    """(file, line, qualified name, lines) of every function in ``root`` longer than ``limit``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        stack: list[tuple[ast.AST, str]] = [(tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                name = prefix
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}."
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = (child.end_lineno or child.lineno) - child.lineno + 1
                    if length > limit:
                        found.append((str(path), child.lineno, name[:-1], length))
                stack.append((child, name))
    return sorted(found)


def main(argv: list[str]) -> int:
    limit = int(argv[1]) if len(argv) > 1 else LIMIT
    root = Path(__file__).resolve().parent.parent
    failed = False
    for path, line, name, length in long_functions(root / "ngupgrade", limit):
        where = f"{Path(path).relative_to(root)}:{name}"
        exempt = where in EXEMPT and limit == LIMIT
        failed = failed or not exempt
        print(f"{Path(path).relative_to(root)}:{line}: {name} is {length} lines (at most "
              f"{limit}): {'exempt for now' if exempt else 'split it by concern'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
