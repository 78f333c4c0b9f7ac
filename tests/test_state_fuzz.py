"""Property-based: mutated and random states give a parse or a clean BadInput, nothing else."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ngupgrade.adapters.state.parse import parse_state
from ngupgrade.core.errors import BadInput
from tests.conftest import EXAMPLE_STATE

BASE = json.loads(EXAMPLE_STATE.read_text())

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**12) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                               max_size=3),
    max_leaves=8,
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


PATHS = [p for p in _paths(BASE) if p]


def _check(data: bytes) -> None:
    try:
        parse_state(data, "fuzz.tfstate")
    except BadInput as err:
        assert str(err).startswith("fuzz.tfstate")
        assert "\n" not in str(err)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(path=st.sampled_from(PATHS), value=json_values, delete=st.booleans())
def test_mutated_example_state(path: tuple, value: Any, delete: bool) -> None:
    doc = copy.deepcopy(BASE)
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    _check(json.dumps(doc).encode())


@settings(max_examples=100, deadline=None)
@given(cut=st.integers(min_value=0, max_value=len(EXAMPLE_STATE.read_bytes())))
def test_truncated_state(cut: int) -> None:
    _check(EXAMPLE_STATE.read_bytes()[:cut])


@settings(max_examples=200, deadline=None)
@given(doc=json_values)
def test_random_json(doc: Any) -> None:
    _check(json.dumps(doc).encode())


@settings(max_examples=100, deadline=None)
@given(blob=st.binary(max_size=64))
def test_random_bytes(blob: bytes) -> None:
    _check(blob)
