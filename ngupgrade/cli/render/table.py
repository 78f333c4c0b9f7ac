"""A table as rich prints ``cli._common.print_table``'s (box ``SIMPLE_HEAD``, no colour) in a
pipe, without importing rich. Pure.

In a pipe or a CI log nothing wraps, so the table is plain arithmetic: each column as wide as
its longest cell, one space of padding on each side, one space between columns, a rule of
``─`` under the header. rich costs a command's start-up more than the rest of ``groups`` (its
console alone imports dozens of modules), so the common non-interactive path does without; a
terminal, which wraps, still gets rich. Cells whose width on screen is not one column per
character (wide East Asian letters, combining marks, control characters, tabs, newlines) are
left to rich as well: :func:`plain_table` returns None for them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

_NARROW = frozenset(chr(c) for c in range(0x20, 0x7F)) | frozenset(
    chr(c) for c in (*range(0xA0, 0x300), *range(0x400, 0x530), 0x2013, 0x2014, 0x2026))
"""Characters one terminal column wide that rich measures as such: ASCII, Latin-1 and Latin
Extended, Cyrillic, en and em dashes, the ellipsis."""


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[str]],
                title: str | None = None) -> str | None:
    """The lines rich prints for this table in a pipe, trimmed as ``print_table`` trims them
    (each line right-stripped, no blank line first or last), joined with newlines and ending
    in one; None when a cell, a header or the title holds a character outside
    :data:`_NARROW`, a header holds ``[``, or the title is wider than the table (rich would
    wrap it)."""
    cells = [*columns, *(c for row in rows for c in row), *([title] if title else [])]
    if any(not _NARROW.issuperset(text) for text in cells):
        return None
    if any("[" in name for name in columns):
        return None  # rich reads a header as markup ("[a]" is a style): its output, not ours
    widths = [max([len(name), *(len(row[i]) for row in rows)]) for i, name in enumerate(columns)]
    width = sum(widths) + 3 * len(widths) + 1  # padding on both sides, the dividers, the edges

    def line(texts: Sequence[str]) -> str:
        return (" " + " ".join(f" {t.ljust(w)} " for t, w in zip(texts, widths, strict=True))
                ).rstrip()

    lines = []
    if title:
        if len(title) > width:
            return None
        lines += [title.rstrip(), ""]  # the table's top edge is a blank line
    lines += [line(columns), " " + "─" * (width - 2)]
    lines += [line(row) for row in rows]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def fit_rows(rows: Sequence[Sequence[str]], width: int | None = None, *, indent: str = "  ",
             gap: str = "  ", whole: Collection[int] = ()) -> list[str]:
    """A grid of ``rows`` (the first is the header) as lines no wider than ``width`` columns.

    ``width`` None (a pipe: nothing wraps) or wide enough: each column as wide as its longest
    cell, left-aligned, ``gap`` between them, each line right-stripped. Narrower: the columns
    wrap at spaces inside their cells; a cell with a word longer than its column (a Terraform
    address in a quota's name) is never cut but moves to lines of its own under the row
    (wrapped at spaces, the long word on a line of its own), and so does a cell of a
    ``whole`` column (by index: ids, addresses) when its column cannot be as wide
    as its longest cell: the column leaves the grid and each of its cells, the header's too,
    is printed on a line of its own under its row. Such a line is the only kind wider than
    ``width``, and only by an unbreakable word. Pure: the caller passes the width
    (``cli._common.terminal_width``).
    """
    return [line for block in row_blocks(rows, width, indent=indent, gap=gap, whole=whole)
            for line in block]


def row_blocks(rows: Sequence[Sequence[str]], width: int | None = None, *, indent: str = "  ",
               gap: str = "  ", whole: Collection[int] = ()) -> list[list[str]]:
    """:func:`fit_rows`'s lines, grouped by the row they belong to (the header first)."""
    if not rows:
        return []
    count = len(rows[0])
    natural = [max(len(r[i]) for r in rows) for i in range(count)]
    if width is None or _width(natural, indent, gap) <= width:
        return [[indent + gap.join(c.ljust(w) for c, w in zip(r, natural, strict=True)).rstrip()]
                for r in rows]
    widths, moved = _fit_widths(rows, natural, width, indent, gap, set(whole))
    kept = [i for i in range(count) if i not in moved]
    under = indent + "  "
    blocks: list[list[str]] = []
    for row in rows:
        lines: list[str] = []
        cells: list[list[str]] = []
        overflow: list[str] = []
        for i in kept:
            wrapped = _wrap(row[i], widths[i])
            if max(len(line) for line in wrapped) > widths[i]:  # a word too long for it
                cells.append([""])
                overflow += _wrap(row[i], width - len(under))
            else:
                cells.append(wrapped)
        for i in sorted(moved):
            if row[i]:
                overflow += [row[i]] if i in whole else _wrap(row[i], width - len(under))
        for k in range(max(len(c) for c in cells)):
            texts = [c[k] if k < len(c) else "" for c in cells]
            lines.append(indent + gap.join(t.ljust(widths[i]) for t, i in zip(texts, kept,
                                                                                strict=True)
                                           ).rstrip())
        lines += [under + text for text in overflow]
        blocks.append(lines)
    return blocks


def fits(rows: Sequence[Sequence[str]], width: int | None, *, indent: str = "  ",
         gap: str = "  ") -> bool:
    """Whether :func:`fit_rows` prints ``rows`` as wide as their cells within ``width``
    (None: always)."""
    if width is None or not rows:
        return True
    return _width([max(len(r[i]) for r in rows) for i in range(len(rows[0]))],
                  indent, gap) <= width


def _width(widths: Sequence[int], indent: str, gap: str) -> int:
    return len(indent) + sum(widths) + len(gap) * (len(widths) - 1)


def _words(text: str) -> list[str]:
    return text.split()


def _fit_widths(rows: Sequence[Sequence[str]], natural: list[int], width: int, indent: str,
                gap: str, whole: set[int]) -> tuple[list[int], set[int]]:
    """Each column's width and the columns moved out of the grid: first the floors (a whole
    column's longest cell; another's longest word) fit, lowering the widest floor (a whole
    column moves out; another's longest words go under their rows) until they do, and
    raising a lowered floor again as far as the room a moved column left allows; then
    the columns shrink from their natural width, the widest first (prose before figures),
    down to their floors."""
    count = len(natural)
    words = [sorted({len(w) for r in rows for w in _words(r[i])} | {1}, reverse=True)
             for i in range(count)]
    floor = [natural[i] if i in whole else words[i][0] for i in range(count)]
    moved: set[int] = set()

    def used(ws: Sequence[int]) -> int:
        return _width([ws[i] for i in range(count) if i not in moved], indent, gap)

    while used(floor) > width and len(moved) < count - 1:
        i = max((j for j in range(count) if j not in moved), key=lambda j: floor[j])
        if i in whole:
            moved.add(i)
            continue
        shorter = [n for n in words[i] if n < floor[i]]
        if not shorter:
            break
        floor[i] = shorter[0]
    for i in range(count):  # a floor lowered before a column moved out may rise again
        while i not in whole and i not in moved and floor[i] < words[i][0]:
            longer = min(n for n in words[i] if n > floor[i])
            if used([longer if j == i else floor[j] for j in range(count)]) > width:
                break
            floor[i] = longer
    widths = list(natural)
    while used(widths) > width:
        widest = max((j for j in range(count) if j not in moved and widths[j] > floor[j]),
                     key=lambda j: widths[j], default=None)
        if widest is None:
            break
        widths[widest] -= 1
    return widths, moved


def _wrap(text: str, width: int) -> list[str]:
    """``text`` wrapped at spaces into lines of at most ``width``; a word longer than
    ``width`` is never cut: it stands on a line of its own, the only kind that is wider."""
    lines: list[str] = []
    for word in _words(text):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]

def fitted_table(columns: Sequence[str], rows: Sequence[Sequence[str]], width: int,
                 whole: Collection[int] = ()) -> str | None:
    """:func:`plain_table`'s look (no title: a rule of ``─`` under the header) fitted to
    ``width`` columns by :func:`fit_rows`, or None when a cell holds a character outside
    :data:`_NARROW` (rich lays those out)."""
    if any(not _NARROW.issuperset(text) for text in (*columns, *(c for r in rows for c in r))):
        return None
    blocks = row_blocks([list(columns), *rows], width, indent="  ", gap="   ", whole=whole)
    grid = max(len(line) for block in blocks for line in block
               if not line.startswith("    ") or line.startswith("     "))  # not one moved out
    rule = " " + "─" * max(grid - 1, 1)
    return "\n".join([*blocks[0], rule, *(line for b in blocks[1:] for line in b)]) + "\n"


COMMAND_STARTS = ("ngupgrade ", "terraform ", "tofu ", "kubectl ", "yc ")
"""Lines that are commands to copy (``ngupgrade set-policy ...``): wrapped only between
shell words, each broken line ending in `` \\`` so that it still pastes as one command."""


def wrap_prose(text: str, width: int | None) -> str:
    """``text`` with each line wider than ``width`` wrapped at spaces, the continuation lines
    indented two columns past the line's own indent; words (ids, addresses, pod names) are
    never cut, so a word longer than the room stands on a line of its own, and a command
    line (:data:`COMMAND_STARTS`) breaks only between shell words, with `` \\``. None:
    ``text`` as it is (a pipe). Table rows from :func:`fit_rows` already fit and pass
    unchanged."""
    if width is None:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        body = line.lstrip(" ")
        if len(line) <= width:
            out.append(line)
            continue
        indent = " " * (len(line) - len(body))
        if body.startswith(COMMAND_STARTS):
            out += _wrap_command(body, indent, width)
        else:
            out += _wrap_spaced(body, indent, indent + "  ", width)
    return "\n".join(out)


def _wrap_spaced(body: str, first: str, more: str, width: int) -> list[str]:
    """``body`` wrapped at its spaces, each run of spaces kept where the line goes on (two
    spaces between a finding's fields stay two); ``first`` and ``more`` the indents."""
    parts = re.split(r"( +)", body)
    lines = [first + parts[0]]
    for gap, word in zip(parts[1::2], parts[2::2], strict=True):
        if len(lines[-1]) + len(gap) + len(word) <= width or lines[-1] == more:
            lines[-1] += gap + word
        else:
            lines.append(more + word)
    return lines


def _shell_words(command: str) -> list[str]:
    """``command`` split at the spaces outside quotes (``-g 'a["b c"]'`` is two words), each
    word as written, quotes kept."""
    words, word, quote = [], "", ""
    for char in command:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == " ":
            if word:
                words.append(word)
            word = ""
            continue
        word += char
    return [*words, word] if word else words


def _wrap_command(body: str, indent: str, width: int) -> list[str]:
    """A command line broken between shell words, `` \\`` at each break (a shell reads it as
    one line), the rest four columns in; an option stays with its value when both fit on a
    line; a word longer than the room (a module address) stands on a line of its own."""
    words = _shell_words(body)
    lines = [indent + words[0]]
    more = indent + "    "
    i = 1
    while i < len(words):
        piece = words[i]
        if piece.startswith("-") and i + 1 < len(words) and not words[i + 1].startswith("-") \
                and len(more) + len(piece) + 1 + len(words[i + 1]) + 2 <= width:
            piece, i = f"{piece} {words[i + 1]}", i + 1  # --max-expansion 2 together
        i += 1
        if len(lines[-1]) + 1 + len(piece) + 2 <= width or lines[-1] == more:
            lines[-1] += " " + piece
        else:
            lines[-1] += " \\"
            lines.append(more + piece)
    return lines
