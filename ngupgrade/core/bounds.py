"""How deep a decoded document may nest, and how an integer too long to convert is told.

Every reader checks a decoded document here before any recursive work on it (a deep copy, a
diff, a walk of its values): a list nested 900 deep is a valid JSON document that exhausts
Python's stack in ``copy.deepcopy`` (a RecursionError, exit 70). No producer ngupgrade reads
nests past a few dozen levels (``terraform show -json``, the provider's state, ``kubectl get
-o json``, the Quota Manager's export), so :data:`MAX_DEPTH` leaves a wide margin and still
keeps every recursive step far from the interpreter's limit of 1000 frames.

Python refuses to convert a decimal string of more than 4300 digits to an int
(``sys.int_info.default_max_str_digits``, CVE-2020-10735): ``json.loads`` and YAML's
constructor raise a plain ValueError for it, which :func:`is_int_limit` recognises.
"""

from __future__ import annotations

import sys
from typing import Any

MAX_DEPTH = 100
"""Containers (objects, lists, mappings, sequences) nested in one another, the root being 1."""

INT_DIGITS = getattr(sys.int_info, "default_max_str_digits", 4300) or 4300

INT_LIMIT_MESSAGE = (f"holds an integer of more than {INT_DIGITS} digits, which no producer "
                     "writes and Python refuses to read")
"""The one wording of the fault, for every reader."""


def too_deep(value: Any, limit: int = MAX_DEPTH, root: str = "$") -> str | None:
    """JSON path of the first container nested deeper than ``limit``, or None.

    ``value`` is a decoded document (dicts, lists, scalars); the root container is depth 1,
    so ``[[1]]`` has depth 2. Iterative: it never recurses, whatever the depth. Cost: one
    visit per container up to the first fault; scalars are not visited.
    """
    stack: list[tuple[Any, int, str]] = [(value, 1, root)]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, dict):
            children: Any = ((f"{path}.{key}", child) for key, child in item.items())
        elif isinstance(item, list):
            children = ((f"{path}[{i}]", child) for i, child in enumerate(item))
        else:
            continue
        if depth > limit:
            return path
        stack.extend((child, depth + 1, where) for where, child in children
                     if isinstance(child, (dict, list)))
    return None


def too_deep_message(limit: int = MAX_DEPTH) -> str:
    """``nested more than 100 levels deep (no real document is)``."""
    return f"nested more than {limit} levels deep (no real document is)"


def is_int_limit(err: BaseException) -> bool:
    """True when ``err`` is Python's refusal of an integer string over its digit limit."""
    return isinstance(err, ValueError) and "integer string conversion" in str(err)
