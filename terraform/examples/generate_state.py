"""Write terraform.tfstate (raw v4) and show.json (`terraform show -json`) for main.tf.

No Terraform binary or cloud can be used here, so the state is built to look exactly like
what provider v0.12x writes (reference sections 1.4 and 1.5): nested blocks as lists of
objects, memory and disk in GB, schema_version 0, the provider address string, a private
blob, sensitive_attributes. Run `python terraform/examples/generate_state.py` after
changing it; the tests read the files it writes.
"""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path

HERE = Path(__file__).parent
PROVIDER = 'provider["registry.terraform.io/yandex-cloud/yandex"]'
PRIVATE = base64.b64encode(json.dumps({
    "e2bfb730-ecaa-11e6-8f88-34363bc7c4c0": {
        "create": 3600000000000, "delete": 1200000000000, "read": 600000000000,
        "update": 3600000000000}}, separators=(",", ":")).encode()).decode()
CLUSTER_ID = "catq0n7i0h9ka1b2c3d4"
FOLDER_ID = "b1gexamplefolder00001"
SUBNET_ID = "e9bexamplesubnet0001"
NETWORK_ID = "enpexamplenetwork001"
SA_ID = "ajeexampleserviceac01"


def instance(attributes: dict, *, index_key=None, dependencies=(), sensitive=()) -> dict:
    inst: dict = {}
    if index_key is not None:
        inst["index_key"] = index_key
    inst.update({
        "schema_version": 0,
        "attributes": attributes,
        "sensitive_attributes": list(sensitive),
        "private": PRIVATE,
        "dependencies": list(dependencies),
    })
    return inst


def template(platform: str, cores: int, fraction: int, memory: float, gpus: int,
             disk_type: str, disk_size: int, nat: bool, preemptible: bool) -> dict:
    return {
        "boot_disk": [{"size": disk_size, "type": disk_type}],
        "container_network": [],
        "container_runtime": [{"type": "containerd"}],
        "gpu_settings": [],
        "labels": {},
        "metadata": {},
        "name": "",
        "nat": None,
        "network_acceleration_type": "standard",
        "network_interface": [{
            "ipv4": True, "ipv4_dns_records": [], "ipv6": False, "ipv6_dns_records": [],
            "nat": nat, "security_group_ids": [], "subnet_ids": [SUBNET_ID]}],
        "placement_policy": [],
        "platform_id": platform,
        "reserved_instance_pool_id": "",
        "resources": [{"core_fraction": fraction, "cores": cores, "gpus": gpus,
                       "memory": memory}],
        "scheduling_policy": [{"preemptible": preemptible}],
    }


def node_group(ng_id: str, name: str, tmpl: dict, scale: dict, deploy: list,
               *, taints=(), auto_upgrade=False) -> dict:
    return {
        "allocation_policy": [{"location": [{"subnet_id": "", "zone": "ru-central1-a"}]}],
        "allowed_unsafe_sysctls": [],
        "cluster_id": CLUSTER_ID,
        "created_at": "2025-03-11T09:12:45Z",
        "deploy_policy": deploy,
        "description": "",
        "id": ng_id,
        "instance_group_id": "cl1" + ng_id[3:],
        "instance_template": [tmpl],
        "labels": {},
        "maintenance_policy": [{"auto_repair": True, "auto_upgrade": auto_upgrade,
                                "maintenance_window": []}],
        "name": name,
        "node_labels": {},
        "node_taints": list(taints),
        "scale_policy": [scale],
        "status": "running",
        "timeouts": None,
        "variables": {},
        "version": "1.29",
        "version_info": [{"current_version": "1.29", "new_revision_available": False,
                          "new_revision_summary": "", "version_deprecated": False}],
        "workload_identity_federation": [],
    }


def build_state() -> dict:
    cluster = {
        "cluster_ipv4_range": "10.112.0.0/16", "cluster_ipv6_range": "",
        "created_at": "2025-03-11T09:01:02Z", "description": "", "folder_id": FOLDER_ID,
        "health": "healthy", "id": CLUSTER_ID, "kms_provider": [], "labels": {},
        "log_group_id": "",
        "master": [{
            "cluster_ca_certificate":
                "-----BEGIN CERTIFICATE-----\nMIIC...\n-----END CERTIFICATE-----\n",
            "etcd_cluster_size": 1, "external_v4_address": "158.160.0.10",
            "external_v4_endpoint": "https://158.160.0.10", "external_v6_endpoint": "",
            "internal_v4_address": "10.1.0.5", "internal_v4_endpoint": "https://10.1.0.5",
            "maintenance_policy": [{"auto_upgrade": True, "maintenance_window": []}],
            "master_location": [], "master_logging": [], "public_ip": True, "regional": [],
            "security_group_ids": [], "version": "1.30",
            "version_info": [{"current_version": "1.30", "new_revision_available": False,
                              "new_revision_summary": "", "version_deprecated": False}],
            "zonal": [{"subnet_id": SUBNET_ID, "zone": "ru-central1-a"}],
        }],
        "name": "prod", "network_id": NETWORK_ID, "network_implementation": [],
        "network_policy_provider": "", "node_ipv4_cidr_mask_size": 24,
        "node_service_account_id": SA_ID, "release_channel": "REGULAR",
        "service_account_id": SA_ID, "service_ipv4_range": "10.96.0.0/16",
        "service_ipv6_range": "", "status": "running", "timeouts": None,
    }
    workers = node_group(
        "cat1ng0fixed0000abcd", "workers",
        template("standard-v3", 4, 100, 16, 0, "network-ssd", 64, True, False),
        {"auto_scale": [], "fixed_scale": [{"size": 3}]},
        [{"max_expansion": 1, "max_unavailable": 0}])
    gpu = node_group(
        "cat3ng0gpu000000ijkl", "gpu",
        template("gpu-standard-v3", 28, 100, 119, 1, "network-ssd-nonreplicated", 186,
                 False, False),
        {"auto_scale": [], "fixed_scale": [{"size": 1}]},
        [])  # no deploy_policy block in HCL: the provider stored nothing (C06)
    batch = node_group(
        "cat2ng0auto00000efgh", "batch",
        template("standard-v3", 2, 50, 4, 0, "network-hdd", 96, False, True),
        {"auto_scale": [{"initial": 1, "max": 7, "min": 1}], "fixed_scale": []},
        [{"max_expansion": 2, "max_unavailable": 1}],
        taints=["dedicated=batch:NoSchedule"], auto_upgrade=True)
    resources = [
        {"mode": "data", "type": "yandex_client_config", "name": "client",
         "provider": PROVIDER, "instances": [{"schema_version": 0, "attributes": {
             "cloud_id": "b1gexamplecloud000001", "folder_id": FOLDER_ID,
             "iam_token": "t1.REDACTED", "id": "2384756", "zone": "ru-central1-a"},
             "sensitive_attributes": [[{"type": "get_attr", "value": "iam_token"}]]}]},
        {"mode": "managed", "type": "yandex_iam_service_account", "name": "k8s",
         "provider": PROVIDER, "instances": [instance({
             "created_at": "2025-03-11T08:59:00Z", "description": "", "folder_id": FOLDER_ID,
             "id": SA_ID, "name": "k8s-main", "timeouts": None})]},
        {"mode": "managed", "type": "yandex_kubernetes_cluster", "name": "main",
         "provider": PROVIDER, "instances": [instance(
             cluster, dependencies=["yandex_iam_service_account.k8s",
                                    "yandex_vpc_network.k8s", "yandex_vpc_subnet.a"])]},
        {"mode": "managed", "type": "yandex_kubernetes_node_group", "name": "gpu",
         "provider": PROVIDER, "instances": [instance(
             gpu, dependencies=["yandex_kubernetes_cluster.main"])]},
        {"mode": "managed", "type": "yandex_kubernetes_node_group", "name": "workers",
         "provider": PROVIDER, "instances": [instance(
             workers, dependencies=["yandex_kubernetes_cluster.main"])]},
        {"mode": "managed", "type": "yandex_vpc_network", "name": "k8s",
         "provider": PROVIDER, "instances": [instance({
             "created_at": "2025-03-11T08:58:00Z", "default_security_group_id": "",
             "description": "", "folder_id": FOLDER_ID, "id": NETWORK_ID, "labels": {},
             "name": "k8s", "subnet_ids": [SUBNET_ID], "timeouts": None})]},
        {"mode": "managed", "type": "yandex_vpc_subnet", "name": "a",
         "provider": PROVIDER, "instances": [instance({
             "created_at": "2025-03-11T08:58:30Z", "description": "", "dhcp_options": [],
             "folder_id": FOLDER_ID, "id": SUBNET_ID, "labels": {}, "name": "k8s-a",
             "network_id": NETWORK_ID, "route_table_id": "", "timeouts": None,
             "v4_cidr_blocks": ["10.1.0.0/16"], "v6_cidr_blocks": [],
             "zone": "ru-central1-a"}, dependencies=["yandex_vpc_network.k8s"])]},
        {"module": 'module.pools["prod"]', "mode": "managed",
         "type": "yandex_kubernetes_node_group", "name": "this", "provider": PROVIDER,
         "instances": [instance(batch, index_key="batch",
                                dependencies=["yandex_kubernetes_cluster.main"])]},
    ]
    return {
        "version": 4, "terraform_version": "1.9.8", "serial": 42,
        "lineage": "3f0c2a54-8a51-4c47-9d0e-5b7f3c1e2d90",
        "outputs": {"cluster_id": {"value": CLUSTER_ID, "type": "string"}},
        "resources": resources, "check_results": None,
    }


def to_show_json(state: dict) -> dict:
    """The same state as `terraform show -json` prints it (jsonstate, format 1.0)."""
    root: dict = {"resources": [], "child_modules": []}
    modules: dict[str, dict] = {}
    for res in state["resources"]:
        module = res.get("module")
        target = root if module is None else modules.setdefault(
            module, {"resources": [], "address": module})
        for inst in res["instances"]:
            key = inst.get("index_key")
            prefix = f"{module}." if module else ""
            mode_prefix = "data." if res["mode"] == "data" else ""
            suffix = "" if key is None else (f"[{key}]" if isinstance(key, int)
                                             else f"[{json.dumps(key)}]")
            entry = {
                "address": f"{prefix}{mode_prefix}{res['type']}.{res['name']}{suffix}",
                "mode": res["mode"], "type": res["type"], "name": res["name"],
            }
            if key is not None:
                entry["index"] = key
            entry.update({
                "provider_name": "registry.terraform.io/yandex-cloud/yandex",
                "schema_version": 0, "values": copy.deepcopy(inst["attributes"]),
                "sensitive_values": {},
            })
            target["resources"].append(entry)
    root["child_modules"] = [modules[k] for k in sorted(modules)]
    return {"format_version": "1.0", "terraform_version": state["terraform_version"],
            "values": {"outputs": {"cluster_id": {"sensitive": False, "value": CLUSTER_ID,
                                                  "type": "string"}},
                       "root_module": root}}


def main() -> None:
    state = build_state()
    (HERE / "terraform.tfstate").write_text(json.dumps(state, indent=2) + "\n")
    (HERE / "show.json").write_text(json.dumps(to_show_json(state)) + "\n")


if __name__ == "__main__":
    main()
