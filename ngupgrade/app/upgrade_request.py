"""The values of an ``ngupgrade upgrade`` run: the request (what the user asked for), its check
before anything is read, and the report (what the run did), shared by the sequential use case
(:mod:`ngupgrade.app.upgrade`), its gate (:mod:`ngupgrade.app.gate`) and the advised schedule
(:mod:`ngupgrade.app.scheduled`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ngupgrade.adapters.files import journal as jr
from ngupgrade.app.drain_check import ClusterSource
from ngupgrade.core.errors import UsageError
from ngupgrade.core.policy import check_overrides
from ngupgrade.upgrade.context import Prepared
from ngupgrade.upgrade.rules import parse_version
from ngupgrade.upgrade.values import GroupResult, PlannedCall, UpgradeOptions


@dataclass(frozen=True)
class UpgradeRequest:
    """The whole ``ngupgrade upgrade`` invocation.

    ``journal``: one file for a single group (default: one per group and target under
    ``journal_dir``, :func:`ngupgrade.adapters.files.journal.journal_dir`).
    ``quotas_file`` / ``cloud_id``: the preflight's quota source, as ``ngupgrade preflight``.
    ``cluster``: the cluster objects for the drain gate (none given: no drain gate);
    ``accept``: drain finding codes the user has read and proceeds past.
    """

    selectors: tuple[str, ...]
    options: UpgradeOptions
    apply: bool = False
    journal: str | None = None
    journal_dir: str = field(default_factory=jr.journal_dir)
    """The user's journal directory (``$NGUPGRADE_JOURNAL_DIR``, else the XDG state one)."""
    quotas_file: str | None = None
    cloud_id: str | None = None
    strict: bool = False
    cluster: ClusterSource = field(default_factory=ClusterSource)
    accept: frozenset[str] = frozenset()
    command: str = "ngupgrade upgrade"
    """The command line, written into the journal lock so a second run can name this one."""


@dataclass
class UpgradeReport:
    """What the run did: plans, the preflight and drain verdicts, planned calls, results,
    seconds."""

    prepared: list[Prepared] = field(default_factory=list)
    preflight: Any = None
    drain: Any = None
    calls: dict[str, list[PlannedCall]] = field(default_factory=dict)
    results: list[GroupResult] = field(default_factory=list)
    applied: bool = False
    seconds: float = 0.0


def check_request(request: UpgradeRequest) -> None:
    """Flags that contradict each other (exit 2) or an invalid override (exit 1)."""
    opts = request.options
    if not request.selectors:
        raise UsageError("name the node groups to upgrade with --group",
                         hint="`ngupgrade groups` lists them")
    if (opts.version is None) == (not opts.latest_revision):
        raise UsageError("give exactly one of --version V and --latest-revision")
    if opts.version is not None:
        parse_version(opts.version)  # a malformed version is a usage error before any call
    if opts.timeout is not None and opts.timeout <= 0:
        raise UsageError("--timeout must be a positive duration, e.g. 90m or 2h",
                         hint="to look without waiting, run without --apply")
    if opts.stall_after < 0:
        raise UsageError("--stall-after must be a duration >= 0 (0 turns the watchdog off)")
    if request.journal and len(request.selectors) > 1:
        raise UsageError("--journal names the journal of one node group",
                         hint=f"leave it out with several groups: each gets its own under "
                              f"{request.journal_dir}/")
    if request.cluster.files and request.cluster.live:
        raise UsageError("give the cluster objects one way: --cluster FILE or "
                         "--kubeconfig/--context, not both")
    check_overrides(opts.max_expansion, opts.max_unavailable)
