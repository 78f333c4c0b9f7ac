"""What one invocation was asked to do, gathered from flags and the environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass
class Settings:
    """Shared options of every command (README.md); defaults are the documented ones.

    ``state`` None means ``./terraform.tfstate``. ``endpoint`` None means the public cloud
    (``api.cloud.yandex.net``) when a command needs the API at all.
    """

    state: str | None = None
    output: Literal["table", "json", "junit"] = "table"
    terraform_bin: str = "terraform"
    workspace: str = "default"
    workspace_key_prefix: str = "env:"
    s3_endpoint: str = "https://storage.yandexcloud.net"
    s3_region: str = "ru-central1"
    endpoint: str | None = None
    insecure: bool = False
    ca_file: str | None = None
    plan: str | None = None
    """``--plan``: a Terraform plan's JSON (``FILE``, ``-``, ``tf:DIR[/PLANFILE]``); commands that
    take it read the plan instead of the state (docs/plan-gate.md)."""
    platform: Literal["yandex", "selectel"] | None = None
    """``--platform``: every node group under this platform's rules; None: from the resource
    type (``yandex_kubernetes_node_group`` or ``selectel_mks_nodegroup_v1``)."""
    explicit: set[str] = field(default_factory=set)
    """Names of the options typed on the command line (they beat the environment)."""
