"""Python's cycle collector paused for a run: a run makes thousands of short-lived values
(trace steps, states, outcomes), and each full pass of the collector they set off walked every
object there before it too (the compiled rulebook's tens of thousands among them)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector kept to what a fight makes while it is played (and its log
    made): the objects there before (the compiled rulebook's tens of thousands among them) are
    frozen out of its passes, then handed back as they were. A fight makes thousands of
    short-lived values (trace steps, states, outcomes), and each full pass they set off walked
    the rulebook too: measured, most of a traced Ringing Steel fight's time. Left alone when
    the program froze objects itself or turned the collector off."""
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


__all__ = ["collector_paused"]
