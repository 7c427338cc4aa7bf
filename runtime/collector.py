"""Python's cycle collector paused for a run: a run makes thousands of short-lived values
(trace steps, states, outcomes), and each full pass of the collector they set off walked every
object there before it too (the compiled rulebook's tens of thousands among them)."""

from __future__ import annotations

import gc


class collector_paused:  # noqa: N801 - used as a function is: `with collector_paused():`
    """Python's cycle collector kept to what a fight makes while it is played (and its log
    made): the objects there before (the compiled rulebook's tens of thousands among them) are
    frozen out of its passes, then handed back as they were. A fight makes thousands of
    short-lived values (trace steps, states, outcomes), and each full pass they set off walked
    the rulebook too: measured, most of a traced Ringing Steel fight's time. Left alone when
    the program froze objects itself or turned the collector off. (A class, not a generator:
    a blow played on its own is a few microseconds, and the generator's machinery was one.)"""

    __slots__ = ("frozen",)

    def __enter__(self) -> None:
        self.frozen = gc.isenabled() and not gc.get_freeze_count()
        if self.frozen:
            gc.freeze()

    def __exit__(self, *exc: object) -> None:
        if self.frozen:
            gc.unfreeze()


__all__ = ["collector_paused"]
