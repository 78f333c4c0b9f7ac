"""The deploy policies a group can be given, and their figures in closed form. Pure.

Every policy the platform accepts (Yandex, the deploy-policy page: ``max_expansion`` and
``max_unavailable`` integers 0..100, not both 0; Selectel, the strategy page, "Параметры обновления
нод": 0..the node count or the autoscaler max) is clamped to the group as the plan does (``E' =
min(E, N)``, ``U' = min(U, N)``; docs/upgrade-math.md), and policies that clamp to the same
effective one are one candidate: a group of 20 nodes has ``21 * 21 - 1 = 440`` distinct effective
policies out of ``101 * 101 - 1 = 10200`` accepted ones. The configured value that stands for a
candidate is the effective one itself: the smallest that clamps to it, so the quota worst case
(which clamps an autoscaled group at its max, not at N) and the autoscaler-min rule (which reads the
configured ``U``) judge it at its best.

The figures are those of :mod:`ngupgrade.core.simulate`, in closed form, so that judging a
candidate never builds a timeline:

* ``cycles.min = ceil(N / (E' + U'))``, ``cycles.max = ceil(N / U')`` or ``ceil(N / E')``;
* surge node-cycles, the cost: the nodes above ``N`` summed over the waves of the timeline
  (an upper bound, like ``cycles.max``). ``E' > 0, U' = 0``: each wave adds its batch for one
  wave, ``N`` in all. Both: the ``E'`` surge nodes stay until the last ``E'`` old nodes drained
  are deleted (the timeline deletes a drained node once ``N`` nodes are new), and old node ``k``
  is drained in wave ``ceil(k / U')``, so the sum is ``sum(ceil(k / U'), k = N-E'+1 .. N)``.
  N=5 at 2/2: nodes 4 and 5 leave in waves 2 and 3, so 5 node-cycles (timeline sizes 7, 7, 6).

The search walks only "block minima": for a fixed ``U'``, every ``E'`` that gives the same
``cycles.min`` has the same duration and disruption and costs more the larger it is, so only
the smallest ``E'`` of each block is a candidate until a workload check rejects it
(:func:`next_in_block`). A column has at most about ``2 * sqrt(N)`` blocks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.platform import YANDEX
from ngupgrade.core.policy import POLICY_MIN, clamp

YANDEX_MAX = YANDEX.knob_max or 100
"""Yandex's bound of each knob (the Yandex deploy-policy page, the parameter table): the default of
``upper`` below."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One effective deploy policy of a group of ``nodes`` nodes, with its figures.

    ``cycles_min``/``cycles_max`` as in docs/upgrade-math.md; ``surge_node_cycles`` the nodes
    above ``N`` summed over the waves (multiply by minutes per cycle for node-minutes);
    ``max_unavailable`` is also the disruption: nodes down at once (``min_available = N - U'``).
    """

    max_expansion: int
    max_unavailable: int
    nodes: int
    cycles_min: int
    cycles_max: int
    surge_node_cycles: int

    @property
    def policy(self) -> DeployPolicy:
        """The deploy policy to configure (``E'``/``U'``; see the module docstring)."""
        return DeployPolicy(self.max_expansion, self.max_unavailable)

    @property
    def min_available(self) -> int:
        """Nodes Ready at the worst moment (lower bound): ``N - U'``."""
        return self.nodes - self.max_unavailable

    @property
    def speed_key(self) -> tuple[int, int]:
        """Duration for ranking: the upper bound first (what a maintenance window must hold;
        the timeline reproduces every worked example), then the lower bound (the Selectel strategy
        page)."""
        return (self.cycles_max, self.cycles_min)

    @property
    def rank_key(self) -> tuple[int, int, int, int, int]:
        """The recommendation's order: fastest, then cheaper, then fewer nodes down, then less
        surge (a smaller demand on the shared headroom)."""
        return (self.cycles_max, self.cycles_min, self.surge_node_cycles,
                self.max_unavailable, self.max_expansion)

    @property
    def objectives(self) -> tuple[int, int, int]:
        """What the Pareto front compares, as the advise table prints them: the duration's
        upper bound (cycles), the cost (surge node-cycles), the disruption (nodes down)."""
        return (self.cycles_max, self.surge_node_cycles, self.max_unavailable)


def knob_limit(nodes: int, upper: int = YANDEX_MAX) -> int:
    """The largest effective value of either knob: ``min(N, upper)``, where ``upper`` is the
    platform's bound (:meth:`ngupgrade.core.platform.Platform.upper_bound`: Yandex 100,
    Selectel the node count or the autoscaler max)."""
    return min(nodes, upper)


def effective_policies(nodes: int, upper: int = YANDEX_MAX) -> Iterator[DeployPolicy]:
    """Every distinct effective policy of a group of ``nodes`` nodes, each once.

    Walks all accepted policies (``0..upper`` each, not both 0: ``101 * 101 - 1`` on Yandex,
    the Yandex deploy-policy page; ``upper`` is the platform's bound) and
    clamps each as the plan does; a reference enumeration for tests and small groups (the
    search itself never walks it). Yields nothing for an empty group (every policy clamps
    to 0/0: nothing to do).
    """
    seen: set[DeployPolicy] = set()
    for e in range(POLICY_MIN, upper + 1):
        for u in range(POLICY_MIN, upper + 1):
            if e == 0 and u == 0:
                continue
            eff = clamp(DeployPolicy(e, u), nodes)
            if eff.max_expansion == 0 and eff.max_unavailable == 0:
                continue
            if eff not in seen:
                seen.add(eff)
                yield eff


def _prefix_waves(k: int, u: int) -> int:
    """``sum(ceil(i / u), i = 1..k)``: ``u * q (q + 1) / 2 + r (q + 1)`` with ``k = q u + r``."""
    if k <= 0:
        return 0
    q, r = divmod(k, u)
    return u * q * (q + 1) // 2 + r * (q + 1)


def surge_node_cycles(nodes: int, e: int, u: int) -> int:
    """Nodes above ``N`` summed over the waves of the timeline (module docstring)."""
    if e == 0:
        return 0
    if u == 0:
        return nodes
    return _prefix_waves(nodes, u) - _prefix_waves(nodes - e, u)


def candidate(nodes: int, e: int, u: int) -> Candidate:
    """The figures of the effective policy ``e``/``u`` (already clamped, not both 0).

    Raises:
        ValueError: 0/0, a knob above ``N``, or a negative value.
    """
    if e < 0 or u < 0 or e > nodes or u > nodes or (e == 0 and u == 0):
        raise ValueError(f"not an effective policy of a {nodes}-node group: {e}/{u}")
    c_min = _ceil_div(nodes, e + u)
    c_max = _ceil_div(nodes, u) if u else _ceil_div(nodes, e)
    return Candidate(e, u, nodes, c_min, c_max, surge_node_cycles(nodes, e, u))


def block_minima(nodes: int, lo: int, hi: int) -> Iterator[int]:
    """The smallest ``s`` in ``lo..hi`` for each distinct ``ceil(N / s)`` (``lo >= 1``)."""
    s = max(lo, 1)
    while s <= hi:
        yield s
        m = _ceil_div(nodes, s)
        if m <= 1:
            return
        s = _ceil_div(nodes, m - 1)  # the first s with ceil(N / s) <= m - 1


def column(nodes: int, u: int, e_max: int) -> Iterator[Candidate]:
    """The block-minimal candidates with ``U' = u`` and ``E'`` in ``0..e_max``, slowest first."""
    if u == 0:
        for e in block_minima(nodes, 1, e_max):
            yield candidate(nodes, e, 0)
        return
    for s in block_minima(nodes, u, u + e_max):
        yield candidate(nodes, s - u, u)


def next_in_block(c: Candidate, e_max: int) -> Candidate | None:
    """The next candidate with the same ``U'`` and the same cycles (one more surge node), or
    None: what stands in for ``c`` when a workload check rejects it."""
    e = c.max_expansion + 1
    if e > e_max or e > c.nodes:
        return None
    nxt = candidate(c.nodes, e, c.max_unavailable)
    return nxt if nxt.speed_key == c.speed_key else None


def nearest_faster(nodes: int, u: int, than: tuple[int, int] | None, e_max: int
                   ) -> Candidate | None:
    """In the column ``U' = u`` (``E'`` up to ``e_max``), the slowest block-minimal candidate
    strictly faster than ``than`` (a :attr:`Candidate.speed_key`), or None. With ``than`` None
    (nothing is safe), the slowest candidate of the column."""
    if than is None:
        first = next(column(nodes, u, e_max), None)
        return first
    c_max, c_min = than
    if u == 0:
        # (e, 0) takes ceil(N/e) cycles both ways: faster only when ceil(N/e) < c_max.
        if c_max <= 1:
            return None
        e = _ceil_div(nodes, c_max - 1)
        return candidate(nodes, e, 0) if e <= e_max else None
    col_max = _ceil_div(nodes, u)
    if col_max < c_max:
        return candidate(nodes, 0, u)
    if col_max > c_max or c_min <= 1:
        return None
    s = max(_ceil_div(nodes, c_min - 1), u)
    e = s - u
    return candidate(nodes, e, u) if e <= e_max else None
