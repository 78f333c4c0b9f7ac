"""Cloud adapters: the gateway over the ``yandexcloud`` SDK, the RPC retry policy, the
operation waiter and the credentials. Importing this package does not import the SDK.

Public surface::

    from ngupgrade.adapters.cloud.gateway import CloudGateway, ConflictPolicy, open_gateway
    from ngupgrade.adapters.cloud.waiter import PollPolicy, wait_operation, wait_reconciled
    from ngupgrade.adapters.cloud.types import (LiveNodeGroup, LiveNode, LiveCluster, OperationRef,
                                       OperationState)
"""
