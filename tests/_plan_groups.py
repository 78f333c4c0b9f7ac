"""Node groups for the plan tests (no state file needed), built on ngupgrade.testing.node_group:
a group on 1.30 without ``instance_template`` (the plan reads only scale and policy)."""

from __future__ import annotations

from ngupgrade.core.model import (
    AutoScale,
    DeployPolicy,
    FixedScale,
    NodeGroup,
    PlatformName,
    ScalePolicy,
)
from ngupgrade.testing.builders import node_group


def group(
    scale: ScalePolicy,
    policy: DeployPolicy | None,
    *,
    name: str = "workers",
    gid: str = "cat0000000000000ng01",
    platform: PlatformName = "yandex",
) -> NodeGroup:
    """A node group at ``yandex_kubernetes_node_group.<name>`` with the given scale and policy
    (``selectel_mks_nodegroup_v1.<name>`` with ``platform="selectel"``)."""
    return node_group(gid, name=name, version="1.30", status="RUNNING", scale=scale,
                      policy=policy, template=False, cloud=platform)


def fixed(size: int, e: int | None, u: int | None = None, **kw: str) -> NodeGroup:
    """A fixed group of ``size`` nodes; ``e=None`` leaves the policy unset."""
    policy = None if e is None else DeployPolicy(e, u or 0)
    return group(FixedScale(size), policy, **kw)


def auto(lo: int, hi: int, e: int | None, u: int | None = None, *, initial: int | None = None,
         **kw: str) -> NodeGroup:
    """An autoscaled group ``lo..hi``; ``e=None`` leaves the policy unset."""
    policy = None if e is None else DeployPolicy(e, u or 0)
    return group(AutoScale(lo, hi, lo if initial is None else initial), policy, **kw)


def sel_fixed(size: int, e: int | None, u: int | None = None, **kw: str) -> NodeGroup:
    """A fixed Selectel group (``nodes_count`` = ``size``); ``e=None`` leaves E/U unset."""
    policy = None if e is None else DeployPolicy(e, u or 0)
    return group(FixedScale(size), policy, platform="selectel", **kw)


def sel_auto(lo: int, hi: int, e: int | None, u: int | None = None, **kw: str) -> NodeGroup:
    """An autoscaled Selectel group ``lo..hi``; ``e=None`` leaves E/U unset."""
    policy = None if e is None else DeployPolicy(e, u or 0)
    return group(AutoScale(lo, hi, lo), policy, platform="selectel", **kw)
