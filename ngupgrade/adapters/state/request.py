"""How to find a Terraform state: the ``--state`` text plus the options its kind uses.

Its own module so that the readers (``sources``, ``s3``, ``terraform_cli``) take it without
importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StateRequest:
    """How to find a state: the ``--state`` text plus the options its kind uses."""

    spec: str | None
    terraform_bin: str = "terraform"
    workspace: str = "default"
    workspace_key_prefix: str = "env:"
    s3_endpoint: str = "https://storage.yandexcloud.net"
    s3_region: str = "ru-central1"
