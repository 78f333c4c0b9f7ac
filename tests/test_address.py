"""Terraform addresses: formatting and parsing round-trip, keys with dots and quotes (C07)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ngupgrade.core.address import ModuleStep, TfAddress


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


@pytest.mark.parametrize(("key", "terraform_prints"), [
    ("${var.x}", '["$${var.x}"]'),
    ("100%{x}", '["100%%{x}"]'),
    ("$ and % alone", '["$ and % alone"]'),
    ("bell\x07", '["bell\\u0007"]'),
    ("form\x0cfeed", '["form\\u000cfeed"]'),
    ("zero\u200bwidth", '["zero\\u200bwidth"]'),
    ("tag\U000e0001", '["tag\\U000e0001"]'),
    ("ünï 日本", '["ünï 日本"]'),
    ('q"uote\\', '["q\\"uote\\\\"]'),
])
def test_string_keys_print_and_parse_like_terraform(key: str, terraform_prints: str) -> None:
    # Before: json.dumps quoting; `terraform state list` prints ng["$${var.x}"] and
    # ng["form\u000cfeed"], which ngupgrade neither printed nor accepted as --group, and a
    # "\U000e0001" key (Terraform's escape above the BMP) was not an address at all.
    from ngupgrade.core.address import TfAddress

    addr = TfAddress("yandex_kubernetes_node_group", "ng", key)
    assert str(addr) == f"yandex_kubernetes_node_group.ng{terraform_prints}"
    assert TfAddress.parse(str(addr)).index == key


def test_json_escaped_keys_are_still_accepted() -> None:
    from ngupgrade.core.address import TfAddress

    assert TfAddress.parse('t.n["a\\u00e9\\ud83d\\ude00\\/"]').index == "a\u00e9\U0001f600/"
