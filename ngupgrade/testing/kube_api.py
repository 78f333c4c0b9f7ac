"""A fake Kubernetes API on 127.0.0.1 for the live drain check, reached through the real client.

It serves the list endpoints ``ngupgrade.adapters.kube.live`` calls (core/v1 nodes, pods,
persistentvolumeclaims, persistentvolumes; apps/v1 deployments, replicasets, statefulsets,
daemonsets; policy/v1 poddisruptionbudgets; the ``Ytsaurus`` CRD's list, 404 when the CRD is
not seeded), with the API server's pagination (``limit``, an opaque ``continue`` token,
``remainingItemCount``), ``Status`` error bodies, an optional bearer token, scripted faults and
a log of every request. Only GET is served: anything else answers 405 and stays in the log, so
a test can assert the reader never wrote.

Seeded from raw object dicts, the same JSON a ``kubectl get -o json`` dump holds, so the live
path and the dump path are tested on identical data. Items are served as the API serves them:
built-in kinds without ``kind``/``apiVersion`` in a typed list (``PodList``), custom resources
with them, each list sorted by namespace and name (etcd's key order).

Built on the standard library's ``http.server`` (threaded): the list API is a handful of GET
routes with JSON bodies, and no maintained Kubernetes emulator in the virtualenv runs without
docker or kube binaries; a stdlib server adds no dependency to the kit.

At a cluster of the platform's limits (1,000 nodes, 110,000 pods) while the fake cloud's upgrade
changes it (:mod:`ngupgrade.testing.kube_follow`): an object is serialized when it is first
served after a change, not at every change; pods are indexed by ``spec.nodeName``, so the list
``kubectl drain`` makes per node (``fieldSelector=spec.nodeName=NODE``) reads that node's pods,
not every pod; an unfiltered page is a slice of the sorted keys. :attr:`FakeKubeApi.revision`
counts the changes, so a reader that keeps its own index of the objects
(:class:`ngupgrade.testing.kube_index.ClusterIndex`) can tell a change it did not make.
"""

from __future__ import annotations

import base64
import json
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import msgspec

# kind -> (list path, list kind, apiVersion, namespaced)
RESOURCES: dict[str, tuple[str, str, str, bool]] = {
    "Node": ("/api/v1/nodes", "NodeList", "v1", False),
    "Pod": ("/api/v1/pods", "PodList", "v1", True),
    "PersistentVolumeClaim": ("/api/v1/persistentvolumeclaims", "PersistentVolumeClaimList",
                              "v1", True),
    "PersistentVolume": ("/api/v1/persistentvolumes", "PersistentVolumeList", "v1", False),
    "Deployment": ("/apis/apps/v1/deployments", "DeploymentList", "apps/v1", True),
    "ReplicaSet": ("/apis/apps/v1/replicasets", "ReplicaSetList", "apps/v1", True),
    "StatefulSet": ("/apis/apps/v1/statefulsets", "StatefulSetList", "apps/v1", True),
    "DaemonSet": ("/apis/apps/v1/daemonsets", "DaemonSetList", "apps/v1", True),
    "PodDisruptionBudget": ("/apis/policy/v1/poddisruptionbudgets",
                            "PodDisruptionBudgetList", "policy/v1", True),
    "Ytsaurus": ("/apis/cluster.ytsaurus.tech/v1/ytsaurus", "YtsaurusList",
                 "cluster.ytsaurus.tech/v1", True),
}
CUSTOM_KINDS = frozenset({"Ytsaurus"})
EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


@dataclass(frozen=True)
class Request:
    """One request the fake received: ``query`` is the decoded query string."""

    method: str
    path: str
    query: Mapping[str, str]
    authorization: str | None = None


@dataclass
class _Fault:
    status: int | None  # None: answer as usual, after the delay
    message: str
    times: int | None  # None: every request
    delay: float = 0.0  # real seconds before the answer


class _QuietServer(ThreadingHTTPServer):
    """The fake's HTTP server: a client that hangs up mid-answer (a read timeout, a watch given
    up) is what real clients do, not a fault of the fake, so it prints no traceback for it."""

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class FakeKubeApi:
    """The fake API server. Use as a context manager, or :meth:`start` / :meth:`stop`.

    Args:
        objects: raw object dicts with ``kind`` (kinds it does not serve are ignored), or
            kubectl ``List`` documents whose ``items`` are taken.
        token: when set, every request needs ``Authorization: Bearer <token>`` (else 401).
        ytsaurus_crd: serve the Ytsaurus list; default: only when a Ytsaurus object is seeded.

    Attributes:
        requests: every :class:`Request` received, in order.
        revision: changes so far (every object added, put or deleted counts one).
    """

    def __init__(self, objects: Iterable[Mapping[str, Any]] = (), *, token: str | None = None,
                 ytsaurus_crd: bool | None = None) -> None:
        self.token = token
        self.ytsaurus_crd = ytsaurus_crd
        self.requests: list[Request] = []
        self._items: dict[str, dict[tuple[str, str], _Item]] = {}
        self._order: dict[str, list[tuple[str, str]]] = {}  # sorted keys, dropped on change
        self._on_node: dict[str, set[tuple[str, str]]] = {}  # spec.nodeName -> pod keys
        self.revision = 0
        self._faults: dict[str, _Fault] = {}
        self._server: ThreadingHTTPServer | None = None
        self.before_read: Callable[[], None] | None = None
        """Called before each request is answered (the fake cloud ticks its world)."""
        self._lock = threading.Lock()
        self.add(objects)

    # ---- seeding and faults ------------------------------------------------------------

    def add(self, objects: Iterable[Mapping[str, Any]]) -> None:
        """Seed more objects (dicts as kubectl prints them, or ``List`` documents)."""
        with self._lock:
            for obj in objects:
                if obj.get("kind") == "List" or "items" in obj:
                    self.add_items(obj.get("items") or ())
                    continue
                self._add_one(obj)

    def add_items(self, items: Iterable[Mapping[str, Any]]) -> None:
        for obj in items:
            self._add_one(obj)

    def _add_one(self, obj: Mapping[str, Any], kind: Any = None) -> None:
        kind = kind or obj.get("kind")
        if kind not in RESOURCES:
            return
        if kind in CUSTOM_KINDS:
            served = {**obj, "kind": kind}
        else:  # the API leaves these out of a typed list's items
            served = {k: v for k, v in obj.items() if k != "kind" and k != "apiVersion"}
        meta = obj.get("metadata") or {}
        key = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        bucket = self._items.setdefault(kind, {})
        if key not in bucket:
            self._order.pop(kind, None)
        if kind == "Pod":
            self._unindex(key, bucket.get(key))
            self._on_node.setdefault(_node_of(served), set()).add(key)
        bucket[key] = _Item(served)
        self.revision += 1

    # ---- the cluster changing (the fake cloud's upgrade, testing/kube_follow.py) -------

    def put(self, kind: str, obj: Mapping[str, Any]) -> int:
        """Create or replace one object of ``kind`` (keyed by namespace and name); returns
        :attr:`revision` after the change. The fake keeps ``obj`` itself (a shallow copy):
        do not change it afterwards, put a changed copy."""
        with self._lock:
            self._add_one(obj, kind)
            return self.revision

    def delete(self, kind: str, namespace: str, name: str) -> int:
        """Remove one object (no error when it is not there); returns :attr:`revision`."""
        with self._lock:
            gone = self._items.get(kind, {}).pop((namespace, name), None)
            if gone is not None:
                self._order.pop(kind, None)
                if kind == "Pod":
                    self._unindex((namespace, name), gone)
            self.revision += 1
            return self.revision

    def _unindex(self, key: tuple[str, str], item: _Item | None) -> None:
        if item is not None:
            self._on_node.get(_node_of(item.obj), set()).discard(key)

    def objects(self, kind: str) -> list[dict[str, Any]]:
        """The objects of ``kind`` as served (typed kinds without ``kind``), in key order;
        copies: change them and :meth:`put` them back."""
        with self._lock:
            bucket = self._items.get(kind, {})
            return [json.loads(bucket[key].raw) for key in self._keys(kind)]

    def size(self) -> int:
        """How many objects the fake serves (every kind)."""
        with self._lock:
            return sum(len(bucket) for bucket in self._items.values())

    def served(self, kind: str) -> tuple[int, dict[tuple[str, str], Mapping[str, Any]]]:
        """:attr:`revision` and the objects of ``kind`` by (namespace, name), as the fake
        keeps them (typed kinds without ``kind``): not copies, so read them only; put a
        changed copy. For a reader that indexes every object once
        (:class:`ngupgrade.testing.kube_index.ClusterIndex`)."""
        with self._lock:
            return self.revision, {key: item.obj
                                   for key, item in self._items.get(kind, {}).items()}

    def _keys(self, kind: str) -> list[tuple[str, str]]:
        """Keys of ``kind`` in etcd's order (namespace, name); call with the lock held."""
        order = self._order.get(kind)
        if order is None:
            order = self._order[kind] = sorted(self._items.get(kind, {}))
        return order

    def fail(self, path: str, status: int | None, message: str | None = None,
             times: int | None = 1, *, delay: float = 0.0) -> None:
        """Answer the next ``times`` requests to ``path`` (None: all) with ``status`` and a
        ``Status`` body, e.g. ``fail("/api/v1/pods", 403)``; ``delay``: real seconds to wait
        before answering (longer than the client's timeout: a read timeout), with
        ``status`` None the usual answer after it (a slow server). Other paths are served
        meanwhile (the server is threaded)."""
        text = message or _REASONS.get(status or 0, "error")
        self._faults[path] = _Fault(status, text, times, delay)

    # ---- the server --------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (after :meth:`start`)."""
        assert self._server is not None, "start the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeKubeApi:
        fake = self

        class Handler(_Handler):
            api = fake

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="fake-kube-api",
                         daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeKubeApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def calls(self, path: str | None = None) -> list[Request]:
        """Requests received, optionally only those to ``path``."""
        with self._lock:
            return [r for r in self.requests if path is None or r.path == path]

    # ---- kubeconfig --------------------------------------------------------------------

    def write_kubeconfig(self, path: str | Path, context: str = "fake",
                         exec_command: Sequence[str] | None = None, *,
                         server: str | None = None) -> Path:
        """Write a kubeconfig (JSON, which is YAML) whose ``context`` reaches this fake.

        Auth: the fake's bearer token, or, with ``exec_command`` (``[program, *args]``), an
        exec plugin shaped as ``yc managed-kubernetes cluster get-credentials`` writes it.
        ``server`` overrides the URL (e.g. an ``https://`` one to provoke a TLS failure).
        """
        user: dict[str, Any]
        if exec_command:
            user = {"exec": {"apiVersion": EXEC_API_VERSION, "command": exec_command[0],
                             "args": list(exec_command[1:]), "env": None,
                             "interactiveMode": "IfAvailable", "provideClusterInfo": False}}
        else:
            user = {"token": self.token} if self.token else {}
        config = {
            "apiVersion": "v1", "kind": "Config", "preferences": {},
            "clusters": [{"name": f"{context}-cluster",
                          "cluster": {"server": server or self.url}}],
            "users": [{"name": f"{context}-user", "user": user}],
            "contexts": [{"name": context, "context": {"cluster": f"{context}-cluster",
                                                       "user": f"{context}-user"}}],
            "current-context": context,
        }
        out = Path(path)
        out.write_text(json.dumps(config, indent=2))
        return out

    # ---- answers (called by the handler threads) ---------------------------------------

    def _answer(self, method: str, path: str, query: Mapping[str, str],
                authorization: str | None) -> tuple[int, bytes]:
        if self.before_read is not None:  # the fake cloud brings the cluster up to its now
            self.before_read()
        with self._lock:
            self.requests.append(Request(method, path, dict(query), authorization))
            if method != "GET":
                return _status(405, "the fake Kubernetes API only serves list calls")
            if self.token and authorization != f"Bearer {self.token}":
                return _status(401, "Unauthorized")
            fault = self._faults.get(path)
            if fault is not None and fault.times is not None:
                fault.times -= 1
                if fault.times <= 0:
                    del self._faults[path]
        if fault is not None and fault.delay > 0:
            time.sleep(fault.delay)  # outside the lock: other requests go on
        if fault is not None and fault.status is not None:
            return _status(fault.status, fault.message)
        with self._lock:
            kind = _PATHS.get(path)
            if kind is None or (kind in CUSTOM_KINDS and not self._serves(kind)):
                return _status(404, "the server could not find the requested resource")
            return self._page(kind, query)

    def _serves(self, kind: str) -> bool:
        if self.ytsaurus_crd is not None:
            return self.ytsaurus_crd
        return bool(self._items.get(kind))

    def _page(self, kind: str, query: Mapping[str, str]) -> tuple[int, bytes]:
        bucket = self._items.get(kind, {})
        fields, labels = query.get("fieldSelector", ""), query.get("labelSelector", "")
        try:
            keep = _selector(fields, labels)
        except ValueError as err:
            return _status(400, str(err))
        try:
            limit = int(query.get("limit") or 0)
            start = _offset(query["continue"]) if query.get("continue") else 0
        except ValueError:
            return _status(400, "continue key is not valid")
        keys = self._candidates(kind, fields)
        if fields or labels:
            keys = [key for key in keys if keep(bucket[key].obj)]
        end = len(keys) if limit <= 0 else min(len(keys), start + limit)
        items = keys
        _path, list_kind, api_version, _namespaced = RESOURCES[kind]
        meta: dict[str, Any] = {"resourceVersion": "1000"}
        if end < len(items):
            meta["continue"] = _token(end)
            meta["remainingItemCount"] = len(items) - end
        head = json.dumps({"kind": list_kind, "apiVersion": api_version, "metadata": meta})
        body = (head[:-1] + ',"items":[').encode() + b",".join(
            bucket[key].raw for key in items[start:end]) + b"]}"
        return 200, body

    def _candidates(self, kind: str, fields: str) -> list[tuple[str, str]]:
        """Keys in etcd's order that may pass ``fields``: a pod list selected by one
        ``spec.nodeName`` reads that node's pods only (the selector still decides)."""
        if kind == "Pod":
            for term in filter(None, (t.strip() for t in fields.split(","))):
                try:
                    name, op, want = _split(term)
                except ValueError:
                    break
                if name == "spec.nodeName" and op != "!=":
                    return sorted(self._on_node.get(want, ()))
        return self._keys(kind)


class _Item:
    """One object as served: the mapping (selectors read it) and its JSON, made when first
    served (msgspec writes the same JSON as ``json.dumps``, UTF-8 instead of escapes)."""

    __slots__ = ("_raw", "obj")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        self.obj = obj
        self._raw: bytes | None = None

    @property
    def raw(self) -> bytes:
        if self._raw is None:
            self._raw = msgspec.json.encode(self.obj)
        return self._raw


def _node_of(obj: Mapping[str, Any]) -> str:
    """A pod's ``spec.nodeName`` as the field selector reads it ("" when unset)."""
    spec = obj.get("spec")
    value = spec.get("nodeName") if isinstance(spec, Mapping) else None
    return _field(obj, "spec.nodeName") if isinstance(value, bool) else \
        ("" if value is None else str(value))


FIELDS = ("metadata.name", "metadata.namespace", "spec.nodeName", "status.phase",
          "spec.unschedulable")
"""Field selectors served (the API server's own set for pods and nodes is about this)."""


def _field(obj: Mapping[str, Any], path: str) -> str:
    value: Any = obj
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _selector(fields: str, labels: str) -> Any:
    """A predicate for ``fieldSelector`` and ``labelSelector`` (``k=v``, ``k==v``, ``k!=v``,
    comma-separated, all must hold; labels also ``k`` and ``!k``). Raises ValueError with the
    API server's message for a field it does not index."""
    checks: list[Any] = []
    for term in filter(None, (t.strip() for t in fields.split(","))):
        name, op, want = _split(term)
        if name not in FIELDS:
            raise ValueError(f'field label not supported: {name}')
        checks.append(lambda o, n=name, e=(op == "!="), w=want: (_field(o, n) == w) != e)
    for term in filter(None, (t.strip() for t in labels.split(","))):
        if "=" not in term:
            absent = term.startswith("!")
            key = term.lstrip("!")
            checks.append(lambda o, k=key, a=absent:
                          (k in ((o.get("metadata") or {}).get("labels") or {})) != a)
            continue
        name, op, want = _split(term)
        checks.append(lambda o, n=name, e=(op == "!="), w=want:
                      (((o.get("metadata") or {}).get("labels") or {}).get(n) == w) != e)
    return lambda obj: all(check(obj) for check in checks)


def _split(term: str) -> tuple[str, str, str]:
    for op in ("!=", "==", "="):
        if op in term:
            name, want = term.split(op, 1)
            return name.strip(), op, want.strip()
    raise ValueError(f"invalid selector: {term!r}")


_PATHS = {path: kind for kind, (path, *_rest) in RESOURCES.items()}
_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
            405: "MethodNotAllowed", 410: "Expired", 429: "TooManyRequests",
            500: "InternalError", 503: "ServiceUnavailable"}


def _status(code: int, message: str) -> tuple[int, bytes]:
    return code, json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {},
                             "status": "Failure", "message": message,
                             "reason": _REASONS.get(code, ""), "code": code}).encode()


def _token(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"v": 1, "o": offset}).encode()).decode()


def _offset(token: str) -> int:
    try:
        doc = json.loads(base64.urlsafe_b64decode(token.encode()))
        offset = int(doc["o"])
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(token) from err
    if offset < 0:
        raise ValueError(token)
    return offset


class _Handler(BaseHTTPRequestHandler):
    api: FakeKubeApi
    protocol_version = "HTTP/1.1"  # keep-alive, as the real API server and urllib3's pool

    def _serve(self) -> None:
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        code, body = self.api._answer(self.command, split.path, dict(parse_qsl(split.query)),
                                      self.headers.get("Authorization"))
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request log is :attr:`FakeKubeApi.requests`."""


def write_exec_plugin(path: str | Path, token: str) -> list[str]:
    """Write a tiny exec-credential plugin that prints an ``ExecCredential`` with ``token``
    (what ``yc k8s create-token`` prints); returns the command for ``write_kubeconfig``."""
    script = Path(path)
    credential = {"apiVersion": EXEC_API_VERSION, "kind": "ExecCredential",
                  "status": {"token": token, "expirationTimestamp": "2099-01-01T00:00:00Z"}}
    script.write_text(f"import json\nprint(json.dumps({credential!r}))\n")
    return [sys.executable, str(script)]
