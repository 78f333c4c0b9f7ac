"""The Pareto front of candidates over duration, cost and disruption. Pure.

A candidate dominates another when it is no worse on every objective of
:attr:`~ngupgrade.core.advise.candidates.Candidate.objectives` (upper and lower duration bound,
surge node-cycles, nodes down at once); of candidates equal on all four, the first in
:attr:`~ngupgrade.core.advise.candidates.Candidate.rank_key` order stays.

Written here rather than taken from a library: the candidates are few (block minima, see
:mod:`.candidates`), the objectives small integers, and a sort plus one pass against the front
so far (``O(n * front)``) is all it takes; no installed package offers a skyline.
"""

from __future__ import annotations

from collections.abc import Iterable

from ngupgrade.core.advise.candidates import Candidate


def dominates(a: Candidate, b: Candidate) -> bool:
    """True when ``a`` is no worse than ``b`` on every objective."""
    return all(x <= y for x, y in zip(a.objectives, b.objectives, strict=True))


def pareto_front(candidates: Iterable[Candidate]) -> list[Candidate]:
    """The non-dominated candidates, fastest first (``rank_key`` order).

    Sorted by ``rank_key``, a candidate can only be dominated by one before it, and if it is
    dominated by a dominated one it is dominated by what dominates that: one pass suffices.
    """
    front: list[Candidate] = []
    seen: list[tuple[int, int, int]] = []  # (cycles_min, cost, down) of the front, for speed
    for c in sorted(candidates, key=lambda c: c.rank_key):
        c_min, cost, down = c.cycles_min, c.surge_node_cycles, c.max_unavailable
        for f_min, f_cost, f_down in seen:
            if f_min <= c_min and f_cost <= cost and f_down <= down:
                break
        else:
            front.append(c)
            seen.append((c_min, cost, down))
    return front
