"""Reading the files a user gives, within bounds: size before the work, then YAML safely.

Shared by every adapter and the test kit (quota files, Selectel's project quotas, the fake
cloud's scenario, the kubeconfig check, YAML cluster dumps), so each bound has one owner:

* :func:`read_bounded` reads at most ``limit`` bytes: a 10 MB file where a few KB are expected
  is refused at once, never parsed for seconds first.
* :func:`load_yaml` is PyYAML's safe loader (libyaml's when built with it) with three bounds
  the loader itself lacks. A YAML alias refers to a node written once, so a 342-byte file of
  nine anchors of nine aliases each is a tree of 9**9 strings (the "billion laughs" document,
  https://en.wikipedia.org/wiki/Billion_laughs_attack); every walk of it pins a CPU. Here the
  composed node graph is measured before anything is constructed: the document read as a tree
  may hold at most :data:`ALIAS_RATIO` times the nodes it writes (and :data:`ALIAS_FREE`
  nodes are always allowed), an alias may not refer to a node that contains it (a cycle), and
  nesting stops at :data:`ngupgrade.core.bounds.MAX_DEPTH`. The same rule as go-yaml's
  (``yaml.v3`` decode.go, ``allowedAliasRatio``), which kubectl's readers use. An anchor
  defined again replaces the earlier one for the aliases after it, as the YAML spec and
  go-yaml have it (:class:`_LatestAnchor`); PyYAML alone refuses that.

Every refusal is a BadInput (exit 3) naming the file.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn

import yaml

from ngupgrade.core.bounds import INT_LIMIT_MESSAGE, MAX_DEPTH, is_int_limit, too_deep_message
from ngupgrade.core.errors import BadInput, NotYaml
from ngupgrade.core.text import LONE_SURROGATE_MESSAGE

MAX_BYTES = 4 << 20
"""The default size bound of a hand-written or exported YAML/JSON file (quota files,
scenarios, kubeconfigs): 4 MiB, hundreds of times the largest real one."""

ALIAS_RATIO = 10
"""A document read as a tree may hold this many times the nodes it writes."""

ALIAS_FREE = 10_000
"""Nodes read as a tree that are always allowed, however few a document writes."""


def read_bounded(path: str, what: str, limit: int = MAX_BYTES, *, missing_hint: str | None = None,
                 directory_hint: str | None = None) -> bytes:
    """The bytes of ``path``, refused before reading when there are more than ``limit``.

    Args:
        path: the file; ``what`` names it in messages (``quota file``, ``scenario``).
        missing_hint, directory_hint: the hint when it does not exist, or is a directory.

    Raises:
        BadInput: cannot be read (a directory, missing, no permission), or larger than
            ``limit`` bytes (said in MiB, with the bound).
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except IsADirectoryError as err:
        raise BadInput(f"is a directory, not a {what}", source=path,
                       hint=directory_hint) from err
    except FileNotFoundError as err:
        raise BadInput(f"no such file (the {what})", source=path, hint=missing_hint) from err
    except OSError as err:
        raise BadInput(f"cannot read {what}: {err.strerror or err}", source=path) from err
    if len(data) > limit:
        raise BadInput(f"{what} is larger than {_mib(limit)} (no real one is): refused "
                       "before reading it", source=path)
    return data


def check_size(data: bytes | str, source: str, what: str, limit: int = MAX_BYTES) -> None:
    """Refuse a document already in memory (stdin, a test) larger than ``limit`` bytes."""
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > limit:
        raise BadInput(f"{what} is larger than {_mib(limit)} (no real one is)", source=source)


def _mib(size: int) -> str:
    return f"{size / (1 << 20):g} MiB"


class _LatestAnchor:
    """A composer mixin: a node's anchor replaces an earlier one of the same name, so an
    alias takes the most recent node (YAML 1.1 and 1.2 "Anchors and Aliases": "anchors need
    not be unique within a serialization", https://yaml.org/spec/1.2.2/#3222-anchors-and-aliases).
    PyYAML refuses a second definition ("found duplicate anchor", yaml/pyyaml#100, open);
    kubectl's go-yaml reads it, and so do the YTsaurus operator's own samples. Only PyYAML's
    Python composer can be changed (libyaml's is compiled), so a document is composed with it
    only after the C loader refused a duplicate anchor (:func:`_composed`)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[attr-defined]
        if event.anchor is not None and not isinstance(event, yaml.AliasEvent):
            self.anchors.pop(event.anchor, None)  # type: ignore[attr-defined]
        return super().compose_node(parent, index)  # type: ignore[misc]


def _latest_anchor_twin(loader_class: Any) -> Any:
    """PyYAML's Python safe loader with ``loader_class``'s resolvers and constructors, and
    :class:`_LatestAnchor`'s composer."""
    names = ("yaml_implicit_resolvers", "yaml_path_resolvers", "yaml_constructors",
             "yaml_multi_constructors")
    return type(f"LatestAnchor{loader_class.__name__}", (_LatestAnchor, yaml.SafeLoader),
                {name: getattr(loader_class, name) for name in names})


def _duplicate_anchor(err: Exception) -> bool:
    return (isinstance(err, yaml.composer.ComposerError)
            and str(err.context or "").startswith("found duplicate anchor"))


def load_yaml(text: str | bytes, source: str, limit: int = MAX_BYTES) -> Any:
    """Decode one YAML document (JSON is YAML too) within the bounds of this module.

    Returns:
        The document as dicts, lists and scalars (None for an empty one); an alias is the
        same object as its anchor, as PyYAML's ``safe_load`` makes it.

    Raises:
        BadInput: naming ``source``: larger than ``limit`` bytes, not YAML (the line and
            column, on one line), aliases that expand it more than the bound or form a
            cycle, nested deeper than :data:`MAX_DEPTH`, an integer over Python's digit
            limit, or a value the safe constructor refuses (a date such as 2024-13-45).
    """
    check_size(text, source, "YAML document", limit)
    docs = _composed(text, source, None, single=True)
    return docs[0] if docs else None


def load_yaml_documents(data: str | bytes, source: str, loader_class: Any = None
                        ) -> list[Any]:
    """Every document of a YAML stream (``---`` between them), each within the bounds of
    this module; empty documents left out. No size bound: the caller's input may be large
    (a cluster dump). A key written twice in one mapping is refused: PyYAML would keep the
    last value and drop the first without a word, and that is what two outputs appended
    to one file without ``---`` look like (``kubectl get nodes -o yaml >> f; kubectl get
    pods -o yaml >> f`` reads as the pods alone). YAML 1.2 requires unique keys; go-yaml v3
    refuses them too ("mapping key already defined").

    Args:
        loader_class: a subclass of PyYAML's safe loader (default: libyaml's when built in).

    Raises:
        BadInput: as :func:`load_yaml`, for the first document out of bounds; a key twice
            in one mapping (both lines named, the hint to put ``---`` between outputs).
    """
    return [doc for doc in _composed(data, source, loader_class) if doc is not None]


def _composed(data: str | bytes, source: str, loader_class: Any, single: bool = False
              ) -> list[Any]:
    """Every document of ``data``, each measured by :func:`_check_graph` before it is
    constructed; a stream that redefines an anchor is read again with the Python composer
    of :class:`_LatestAnchor` (the C one refuses it)."""
    loader_class = loader_class or getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return _load_all(loader_class, data, source, single)
    except (yaml.YAMLError, RecursionError, ValueError) as err:
        if not _duplicate_anchor(err):
            _refuse(err, source)
    try:
        return _load_all(_latest_anchor_twin(loader_class), data, source, single)
    except (yaml.YAMLError, RecursionError, ValueError) as err:
        _refuse(err, source)


def _load_all(loader_class: Any, data: str | bytes, source: str, single: bool) -> list[Any]:
    loader = loader_class(data)
    out = []
    try:
        nodes: Iterable[yaml.Node]
        if single:
            node = loader.get_single_node()
            nodes = [] if node is None else [node]
        else:
            nodes = iter(lambda: loader.get_node() if loader.check_node() else None, None)
        for node in nodes:
            _check_graph(node, source)
            if not single:  # a stream of outputs appended to one file: load_yaml_documents
                _check_unique_keys(node, source)
            out.append(loader.construct_document(node))
    finally:
        loader.dispose()
    return out


def _refuse(err: Exception, source: str) -> NoReturn:
    """The BadInput of a loader's error (one line; :class:`NotYaml` when it is not YAML)."""
    if isinstance(err, yaml.YAMLError):
        if "maximum nesting depth" in str(err):  # libyaml's own bound (1000 levels)
            raise BadInput(too_deep_message(), source=source) from err
        if "invalid Unicode character escape" in str(err):  # libyaml's word for "\ud800"
            raise BadInput(f"{LONE_SURROGATE_MESSAGE}: {_where(err)}", source=source) from err
        raise NotYaml(yaml_error_line(err), source) from err
    if isinstance(err, RecursionError):  # cannot be past _check_graph; kept as the last guard
        raise BadInput(too_deep_message(), source=source) from err
    if is_int_limit(err):
        raise BadInput(INT_LIMIT_MESSAGE, source=source) from err
    raise BadInput(f"holds a value YAML cannot read: {err}", source=source) from err


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_graph(root: yaml.Node, source: str) -> None:
    """Measure the composed graph (iteratively, each node once) and refuse it out of bounds.

    Raises:
        BadInput: a cycle, nesting past :data:`MAX_DEPTH`, or more nodes read as a tree
            than :data:`ALIAS_RATIO` times those written (beyond :data:`ALIAS_FREE`).
    """
    tree: dict[int, int] = {}  # node id -> nodes it holds read as a tree
    open_ids: set[int] = set()  # the nodes on the current path (a cycle comes back to one)
    written = 0
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, leaving = stack.pop()
        key = id(node)
        kids = _children(node)
        if leaving:
            tree[key] = 1 + sum(tree[id(kid)] for kid in kids)
            open_ids.discard(key)
            continue
        if key in tree:
            continue
        if key in open_ids:
            raise BadInput("a YAML alias refers to a node that holds it (a cycle): refused",
                           source=source)
        if kids and depth > MAX_DEPTH:
            raise BadInput(too_deep_message(), source=source)
        written += 1
        open_ids.add(key)
        stack.append((node, depth, True))
        stack.extend((kid, depth + 1, False) for kid in kids if id(kid) not in tree)
    if tree[id(root)] > max(ALIAS_FREE, ALIAS_RATIO * written):
        raise BadInput(f"YAML aliases expand {written} nodes to {tree[id(root)]} (a YAML "
                       f"alias bomb?): refused; aliases may expand a document {ALIAS_RATIO} "
                       "times at most", source=source,
                       hint="write the values out instead of anchors (&name) and aliases "
                            "(*name)")


def _check_unique_keys(root: yaml.Node, source: str) -> None:
    """Refuse a mapping that writes one scalar key twice (iteratively, each node once).

    Raises:
        BadInput: naming the key and the lines of both.
    """
    seen_nodes: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, _value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                line = key.start_mark.line + 1
                if key.value in first:
                    raise BadInput(
                        f"key {key.value!r} is written twice in one mapping (lines "
                        f"{first[key.value]} and {line}): YAML keeps only the second",
                        source=source,
                        hint="two outputs appended to one file? put a line `---` between them")
                first[key.value] = line
        stack.extend(_children(node))


def _where(err: yaml.YAMLError) -> str:
    mark = getattr(err, "problem_mark", None)
    return f"at line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"


def yaml_error_line(err: yaml.YAMLError) -> str:
    """PyYAML's error on one line, with 1-based line and column.

    ``str(err)`` is several lines (the position, the source line and a caret under it), which
    breaks the one-line contract of a BadInput.
    """
    if isinstance(err, yaml.MarkedYAMLError) and err.problem_mark is not None:
        mark = err.problem_mark
        text = f"{err.problem or err.context} at line {mark.line + 1}, column {mark.column + 1}"
        if err.problem and err.context and err.context_mark is not None:
            text += f" ({err.context} from line {err.context_mark.line + 1})"
        return text
    if isinstance(err, yaml.reader.ReaderError) and isinstance(err.character, int):
        return (f"unacceptable character #x{err.character:04x} at position {err.position}: "
                f"{err.reason}")
    return " ".join(str(err).split())
