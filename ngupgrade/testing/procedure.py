"""The platform's node-by-node upgrade procedure, as the fake cloud performs it.

Written from the Yandex Cloud docs page "Node group deploy policy" (Managed Service for
Kubernetes > Concepts > Node group; "the page" below), and on purpose NOT taken
from the planner (:mod:`ngupgrade.core.simulate`): the fake plays the cloud, so a runbook test
against it can catch a planner that predicts the wrong steps. The planner counts nodes in a
loop; the fake looks at its live nodes before each step and decides what the platform does
next:

* drained nodes come first. Expansion only (``U'=0``, the page's ``max_expansion > 0`` policy:
  "с последующим удалением таких узлов"): they are deleted. Otherwise (the ``max_unavailable >
  0`` policy, and the example with 5 nodes at 2/2) a drained node is updated in place while
  fewer than N nodes run the new version, and deleted once N do (surge nodes are permanent,
  the parameter table, so the group ends at N);
* expansion only: with no surge node waiting, create ``min(E', old left)`` new nodes (the
  ``max_expansion > 0`` policy and its example with 5 nodes at 2/0); once they are up, drain
  as many old nodes;
* ``U'>0``: with ``E'>0`` the group first grows by ``E'`` (the combined policy and its example
  with 5 nodes at 2/2), then old nodes are drained ``U'`` at a time.

``E' = min(E, N)``, ``U' = min(U, N)`` (the values are reduced to the group size: Selectel's
"Стратегия обновления версии Kubernetes в группе нод Managed Kubernetes"; ``docs/sources.md``).
The page's 2/2 example allows the platform to reorder events within a cycle; the fake does one
action per step: create before drain.
"""

from __future__ import annotations

from ngupgrade.core.model import DeployPolicy
from ngupgrade.testing.objects import AppliedStep, FakeGroup, FakeOperation

ACTIONS = ("create", "drain", "update_in_place", "delete")


def clamped(policy: DeployPolicy, nodes: int) -> tuple[int, int]:
    """``(E', U')``: the policy's surge and unavailability, each at most ``nodes``; negative
    values (never accepted by the API) count as 0."""
    return (max(0, min(policy.max_expansion, nodes)),
            max(0, min(policy.max_unavailable, nodes)))


def next_step(group: FakeGroup, op: FakeOperation) -> tuple[str, int] | None:
    """The platform's next action on ``group`` for version update ``op``: ``(action, nodes)``,
    or None when every node runs ``op.target_version`` (the update is complete).

    Raises:
        ValueError: ``op`` has neither surge nor unavailability for a non-empty group (the API
            refuses such a policy: the deploy-policy page).
    """
    target, n = op.target_version, op.start_nodes
    new = [m for m in group.members if m.version == target]
    drained = [m for m in group.members if m.drained]
    waiting = [m for m in group.members if m.version != target and not m.drained]
    if drained:
        room = n - len(new)  # nodes the group still lacks on the new version
        if op.unavailable > 0 and room > 0:
            return "update_in_place", min(len(drained), room)
        return "delete", len(drained)
    if not waiting:
        return None
    if op.surge == 0 and op.unavailable == 0:
        raise ValueError("a deploy policy of 0/0 cannot upgrade a non-empty group")
    if op.unavailable == 0:
        surge_up = group.nodes - n  # new nodes up and not yet matched by drained old ones
        if surge_up > 0:
            return "drain", min(surge_up, len(waiting))
        return "create", min(op.surge, len(waiting))
    if op.surge > 0 and not new and group.nodes == n:
        return "create", op.surge
    return "drain", min(op.unavailable, len(waiting))


def apply_step(group: FakeGroup, action: str, count: int, target: str) -> AppliedStep:
    """Do one action to ``count`` nodes: create new ones on ``target``, cordon and drain old
    ones, update drained ones in place (same instance, new version) or delete them."""
    if action == "create":
        for _ in range(count):
            group.add_node(target)
    elif action == "drain":
        for m in [m for m in group.members if m.version != target and not m.drained][:count]:
            m.drained = True
    elif action == "update_in_place":
        for m in [m for m in group.members if m.drained][:count]:
            m.version, m.drained, m.stopped = target, False, False
    elif action == "delete":
        gone = {id(m) for m in [m for m in group.members if m.drained][:count]}
        group.members = [m for m in group.members if id(m) not in gone]
    else:
        raise ValueError(f"unknown step action {action!r} (known: {', '.join(ACTIONS)})")
    return AppliedStep(action, count, group.nodes,
                       sum(1 for m in group.members if m.version == target))


def step_bound(nodes: int) -> int:
    """At most this many steps upgrade ``nodes`` nodes: each old node is drained once and then
    updated or deleted, after at most one create (a guard: the fake must never loop)."""
    return 3 * nodes + 1
