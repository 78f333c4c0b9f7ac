"""The project's error tree: one base, few leaves, each with its exit code; and the one table
of exit codes (:data:`EXIT_CODES`).

Adapters translate foreign errors (``grpc.RpcError``, botocore errors, JSON errors,
subprocess failures) into these, always with ``raise ... from err``. ``ngupgrade.cli`` is
the one place where an error becomes an exit code and a printed line (README.md).

The tree (every error the tool raises on purpose is one of these)::

    NgUpgradeError
    ├── UsageError                 2
    ├── CheckFailed                1
    │   ├── PolicyInvalid
    │   ├── QuotaMappingUnknown    a node's resources placed on no quota id
    │   ├── ForeignOperation       another operation on the group during a step
    │   ├── GroupNotRunning        the operation succeeded, the group is stopping or stopped
    │   └── JournalBusy            another run holds the journal's lock
    ├── BadInput                   3
    │   └── NotYaml
    ├── CloudApiError              4
    │   └── OutcomeUnknown         an Update failed ambiguously, no operation listed yet
    ├── KubeApiError               4
    ├── OperationFailed            5
    ├── OperationTimeout           6
    │   └── Stalled
    └── UpgradeInterrupted         130

Exceptions defined elsewhere on purpose, none of which reaches the CLI as itself:

* ``ValueError`` subclasses of one parser, caught where it is called and turned into a
  :class:`BadInput` or a usage error naming the file or flag: ``core.duration.DurationError``
  (Go durations: ``cli/_duration`` and the state reader), ``adapters.state.yandex.WindowError``
  (a maintenance window: read softly, a state note), ``adapters.kube.quantity.QuantityError``
  and ``adapters.kube.build.Bad`` (Kubernetes quantities and objects: the dump reader's
  ``BadInput`` with the object's path);
* ``adapters.cloud.stop.Stopped`` is a ``KeyboardInterrupt`` (a stop request seen by every
  runner thread), so it takes the interrupted path (130) as Ctrl-C does;
* private control flow: ``cli._ReaderGone`` (the reader of stdout left), ``upgrade.pods._Lost``
  (a kind of Kubernetes read switched off during one look of the watch); the test kit's
  ``testing.objects.Refusal`` is the fake cloud's refusal of a call, sent over the wire as a
  gRPC status, never raised in ngupgrade.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_API = 4
EXIT_OPERATION_FAILED = 5
EXIT_TIMEOUT = 6
EXIT_BUG = 70
"""An internal error: a bug in ngupgrade (sysexits.h's EX_SOFTWARE); the CLI's catch-all."""
EXIT_IO = 74
"""The output (or a file ngupgrade writes, such as a journal) could not be written: a full disk,
an I/O error. sysexits.h's EX_IOERR; not a bug (70), not a failed check (1)."""
EXIT_INTERRUPTED = 130

EXIT_CODES: tuple[tuple[int, str], ...] = (
    (EXIT_OK, "success"),
    (EXIT_CHECK_FAILED, "a check failed"),
    (EXIT_USAGE, "usage error"),
    (EXIT_BAD_INPUT, "bad input"),
    (EXIT_API, "cloud or Kubernetes API error"),
    (EXIT_OPERATION_FAILED, "a cloud operation failed"),
    (EXIT_TIMEOUT, "timed out or stalled while the operation still runs (resumable)"),
    (EXIT_BUG, "a bug in ngupgrade"),
    (EXIT_IO, "the output or a file ngupgrade writes could not be written"),
    (EXIT_INTERRUPTED, "interrupted"),
)
"""Every exit code of ngupgrade and its meaning in short: the one table. README's table, the
root ``--help`` epilog and docs/ are checked against it (tests/test_exit_codes.py), and each
command's ``Exit codes:`` list names only these."""


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


class NotVerified(CheckFailed):
    """The upgrade's operation ended but its outcome did not verify (exit 1: a node not
    Ready, a version or size not reached); ``operation_id`` names the operation judged, as
    the ``verdict`` event does."""

    def __init__(self, message: str, *, operation_id: str | None, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.operation_id = operation_id


class PolicyInvalid(CheckFailed):
    """A deploy policy outside 0..100 or with both values 0 (the Yandex deploy-policy page;
    stackitcloud/terraform-provider-stackit#530)."""


class QuotaMappingUnknown(CheckFailed):
    """A node's resources cannot be placed on quota ids (exit 1): fail closed, never skip.

    The message names every group and the value that could not be mapped.
    """


class ForeignOperation(CheckFailed):
    """A new operation on the group is not the step's (exit 1); ``operation_id`` names it."""

    def __init__(self, message: str, *, operation_id: str, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.operation_id = operation_id


class GroupNotRunning(CheckFailed):
    """The operation succeeded but the group is STOPPING, STOPPED or DELETING (exit 1):
    the group's state, not an operation failure. ``operation_id`` names the operation."""

    def __init__(self, message: str, *, operation_id: str, hint: str) -> None:
        super().__init__(message, hint=hint)
        self.operation_id = operation_id


class JournalBusy(CheckFailed):
    """Another run holds the journal's lock (exit 1, like another operation in progress):
    nothing was changed."""

    def __init__(self, path: str, held_by: str) -> None:
        super().__init__(f"{path}: another ngupgrade run holds this journal: {held_by}; "
                         "nothing was changed",
                         hint="wait for that run to end (or stop it), then run the same "
                              "command with --resume; two runs never share a journal")


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


class NotYaml(BadInput):
    """The text is not YAML at all; ``detail`` is PyYAML's error on one line (a reader that
    tried JSON first says both)."""

    def __init__(self, detail: str, source: str) -> None:
        super().__init__(f"not YAML: {detail}", source=source)
        self.detail = detail


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


class OutcomeUnknown(CloudApiError):
    """An Update failed ambiguously and no operation it started is listed (yet).

    It may still have started one: the caller keeps its step open (never "not started").
    """


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
    """A cloud operation finished with an error (exit 5; hashicorp/terraform#15601).

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
    """The wait ended while the operation still runs (exit 6; yandex-cloud/python-sdk
    ``_operation_waiter.py``, terraform-google-modules/terraform-google-kubernetes-engine#939).
    Resumable."""

    exit_code = EXIT_TIMEOUT

    def __init__(self, message: str, *, operation_id: str | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.operation_id = operation_id


class Stalled(OperationTimeout):
    """No progress for the stall window while the operation still runs (exit 6;
    aws/containers-roadmap#1282)."""


class UpgradeInterrupted(NgUpgradeError):
    """Ctrl-C or SIGTERM during an upgrade (exit 130); the hint says how to resume. Nothing is
    cancelled. ``operation_id`` names the operation that keeps running in the cloud (the
    last one the journal holds open), None when none was started."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self, message: str, *, hint: str | None = None,
                 operation_id: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.operation_id = operation_id
