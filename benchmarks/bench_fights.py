"""Ringing Steel duels per second: the rulebook's `duel` encounter against a hand-written duel
loop doing the same work, in one run.

Run: `python benchmarks/bench_fights.py` (after `pip install .`). Both sides read the duel as
`rulebooks/ringing_steel.rules` writes it — each attack takes the Timings Table's AT (Base
Speed + walk - 3) plus any dead time, a hit costs the defender two tenths, a Disable, Sever or
Death fells, a Serious Wound calls a Saving Throw against Will Power — and draw the dice in the
same order from `random.Random(seed)` (what `rulecraft.SeededDice` is for a seed of 0 or more),
so one seed gives both the same fight: `tests/test_bench_fights.py` checks that they agree.
The blow itself is `hand_steel.careful_melee` (same caching and checks as the engine's).
Timings are medians of interleaved repeats; the ratio is what to read.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import rulecraft  # noqa: E402
from hand_steel import careful_melee, figures  # noqa: E402

SWORDSMAN = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                 training={"Sword": 5}, weapon="Sword", armour="Standard")
SPEARMAN = dict(strength=13, dexterity=11, constitution=12, willpower=9,
                training={"Spear": 6, "Dagger": 2}, weapon="Spear", armour="Light")
FELLS = ("Disable", "Sever", "Death")


def hand_duel(first: dict[str, Any], second: dict[str, Any], seed: int,
              cap: int = 500) -> tuple[str, int, int | None]:
    """The duel by hand: how it ended, the turns taken, and which fighter fell (0, 1 or None)."""
    rng = random.Random(seed)
    fighters = [figures(first), figures(second)]
    next_at = {0: (0, 1), 1: (0, 2)}  # fighter -> (time, order scheduled)
    order = 2
    for turn in range(1, cap + 1):
        me = min(next_at, key=lambda k: next_at[k])
        now, _ = next_at.pop(me)
        foe = 1 - me
        blow = careful_melee(fighters[me], fighters[foe], rng)  # outcome, fighters after, …
        (name, values), fighters[me], fighters[foe] = blow[0], blow[1], blow[2]
        order += 1
        f = fighters[me]
        next_at[me] = (now + f["base_speed"] + f["walk"] - 3 + values.get("attacker_dead_time",
                                                                          0), order)
        if foe in next_at:
            when, at = next_at[foe]
            next_at[foe] = (max(now, when + values["defender_delay"]
                                + (2 if name == "hit" else 0)), at)
        fallen = None
        if name == "hit" and values["wound"] in FELLS:
            fallen = foe
        elif name == "hit" and values["wound"] == "S Wound":
            throw = rng.randint(1, 6) + rng.randint(1, 6) + rng.randint(1, 6)
            if throw > fighters[foe]["willpower"]:
                fallen = foe
        if fallen is not None:
            next_at.pop(fallen, None)
        if fallen is not None and all(t > now for t, _ in next_at.values()):
            return "ended", turn, fallen
    return "capped", cap, None


def engine_duel(rb: Any, a: Any, b: Any, seed: int) -> tuple[str, int, int | None]:
    r = rb.procedures["duel"].run(first=a, second=b, seed=seed)
    fallen = r.values.get("fallen")
    index = None if fallen is None else (0 if fallen is r.combatants["first"] else 1)
    return r.outcome.name, r.outcome["turns"], index


def main() -> int:
    rb = rulecraft.load("ringing_steel")
    a, b = rb.combatant(**SWORDSMAN), rb.combatant(**SPEARMAN)
    hand_a = dict(SWORDSMAN, training=dict(SWORDSMAN["training"]))
    hand_b = dict(SPEARMAN, training=dict(SPEARMAN["training"]))
    duels = 200
    engine_times, hand_times = [], []
    for repeat in range(7):  # interleaved, so that the machine's noise falls on both sides
        seeds = range(repeat * duels, (repeat + 1) * duels)
        start = time.perf_counter()
        for seed in seeds:
            engine_duel(rb, a, b, seed)
        engine_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for seed in seeds:
            hand_duel(hand_a, hand_b, seed)
        hand_times.append(time.perf_counter() - start)
    engine, hand = statistics.median(engine_times), statistics.median(hand_times)
    print(f"{'benchmark':<40} {'engine':>12} {'by hand':>12} {'ratio':>7}")
    print(f"{'Ringing Steel duels per second':<40} {duels / engine:>10.0f}/s "
          f"{duels / hand:>10.0f}/s {engine / hand:>6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
