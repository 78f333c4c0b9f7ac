"""The scripted faults of a fake cloud, and the questions the world and the servicers ask them.

The fault values come from the scenario file (:class:`~ngupgrade.testing.scenario.Fault`);
this module decides when one fires and counts down its ``times``. No gRPC: a refusal is a
:class:`~ngupgrade.testing.objects.Refusal` with a status name.
"""

from __future__ import annotations

from collections.abc import Iterable

from ngupgrade.testing.objects import FakeGroup, Refusal
from ngupgrade.testing.scenario import STATUS_CODES, Fault

RPC_KINDS = ("rpc_error", "permission_denied")


def status_name(code: str | int) -> str:
    """A gRPC status name from a name or a google.rpc code number (unknown numbers: UNKNOWN)."""
    if isinstance(code, str):
        return code
    return STATUS_CODES[code] if 0 <= code < len(STATUS_CODES) else "UNKNOWN"


def status_number(code: str | int) -> int:
    """The google.rpc code number of a status name or number."""
    return code if isinstance(code, int) else STATUS_CODES.index(code)


class FaultBook:
    """The faults in force, in scenario order (the first that matches fires)."""

    def __init__(self, faults: Iterable[Fault] = ()) -> None:
        self.items: list[Fault] = list(faults)

    def add(self, fault: Fault) -> None:
        """Script one more fault."""
        self.items.append(fault)

    def rpc_refusal(self, method: str, target: FakeGroup | None) -> Refusal | None:
        """The refusal a call of ``Service.Method`` about ``target`` (the node group its request
        names, if any) meets, spending one of the fault's ``times``; None when none fires."""
        for f in self.items:
            if f.kind not in RPC_KINDS or f.method not in ("*", method):
                continue
            if f.group is not None and (target is None or not target.matches(f.group)):
                continue
            if f.times is not None:
                if f.times <= 0:
                    continue
                f.times -= 1
            code = status_name(f.code)
            return Refusal(code, f.message or f"fake: {code}")
        return None

    def at_step(self, kind: str, group: FakeGroup, step: int) -> Fault | None:
        """The ``stall`` or ``operation_error`` fault of ``group`` set for ``step``."""
        for f in self.items:
            if f.kind == kind and f.at_step == step and group.matches(f.group):
                return f
        return None

    def all_at_step(self, kind: str, group: FakeGroup, step: int) -> list[Fault]:
        """Every fault of ``kind`` of ``group`` set for ``step`` (``kube_error``: several
        paths may fail at once)."""
        return [f for f in self.items
                if f.kind == kind and f.at_step == step and group.matches(f.group)]

    def lag(self, kind: str, group: FakeGroup) -> float:
        """Seconds of ``running_after_update`` or ``reconciling_after_done`` for ``group``."""
        for f in self.items:
            if f.kind == kind and group.matches(f.group):
                return f.seconds
        return 0.0

    def policy_ignored(self, group: FakeGroup) -> bool:
        """True when a deploy-policy change of ``group`` is to be dropped
        (Azure/azure-cli#19902)."""
        return any(f.kind == "policy_ignored" and group.matches(f.group) for f in self.items)

    def take_deadline_after_apply(self, group: FakeGroup) -> bool:
        """True (spending one of its ``times``) when an Update of ``group`` is to answer
        DEADLINE_EXCEEDED after it applied."""
        for f in self.items:
            if f.kind == "deadline_after_apply" and group.matches(f.group) \
                    and (f.times is None or f.times > 0):
                if f.times is not None:
                    f.times -= 1
                return True
        return False

    def take_extra_conflict(self) -> str | None:
        """The operation id of an ``operation_in_progress`` fault with refusals left after its
        blocker finished (spending one), else None."""
        for f in self.items:
            if f.kind == "operation_in_progress" and f.times and f.times > 0:
                f.times -= 1
                return f.operation_id
        return None
