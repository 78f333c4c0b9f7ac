"""Offline Selectel project quotas: ``preflight --quotas FILE`` for a Selectel state.

The format (JSON or YAML) is the shape of Selectel's project quotas (resource -> one entry
per pool segment, ``value`` and ``used``; the provider's ``quotas.GetProjectQuotas``), under
the project they belong to::

    project_id: 9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50   # required: the node groups' project_id
    quotas:
      compute_cores:                  # vCPUs
        - {region: ru-7, zone: ru-7a, value: 40, used: 30}
      compute_ram:                    # MB
        - {region: ru-7, zone: ru-7a, value: 163840, used: 122880}
      volume_gigabytes_fast:          # GB (also _universal, _basic, _local)
        - {region: ru-7, zone: ru-7a, value: 1000, used: 600}

``zone`` is required (quotas are per pool segment), ``region`` optional; ``value`` and
``used`` are non-negative whole numbers. Validation is strict: an unknown key anywhere is
bad input that names the closest known key; every fault is a ``BadInput`` (exit 3) naming the
file and the JSON path. The result is a :class:`~ngupgrade.adapters.files.quota_file.QuotaFile`
whose one "cloud" is the project and whose quota ids are ``<resource>.<zone>``
(:mod:`ngupgrade.core.quota.selectel`).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from ngupgrade.adapters.files.quota_file import (
    QuotaFile,
    decode_quota_text,
    kind_of,
    read_quota_text,
    refuse_other_form,
)
from ngupgrade.core.errors import BadInput
from ngupgrade.core.model import QuotaLimit
from ngupgrade.core.quota.selectel import RESOURCES, quota_id

TOP_KEYS = ("project_id", "quotas")
ENTRY_KEYS = ("region", "zone", "value", "used")


def read_project_quota_file(path: str) -> QuotaFile:
    """Read and validate a Selectel project quota file.

    Raises:
        BadInput: unreadable, neither JSON nor YAML, a wrong shape (file and JSON path), or
            a Yandex cloud's quota file (said so plainly: ``quota_file.refuse_other_form``).
    """
    data = decode_quota_text(read_quota_text(path), path)
    refuse_other_form(data, path, "selectel")
    return parse_project_quotas(data, path)


def parse_project_quotas(data: Any, source: str) -> QuotaFile:
    """Validate a decoded document (see the module docstring) into a :class:`QuotaFile`.

    Raises:
        BadInput: naming ``source`` and the JSON path of the first fault.
    """
    if not isinstance(data, dict):
        raise BadInput(f"expected an object with project_id and quotas, found {kind_of(data)}",
                       source=source, path="$")
    _known_keys(data, TOP_KEYS, "$", source)
    project = data.get("project_id")
    if not isinstance(project, str) or not project:
        raise BadInput("project_id must be a non-empty string (the node groups' project_id)",
                       source=source, path="$.project_id")
    quotas = data.get("quotas")
    if not isinstance(quotas, dict) or not quotas:
        raise BadInput(f"quotas must be an object of resource -> [per-zone entries], found "
                       f"{kind_of(quotas)}", source=source, path="$.quotas")
    _known_keys(quotas, RESOURCES, "$.quotas", source)
    limits: dict[str, QuotaLimit] = {}
    for resource, entries in quotas.items():
        where = f"$.quotas.{resource}"
        if not isinstance(entries, list):
            raise BadInput(f"expected a list of per-zone entries, found {kind_of(entries)}",
                           source=source, path=where)
        for i, entry in enumerate(entries):
            limit = _entry(resource, entry, f"{where}[{i}]", source)
            if limit.quota_id in limits:
                raise BadInput(f"zone {limit.quota_id.split('.', 1)[1]} appears twice",
                               source=source, path=f"{where}[{i}].zone")
            limits[limit.quota_id] = limit
    return QuotaFile(source=source, clouds={project: limits})


def _entry(resource: str, entry: Any, path: str, source: str) -> QuotaLimit:
    if not isinstance(entry, dict):
        raise BadInput(f"expected {{zone, value, used}}, found {kind_of(entry)}", source=source,
                       path=path)
    _known_keys(entry, ENTRY_KEYS, path, source)
    zone = entry.get("zone")
    if not isinstance(zone, str) or not zone:
        raise BadInput("zone must be a non-empty string (a pool segment such as ru-7a)",
                       source=source, path=f"{path}.zone")
    region = entry.get("region")
    if region is not None and not isinstance(region, str):
        raise BadInput(f"region must be a string, found {kind_of(region)}", source=source,
                       path=f"{path}.region")
    return QuotaLimit(quota_id(resource, zone), _whole(entry, "value", path, source),
                      _whole(entry, "used", path, source))


def _whole(entry: dict[str, Any], key: str, path: str, source: str) -> float:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadInput(f"{key} must be a whole number >= 0, found {value!r}", source=source,
                       path=f"{path}.{key}")
    return float(value)


def _known_keys(obj: dict[Any, Any], known: Iterable[str], path: str, source: str) -> None:
    """Refuse a key that is not in ``known``, naming the closest known one."""
    names = list(known)
    for key in obj:
        if key not in names:
            close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.5)
            hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(names)}"
            raise BadInput(f"unknown key {key!r} ({hint})", source=source,
                           path=f"{path}.{key}")
