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

from collections.abc import Sequence

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
