"""Plans for the tests, built by terraform/examples/generate_plans.py from the example state."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

from tests.conftest import EXAMPLES

_spec = importlib.util.spec_from_file_location("generate_plans", EXAMPLES / "generate_plans.py")
assert _spec is not None and _spec.loader is not None
plans = importlib.util.module_from_spec(_spec)
sys.modules["generate_plans"] = plans
_spec.loader.exec_module(plans)

Edit = plans.Edit
WORKERS = plans.WORKERS
BATCH = plans.BATCH
GPU = "yandex_kubernetes_node_group.gpu"
CLOUD = "b1gexamplecloud000001"


def state(*, workers_size: int = 3, workers_policy: tuple[int, int] = (1, 0)) -> dict:
    """The example state with the workers group resized / given another deploy policy."""
    doc = plans.build_state()
    for res in doc["resources"]:
        if res.get("name") == "workers" and res["type"] == "yandex_kubernetes_node_group":
            attrs = res["instances"][0]["attributes"]
            attrs["scale_policy"][0]["fixed_scale"][0]["size"] = workers_size
            attrs["deploy_policy"] = [{"max_expansion": workers_policy[0],
                                       "max_unavailable": workers_policy[1]}]
    return doc


def edit(**values: Any):  # type: ignore[no-untyped-def]
    """A change function setting top-level attributes and a few nested shortcuts."""
    def change(attrs: dict) -> None:
        for key, value in values.items():
            if key == "size":
                attrs["scale_policy"][0]["fixed_scale"][0]["size"] = value
            elif key == "policy":
                attrs["deploy_policy"] = [{"max_expansion": value[0],
                                           "max_unavailable": value[1]}]
            else:
                attrs[key] = copy.deepcopy(value)
    return change


def write(tmp_path: Path, doc: dict, name: str = "plan.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)
