"""Attributes of terraform-provider-selectel's Managed Kubernetes resources exactly as the
provider writes them into a state: every attribute of the schema present.

Provider: ``selectel/terraform-provider-selectel`` @ 605324057b2520f84df0e4b65b94de868b7c55a2
(after v8.3.0). Written from these functions (read, not copied):

- ``selectel_mks_nodegroup_v1``: ``selectel/resource_selectel_mks_nodegroup_v1.go``
  ``resourceMKSNodegroupV1Read``: ``nodes_count`` = ``len(nodes)`` (the nodes at the last
  refresh, not the configured count), ``flavor_id``/``volume_gb``/``volume_type``/
  ``local_volume``/autoscale fields from the API; ``cpus``, ``ram_mb``, ``keypair_name``,
  ``affinity_policy``, ``project_id``, ``region`` are not read back and keep the configured
  value (zero values when unset: ``cpus: 0`` beside a ``flavor_id``); the id is
  ``<cluster_id>/<nodegroup_id>``. ``selectel/mks.go`` ``flattenMKSNodegroupV1Nodes``
  (``id``, ``ip``, ``hostname``) and ``flattenMKSNodegroupV1Taints`` (a list of ``key``,
  ``value``, ``effect`` objects).
- ``selectel_mks_cluster_v1``: ``selectel/resource_selectel_mks_cluster_v1.go``
  ``resourceMKSClusterV1Read``; ``mks.go`` ``flattenMKSClusterV1OIDC`` (always one object)
  and ``flattenMKSClusterV1CNICiliumSettings`` (``[]`` without Cilium settings).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

SelectelTaint = tuple[str, str, str] | Mapping[str, str]
"""A taint: ``(key, value, effect)`` or its ``{"key", "value", "effect"}`` object."""


def selectel_nodes(prefix: str, count: int, first_ip: int = 10) -> list[dict[str, str]]:
    """``nodes`` of ``count`` nodes named ``<prefix>-<i>`` (``flattenMKSNodegroupV1Nodes``)."""
    return [{"hostname": f"{prefix}-{i}", "id": f"{prefix}-node-{i:04d}",
             "ip": f"10.222.0.{first_ip + i}"} for i in range(count)]


def _taint(t: SelectelTaint) -> dict[str, str]:
    if isinstance(t, tuple):
        key, value, effect = t
        return {"effect": effect, "key": key, "value": value}
    return {"effect": t["effect"], "key": t["key"], "value": t.get("value", "")}


def selectel_node_group(
    *, id: str = "63ed5342-b22c-4c7a-9d41-c1fe4a142c13", host: str = "workers",
    nodes_count: int = 3, cluster_id: str = "b311ce58-2658-46b5-b733-7a0f418703f2",
    project_id: str = "9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50", region: str = "ru-7",
    zone: str = "ru-7a", cpus: int = 0, ram_mb: int = 0, volume_gb: int = 0,
    volume_type: str = "", flavor_id: str = "", local_volume: bool = False,
    autoscale: tuple[int, int] | None = None, preemptible: bool = False,
    labels: Mapping[str, str] | None = None, taints: Iterable[SelectelTaint] = (),
    first_ip: int = 10, nodes: list[dict[str, str]] | None = None, status: str = "ACTIVE",
    install_nvidia_device_plugin: bool = False,
) -> dict[str, Any]:
    """The attributes of one ``selectel_mks_nodegroup_v1``: ``nodes_count`` nodes listed in
    ``nodes`` (hostnames ``<host>-<i>``), ``autoscale`` = (min, max) or None; ``ram_mb`` in
    MB (2**20 bytes), ``volume_gb`` in GB (2**30 bytes), ``volume_type`` as ``fast.ru-7a``."""
    listed = nodes if nodes is not None else selectel_nodes(host, nodes_count, first_ip)
    lo, hi = autoscale or (0, 0)
    return {
        "affinity_policy": "", "autoscale_max_nodes": hi, "autoscale_min_nodes": lo,
        "availability_zone": zone, "cluster_id": cluster_id, "cpus": cpus,
        "enable_autoscale": autoscale is not None, "flavor_id": flavor_id,
        "id": f"{cluster_id}/{id}",
        "install_nvidia_device_plugin": install_nvidia_device_plugin, "keypair_name": "",
        "labels": dict(labels or {}), "local_volume": local_volume,
        "nodegroup_type": "STANDARD", "nodes": listed, "nodes_count": len(listed),
        "preemptible": preemptible, "project_id": project_id, "ram_mb": ram_mb,
        "region": region, "status": status, "taints": [_taint(t) for t in taints],
        "timeouts": None, "user_data": "", "volume_gb": volume_gb, "volume_type": volume_type,
    }


def selectel_cluster(
    *, id: str = "b311ce58-2658-46b5-b733-7a0f418703f2", name: str = "prod",
    project_id: str = "9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50", region: str = "ru-7",
    kube_version: str = "1.29.5", zonal: bool = True,
    maintenance_window_start: str = "01:00:00", maintenance_window_end: str = "04:00:00",
    enable_patch_version_auto_upgrade: bool = False, status: str = "ACTIVE",
) -> dict[str, Any]:
    """The attributes of one ``selectel_mks_cluster_v1`` (``resourceMKSClusterV1Read``): a
    zonal cluster is ``BASIC``, a regional one ``HIGH_AVAILABILITY``; the OIDC block is the
    disabled one the API returns; Calico CNI."""
    return {
        "admission_controllers": [], "cluster_type": "BASIC" if zonal else "HIGH_AVAILABILITY",
        "cni_cilium_settings": [], "cni_type": "CALICO", "enable_audit_logs": False,
        "enable_autorepair": True,
        "enable_patch_version_auto_upgrade": enable_patch_version_auto_upgrade,
        "enable_pod_security_policy": False, "feature_gates": [], "id": id,
        "kube_api_ip": "10.222.0.2", "kube_version": kube_version,
        "maintenance_window_end": maintenance_window_end,
        "maintenance_window_start": maintenance_window_start, "name": name, "network_id": "",
        "oidc": [{"ca_certs": "", "client_id": "", "enabled": False, "groups_claim": "",
                  "issuer_url": "", "provider_name": "", "username_claim": ""}],
        "private_kube_api": False, "project_id": project_id, "region": region,
        "status": status, "subnet_id": "", "timeouts": None, "zonal": zonal,
    }
