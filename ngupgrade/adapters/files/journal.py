"""The upgrade journal: what a runbook upgrade did so far, so that ``--resume`` can go on.

One JSON file per node group and target (default ``.ngupgrade/upgrade-<group id>-<target>.json``,
mode 0600, written atomically: a temporary file in the same directory, ``fsync``, then
``os.replace``). It records the starting point (version, node count, instance ids, live deploy
policy, the policy Terraform declares) and each step of the sequence with its operation id.

A step is ``started`` before its Update is sent, with the ids of the operations the group
already had (``known_operations``), so a crash between the Update and the write of its
operation id is recovered from ``ListOperations``: the new operation is the one not in that
list. Never a second Update for the same step (yandex-cloud/python-sdk ``_operation_waiter.py``,
terraform-google-modules/terraform-google-kubernetes-engine#939).

Shape (``format`` 1; keys may be added, never renamed)::

    {"format": 1, "group_id": "...", "address": "...", "name": "...",
     "target": "1.30" | null, "latest_revision": false,
     "start": {"version": "1.29", "nodes": 3, "node_ids": [...], "policy": {...} | null,
               "terraform_policy": {...} | null},
     "override": {"max_expansion": 2, "max_unavailable": 1} | null,
     "override_source": "override" | "advised", "restore_policy": true,
     "steps": {"<step>": {"status": "started" | "done", "operation_id": "op-2" | null,
                          "known_operations": [...], "started_at": ISO, "finished_at": ISO}},
     "outcome": null | "done" | "failed", "updated_at": ISO}
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

from ngupgrade.core.bounds import INT_LIMIT_MESSAGE, is_int_limit, too_deep, too_deep_message
from ngupgrade.core.errors import BadInput, JournalBusy
from ngupgrade.core.model import DeployPolicy
from ngupgrade.core.text import LONE_SURROGATE_MESSAGE, lone_surrogate_path

FORMAT = 1
LEGACY_DIR = ".ngupgrade"
"""Where journals were kept before they followed the group: ``./.ngupgrade/`` of the working
directory. A journal found there is moved to :func:`journal_dir` by :class:`JournalLock`."""
DEFAULT_DIR = LEGACY_DIR  # kept for callers that name a directory relative to theirs
ENV_DIR = "NGUPGRADE_JOURNAL_DIR"

STEP_POLICY = "policy_update"
STEP_VERSION = "version_update"
STEP_VERIFY = "verify"
STEP_RESTORE = "restore_policy"
STEPS = (STEP_POLICY, STEP_VERSION, STEP_VERIFY, STEP_RESTORE)
"""The journaled steps, in the order of the sequence."""


def journal_dir(environ: Mapping[str, str] | None = None) -> str:
    """The user's one journal directory, absolute: ``$NGUPGRADE_JOURNAL_DIR``, else
    ``$XDG_STATE_HOME/ngupgrade``, else ``~/.local/state/ngupgrade``.

    The XDG Base Directory Specification puts state that should persist between restarts
    (such as a history of actions) in ``$XDG_STATE_HOME``, and says a relative value is to be
    ignored (https://specifications.freedesktop.org/basedir-spec/latest/). One directory per
    user, whatever the working directory: a resumed upgrade finds the journal its start wrote.
    ``environ`` defaults to ``os.environ``.
    """
    env = os.environ if environ is None else environ
    chosen = env.get(ENV_DIR)
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    state = env.get("XDG_STATE_HOME", "")
    if not os.path.isabs(state):
        state = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "ngupgrade")


def default_path(group_id: str, target: str | None, directory: str | None = None) -> str:
    """``<journal_dir()>/upgrade-<group id>-<target>.json`` (``latest-revision`` without a
    version), absolute; ``directory`` replaces :func:`journal_dir`."""
    label = target or "latest-revision"
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", f"upgrade-{group_id}-{label}")
    return os.path.abspath(os.path.join(directory or journal_dir(), f"{safe}.json"))


def legacy_path(group_id: str, target: str | None) -> str:
    """Where a version before the journal directory kept this journal: ``./.ngupgrade/``."""
    return default_path(group_id, target, LEGACY_DIR)


def _now_iso(clock: Callable[[], float] | None = None) -> str:
    """Now as UTC ISO text; ``clock`` gives seconds since the epoch (default: the host's)."""
    if clock is None:
        return datetime.now(timezone.utc).isoformat(timespec="seconds")
    return datetime.fromtimestamp(clock(), timezone.utc).isoformat(timespec="seconds")


def policy_json(policy: DeployPolicy | None) -> dict[str, int] | None:
    """``{"max_expansion", "max_unavailable"}`` or None."""
    if policy is None:
        return None
    return {"max_expansion": policy.max_expansion, "max_unavailable": policy.max_unavailable}


def policy_from(raw: Any) -> DeployPolicy | None:
    """The inverse of :func:`policy_json`."""
    if raw is None:
        return None
    return DeployPolicy(int(raw["max_expansion"]), int(raw["max_unavailable"]))


@dataclass
class StepRecord:
    """One step: ``started`` before its Update, ``done`` once verified."""

    status: str = "started"
    operation_id: str | None = None
    known_operations: list[str] = field(default_factory=list)
    started_at: str = ""
    finished_at: str | None = None

    def seconds(self) -> float | None:
        """Seconds from ``started_at`` to ``finished_at``; None unless both are read."""
        began, ended = iso_seconds(self.started_at), iso_seconds(self.finished_at)
        return None if began is None or ended is None else max(ended - began, 0.0)


def iso_seconds(text: str | None) -> float | None:
    """Seconds since the epoch of a journal's ISO time (as :func:`_now_iso` writes it); None
    for an empty or unreadable one (an old or hand-edited journal)."""
    if not text:
        return None
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


@dataclass
class Journal:
    """The record of one group's upgrade. ``save`` writes it (atomically) when a path is set."""

    group_id: str
    address: str
    name: str
    target: str | None
    latest_revision: bool
    start_version: str
    start_nodes: int
    start_node_ids: list[str]
    start_policy: DeployPolicy | None
    terraform_policy: DeployPolicy | None
    override: DeployPolicy | None
    restore_policy: bool
    steps: dict[str, StepRecord] = field(default_factory=dict)
    override_source: Literal["override", "advised"] = "override"
    """Who chose ``override``: ``override`` (``--max-expansion``/``--max-unavailable``) or
    ``advised`` (the stage of ``upgrade --schedule advised``); a resumed upgrade's plan names
    its policy so. A journal written before this key: ``override``."""
    outcome: str | None = None
    done_node_ids: list[str] = field(default_factory=list)
    """The old nodes (of ``start_node_ids``) the version step's wait saw done: gone, or
    updated in place and back Ready. A resumed wait starts its progress from them (a node
    updated in place keeps its id: the cloud's node list alone cannot tell it). A journal
    written before this key: none."""
    path: str | None = None
    writer: Callable[[str, str], None] | None = None
    clock: Callable[[], float] | None = None
    """Seconds since the epoch for ``started_at``/``finished_at`` (the run's Timing.wall,
    compared with the cloud's operation times); None is the host's clock."""

    # -- steps ------------------------------------------------------------------------------

    def step(self, name: str) -> StepRecord | None:
        """The record of ``name``, or None when the step has not started."""
        return self.steps.get(name)

    def is_done(self, name: str) -> bool:
        """True when step ``name`` finished."""
        rec = self.steps.get(name)
        return rec is not None and rec.status == "done"

    def start_step(self, name: str, known_operations: list[str]) -> StepRecord:
        """Record that ``name`` is about to send its Update (saved before the call)."""
        rec = StepRecord(known_operations=list(known_operations),
                         started_at=_now_iso(self.clock))
        self.steps[name] = rec
        self.save()
        return rec

    def set_operation(self, name: str, operation_id: str) -> None:
        """Record the operation id of step ``name`` (saved at once)."""
        rec = self.steps.setdefault(name, StepRecord(started_at=_now_iso(self.clock)))
        rec.operation_id = operation_id
        self.save()

    def finish_step(self, name: str) -> None:
        """Mark ``name`` done (saved)."""
        rec = self.steps.setdefault(name, StepRecord(started_at=_now_iso(self.clock)))
        rec.status = "done"
        rec.finished_at = _now_iso(self.clock)
        self.save()

    def record_done(self, node_ids: list[str]) -> None:
        """Record the old nodes seen done so far (saved when they changed)."""
        ids = sorted(node_ids)
        if ids != self.done_node_ids:
            self.done_node_ids = ids
            self.save()

    def finish(self, outcome: str) -> None:
        """Record the end of the upgrade: ``done`` or ``failed``."""
        self.outcome = outcome
        self.save()

    # -- file -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The journal as the documented JSON shape."""
        return {
            "format": FORMAT,
            "group_id": self.group_id,
            "address": self.address,
            "name": self.name,
            "target": self.target,
            "latest_revision": self.latest_revision,
            "start": {
                "version": self.start_version,
                "nodes": self.start_nodes,
                "node_ids": list(self.start_node_ids),
                "policy": policy_json(self.start_policy),
                "terraform_policy": policy_json(self.terraform_policy),
            },
            "override": policy_json(self.override),
            "override_source": self.override_source,
            "restore_policy": self.restore_policy,
            "steps": {
                name: {
                    "status": rec.status,
                    "operation_id": rec.operation_id,
                    "known_operations": rec.known_operations,
                    "started_at": rec.started_at,
                    "finished_at": rec.finished_at,
                }
                for name, rec in self.steps.items()
            },
            "outcome": self.outcome,
            "done_node_ids": list(self.done_node_ids),
            "updated_at": _now_iso(self.clock),
        }

    @classmethod
    def from_json(cls, raw: Any, path: str | None = None) -> Journal:
        """Read the documented shape; every value of the type :meth:`to_json` writes, counts
        within :data:`MAX_COUNT`.

        Raises:
            BadInput: naming the file and the JSON path of the first value that is not.
        """
        read = _Fields(path)
        doc = read.obj(raw, "$")
        if doc.get("format") != FORMAT:
            raise BadInput(f"unknown journal format {doc.get('format')!r}", source=path)
        start = read.obj(doc.get("start"), "$.start")
        steps = read.obj(doc.get("steps") or {}, "$.steps")
        return cls(
            group_id=read.text(doc.get("group_id"), "$.group_id"),
            address=read.text(doc.get("address", ""), "$.address"),
            name=read.text(doc.get("name", ""), "$.name"),
            target=read.text(doc.get("target"), "$.target", optional=True),
            latest_revision=read.flag(doc.get("latest_revision", False), "$.latest_revision"),
            start_version=read.text(start.get("version"), "$.start.version"),
            start_nodes=read.count(start.get("nodes"), "$.start.nodes"),
            start_node_ids=read.texts(start.get("node_ids") or [], "$.start.node_ids"),
            start_policy=read.policy(start.get("policy"), "$.start.policy"),
            terraform_policy=read.policy(start.get("terraform_policy"),
                                         "$.start.terraform_policy"),
            override=read.policy(doc.get("override"), "$.override"),
            override_source=("advised" if doc.get("override_source") == "advised"
                             else "override"),
            restore_policy=read.flag(doc.get("restore_policy", False), "$.restore_policy"),
            steps={read.text(name, "$.steps"): read.step(rec, f"$.steps.{name}")
                   for name, rec in steps.items()},
            outcome=read.text(doc.get("outcome"), "$.outcome", optional=True),
            done_node_ids=read.texts(doc.get("done_node_ids") or [], "$.done_node_ids"),
            path=path,
        )

    def save(self) -> None:
        """Write the journal to :attr:`path` atomically with mode 0600 (no-op without a path)."""
        if self.path is None:
            return
        text = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
        (self.writer or write_atomic)(self.path, text)


MAX_COUNT = 100_000
"""The largest node count or deploy-policy value a journal may hold: above any platform's
limit (Kubernetes supports clusters of up to 5,000 nodes,
https://kubernetes.io/docs/setup/best-practices/cluster-large/)."""


class _Fields:
    """The typed reads of :meth:`Journal.from_json`, each raising BadInput at its path."""

    def __init__(self, source: str | None) -> None:
        self.source = source

    def _bad(self, want: str, value: Any, where: str) -> BadInput:
        shown = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
        return BadInput(f"journal not understood: expected {want}, found {shown[:60]}",
                        source=self.source, path=where, hint=_START_OVER)

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self._bad("an object", value, where)
        return value

    def text(self, value: Any, where: str, optional: bool = False) -> Any:
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self._bad("a string", value, where)
        return value

    def texts(self, value: Any, where: str) -> list[str]:
        if not isinstance(value, list):
            raise self._bad("a list of strings", value, where)
        return [self.text(item, f"{where}[{i}]") for i, item in enumerate(value)]

    def flag(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self._bad("true or false", value, where)
        return value

    def count(self, value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) \
                or not 0 <= value <= MAX_COUNT:
            raise self._bad(f"a whole number from 0 to {MAX_COUNT}", value, where)
        return value

    def policy(self, value: Any, where: str) -> DeployPolicy | None:
        if value is None:
            return None
        obj = self.obj(value, where)
        return DeployPolicy(self.count(obj.get("max_expansion"), f"{where}.max_expansion"),
                            self.count(obj.get("max_unavailable"), f"{where}.max_unavailable"))

    def step(self, value: Any, where: str) -> StepRecord:
        rec = self.obj(value, where)
        return StepRecord(
            status=self.text(rec.get("status", "started"), f"{where}.status"),
            operation_id=self.text(rec.get("operation_id"), f"{where}.operation_id",
                                   optional=True),
            known_operations=self.texts(rec.get("known_operations") or [],
                                        f"{where}.known_operations"),
            started_at=self.text(rec.get("started_at", ""), f"{where}.started_at"),
            finished_at=self.text(rec.get("finished_at"), f"{where}.finished_at",
                                  optional=True),
        )


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a 0600 temporary file and ``os.replace``.

    Raises BadInput when the directory cannot be created or written.
    """
    directory = os.path.dirname(os.path.abspath(path))
    try:
        make_private_dir(directory)
        fd, tmp = tempfile.mkstemp(prefix=".journal-", suffix=".tmp", dir=directory)
    except OSError as err:
        raise BadInput(f"cannot write the journal: {err.strerror}", source=path) from err
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o600)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise BadInput(f"cannot write the journal: {err.strerror}", source=path) from err


def load(path: str) -> Journal | None:
    """The journal at ``path``, or None when there is none.

    Raises:
        BadInput: a symbolic link or not a regular file (never followed: the journal is
            replaced on every write, and a planted link would point that write elsewhere),
            unreadable, not JSON or not UTF-8, nested past the bound of
            :mod:`ngupgrade.core.bounds`, an integer over Python's digit limit, a lone
            surrogate, or a shape this version does not know.
    """
    try:
        fd = open_no_follow(path, os.O_RDONLY, "journal")
    except FileNotFoundError:
        return None
    try:
        with os.fdopen(fd, encoding="utf-8") as fh:
            raw = json.load(fh)
    except OSError as err:
        raise BadInput(f"cannot read the journal: {err.strerror}", source=path) from err
    except json.JSONDecodeError as err:
        raise BadInput(f"journal is not JSON: {err.msg} (line {err.lineno})", source=path,
                       hint=_START_OVER) from err
    except UnicodeDecodeError as err:
        raise BadInput(f"journal is not UTF-8 text (byte {err.start})", source=path,
                       hint=_START_OVER) from err
    except RecursionError as err:  # nested thousands deep: ngupgrade never writes that
        raise BadInput("journal nested too deeply", source=path, hint=_START_OVER) from err
    except ValueError as err:  # an integer past Python's digit limit (json.loads's int())
        if not is_int_limit(err):
            raise
        raise BadInput(f"journal {INT_LIMIT_MESSAGE}", source=path, hint=_START_OVER) from err
    deep = too_deep(raw)
    if deep is not None:
        raise BadInput(f"journal {too_deep_message()}", source=path, path=deep,
                       hint=_START_OVER)
    where = lone_surrogate_path(raw)
    if where is not None:
        raise BadInput(f"journal {LONE_SURROGATE_MESSAGE}", source=path, path=where,
                       hint=_START_OVER)
    return Journal.from_json(raw, path)


_START_OVER = "delete it to start over; resume then uses the cloud's own record of operations"


def open_no_follow(path: str, flags: int, what: str, mode: int = 0o600) -> int:
    """``os.open`` that never follows a symbolic link at ``path`` and accepts only a regular
    file (``O_NOFOLLOW``; a FIFO or device is opened non-blocking, then refused).

    Returns the open descriptor. Raises FileNotFoundError as ``os.open`` does (the caller
    decides whether a missing file is news), and BadInput naming ``path`` for a link, a file
    that is not regular, or any other OSError.
    """
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0),
                     mode)
    except (FileNotFoundError, FileExistsError):
        raise
    except OSError as err:
        if err.errno == errno.ELOOP or os.path.islink(path):
            raise BadInput(f"{what} is a symbolic link: refused (ngupgrade never follows a "
                           "link at its journal or lock, which it writes)", source=path,
                           hint="remove the link; the journal directory should be yours "
                                "alone (mode 0700)") from err
        raise BadInput(f"cannot open the {what}: {err.strerror}", source=path) from err
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise BadInput(f"{what} is not a regular file: refused", source=path,
                       hint="remove it; ngupgrade writes its journals and locks itself")
    os.set_blocking(fd, True)
    return fd


def make_private_dir(directory: str) -> None:
    """Create ``directory`` and each missing parent with mode 0700, as the XDG Base Directory
    Specification asks of a state directory; an existing one is left as it is.

    Raises OSError as ``os.mkdir`` does (a file in the way, no permission).
    """
    missing: list[str] = []
    here = os.path.abspath(directory)
    while not os.path.isdir(here):
        missing.append(here)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    for one in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another run made it meanwhile
            os.mkdir(one, 0o700)
        with contextlib.suppress(OSError):
            os.chmod(one, 0o700)  # the umask may have taken bits from the owner


class JournalLock:
    """An exclusive lock on one journal, so two runs cannot share it.

    The journal itself is replaced atomically on every write, so the lock is a sidecar file
    ``<journal>.lock`` held with ``flock(LOCK_EX | LOCK_NB)`` for the whole run; it records who
    holds it (pid, host, since, command line) for the refusal of the next run. Released (and
    removed) on exit; a lock left by a killed process is free again, as the kernel drops it.

    Raises (on enter):
        JournalBusy: another live process holds it; the message names the holder.
        BadInput: the lock file cannot be created.
    """

    def __init__(self, path: str, holder: str, legacy: str | None = None) -> None:
        self.path = path
        self.lock_path = path + ".lock"
        self.holder = holder
        self.legacy = legacy
        self.moved_from: str | None = None
        """The old place the journal was moved from (``legacy``), once held."""
        self._fd: int | None = None

    def __enter__(self) -> JournalLock:
        import fcntl

        directory = os.path.dirname(os.path.abspath(self.lock_path))
        for _ in range(5):
            try:
                make_private_dir(directory)
            except OSError as err:
                raise BadInput(f"cannot lock the journal: {err.strerror}",
                               source=self.lock_path) from err
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                held = _read_holder(fd)
                os.close(fd)
                raise JournalBusy(self.path, held) from None
            # The previous holder may have removed the file between our open and our lock:
            # then we hold a lock on a file nobody else can see; open the path again.
            try:
                same = os.fstat(fd).st_ino == os.lstat(self.lock_path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.write(fd, self.holder.encode("utf-8", "replace"))
                self._fd = fd
                try:
                    self._adopt_legacy()
                except BaseException:
                    self.__exit__()
                    raise
                return self
            os.close(fd)
        raise JournalBusy(self.path, "another run (the lock kept changing hands)")

    def _open(self) -> int:
        """The lock file, created new (``O_EXCL``) or, when a previous run left it, opened
        as it is; never through a link, and only a regular file."""
        try:
            return open_no_follow(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_EXCL,
                                  "journal lock")
        except FileExistsError:
            pass
        try:
            return open_no_follow(self.lock_path, os.O_RDWR, "journal lock")
        except FileNotFoundError:  # removed by its holder between the two opens
            return open_no_follow(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_EXCL,
                                  "journal lock")

    def _adopt_legacy(self) -> None:
        """Move a journal left at :attr:`legacy` (``./.ngupgrade/``) to :attr:`path` when
        none is there yet, holding the old place's lock too (a run of an older version may
        still hold it: then JournalBusy). The old file is removed only once the new one is
        written; a failure leaves it where it was."""
        legacy = self.legacy
        if legacy is None or os.path.abspath(legacy) == os.path.abspath(self.path) \
                or os.path.lexists(self.path) or not os.path.lexists(legacy):
            return
        with JournalLock(legacy, self.holder):
            try:
                fd = open_no_follow(legacy, os.O_RDONLY, "journal")
            except FileNotFoundError:
                return
            try:
                with os.fdopen(fd, "rb") as fh:
                    text = fh.read().decode("utf-8")
            except OSError as err:
                raise BadInput(f"cannot read the journal: {err.strerror}", source=legacy) from err
            except UnicodeDecodeError as err:
                raise BadInput(f"journal is not UTF-8 text (byte {err.start})", source=legacy,
                               hint=_START_OVER) from err
            write_atomic(self.path, text)
            with contextlib.suppress(OSError):
                os.unlink(legacy)
        self.moved_from = os.path.abspath(legacy)

    def __exit__(self, *exc: object) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.lock_path)  # while still held: nobody can take the old file
        os.close(self._fd)
        self._fd = None


def _read_holder(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 2000).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text or "another run (it did not say who)"


def holder_text(command: str) -> str:
    """``pid 1234 on host ci-7 since 2026-12-01T10:00:00+00:00: ngupgrade upgrade ...``."""
    import socket

    return (f"pid {os.getpid()} on host {socket.gethostname()} since {_now_iso()}: "
            f"{command}")
