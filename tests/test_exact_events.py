"""A procedure that schedules an event (`after T as NAME:`) has exact odds by merged states, as
any other: played on its own there is no clock, the event never comes due ("no clock: not
applied", as a run records it), so its steps are not played. Ringing Steel's `entangle` (a
whip "unwinds" after a time) made every caller of it — `melee_attack` among them — walk every
path of its dice, 45–108× icepool where the earlier target was 2× (issue 19's closing note)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import rulecraft

ROOT = Path(__file__).resolve().parent.parent
RB = rulecraft.load("ringing_steel")


def fighter(name: str) -> rulecraft.Combatant:
    return RB.combatant(**tomllib.loads(
        (ROOT / "examples" / "ringing_steel" / f"{name}.toml").read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", ["entangle", "whip_wrap", "melee_attack"])
def test_a_procedure_scheduling_an_event_is_worked_out_by_states(name):
    assert RB.procedures[name].stepper is not None


@pytest.mark.parametrize(("attacker", "defender", "choices", "by"), [
    ("netman", "spearman", {}, "outcome"),
    ("whipman", "swordsman", {"whip_attack": "Entangle"}, "outcome"),
    ("whipman", "swordsman", {"whip_attack": "Entangle", "defence": "Parry"}, "location"),
    ("swordsman", "netman", {"defence": "Parry"}, "outcome"),
])
def test_the_states_give_the_odds_every_path_gives(attacker, defender, choices, by):
    melee = RB.procedures["melee_attack"]
    args = dict(attacker=fighter(attacker), defender=fighter(defender))
    by_states = melee.odds(by=by, choices=choices, **args)
    assert by_states == melee.path_odds(by=by, choices=choices, **args)
    assert sum(by_states.values()) == 1


def test_the_event_is_still_recorded_where_a_run_plays_it():
    # "no clock: not applied": a run of `entangle` on its own says what it did not schedule.
    done = RB.procedures["entangle"].run(fighter=fighter("swordsman"), tangled_in="Whip",
                                         excess=3)
    assert any(e.kind == "after" and "no clock" in str(e.detail) for e in done.trace)
