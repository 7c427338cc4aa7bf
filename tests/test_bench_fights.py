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


# ---- the competent duel (issue 19: "--runs 2000 --policy competent on one worker: within 3×
# the hand-written competent duel") ---------------------------------------------------------

from hand_competent import competent_duel  # noqa: E402

# A spearman who parries poorly with his spear and dodges well (his best training is the
# dagger's): the competent policy has him dodge actively, so dodges, steps back in and breaks
# off are played too.
DODGER = dict(SPEARMAN, training={"Spear": 1, "Dagger": 9})


def _competent(rb, a, b, first, second, seeds, **settings):
    """Each seed's competent duel on both sides (they must agree); what the engine's did."""
    seen = Counter()
    for seed in seeds:
        result = engine_duel(rb, a, b, seed, policy="competent", **settings)
        assert engine_summary(result) == competent_duel(first, second, seed, **settings), seed
        seen[result.outcome.name] += 1
        for entry in result.trace:
            if entry.kind in ("choose", "let") and entry.name in ("defence", "closing"):
                seen[entry.value] += 1
            elif entry.kind == "let" and entry.name == "engaged" and entry.value is False \
                    and entry.depth == 0:
                seen["broke off"] += 1
    return seen


def test_the_competent_duels_agree_fight_by_fight(duel):
    rb, a, b = duel
    seen = _competent(rb, a, b, SWORDSMAN, SPEARMAN, range(120))
    # The slower (the spearman) waits on guard; both parry; simultaneous blows fall back on
    # a passive dodge against the spear.
    assert seen["Wait"] and seen["Attack"] and seen["Parry"] and seen["Passive Dodge"], seen


def test_competent_duels_with_active_dodges_agree_fight_by_fight(duel):
    rb, a, _ = duel
    dodger = rb.combatant(**DODGER)
    seen = _competent(rb, a, dodger, SWORDSMAN, DODGER, range(60))
    seen += _competent(rb, a, dodger, SWORDSMAN, DODGER, range(30), until="dead")
    seen += _competent(rb, a, dodger, SWORDSMAN, DODGER, range(20), apart=4)
    assert seen["Active Dodge"] and seen["No Action"] and seen["idle"], seen
    # A fighter with the advantage passed out does not step back in: they break off (more
    # often than the `let engaged = false` each fight starts with).
    assert seen["broke off"] > 60 + 30 + 20, seen


def test_the_hand_duel_works_a_sheet_out_once_as_the_engine_does(monkeypatch):
    """Issue 19: "no baseline does more work than the engine". The engine works a derived
    figure out again only when a field it reads changed, and no change of fatigue or injuries
    reaches a skill; the hand loop's figures of a new state likewise take the skills from the
    sheet's own, worked out once (`hand_steel._from_sheet`): a whole competent duel asks
    `skill` only for the two sheets' first figures."""
    import hand_competent
    import hand_steel

    asked = Counter()
    skill = hand_steel.skill
    monkeypatch.setattr(hand_steel, "skill", lambda *a: asked.update([a]) or skill(*a))
    monkeypatch.setattr(hand_steel, "_SHEET", {})
    monkeypatch.setattr(hand_steel, "_FIGURES", {})
    for seed in range(5):
        hand_competent.competent_duel(SWORDSMAN, SPEARMAN, seed)
    # swordsman: sword, shield, best of his two trainings (sword again); spearman: spear,
    # best of spear and dagger
    assert sum(asked.values()) <= 7 and max(asked.values()) <= 2, asked
