"""Node groups for the plan tests, built directly (no state file needed)."""

from __future__ import annotations

from ngupgrade.core.model import (
    AutoScale,
    DeployPolicy,
    FixedScale,
    NodeGroup,
    ScalePolicy,
    TfAddress,
)


def group(
    scale: ScalePolicy,
    policy: DeployPolicy | None,
    *,
    name: str = "workers",
    gid: str = "cat0000000000000ng01",
) -> NodeGroup:
    """A node group at ``yandex_kubernetes_node_group.<name>`` with the given scale and policy."""
    return NodeGroup(
        address=TfAddress("yandex_kubernetes_node_group", name),
        id=gid,
        name=name,
        cluster_id="catq0n7i0h9ka1b2c3d4",
        folder_id="b1gexamplefolder00001",
        version="1.30",
        status="RUNNING",
        policy=policy,
        scale=scale,
        node=None,
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
