"""One parser behind both inputs: kubectl JSON (``--cluster FILE``) and live API list pages.

:class:`Collector` takes documents one at a time (a dump file, or one page of a list call)
and builds a :class:`~ngupgrade.core.k8s.ClusterSnapshot` at the end. A document is a kubectl
``List`` (items of mixed kinds, each with its ``kind``), a typed list as the API returns it
(``PodList``: items without ``kind``) or a single object. Items of kinds the drain check does
not read (Service, Event...) are skipped and counted in the notes.

Speed: the document's ``items`` are first cut into undecoded slices (:class:`msgspec.Raw`,
no copy), then each is decoded straight into the typed shape of its kind, picked by msgspec
from the ``kind`` tag; only the fields in ``shapes.py`` become Python objects.

Errors: every bad value becomes one :class:`~ngupgrade.core.errors.BadInput` naming the
source and the JSON path (``cluster.json: $.items[12].spec.containers[0].resources.requests.cpu:
not a quantity: '1x'``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from ngupgrade.adapters.kube import build
from ngupgrade.adapters.kube import shapes as s
from ngupgrade.adapters.kube.ytsaurus_objects import ytsaurus
from ngupgrade.core import k8s
from ngupgrade.core.errors import BadInput
from ngupgrade.core.text import encoding_fault, encoding_fix, encoding_message

EXPORT_HINT = ("export the objects with: kubectl get nodes,pods,pdb,deployments,replicasets,"
               "statefulsets,daemonsets,pvc,pv -A -o json > cluster.json")

CUT_OFF_MESSAGE = ("the file looks cut off: kubectl writes kind: List at the end, and this "
                   "document has items and no kind")
"""A document with ``items`` and no ``kind``. kubectl writes every list with its kind, after
``items``: both printers sort the keys (``-o json`` by encoding/json's map order, ``-o yaml``
through sigs.k8s.io/yaml), so ``apiVersion, items, kind, metadata``. A YAML file cut anywhere
in ``items`` still parses and would read as fewer objects; JSON cut off does not parse."""
CUT_OFF_HINT = ("export it again, to a new file (not over the input): kubectl get nodes,pods,"
                "pdb -A -o yaml > cluster-new.yaml")

_DOCUMENT = msgspec.json.Decoder(s.Document)
_ANY = msgspec.json.Decoder(s.Object)
_TYPED: dict[str, msgspec.json.Decoder[Any]] = {
    kind: msgspec.json.Decoder(shape) for kind, shape in s.KINDS.items()}
_LIST_KINDS = {f"{kind}List": kind for kind in s.KINDS}
_AT_PATH = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_UNKNOWN_KIND = re.compile(r"^Invalid value '(?P<kind>[^']*)' - at `\$\.kind`$")
_TRAILING = re.compile(r"trailing characters \(byte (?P<at>[0-9]+)\)")

Key = tuple[str, str]


@dataclass(frozen=True)
class KubeRead:
    """What reading a cluster gave: the snapshot and one line per thing left out on purpose
    (kinds not read, duplicates, the Ytsaurus CRD missing on a live cluster)."""

    snapshot: k8s.ClusterSnapshot
    notes: tuple[str, ...] = ()


class Collector:
    """Accumulates objects from documents; :meth:`result` sorts and deduplicates them.

    Objects are keyed by kind, namespace and name: the same object read twice (a file given
    twice, two overlapping exports) counts once, the last copy wins. Each tuple of the
    snapshot is sorted by (namespace, name), so the order of files or pages never matters.
    """

    def __init__(self) -> None:
        self._nodes: dict[str, k8s.Node] = {}
        self._pods: dict[Key, k8s.Pod] = {}
        self._pdbs: dict[Key, k8s.PodDisruptionBudget] = {}
        self._workloads: dict[tuple[str, str, str], k8s.Workload] = {}
        self._pvcs: dict[Key, k8s.PersistentVolumeClaim] = {}
        self._pvs: dict[str, k8s.PersistentVolume] = {}
        self._yts: dict[Key, k8s.Ytsaurus] = {}
        self._read = 0
        self._skipped: Counter[str] = Counter()
        self.notes: list[str] = []

    # ---- documents --------------------------------------------------------------------------

    def add_document(self, data: bytes, source: str) -> str | None:
        """Read one JSON document; return the list's ``metadata.continue`` token, if any.

        Raises:
            BadInput: empty, not JSON or truncated, not a Kubernetes object or list, or a value
                of the wrong type or out of range (names ``source`` and the path); not UTF-8
                text (UTF-16, a byte order mark, bytes of another encoding, a lone ``\\udXXX``
                escape: names the byte offset and line, and how to export or convert it).
        """
        try:
            return self._add_document(data, source)
        except BadInput as err:
            cause = err.__cause__
            if isinstance(cause, msgspec.DecodeError) and not isinstance(
                    cause, msgspec.ValidationError):
                _refuse_not_text(data, source, err.path)
            raise

    def _add_document(self, data: bytes, source: str) -> str | None:
        if not data.strip():
            raise BadInput("empty input, no Kubernetes objects", source=source, hint=EXPORT_HINT)
        doc, end = _first_document(data)
        if end is None:
            return self._add_one(data, doc, source)
        # JSON documents one after another (`kubectl get nodes -o json > f; kubectl get pods
        # -o json >> f`, `jq -c '.items[]'`): each is a document of its own, named by number
        number = 0
        while data:
            number += 1
            self._add_one(data[:end], doc, f"{source} (document {number})")
            data = data[end:].lstrip()
            doc, end = _first_document(data)
            end = len(data) if end is None else end
        return None

    def _add_one(self, data: bytes, doc: s.Document | None, source: str) -> str | None:
        if doc is None:
            doc = _decode(_DOCUMENT, data, source, "$")
        kind = doc.kind or ""
        if doc.items is not None and not kind:
            raise BadInput(CUT_OFF_MESSAGE, source=source, path="$", hint=CUT_OFF_HINT)
        if doc.items is not None or kind == "List" or kind in _LIST_KINDS:
            self._add_list(doc, source, "$")
        elif kind in _TYPED:
            self._add(_decode(_TYPED[kind], data, source, "$"), source, "$")
        elif kind:
            self._skipped[kind] += 1
        else:
            raise BadInput("not a kubectl List or Kubernetes object: no \"kind\" and no "
                           "\"items\"", source=source, path="$", hint=EXPORT_HINT)
        return (doc.metadata.continue_ or None) if doc.metadata else None

    def _add_list(self, doc: s.Document, source: str, path: str) -> None:
        """A list's items: a typed list (``PodList``) decodes them as its kind (a PDB gets the
        list's apiVersion); a ``List`` by each item's own ``kind``; a list of other kinds
        (``ServiceList``) is counted as skipped."""
        kind = doc.kind or ""
        items = doc.items or []
        if kind in _LIST_KINDS:
            self._add_typed(items, _LIST_KINDS[kind], source, path, doc.api_version)
        elif kind in ("List", ""):
            self._add_mixed(items, source, path)
        else:
            self._skipped[kind.removesuffix("List")] += len(items)

    def _add_typed(self, items: list[msgspec.Raw], kind: str, source: str, base: str,
                   api_version: str | None) -> None:
        decoder = _TYPED[kind]
        for i, raw in enumerate(items):
            path = f"{base}.items[{i}]"
            obj = _decode(decoder, raw, source, path)
            if isinstance(obj, s.PodDisruptionBudget) and obj.api_version is None:
                obj.api_version = api_version
            self._add(obj, source, path)

    def _add_mixed(self, items: list[msgspec.Raw], source: str, base: str) -> None:
        decode = _ANY.decode
        for i, raw in enumerate(items):
            path = f"{base}.items[{i}]"
            try:
                obj = decode(raw)
            except msgspec.ValidationError as err:
                unknown = _UNKNOWN_KIND.match(str(err))
                if unknown is None:
                    _raise(err, source, path)
                kind = unknown["kind"]  # type: ignore[index]
                if kind == "List" or kind in _LIST_KINDS:
                    # a List inside a List: kubectl's -f reader takes it
                    # (k8s.io/apimachinery pkg/util/manifest testdata, nested lists)
                    self._add_list(_decode(_DOCUMENT, raw, source, path), source, path)
                else:
                    self._skipped[kind] += 1
                continue
            except msgspec.DecodeError as err:
                _raise(err, source, path)
            self._add(obj, source, path)

    def _add(self, obj: Any, source: str, path: str) -> None:
        self._read += 1
        try:
            _STORE[type(obj)](self, obj)
        except build.Bad as err:
            raise BadInput(err.message, source=source, path=f"{path}.{err.path}") from err

    # ---- the result -------------------------------------------------------------------------

    def count(self) -> int:
        """Objects read so far (duplicates included, skipped kinds not)."""
        return self._read

    def result(self) -> KubeRead:
        """The snapshot of everything added, with the notes."""
        notes = list(self.notes)
        if self._skipped:
            kinds = ", ".join(f"{kind} ({n})" for kind, n in sorted(self._skipped.items()))
            notes.append(f"skipped {sum(self._skipped.values())} objects of kinds the drain "
                         f"check does not read: {kinds}")
        kept = (len(self._nodes) + len(self._pods) + len(self._pdbs) + len(self._workloads)
                + len(self._pvcs) + len(self._pvs) + len(self._yts))
        if kept < self._read:
            notes.append(f"{self._read - kept} objects were read more than once (the last "
                         f"copy counts)")
        snapshot = k8s.ClusterSnapshot(
            nodes=_sorted(self._nodes), pods=_sorted(self._pods), pdbs=_sorted(self._pdbs),
            workloads=_sorted(self._workloads), pvcs=_sorted(self._pvcs), pvs=_sorted(self._pvs),
            ytsaurus=_sorted(self._yts),
        )
        notes += self._missing_volumes(snapshot.pods)
        return KubeRead(snapshot, tuple(notes))

    def _missing_volumes(self, pods: Sequence[k8s.Pod]) -> list[str]:
        """A note when pods use claims (or bound volumes) the objects lack: a local
        PersistentVolume pins its pod to the node (docs/drain.md, Rule 4), and without the
        PVC and PV that cannot be judged, so ``local-volume-pinned`` may be missed."""
        missing: list[str] = []
        for pod in pods:
            for volume in pod.volumes:
                if volume.claim_name is None:
                    continue
                claim = self._pvcs.get((pod.namespace, volume.claim_name))
                if claim is None:
                    missing.append(f"{pod.ref} (claim {volume.claim_name})")
                elif claim.volume_name and claim.volume_name not in self._pvs:
                    missing.append(f"{pod.ref} (volume {claim.volume_name})")
        if not missing:
            return []
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return [f"{len(missing)} PersistentVolumeClaim volume(s) of pods lack their "
                f"PersistentVolumeClaim or PersistentVolume in the cluster objects "
                f"({', '.join(missing[:3])}{more}): whether they are local volumes that pin "
                "the pod to its node cannot be judged; add pvc,pv to `kubectl get`"]

    # ---- per kind (dispatch table below) --------------------------------------------------

    def _node(self, obj: s.Node) -> None:
        value = build.node(obj)
        self._nodes[value.name] = value

    def _pod(self, obj: s.Pod) -> None:
        value = build.pod(obj)
        self._pods[value.namespace, value.name] = value

    def _pdb(self, obj: s.PodDisruptionBudget) -> None:
        value = build.pdb(obj)
        self._pdbs[value.namespace, value.name] = value

    def _workload(self, obj: Any) -> None:
        value = build.workload(obj)
        self._workloads[value.kind, value.namespace, value.name] = value

    def _pvc(self, obj: s.PersistentVolumeClaim) -> None:
        value = build.pvc(obj)
        self._pvcs[value.namespace, value.name] = value

    def _pv(self, obj: s.PersistentVolume) -> None:
        value = build.pv(obj)
        self._pvs[value.name] = value

    def _ytsaurus(self, obj: s.Ytsaurus) -> None:
        value = ytsaurus(obj)
        self._yts[value.namespace, value.name] = value


_STORE: dict[type, Callable[[Collector, Any], None]] = {
    s.Node: Collector._node,
    s.Pod: Collector._pod,
    s.PodDisruptionBudget: Collector._pdb,
    s.Deployment: Collector._workload,
    s.ReplicaSet: Collector._workload,
    s.StatefulSet: Collector._workload,
    s.DaemonSet: Collector._workload,
    s.ReplicationController: Collector._workload,
    s.PersistentVolumeClaim: Collector._pvc,
    s.PersistentVolume: Collector._pv,
    s.Ytsaurus: Collector._ytsaurus,
}


def _sorted(values: dict[Any, Any]) -> tuple[Any, ...]:
    return tuple(values[key] for key in sorted(values))


def _first_document(data: bytes) -> tuple[s.Document | None, int | None]:
    """The top of ``data`` and, when more JSON follows the first value, where it ends.

    (doc, None): one document (doc None when it does not decode; :meth:`Collector._add_one`
    then says why, with the path); (None, n): a first document of ``n`` bytes, then more.
    """
    try:
        return _DOCUMENT.decode(data), None
    except msgspec.ValidationError:
        return None, None
    except msgspec.DecodeError as err:
        # msgspec names the byte after the first one that follows the value
        trailing = _TRAILING.search(str(err))
        return None, (int(trailing["at"]) - 1 if trailing is not None else None)
    except RecursionError:
        return None, None


def _decode(decoder: msgspec.json.Decoder[Any], data: bytes | msgspec.Raw, source: str,
            path: str) -> Any:
    try:
        return decoder.decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError) as err:
        _raise(err, source, path, data if path == "$" else None)
    except RecursionError as err:  # nested thousands deep: no real object is
        raise BadInput("JSON nested too deeply to be a Kubernetes object", source=source,
                       path=path) from err


def _refuse_not_text(data: bytes, source: str, path: str | None) -> None:
    """After the JSON decoder refused ``data``: when it is not UTF-8 text, say so, where (byte
    offset, line) and how to get a UTF-8 dump, instead of "not valid JSON".

    Raises:
        BadInput: the fault of :func:`ngupgrade.core.text.encoding_fault`, if any.
    """
    fault = encoding_fault(data)
    if fault is None:
        return
    raise BadInput(encoding_message(fault), source=source, path=path,
                   hint=encoding_fix(fault, source, writer="kubectl", default="cluster.json",
                                     again=EXPORT_HINT,
                                     utf16_note="PowerShell's `>` writes UTF-16; `kubectl get "
                                                "... -o json | Set-Content -Encoding "
                                                "utf8NoBOM cluster.json` writes UTF-8"))


def _raise(err: Exception, source: str, path: str, whole: Iterable[int] | None = None
           ) -> None:
    if isinstance(err, msgspec.ValidationError):
        match = _AT_PATH.match(str(err))
        assert match is not None
        inner = match["path"] or ""
        raise BadInput(match["msg"], source=source, path=path + inner) from err
    hint = "is the file complete? a cut-off download or export looks like this"
    if whole is not None and bytes(whole)[:64].lstrip()[:1] not in (b"{", b"["):
        hint = "this reads as YAML or text; export JSON with -o json"
    raise BadInput(f"not valid JSON: {err}", source=source, path=path, hint=hint) from err
