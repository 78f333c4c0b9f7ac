"""Attributes of terraform-provider-yandex resources exactly as the provider writes them into a
state (and into ``terraform show -json`` ``values``): every attribute of the schema present,
in the form the provider's Read and flatten functions give it.

Provider: ``yandex-cloud/terraform-provider-yandex`` @ b52b1df55c8e145a060c2112aca37eb4082bf381
(v0.222.0+13). Written from these functions (read, not copied):

- ``yandex_kubernetes_node_group``: ``yandex/resource_yandex_kubernetes_node_group.go``
  ``resourceYandexKubernetesNodeGroupRead`` (``version`` = ``version_info.current_version``),
  ``flattenNodeGroupSchemaData`` (``status`` lower case; ``workload_identity_federation``
  written only when enabled, else the configured ``[]``),
  ``flattenKubernetesNodeGroupTemplate`` (template ``nat`` from the deprecated
  ``v4_address_spec``: ``false`` on a template with a ``network_interface``;
  ``network_acceleration_type`` lower case), ``…TemplateResources`` (``memory`` float GB of
  ``toGigabytesInFloat`` over the API's bytes; ``cores``/``core_fraction``/``gpus`` int),
  ``…TemplateBootDisk`` (``size`` int GB of ``toGigabytes``), ``…NetworkInterface`` (``ipv4``
  / ``ipv6`` = an address spec is present; DNS records via ``flattenK8SNodeGroupDNSRecords``),
  ``…TemplatePlacementPolicy`` / ``…ContainerRuntime`` (``[]`` on TYPE_UNSPECIFIED) /
  ``…ContainerNetwork`` / ``…GPUSettings`` (``[]`` when unset), ``flattenKubernetesNodeScalePolicy``
  (``fixed_scale`` or ``auto_scale``, the other ``[]``), ``…DeployPolicy`` (always one object:
  the API returns the server default 3/0 when HCL leaves it out), ``…MaintenancePolicy``,
  ``…AllocationPolicy``, ``…VersionInfo``, ``flattenKubernetesNodeGroupTaints``
  (``key=value:Effect``, also with an empty value: ``key=:NoSchedule``).
- maintenance windows: ``yandex/structures.go`` ``flattenMaintenanceWindow`` (a daily window
  has ``day: ""``; a weekly one a lower-case ``day``), ``formatTimeOfDay`` in
  ``resource_yandex_kubernetes_cluster.go`` (``"15:00:00.000000000"``) and ``formatDuration``
  in ``yandex/utils.go`` (Go's ``Duration.String()``: ``"3h0m0s"``, ``"4h30m0s"``).
- ``yandex_kubernetes_cluster``: ``resource_yandex_kubernetes_cluster.go``
  ``flattenKubernetesClusterAttributes`` and ``flattenKubernetesMaster`` (zonal master:
  ``etcd_cluster_size`` 1, regional 3; ``public_ip`` = an external v4 endpoint;
  ``release_channel`` upper case, ``status``/``health`` lower case).
- ``yandex_vpc_subnet``: ``resource_yandex_vpc_subnet.go`` ``resourceYandexVPCSubnetRead``
  and ``structures.go`` ``flattenDhcpOptions``.
- ``yandex_compute_placement_group``: ``resource_yandex_compute_placement_group.go`` (its
  strategy attributes are kept from the configuration: Read does not set them).

Nested blocks are lists (a MaxItems-1 block a list of one object), an unset optional block
``[]``, maps ``{}``, ``timeouts`` ``null`` (terraform-plugin-sdk v2 as Terraform stores it;
``hashicorp/terraform`` ``internal/states/statefile/version4.go``). Strings the API leaves
empty are ``""``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import time, timedelta
from typing import Any

GIB = 1 << 30
"""The provider's GB (``c2h5oh/datasize``: 2**30 bytes; ``yandex/utils.go`` ``toBytes``)."""

Taint = str | tuple[str, str, str]
"""A taint: ``"key=value:Effect"`` or ``(key, value, effect)``."""


def go_duration(d: timedelta) -> str:
    """Go's ``time.Duration.String()`` of ``d``: ``3h0m0s``, ``4h30m0s``, ``1m30s``,
    ``1.5s``, ``500ms``, ``0s`` (what ``formatDuration`` writes). Written apart from
    ``ngupgrade.core.duration`` on purpose: the writer is the check of that reader."""
    ns = (d.days * 86400 + d.seconds) * 10**9 + d.microseconds * 1000
    if ns == 0:
        return "0s"
    sign, ns = ("-", -ns) if ns < 0 else ("", ns)
    if ns < 10**9:
        for unit, size in (("ms", 10**6), ("µs", 10**3), ("ns", 1)):
            if ns >= size or unit == "ns":
                return sign + _fraction(ns, size) + unit
    hours, rest = divmod(ns, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    text = _fraction(rest, 10**9) + "s"
    if hours or minutes:
        text = f"{minutes}m" + text
    if hours:
        text = f"{hours}h" + text
    return sign + text


def _fraction(value: int, unit: int) -> str:
    whole, frac = divmod(value, unit)
    if not frac:
        return str(whole)
    digits = str(frac).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"


def time_of_day(start: time | str) -> str:
    """``formatTimeOfDay``: ``time.Format("15:04:05.000000000")`` of the API's TimeOfDay;
    ``start`` a ``time`` or the ``HH:MM[:SS]`` that HCL holds (``parseDayTime``)."""
    if isinstance(start, str):
        start = time.fromisoformat(start)
    return f"{start:%H:%M:%S}.{start.microsecond * 1000:09d}"


def daily_window(start: time | str, duration: timedelta) -> dict[str, str]:
    """One ``maintenance_window`` element of a daily window, as flattened (``day`` ``""``)."""
    return {"day": "", "duration": go_duration(duration), "start_time": time_of_day(start)}


def weekly_window(day: str, start: time | str, duration: timedelta) -> dict[str, str]:
    """One ``maintenance_window`` element of a weekly window; ``day`` in any case (HCL's
    ``"MONDAY"`` is stored ``"monday"``)."""
    return {"day": day.lower(), "duration": go_duration(duration),
            "start_time": time_of_day(start)}


def gigabytes_float(memory_gb: float) -> float | int:
    """``toGigabytesInFloat(toBytesFromFloat(memory_gb))``: the GB float the provider reads
    back (2.5 stays 2.5; 1.1 becomes 1.0999999996274710). Integral values are written as JSON
    integers, as Terraform writes a whole number."""
    value = int(memory_gb * GIB) / GIB
    return int(value) if value.is_integer() else value


def _taint(t: Taint) -> str:
    if isinstance(t, str):
        return t
    key, value, effect = t
    return f"{key}={value}:{effect}"


def _dns_records(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"dns_zone_id": r.get("dns_zone_id", ""), "fqdn": r["fqdn"],
             "ptr": r.get("ptr", False), "ttl": r.get("ttl", 0)} for r in records]


def network_interface(subnet_ids: Sequence[str], *, nat: bool = False, ipv4: bool = True,
                      ipv6: bool = False, security_group_ids: Sequence[str] = (),
                      ipv4_dns_records: Sequence[Mapping[str, Any]] = (),
                      ipv6_dns_records: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """One ``instance_template.network_interface`` element
    (``flattenKubernetesNodeGroupNetworkInterface``)."""
    return {"ipv4": ipv4, "ipv4_dns_records": _dns_records(ipv4_dns_records), "ipv6": ipv6,
            "ipv6_dns_records": _dns_records(ipv6_dns_records), "nat": nat,
            "security_group_ids": list(security_group_ids), "subnet_ids": list(subnet_ids)}


def instance_template(
    *, platform: str = "standard-v3", cores: int = 2, core_fraction: int = 100,
    memory: float = 4, gpus: int = 0, disk_type: str = "network-hdd", disk_size: int = 64,
    nat: bool = False, preemptible: bool = False, subnet_ids: Sequence[str] = (),
    security_group_ids: Sequence[str] = (), interfaces: Sequence[dict[str, Any]] | None = None,
    placement_group_id: str | None = None, container_runtime: str | None = "containerd",
    pod_mtu: int | None = None, gpu_cluster_id: str | None = None,
    gpu_environment: str | None = None, network_acceleration_type: str = "standard",
    template_labels: Mapping[str, str] | None = None,
    metadata: Mapping[str, str] | None = None, name_template: str = "",
    reserved_instance_pool_id: str = "",
) -> dict[str, Any]:
    """The one ``instance_template`` object (``flattenKubernetesNodeGroupTemplate``): memory
    in GB (a float: ``gigabytes_float``), the boot disk in whole GB; ``nat`` is the network
    interface's (one interface on ``subnet_ids`` unless ``interfaces`` is given);
    ``container_runtime`` None is the API's TYPE_UNSPECIFIED (``[]``); GPU settings are
    written when either GPU field is given; ``name_template`` and ``template_labels`` are the
    template's ``name`` and ``labels``."""
    gpu_settings = [] if gpu_cluster_id is None and gpu_environment is None else [
        {"gpu_cluster_id": gpu_cluster_id or "", "gpu_environment": gpu_environment or ""}]
    if interfaces is None:
        interfaces = [network_interface(subnet_ids, nat=nat,
                                        security_group_ids=security_group_ids)]
    return {
        "boot_disk": [{"size": int(disk_size), "type": disk_type}],
        "container_network": [] if pod_mtu is None else [{"pod_mtu": pod_mtu}],
        "container_runtime": [] if container_runtime is None else [{"type": container_runtime}],
        "gpu_settings": gpu_settings,
        "labels": dict(template_labels or {}),
        "metadata": dict(metadata or {}),
        "name": name_template,
        "nat": False,
        "network_acceleration_type": network_acceleration_type,
        "network_interface": list(interfaces),
        "placement_policy": [] if placement_group_id is None else [
            {"placement_group_id": placement_group_id}],
        "platform_id": platform,
        "reserved_instance_pool_id": reserved_instance_pool_id,
        "resources": [{"core_fraction": core_fraction, "cores": cores, "gpus": gpus,
                       "memory": gigabytes_float(memory)}],
        "scheduling_policy": [{"preemptible": preemptible}],
    }


def scale_policy(*, fixed: int | None = None,
                 auto: tuple[int, int, int] | None = None) -> list[dict[str, Any]]:
    """``flattenKubernetesNodeScalePolicy``: ``fixed`` nodes or ``auto`` = (min, max,
    initial); the other block ``[]``."""
    if auto is not None:
        lo, hi, initial = auto
        return [{"auto_scale": [{"initial": initial, "max": hi, "min": lo}], "fixed_scale": []}]
    return [{"auto_scale": [], "fixed_scale": [{"size": fixed or 0}]}]


def _version_info(version: str, new_revision: bool, deprecated: bool) -> list[dict[str, Any]]:
    return [{"current_version": version, "new_revision_available": new_revision,
             "new_revision_summary": "", "version_deprecated": deprecated}]


def yandex_node_group(
    *, id: str = "catgroup000000000001", name: str = "workers",
    cluster_id: str = "catq0n7i0h9ka1b2c3d4", version: str = "1.29", status: str = "running",
    fixed: int | None = 3, auto: tuple[int, int, int] | None = None,
    deploy: tuple[int, int] = (3, 0), template: dict[str, Any] | None = None,
    zones: Sequence[str] = ("ru-central1-a",), windows: Iterable[Mapping[str, str]] = (),
    auto_upgrade: bool = True, auto_repair: bool = True,
    node_labels: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
    taints: Iterable[Taint] = (), description: str = "",
    created_at: str = "2025-03-11T09:12:45Z", instance_group_id: str | None = None,
    variables: Mapping[str, str] | None = None, allowed_unsafe_sysctls: Sequence[str] = (),
    workload_identity: bool = False, new_revision_available: bool = False,
    version_deprecated: bool = False, **template_args: Any,
) -> dict[str, Any]:
    """The attributes of one ``yandex_kubernetes_node_group`` (``flattenNodeGroupSchemaData``).

    ``fixed`` nodes, or ``auto`` = (min, max, initial); ``deploy`` = (max_expansion,
    max_unavailable), 3/0 being what the API returns when HCL has no ``deploy_policy``;
    ``windows`` from :func:`daily_window` / :func:`weekly_window` (none: any time);
    ``taints`` as ``"k=v:Effect"`` or triples; node resources from ``template`` (of
    :func:`instance_template`) or the keywords it takes (``cores``, ``memory`` GB, ``gpus``,
    ``disk_size`` GB, ``nat``, ``placement_group_id``, ...)."""
    if template is None:
        template = instance_template(**template_args)
    elif template_args:
        raise TypeError(f"template given with template keywords {sorted(template_args)}")
    return {
        "allocation_policy": [{"location": [{"subnet_id": "", "zone": z} for z in zones]}],
        "allowed_unsafe_sysctls": list(allowed_unsafe_sysctls),
        "cluster_id": cluster_id,
        "created_at": created_at,
        "deploy_policy": [{"max_expansion": deploy[0], "max_unavailable": deploy[1]}],
        "description": description,
        "id": id,
        "instance_group_id": instance_group_id or "cl1" + id[3:],
        "instance_template": [template],
        "labels": dict(labels or {}),
        "maintenance_policy": [{"auto_repair": auto_repair, "auto_upgrade": auto_upgrade,
                                "maintenance_window": [dict(w) for w in windows]}],
        "name": name,
        "node_labels": dict(node_labels or {}),
        "node_taints": [_taint(t) for t in taints],
        "scale_policy": scale_policy(fixed=fixed, auto=auto),
        "status": status,
        "timeouts": None,
        "variables": dict(variables or {}),
        "version": version,
        "version_info": _version_info(version, new_revision_available, version_deprecated),
        "workload_identity_federation": [{"enabled": True}] if workload_identity else [],
    }


V035_TEMPLATE_KEYS = ("boot_disk", "metadata", "nat", "platform_id", "resources",
                      "scheduling_policy")
"""``instance_template`` keys of provider v0.35.0 (``flattenKubernetesNodeGroupTemplate``)."""


def yandex_node_group_v035(*, nat: bool = False, **group: Any) -> dict[str, Any]:
    """A ``yandex_kubernetes_node_group`` as provider **v0.35.0** wrote it
    (terraform-provider-yandex @ 82dadda2843a847e43615f304720854cc88511fd,
    ``yandex/resource_yandex_kubernetes_node_group.go`` ``flattenNodeGroupSchemaData``): no
    ``deploy_policy`` (the attribute came later), no ``network_interface`` (``nat`` is the
    template's own), no ``gpus``, ``variables`` or ``workload_identity_federation``. A state
    last written by that provider, and never refreshed by a newer one, holds this form.
    Keywords as for :func:`yandex_node_group`."""
    attrs = yandex_node_group(**group)
    for key in ("deploy_policy", "variables", "workload_identity_federation"):
        del attrs[key]
    template = attrs["instance_template"][0]
    attrs["instance_template"] = [{k: template[k] for k in V035_TEMPLATE_KEYS}]
    attrs["instance_template"][0]["nat"] = nat
    del attrs["instance_template"][0]["resources"][0]["gpus"]
    return attrs


def _master(version: str, *, zonal: tuple[str, str] | None, region: str | None,
            locations: Sequence[tuple[str, str]], public_ip: bool, internal_v4: str,
            windows: Iterable[Mapping[str, str]], auto_upgrade: bool,
            security_group_ids: Sequence[str]) -> dict[str, Any]:
    external = "158.160.0.10" if public_ip else ""
    return {
        "cluster_ca_certificate":
            "-----BEGIN CERTIFICATE-----\nMIIC...\n-----END CERTIFICATE-----\n",
        "etcd_cluster_size": 1 if zonal else 3,
        "external_v4_address": external,
        "external_v4_endpoint": f"https://{external}" if external else "",
        "external_v6_address": "",
        "external_v6_endpoint": "",
        "internal_v4_address": internal_v4,
        "internal_v4_endpoint": f"https://{internal_v4}",
        "maintenance_policy": [{"auto_upgrade": auto_upgrade,
                                "maintenance_window": [dict(w) for w in windows]}],
        "master_location": [{"subnet_id": s, "zone": z} for z, s in locations],
        "master_logging": [],
        "public_ip": public_ip,
        "regional": [] if zonal else [{"location": [{"subnet_id": s, "zone": z}
                                                    for z, s in locations],
                                       "region": region or "ru-central1"}],
        "scale_policy": [],
        "security_group_ids": list(security_group_ids),
        "version": version,
        "version_info": _version_info(version, False, False),
        "zonal": [{"subnet_id": zonal[1], "zone": zonal[0]}] if zonal else [],
    }


def yandex_cluster(
    *, id: str = "catq0n7i0h9ka1b2c3d4", folder_id: str = "b1gexamplefolder00001",
    name: str = "prod", version: str = "1.29", network_id: str = "enpexamplenetwork001",
    service_account_id: str = "ajeexampleserviceac01",
    zonal: tuple[str, str] | None = ("ru-central1-a", "e9bexamplesubnet0001"),
    region: str | None = None, locations: Sequence[tuple[str, str]] = (),
    public_ip: bool = True, internal_v4: str = "10.1.0.5",
    windows: Iterable[Mapping[str, str]] = (), auto_upgrade: bool = True,
    release_channel: str = "REGULAR", security_group_ids: Sequence[str] = (),
    labels: Mapping[str, str] | None = None, created_at: str = "2025-03-11T09:01:02Z",
) -> dict[str, Any]:
    """The attributes of one ``yandex_kubernetes_cluster`` (``flattenKubernetesClusterAttributes``,
    ``flattenKubernetesMaster``): a zonal master ``zonal`` = (zone, subnet id), or a regional
    one (``zonal`` None) in ``region`` over ``locations`` = [(zone, subnet id)]; the master's
    ``windows`` as for a node group."""
    return {
        "cluster_ipv4_range": "10.112.0.0/16", "cluster_ipv6_range": "",
        "created_at": created_at, "description": "", "folder_id": folder_id,
        "health": "healthy", "id": id, "kms_provider": [], "labels": dict(labels or {}),
        "log_group_id": "",
        "master": [_master(version, zonal=zonal, region=region, locations=locations,
                           public_ip=public_ip, internal_v4=internal_v4, windows=windows,
                           auto_upgrade=auto_upgrade, security_group_ids=security_group_ids)],
        "name": name, "network_id": network_id, "network_implementation": [],
        "network_policy_provider": "", "node_ipv4_cidr_mask_size": 24,
        "node_service_account_id": service_account_id, "release_channel": release_channel,
        "service_account_id": service_account_id, "service_ipv4_range": "10.96.0.0/16",
        "service_ipv6_range": "", "status": "running", "timeouts": None,
        "workload_identity_federation": [],
    }


def yandex_subnet(
    *, id: str = "e9bexamplesubnet0001", name: str = "k8s-a",
    folder_id: str = "b1gexamplefolder00001", network_id: str = "enpexamplenetwork001",
    zone: str = "ru-central1-a", v4_cidr_blocks: Sequence[str] = ("10.1.0.0/16",),
    route_table_id: str = "", labels: Mapping[str, str] | None = None,
    created_at: str = "2025-03-11T08:58:30Z",
) -> dict[str, Any]:
    """The attributes of one ``yandex_vpc_subnet`` (``resourceYandexVPCSubnetRead``; no DHCP
    options: ``flattenDhcpOptions`` of none is ``[]``)."""
    return {
        "created_at": created_at, "description": "", "dhcp_options": [],
        "folder_id": folder_id, "id": id, "labels": dict(labels or {}), "name": name,
        "network_id": network_id, "route_table_id": route_table_id, "timeouts": None,
        "v4_cidr_blocks": list(v4_cidr_blocks), "v6_cidr_blocks": [], "zone": zone,
    }


def yandex_placement_group(
    *, id: str = "fd8examplepgroup0001", name: str = "spread",
    folder_id: str = "b1gexamplefolder00001", partitions: int | None = None,
    created_at: str = "2025-03-11T08:59:30Z",
) -> dict[str, Any]:
    """The attributes of one ``yandex_compute_placement_group``: spread (the default), or a
    partition strategy of ``partitions``; the strategy attribute not configured is ``null``."""
    return {
        "created_at": created_at, "description": "", "folder_id": folder_id, "id": id,
        "labels": {}, "name": name,
        "placement_strategy_partitions": partitions,
        "placement_strategy_spread": None if partitions else True,
        "timeouts": None,
    }
