"""The ``ngupgrade`` key of every JSON report: which tool version made it, from what.

Pure. Stable keys (added, never renamed)::

    "ngupgrade": {"version": "0.1.0", "command": "preflight",
                  "inputs": {"state": "terraform.tfstate" | null, "plan": SOURCE | null,
                             "endpoint": "HOST:PORT" | null,
                             "options": {"groups": ["workers"], "quotas_file": "q.yaml", ...}}}

``state`` is the state source as given (``./terraform.tfstate`` when none was, unless a
Terraform plan was read instead); ``endpoint`` null means no endpoint was set (offline, or
the public API); ``options`` are the command's own options as it read them, defaults
included, options left unset omitted (``set-policy``'s ``--apply`` as ``apply`` and, the
first name it had, ``apply_``). A report without these cannot be reproduced: the same
numbers come from the same state, quota file and flags.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ngupgrade.core.redact import redact_values

DEFAULT_STATE = "./terraform.tfstate"


def report_header(version: str, command: str | None, *, state: str | None, plan: str | None,
                  endpoint: str | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """The value of the ``ngupgrade`` key (shape in the module docstring); a URL's
    credentials in an input are hidden (:func:`ngupgrade.core.redact.redact_values`)."""
    return {
        "version": version,
        "command": command,
        "inputs": redact_values({
            "state": state or (None if plan else DEFAULT_STATE),
            "plan": plan,
            "endpoint": endpoint,
            "options": _options(options),
        }),
    }


def _options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options that were set, each under its Python name; one that Python spells with a
    trailing ``_`` (``apply_`` for ``--apply``) is written under its flag's name too
    (``apply``, as ``upgrade`` writes it), and the old name stays: JSON keys are added, never
    renamed."""
    out = {k: list(v) if isinstance(v, tuple) else v
           for k, v in options.items() if v is not None and v != ()}
    for key in [k for k in out if k.endswith("_")]:
        out.setdefault(key.rstrip("_"), out[key])
    return out
