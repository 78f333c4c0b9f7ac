"""Loading a state and selecting node groups, the same in every command (ngupgrade/app/load.py)."""

from __future__ import annotations

import pytest

from tests.state_docs import FIXED_SCALE, state_doc


@pytest.mark.parametrize("selector", ["", " "])
@pytest.mark.parametrize("command", ["groups", "plan"])
def test_empty_group_selector_is_a_usage_error(run_cli, tmp_path, command: str,
                                               selector: str) -> None:
    # Before: `-g ""` (an unset "$GROUP") matched every node group whose state has no name.
    import json

    doc = json.loads(state_doc(FIXED_SCALE))
    del doc["resources"][0]["instances"][0]["attributes"]["name"]
    state = tmp_path / "noname.tfstate"
    state.write_text(json.dumps(doc))
    result = run_cli(command, "--state", str(state), "-g", selector, "-o", "json")
    assert result.exit_code == 2, result.stdout
    assert "empty --group" in result.stderr
    assert result.json()["error"]["code"] == "usage"  # the one JSON object of a failure
