"""The cluster side of the drain check: Kubernetes objects from kubectl dumps or a live API.

``read_dumps(paths)`` reads ``--cluster`` files (``dump.py``); ``read_live(kubeconfig,
context)`` lists the same objects through the official client (``live.py``, imported lazily).
Both feed one parser (``decode.py``) and return a :class:`KubeRead`: a
``ngupgrade.core.k8s.ClusterSnapshot`` plus notes. Only reads; nothing here writes to a cluster.
"""

from ngupgrade.adapters.kube.decode import KubeRead
from ngupgrade.adapters.kube.dump import read_dump_bytes, read_dumps

__all__ = ["KubeRead", "read_dump_bytes", "read_dumps"]
