"""The verdict that closes a group's run when a step stopped it before the verify step judged.

Every group the runbook starts ends with one ``verdict`` event (docs/events.md). The verify
step sends it when it judges, the wait with progress when the version operation fails, the
runbook when there is nothing to do; this module gives the one for every other way a step
stops the run with the group's outcome known: a group STOPPED (or DELETING) after an
operation that succeeded (:class:`~ngupgrade.adapters.cloud.waiter.GroupNotRunning`, in any
step), a policy that did not take, a policy operation that failed, someone else's operation
on ``--resume``. A run that stops while its operation may still run (a stall, the
``--timeout``, Ctrl-C, an API error) gets none: its outcome is not known yet.
"""

from __future__ import annotations

from ngupgrade.core.errors import CheckFailed, CloudApiError, OperationFailed
from ngupgrade.upgrade.context import Prepared
from ngupgrade.upgrade.events import Verdict
from ngupgrade.upgrade.values import UpgradeApi


def stopped_verdict(api: UpgradeApi, prep: Prepared, err: CheckFailed | OperationFailed,
                    target: str | None) -> Verdict | None:
    """The ``verdict`` (``ok`` false) of ``prep``'s run, stopped by ``err``, judged from the
    group as read now: a failed operation in the failed-operation shape (``error``,
    ``version_unchanged``), anything else in the verify step's shape with ``err``'s message as
    its one problem (``target``: the version asked for, None with ``--latest-revision``).
    None when the group cannot be read (the error line still says what stopped the run).
    """
    gid = prep.group.id
    try:
        live = api.get_node_group(gid)
        nodes = len(api.list_nodes(gid))
    except CloudApiError:
        return None
    if isinstance(err, OperationFailed):
        return Verdict(group=prep.address, ok=False, operation_id=err.operation_id,
                       error={"code": err.code, "code_name": err.code_name,
                              "message": err.error_message},
                       version=live.version,
                       version_unchanged=live.version == prep.journal.start_version,
                       status=live.status, nodes=nodes)
    return Verdict(group=prep.address, ok=False, operation_id=getattr(err, "operation_id", None),
                   status=live.status, version=live.version, target=target, nodes=nodes,
                   start_nodes=prep.journal.start_nodes, problems=[err.message])
