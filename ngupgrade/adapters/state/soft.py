"""Attributes that only feed a warning or a note: read when they can be, else noted.

A state's maintenance window, ``auto_upgrade``, labels, taints, placement and version info
feed no figure of a plan or a preflight: a value that is not understood there must not make the
state unreadable (``ngupgrade`` exits 3 only for what the math needs: scale, deploy policy,
resources, ids). Such an attribute is kept undecoded (:class:`msgspec.Raw`) in the typed
shape and decoded here; a value that does not fit becomes a
:class:`~ngupgrade.core.model.StateNote` naming the attribute, its value and what was not
checked, and the group is read without it.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import msgspec

from ngupgrade.core.model import StateNote
from ngupgrade.core.text import printable_text

T = TypeVar("T")

ABSENT = msgspec.Raw(b"")
"""Default of an undecoded attribute the state leaves out."""

_AT = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_STEP = re.compile(r"\[(\d+)\]|\.([A-Za-z_][A-Za-z0-9_]*)")
_SHOWN = 60


def shown(value: Any) -> str:
    """A value as a note prints it: a string quoted (``'quarter past three'``), anything
    else as JSON (``1500``, ``{"a": 1}``), shortened to about 60 characters, printable."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > _SHOWN:
        text = text[:_SHOWN - 3] + "..."
    return printable_text(text)


class Notes:
    """The notes of one node group, in the order its attributes are read."""

    def __init__(self) -> None:
        self.items: list[StateNote] = []

    def add(self, attribute: str, value: Any, why: str, not_checked: str) -> None:
        """Note ``attribute`` holding ``value`` (shown with :func:`shown`)."""
        self.items.append(StateNote(attribute, shown(value), why, not_checked))

    def decode(self, raw: msgspec.Raw, shape: type[T], attribute: str, not_checked: str,
               default: T) -> T:
        """``raw`` (an attribute, ``attribute`` its path) decoded as ``shape``; ``default``
        when the state leaves it out, holds ``null``, or holds something else (then noted,
        naming the innermost part that did not fit)."""
        if not raw or bytes(raw).strip() == b"null":
            return default
        try:
            return msgspec.json.decode(raw, type=shape)
        except msgspec.ValidationError as err:
            match = _AT.match(str(err))
            assert match is not None
            try:
                whole = msgspec.json.decode(raw)
            except msgspec.ValidationError:  # an integer of thousands of digits: msgspec refuses
                whole = bytes(raw)[:_SHOWN].decode("utf-8", "replace")
            where, value = _follow(whole, match.group("path") or "")
            message = match.group("msg")
            self.add(attribute + where, value,
                     f"is not what the provider writes ({message[:1].lower()}{message[1:]})",
                     not_checked)
            return default
        except (msgspec.DecodeError, RecursionError):  # the state's own decoding would fail first
            self.add(attribute, bytes(raw)[:_SHOWN].decode("utf-8", "replace"),
                     "is not JSON", not_checked)
            return default


def _follow(value: Any, path: str) -> tuple[str, Any]:
    """The part of ``value`` at msgspec's error ``path`` (``[0].start_time``), as far as it
    can be followed (a map's key is shown as ``[...]``: stop there), and its path."""
    where, pos = "", 0
    while (step := _STEP.match(path, pos)) is not None:
        index, key = step.group(1), step.group(2)
        if index is not None and isinstance(value, list) and int(index) < len(value):
            value, where = value[int(index)], f"{where}[{index}]"
        elif key is not None and isinstance(value, dict) and key in value:
            value, where = value[key], f"{where}.{key}"
        else:
            break
        pos = step.end()
    return where, value
