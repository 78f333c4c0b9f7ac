"""The cyclic garbage collector around a fake at the platform's limits.

A fake cluster of 1,000 nodes with 110 pods each holds about 2.5 million objects the cyclic
collector tracks (the dicts and lists of every served object, the typed values the follower
reads them as). A full collection walks all of them: seconds on a shared 2-core host, started
by whatever allocation tips the collector's counts, so under the fake cloud's lock in the
middle of a step, while RPCs wait (``bench/bench_fake_scale.py``: a drain step of 10 nodes
took 0.13 s with the fake's objects frozen, 4 to 5.5 s with a full collection in it).

So while a fake builds its cluster the collector is paused (:func:`paused`), and a fake that
serves a large cluster moves what it holds out of the collector's passes (:func:`gc.freeze`:
the objects tracked at that moment go to a permanent generation the collector skips) until it
stops (:func:`gc.unfreeze`). Objects are still freed when their last reference goes; only
cycles among the frozen ones wait for the unfreeze. The freeze is process-wide: it also
covers whatever else the process held at that moment, and a stop unfreezes everything frozen.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

LARGE = 20_000
"""Kubernetes objects from which a fake freezes what it holds (a cluster smaller than this
collects in milliseconds; the freeze's process-wide reach is not worth it there)."""


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside (building objects that all stay alive); restores the
    collector as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Freeze:
    """One fake's freeze: :meth:`hold` after it started, :meth:`release` when it stops."""

    def __init__(self) -> None:
        self.active = False

    def hold(self, objects: int) -> None:
        """Freeze what the process holds now when the fake serves ``objects`` Kubernetes
        objects or more (:data:`LARGE`)."""
        if objects >= LARGE and not self.active:
            gc.freeze()
            self.active = True

    def release(self) -> None:
        """Undo :meth:`hold` (a no-op when it did not freeze)."""
        if self.active:
            gc.unfreeze()
            self.active = False
