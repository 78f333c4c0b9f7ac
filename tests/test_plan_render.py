"""``ngupgrade plan`` reports: the JSON contract (DESIGN.md section 5) and the picture."""

from __future__ import annotations

import json

from _plan_groups import auto, fixed
from hypothesis import given
from hypothesis import strategies as st

from ngupgrade.cli.render.upgrade_plan import (
    PICTURE_MAX_CELLS,
    _cells,
    group_plan_json,
    picture,
    picture_scale,
    plan_json,
    plan_text,
    timeline_lines,
)
from ngupgrade.core.simulate import plan_group

PLAN_GROUP_KEYS = {
    "address", "id", "name", "cluster_id", "scale", "policy", "effective_policy", "nodes",
    "nodes_source", "surge_nodes", "peak_nodes", "min_available_nodes", "cycles", "timeline",
    "duration", "warnings", "platform", "data_notes", "terraform",
}


def test_json_has_every_contract_key_with_seed000_combined_values() -> None:
    doc = group_plan_json(plan_group(fixed(5, 2, 2)))
    assert set(doc) == PLAN_GROUP_KEYS
    assert (doc["platform"], doc["data_notes"]) == ("yandex", [])  # seed 000 is silent on data
    assert doc["address"] == "yandex_kubernetes_node_group.workers"
    assert doc["id"] == "cat0000000000000ng01"
    assert doc["name"] == "workers"
    assert doc["cluster_id"] == "catq0n7i0h9ka1b2c3d4"
    assert doc["scale"] == {"type": "fixed", "size": 5}
    assert doc["policy"] == {"max_expansion": 2, "max_unavailable": 2, "source": "state",
                             "assumed": False}
    assert doc["effective_policy"] == {"max_expansion": 2, "max_unavailable": 2}
    assert (doc["nodes"], doc["nodes_source"]) == (5, "fixed")
    assert (doc["surge_nodes"], doc["peak_nodes"], doc["min_available_nodes"]) == (2, 7, 3)
    assert doc["cycles"] == {"min": 2, "max": 3}
    assert doc["timeline"][0] == {"wave": 1, "action": "create", "nodes": 2, "group_size": 7,
                                  "new_nodes": 2}
    assert [(s["action"], s["nodes"], s["group_size"]) for s in doc["timeline"]] == [
        ("create", 2, 7), ("drain", 2, 7), ("update_in_place", 2, 7), ("drain", 2, 7),
        ("update_in_place", 1, 7), ("delete", 1, 6), ("drain", 1, 6), ("delete", 1, 5)]
    assert doc["duration"] == {"minutes_per_cycle": 6, "min_minutes": 12, "max_minutes": 18}
    assert doc["warnings"] == []
    json.dumps(doc)  # plain values only


def test_json_of_an_assumed_policy_and_an_autoscaled_group() -> None:
    doc = plan_json([plan_group(auto(1, 7, None, initial=2))])
    (group,) = doc["groups"]
    assert group["scale"] == {"type": "auto", "min": 1, "max": 7, "initial": 2}
    assert group["policy"] == {"max_expansion": 3, "max_unavailable": 0, "source": "default",
                               "assumed": True}
    assert (group["nodes"], group["nodes_source"], group["peak_nodes"]) == (7, "max", 10)
    assert group["warnings"][0]["code"] == "policy-assumed"
    assert set(group["warnings"][1]) == {"code", "message", "informational"}


def test_json_keeps_fractional_minutes() -> None:
    doc = group_plan_json(plan_group(fixed(3, 1, 0), minutes_per_cycle=2.5))
    assert doc["duration"] == {"minutes_per_cycle": 2.5, "min_minutes": 7.5, "max_minutes": 7.5}


def test_c12_json_names_the_timeout_warning() -> None:
    doc = group_plan_json(plan_group(fixed(50, 1, 0)))
    assert doc["cycles"] == {"min": 50, "max": 50}
    assert doc["duration"]["max_minutes"] == 300
    assert len(doc["timeline"]) == 150
    assert [w["code"] for w in doc["warnings"]] == ["terraform-update-timeout-exceeded"]


SEED000_SURGE = """\
wave  step                 size  new  x draining  o old  # new  | 5 nodes
      start                   5    0  ooooo|
   1  create 2                7    2  ooooo|##
   1  drain 2                 7    2  xxooo|##
   1  delete 2                5    2  ooo##|
   2  create 2                7    4  ooo##|##
   2  drain 2                 7    4  xxo##|##
   2  delete 2                5    4  o####|
   3  create 1                6    5  o####|#
   3  drain 1                 6    5  x####|#
   3  delete 1                5    5  #####|"""

SEED000_UNAVAILABLE = """\
wave  step                 size  new  x draining  o old  # new  | 5 nodes
      start                   5    0  ooooo|
   1  drain 2                 5    0  xxooo|
   1  update in place 2       5    2  ooo##|
   2  drain 2                 5    2  xxo##|
   2  update in place 2       5    4  o####|
   3  drain 1                 5    4  x####|
   3  update in place 1       5    5  #####|"""

SEED000_COMBINED = """\
wave  step                 size  new  x draining  o old  # new  | 5 nodes
      start                   5    0  ooooo|
   1  create 2                7    2  ooooo|##
   1  drain 2                 7    2  xxooo|##
   1  update in place 2       7    4  ooo##|##
   2  drain 2                 7    4  xxo##|##
   2  update in place 1       7    5  xo###|##
   2  delete 1                6    5  o####|#
   3  drain 1                 6    5  x####|#
   3  delete 1                5    5  #####|"""


def test_seed000_pictures() -> None:
    assert "\n".join(timeline_lines(plan_group(fixed(5, 2, 0)))) == SEED000_SURGE
    assert "\n".join(timeline_lines(plan_group(fixed(5, 0, 2)))) == SEED000_UNAVAILABLE
    assert "\n".join(timeline_lines(plan_group(fixed(5, 2, 2)))) == SEED000_COMBINED


def test_long_timelines_elide_identical_waves_and_scale_the_picture() -> None:
    lines = timeline_lines(plan_group(fixed(50, 1, 0)))
    assert "(1 cell = 2 nodes)" in lines[0]
    assert len(lines) == 2 + 3 + 1 + 3
    assert lines[5].split() == ["...", "waves", "2..49:", "the", "same", "144", "steps,",
                                "not", "drawn", "(--output", "json", "lists", "every", "step)"]
    assert lines[-1].endswith("#" * 25 + "|")


def test_short_timelines_are_drawn_in_full() -> None:
    lines = timeline_lines(plan_group(fixed(10, 1, 0)))  # 30 steps: all drawn
    assert len(lines) == 2 + 30
    assert not any("not drawn" in line for line in lines)
    lines = timeline_lines(plan_group(fixed(11, 1, 0)))  # 33 steps: waves 2..10 elided
    assert any("waves 2..10: the same 27 steps" in line for line in lines)


def test_elision_keeps_the_waves_that_differ() -> None:
    # 40 nodes, 5/1: create 5; waves 1..35 drain+update in place; 36..40 drain+delete.
    lines = timeline_lines(plan_group(fixed(40, 5, 1)))
    text = "\n".join(lines)
    assert "waves 3..34: the same 64 steps" in text
    assert "waves 37..39: the same 6 steps" in text
    labels = [line[6:26].strip() for line in lines[2:]]
    assert labels[:3] == ["create 5", "drain 1", "update in place 1"]
    assert labels[-2:] == ["drain 1", "delete 1"]


def test_text_report_of_a_warned_group() -> None:
    text = plan_text([plan_group(auto(1, 5, 0, 3), live_size=2)])
    assert "max_expansion 0, max_unavailable 3 (from the state); effective 0/2 at 2 nodes" in text
    assert "2 (live node count)" in text
    assert "min available   0 of 2 Ready (2 down at once)" in text
    assert "! whole-group-unavailable:" in text
    assert "! max-unavailable-at-autoscaler-min:" in text


def test_text_report_of_nothing() -> None:
    assert plan_text([]) == "no yandex_kubernetes_node_group resources in this state"


def test_empty_group_has_no_timeline_section() -> None:
    text = plan_text([plan_group(auto(0, 3, 1, 0), live_size=0)])
    assert "timeline" not in text
    assert "! empty-group:" in text


def test_picture_marks_the_start_size_and_pads_to_the_peak() -> None:
    assert picture(nodes=5, group_size=7, new_nodes=2, draining=2, peak=7) == "xxooo|##"
    assert picture(nodes=5, group_size=5, new_nodes=2, draining=0, peak=7) == "ooo##|"
    assert picture(nodes=4, group_size=8, new_nodes=4, draining=4, peak=8) == "xxxx|####"


@given(st.lists(st.integers(0, 500), min_size=3, max_size=3).filter(lambda c: sum(c) > 0),
       st.integers(1, 60))
def test_cells_keep_every_kind_visible(counts: list[int], total: int) -> None:
    cells = _cells(counts, total)
    for count, n in zip(counts, cells, strict=True):
        assert (count > 0) == (n > 0)
    assert sum(cells) <= max(total, sum(1 for c in counts if c))


@given(st.integers(1, 300), st.integers(0, 100), st.data())
def test_scaled_pictures_show_surge_past_the_marker(n: int, e: int, data: st.DataObject) -> None:
    peak = n + min(e, n)
    per_cell = picture_scale(peak)
    size = data.draw(st.integers(n, peak))
    new = data.draw(st.integers(0, size))
    bar = picture(nodes=n, group_size=size, new_nodes=new, draining=0, peak=peak,
                  per_cell=per_cell)
    left, _, right = bar.partition("|")
    assert len(left) <= PICTURE_MAX_CELLS and len(left) + len(right) <= PICTURE_MAX_CELLS + 2
    assert bool(right) == (size > n)
