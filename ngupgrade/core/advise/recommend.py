"""The advice for one node group: its safe Pareto front, the recommendation, the near misses.

Pure. The search (docs/advise.md):

1. the quota gives the largest ``E'`` that fits (:meth:`QuotaJudge.max_expansion`), the
   availability rule the largest ``U'`` (:attr:`Availability.max_unavailable`): both are
   thresholds, since demand grows with ``E`` and nodes down with ``U``;
2. the pool is the block-minimal candidates inside both thresholds (:mod:`.candidates`);
3. the Pareto front of the pool is judged for workloads (when a judge is given); a rejected
   member leaves the pool and the next candidate of its block enters; repeat until every
   member of the front is safe. Only front members are ever judged, each at most once;
4. the recommendation is the front's first in ``rank_key`` order: the fastest, ties to the
   cheaper.

The rejected list explains the faster policies: in each column ``U' = u`` (0..min(N, 100)),
the slowest policy that is still faster than the recommendation and why it is blocked
(``min(N, 100)`` on Yandex, the platform's bound in general); a run
of neighbouring columns blocked for the same reasons is shown once (its first column).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ngupgrade.core.advise import candidates as cand
from ngupgrade.core.advise.candidates import Candidate
from ngupgrade.core.advise.front import pareto_front
from ngupgrade.core.advise.judge import (
    QUOTA_SHORT,
    QUOTA_UNKNOWN,
    Availability,
    QuotaJudge,
    Reason,
    WorkloadJudge,
)


@dataclass(frozen=True)
class Rejected:
    """A policy faster than the recommendation and what blocks it."""

    candidate: Candidate
    reasons: tuple[Reason, ...]


@dataclass(frozen=True)
class Search:
    """The outcome of the search for one group of ``nodes`` nodes.

    ``front``: safe, non-dominated, fastest first; ``recommended`` its first (None when no
    policy is safe); ``rejected``: the near misses (module docstring), nearest first;
    ``menu``: the safe candidates the scheduler may choose from (the fastest for each surge
    size); ``max_expansion``/``max_unavailable``: the quota and availability thresholds
    (``max_expansion`` None when even no surge fits the quota); ``workload_checks``: how many
    times the workload judge ran.
    """

    nodes: int
    front: tuple[Candidate, ...]
    recommended: Candidate | None
    rejected: tuple[Rejected, ...]
    menu: tuple[Candidate, ...]
    max_expansion: int | None
    max_unavailable: int
    workload_checks: int


def search(nodes: int, availability: Availability, quota: QuotaJudge | None = None,
           workloads: WorkloadJudge | None = None, *, upper: int = cand.YANDEX_MAX) -> Search:
    """Search the policies of a group of ``nodes`` nodes (see the module docstring).

    ``quota`` None: the quota is not checked (no quota source); ``workloads`` None: no cluster
    objects, the availability floor stands in for them; ``upper``: the platform's bound of
    each knob (:meth:`ngupgrade.core.platform.Platform.upper_bound`).
    """
    limit = cand.knob_limit(nodes, upper)
    if nodes == 0:
        return Search(0, (), None, (), (), 0, 0, 0)
    e_max = limit if quota is None else quota.max_expansion(limit)
    u_max = min(availability.max_unavailable, limit)

    pool: dict[tuple[int, int], Candidate] = {}
    # a floor above N: no policy keeps it, not even one that takes no node down
    if e_max is not None and not availability.codes(0):
        for u in range(u_max + 1):
            for c in cand.column(nodes, u, e_max):
                pool[(c.max_expansion, c.max_unavailable)] = c
    verdicts: dict[tuple[int, int], tuple[Reason, ...]] = {}
    front = pareto_front(pool.values())
    if workloads is not None:
        while True:
            todo = [c for c in front if (c.max_expansion, c.max_unavailable) not in verdicts]
            if not todo:
                break
            for c in todo:
                key = (c.max_expansion, c.max_unavailable)
                found = tuple(workloads(c.policy))
                verdicts[key] = found
                if found:
                    del pool[key]
                    nxt = cand.next_in_block(c, e_max or 0)
                    if nxt is not None:
                        nkey = (nxt.max_expansion, nxt.max_unavailable)
                        if nkey not in verdicts:
                            pool[nkey] = nxt
            front = pareto_front(pool.values())
    best = front[0] if front else None
    judged_safe = (pool.values() if workloads is None
                   else [c for c in pool.values()
                         if verdicts.get((c.max_expansion, c.max_unavailable)) == ()])
    return Search(
        nodes=nodes, front=tuple(front), recommended=best,
        rejected=tuple(_near_misses(limit, nodes, best, e_max, availability, quota, verdicts)),
        menu=tuple(_menu(judged_safe)), max_expansion=e_max, max_unavailable=u_max,
        workload_checks=len(verdicts),
    )


def _menu(safe: Iterable[Candidate]) -> list[Candidate]:
    """For each surge size, the fastest safe candidate; only those faster than every smaller
    surge (a larger surge that is no faster only takes more headroom)."""
    best: dict[int, Candidate] = {}
    for c in safe:
        held = best.get(c.max_expansion)
        if held is None or c.rank_key < held.rank_key:
            best[c.max_expansion] = c
    out: list[Candidate] = []
    for e in sorted(best):
        c = best[e]
        if not out or c.speed_key < min(o.speed_key for o in out):
            out.append(c)
    return out


def _near_misses(limit: int, nodes: int, best: Candidate | None, e_max: int | None,
                 availability: Availability, quota: QuotaJudge | None,
                 verdicts: dict[tuple[int, int], tuple[Reason, ...]]) -> list[Rejected]:
    than = best.speed_key if best is not None else None
    out: list[Rejected] = []
    last_codes: tuple[str, ...] | None = None
    for u in range(limit + 1):
        c = cand.nearest_faster(nodes, u, than, limit)
        if c is None:
            last_codes = None
            continue
        key = (c.max_expansion, c.max_unavailable)
        codes: tuple[str, ...] = ()
        if quota is not None and (e_max is None or c.max_expansion > e_max):
            codes += (QUOTA_SHORT,)
        codes += availability.codes(u)
        judged = verdicts.get(key, ())
        codes += tuple(r.code for r in judged)
        if not codes or codes == last_codes:
            last_codes = codes or last_codes
            continue
        last_codes = codes
        reasons: list[Reason] = []
        if QUOTA_SHORT in codes and quota is not None:
            reasons += [r for r in quota.reasons(c.max_expansion)
                        if r.code in (QUOTA_SHORT, QUOTA_UNKNOWN)]
        reasons += availability.reasons(u)
        reasons += judged
        out.append(Rejected(c, tuple(reasons)))
    out.sort(key=lambda r: r.candidate.rank_key, reverse=True)
    return out
