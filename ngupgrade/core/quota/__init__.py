"""The quota preflight (docs/quota-preflight.md, docs/plan-gate.md): what an upgrade's or a
Terraform plan's new nodes consume, and whether the cloud has room for them. Pure.

Modules, inside out (import from them; this package re-exports nothing):
:mod:`.catalog` (the quota ids one node consumes, per platform, disk type and GPU) with
:mod:`.selectel` (Selectel's project quotas per zone); :mod:`.demand` (the extra nodes of an
upgrade and what they need); :mod:`.plan` (the same for each change of a Terraform plan);
:mod:`.verdict` (demand against limit and usage: ``ok``, ``short`` or ``unknown``);
:mod:`.suggest` (the largest deploy policy that fits); :mod:`.preflight` (the whole verdict:
:func:`~.preflight.evaluate`, and what to say when it fails); :mod:`.limits` (the per-group,
per-cluster, zonal and placement-group limits and the auto-upgrade window, added to it).
"""
