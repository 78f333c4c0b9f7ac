"""Events of a runbook upgrade, for the progress display and the NDJSON log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """One thing that happened, for the progress display and the NDJSON log.

    ``kind``: ``group_started``, ``step_started``, ``step_finished``, ``step_skipped``,
    ``operation`` (an Update answered, or an operation attached), ``progress``, ``note``,
    ``reminder`` (keep Terraform in step), ``verdict``. ``group`` is the Terraform address;
    ``at`` the seconds since the run began (injected clock); ``data`` the kind's fields.
    """

    kind: str
    group: str
    at: float
    data: dict[str, Any] = field(default_factory=dict)


Emit = Callable[[Event], None]
