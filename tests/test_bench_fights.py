"""The duel benchmark is honest: its hand-written duel loop and the rulebook's `duel` encounter
read the rules alike and draw the same dice, so the same seed gives the same fight — the same
ending, time and turns, the same fighters standing, each with the same fatigue and injuries."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

import rulecraft

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_fights import (SPEARMAN, SWORDSMAN, engine_duel, engine_summary,  # noqa: E402
                          hand_duel)


@pytest.fixture(scope="module")
def duel():
    rb = rulecraft.load("ringing_steel")
    return rb, rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)


def _agree(duel, seeds, **settings):
    """Each seed's fight on both sides (they must agree); the engine's results."""
    rb, a, b = duel
    results = []
    for seed in seeds:
        result = engine_duel(rb, a, b, seed, **settings)
        assert engine_summary(result) == hand_duel(SWORDSMAN, SPEARMAN, seed, **settings), seed
        results.append(result)
    return results


def _seen(results):
    """What the fights did that is easy to get wrong: simultaneous blows, Saving Throws for
    a Serious Wound and for fatigue, blows on a fighter passed out, fatigue recovered."""
    seen = Counter()
    for result in results:
        for entry in result.trace:
            if entry.kind == "let" and entry.name == "simultaneous" and entry.value:
                seen["simultaneous"] += 1
            elif entry.kind == "call" and entry.name in ("save", "tired", "foe_tired"):
                seen[entry.name.removeprefix("foe_")] += 1  # blow_aftermath's saves for fatigue
            elif entry.kind == "let" and entry.name == "defence" and entry.value == "No Action":
                seen["no action"] += 1
            elif entry.kind == "change" and entry.name == "f.fatigue_recovered":
                seen["recovered"] += 1
    return seen


def test_the_benchmark_s_duels_agree_fight_by_fight(duel):
    results = _agree(duel, range(400))
    endings = {(r.outcome.name, engine_summary(r)[3]) for r in results}
    # Both fighters fall in some fights.
    assert {("ended", (False, True)), ("ended", (True, False))} <= endings
    seen = _seen(results)
    assert seen["simultaneous"] and seen["save"] and seen["tired"], seen


def test_duels_to_the_death_agree_fight_by_fight(duel):
    # A fighter passed out stays in the fight: he is struck at a defence of zero and recovers
    # fatigue; with both passed out, nobody acts (`idle`).
    results = _agree(duel, range(80), until="dead")
    assert {"ended", "idle"} <= {r.outcome.name for r in results}
    seen = _seen(results)
    assert seen["no action"] and seen["recovered"], seen


def test_duels_from_afar_agree_fight_by_fight(duel):
    _agree(duel, range(60), apart=4)
