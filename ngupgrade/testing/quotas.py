"""Quota accounting of the fake cloud: usage moves with the node count, charged per node with
the core's catalog (:func:`ngupgrade.core.quota.catalog.node_consumption`,
docs/quota-preflight.md), so the fake and the preflight cannot disagree on what a node draws (GPUs
included).

The real service refuses a create that would pass a limit; the world then fails the version
update with RESOURCE_EXHAUSTED (the Yandex deploy-policy page, the max_expansion > 0 policy: the
operation stops when resources are short). A group whose node the catalog cannot place on quota ids
(no ``instance_template`` in the state, an unknown boot disk type, GPUs of an unknown platform) is
charged nothing: the preflight fails closed on such a group (``QuotaMappingUnknown``) before any
drill reaches its surge.
"""

from __future__ import annotations

from collections.abc import Mapping

from ngupgrade.core.errors import QuotaMappingUnknown
from ngupgrade.core.model import QuotaLimit
from ngupgrade.core.quota.catalog import node_consumption
from ngupgrade.testing.objects import FakeGroup

DEFAULT_CLOUD = "b1gfakecloud000000001"
"""The cloud of a folder the scenario does not place, when it lists no cloud or several."""


class QuotaBook:
    """Per cloud, quota id -> ``[limit, usage]`` (None = unset); ``tables`` may be edited."""

    def __init__(self, quotas: Mapping[str, Mapping[str, tuple[float | None, float | None]]],
                 folders: Mapping[str, str]) -> None:
        self.tables: dict[str, dict[str, list[float | None]]] = {
            cloud: {q: [lim, use] for q, (lim, use) in table.items()}
            for cloud, table in quotas.items()}
        self.folders = dict(folders)

    def cloud_of(self, folder_id: str) -> str:
        """The cloud of a folder (scenario ``clouds``; else the one cloud, else a default)."""
        if folder_id in self.folders:
            return self.folders[folder_id]
        if len(self.tables) == 1:
            return next(iter(self.tables))
        return DEFAULT_CLOUD

    def quota(self, cloud_id: str, quota_id: str) -> QuotaLimit:
        """One quota as the fake holds it now (limit and usage None when unknown)."""
        lim, use = self.tables.get(cloud_id, {}).get(quota_id, [None, None])
        return QuotaLimit(quota_id, lim, use)

    def charge(self, group: FakeGroup, nodes: int) -> str | None:
        """Charge ``nodes`` more nodes of ``group``; on a shortfall charge nothing and return the
        cloud's message naming the quota."""
        table = self.tables.get(self.cloud_of(group.folder_id), {})
        per_node = _per_node(group)
        for qid, per in per_node.items():
            if qid not in table:
                continue
            limit, usage = table[qid]
            need = per * nodes
            if limit is not None and (usage or 0) + need > limit:
                return (f"Quota limit {qid} exceeded: requested {need:g}, available "
                        f"{limit - (usage or 0):g} (limit {limit:g})")
        self._move(table, per_node, nodes)
        return None

    def release(self, group: FakeGroup, nodes: int) -> None:
        """Give back what ``nodes`` deleted nodes of ``group`` drew."""
        table = self.tables.get(self.cloud_of(group.folder_id), {})
        self._move(table, _per_node(group), -nodes)

    @staticmethod
    def _move(table: dict[str, list[float | None]], per_node: Mapping[str, int],
              nodes: int) -> None:
        for qid, per in per_node.items():
            if qid in table and table[qid][1] is not None:
                table[qid][1] = (table[qid][1] or 0) + per * nodes


def _per_node(group: FakeGroup) -> Mapping[str, int]:
    if group.spec is None:
        return {}
    try:
        return node_consumption(group.spec)
    except QuotaMappingUnknown:
        return {}
