"""The state's notes: attributes of a node group that only feed warnings and were not
understood, so the reports say what they did not check. Pure.

Stable keys (added, never renamed), in every report that shows node groups (``groups``,
``plan``, ``preflight``, ``advise``, ``drain-check``)::

    "state_notes": [{"group": "yandex_kubernetes_node_group.workers",
                     "attribute": "maintenance_policy[0].maintenance_window[0].start_time",
                     "value": "'quarter past three'",
                     "why": "is not a time of day (HH:MM, HH:MM:SS or HH:MM:SS.fffffffff)",
                     "not_checked": "auto-upgrade window not checked",
                     "message": "auto-upgrade window not checked: maintenance_policy[0]..."}]

``value`` is the value as the state holds it, quoted when a string, shortened. In a table
report each note is one ``note: GROUP: MESSAGE`` line on stderr.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ngupgrade.core.model import NodeGroup, StateNote


def group_notes(groups: Iterable[NodeGroup | None]) -> list[tuple[str, StateNote]]:
    """(address, note) of every note of ``groups``, each group's once, in order (a plan's
    ``before`` and ``after`` of one group may repeat a note: kept once)."""
    seen: set[tuple[str, StateNote]] = set()
    out = []
    for g in groups:
        for note in g.notes if g is not None else ():
            pair = (str(g.address), note)  # type: ignore[union-attr]
            if pair not in seen:
                seen.add(pair)
                out.append(pair)
    return out


def notes_json(pairs: Iterable[tuple[str, StateNote]]) -> list[dict[str, Any]]:
    """The ``state_notes`` value (shape in the module docstring)."""
    return [{"group": address, "attribute": n.attribute, "value": n.value, "why": n.why,
             "not_checked": n.not_checked, "message": n.message} for address, n in pairs]


def notes_lines(pairs: Iterable[tuple[str, StateNote]]) -> list[str]:
    """``note: GROUP: MESSAGE``, one per note."""
    return [f"note: {address}: {n.message}" for address, n in pairs]
