"""An anchor defined twice is YAML: an alias takes the most recent node of that name.

YAML 1.1 and 1.2, "Anchors and Aliases" (https://yaml.org/spec/1.2.2/#3222-anchors-and-aliases):
"anchors need not be unique within a serialization". PyYAML refuses it ("found duplicate
anchor", yaml/pyyaml#100, still open); kubectl's go-yaml reads it, so a manifest that
``kubectl apply`` takes was "neither JSON nor YAML" here. The YTsaurus operator's own sample
``config/samples/cluster_v1_local.yaml`` defines ``&rotationPolicy`` twice (it is in
``tests/real/kube/``, read by tests/test_real_corpus.py).
"""

from __future__ import annotations

import pytest

from ngupgrade.adapters.documents import load_yaml, load_yaml_documents
from ngupgrade.core.errors import BadInput

REDEFINED = "a: &x 1\nb: *x\nc: &x 2\nd: *x\n"


def test_an_alias_takes_the_most_recent_anchor_of_its_name() -> None:
    assert load_yaml(REDEFINED, "f.yaml") == {"a": 1, "b": 1, "c": 2, "d": 2}


def test_each_document_of_a_stream_reads_its_own_anchors() -> None:
    docs = load_yaml_documents(f"{REDEFINED}---\ne: &x 3\nf: *x\n".encode(), "f.yaml")
    assert docs == [{"a": 1, "b": 1, "c": 2, "d": 2}, {"e": 3, "f": 3}]


def test_a_redefined_anchor_still_counts_against_the_alias_bound() -> None:
    """x is redefined as twelve copies of y, itself twelve copies of the first x."""
    def twelve(name: str) -> str:
        return "[" + ", ".join([f"*{name}"] * 12) + "]"
    bomb = (f"a: &x [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb: &y {twelve('x')}\n"
            f"c: &x {twelve('y')}\nd: {twelve('x')}\n")
    with pytest.raises(BadInput, match="a YAML alias bomb"):
        load_yaml(bomb, "f.yaml")


def test_an_alias_inside_its_own_anchor_is_a_cycle() -> None:
    with pytest.raises(BadInput, match="a cycle"):
        load_yaml("a: &x 1\nb: &x [*x]\n", "f.yaml")


def test_an_undefined_alias_is_still_not_yaml() -> None:
    with pytest.raises(BadInput, match=r"f\.yaml: not YAML: found undefined alias"):
        load_yaml("a: *nowhere\n", "f.yaml")

