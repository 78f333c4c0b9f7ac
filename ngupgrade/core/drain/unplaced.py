"""Evicted pods that find no node: records kept during a run, findings at its end. Pure.

A pod of a controller evicted with no schedulable node that matches it and has room stays
Pending (the Selectel strategy page, "Обновление без дополнительных нод": "поды, которым не хватило
места, будут недоступны"; "Особенности обновления нод при автомасштабировании": the autoscaler adds
nothing during the upgrade). It may find a place later: when the surge nodes of the combined policy
become Ready, when the wave's nodes come back updated, or never. One finding per wave and workload
says which, naming the first pod and why it did not fit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ngupgrade.core.drain.findings import PODS_DO_NOT_FIT, Finding
from ngupgrade.core.drain.fit import Placer
from ngupgrade.core.drain.resources import CPU, MEMORY, MIB

if TYPE_CHECKING:
    from ngupgrade.core.drain.facts import Unit


@dataclass
class Unplaced:
    """One evicted pod that found no node in wave ``wave``; ``placed_wave`` when it got
    one later and ``how`` (``surge``: the surge nodes became Ready; ``return``: nodes came
    back; ``start``: at the start of a later wave)."""

    unit_id: int
    pod: str
    owner: str
    wave: int
    node: str
    reason: str
    placed_wave: int | None = None
    how: str = ""

    @classmethod
    def of(cls, placer: Placer, unit: Unit, wave: int, node: str) -> Unplaced:
        """Record ``unit`` and say why it fits nowhere open now."""
        pod, facts = unit.pod, unit.facts
        count, short = placer.shortage(pod, facts.key, facts.terms, facts.need)
        if not count:
            reason = ("no open node matches its nodeSelector, node affinity and tolerations"
                      + (" (pinned to this group?)" if pod.node_selector or
                         pod.required_node_affinity else ""))
        else:
            reason = (f"{count} matching open node(s), none with room for "
                      f"{_amounts(facts.request)} (short of {', '.join(short)})")
        return cls(id(unit), pod.ref, facts.owner or pod.ref, wave, node, reason)


def _amounts(request: Mapping[str, int]) -> str:
    parts = []
    if request.get(CPU):
        parts.append(f"cpu {request[CPU]}m")
    if request.get(MEMORY):
        parts.append(f"memory {request[MEMORY] / MIB:g} MiB")
    parts += [f"{k} {v}" for k, v in sorted(request.items())
              if k not in (CPU, MEMORY, "pods") and v]
    return ", ".join(parts) or "one pod slot"


def unplaced_findings(records: Iterable[Unplaced], final: Iterable[tuple[Any, int]]
                      ) -> list[Finding]:
    """One ``pods-do-not-fit`` finding per wave and workload; the message says until when.

    Blocking when some pod waits past its own wave's surge: it stays Pending until nodes come
    back from their update, a later wave, or for good (the Selectel strategy page, "Обновление без
    дополнительных нод": those pods "будут недоступны"). A warning when every pod finds a place as
    soon as the surge nodes of the same wave are Ready (the Selectel strategy page, "Комбинированный
    сценарий": the combined policy has the least room at the start of a cycle): a wait of one node's
    boot, which the PDB rules already judge for the workload.
    """
    groups: dict[tuple[int, str], list[Unplaced]] = defaultdict(list)
    for rec in records:
        groups[(rec.wave, rec.owner)].append(rec)
    out = []
    for (wave, owner), recs in sorted(groups.items()):
        first = recs[0]
        never = sum(1 for r in recs if r.placed_wave is None)
        if never:
            until = f"{never} stay Pending after the upgrade ends"
        else:
            last = max(recs, key=lambda r: r.placed_wave or 0)
            until = {"surge": f"Pending until the surge nodes are Ready in wave {last.placed_wave}",
                     "return": f"Pending until the nodes of wave {last.placed_wave} are back"
                     }.get(last.how, f"Pending until wave {last.placed_wave}")
        brief = all(r.placed_wave == wave and r.how == "surge" for r in recs)
        out.append(Finding(
            PODS_DO_NOT_FIT, "warning" if brief else "blocking",
            f"wave {wave}: {len(recs)} evicted pod(s) of {owner} find no node ({first.reason});"
            f" {until}", wave=wave, pod=first.pod, node=first.node, count=len(recs),
            subject=owner))
    del final
    return out
