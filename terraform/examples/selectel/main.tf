# Example Selectel configuration behind terraform.tfstate (generate_state.py writes it): one
# zonal cluster in pool segment ru-7a and three node groups (fixed 5 nodes, autoscaled 1..5,
# a fixed flavor on a local volume). Selectel keeps the update strategy ("Расширение размера
# группы, макс" / "Уменьшение размера группы, макс", reboot or reinstall) in the control panel,
# not here: ngupgrade reads, plans and checks these groups and changes nothing.
terraform {
  required_providers {
    selectel = {
      source  = "selectel/selectel"
      version = ">= 6.0"
    }
  }
  required_version = ">= 1.5"
}

variable "project_id" {
  type    = string
  default = "9d7c2a1e5b0f4c3d8e6a7b1c2d3e4f50"
}

resource "selectel_mks_cluster_v1" "main" {
  name         = "prod"
  project_id   = var.project_id
  region       = "ru-7"
  kube_version = "1.29.5"
  zonal        = true
}

resource "selectel_mks_nodegroup_v1" "workers" {
  cluster_id                   = selectel_mks_cluster_v1.main.id
  project_id                   = var.project_id
  region                       = "ru-7"
  availability_zone            = "ru-7a"
  nodes_count                  = 5
  cpus                         = 4
  ram_mb                       = 8192
  volume_gb                    = 32
  volume_type                  = "fast.ru-7a"
  install_nvidia_device_plugin = false
  labels = {
    role = "workers"
  }
}

resource "selectel_mks_nodegroup_v1" "batch" {
  cluster_id                   = selectel_mks_cluster_v1.main.id
  project_id                   = var.project_id
  region                       = "ru-7"
  availability_zone            = "ru-7a"
  nodes_count                  = 2
  enable_autoscale             = true
  autoscale_min_nodes          = 1
  autoscale_max_nodes          = 5
  cpus                         = 2
  ram_mb                       = 4096
  volume_gb                    = 20
  volume_type                  = "universal.ru-7a"
  install_nvidia_device_plugin = false
  preemptible                  = true
  taints {
    key    = "dedicated"
    value  = "batch"
    effect = "NoSchedule"
  }
}

resource "selectel_mks_nodegroup_v1" "cache" {
  cluster_id                   = selectel_mks_cluster_v1.main.id
  project_id                   = var.project_id
  region                       = "ru-7"
  availability_zone            = "ru-7a"
  nodes_count                  = 3
  flavor_id                    = "1011"
  local_volume                 = true
  install_nvidia_device_plugin = false
}
