# Autoscaled node groups, one per entry of var.pools (for_each with string keys).
variable "cluster_id" { type = string }
variable "subnet_id" { type = string }
variable "pools" {
  type = map(object({ min = number, max = number }))
}

resource "yandex_kubernetes_node_group" "this" {
  for_each   = var.pools
  cluster_id = var.cluster_id
  name       = each.key
  version    = "1.29"

  instance_template {
    platform_id = "standard-v3"
    network_interface {
      nat        = false
      subnet_ids = [var.subnet_id]
    }
    resources {
      cores         = 2
      core_fraction = 50
      memory        = 4
    }
    boot_disk {
      type = "network-hdd"
      size = 96
    }
    scheduling_policy {
      preemptible = true
    }
  }

  scale_policy {
    auto_scale {
      min     = each.value.min
      max     = each.value.max
      initial = each.value.min
    }
  }

  deploy_policy {
    max_expansion   = 2
    max_unavailable = 1
  }

  node_taints = ["dedicated=${each.key}:NoSchedule"]

  allocation_policy {
    location {
      zone = "ru-central1-a"
    }
  }
}
