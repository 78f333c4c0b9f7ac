"""``Ytsaurus`` objects (cluster.ytsaurus.tech/v1) -> components with their pods' labels.

the YTsaurus docs, "Стратегии обновления YTsaurus": the operator keeps ``minReadyInstanceCount`` of
a component's ``instanceCount`` pods up; the drain check holds node-group waves to the same bound,
so it needs each component's counts and the labels that select its pods.

The labels come from the operator's labeller (ytsaurus/ytsaurus-k8s-operator, read at commit
2d6a6c0): ``pkg/labeller/labeller.go`` ``GetSelectorLabelMap`` selects a component's pods by
``yt_component=<resource name>-<component label>[-<group>]``, where the component label is
``pkg/consts/labels.go`` ``ComponentLabel`` (``yt-http-proxy``...) and the group is the
proxies' ``role`` or the nodes' ``name``, left out when empty or ``default``
(``getGroupName``); secondary masters use their cell tag as the group
(``pkg/ytconfig/generator.go`` ``GetMasterLabeller``). This is the one label the operator
itself lists pods by; it has the same form before and after the 2024 relabelling (#326),
whereas ``app.kubernetes.io/part-of`` only exists since then (``yt-<cluster name>``), so it is
not relied on.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from ngupgrade.adapters.kube import shapes as s
from ngupgrade.adapters.kube.build import Bad
from ngupgrade.core import k8s

COMPONENT_LABEL = "yt_component"
DEFAULT_GROUP = "default"

# spec key -> (component label, is a list of groups, the group field)
COMPONENTS: dict[str, tuple[str, bool, str | None]] = {
    "discovery": ("yt-discovery", False, None),
    "primaryMasters": ("yt-master", False, None),
    "secondaryMasters": ("yt-master", True, "cellTag"),
    "masterCaches": ("yt-master-cache", False, None),
    "cypressProxies": ("yt-cypress-proxy", False, None),
    "httpProxies": ("yt-http-proxy", True, "role"),
    "rpcProxies": ("yt-rpc-proxy", True, "role"),
    "tcpProxies": ("yt-tcp-proxy", True, "role"),
    "kafkaProxies": ("yt-kafka-proxy", True, "role"),
    "dataNodes": ("yt-data-node", True, "name"),
    "execNodes": ("yt-exec-node", True, "name"),
    "tabletNodes": ("yt-tablet-node", True, "name"),
    "schedulers": ("yt-scheduler", False, None),
    "controllerAgents": ("yt-controller-agent", False, None),
    "queryTrackers": ("yt-query-tracker", False, None),
    "queueAgents": ("yt-queue-agent", False, None),
    "yqlAgents": ("yt-yql-agent", False, None),
    "bundleController": ("yt-bundle-controller", False, None),
    "tabletBalancers": ("yt-tablet-balancer", False, None),
    "ui": ("yt-ui", False, None),
}
"""The components with an ``instanceCount`` (``api/v1/ytsaurus_types.go`` ``YtsaurusSpec``).
``strawberry`` has no instance count and is not listed."""

_ONE = msgspec.json.Decoder(s.YtInstances | None)
_MANY = msgspec.json.Decoder(list[s.YtInstances] | None)


def _group(entry: s.YtInstances, field: str | None) -> str:
    if field == "role":
        value = entry.role or ""
    elif field == "name":
        value = entry.name or ""
    elif field == "cellTag":
        value = "" if entry.cell_tag is None else str(entry.cell_tag)
    else:
        value = ""
    return "" if value == DEFAULT_GROUP else value


def _entries(key: str, raw: msgspec.Raw) -> Iterator[tuple[str, s.YtInstances]]:
    """(path below ``spec``, entry); msgspec's errors carry the path inside ``raw``."""
    _label, many, _field = COMPONENTS[key]
    if many:
        for i, entry in enumerate(_MANY.decode(raw) or ()):
            yield f"{key}[{i}]", entry
    else:
        single = _ONE.decode(raw)
        if single is not None:
            yield key, single


def ytsaurus(obj: s.Ytsaurus) -> k8s.Ytsaurus:
    """A ``Ytsaurus`` object -> :class:`k8s.Ytsaurus`, one component per spec entry with an
    ``instanceCount`` above 0 (a component of 0 instances has no pods to protect).

    Raises:
        Bad: no name, a component entry of the wrong shape or a negative count (path inside
            the object).
    """
    meta = obj.metadata
    name = meta.name
    if not name:
        raise Bad("missing metadata.name", "metadata")
    components: list[k8s.YtComponent] = []
    for key, raw in (obj.spec or {}).items():
        if key not in COMPONENTS:
            continue
        label, _many, field = COMPONENTS[key]
        try:
            entries = list(_entries(key, raw))
        except msgspec.ValidationError as err:
            text = str(err)
            inner = text.split(" - at `$", 1)
            message = inner[0]
            path = f"spec.{key}" + (inner[1].rstrip("`") if len(inner) == 2 else "")
            raise Bad(message, path) from err
        for path, entry in entries:
            for field_name in ("instance_count", "min_ready_instance_count"):
                value = getattr(entry, field_name)
                if value is not None and value < 0:
                    camel = "instanceCount" if field_name == "instance_count" \
                        else "minReadyInstanceCount"
                    raise Bad(f"must not be negative: {value}", f"spec.{path}.{camel}")
            if not entry.instance_count:
                continue
            group = _group(entry, field)
            selector = f"{name}-{label}" + (f"-{group}" if group else "")
            components.append(k8s.YtComponent(
                kind=key, name=group, instance_count=entry.instance_count,
                min_ready_instance_count=entry.min_ready_instance_count,
                pod_labels={COMPONENT_LABEL: selector},
            ))
    return k8s.Ytsaurus(meta.namespace or "default", name, tuple(components))
