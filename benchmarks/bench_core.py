"""The engine against what it replaces, timed in one run, as ratios (times depend on the machine).

Run: `python benchmarks/bench_core.py` after `pip install -e '.[bench]'` (icepool; for the dice
row also `pip install --no-deps d20 cachetools`: see pyproject.toml). `--strict` exits 1 when a
target is missed; `--quick` runs each row briefly (tests/test_benchmarks.py keeps it working).

Every row times the engine and its baseline alternately, repeat after repeat, so that a busy
machine slows both alike; it prints the median time of each and the median of the per-repeat
ratios. The baselines do the same work as the engine (issue 9):

- Odds: icepool working out the same distribution from the same reading of the rule
  (benchmarks/hand_steel.py), and absolute times where the issue names them.
- Runs: `hand_steel.careful_melee` reads the rules the same way, draws the same dice from the
  same kind of source (one `random.Random`, seeded once, as one `SeededDice` serves every blow),
  keeps the same caching (a fighter's figures per state) and produces the same trace and
  values; `tests/test_benchmarks.py` checks that both sides come to the same blow for thousands
  of seeds. The plain-integer blow (`plain_melee`) is printed beside it: the floor.
- Start: a new process running `rulecraft eval` with a warm cache, against a process that
  imports lark, loads a cached parser and parses a line.
- Not the engine's best case (issue 19; baselines in benchmarks/hand_dice.py): a defender who
  parries (odds by outcome and by wound, and seeded blows); a choice passed by the caller
  (`call … choosing defence = "Parry"`: its odds walk the paths); 5 and 10 d10 rolled one by one
  and summed in the outcome, against icepool adding icepool's d10 as many times.

`--only WORDS` runs the rows whose names hold one of the comma-separated words (any case).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import rulecraft

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from hand_dice import (PARRIED_BLOW, careful_parried_blow, icepool_blow,  # noqa: E402
                       icepool_sum, summed_d10)
from hand_steel import (careful_melee, figures, icepool_outcomes, icepool_wounds,  # noqa: E402
                        plain_figures, plain_melee, skill)
import script_options  # noqa: E402

QUICK = False  # `--quick`, set by main
ONLY: list[str] | None = None  # `--only WORDS`, set by main
SHEET_A = dict(strength=12, dexterity=12, constitution=11, willpower=10, training={"Sword": 5},
               weapon="Sword", armour="Standard")
SHEET_B = dict(strength=13, dexterity=11, constitution=12, willpower=9, training={"Spear": 6},
               weapon="Spear", armour="Light")

CALLS = """rulebook calls "Calls"
combatant fighter:
  willpower: 1..20
  state stamina: 0..30 = 10
  state wounds: integer = 0
procedure saving_throw (who: fighter):
  outcomes:
    all with throw
    made
    failed
  roll throw = 3d6
  if throw <= who.willpower:
    outcome made
  outcome failed
procedure blow (attacker: fighter, defender: fighter):
  roll damage = d6
  add damage to defender.wounds
  call save = saving_throw(defender)
  if save == "failed":
    set defender.stamina = 0
    outcome felled with (damage = damage)
  outcome struck with (damage = damage, throw = save.throw)
procedure blow_inline (attacker: fighter, defender: fighter):
  roll damage = d6
  add damage to defender.wounds
  roll throw = 3d6
  if throw > defender.willpower:
    set defender.stamina = 0
    outcome felled with (damage = damage)
  outcome struck with (damage = damage, throw = throw)
"""

FIVE = """rulebook five "Five d10"
procedure five "Five d10 in one procedure" ():
  roll a = d10
  roll b = d10
  roll c = d10
  roll d = d10
  roll e = d10
  outcome done with (total = a + b + c + d + e)
"""


def skill_public(dexterity: int, training: int, armour: str) -> float | int:
    """The Skill formula by hand, with the checks a public call makes."""
    if type(dexterity) is not int or not 1 <= dexterity <= 20:
        raise ValueError("dexterity must be 1..20")
    if type(training) is not int or not 1 <= training <= 10:
        raise ValueError("training must be 1..10")
    value = skill(dexterity, training, armour)
    return int(value) if value == value.to_integral_value() else float(value)


# ---- timing ----------------------------------------------------------------------------------

def seconds(fn: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def compare(engine: Callable[[], Any], baseline: Callable[[], Any] | None, number: int,
            repeats: int) -> tuple[float, float | None, float | None]:
    """Median seconds per call of each side, timed alternately, and the median ratio."""
    engine(), baseline and baseline()  # warm: caches, imports
    mine, theirs, ratios = [], [], []
    for _ in range(repeats):
        mine.append(seconds(engine, number))
        if baseline is not None:
            theirs.append(seconds(baseline, number))
            ratios.append(mine[-1] / theirs[-1])
    if baseline is None:
        return statistics.median(mine), None, None
    return statistics.median(mine), statistics.median(theirs), statistics.median(ratios)


def process(arguments: list[str], env: dict[str, str]) -> Callable[[], Any]:
    return lambda: subprocess.run(arguments, env=env, capture_output=True, check=True)


# ---- the rows --------------------------------------------------------------------------------

def rows() -> list[tuple[str, Callable[[], Any], Callable[[], Any] | None, int, str, Any]]:
    """(name, engine, baseline, calls per timing, kind of target, target): kind "ratio"
    (engine/baseline at most), "time" (engine seconds at most) or "" (no target)."""
    rb = rulecraft.load("ringing_steel")
    melee = rb.procedures["melee_attack"]
    a, b = rb.combatant(**SHEET_A), rb.combatant(**SHEET_B)
    hand_a, hand_b = figures(SHEET_A), figures(SHEET_B)
    plain_a, plain_b = plain_figures(hand_a), plain_figures(hand_b)
    source, rng, plain_rng = rulecraft.SeededDice(1), random.Random(1), random.Random(1)
    many = iter(melee.runs(10**9, seed=1, attacker=a, defender=b))
    calls = rulecraft.compile(CALLS, "calls.rules")
    ca, cb = calls.combatant(willpower=10), calls.combatant(willpower=12)
    call_source, inline_source = rulecraft.SeededDice(2), rulecraft.SeededDice(2)
    five = rulecraft.compile(FIVE, "five.rules").procedures["five"]
    ten = rulecraft.compile(summed_d10(10), "summed.rules").procedures["summed"]
    caller = rulecraft.compile(PARRIED_BLOW, "parry_caller.rules")
    parried_blow = caller.procedures["parried_blow"]
    pa, pb = caller.combatant(**SHEET_A), caller.combatant(**SHEET_B)
    parry_source, parry_rng = rulecraft.SeededDice(3), random.Random(3)
    caller_source, caller_rng = rulecraft.SeededDice(4), random.Random(4)
    rq3 = rulecraft.load(HERE / "rq3_parry.rules").procedures["attack"]
    skill_rule = rb.formulas["skill"]
    assert skill_rule(dexterity=12, training=5, armour="Standard") == \
        skill_public(12, 5, "Standard")
    found: list[Any] = []
    try:
        import icepool  # noqa: F401
        ice: tuple[Any, Any] = (lambda: icepool_outcomes(hand_a, hand_b),
                                lambda: icepool_wounds(hand_a, hand_b))
        parry_ice: tuple[Any, Any] = (lambda: icepool_blow(hand_a, hand_b, "Parry"),
                                      lambda: icepool_blow(hand_a, hand_b, "Parry", "wound"))
        sum_ice: dict[int, Any] = {n: (lambda n=n: icepool_sum(n)) for n in (5, 10)}
    except ImportError:
        ice, parry_ice, sum_ice = (None, None), (None, None), {5: None, 10: None}
    found += [
        ("melee_attack exact odds, by outcome", lambda: melee.odds(attacker=a, defender=b),
         ice[0], 20, "ratio", 2.0),
        ("melee_attack exact odds, by wound",
         lambda: melee.odds(attacker=a, defender=b, by="wound"), ice[1], 5, "ratio", 2.0),
        ("RQ3-like attack vs parry, exact odds", lambda: rq3.odds(by="penetrating"), None, 2,
         "time", 0.100),
        ("melee_attack exact odds vs Parry, by outcome",
         lambda: melee.odds(attacker=a, defender=b, defence="Parry"), parry_ice[0], 20,
         "ratio", 2.0),
        ("melee_attack exact odds vs Parry, by wound",
         lambda: melee.odds(attacker=a, defender=b, defence="Parry", by="wound"), parry_ice[1],
         5, "ratio", 2.0),
        ("choice passed by the caller, exact odds",
         lambda: parried_blow.odds(attacker=pa, defender=pb, by="wound"), parry_ice[1], 2,
         "ratio", 2.0),
        ("5 d10 in one procedure, exact sum", lambda: five.odds(by="total"), sum_ice[5], 5,
         "ratio", 2.0),
        ("10 d10 in one procedure, exact sum", lambda: ten.odds(by="total"),
         sum_ice[10], 2, "ratio", 2.0),
        ("melee_attack seeded, vs careful hand",
         lambda: melee.run(attacker=a, defender=b, dice=source),
         lambda: careful_melee(hand_a, hand_b, rng), 1000, "ratio", 2.0),
        ("melee_attack seeded vs Parry, vs careful",
         lambda: melee.run(attacker=a, defender=b, dice=parry_source, defence="Parry"),
         lambda: careful_melee(hand_a, hand_b, parry_rng, "Parry"), 1000, "ratio", 2.0),
        ("choice passed by the caller, seeded",
         lambda: parried_blow.run(attacker=pa, defender=pb, dice=caller_source),
         lambda: careful_parried_blow(hand_a, hand_b, caller_rng), 1000, "ratio", 2.0),
        ("melee_attack runs() untraced, vs careful", lambda: next(many),
         lambda: careful_melee(hand_a, hand_b, rng), 1000, "", None),
        ("melee_attack seeded, vs plain integers",
         lambda: melee.run(attacker=a, defender=b, dice=source),
         lambda: plain_melee(plain_a, plain_b, plain_rng), 1000, "", None),
        ("formula skill (public call)",
         lambda: skill_rule(dexterity=12, training=5, armour="Standard"),
         lambda: skill_public(12, 5, "Standard"), 10000, "ratio", 1.5),
        # What a call costs: the same blow with the saving throw's steps written inline.
        ("a call vs the same steps inline",
         lambda: calls.procedures["blow"].run(attacker=ca, defender=cb, dice=call_source),
         lambda: calls.procedures["blow_inline"].run(attacker=ca, defender=cb,
                                                     dice=inline_source), 1000, "ratio", 1.3),
    ]
    try:
        import d20
        found.append(("a text dice roll, rulecraft.roll vs d20", lambda: rulecraft.roll("1d20+5"),
                      lambda: d20.roll("1d20+5"), 5000, "ratio", 0.5))
        found.append(("the same roll seeded (a Random per call)",
                      lambda: rulecraft.roll("1d20+5", seed=7), lambda: d20.roll("1d20+5"),
                      5000, "", None))
    except ImportError:
        pass
    found.append(start_row())
    return [row for row in found
            if ONLY is None or any(word.lower() in row[0].lower() for word in ONLY)]


def start_row() -> tuple[str, Callable[[], Any], Callable[[], Any], int, str, Any]:
    """`rulecraft eval` in a new process, its caches warm, against the least a lark program
    does: import lark, load a cached parser, parse one line."""
    cache = tempfile.mkdtemp(prefix="rulecraft-bench-")
    # Both sides as a user runs them: Python's bytecode cached (here in a folder of the run's
    # own, not beside the sources), rulecraft's cache warm after the first run.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(RULECRAFT_CACHE=cache, PYTHONPYCACHEPREFIX=os.path.join(cache, "pycache"))
    lark_cache = os.path.join(cache, "lark.cache")
    least = ("import lark; p = lark.Lark('start: WORD \"(\" NUMBER (\",\" NUMBER)* \")\"\\n"
             "%import common.WORD\\n%import common.NUMBER\\n%ignore \" \"', parser='lalr', "
             f"cache={lark_cache!r}); p.parse('skill(12, 5)')")
    engine = process([sys.executable, "-c", "from rulecraft.cli import main; main()", "eval",
                      "ringing_steel", 'skill(12, 5, "Standard")'], env)
    return ("eval in a new process (warm cache)", engine,
            process([sys.executable, "-c", least], env), 1 if QUICK else 3, "ratio", 2.0)


def arguments() -> argparse.ArgumentParser:
    """The options (`--help` prints them and runs nothing)."""
    parser = script_options.parser("bench_core.py", __doc__)
    parser.add_argument("--quick", action="store_true", help="each row briefly")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--only", metavar="WORDS", type=lambda text: text.split(","),
                        help="only the rows whose names hold one of these comma-separated words")
    return parser


def main(argv: list[str] | None = None) -> int:
    global QUICK, ONLY
    options = arguments().parse_args(argv)
    QUICK, ONLY = options.quick, options.only
    repeats = 2 if QUICK else 7
    failed = False
    print(f"{'benchmark':<44} {'engine':>11} {'baseline':>11} {'ratio':>7} {'target':>9}")
    for name, engine, baseline, number, kind, target in rows():
        number = max(1, number // 10) if QUICK else number
        mine, theirs, ratio = compare(engine, baseline, number, repeats)
        missed = (kind == "ratio" and ratio is not None and ratio > target) or \
            (kind == "time" and mine > target)
        failed |= missed
        shown = f"≤{target}x" if kind == "ratio" else f"<{target * 1000:g}ms" if kind else "—"
        print(f"{name:<44} {_time(mine)} {_time(theirs) if theirs else '—':>11} "
              f"{f'{ratio:.2f}x' if ratio is not None else '—':>7} {shown:>9}"
              f"{'  MISSED' if missed else ''}")
    return 1 if failed and options.strict else 0


def _time(value: float) -> str:
    if value >= 1e-3:
        return f"{value * 1e3:>9.2f}ms"
    return f"{value * 1e6:>9.1f}µs"


if __name__ == "__main__":
    sys.exit(main())
