"""Exact odds of a whole fight: issue 19's simple duel (both roll 2d6 + skill, the higher takes 2
stamina; a tie takes nothing), the engine's `procedure.odds()` against icepool, in one run.

Run: `python benchmarks/bench_chain.py` after `pip install -e '.[bench]'` (icepool). `--quick`
runs each row briefly (tests/test_bench_chain.py keeps it working); `--strict` exits 1 when a
row misses its target (within 3× icepool).

Rows, for stamina 6 / 10 / 20 each (A has skill 1, B skill 0):
- capped: the encounter ends `at most CAP rounds` (a rule: the odds say how often it is
  reached); icepool `map(round, state, A, B, repeat=CAP)`, the state after CAP rounds read the
  same way (a fallen side lost; neither fallen: capped);
- uncapped: the encounter has `no cap`, so its odds are an absorbing Markov chain solved
  exactly (runtime/fight_chain.py: ties are the geometric series they are); icepool
  `map(..., repeat='inf')`.

Both sides read the round alike: the two rolls are dice of their own (`2d6 + skill`), each
joint result of the two played through the round (icepool calls `round` once per joint
outcome of the state and the two dice; the engine plays each state's pass once per joint
result of its rolls). Nothing of one computation is kept for the next on either side but what
the rule fixes: the engine's compiled rulebook and dice counts, icepool's dice. Exact answers
on both sides: tests/test_bench_chain.py checks they are the same fractions. Timings are
medians of interleaved repeats on a shared machine; the ratio is what to read.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import rulecraft
import script_options

QUICK = False  # `--quick`, set by main
CAP = 20  # rounds, for the capped rows
STAMINA = (6, 10, 20)
SKILL_A, SKILL_B = 1, 0
TARGET = 3.0  # within 3× icepool

DUEL = """rulebook simple "Simple duel"
combatant fighter:
  name: name
  skill: 0..10
  state stamina: 0..40 = 10 clamped
encounter duel "Both roll 2d6 + skill, the higher takes 2 stamina" (a: fighter, b: fighter):
  clock rounds
  each round:
    roll ra = 2d6
    roll rb = 2d6
    if ra + a.skill > rb + b.skill:
      set b.stamina = b.stamina - 2
    if rb + b.skill > ra + a.skill:
      set a.stamina = a.stamina - 2
  ends when a.stamina == 0 or b.stamina == 0
  {cap}
  afterwards:
    if a.stamina == 0:
      outcome b_wins
    if b.stamina == 0:
      outcome a_wins
"""


def rules(capped: bool) -> rulecraft.Rulebook:
    return rulecraft.compile(DUEL.format(cap=f"at most {CAP} rounds" if capped else "no cap"),
                             "simple.rules")


def engine(rb: rulecraft.Rulebook, stamina: int) -> Callable[[], dict[Any, Fraction]]:
    """The engine's exact odds: a_wins, b_wins (and capped, with a cap)."""
    duel = rb.procedures["duel"]
    a = rb.combatant(name="A", skill=SKILL_A, stamina=stamina)
    b = rb.combatant(name="B", skill=SKILL_B, stamina=stamina)
    return lambda: dict(duel.odds(a=a, b=b))


def icepool_duel(stamina: int, repeat: int | str) -> dict[Any, Fraction]:
    """icepool's reading of the same duel: the state (A's stamina, B's) mapped round by round
    over the two rolls, then read as the encounter's endings."""
    import icepool

    def one_round(a: int, b: int, ra: int, rb: int) -> tuple[int, int]:
        if a == 0 or b == 0:  # ended: the state stays
            return a, b
        if ra > rb:
            b -= 2
        if rb > ra:
            a -= 2
        return a, b

    rolls_a, rolls_b = 2 @ icepool.d6 + SKILL_A, 2 @ icepool.d6 + SKILL_B
    final = icepool.map(one_round, (stamina, stamina), rolls_a, rolls_b, star=True,
                        repeat=repeat)
    odds: dict[Any, Fraction] = {}
    total = final.denominator()
    for (a, b), ways in final.items():
        name = "b_wins" if a == 0 else "a_wins" if b == 0 else "capped"
        odds[name] = odds.get(name, 0) + Fraction(ways, total)
    return odds


def rows() -> list[tuple[str, Callable[[], Any], Callable[[], Any], int]]:
    capped, uncapped = rules(True), rules(False)
    found = []
    for stamina in STAMINA[:2] if QUICK else STAMINA:
        found.append((f"stamina {stamina}, at most {CAP} rounds", engine(capped, stamina),
                      lambda s=stamina: icepool_duel(s, CAP), 1))
        found.append((f"stamina {stamina}, no cap (repeat='inf')", engine(uncapped, stamina),
                      lambda s=stamina: icepool_duel(s, "inf"), 1))
    return found


def seconds(fn: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def compare(mine: Callable[[], Any], theirs: Callable[[], Any], number: int, repeats: int
            ) -> tuple[float, float, float]:
    """Median seconds per call of each side, timed alternately, and the median ratio."""
    assert mine() == theirs(), "the baseline's answer differs from the engine's"  # and warm
    engine_s, baseline_s, ratios = [], [], []
    for _ in range(repeats):
        engine_s.append(seconds(mine, number))
        baseline_s.append(seconds(theirs, number))
        ratios.append(engine_s[-1] / baseline_s[-1])
    return statistics.median(engine_s), statistics.median(baseline_s), statistics.median(ratios)


def arguments() -> argparse.ArgumentParser:
    """The options (`--help` prints them and runs nothing)."""
    parser = script_options.parser("bench_chain.py", __doc__)
    parser.add_argument("--quick", action="store_true", help="each row briefly")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when a row misses its target (within 3x icepool)")
    return parser


def main(argv: list[str] | None = None) -> int:
    global QUICK
    options = arguments().parse_args(argv)
    QUICK = options.quick
    repeats = 1 if QUICK else 5
    failed = False
    print(f"{'exact odds of the simple duel':<44} {'engine':>11} {'icepool':>11} {'ratio':>7} "
          f"{'target':>9}")
    for name, mine, theirs, number in rows():
        engine_s, baseline_s, ratio = compare(mine, theirs, number, repeats)
        missed = ratio > TARGET
        failed |= missed
        print(f"{name:<44} {_time(engine_s)} {_time(baseline_s)} {ratio:>6.2f}x "
              f"{f'≤{TARGET:g}x':>9}{'  MISSED' if missed else ''}")
    return 1 if failed and options.strict else 0


def _time(value: float) -> str:
    return f"{value * 1e3:>9.2f}ms" if value >= 1e-3 else f"{value * 1e6:>9.1f}µs"


if __name__ == "__main__":
    sys.exit(main())
