"""Cluster dumps: kubectl's JSON or YAML from files or stdin -> a ClusterSnapshot
(``--cluster FILE``).

What users run (each file may hold any of these; several files merge)::

    kubectl get nodes,pods,pdb,deployments,replicasets,statefulsets,daemonsets,pvc,pv \\
        -A -o json > cluster.json
    kubectl get ytsaurus -A -o json > ytsaurus.json      # when the YTsaurus operator is used
    kubectl get nodes -o yaml > nodes.yaml                # YAML reads the same

Read as well: a typed list (``PodList``, as ``kubectl get --raw /api/v1/pods`` writes it), a
single object, a List inside a List, JSON documents one after another (``>>`` of several
exports, ``jq -c '.items[]'``) and YAML documents separated by ``---``. Parsing is
``decode.py``'s, shared with the live reader; YAML is first turned into JSON here.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ngupgrade.adapters.kube.decode import EXPORT_HINT, Collector, KubeRead
from ngupgrade.adapters.kube.yaml_dump import yaml_documents
from ngupgrade.core.errors import BadInput, UsageError
from ngupgrade.core.text import encoding_fault

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
            holds a bad value; a list with no ``kind`` (a YAML export cut off: kubectl
            writes ``kind: List`` after ``items``); the message names the file and the JSON
            path (exit 3).
    """
    if not paths:
        raise UsageError("no cluster dump given", hint=EXPORT_HINT)
    if sum(1 for p in paths if p == STDIN) > 1:
        raise UsageError("'-' (stdin) can be given only once")
    collector = Collector()
    for path in paths:
        _add(collector, _read(path), path)
    return collector.result()


def read_dump_bytes(data: bytes, source: str) -> KubeRead:
    """Read one file's bytes already in memory (tests, a dump fetched elsewhere): JSON or
    YAML, as :func:`read_dumps` reads a file."""
    collector = Collector()
    _add(collector, data, source)
    return collector.result()


def _add(collector: Collector, data: bytes, source: str) -> None:
    """JSON goes to the collector as it is; anything else is read as YAML, each document
    turned into JSON (``<source> (document N)`` when there are several)."""
    head = data[:4096].lstrip()
    if not head or head[:1] in (b"{", b"[") or encoding_fault(data) is not None:
        collector.add_document(data, source)  # JSON, or the collector's error for it
        return
    documents = yaml_documents(data, source)
    if not documents:
        raise BadInput("empty input, no Kubernetes objects", source=source, hint=EXPORT_HINT)
    for number, document in enumerate(documents, 1):
        name = source if len(documents) == 1 else f"{source} (document {number})"
        collector.add_document(document, name)


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
