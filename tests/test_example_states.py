"""The example states in terraform/examples/ are what their generators write through the test
kit's state writer (``ngupgrade.testing.TfState``), byte for byte: a hand edit of a committed
state (a window typed as HCL has it, a block left out) fails here. Regenerate with
``python terraform/examples/generate_state.py`` (and ``selectel/generate_state.py``,
``generate_plans.py``)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import EXAMPLES


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("folder", [EXAMPLES, EXAMPLES / "selectel"], ids=["yandex", "selectel"])
def test_the_committed_states_are_what_the_generator_writes(folder: Path, tmp_path: Path,
                                                            monkeypatch) -> None:
    generator = _load(folder / "generate_state.py", f"generate_state_{folder.name}")
    monkeypatch.setattr(generator, "HERE", tmp_path)
    generator.main()
    for name in ("terraform.tfstate", "show.json"):
        assert (tmp_path / name).read_text() == (folder / name).read_text(), name


def test_the_committed_plans_are_what_the_generator_writes() -> None:
    plans = _load(EXAMPLES / "generate_plans.py", "generate_plans")
    assert json.loads((EXAMPLES / "plan-roll.json").read_text()) == plans.roll_plan()
    assert json.loads((EXAMPLES / "plan-replace.json").read_text()) == plans.replace_plan()


def test_the_example_windows_are_in_the_providers_form() -> None:
    doc = json.loads((EXAMPLES / "terraform.tfstate").read_text())
    windows = [w for r in doc["resources"] if r["type"] == "yandex_kubernetes_node_group"
               for i in r["instances"]
               for w in i["attributes"]["maintenance_policy"][0]["maintenance_window"]]
    assert windows == [
        {"day": "", "duration": "4h30m0s", "start_time": "22:00:00.000000000"},  # gpu, daily
        {"day": "monday", "duration": "3h0m0s", "start_time": "01:00:00.000000000"},
        {"day": "thursday", "duration": "3h0m0s", "start_time": "01:00:00.000000000"}]
