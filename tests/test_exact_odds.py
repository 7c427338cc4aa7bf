"""Exact odds by states (issue 9): paths that reach the same point with the same values and
party states are merged, so the work grows with the states, not the paths.

Pinned three ways: against the path walk (`path_odds`, the old enumeration, kept to check
this) on every shipped procedure and on generated programs; against hand computations and
brute force on small cases; and against 100,000 seeded samples. No test times anything: that
the work is small is shown by counting the segments played.
"""

from __future__ import annotations

import itertools
import tracemalloc
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulecraft
from rulecraft import DiceError, Limits
from rulecraft.runtime import exact
from fuzz_strategies import _given, programs, rule_errors_only

HEAD = 'rulebook sample "Sample"\n'


def procedures(text: str) -> dict[str, rulecraft.runtime.procedures.Procedure]:
    return rulecraft.compile(HEAD + text, filename="sample.rules").procedures


class Tally(Counter):
    """Segments played, by procedure; `segments` all of them."""

    def __getitem__(self, name):
        if name == "segments":
            return sum(self.values())
        return super().__getitem__(name)


@pytest.fixture
def played(monkeypatch):
    """How many segments the exact odds played (calls included)."""
    count = Tally()
    monkeypatch.setattr(exact, "TALLY", count)
    return count


# ---- the same odds as the path walk ----------------------------------------------------------

@pytest.fixture(scope="module")
def steel():
    return rulecraft.load("ringing_steel")


def fighters(rb, **changes):
    a = dict(strength=12, dexterity=12, constitution=11, willpower=10, training={"Sword": 5},
             weapon="Sword", armour="Standard")
    b = dict(strength=13, dexterity=11, constitution=12, willpower=9, training={"Spear": 6},
             weapon="Spear", armour="Light")
    return rb.combatant(**a), rb.combatant(**{**b, **changes})


@pytest.mark.parametrize("defence", ["Passive Dodge", "Parry", "Active Dodge"])
@pytest.mark.parametrize("by", ["outcome", "wound", "location", "excess", "attack_roll",
                                "dodge_direction", "damage_factor", "attacker_dead_time",
                                "defender_saving_throw"])
def test_melee_attack_by_states_is_the_path_walk(steel, defence, by):
    attack = steel.procedures["melee_attack"]
    a, b = fighters(steel)
    states = attack.odds(attacker=a, defender=b, defence=defence, by=by)
    assert states == attack.path_odds(attacker=a, defender=b, defence=defence, by=by)
    assert sum(states.values()) == 1 and all(type(p) is Fraction for p in states.values())


def test_a_wounded_tired_defender_by_states_is_the_path_walk(steel):
    """State that changes what a blow does (wounds, fatigue over half the limit) and the
    fatigue saving throws an outcome calls for."""
    attack = steel.procedures["melee_attack"]
    a, b = fighters(steel, fatigue=30, injuries={"Arm": ["Wound"], "Chest": ["L Wound"]})
    for by in ("outcome", "wound", "defender_fatigue_save_modifier", "consequence"):
        assert attack.odds(attacker=b, defender=a, defence="Active Dodge", by=by) == \
            attack.path_odds(attacker=b, defender=a, defence="Active Dodge", by=by)


@pytest.mark.parametrize("name", ["saving_throw", "after_the_blow", "grapeshot_hit"])
def test_the_other_ringing_steel_procedures_by_states(steel, name):
    proc = steel.procedures[name]
    a, b = fighters(steel)
    args = {"saving_throw": dict(combatant=a, modifier=-2),
            "after_the_blow": dict(attacker=a, defender=b, defence="Active Dodge"),
            "grapeshot_hit": dict(defender=b, blow_strength=14, excess=3)}[name]
    for by in ["outcome", *sorted({f for fields in proc.outcomes.values() for f in fields})]:
        assert proc.odds(by=by, **args) == proc.path_odds(by=by, **args), by


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(text=programs(), data=st.data())
def test_generated_programs_by_states_are_the_path_walk(text, data):
    """Whatever a generated program does (calls, loops, choices, changes, tables), where the
    path walk finishes the states give the same Fractions; where it finishes, they finish."""
    rb = rule_errors_only(lambda: rulecraft.compile(text, "generated.rules"))
    if not isinstance(rb, rulecraft.Rulebook):
        return
    small = Limits(enumeration_paths=2_000, enumeration_work=200_000)
    for name, proc in rb.procedures.items():
        args = _given(data, proc.params, rb, name)
        if args is None:
            continue
        fields = sorted({f for names in proc.outcomes.values() for f in names})
        for by in ["outcome", *fields[:2]]:
            paths = rule_errors_only(lambda: proc.path_odds(by=by, limits=small, **args))
            if isinstance(paths, dict):
                states = proc.odds(by=by, **args)
                assert states == paths, (name, by)


# ---- hand computations and brute force -------------------------------------------------------

def test_two_rolls_and_a_branch_by_hand():
    p = procedures('procedure p "P" ():\n'
                   "  roll a = d6\n"
                   "  if a >= 5:\n"
                   "    roll b = d4\n"
                   "    outcome high with (total = a + b)\n"
                   "  outcome low with (total = a)\n")["p"]
    # a in 5..6 (1/3), b in 1..4: totals 6..10; a in 1..4: totals 1..4.
    by_hand = {t: Fraction(1, 6) for t in range(1, 5)}
    for a, b in itertools.product((5, 6), range(1, 5)):
        by_hand[a + b] = by_hand.get(a + b, 0) + Fraction(1, 24)
    assert p.odds(by="total") == by_hand
    assert p.odds() == {"high": Fraction(1, 3), "low": Fraction(2, 3)}


def test_five_independent_d10_are_convolved_not_nested(played):
    """"convolve independent rolls instead of nesting them": five d10, summed and counted,
    against brute force over all 100,000 faces; the work is the running sums' states."""
    p = procedures('procedure five "Five d10" ():\n'
                   + "".join(f"  roll {r} = d10\n" for r in "abcde")
                   + "  outcome done with (total = a + b + c + d + e, successes = "
                   + " + ".join(f"(if {r} >= 8 then 1 else 0)" for r in "abcde") + ")\n")["five"]
    faces = list(itertools.product(range(1, 11), repeat=5))
    totals = Counter(sum(f) for f in faces)
    successes = Counter(sum(x >= 8 for x in f) for f in faces)
    assert p.odds(by="total") == {t: Fraction(n, 10**5) for t, n in totals.items()}
    # A convolution's work: each running sum (1, 10, 19, 28, 37 of them) meets each face of
    # the next die, not each of the 100,000 paths.
    assert played["segments"] < 1_200
    assert p.odds(by="successes") == {k: Fraction(n, 10**5) for k, n in successes.items()}
    with pytest.raises(DiceError, match="enumeration_paths"):
        p.path_odds(by="total", limits=Limits(enumeration_paths=10_000))  # 100,000 paths


def test_a_sum_read_elsewhere_too_is_not_moved():
    """A roll read outside the sum keeps its own value: the sum is made where it is written."""
    p = procedures('procedure p "P" ():\n'
                   "  roll a = d6\n"
                   "  roll b = d6\n"
                   "  if a == 6:\n"
                   "    outcome six with (total = a + b)\n"
                   "  outcome other with (total = a + b - 1)\n")["p"]
    assert p.odds(by="total") == p.path_odds(by="total")
    assert sum(p.odds(by="total").values()) == 1


def test_a_loop_of_rolls_until_a_six(played):
    p = procedures('procedure until_six "Until a six" ():\n'
                   "  let tries = 0\n"
                   "  repeat until r == 6, at most 20 times:\n"
                   "    roll r = d6\n"
                   "    let tries = tries + 1\n"
                   "  at the cap:\n"
                   "    outcome gave_up\n"
                   "  outcome six with (tries = tries)\n")["until_six"]
    odds = p.odds(by="tries")  # giving up carries no tries: the value of that name, 20
    assert odds == {**{n: Fraction(5, 6) ** (n - 1) / 6 for n in range(1, 20)},
                    20: Fraction(5, 6) ** 19}
    assert played["segments"] < 20 * 10  # a few states per pass, not 6^20 paths


DUEL = """combatant fighter "Fighter":
  skill: 1..20
  state stamina: 0..30 = 6
procedure blow "Blow" (attacker: fighter, defender: fighter):
  roll attack = d20
  if attack <= attacker.skill:
    roll damage = d6
    set defender.stamina = max(0, defender.stamina - damage)
    outcome hit
  outcome missed
procedure duel "Duel to the end" (a: fighter, b: fighter):
  repeat until a.stamina == 0 or b.stamina == 0, at most 40 times:
    call first = blow(a, b)
    if b.stamina > 0:
      call second = blow(b, a)
  at the cap:
    outcome draw
  if b.stamina == 0:
    outcome a_wins
  outcome b_wins
"""


def duel_by_hand(skill_a: int, skill_b: int, stamina: int, rounds: int) -> dict[str, Fraction]:
    """The same duel as a Markov chain over (stamina a, stamina b), round by round."""
    def blows(skill: int, stamina: int) -> dict[int, Fraction]:
        hit = Fraction(skill, 20)
        out = {stamina: 1 - hit}
        for damage in range(1, 7):
            left = max(0, stamina - damage)
            out[left] = out.get(left, 0) + hit / 6
        return out

    now = {(stamina, stamina): Fraction(1)}
    ends: dict[str, Fraction] = {"a_wins": Fraction(0), "b_wins": Fraction(0)}
    for _ in range(rounds):
        after: dict[tuple[int, int], Fraction] = {}
        for (sa, sb), p in now.items():
            for sb2, q in blows(skill_a, sb).items():
                if sb2 == 0:
                    ends["a_wins"] += p * q
                    continue
                for sa2, r in blows(skill_b, sa).items():
                    if sa2 == 0:
                        ends["b_wins"] += p * q * r
                    else:
                        after[(sa2, sb2)] = after.get((sa2, sb2), 0) + p * q * r
        now = after
    ends["draw"] = sum(now.values(), Fraction(0))
    return ends


def test_a_duel_to_the_end_is_exact(played):
    """"Loops and whole fights with small state (a duel to the end between two fighters with
    a few hit points each) get exact odds too": forty rounds of blows, each call worked out
    once per pair of staminas."""
    book = procedures(DUEL)
    rb = rulecraft.compile(HEAD + DUEL, "sample.rules")
    a, b = rb.combatant(skill=11), rb.combatant(skill=9)
    odds = book["duel"].odds(a=a, b=b)
    assert odds == duel_by_hand(11, 9, 6, 40)
    assert sum(odds.values()) == 1
    # The blow is worked out once for each pair of staminas (7 x 7, each way round): a d20,
    # then d6 on a hit; not once per path (6^40 and more).
    assert played["blow"] <= 2 * 7 * 7 * (1 + 20 + 6)


def test_calls_are_worked_out_once_per_arguments_and_party_state(played):
    p = procedures("""combatant fighter "Fighter":
  willpower: 1..20
procedure saving_throw "Saving throw" (who: fighter, modifier: integer):
  roll throw = 3d6
  if throw <= who.willpower + modifier:
    outcome made
  outcome failed
procedure three "Three throws" (who: fighter):
  call first = saving_throw(who, 0)
  call second = saving_throw(who, 0)
  call third = saving_throw(who, -2)
  let made = (if first == "made" then 1 else 0) + (if second == "made" then 1 else 0) + (if third == "made" then 1 else 0)
  outcome done with (made = made)
""")
    rb_who = rulecraft.compile(HEAD + """combatant fighter "Fighter":
  willpower: 1..20
""", "w.rules").combatant(willpower=10)
    made_10 = Fraction(sum(1 for f in itertools.product(range(1, 7), repeat=3) if sum(f) <= 10),
                       216)
    made_8 = Fraction(sum(1 for f in itertools.product(range(1, 7), repeat=3) if sum(f) <= 8),
                      216)
    odds = p["three"].odds(by="made", who=rb_who)
    by_hand: dict[int, Fraction] = {}
    for x, y, z in itertools.product((0, 1), repeat=3):
        q = (made_10 if x else 1 - made_10) * (made_10 if y else 1 - made_10) * \
            (made_8 if z else 1 - made_8)
        by_hand[x + y + z] = by_hand.get(x + y + z, 0) + q
    assert odds == by_hand
    # Two distinct calls (modifier 0 and -2), each the 3d6 and its 16 totals: not three.
    assert played["saving_throw"] == 2 * (1 + 16)


# ---- too large: refused at once, sampled instead ---------------------------------------------

PRODUCT = ('procedure p "Product" ():\n'
           "  roll a = d100\n"
           "  roll b = d100\n"
           "  roll c = d100\n"
           "  outcome done with (x = a * b * c)\n")


def test_too_many_states_are_refused_at_once_with_the_reason(played):
    p = procedures(PRODUCT)["p"]
    tracemalloc.start()
    try:
        with pytest.raises(DiceError) as info:
            p.odds(by="x")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = info.value.message
    assert "odds_states" in message and "--limit odds_states=N" in message
    assert "--samples" in message and "sample(" in message
    assert info.value.line == 2
    # Refused as soon as the states made foretell it: the 10,000 pairs (a, b) are not all
    # played, nor the 100,000 states of the limit made.
    assert played["segments"] < 500
    assert "about" in message
    assert peak < 150_000_000
    assert p.odds() == {"done": 1}  # by outcome, the products are never told apart


def test_a_limit_of_ones_own(played):
    p = procedures(PRODUCT)["p"]
    with pytest.raises(DiceError, match="more than 50 distinct states"):
        p.odds(by="x", limits=Limits(odds_states=50))


def test_sampling_agrees_with_the_exact_odds_of_the_melee_attack(steel):
    """"exact odds agree ... with 100,000 seeded samples within sampling error on the melee
    attack": every wound's share within 4.5 standard errors, and inside its 95% interval for
    all but a few."""
    attack = steel.procedures["melee_attack"]
    a, b = fighters(steel)
    exact_odds = attack.odds(attacker=a, defender=b, by="wound")
    sampled = attack.sample(100_000, by="wound", seed=9, attacker=a, defender=b)
    assert set(sampled) <= set(exact_odds)
    outside = 0
    for value, p in exact_odds.items():
        estimate = sampled.get(value)
        share = float(estimate) if estimate else 0.0
        error = (float(p) * (1 - float(p)) / 100_000) ** 0.5
        assert abs(share - float(p)) <= 4.5 * error + 1e-9, (value, share, float(p))
        outside += estimate is not None and not estimate.low <= p <= estimate.high
    assert outside <= 2
    assert attack.sample(100, by="wound", seed=9, attacker=a, defender=b) == \
        attack.sample(100, by="wound", seed=9, attacker=a, defender=b)  # seeded


def test_runs_without_a_trace(steel):
    attack = steel.procedures["melee_attack"]
    a, b = fighters(steel)
    runs = list(attack.runs(5, seed=4, attacker=a, defender=b))
    source = rulecraft.SeededDice(4)
    traced = [attack.run(dice=source, attacker=a, defender=b) for _ in range(5)]
    assert [r.outcome for r in runs] == [r.outcome for r in traced]
    assert all(r.trace == () for r in runs) and all(r.trace for r in traced)
    with pytest.raises(rulecraft.RangeError, match="whole number of runs"):
        attack.runs(-1, attacker=a, defender=b)
    with pytest.raises(rulecraft.RangeError, match="needs defender"):
        attack.runs(3, attacker=a)  # checked at once, not at the first run


def test_a_function_by_or_chooser_walks_the_paths(steel):
    attack = steel.procedures["melee_attack"]
    a, b = fighters(steel)
    by_function = attack.odds(attacker=a, defender=b, by=lambda r: r.outcome.name)
    assert by_function == attack.odds(attacker=a, defender=b)
    chosen = attack.odds(attacker=a, defender=b,
                         choices={"defence": lambda options, values: "Parry"})
    assert chosen == attack.odds(attacker=a, defender=b, defence="Parry")
