"""A version update over time: one step of the platform's procedure
(:mod:`ngupgrade.testing.procedure`) per ``step_seconds``, with the scripted ``stall`` and
``operation_error`` faults and the quota charge of every create.

Step ``k`` (1-based) happens at ``created + k * step_seconds``; the operation ends at the time
of its last step (an empty group: after one step). ``step_seconds`` 0 does everything at once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Protocol

from ngupgrade.testing.faults import FaultBook, status_number
from ngupgrade.testing.objects import FakeGroup, FakeOperation
from ngupgrade.testing.procedure import apply_step, next_step, step_bound
from ngupgrade.testing.quotas import QuotaBook
from ngupgrade.testing.scenario import Fault

RESOURCE_EXHAUSTED = 8  # google.rpc.Code

End = tuple[float, "tuple[int, str] | None"]


class Kube(Protocol):
    """The fake Kubernetes API's follower (:class:`ngupgrade.testing.kube_follow.KubeFollower`)."""

    def follow(self, groups: Iterable[FakeGroup], now: float) -> None: ...

    def drained_at(self, g: FakeGroup) -> float | None: ...

    def inject(self, fault: Fault) -> None: ...
"""When a version update ended, and its error (google.rpc code, message) if it failed."""


def run_due_steps(g: FakeGroup, op: FakeOperation, now: float, step_seconds: float,
                  faults: FaultBook, quotas: QuotaBook, kube: Kube | None = None) -> End | None:
    """Apply the steps of ``op`` due by ``now``; returns how it ended, or None while it runs
    (or stalls). A failed step is not applied; a create short of quota creates nothing and
    fails the operation with RESOURCE_EXHAUSTED (the Yandex deploy-policy page, the max_expansion >
    0 policy).

    With ``kube`` (the fake Kubernetes API following the upgrade,
    :mod:`ngupgrade.testing.kube_follow`) the cluster follows each step at its time, and the
    step after a drain waits until the drained nodes are empty or stopped at the drain
    timeout: the later steps move by as much (``op.delay``).
    """
    while True:
        base = op.created + op.delay
        due = int((now - base) // step_seconds) if step_seconds > 0 else math.inf
        step = next_step(g, op)
        if step is None:  # complete; an empty group still takes one step
            return (base + max(1, op.applied) * step_seconds, None) if due >= 1 else None
        number = op.applied + 1
        if number > due or faults.at_step("stall", g, number - 1) is not None \
                or faults.at_step("detach_stuck", g, number - 1) is not None:
            return None
        at = base + number * step_seconds
        if kube is not None and step[0] in ("update_in_place", "delete"):
            kube.follow([g], now)
            done = kube.drained_at(g)
            if done is None:
                return None  # the drain goes on: looked at again at the next tick
            if done > at:
                op.delay += done - at
                continue
        if faults.at_step("autoscaler_delete", g, number) is not None \
                and _autoscaler_delete(g, op, quotas):
            step = next_step(g, op)
            if step is None:
                return at, None
        failure = faults.at_step("operation_error", g, number)
        if failure is not None:
            return at, (status_number(failure.code), failure.message)
        action, count = step
        if action == "create":
            short = quotas.charge(g, count)
            if short is not None:
                return at, (RESOURCE_EXHAUSTED, short)
        elif action == "delete":
            quotas.release(g, count)
        before = {m.instance_id: (m.drained, m.version) for m in g.members}
        applied = apply_step(g, action, count, op.target_version)
        op.steps.append(applied)
        op.history.append(f"{action} {count} -> {applied.group_size} nodes")
        op.applied += 1
        _node_faults(g, op, number, before, faults)
        if kube is not None:
            kube.follow([g], at)
            for f in faults.all_at_step("kube_error", g, number):
                kube.inject(f)
        if op.applied > step_bound(op.start_nodes + op.removed):  # pragma: no cover - a fake bug
            raise RuntimeError(f"fake cloud: upgrade of {g.id} did not converge")


def _node_faults(g: FakeGroup, op: FakeOperation, number: int,
                 before: dict[str, tuple[bool, str]], faults: FaultBook) -> None:
    """The node faults set for step ``number``, on the nodes that step touched."""
    touched = [m for m in g.members if before.get(m.instance_id) != (m.drained, m.version)]
    if faults.at_step("node_not_ready", g, number) is not None:
        for m in touched:
            if not m.drained and m.version == op.target_version:  # created or updated
                m.ready = False
    if faults.at_step("detach_stuck", g, number) is not None:
        for m in touched:
            if m.drained:
                m.stopped, m.ready = True, False
                m.volumes = [f"fhm{m.instance_id[-8:]}pv"]


def _autoscaler_delete(g: FakeGroup, op: FakeOperation, quotas: QuotaBook) -> bool:
    """Azure/AKS#5340: the cluster autoscaler deletes the newest Ready node already on the new
    version (empty and new: a scale-down candidate). False when there is none."""
    victim = next((m for m in reversed(g.members) if m.version == op.target_version
                   and m.ready and not m.drained), None)
    if victim is None:
        return False
    g.members.remove(victim)
    quotas.release(g, 1)
    op.removed += 1
    op.history.append(f"autoscaler deleted {victim.instance_id} -> {g.nodes} nodes")
    return True
