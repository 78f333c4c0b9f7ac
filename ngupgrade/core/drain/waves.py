"""Which real nodes drain in which wave, and the orders the check evaluates. Pure.

The plan's :func:`ngupgrade.core.simulate.timeline` says how many nodes each wave creates,
drains, updates in place and deletes; this module follows it wave by wave (no other model of
the upgrade). A group's Kubernetes nodes are decided by :mod:`ngupgrade.core.membership`
(Yandex's group-id label; Selectel's node hostnames in the state). The platform picks
which of them go in each wave, so the check runs several orders: every distinct assignment
when there are at most :data:`EXHAUSTIVE_LIMIT`, otherwise a fixed family of adversarial
orders (see :func:`orders`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from ngupgrade.core.simulate import Step

EXHAUSTIVE_LIMIT = 120
"""Most distinct node-to-wave assignments evaluated one by one (5 nodes in waves of 1:
5! = 120; in waves of 2, 2, 1: 30)."""

CONCERN_ORDERS = 6
"""Adversarial orders built around the riskiest PDBs and YTsaurus components when the
assignments are too many to enumerate."""


@dataclass(frozen=True)
class WaveShape:
    """One wave of the timeline: ``drain`` old nodes, of which ``in_place`` come back updated
    and the rest are deleted; ``created`` surge nodes made in this wave, ``surge_ready``
    True when the surge nodes existing in this wave are Ready before its drain starts
    (``max_unavailable = 0``: the platform waits for them, the Yandex deploy-policy page, the
    max_expansion > 0 policy, the Selectel strategy page, "Обновление с дополнительными нодами"; in
    the combined policy they are created while the first wave drains, the Selectel strategy page,
    "Комбинированный сценарий")."""

    number: int
    drain: int
    in_place: int
    created: int
    surge_ready: bool


def wave_shapes(timeline: Sequence[Step], max_unavailable: int) -> tuple[WaveShape, ...]:
    """Fold the timeline's steps into one :class:`WaveShape` per drain step.

    ``max_unavailable`` is the effective ``U'``: with 0 the platform waits for each wave's
    new nodes before it drains; otherwise (the combined policy) the first wave drains while
    they are created. The timeline alone cannot tell (4 nodes at 4/0 and at 4/4 both read
    create 4, drain 4, delete 4; the Selectel strategy page's autoscaling example 3).
    """
    created: dict[int, int] = {}
    in_place: dict[int, int] = {}
    drains: list[tuple[int, int]] = []
    for step in timeline:
        if step.action == "create":
            created[step.wave] = created.get(step.wave, 0) + step.nodes
        elif step.action == "update_in_place":
            in_place[step.wave] = in_place.get(step.wave, 0) + step.nodes
        elif step.action == "drain":
            drains.append((step.wave, step.nodes))
    return tuple(
        WaveShape(number=wave, drain=count, in_place=in_place.get(wave, 0),
                  created=created.get(wave, 0),
                  surge_ready=max_unavailable == 0 or wave > 1 or not created.get(wave, 0))
        for wave, count in drains)


def assignment_count(sizes: Sequence[int]) -> int:
    """Distinct ways to put ``sum(sizes)`` nodes in waves of these sizes (multinomial)."""
    count = math.factorial(sum(sizes))
    for size in sizes:
        count //= math.factorial(size)
    return count


def _all_assignments(nodes: tuple[str, ...], sizes: Sequence[int]
                     ) -> Iterator[tuple[tuple[str, ...], ...]]:
    if not sizes:
        yield ()
        return
    for chosen in combinations(nodes, sizes[0]):
        rest = tuple(n for n in nodes if n not in chosen)
        for tail in _all_assignments(rest, sizes[1:]):
            yield (chosen, *tail)


def split(order: Sequence[str], sizes: Sequence[int]) -> tuple[tuple[str, ...], ...]:
    """Cut a node order into waves of ``sizes``."""
    out, pos = [], 0
    for size in sizes:
        out.append(tuple(order[pos:pos + size]))
        pos += size
    return tuple(out)


def orders(nodes: Sequence[str], sizes: Sequence[int], *, load: Mapping[str, float],
           concerns: Sequence[Mapping[str, int]]) -> tuple[list[tuple[tuple[str, ...], ...]],
                                                           bool]:
    """The node-to-wave assignments to evaluate, and whether they are all of them.

    ``sizes`` the drain count of each wave (their sum at most ``len(nodes)``); ``load`` a
    weight per node (its requests), ``concerns`` per risky PDB or component the number of its
    pods on each node, riskiest first. Sampled family (deduplicated): name order, reverse,
    heaviest first, lightest first, and per concern the nodes holding most of its pods first
    (they then share a wave, the worst case for a shared budget).
    """
    names = tuple(sorted(nodes))
    sizes = tuple(sizes)
    if assignment_count(sizes) <= EXHAUSTIVE_LIMIT and sum(sizes) == len(names):
        return list(_all_assignments(names, sizes)), True
    candidates = [list(names), list(reversed(names)),
                  sorted(names, key=lambda n: (-load.get(n, 0.0), n)),
                  sorted(names, key=lambda n: (load.get(n, 0.0), n))]
    for counts in concerns[:CONCERN_ORDERS]:
        candidates.append(_most_first(names, counts))
    seen: set[tuple[tuple[str, ...], ...]] = set()
    out = []
    for order in candidates:
        waves = tuple(tuple(sorted(w)) for w in split(order, sizes))
        if waves not in seen:
            seen.add(waves)
            out.append(waves)
    return out, False


def _most_first(names: Sequence[str], counts: Mapping[str, int]) -> list[str]:
    return sorted(names, key=lambda n: (-counts.get(n, 0), n))
