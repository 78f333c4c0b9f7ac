"""The JSON shape of a failure: what ``--output json`` prints when a command fails.

Pure. Stable keys (new keys may be added, none renamed)::

    {"code": "usage"|"check-failed"|"policy-invalid"|"bad-input"|"cloud-api"|"kube-api"|
             "operation-failed"|"timeout"|"stalled"|"interrupted"|"internal",
     "exit_code": int, "message": str, "hint": str|null, "operation_id": str|null,
     ...and where the error has them: "source", "path" (bad input: the file and the JSON path
     in it), "grpc_code", "request_id" (cloud API), "http_status" (Kubernetes API: the
     status the server answered with, null when none), "operation_error" {"code", "code_name",
     "message"} (a failed operation)}

``code`` names the kind of failure, one per exit code except 1 (a failed check or an invalid
deploy policy), 4 (the cloud API, or the Kubernetes API) and 6 (a deadline, or a stall); the
exit code stays the contract (README).
"""

from __future__ import annotations

from typing import Any

from ngupgrade.core.errors import (
    BadInput,
    CloudApiError,
    KubeApiError,
    NgUpgradeError,
    OperationFailed,
    OperationTimeout,
    PolicyInvalid,
    Stalled,
    UpgradeInterrupted,
    UsageError,
)
from ngupgrade.core.redact import redact_values

# Most specific first: a Stalled is an OperationTimeout, a PolicyInvalid a CheckFailed.
_CODES: tuple[tuple[type[NgUpgradeError], str], ...] = (
    (UsageError, "usage"),
    (PolicyInvalid, "policy-invalid"),
    (BadInput, "bad-input"),
    (CloudApiError, "cloud-api"),
    (KubeApiError, "kube-api"),
    (OperationFailed, "operation-failed"),
    (Stalled, "stalled"),
    (OperationTimeout, "timeout"),
    (UpgradeInterrupted, "interrupted"),
)


def error_code(err: NgUpgradeError) -> str:
    """The ``code`` of one of the project's errors (any other NgUpgradeError: check-failed)."""
    return next((code for kind, code in _CODES if isinstance(err, kind)), "check-failed")


def error_json(code: str, exit_code: int, message: str, hint: str | None,
               err: BaseException | None = None) -> dict[str, Any]:
    """The ``error`` object; ``err`` adds the details it carries (operation id, file, gRPC);
    a URL's credentials are hidden (:func:`ngupgrade.core.redact.redact_values`)."""
    doc: dict[str, Any] = {"code": code, "exit_code": exit_code, "message": message,
                           "hint": hint, "operation_id": getattr(err, "operation_id", None)}
    if isinstance(err, BadInput):
        doc.update(source=err.source, path=err.path)
    elif isinstance(err, CloudApiError):
        doc.update(grpc_code=err.code, request_id=err.request_id)
    elif isinstance(err, KubeApiError):
        doc["http_status"] = err.status
    elif isinstance(err, OperationFailed):
        doc["operation_error"] = {"code": err.code, "code_name": err.code_name,
                                  "message": err.error_message}
    return redact_values(doc)  # type: ignore[no-any-return]
