"""Hardening, item 6: exact odds are bounded in time and memory; seeds are whole numbers.

Each test quotes the sentence of the hardening issue it pins. Rule files are untrusted input:
every enumeration is refused, with a message naming the limit, or finished. No test times
anything: a refusal is shown to come early by counting the runs it took, and memory by
tracemalloc's peak.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import tracemalloc
from collections import Counter
from decimal import Decimal
from fractions import Fraction

import pytest

import rulecraft
from rulecraft import DiceError, Limits, RangeError, RulecraftError, SeededDice
from rulecraft.compiler.evaluate import parse_dice_text
from rulecraft.runtime import procedures
from rulecraft.runtime.dice import dice

HEAD = 'rulebook sample "Sample"\n'


def procedure(text: str, name: str = "p"):
    return rulecraft.compile(HEAD + text, filename="sample.rules").procedures[name]


@pytest.fixture
def runs(monkeypatch):
    """How many times a procedure was played (every path and every sampled path)."""
    played = Counter()
    play = procedures.Procedure._play

    def counted(self, *args, **kwargs):
        played["runs"] += 1
        return play(self, *args, **kwargs)

    monkeypatch.setattr(procedures.Procedure, "_play", counted)
    return played


# Three d100 rolls, two of them behind a branch that the first path (a = 1) does not take.
THREE_D100 = (
    'procedure p "Three d100" ():\n'
    "  roll a = d100\n"
    "  if a > 1:\n"
    "    roll b = d100\n"
    "    roll c = d100\n"
    "    outcome high with (total = a + b + c)\n"
    "  else:\n"
    "    outcome low\n"
)


def lets(count: int, dice_text: str = "d100") -> str:
    body = "".join(f"    let v{i} = a + b + c + {i}\n" for i in range(count))
    return ('procedure p "Many lets" ():\n'
            f"  roll a = {dice_text}\n"
            "  if a > 1:\n"
            f"    roll b = {dice_text}\n"
            f"    roll c = {dice_text}\n"
            f"{body}"
            "    outcome high with (last = v0)\n"
            "  else:\n"
            "    outcome low\n")


# ---- refused early, never after the work -----------------------------------------------------

def test_three_d100_behind_a_branch_are_refused_before_the_work(runs):
    """"with dice behind a branch the first-path size check is skipped (a three-d100
    procedure: 29 s, 778 MB before the error" — "Every enumeration is refused or finished
    within a few seconds and a few hundred MB by default"."""
    proc = procedure(THREE_D100)
    with pytest.raises(DiceError) as info:
        proc.path_odds()  # the path walk (odds by states need no walk here: see below)
    message = info.value.message
    assert "enumeration_paths" in message and "--limit enumeration_paths=N" in message
    assert "seed" in message  # sample instead
    needed = int(re.search(r"about (\d+) paths", message).group(1))
    assert needed > Limits().enumeration_paths  # 99 × 100 × 100 + 1 = 990,001 in truth
    # Refused after a handful of runs, not after the 500,000 the limit allows.
    assert runs["runs"] < 100
    assert info.value.line == 2  # the procedure's own line in the rule file
    # Issue 9: odds by states merge the paths the outcome cannot tell apart.
    assert proc.odds() == {"high": Fraction(99, 100), "low": Fraction(1, 100)}


def test_the_same_with_enumerate_and_with_a_small_limit(runs):
    """"refuse as early as possible": enumerate() streams the same walk, and a caller's own
    Limits are the ones applied."""
    proc = procedure(THREE_D100)
    with pytest.raises(DiceError, match="enumeration_paths"):
        proc.enumerate()
    assert runs["runs"] < 100
    small = procedure('procedure p "Two d20" ():\n  roll a = d20\n  roll b = d20\n'
                      "  outcome done with (total = a + b)\n")
    assert len(small.enumerate()) == 400
    with pytest.raises(DiceError, match=r"about 400 paths.*limit enumeration_paths"):
        small.enumerate(limits=Limits(enumeration_paths=399))


def test_a_rare_branch_that_fits_is_finished_not_refused():
    """Refusals come from what the walk needs, not from one path's dice: a single face of a
    d100 leading to two more d100 is 99 + 10,000 paths, well inside the limit."""
    proc = procedure('procedure p "Rare" ():\n'
                     "  roll a = d100\n"
                     "  if a == 1:\n"
                     "    roll b = d100\n"
                     "    roll c = d100\n"
                     "    outcome rare with (total = b + c)\n"
                     "  else:\n"
                     "    outcome common\n")
    assert proc.odds() == {"rare": Fraction(1, 100), "common": Fraction(99, 100)}


def test_a_rare_branch_past_the_limit_is_refused_from_inside_it(runs):
    """A branch one path in ten thousand takes, rolling three more d100: a million paths."""
    proc = procedure('procedure p "Rare and huge" ():\n'
                     "  roll a = d100\n"
                     "  roll b = d100\n"
                     "  if a == 37 and b == 12:\n"
                     "    roll c = d100\n"
                     "    roll d = d100\n"
                     "    roll e = d100\n"
                     "    outcome rare\n"
                     "  else:\n"
                     "    outcome common\n")
    with pytest.raises(DiceError, match="enumeration_paths"):
        proc.path_odds()
    assert runs["runs"] < 3_700 + 16 * 32  # the paths before a = 37, b = 12, and the samples
    assert proc.odds() == {"rare": Fraction(1, 10_000), "common": Fraction(9_999, 10_000)}


def test_paths_are_counted_exactly_when_the_estimate_falls_short():
    """The count of paths is the backstop: "says how many paths ... the procedure needs (at
    least)"."""
    proc = procedure('procedure p "Rare" ():\n'
                     "  roll a = d100\n"
                     "  if a == 1:\n"
                     "    roll b = d100\n"
                     "    outcome rare with (b = b)\n"
                     "  else:\n"
                     "    outcome common\n")
    assert len(proc.enumerate()) == 199
    assert len(proc.enumerate(limits=Limits(enumeration_paths=199))) == 199
    with pytest.raises(DiceError) as info:
        proc.path_odds(limits=Limits(enumeration_paths=150))
    assert re.search(r"(more than|about) \d+ paths", info.value.message)
    assert "enumeration_paths" in info.value.message


# ---- memory ----------------------------------------------------------------------------------

def test_150_lets_behind_dice_are_refused_without_the_memory():
    """"with 150 `let`s: MemoryError at 7.9 GB after 85 s"."""
    proc = procedure(lets(150))
    tracemalloc.start()
    try:
        with pytest.raises(DiceError, match="enumeration_(paths|work)"):
            proc.path_odds()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000


def test_odds_keep_sums_not_results():
    """"keep only what odds needs: probability sums per group, not every Result with its
    trace": 8,000 paths of 155 steps each take no more memory than a few paths do."""
    proc = procedure(lets(150, "d20").replace("if a > 1", "if a > 0"))
    tracemalloc.start()
    try:
        odds = proc.path_odds(by="last")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sum(odds.values()) == 1 and len(odds) == 58  # a + b + c: 3..60
    assert odds[3] == Fraction(1, 20**3)
    assert peak < 5_000_000  # the 8,000 results would hold over 1.2 million trace entries


def test_steps_over_every_path_are_bounded_by_enumeration_work(runs):
    """"the total work (rolls + trace entries, or steps) across all paths against
    `enumeration_work`"."""
    proc = procedure(lets(150, "d20").replace("if a > 1", "if a > 0"))
    with pytest.raises(DiceError) as info:
        proc.path_odds(limits=Limits(enumeration_work=100_000))
    message = info.value.message
    assert "enumeration_work" in message and "steps" in message
    assert int(re.search(r"about (\d+) steps", message).group(1)) > 100_000
    assert runs["runs"] < 100


# ---- one roll's distribution: counted, not convolved die by die ------------------------------

def brute_force(text: str) -> dict[int, Fraction]:
    d = parse_dice_text(text)
    faces = [range(1, t.sides + 1) for t in d.terms for _ in range(t.count)]
    totals = Counter(d.total(f) for f in itertools.product(*faces))
    ways = sum(totals.values())
    return {total: Fraction(n, ways) for total, n in totals.items()}


@pytest.mark.parametrize("text", ["3d6", "d6", "2d4+12", "d20 - d6", "3d6 + 2d6 - d4",
                                  "2d1 + 3", "4d6kh3 + d4", "d10 - 2d4kl1 - 5"])
def test_distributions_match_brute_force(text):
    """"compare a small case like 3d6 to brute force over all 216 outcomes"."""
    assert dict(parse_dice_text(text).distribution()) == brute_force(text)
    assert sum(brute_force("3d6").values()) == 1 and len(brute_force("3d6")) == 16


def test_200d150_is_exact():
    """"one roll of 200d150 takes 106 s because each die counts separately"."""
    wide = Limits(distribution_work=10**9)
    dist = parse_dice_text("200d150").distribution(wide)
    ways = 150**200
    counts = [p.numerator * (ways // p.denominator) for _, p in dist]  # exact, over 150^200
    assert sum(counts) == ways  # the probabilities sum to exactly 1
    assert (dist[0][0], dist[-1][0], len(dist)) == (200, 30_000, 29_801)
    assert dist[0][1] == Fraction(1, ways) and dist[-1][1] == Fraction(1, ways)
    assert dist[1][1] == Fraction(200, ways)  # one die shows 2, the rest 1
    assert Fraction(sum(t * n for (t, _), n in zip(dist, counts)), ways) == Fraction(200 * 151, 2)
    assert counts == counts[::-1]  # symmetric about the middle
    # Counted, not convolved die by die: a few operations per total, where adding one die at a
    # time to a table of up to 30,000 totals took about 200 × 150 × 15,000 = 4.5e8.
    assert parse_dice_text("200d150").counts(wide).cost < 100_000


def test_200d150_in_a_procedure_is_one_roll():
    """The same roll behind `odds`: 29,801 paths, each taking the distribution worked out once."""
    proc = procedure('procedure p "Big" ():\n'
                     "  roll total = 200d150\n"
                     "  if total > 15100:\n"
                     "    outcome high\n"
                     "  else if total < 15100:\n"
                     "    outcome low\n"
                     "  else:\n"
                     "    outcome middle\n")
    odds = proc.odds(limits=Limits(distribution_work=10**9))
    assert odds["high"] == odds["low"] and sum(odds.values()) == 1
    with pytest.raises(DiceError, match="distribution_work"):
        proc.odds()  # the default refuses it, as it always did


def test_keep_drop_dice_keep_their_limit():
    """"keep/drop dice keep their existing limits"."""
    with pytest.raises(DiceError, match="keep_drop_outcomes"):
        parse_dice_text("5d20kh3").distribution()
    assert len(parse_dice_text("5d20kh3").distribution(Limits(keep_drop_outcomes=4_000_000))) \
        == 58


# ---- seeds ------------------------------------------------------------------------------------

def faces(seed: int) -> list[int]:
    source = SeededDice(seed)
    return [source.roll(parse_dice_text("d100"))[0] for _ in range(20)]


def test_negative_seeds_roll_their_own_dice():
    """"`--seed -7` rolls the same as `--seed 7`"."""
    assert faces(-7) != faces(7)
    assert faces(-7) == faces(-7)
    assert faces(-1) != faces(1) and faces(-1) != faces(-7)
    huge = -(10**5000)  # past int-to-text limits: still a seed
    assert faces(huge) == faces(huge) != faces(-huge)


def test_seeds_of_zero_or_more_roll_as_they_always_did():
    """"existing seeds >= 0 must keep rolling exactly as they do now"."""
    import random

    for seed in (0, 7, 2**40):
        reference = random.Random(seed)
        assert faces(seed) == [reference.randint(1, 100) for _ in range(20)]


def test_negative_seeds_are_the_same_in_every_process():
    """Negative seeds are hashed to bytes, never through `hash()`: the same faces under any
    PYTHONHASHSEED."""
    code = ("from rulecraft import SeededDice; from rulecraft.compiler.evaluate import "
            "parse_dice_text; s = SeededDice(-7); d = parse_dice_text('d100'); "
            "print([s.roll(d)[0] for _ in range(20)])")
    seen = set()
    for hash_seed in ("0", "1", "4242"):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed}, timeout=120)
        assert done.returncode == 0, done.stderr
        seen.add(done.stdout.strip())
    assert seen == {str(faces(-7))}


@pytest.mark.parametrize("seed", [[1], True, 7.0, "7", Decimal(7), Fraction(7), b"7"])
def test_a_seed_is_a_whole_number(seed):
    """"`run(seed=[1])` and other non-int seeds (bool, float, str) must be a RulecraftError
    (RangeError) saying a seed is a whole number"."""
    proc = procedure(THREE_D100)
    with pytest.raises(RangeError, match="a seed is a whole number"):
        proc.run(seed=seed)
    with pytest.raises(RangeError, match="a seed is a whole number"):
        SeededDice(seed)


def test_run_takes_limits_and_dice_it_can_read():
    """A procedure's run/odds/enumerate take `limits=`; anything else given as dice is refused
    cleanly."""
    proc = procedure('procedure p "Three" ():\n  roll t = 3d6\n  outcome done with (t = t)\n')
    assert proc.run(seed=-7).outcome.name == "done"
    with pytest.raises(DiceError, match="limit is 2 per roll"):
        proc.run(seed=1, limits=Limits(dice_per_roll=2))
    with pytest.raises(DiceError, match="limit is 2 per roll"):
        proc.run(dice=[1, 2, 3], limits=Limits(dice_per_roll=2))
    with pytest.raises(RangeError, match="dice are a list of results"):
        proc.run(dice=5)
    for call in (proc.run, proc.odds, proc.enumerate):
        with pytest.raises(RangeError, match="rulecraft.Limits"):
            call(limits={"enumeration_paths": 10})


# ---- odds grouped by a map ----------------------------------------------------------------------

WOUNDS = (
    'enum area "Area": Head, Arm, Leg\n'
    'combatant fighter "Fighter":\n'
    "  toughness: 1..20\n"
    "  state wounds: map area -> integer\n"
    "  state notes: map area -> list area\n"
    'procedure hit "Hit" (target: fighter):\n'
    "  roll where = d6\n"
    "  roll how = d2\n"
    "  if where <= 2:\n"
    '    add how to target.wounds["Head"]\n'
    '    add "Arm" to target.notes["Head"]\n'
    "  else if where <= 4:\n"
    '    add 1 to target.wounds["Leg"]\n'
    '    add 1 to target.wounds["Arm"]\n'
    "  else:\n"
    '    add 1 to target.wounds["Arm"]\n'
    '    add 1 to target.wounds["Leg"]\n'
    "  outcome struck with (wounds = target.wounds, notes = target.notes)\n"
)


def test_odds_by_a_map_field():
    """"`odds --by` a map field (`unhashable type`)" must work: maps group by their entries,
    whatever order they were filled in."""
    book = rulecraft.compile(HEAD + WOUNDS, filename="sample.rules")
    proc, target = book.procedures["hit"], book.combatant(toughness=10)
    odds = proc.odds(target=target, by="wounds")
    assert sorted((sorted(k.items()), p) for k, p in odds.items()) == [
        ([("Arm", 1), ("Leg", 1)], Fraction(2, 3)),  # Leg then Arm, or Arm then Leg: one group
        ([("Head", 1)], Fraction(1, 6)),
        ([("Head", 2)], Fraction(1, 6)),
    ]
    assert sum(odds.values()) == 1
    shown = {rulecraft.runtime.values.display(k) for k in odds}
    assert shown == {"Arm: 1; Leg: 1", "Head: 1", "Head: 2"}
    notes = proc.odds(target=target, by="notes")
    assert {rulecraft.runtime.values.display(k): p for k, p in notes.items()} == {
        "Head: Arm": Fraction(1, 3), "nothing": Fraction(2, 3)}
    by_function = proc.odds(target=target, by=lambda r: r.outcome["wounds"])
    assert by_function == odds
    key = next(iter(odds))
    with pytest.raises(TypeError):
        key["Head"] = 3  # a key of the odds cannot change under them


# ---- nan and infinity never reach dice ----------------------------------------------------------

@pytest.mark.parametrize("bad", [Decimal("NaN"), Decimal("Infinity"), Decimal("-Infinity"),
                                 Decimal("2.5"), 2.0, True])
def test_dice_of_no_whole_number_are_refused(bad):
    """"`nan`/`inf` never reach dice"."""
    with pytest.raises(DiceError, match="whole numbers"):
        dice(bad, 6)
    with pytest.raises(DiceError, match="whole numbers"):
        dice(2, bad)


@pytest.mark.parametrize("bad", [Decimal("NaN"), Decimal("Infinity"), Decimal("-Infinity")])
def test_no_infinite_number_joins_dice(bad):
    d6 = parse_dice_text("d6")
    for make in (lambda: d6 + bad, lambda: d6 - bad, lambda: bad - d6,
                 lambda: d6.clamped(at_least=bad), lambda: d6.clamped(at_most=bad)):
        with pytest.raises(DiceError, match="not a number dice can use"):
            make()


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), Decimal("NaN")])
def test_nan_given_to_a_procedure_never_reaches_its_dice(bad):
    proc = procedure('procedure p "Modified" (modifier: number):\n'
                     "  roll r = d10 - modifier\n"
                     "  outcome done with (r = r)\n")
    with pytest.raises(RulecraftError):
        proc.run(seed=1, modifier=bad)
    with pytest.raises(RulecraftError):
        proc.odds(modifier=bad)
    assert proc.odds(modifier=0.5) == {"done": 1}


def test_each_sample_is_bounded_as_a_run_is_not_all_of_them_together():
    # The exact odds' refusal says "estimate them by sampling instead: `rulecraft odds …
    # --samples 100000 --seed 1`": that advice has to work. Each sample, whose number the user
    # gave, has a budget of its own, as each of `fight --runs N`'s fights has; one sample past
    # the work limit is still refused.
    book = rulecraft.compile(HEAD + """procedure walk (n: 1..9):
  let total = 0
  repeat until total >= 60, at most 100 times:
    roll step = d6
    let total = total + step
  outcome done with (total = total)
""", filename="sample.rules")
    walk = book.procedures["walk"]
    small = Limits(work=1000)  # a walk fits in 500; fifty of them together would not
    found = walk.sample(50, seed=1, limits=small, n=1)
    assert found["done"].count == 50
    with pytest.raises(RangeError, match="limit work"):
        walk.sample(50, seed=1, limits=Limits(work=5), n=1)
