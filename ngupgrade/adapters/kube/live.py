"""The same objects as a dump, read live through the official ``kubernetes`` client.

Read-only: list calls only (nodes, pods, PVCs, PVs; Deployments, ReplicaSets, StatefulSets,
DaemonSets; PodDisruptionBudgets; ``Ytsaurus`` objects when that CRD is installed), each
across all namespaces and paginated with ``limit``/``continue``, so the number of calls grows
with object kinds and pages, never with nodes or node groups (``bench/bench_kube_dump.py``).

Each page is fetched raw (``_preload_content=False``: the client's own models would build
far more objects than the drain check reads, and slowly) and goes to the dump's parser
(``decode.Collector``): one parser behind both inputs.

Credentials are the kubeconfig's: tokens, client certificates and exec plugins, which is what
``yc managed-kubernetes cluster get-credentials`` writes (an exec plugin running
``yc k8s create-token``). The kubeconfig is never written back (``persist_config=False``).
The client is imported inside the functions: other commands never pay for it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ngupgrade.adapters.kube.decode import Collector, KubeRead
from ngupgrade.core.errors import BadInput, KubeApiError, NotYaml

DEFAULT_PAGE_SIZE = 500
"""Objects per list call: kubectl's own chunk size (``--chunk-size``, default 500)."""
PDB_PAGE_SIZE = 5000
"""PodDisruptionBudgets per list call while an upgrade is watched: a PDB is about 1 KB, so a
cluster at Kubernetes' published limits (3,000 PDBs in bench/bench_kube_dump.py) is one page
of ~3 MB, and the calls per poll do not grow with the cluster (bench/bench_watch_calls.py)."""
DEFAULT_TIMEOUT = 60.0
"""Seconds per list call (connect and read)."""

YTSAURUS = ("cluster.ytsaurus.tech", "v1", "ytsaurus")
"""group, version, plural of the YTsaurus operator's CRD
(ytsaurus/ytsaurus-k8s-operator ``config/crd/bases/cluster.ytsaurus.tech_ytsaurus.yaml``)."""

# (path as kubectl names it, API class attribute, method): the list calls, in this order.
LIST_CALLS: tuple[tuple[str, str, str], ...] = (
    ("/api/v1/nodes", "CoreV1Api", "list_node"),
    ("/api/v1/pods", "CoreV1Api", "list_pod_for_all_namespaces"),
    ("/api/v1/persistentvolumeclaims", "CoreV1Api",
     "list_persistent_volume_claim_for_all_namespaces"),
    ("/api/v1/persistentvolumes", "CoreV1Api", "list_persistent_volume"),
    ("/apis/apps/v1/deployments", "AppsV1Api", "list_deployment_for_all_namespaces"),
    ("/apis/apps/v1/replicasets", "AppsV1Api", "list_replica_set_for_all_namespaces"),
    ("/apis/apps/v1/statefulsets", "AppsV1Api", "list_stateful_set_for_all_namespaces"),
    ("/apis/apps/v1/daemonsets", "AppsV1Api", "list_daemon_set_for_all_namespaces"),
    ("/apis/policy/v1/poddisruptionbudgets", "PolicyV1Api",
     "list_pod_disruption_budget_for_all_namespaces"),
)


def default_kubeconfig() -> str:
    """``$KUBECONFIG`` (may list several files, ``:``-separated) or ``~/.kube/config``."""
    return os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")


def read_live(kubeconfig: str | None = None, context: str | None = None, *,
              page_size: int = DEFAULT_PAGE_SIZE, timeout: float = DEFAULT_TIMEOUT
              ) -> KubeRead:
    """List the cluster's objects through the kubeconfig's current (or given) context.

    Args:
        kubeconfig: path (or ``:``-separated paths); None -> :func:`default_kubeconfig`.
        context: a context name of that kubeconfig; None -> its ``current-context``.
        page_size: ``limit`` of each list call (>= 1).
        timeout: seconds per call.

    Returns:
        The snapshot (as :func:`ngupgrade.adapters.kube.read_dumps` would build from the same
        objects) and notes (e.g. the Ytsaurus CRD is not installed).

    Raises:
        KubeApiError: bad or missing kubeconfig, unknown context, connection refused, TLS
            failure, 401/403 or any other API error (exit 4, hint: check kubeconfig/context).
        BadInput: the API served an object that cannot be read (names the URL and JSON path).
    """
    path = kubeconfig or default_kubeconfig()
    api = _api_client(path, context)
    try:
        server = str(api.configuration.host).rstrip("/")
        collector = Collector()
        for url, cls, method in LIST_CALLS:
            _list_all(collector, getattr(_client_module(), cls)(api), method, (),
                      f"{server}{url}", page_size, timeout)
        _list_ytsaurus(collector, api, server, page_size, timeout)
        return collector.result()
    finally:
        api.close()


class LiveLister:
    """A read-only session on the cluster for repeated looks while an upgrade runs:
    the client is built once (an exec plugin runs per token, not per poll), and each look is
    one paginated list call per kind asked for, filtered on the server.

    ``timeout``: seconds per call; ``retries``: urllib3's retries per call (None: the
    client's default; 0 when the caller retries itself, with its own backoff).

    ``pods(field_selector)`` lists pods across all namespaces, e.g. ``spec.nodeName=NODE``
    (the call ``kubectl drain`` makes per node) or ``spec.nodeName=,status.phase=Pending``
    (pods no node took); ``pdbs()`` lists every PodDisruptionBudget. ``calls`` counts the
    HTTP requests made (pages included). Use as a context manager or call :meth:`close`.

    Raises (from the constructor and each list):
        KubeApiError: as :func:`read_live` (exit 4).
        BadInput: an object the parser cannot read (names the URL and JSON path).
    """

    def __init__(self, kubeconfig: str | None = None, context: str | None = None, *,
                 page_size: int = DEFAULT_PAGE_SIZE, timeout: float = DEFAULT_TIMEOUT,
                 retries: int | None = None) -> None:
        self._api = _api_client(kubeconfig or default_kubeconfig(), context, retries)
        self._server = str(self._api.configuration.host).rstrip("/")
        self.page_size = page_size
        self.timeout = timeout
        self.calls = 0

    def pods(self, field_selector: str = "") -> tuple[Any, ...]:
        """``core.k8s.Pod`` values of the pods the selector keeps, in (namespace, name) order."""
        snapshot = self._list("/api/v1/pods", "CoreV1Api", "list_pod_for_all_namespaces",
                              field_selector)
        return snapshot.pods

    def pdbs(self) -> tuple[Any, ...]:
        """``core.k8s.PodDisruptionBudget`` values, with the disruption controller's status,
        in pages of :data:`PDB_PAGE_SIZE`."""
        return self._list("/apis/policy/v1/poddisruptionbudgets", "PolicyV1Api",
                          "list_pod_disruption_budget_for_all_namespaces", "",
                          max(self.page_size, PDB_PAGE_SIZE)).pdbs

    def _list(self, path: str, cls: str, method: str, field_selector: str,
              page_size: int | None = None) -> Any:
        collector = Collector()
        api = getattr(_client_module(), cls)(self._api)
        extra = {"field_selector": field_selector} if field_selector else {}
        url = f"{self._server}{path}" + (f"?fieldSelector={field_selector}"
                                         if field_selector else "")
        self.calls += _list_all(collector, api, method, (), url, page_size or self.page_size,
                                self.timeout, extra)
        return collector.result().snapshot

    def close(self) -> None:
        """Release the client's connections."""
        self._api.close()

    def __enter__(self) -> LiveLister:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _client_module() -> Any:
    from kubernetes import client

    return client


def _api_client(path: str, context: str | None, retries: int | None = None) -> Any:
    """The client of ``config.new_client_from_config``; ``retries`` (not None) replaces
    urllib3's own (3 tries more per call on a timeout or a refused connection)."""
    import yaml
    from kubernetes import client, config
    from kubernetes.config.config_exception import ConfigException

    _check_files(path)
    try:
        # new_client_from_config's own steps, with the retries set before the pool exists
        configuration = type.__call__(client.Configuration)
        config.load_kube_config(config_file=path, context=context,
                                client_configuration=configuration, persist_config=False)
        if retries is not None:
            configuration.retries = retries
        return client.ApiClient(configuration=configuration)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise KubeApiError(f"kubeconfig {path}: not valid YAML{where}: "
                           f"{getattr(err, 'problem', None) or _first_line(err)}") from err
    except ConfigException as err:
        names = _context_names(path)
        if context and names is not None and context not in names:
            raise KubeApiError(
                f"kubeconfig {path} has no context {context!r}",
                hint=f"its contexts: {', '.join(sorted(names)) or '(none)'}; "
                     + KubeApiError.HINT) from err
        raise KubeApiError(f"kubeconfig {path}: {_first_line(err)}") from err
    except (OSError, ValueError, TypeError, AttributeError) as err:
        # a file that is not a kubeconfig at all (YAML of another shape, binary) lands here
        shape = _top_level(path)
        why = (f"not a kubeconfig: its top level is a {shape}, not a mapping" if shape
               else f"cannot be read: {_first_line(err)}")
        raise KubeApiError(f"kubeconfig {path}: {why}") from err


def _check_files(path: str) -> None:
    """Each file of a ``:``-separated kubeconfig path must exist (the client's own words for
    a missing file are "Invalid kube-config file. No configuration found.")."""
    from ngupgrade.adapters.documents import load_yaml, read_bounded

    for one in path.split(os.pathsep):
        if one and not os.path.exists(one):
            raise KubeApiError(f"kubeconfig {one}: file not found")
        if not one or os.path.isdir(one):
            continue
        # The client loads it with yaml.safe_load and walks it: an alias bomb (a few hundred
        # bytes of anchors and aliases, a billion nodes as a tree) would pin a CPU there.
        try:
            load_yaml(read_bounded(one, "kubeconfig"), one)
        except NotYaml:
            continue  # the client's own error names the line (below)
        except BadInput as err:
            raise KubeApiError(f"kubeconfig {err}") from err


def _top_level(path: str) -> str | None:
    """The YAML type name of a kubeconfig file whose top level is not a mapping, else None."""
    from ngupgrade.adapters.documents import load_yaml, read_bounded

    for one in path.split(os.pathsep):
        try:
            data = load_yaml(read_bounded(one, "kubeconfig"), one)
        except BadInput:
            continue
        if data is not None and not isinstance(data, dict):
            names: dict[type, str] = {list: "list", str: "string"}
            return names.get(type(data), type(data).__name__)
    return None


def _context_names(path: str) -> list[str] | None:
    from kubernetes import config

    try:
        contexts, _current = config.list_kube_config_contexts(config_file=path)
    except Exception:  # the kubeconfig itself is broken: the caller reports that instead
        return None
    return [str(c.get("name")) for c in contexts or ()]


def _list_all(collector: Collector, api: Any, method: str, args: tuple[Any, ...], url: str,
              page_size: int, timeout: float, extra: dict[str, Any] | None = None) -> int:
    """Every page of one list call into ``collector``; the number of requests made."""
    token: str | None = None
    page = 0
    while True:
        page += 1
        kwargs: dict[str, Any] = {"limit": page_size, "_preload_content": False,
                                  "_request_timeout": timeout, **(extra or {})}
        if token:
            kwargs["_continue"] = token
        with _translated(url):
            response = getattr(api, method)(*args, **kwargs)
            try:
                data = response.data
                content_type = str(response.headers.get("Content-Type") or "")
            finally:
                response.release_conn()
        source = url if page == 1 else f"{url} (page {page})"
        _check_json_answer(data, content_type, source, int(response.status or 0))
        token = collector.add_document(data, source)
        if not token:
            return page


def _list_ytsaurus(collector: Collector, api: Any, server: str, page_size: int,
                   timeout: float) -> None:
    from kubernetes.client.exceptions import ApiException

    group, version, plural = YTSAURUS
    url = f"{server}/apis/{group}/{version}/{plural}"
    custom = _client_module().CustomObjectsApi(api)
    try:
        _list_all(collector, custom, "list_cluster_custom_object", (group, version, plural),
                  url, page_size, timeout)
    except KubeApiError as err:
        if not isinstance(err.__cause__, ApiException) or err.status != 404:
            raise
        collector.notes.append(f"no Ytsaurus objects: the CRD {plural}.{group} is not "
                               "installed (404)")


@contextmanager
def _translated(url: str) -> Iterator[None]:
    """Foreign client errors -> KubeApiError naming the URL (with ``raise ... from``)."""
    import urllib3
    from kubernetes.client.exceptions import ApiException
    from kubernetes.config.config_exception import ConfigException

    try:
        yield
    except ApiException as err:
        status = int(err.status or 0)
        if status == 0:  # the client's wrapping of a TLS failure
            raise KubeApiError(f"{url}: TLS failed: {_first_line(err.reason)}") from err
        raise KubeApiError(f"{url}: {status} {err.reason or ''}: {_status_message(err.body)}",
                           status=status) from err
    except urllib3.exceptions.HTTPError as err:
        reason = getattr(err, "reason", None) or err
        what = ("TLS failed" if isinstance(reason, urllib3.exceptions.SSLError)
                else "no answer in time" if isinstance(reason, urllib3.exceptions.ReadTimeoutError)
                else "cannot connect")
        raise KubeApiError(f"{url}: {what}: {_first_line(reason)}") from err
    except ConfigException as err:  # exec plugins and token files are read on each call
        raise KubeApiError(f"{url}: credentials: {_first_line(err)}") from err


def _check_json_answer(data: bytes, content_type: str, source: str, status: int) -> None:
    """A Kubernetes API answers a list call with JSON; an HTML page (a proxy's error or
    login page, a wrong server address) is an API failure (exit 4, the kubeconfig hint), not
    a bad dump to re-export.

    Raises:
        KubeApiError: the body is markup, or the Content-Type names neither JSON nor nothing.
    """
    head = data.lstrip()[:1]
    kind = content_type.split(";", 1)[0].strip().lower()
    if head == b"<" or (kind and "json" not in kind):
        title = re.search(rb"<title>([^<]{1,120})</title>", data, re.IGNORECASE)
        seen = f": {title.group(1).decode('utf-8', 'replace').strip()}" if title else ""
        raise KubeApiError(f"{source}: the server answered {kind or 'markup'}, not Kubernetes "
                           f"API JSON{seen} (a proxy or a wrong server address in the "
                           "kubeconfig?)", status=status or None)


def _status_message(body: object) -> str:
    """The ``message`` of a ``Status`` body, else the body's first line."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body or "")
    try:
        doc = json.loads(text)
    except ValueError:
        return _first_line(text) or "(no body)"
    if isinstance(doc, dict) and isinstance(doc.get("message"), str):
        return str(doc["message"])
    return _first_line(text)


def _first_line(value: object) -> str:
    lines = str(value).strip().splitlines()
    return lines[0] if lines else ""

