"""Terraform addresses: formatting and parsing round-trip, keys with dots and quotes (C07)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ngupgrade.core.model import ModuleStep, TfAddress


def test_formats_module_with_for_each_and_count_keys() -> None:
    addr = TfAddress("yandex_kubernetes_node_group", "ng", "gpu.v100",
                     (ModuleStep("k8s", "prod"), ModuleStep("inner", 2)))
    assert str(addr) == ('module.k8s["prod"].module.inner[2].'
                         'yandex_kubernetes_node_group.ng["gpu.v100"]')


def test_parses_keys_with_dots_quotes_and_spaces() -> None:
    text = 'module.k8s["a.b \\"c\\""].yandex_kubernetes_node_group.ng["x.y z"]'
    addr = TfAddress.parse(text)
    assert addr.module == (ModuleStep("k8s", 'a.b "c"'),)
    assert addr.index == "x.y z"
    assert addr.name == "ng"
    assert str(addr) == text


def test_data_source_address() -> None:
    addr = TfAddress.parse("data.yandex_kubernetes_node_group.lookup")
    assert addr.mode == "data"
    assert str(addr) == "data.yandex_kubernetes_node_group.lookup"


@pytest.mark.parametrize("bad", ["", "ng", "a.b[", 'a.b["x"', "a.b[x]", "module.m.a", "a.b.c"])
def test_rejects_non_addresses(bad: str) -> None:
    with pytest.raises(ValueError):
        TfAddress.parse(bad)


names = st.from_regex(r"[a-z_][a-z0-9_-]{0,12}", fullmatch=True)
keys = st.none() | st.integers(min_value=0, max_value=10_000) | st.text(max_size=12)


@given(
    rtype=names, name=names, index=keys,
    module=st.lists(st.builds(ModuleStep, names, keys), max_size=3).map(tuple),
)
def test_round_trip(rtype: str, name: str, index: object, module: tuple[ModuleStep, ...]) -> None:
    addr = TfAddress(rtype, name, index, module)  # type: ignore[arg-type]
    assert TfAddress.parse(str(addr)) == addr
