"""Node groups for the plan tests, built directly (no state file needed)."""

from __future__ import annotations

from ngupgrade.core.model import (
    AutoScale,
    DeployPolicy,
    FixedScale,
    NodeGroup,
    PlatformName,
    ScalePolicy,
    TfAddress,
)


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
    rtype = {"yandex": "yandex_kubernetes_node_group",
             "selectel": "selectel_mks_nodegroup_v1"}[platform]
    return NodeGroup(
        address=TfAddress(rtype, name),
        id=gid,
        name=name,
        cluster_id="catq0n7i0h9ka1b2c3d4",
        folder_id="b1gexamplefolder00001",
        version="1.30",
        status="RUNNING",
        policy=policy,
        scale=scale,
        node=None,
        platform=platform,
    )


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
