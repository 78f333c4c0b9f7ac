"""ngupgrade: safe Yandex Managed Kubernetes node-group upgrades next to Terraform.

The public surface is small: the command line (``ngupgrade --help``), the domain values in
:mod:`ngupgrade.core.model`, and the fake cloud for runbook tests in :mod:`ngupgrade.testing`.
See ARCHITECTURE.md for the map of the package.
"""

__version__ = "0.1.0"
