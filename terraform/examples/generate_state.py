"""Write terraform.tfstate (raw v4) and show.json (`terraform show -json`) for main.tf.

No Terraform binary or cloud can be used here, so the state is written through the test
kit's state writer (``ngupgrade.testing.TfState`` and ``yandex_*``), which builds every
attribute as terraform-provider-yandex's flatten functions write it (its docstrings name them,
at provider commit b52b1df55c8e145a060c2112aca37eb4082bf381). Run
`python terraform/examples/generate_state.py` after changing it; the tests, the README and
`make demo` read the files it writes.

The groups: ``workers`` (fixed 3, 1/0, weekly windows, node labels, a spread placement
group), ``gpu`` (one A100 node with GPU settings and a node label, a daily window; no
``deploy_policy`` in HCL, so the state holds the API's 3/0) and ``batch`` (autoscaled 1..7,
2/1, preemptible, a taint, auto_upgrade on at any time) in ``module.pools["prod"]``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from ngupgrade.testing import (
    TfState,
    daily_window,
    weekly_window,
    yandex_cluster,
    yandex_node_group,
    yandex_placement_group,
    yandex_subnet,
)

HERE = Path(__file__).parent
CLUSTER_ID = "catq0n7i0h9ka1b2c3d4"
FOLDER_ID = "b1gexamplefolder00001"
SUBNET_ID = "e9bexamplesubnet0001"
NETWORK_ID = "enpexamplenetwork001"
SA_ID = "ajeexampleserviceac01"
PLACEMENT_ID = "fd8examplespread0001"
H = timedelta(hours=1)
ON_CLUSTER = ["yandex_kubernetes_cluster.main"]


def node_groups(state: TfState) -> None:
    """The three node groups of main.tf."""
    common = {"cluster_id": CLUSTER_ID, "auto_upgrade": False, "subnet_ids": [SUBNET_ID]}
    state.add("yandex_kubernetes_node_group", "workers", yandex_node_group(
        id="cat1ng0fixed0000abcd", name="workers", fixed=3, deploy=(1, 0),
        platform="standard-v3", cores=4, memory=16, disk_type="network-ssd", disk_size=64,
        nat=True, placement_group_id=PLACEMENT_ID, node_labels={"role": "workers"},
        windows=[weekly_window("MONDAY", "01:00", 3 * H),
                 weekly_window("thursday", "01:00", 3 * H)], **common),
        dependencies=[*ON_CLUSTER, "yandex_compute_placement_group.spread"])
    state.add("yandex_kubernetes_node_group", "gpu", yandex_node_group(
        id="cat3ng0gpu000000ijkl", name="gpu", fixed=1,
        platform="gpu-standard-v3", cores=28, memory=119, gpus=1,
        disk_type="network-ssd-nonreplicated", disk_size=186,
        gpu_environment="runc_drivers_cuda", node_labels={"accelerator": "a100"},
        windows=[daily_window("22:00", 4.5 * H)], **common), dependencies=ON_CLUSTER)
    state.add("yandex_kubernetes_node_group", "this", yandex_node_group(
        id="cat2ng0auto00000efgh", name="batch", fixed=None, auto=(1, 7, 1), deploy=(2, 1),
        platform="standard-v3", cores=2, core_fraction=50, memory=4, disk_type="network-hdd",
        disk_size=96, preemptible=True, taints=["dedicated=batch:NoSchedule"],
        labels={"team": "data"}, cluster_id=CLUSTER_ID, subnet_ids=[SUBNET_ID]),
        module='module.pools["prod"]', index_key="batch", dependencies=ON_CLUSTER)


def example_state() -> TfState:
    """The whole state of main.tf."""
    state = TfState(serial=42, outputs={"cluster_id": CLUSTER_ID})
    state.add("yandex_client_config", "client", {
        "cloud_id": "b1gexamplecloud000001", "folder_id": FOLDER_ID, "iam_token": "t1.REDACTED",
        "id": "2384756", "zone": "ru-central1-a"}, mode="data")
    state.add("yandex_iam_service_account", "k8s", {
        "created_at": "2025-03-11T08:59:00Z", "description": "", "folder_id": FOLDER_ID,
        "id": SA_ID, "name": "k8s-main", "timeouts": None})
    state.add("yandex_kubernetes_cluster", "main", yandex_cluster(
        id=CLUSTER_ID, folder_id=FOLDER_ID, name="prod", version="1.30", network_id=NETWORK_ID,
        service_account_id=SA_ID, zonal=("ru-central1-a", SUBNET_ID),
        windows=[weekly_window("sunday", "03:00", 2 * H)]),
        dependencies=["yandex_iam_service_account.k8s", "yandex_vpc_network.k8s",
                      "yandex_vpc_subnet.a"])
    state.add("yandex_compute_placement_group", "spread", yandex_placement_group(
        id=PLACEMENT_ID, name="workers-spread", folder_id=FOLDER_ID))
    node_groups(state)
    state.add("yandex_vpc_network", "k8s", {
        "created_at": "2025-03-11T08:58:00Z", "default_security_group_id": "",
        "description": "", "folder_id": FOLDER_ID, "id": NETWORK_ID, "labels": {},
        "name": "k8s", "subnet_ids": [SUBNET_ID], "timeouts": None})
    state.add("yandex_vpc_subnet", "a", yandex_subnet(
        id=SUBNET_ID, name="k8s-a", folder_id=FOLDER_ID, network_id=NETWORK_ID),
        dependencies=["yandex_vpc_network.k8s"])
    return state


def build_state() -> dict[str, Any]:
    """The raw v4 document of :func:`example_state` (generate_plans.py edits it)."""
    return example_state().to_v4()


def to_show_json(doc: dict[str, Any]) -> dict[str, Any]:
    """The ``terraform show -json`` view of a v4 document (perhaps edited)."""
    return TfState.from_v4(doc).to_show_json()


def main() -> None:
    state = example_state()
    state.write(HERE / "terraform.tfstate")
    state.write_show_json(HERE / "show.json")


if __name__ == "__main__":
    main()
