"""The Pareto front of candidates over duration, cost and disruption. Pure.

The front is judged on the figures the advise table prints for each policy: the duration's
upper bound (the run may take that long whatever order the platform picks), the surge node
cycles (node-hours) and the nodes down at once. A candidate dominates another when it is no
worse on each of these (:attr:`~ngupgrade.core.advise.candidates.Candidate.objectives`). The
duration's lower bound is not an objective of its own: a policy that is only faster when the
platform happens to pick a lucky order, and costs more or takes more nodes down, is not a
choice anyone makes over one that is as fast in the worst case. It breaks ties: of candidates
equal on all three, the one first in
:attr:`~ngupgrade.core.advise.candidates.Candidate.rank_key` order (lower bound, then fewer
surge nodes) stays.

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

    Sorted by the objectives (then ``rank_key`` for ties), a candidate can only be dominated
    by one before it, and if it is dominated by a dominated one it is dominated by what
    dominates that: one pass suffices.
    """
    front: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: (c.objectives, c.rank_key)):
        if not any(dominates(f, c) for f in front):
            front.append(c)
    return sorted(front, key=lambda c: c.rank_key)
