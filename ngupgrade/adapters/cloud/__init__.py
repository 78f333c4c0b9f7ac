"""Cloud adapters: the gateway over the ``yandexcloud`` SDK, the RPC retry policy, the
operation waiter and the credentials. Importing this package does not import the SDK.

Public surface::

    from ngupgrade.adapters.cloud.gateway import CloudGateway, open_gateway   # reads, bare Update
    from ngupgrade.adapters.cloud.proto import mask_paths, operation_state    # protobuf mapping
    from ngupgrade.adapters.cloud.waiter import PollPolicy, Timing, wait_operation, wait_reconciled
    from ngupgrade.adapters.cloud.types import (LiveNodeGroup, LiveNode, LiveCluster, OperationRef,
                                       OperationState)

Under the gateway: ``rpc`` (stubs, deadline, request ids, retry of reads, error translation),
``retry`` (the transient codes and the backoff), ``auth`` (endpoint and credentials).
"""
