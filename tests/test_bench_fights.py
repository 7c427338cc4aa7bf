"""The duel benchmark is honest: its hand-written duel loop and the rulebook's `duel` encounter
read the rules alike and draw the same dice, so the same seed gives the same fight."""

from __future__ import annotations

import sys
from pathlib import Path

import rulecraft

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_fights import SPEARMAN, SWORDSMAN, engine_duel, hand_duel  # noqa: E402


def test_the_hand_written_duel_and_the_encounter_agree_fight_by_fight():
    rb = rulecraft.load("ringing_steel")
    a, b = rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)
    endings = set()
    for seed in range(300):
        engine = engine_duel(rb, a, b, seed)
        assert engine == hand_duel(SWORDSMAN, SPEARMAN, seed), seed
        endings.add((engine[0], engine[2]))
    assert {("ended", 0), ("ended", 1)} <= endings  # both fighters fall in some fights
