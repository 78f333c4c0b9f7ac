# Example configuration behind terraform.tfstate: one zonal cluster and three node groups
# (fixed size, autoscaled inside a module with for_each, GPU). The demo and the tests read
# the matching state; nothing here is applied by ngupgrade.
terraform {
  required_providers {
    yandex = {
      source  = "yandex-cloud/yandex"
      version = ">= 0.120"
    }
  }
  required_version = ">= 1.5"
}

provider "yandex" {
  folder_id = var.folder_id
  zone      = "ru-central1-a"
}

variable "folder_id" {
  type    = string
  default = "b1gexamplefolder00001"
}

resource "yandex_vpc_network" "k8s" {
  name = "k8s"
}

resource "yandex_vpc_subnet" "a" {
  name           = "k8s-a"
  zone           = "ru-central1-a"
  network_id     = yandex_vpc_network.k8s.id
  v4_cidr_blocks = ["10.1.0.0/16"]
}

resource "yandex_iam_service_account" "k8s" {
  name = "k8s-main"
}

resource "yandex_kubernetes_cluster" "main" {
  name       = "prod"
  network_id = yandex_vpc_network.k8s.id
  master {
    version   = "1.30"
    public_ip = true
    zonal {
      zone      = yandex_vpc_subnet.a.zone
      subnet_id = yandex_vpc_subnet.a.id
    }
  }
  service_account_id      = yandex_iam_service_account.k8s.id
  node_service_account_id = yandex_iam_service_account.k8s.id
  release_channel         = "REGULAR"
}

# Fixed-size workers: surge one node at a time, never a node down.
resource "yandex_kubernetes_node_group" "workers" {
  cluster_id = yandex_kubernetes_cluster.main.id
  name       = "workers"
  version    = "1.29"

  instance_template {
    platform_id = "standard-v3"
    network_interface {
      nat        = true
      subnet_ids = [yandex_vpc_subnet.a.id]
    }
    resources {
      cores         = 4
      core_fraction = 100
      memory        = 16
    }
    boot_disk {
      type = "network-ssd"
      size = 64
    }
    container_runtime {
      type = "containerd"
    }
  }

  scale_policy {
    fixed_scale {
      size = 3
    }
  }

  deploy_policy {
    max_expansion   = 1
    max_unavailable = 0
  }

  allocation_policy {
    location {
      zone = "ru-central1-a"
    }
  }

  maintenance_policy {
    auto_upgrade = false
    auto_repair  = true
  }
}

# GPU group: no deploy_policy block, so the server default (3/0) applies.
resource "yandex_kubernetes_node_group" "gpu" {
  cluster_id = yandex_kubernetes_cluster.main.id
  name       = "gpu"
  version    = "1.29"

  instance_template {
    platform_id = "gpu-standard-v3"
    network_interface {
      nat        = false
      subnet_ids = [yandex_vpc_subnet.a.id]
    }
    resources {
      cores  = 28
      memory = 119
      gpus   = 1
    }
    boot_disk {
      type = "network-ssd-nonreplicated"
      size = 186
    }
  }

  scale_policy {
    fixed_scale {
      size = 1
    }
  }

  allocation_policy {
    location {
      zone = "ru-central1-a"
    }
  }
}

module "pools" {
  source     = "./modules/pools"
  for_each   = { prod = { batch = { min = 1, max = 7 } } }
  cluster_id = yandex_kubernetes_cluster.main.id
  subnet_id  = yandex_vpc_subnet.a.id
  pools      = each.value
}
