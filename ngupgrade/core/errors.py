"""The project's error tree: one base, few leaves, each with its exit code.

Adapters translate foreign errors (``grpc.RpcError``, botocore errors, JSON errors,
subprocess failures) into these, always with ``raise ... from err``. ``ngupgrade.cli`` is
the one place where an error becomes an exit code and a printed line (DESIGN.md section 5).

Exit codes:
    0 success; 1 a check failed (quota short, policy invalid); 2 usage error;
    3 bad input (state, quota file or cluster dump); 4 cloud or Kubernetes API error;
    5 a cloud operation failed; 6 timed out or stalled while the operation still runs
    (resumable); 130 interrupted.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_API = 4
EXIT_OPERATION_FAILED = 5
EXIT_TIMEOUT = 6
EXIT_INTERRUPTED = 130


class NgUpgradeError(Exception):
    """Base of every error the tool raises on purpose; ``exit_code`` says how the CLI exits."""

    exit_code: int = EXIT_CHECK_FAILED

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class UsageError(NgUpgradeError):
    """Flags that contradict each other or name nothing (exit 2)."""

    exit_code = EXIT_USAGE


class CheckFailed(NgUpgradeError):
    """A check said no: invalid deploy policy, short quota, policy that did not take (exit 1)."""

    exit_code = EXIT_CHECK_FAILED


class PolicyInvalid(CheckFailed):
    """A deploy policy outside 0..100 or with both values 0 (seed 000; field report C05)."""


class BadInput(NgUpgradeError):
    """A state or quota file that cannot be read, parsed or understood (exit 3).

    ``source`` names the file (or ``s3://``, ``tf:DIR``, ``-``), ``path`` the JSON path inside it.
    """

    exit_code = EXIT_BAD_INPUT

    def __init__(
        self, message: str, *, source: str | None = None, path: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = ": ".join(p for p in (source, path) if p)
        super().__init__(f"{where}: {message}" if where else message, hint=hint)
        self.source = source
        self.path = path


class CloudApiError(NgUpgradeError):
    """A cloud API call failed (exit 4): gRPC code name, message and request id when known."""

    exit_code = EXIT_API

    def __init__(
        self, message: str, *, code: str | None = None, request_id: str | None = None,
        hint: str | None = None,
    ) -> None:
        parts = [message]
        if code:
            parts.append(f"[{code}]")
        if request_id:
            parts.append(f"(request id {request_id})")
        super().__init__(" ".join(parts), hint=hint)
        self.code = code
        self.request_id = request_id


class KubeApiError(NgUpgradeError):
    """Reading the Kubernetes API failed (exit 4): connection refused, 401/403, TLS, a bad
    kubeconfig or an unknown context. ``status`` is the HTTP status when the server answered.

    The default hint points at the kubeconfig and the context, where nearly all of these start.
    """

    exit_code = EXIT_API
    HINT = ("check --kubeconfig (default: $KUBECONFIG, then ~/.kube/config) and --context "
            "(`kubectl config get-contexts`); for Yandex Managed Kubernetes, "
            "`yc managed-kubernetes cluster get-credentials NAME --external` writes them")

    def __init__(self, message: str, *, status: int | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message, hint=hint or self.HINT)
        self.status = status


class OperationFailed(NgUpgradeError):
    """A cloud operation finished with an error (exit 5; field report C10).

    ``code`` is the google.rpc code number, ``code_name`` its name (e.g. FAILED_PRECONDITION).
    """

    exit_code = EXIT_OPERATION_FAILED

    def __init__(
        self, operation_id: str, code: int, code_name: str, error_message: str,
        *, hint: str | None = None,
    ) -> None:
        super().__init__(
            f"operation {operation_id} failed: {code_name} ({code}): {error_message}", hint=hint
        )
        self.operation_id = operation_id
        self.code = code
        self.code_name = code_name
        self.error_message = error_message


class OperationTimeout(NgUpgradeError):
    """The wait ended while the operation still runs (exit 6; field reports C11, C12). Resumable."""

    exit_code = EXIT_TIMEOUT

    def __init__(self, message: str, *, operation_id: str | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.operation_id = operation_id


class Stalled(OperationTimeout):
    """No progress for the stall window while the operation still runs (exit 6; C15)."""
