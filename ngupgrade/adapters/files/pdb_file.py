"""Read PodDisruptionBudgets from ``kubectl get pdb --all-namespaces -o json`` output.

ngupgrade speaks to no Kubernetes API itself: the user (or the CI job) who has kube access
exports the list, and ``ngupgrade preflight --pdbs FILE`` reads it (``-`` reads stdin).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ngupgrade.core.bounds import INT_LIMIT_MESSAGE, is_int_limit, too_deep, too_deep_message
from ngupgrade.core.errors import BadInput
from ngupgrade.core.k8s import LabelSelector, PodDisruptionBudget, Requirement
from ngupgrade.core.text import LONE_SURROGATE_MESSAGE, lone_surrogate_path


def read_pdb_file(path: str) -> list[PodDisruptionBudget]:
    """Parse a ``kind: List`` (or ``PodDisruptionBudgetList``) of ``policy/v1`` PDBs.

    Raises:
        BadInput: unreadable, not JSON, or not a list of PodDisruptionBudgets; the message
            names the file and the item.
    """
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        doc = json.loads(text)
    except OSError as err:
        raise BadInput(f"cannot read: {err.strerror}", source=path) from err
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise BadInput(f"not JSON: {err}".splitlines()[0], source=path,
                       hint="export it with: kubectl get pdb --all-namespaces -o json") from err
    except ValueError as err:  # an integer past Python's digit limit
        if not is_int_limit(err):
            raise
        raise BadInput(INT_LIMIT_MESSAGE, source=path) from err
    deep = too_deep(doc)
    if deep is not None:
        raise BadInput(too_deep_message(), source=path, path=deep)
    where = lone_surrogate_path(doc)
    if where is not None:
        raise BadInput(LONE_SURROGATE_MESSAGE, source=path, path=where)
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise BadInput("expected kubectl's list output with \"items\"", source=path, path="$",
                       hint="export it with: kubectl get pdb --all-namespaces -o json")
    return [_pdb(item, path, f"$.items[{i}]") for i, item in enumerate(items)]


def _pdb(item: Any, source: str, path: str) -> PodDisruptionBudget:
    if not isinstance(item, dict) or item.get("kind", "PodDisruptionBudget") != \
            "PodDisruptionBudget":
        raise BadInput("not a PodDisruptionBudget", source=source, path=path)
    meta = _obj(item.get("metadata"), source, f"{path}.metadata")
    spec = _obj(item.get("spec"), source, f"{path}.spec")
    status = _obj(item.get("status"), source, f"{path}.status")
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise BadInput("missing metadata.name", source=source, path=f"{path}.metadata")
    return PodDisruptionBudget(
        namespace=str(meta.get("namespace") or "default"),
        name=name,
        selector=_selector(spec.get("selector"), source, f"{path}.spec.selector"),
        generation=_count(meta, "generation", source, f"{path}.metadata") or 1,
        observed_generation=_count(status, "observedGeneration", source, f"{path}.status"),
        disruptions_allowed=_count(status, "disruptionsAllowed", source, f"{path}.status"),
        min_available=_int_or_percent(spec.get("minAvailable")),
        max_unavailable=_int_or_percent(spec.get("maxUnavailable")),
        current_healthy=_count(status, "currentHealthy", source, f"{path}.status"),
        desired_healthy=_count(status, "desiredHealthy", source, f"{path}.status"),
        expected_pods=_count(status, "expectedPods", source, f"{path}.status"),
    )


def _selector(value: Any, source: str, path: str) -> LabelSelector | None:
    """``spec.selector``: None (absent) selects nothing; ``{}`` every pod of the namespace."""
    if value is None:
        return None
    sel = _obj(value, source, path)
    labels = _obj(sel.get("matchLabels"), source, f"{path}.matchLabels")
    exprs = sel.get("matchExpressions") or []
    if not isinstance(exprs, list):
        raise BadInput("expected a list", source=source, path=f"{path}.matchExpressions")
    reqs = []
    for i, expr in enumerate(exprs):
        item = _obj(expr, source, f"{path}.matchExpressions[{i}]")
        op, key, values = item.get("operator"), item.get("key"), item.get("values") or []
        if op not in ("In", "NotIn", "Exists", "DoesNotExist") or not isinstance(key, str) \
                or not isinstance(values, list):
            raise BadInput("not a label selector requirement", source=source,
                           path=f"{path}.matchExpressions[{i}]")
        reqs.append(Requirement(key, op, tuple(str(v) for v in values)))
    return LabelSelector({str(k): str(v) for k, v in labels.items()}, tuple(reqs))


def _obj(value: Any, source: str, path: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadInput("expected an object", source=source, path=path)
    return value


def _count(obj: dict[str, Any], key: str, source: str, path: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadInput(f"{key} must be a count of pods, not {value!r}", source=source,
                       path=f"{path}.{key}")
    return value


def _int_or_percent(value: Any) -> int | str | None:
    if isinstance(value, (int, str)) and not isinstance(value, bool):
        return value
    return None
