"""Write terraform.tfstate (raw v4) and show.json (`terraform show -json`) for main.tf.

No Terraform binary or Selectel account can be used here, so the state is built to look like
what the selectel/selectel provider writes (``resource_selectel_mks_*_v1.go``): the node
group's id is ``<cluster_id>/<nodegroup_id>``, ``nodes_count`` is ``len(nodes)``, unset
optionals are zero values (``cpus: 0`` beside a ``flavor_id``, ``flavor_id: ""`` beside
``cpus``), taints a list of objects. Run `python terraform/examples/selectel/generate_state.py`
after changing it; the tests and the README read the files it writes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

HERE = Path(__file__).parent
PROVIDER = 'provider["registry.terraform.io/selectel/selectel"]'
PROJECT_ID = "9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50"
CLUSTER_ID = "b311ce58-2658-46b5-b733-7a0f418703f2"
ZONE = "ru-7a"


def instance(attributes: dict, *, dependencies=()) -> dict:
    return {"schema_version": 0, "attributes": attributes, "sensitive_attributes": [],
            "private": "bnVsbA==", "dependencies": list(dependencies)}


def nodes(prefix: str, count: int, first_ip: int) -> list[dict]:
    return [{"hostname": f"{prefix}-{i}", "id": f"{prefix}-node-{i:04d}",
             "ip": f"10.222.0.{first_ip + i}"} for i in range(count)]


def node_group(ng_id: str, host: str, count: int, *, cpus=0, ram_mb=0, volume_gb=0,
               volume_type="", flavor_id="", local_volume=False, autoscale=(0, 0),
               preemptible=False, labels=None, taints=(), first_ip=10) -> dict:
    return {
        "affinity_policy": "", "autoscale_max_nodes": autoscale[1],
        "autoscale_min_nodes": autoscale[0], "availability_zone": ZONE,
        "cluster_id": CLUSTER_ID, "cpus": cpus, "enable_autoscale": autoscale != (0, 0),
        "flavor_id": flavor_id, "id": f"{CLUSTER_ID}/{ng_id}",
        "install_nvidia_device_plugin": False, "keypair_name": "",
        "labels": labels or {}, "local_volume": local_volume,
        "nodegroup_type": "STANDARD", "nodes": nodes(host, count, first_ip),
        "nodes_count": count, "preemptible": preemptible, "project_id": PROJECT_ID,
        "ram_mb": ram_mb, "region": "ru-7", "taints": list(taints), "timeouts": None,
        "user_data": "", "volume_gb": volume_gb, "volume_type": volume_type,
    }


def build_state() -> dict:
    cluster = {
        "admission_controllers": [], "enable_autorepair": True,
        "enable_patch_version_auto_upgrade": False, "enable_pod_security_policy": False,
        "feature_gates": [], "id": CLUSTER_ID, "kube_api_ip": "10.222.0.2",
        "kube_version": "1.29.5", "maintenance_window_end": "04:00:00",
        "maintenance_window_start": "01:00:00", "name": "prod", "network_id": "",
        "private_kube": False, "project_id": PROJECT_ID, "region": "ru-7",
        "status": "ACTIVE", "subnet_id": "", "timeouts": None, "zonal": True,
    }
    workers = node_group("63ed5342-b22c-4c7a-9d41-c1fe4a142c13", "workers", 5, cpus=4,
                         ram_mb=8192, volume_gb=32, volume_type=f"fast.{ZONE}",
                         labels={"role": "workers"})
    batch = node_group("7a1c0e9b-3d2f-4b8a-a6e5-0f9d8c7b6a51", "batch", 2, cpus=2, ram_mb=4096,
                       volume_gb=20, volume_type=f"universal.{ZONE}", autoscale=(1, 5),
                       preemptible=True, first_ip=20,
                       taints=[{"effect": "NoSchedule", "key": "dedicated", "value": "batch"}])
    cache = node_group("c4d5e6f7-0a1b-4c2d-8e3f-9a0b1c2d3e4f", "cache", 3, flavor_id="1011",
                       local_volume=True, volume_gb=0, first_ip=30)
    dep = ["selectel_mks_cluster_v1.main"]
    resources = [
        {"mode": "managed", "type": "selectel_mks_cluster_v1", "name": "main",
         "provider": PROVIDER, "instances": [instance(cluster)]},
        {"mode": "managed", "type": "selectel_mks_nodegroup_v1", "name": "workers",
         "provider": PROVIDER, "instances": [instance(workers, dependencies=dep)]},
        {"mode": "managed", "type": "selectel_mks_nodegroup_v1", "name": "batch",
         "provider": PROVIDER, "instances": [instance(batch, dependencies=dep)]},
        {"mode": "managed", "type": "selectel_mks_nodegroup_v1", "name": "cache",
         "provider": PROVIDER, "instances": [instance(cache, dependencies=dep)]},
    ]
    return {"version": 4, "terraform_version": "1.9.8", "serial": 7,
            "lineage": "5b2e7c1a-0d3f-4e9a-8b6c-1f2a3b4c5d6e", "outputs": {},
            "resources": resources, "check_results": None}


def to_show_json(state: dict) -> dict:
    """The same state as `terraform show -json` prints it (jsonstate, format 1.0)."""
    root: dict = {"resources": []}
    for res in state["resources"]:
        for inst in res["instances"]:
            root["resources"].append({
                "address": f"{res['type']}.{res['name']}", "mode": res["mode"],
                "type": res["type"], "name": res["name"],
                "provider_name": "registry.terraform.io/selectel/selectel",
                "schema_version": 0, "values": copy.deepcopy(inst["attributes"]),
                "sensitive_values": {},
            })
    return {"format_version": "1.0", "terraform_version": state["terraform_version"],
            "values": {"root_module": root}}


def main() -> None:
    state = build_state()
    (HERE / "terraform.tfstate").write_text(json.dumps(state, indent=2) + "\n")
    (HERE / "show.json").write_text(json.dumps(to_show_json(state)) + "\n")


if __name__ == "__main__":
    main()
