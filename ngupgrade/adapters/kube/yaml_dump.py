"""``kubectl get -o yaml`` dumps -> the JSON documents the collector reads.

kubectl writes YAML through ``sigs.k8s.io/yaml`` (JSON turned into YAML): every value is one
JSON would hold, strings that would read as something else are quoted
(``creationTimestamp: "2020-05-29T15:59:24Z"``, ``cpu: "1"``). Hand-edited files drop the
quotes, so the loader here keeps a YAML timestamp as the text it is (``deletionTimestamp:
2024-05-01T10:00:00Z`` stays a string, as JSON would have it), and a quantity YAML reads as a
number (``cpu: 1``, ``cpu: 0.5``, ``memory: 1.0e+3``) is read as that quantity by the shapes
(``shapes.Quantity``). ``---`` separates documents; each becomes one JSON document.

PyYAML's C loader (libyaml) when it is built in, else its Python one, within the bounds every
YAML reader shares (``adapters/documents.py``: alias bombs, nesting). It is slow next to
msgspec: 1,000 pods with their managedFields (4.7 MB of YAML) took 12 s on a busy 2-core
machine, where the same objects as JSON read in 0.03 s; JSON stays the form for big clusters
(docs/drain.md).
"""

from __future__ import annotations

from typing import Any

import msgspec
import yaml

from ngupgrade.adapters.documents import load_yaml_documents
from ngupgrade.adapters.kube.decode import EXPORT_HINT
from ngupgrade.core.errors import BadInput, NotYaml

_BASE: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _KubeLoader(_BASE):  # type: ignore[misc,valid-type]
    """Safe YAML without the timestamp type: a time stays the string kubectl's JSON has."""


_KubeLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

_ENCODE = msgspec.json.Encoder()


def yaml_documents(data: bytes, source: str) -> list[bytes]:
    """Every non-empty YAML document of ``data`` as JSON bytes, in order.

    Raises:
        BadInput: not YAML (the message names the line and column), out of the bounds of
            :mod:`ngupgrade.adapters.documents` (alias bombs, nesting), or a value JSON cannot
            hold (a key that is not a string), naming ``source``.
    """
    try:
        loaded = load_yaml_documents(data, source, _KubeLoader)
    except NotYaml as err:
        raise BadInput(f"neither JSON nor YAML: {err.detail}", source=source,
                       hint=EXPORT_HINT) from err
    out = []
    for number, doc in enumerate(loaded, 1):
        if not isinstance(doc, dict):
            where = f" (document {number})" if len(loaded) > 1 else ""
            raise BadInput(f"not a kubectl List or Kubernetes object{where}: the YAML holds "
                           f"a {type(doc).__name__}, not a mapping", source=source, path="$",
                           hint=EXPORT_HINT)
        try:
            out.append(_ENCODE.encode(doc))
        except TypeError as err:  # a mapping key YAML allows and JSON does not (`1: x`)
            raise BadInput(f"not a Kubernetes object: {err}", source=source,
                           hint=EXPORT_HINT) from err
    return out
