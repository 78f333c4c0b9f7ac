"""Write terraform.tfstate (raw v4) and show.json (`terraform show -json`) for main.tf.

No Terraform binary or Selectel account can be used here, so the state is written through the
test kit's state writer (``ngupgrade.testing.TfState``, ``selectel_node_group``,
``selectel_cluster``), which builds every attribute as terraform-provider-selectel's Read and
flatten functions write it (its docstrings name them, at provider commit
605324057b2520f84df0e4b65b94de868b7c55a2): the node group's id is
``<cluster_id>/<nodegroup_id>``, ``nodes_count`` is ``len(nodes)``, unset optionals are zero
values (``cpus: 0`` beside a ``flavor_id``, ``flavor_id: ""`` beside ``cpus``), taints a list
of objects. Run `python terraform/examples/selectel/generate_state.py` after changing it; the
tests and the README read the files it writes.
"""

from __future__ import annotations

from pathlib import Path

from ngupgrade.testing import TfState, selectel_cluster, selectel_node_group

HERE = Path(__file__).parent
ZONE = "ru-7a"
ON_CLUSTER = ["selectel_mks_cluster_v1.main"]


def build_state() -> TfState:
    """The cluster and three node groups of main.tf."""
    state = TfState(serial=7, lineage="5b2e7c1a-0d3f-4e9a-8b6c-1f2a3b4c5d6e")
    state.add("selectel_mks_cluster_v1", "main", selectel_cluster(kube_version="1.29.5"))
    state.add("selectel_mks_nodegroup_v1", "workers", selectel_node_group(
        id="63ed5342-b22c-4c7a-9d41-c1fe4a142c13", host="workers", nodes_count=5, cpus=4,
        ram_mb=8192, volume_gb=32, volume_type=f"fast.{ZONE}", labels={"role": "workers"}),
        dependencies=ON_CLUSTER)
    state.add("selectel_mks_nodegroup_v1", "batch", selectel_node_group(
        id="7a1c0e9b-3d2f-4b8a-a6e5-0f9d8c7b6a51", host="batch", nodes_count=2, cpus=2,
        ram_mb=4096, volume_gb=20, volume_type=f"universal.{ZONE}", autoscale=(1, 5),
        preemptible=True, first_ip=20, taints=[("dedicated", "batch", "NoSchedule")]),
        dependencies=ON_CLUSTER)
    state.add("selectel_mks_nodegroup_v1", "cache", selectel_node_group(
        id="c4d5e6f7-0a1b-4c2d-8e3f-9a0b1c2d3e4f", host="cache", nodes_count=3,
        flavor_id="1011", local_volume=True, first_ip=30), dependencies=ON_CLUSTER)
    return state


def main() -> None:
    state = build_state()
    state.write(HERE / "terraform.tfstate")
    state.write_show_json(HERE / "show.json")


if __name__ == "__main__":
    main()
