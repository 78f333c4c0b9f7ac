"""Strings that are not text: lone UTF-16 surrogates from ``\\udXXX`` escapes.

JSON (and YAML's ``"\\ud800"``) can spell half of a UTF-16 surrogate pair; Python's decoders
turn it into a str that no UTF-8 stream can print, so a report naming it crashed (exit 70).
No tool writes one (Go's and Python's encoders pair them or write U+FFFD): a file holding one
was edited by hand or damaged, and its reader reports it as bad input (exit 3), naming where.
"""

from __future__ import annotations

from typing import Any


def lone_surrogate(text: str) -> int | None:
    """Index of the first lone surrogate (U+D800..U+DFFF) in ``text``, or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return err.start
    return None


def lone_surrogate_path(value: Any, root: str = "$") -> str | None:
    """JSON path of the first key or string value holding a lone surrogate, or None.

    ``value`` is a decoded document (dicts, lists, scalars); keys are paths as
    ``$.a.b[2]``; a bad key is reported at the key itself. Iterative, so a document nested as
    deep as its decoder allowed cannot exhaust the stack here.
    """
    stack: list[tuple[Any, str]] = [(value, root)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            if lone_surrogate(item) is not None:
                return path
        elif isinstance(item, dict):
            children = []
            for key, child in item.items():
                where = f"{path}.{key}"
                if isinstance(key, str) and lone_surrogate(key) is not None:
                    return printable_path(where)
                children.append((child, where))
            stack.extend(reversed(children))
        elif isinstance(item, list):
            stack.extend(reversed([(child, f"{path}[{i}]") for i, child in enumerate(item)]))
    return None


def printable_path(path: str) -> str:
    """``path`` with any lone surrogate written as ``\\udXXX`` (printable in any stream)."""
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


LONE_SURROGATE_MESSAGE = ("holds a lone UTF-16 surrogate (a \\udXXX escape that is half a "
                          "character): not text")
"""The one wording of the fault, for every reader."""
