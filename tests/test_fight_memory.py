"""Thousands of fights hold the memory of one (issue 19: "`fight --runs` and
`Rulebook.fight(runs=…)` play untraced fights and keep only what the summary needs").

Found this session: `rulecraft fight ringing_steel … --runs 4000` grew to 322 MB (500 runs:
80 MB), about 69 KB a fight. Each fight's run context and its schedule held each other
(`ctx.schedule`, `Schedule.ctx`), so a finished fight — its states, its fighters' handles —
waited for Python's cycle collector, which is paused while a fight plays (runtime/collector.py)
and rarely came by.
"""

from __future__ import annotations

import gc
from collections import Counter
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

import rulecraft
from rulecraft.fight import study
from rulecraft.runtime.combatants import Combatant
from rulecraft.runtime.context import RunContext
from rulecraft.runtime.encounters import Schedule

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FIGHTERS = {"ringing_steel": ("swordsman", "spearman"), "bt": ("knight", "axeman"),
            "d20_modern": ("agent", "thug")}


def _fighters(name: str) -> tuple[rulecraft.Rulebook, list[object]]:
    rb = rulecraft.load(name)
    return rb, [rb.combatant(**tomllib.loads((EXAMPLES / name / f"{f}.toml").read_text("utf-8")))
                for f in FIGHTERS[name]]


def _left_for_the_collector(play: Callable[[], object]) -> list[object]:
    """What `play` leaves that only the cycle collector could free."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        play()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        if enabled:
            gc.enable()


@pytest.mark.parametrize("name", sorted(FIGHTERS))
def test_fights_played_in_bulk_leave_no_cycles_behind(name: str) -> None:
    rb, fighters = _fighters(name)
    study(rb, fighters, 2, seed=1, workers=1)  # anything made once, made before
    left = _left_for_the_collector(lambda: study(rb, fighters, 20, seed=3, workers=1))
    # A fight's own: its run context, its schedule, its fighters' states (another test's event
    # loop, or a budget of work set aside, may leave something of theirs in this process).
    ours = [o for o in left if isinstance(o, (RunContext, Schedule, Combatant))]
    kinds = Counter(type(o).__name__ for o in ours).most_common(8)
    assert ours == [], f"{len(ours)} of the fights' objects held in cycles after 20 {name} " \
        f"fights: {kinds}"


def test_a_fight_kept_still_reads_its_schedule() -> None:
    """The result keeps the schedule (who was stopped, how many turns): only the context lets
    go of it."""
    rb, fighters = _fighters("ringing_steel")
    fight = rb.fight(fighters, seed=5)
    assert fight.result.schedule is not None and fight.result.schedule.turns > 0
    assert fight.winner() is not None or fight.result.outcome.name in ("capped", "idle")
