"""YTsaurus components under a node drain (the YTsaurus docs, "Стратегии обновления YTsaurus").
Pure.

The operator updates a component ``max(1, instanceCount - minReadyInstanceCount)`` pods at a
time (the YTsaurus docs, "Стратегии обновления YTsaurus": 5 HTTP proxies with
``minReadyInstanceCount: 3`` -> 2 at once, 3 always serving). It creates no PodDisruptionBudgets
(``ytsaurus/ytsaurus-k8s-operator``), so a node drain is not held to that number unless a PDB of the
user's covers the pods: a wave whose nodes hold more pods of one component than the operator would
take down at once (the pods a covering PDB makes wait leave one by one, not at once) leaves it below
its minimum (finding ``ytsaurus-below-min-ready``), and the PDB that would have made the drain wait
is suggested; once it is in the cluster objects, the finding clears.
An unset ``minReadyInstanceCount`` means one pod at a time (the YTsaurus docs, "Стратегии обновления
YTsaurus").
"""

from __future__ import annotations

import re

from ngupgrade.core.drain.findings import YTSAURUS_BELOW_MIN_READY, Finding
from ngupgrade.core.drain.index import YtTarget
from ngupgrade.core.k8s import YtComponent


def max_unavailable(component: YtComponent) -> int:
    """``max(1, instanceCount - minReadyInstanceCount)``; unset minimum -> 1."""
    minimum = component.min_ready_instance_count
    if minimum is None:
        return 1
    return max(1, component.instance_count - minimum)


def _kebab(text: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", text).lower()


def suggested_pdb(target: YtTarget) -> str:
    """The PodDisruptionBudget that holds a drain to the operator's own limit, as YAML."""
    comp = target.component
    parts = [target.cluster.name, _kebab(comp.kind)] + ([comp.name] if comp.name else [])
    labels = "".join(f"\n      {k}: {_quote(v)}" for k, v in sorted(comp.pod_labels.items()))
    return (
        "apiVersion: policy/v1\n"
        "kind: PodDisruptionBudget\n"
        "metadata:\n"
        f"  name: {'-'.join(parts)}\n"
        f"  namespace: {target.cluster.namespace}\n"
        "spec:\n"
        f"  maxUnavailable: {max_unavailable(comp)}\n"
        "  selector:\n"
        f"    matchLabels:{labels}\n"
    )


def _quote(value: str) -> str:
    # YAML reads 1, true, null... as non-strings; quote anything that is not a plain word.
    return value if re.fullmatch(r"[A-Za-z][A-Za-z0-9._/-]*", value) and value.lower() not in (
        "true", "false", "yes", "no", "on", "off", "null") else f'"{value}"'


def below_min_ready(target: YtTarget, down: int, *, wave: int, node: str | None,
                    every_order: bool = False, pdbs: tuple[str, ...] = (),
                    roomless: bool = False) -> Finding | None:
    """The finding for ``down`` pods of a component unavailable at once, or None when the
    operator's own limit allows it (``down <= max_unavailable``). ``pdbs`` the refs of the
    PodDisruptionBudgets that cover the pods (``down`` is what they let go at once, the
    caller's count): the message names them instead of saying the operator creates none.
    ``roomless``: a pod of the component evicted in this wave finds no place; then a PDB only
    makes the drain wait until the node is stopped (or the upgrade stops), so no PDB is
    suggested: the pods need room (``pods-do-not-fit``) or a slower policy."""
    comp = target.component
    limit = max_unavailable(comp)
    if down <= limit:
        return None
    ready = comp.instance_count - down
    minimum = comp.min_ready_instance_count
    floor = f"minReadyInstanceCount {minimum}" if minimum is not None else \
        "minReadyInstanceCount unset (one pod at a time)"
    return Finding(
        YTSAURUS_BELOW_MIN_READY, "blocking",
        f"YTsaurus {target.ref}: {down} of {comp.instance_count} pods down at once in wave "
        f"{wave}, {max(ready, 0)} ready ({floor}; the operator itself takes at most {limit} "
        "down); " + _why(pdbs, down, wave, roomless),
        wave=wave, every_order=every_order, node=node, count=down, component=target.ref,
        suggestion=None if roomless else suggested_pdb(target), subject=target.ref)


def _why(pdbs: tuple[str, ...], down: int, wave: int, roomless: bool) -> str:
    if roomless:
        return (f"its evicted pods find no place in wave {wave} (pods-do-not-fit), so a "
                "PodDisruptionBudget would only hold the drain until the node is stopped: give "
                "them room or choose a slower deploy policy")
    if pdbs:
        return (f"PDB {', '.join(pdbs)} lets the drain take {down} at once: make it the "
                "suggested one")
    return ("it creates no PodDisruptionBudget, so the drain does not wait: add the suggested "
            "one")
