"""The cluster-objects options shared by drain-check, preflight and advise, and --accept."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from ngupgrade.core.errors import UsageError

if TYPE_CHECKING:
    from ngupgrade.app.drain_check import ClusterSource


def cluster_options(func: click.decorators.FC) -> click.decorators.FC:
    """``--cluster FILE`` (repeatable) or ``--kubeconfig``/``--context``: the cluster objects
    (shared by drain-check, preflight and advise)."""
    func = click.option(
        "--context", "kube_context", metavar="NAME",
        help="kubeconfig context to read (default: its current-context).")(func)
    func = click.option(
        "--kubeconfig", metavar="PATH",
        help="Read the cluster live, read-only (list calls only), through this kubeconfig "
             "(default: $KUBECONFIG, then ~/.kube/config). Its exec plugin (`yc k8s "
             "create-token`) is run on this machine, as kubectl runs it: pass only a "
             "kubeconfig from a trusted source (docs/drain.md).")(func)
    return click.option(
        "--cluster", "cluster_files", multiple=True, metavar="FILE",
        help="Cluster objects as kubectl writes them ('-' reads stdin; repeatable): kubectl get "
             "nodes,pods,pdb,deployments,replicasets,statefulsets,daemonsets,pvc,pv -A -o json "
             "(add `kubectl get ytsaurus -A -o json` for YTsaurus); -o yaml reads too, and "
             "several files (nodes, pods, PDBs apart) are one cluster.")(func)


def cluster_source(files: tuple[str, ...], kubeconfig: str | None,
                   context: str | None) -> ClusterSource:
    """The :class:`ClusterSource` the cluster options describe."""
    from ngupgrade.app.drain_check import ClusterSource  # the drain check loads on use only

    return ClusterSource(files=files, live=kubeconfig is not None or context is not None,
                         kubeconfig=kubeconfig, context=context)


def accepted_codes(codes: tuple[str, ...]) -> frozenset[str]:
    """Validate ``--accept`` codes against the drain check's stable codes.

    Raises:
        UsageError: an unknown code, naming the closest known one (exit 2).
    """
    from ngupgrade.core.drain.findings import CODES

    return known_codes(codes, CODES, "a drain-check finding code")


def known_codes(codes: tuple[str, ...], known: Sequence[str], what: str) -> frozenset[str]:
    """``codes`` (``--accept`` values) when each is one of ``known``; ``what`` names the kind
    in the error (``a plan warning code``).

    Raises:
        UsageError: an unknown code, naming the closest known one (exit 2).
    """
    for code in codes:
        if code not in known:
            close = difflib.get_close_matches(code, known, n=1)
            hint = f"did you mean {close[0]}?" if close else "codes: " + ", ".join(known)
            raise UsageError(f"--accept {code}: not {what}", hint=hint)
    return frozenset(codes)


def accept_option(func: click.decorators.FC) -> click.decorators.FC:
    """``--accept CODE`` (repeatable): proceed past drain findings the user has read."""
    return click.option(
        "--accept", "accept", multiple=True, metavar="CODE",
        help="Proceed past drain-check findings of this code (you have read them); "
             "repeatable. Codes: docs/drain.md.")(func)
