"""docs/drain.md's CLI example is what the command prints on the repository's example files.

The block after ``<!-- drain-check example: exit N -->`` holds ``$ ngupgrade ...`` (a
trailing backslash continues it) and then an excerpt of what the terminal shows, stdout then
stderr: its lines appear in that order in the real output; a line ``...`` stands for lines
left out, and a line ending in `` ...`` for a line cut short (its start must match).
"""

from __future__ import annotations

import re
import shlex

from tests.conftest import ROOT

DOC = ROOT / "docs" / "drain.md"
EXAMPLE = re.compile(r"<!-- drain-check example: exit (\d+) -->\n```[a-z]*\n(.*?)\n```", re.S)


def _example() -> tuple[int, list[str], list[str]]:
    match = EXAMPLE.search(DOC.read_text(encoding="utf-8"))
    assert match is not None, "docs/drain.md has no drain-check example"
    lines = match.group(2).splitlines()
    command = []
    while True:
        line = lines.pop(0)
        command.append(line.removeprefix("$ ").rstrip("\\").strip())
        if not line.endswith("\\"):
            break
    words = shlex.split(" ".join(command))
    assert words[0] == "ngupgrade"
    return int(match.group(1)), words[1:], lines


def _in_order(shown: list[str], printed: list[str]) -> list[str]:
    """The shown lines not found, in order, among the printed ones (empty: all found)."""
    at = 0
    missing = []
    for line in shown:
        if line == "...":
            continue
        cut = line.endswith(" ...")
        want = line[:-4] if cut else line
        for i in range(at, len(printed)):
            if printed[i] == want or (cut and printed[i].startswith(want)):
                at = i + 1
                break
        else:
            missing.append(line)
    return missing


def test_the_drain_check_example_is_real_output(run_cli) -> None:
    code, argv, shown = _example()
    assert argv[0] == "drain-check" and "terraform/examples/cluster.json" in argv
    result = run_cli(*[str(ROOT / w) if w.startswith("terraform/") else w for w in argv])
    assert result.exit_code == code
    printed = (result.stdout + result.stderr).splitlines()
    assert len([s for s in shown if s != "..."]) >= 10  # an example, not a line or two
    assert _in_order(shown, printed) == []
