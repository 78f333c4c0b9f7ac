"""Wall-clock times the upgrade derives from the operation (a node's forced stop at HH:MM)
are there on --resume too, and say they are virtual when ngupgrade runs on a virtual clock
(the fake cloud's, ``upgrade --time-scale``, the demo).

The fake's time 0 is 2027-01-15 08:00:00 UTC; the version Update is sent at t=0, one step per
60 s, the first drain starts at step 2 (t=120): forced stop at 08:02 + 7 min = 08:09 UTC.
"""

from __future__ import annotations

from pathlib import Path

from ngupgrade.app.timing import real_time
from ngupgrade.core.stall import Draining, clock_text, forced_stop
from tests._upgrade_helpers import example_cloud, run, version_updates


def test_a_resumed_wait_names_the_forced_stop_at_the_operations_time(tmp_path: Path) -> None:
    # Before: a resumed run never anchored the operation's created_at: no forced stop time.
    journal = tmp_path / "j.json"
    with example_cloud(step_seconds=60) as fake:
        assert run(fake, journal, timeout=90).code == 6  # stopped before the first drain
        again = run(fake, journal, resume=True)
        assert again.code == 0, again.error
        assert version_updates(fake) == 1
    started = [d for d in again.of("drain") if d.phase == "started"]
    assert started[0].node == "workers-0000"
    assert started[0].forced_stop_at == "08:09 UTC"


def test_virtual_clock_times_say_so() -> None:
    # Before: "forced stop at 08:20 UTC" under --time-scale, read as the wall clock.
    assert clock_text(1_800_000_000 + 120 + 420) == "08:09 UTC"
    assert clock_text(1_800_000_000 + 540, virtual=True) == "08:09 UTC on the virtual clock"
    drain = Draining("workers-0000", 120.0, 1_800_000_120.0)
    assert forced_stop(drain, 420.0, 300.0, virtual=True) == (
        "forced stop at 08:09 UTC on the virtual clock (in 4m)")
    assert forced_stop(drain, 420.0, 300.0) == "forced stop at 08:09 UTC (in 4m)"


def test_time_scale_and_the_fakes_timing_are_virtual() -> None:
    assert real_time().virtual is False
    assert real_time(60).virtual is True
    with example_cloud() as fake:
        assert fake.timing().virtual is True


def test_a_drain_on_the_virtual_clock_is_labelled(tmp_path: Path, monkeypatch) -> None:
    from tests import _upgrade_helpers as helpers

    with example_cloud(step_seconds=60) as fake:
        # the fake's own timing (FakeCloud.timing), as `ngupgrade.cli.main(..., timing=)` gets it
        monkeypatch.setattr(helpers, "fake_timing", lambda f: f.timing())
        out = run(fake, tmp_path / "j.json")
        assert out.code == 0, out.error
    started = [d for d in out.of("drain") if d.phase == "started"]
    assert started[0].forced_stop_at == "08:09 UTC on the virtual clock"
