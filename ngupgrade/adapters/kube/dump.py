"""Cluster dumps: kubectl's JSON from files or stdin -> a ClusterSnapshot (``--cluster FILE``).

What users run (each file may hold any of these; several files merge)::

    kubectl get nodes,pods,pdb,deployments,replicasets,statefulsets,daemonsets,pvc,pv \\
        -A -o json > cluster.json
    kubectl get ytsaurus -A -o json > ytsaurus.json      # when the YTsaurus operator is used

A typed list (``PodList``, as ``kubectl get --raw /api/v1/pods`` writes it) and a single
object are read too. Parsing is ``decode.py``'s, shared with the live reader.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ngupgrade.adapters.kube.decode import EXPORT_HINT, Collector, KubeRead
from ngupgrade.core.errors import BadInput, UsageError

STDIN = "-"


def read_dumps(paths: Sequence[str]) -> KubeRead:
    """Read every file (``-`` is stdin, at most once) into one snapshot.

    Args:
        paths: file paths or ``-``, in any order (objects are sorted by namespace and name).

    Returns:
        The snapshot and notes (kinds skipped, objects read twice).

    Raises:
        UsageError: no path, ``-`` given twice, or stdin is a terminal (exit 2).
        BadInput: a file that cannot be read, is not JSON (truncated, not UTF-8, YAML), or
            holds a bad value; the message names the file and the JSON path (exit 3).
    """
    if not paths:
        raise UsageError("no cluster dump given", hint=EXPORT_HINT)
    if sum(1 for p in paths if p == STDIN) > 1:
        raise UsageError("'-' (stdin) can be given only once")
    collector = Collector()
    for path in paths:
        collector.add_document(_read(path), path)
    return collector.result()


def read_dump_bytes(data: bytes, source: str) -> KubeRead:
    """Read one document already in memory (tests, a dump fetched elsewhere)."""
    collector = Collector()
    collector.add_document(data, source)
    return collector.result()


def _read(path: str) -> bytes:
    if path == STDIN:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("'-' reads the cluster dump from stdin, but stdin is a terminal",
                             hint="pipe it: kubectl get ... -A -o json | ngupgrade ... -")
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except IsADirectoryError as err:
        raise BadInput("is a directory, not a cluster dump", source=path) from err
    except OSError as err:
        raise BadInput(f"cannot read: {err.strerror or err}", source=path,
                       hint=EXPORT_HINT) from err
