"""The gate's verdict (app/gate.py): what it says to do names the flags the run takes."""

from __future__ import annotations

import pytest

from ngupgrade.app.gate import ADVISED_FLAGS, SEQUENTIAL_FLAGS, _gate_verdict
from ngupgrade.app.upgrade_request import UpgradeReport
from ngupgrade.core.errors import CheckFailed
from tests.test_render_quota import c01


@pytest.mark.parametrize(("flags", "said"), [
    (SEQUENTIAL_FLAGS, "apply the suggested deploy policies (--max-expansion / "
                       "--max-unavailable), or ask for a quota increase"),
    # --schedule advised refuses the policy flags: before, its hint named them all the same
    (ADVISED_FLAGS, "apply the suggested deploy policies (the advised schedule takes no "
                    "policy flags: --schedule sequential with --max-expansion / "
                    "--max-unavailable), or ask for a quota increase"),
])
def test_a_short_quota_stops_the_run_naming_how_to_apply_a_fix(flags: str, said: str) -> None:
    report = UpgradeReport(preflight=c01())  # compute cores short by 2 for a 1/0 surge
    with pytest.raises(CheckFailed) as err:
        _gate_verdict(report, quotas_offline=True, policy_flags=flags)
    assert str(err.value).startswith("quota preflight failed: b1gcloud00000000000a: "
                                     "compute.instanceCores.count needs 4 cores")
    assert str(err.value).endswith("; nothing was changed")
    assert (err.value.hint or "").startswith(f"a short quota: {said} (Quota Manager)")
