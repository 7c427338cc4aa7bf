"""Exact odds planned with the values the same in every state (issue 19, exact odds by outcome).

The first segment is played once, by the one state a computation starts from, so what it sets
and the parameters never set again hold the same value in every state. A branch whose test
those values decide (`Stepper.decide`) is taken, or not, on every path: the exits of the arm
never taken keep nothing alive, and states that differ only in what that arm would have read
merge. Every answer is pinned against the path walk, which plays every path whole.
"""

from __future__ import annotations

import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

import rulecraft
from rulecraft.runtime import exact

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_core import SHEET_A, SHEET_B  # noqa: E402

HEAD = 'rulebook sample "Sample"\n'


def procedure(text: str) -> rulecraft.runtime.procedures.Procedure:
    procedures = rulecraft.compile(HEAD + text, filename="sample.rules").procedures
    return procedures[text.split()[1]]


@pytest.fixture
def played(monkeypatch):
    """How many segments the exact odds played, by procedure."""
    count: Counter[str] = Counter()
    monkeypatch.setattr(exact, "TALLY", count)
    return count


def test_a_parameter_set_again_after_a_roll_tells_states_apart():
    """A parameter is the same in every state only while nothing sets it again: here the
    bonus takes the first roll, so the states after it must not merge on it."""
    p = procedure('procedure p "P" (bonus: 0..20 = 0):\n'
                  "  roll a = d6\n"
                  "  let bonus = bonus + a\n"
                  "  roll b = d6\n"
                  "  outcome done with (total = bonus + b)\n")
    by_hand: dict[int, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            by_hand[a + b] = by_hand.get(a + b, 0) + Fraction(1, 36)
    assert p.odds(by="total") == by_hand == p.path_odds(by="total")


STYLE = ('procedure blow "Blow" (heavy: bool = false, careful: bool = false):\n'
         '  let style = "light"\n'
         "  if heavy:\n"
         '    let style = "heavy"\n'
         "  roll a = d20\n"
         "  roll b = d10\n"
         '  if style == "heavy":\n'
         "    outcome crushed with (force = a + b)\n"
         "  if careful and b > 5:\n"
         "    outcome steady with (force = b)\n"
         "  if a >= 11:\n"
         "    outcome hit with (force = 0)\n"
         "  outcome missed with (force = 0)\n")


@pytest.mark.parametrize("heavy", [False, True])
@pytest.mark.parametrize("careful", [False, True])
@pytest.mark.parametrize("by", ["outcome", "force"])
def test_a_branch_decided_from_the_start_gives_the_path_walks_answers(heavy, careful, by):
    blow = procedure(STYLE)
    assert blow.odds(by=by, heavy=heavy, careful=careful) == \
        blow.path_odds(by=by, heavy=heavy, careful=careful)


def test_a_branch_never_taken_keeps_nothing_alive(played):
    """A light blow never takes `if style == "heavy"`, and `careful and b > 5` is false when
    not careful whatever b is: b's d10 is read by nothing else, so each state rolling it makes
    one state after it, not ten."""
    blow = procedure(STYLE)
    assert blow.odds() == {"hit": Fraction(1, 2), "missed": Fraction(1, 2)}
    # The first segment; the d20's totals, two states (`a >= 11` or not); one state each
    # after the d10.
    assert played["blow"] == 1 + 2 + 2
    played.clear()
    # Careful, the d10 is read (`b > 5`): two states after it for each of the d20's.
    assert blow.odds(careful=True) == blow.path_odds(careful=True)
    assert played["blow"] == 1 + 2 + 2 * 2


def test_a_total_read_only_in_comparisons_merges_by_what_they_give(played):
    """States whose totals compare alike with every number they are compared with merge (`a
    >= 11`: two states, not twenty); a total read whole (the outcome's field, asked for)
    keeps them apart, and a value none on some paths is never taken for a comparison's
    result."""
    p = procedure('procedure p "P" ():\n'
                  "  let extra = none\n"
                  "  roll a = d20\n"
                  "  if a == 20:\n"
                  "    roll extra = d6\n"
                  "  roll b = d6\n"
                  "  if a >= 11 and b != 1:\n"
                  "    outcome hit with (a = a, extra = extra)\n"
                  "  if extra == none or extra < 3:\n"
                  "    outcome missed with (a = a, extra = extra)\n"
                  "  outcome grazed with (a = a, extra = extra)\n")
    assert p.odds() == p.path_odds()
    # The first segment; the d20's totals as three states (20, 11 to 19, the rest); the
    # extra d6's as two (below 3 or not); four at the join (the two, and none with a >= 11
    # or not); each of those four twice after the last d6 (a 1 or not).
    assert played["p"] == 1 + 3 + 2 + 4 + 4 * 2
    for by in ("a", "extra"):
        assert p.odds(by=by) == p.path_odds(by=by)


def test_melee_attack_by_outcome_merges_what_a_strike_never_reads(played):
    """Ringing Steel, part IV: a whip "can be used for normal attacks ... Alternately it can
    be used to make entangling attacks":

        let whip_attack = "Strike"
        if attacker.weapon == "Whip":
          choose whip_attack by attacker from lash default "Strike"
        ...
        if whip_attack == "Entangle":
          call whip = whip_wrap(attacker, defender, excess, area)

    A swordsman's `whip_attack` is "Strike" in every state (set in the first segment alone),
    so the entangling branch is never taken and the excess and the hit location it reads
    keep no state apart. Against a parry, "a parry by the hand, or a parried punch or kick,
    hurts the limb":

        if defence == "Parry" and not with_shield:
          call limbs = unarmed_parry(attacker, defender, excess, by_hand)

    where `unarmed_parry` reads the excess only `if by_hand and …` or `if attacker.weapon ==
    "Hand" or attacker.weapon == "Foot"`: given `by_hand` false and a sword nothing changes,
    the call reads no excess either. Each way, the blow plays 37 segments (546 and 116 when
    liveness was per step), and its answers are the path walk's; a whip's are too."""
    rb = rulecraft.load("ringing_steel")
    attack = rb.procedures["melee_attack"]
    a, b = rb.combatant(**SHEET_A), rb.combatant(**SHEET_B)
    for defence in ("Passive Dodge", "Parry"):
        played.clear()
        odds = attack.odds(attacker=a, defender=b, defence=defence)
        assert played["melee_attack"] <= 40
        assert odds == attack.path_odds(attacker=a, defender=b, defence=defence)
    whip = rb.combatant(**dict(SHEET_A, weapon="Whip", training={"Whip": 5}))
    for policy in (None, "brawler"):
        asked = dict(attacker=whip, defender=b) | ({"policy": policy} if policy else {})
        assert attack.odds(**asked) == attack.path_odds(**asked)


def test_one_procedure_asked_again_with_other_values_decides_again():
    """What the first segment's values decide is remembered by those values: the same
    procedure asked with other arguments is planned for them."""
    blow = procedure(STYLE)
    for heavy, careful in [(False, False), (False, True), (True, False), (False, False),
                           (True, True), (False, True)]:
        asked = dict(heavy=heavy, careful=careful)
        assert blow.odds(**asked) == blow.path_odds(**asked)
        assert blow.odds(by="force", **asked) == blow.path_odds(by="force", **asked)


GUARD = ('combatant fighter "Fighter":\n'
         "  skill: 1..20\n"
         "  stance: name = \"high\"\n"
         "  state stamina: 0..10 = 6\n"
         "  derived winded = stamina < 3\n")


@pytest.mark.parametrize("stance", ["high", "low"])
def test_a_partys_field_decides_only_where_nothing_changes_it(stance):
    """`who.stance` is the same in every state (nothing sets it), so `if who.stance ==
    "low" and b > 2` is decided by it; `who.winded` is derived from the stamina a roll
    takes, so it is not, and the answers stay the path walk's."""
    rules = rulecraft.compile(HEAD + GUARD +
                              'procedure guard "Guard" (who: fighter):\n'
                              "  roll a = d6\n"
                              "  if a > 3:\n"
                              "    set who.stamina = 1\n"
                              "  roll b = d6\n"
                              '  if who.stance == "low" and b > 2:\n'
                              "    outcome braced with (b = b)\n"
                              "  if who.winded and b > 4:\n"
                              "    outcome down with (b = b)\n"
                              "  outcome up with (b = b)\n", filename="sample.rules")
    guard = rules.procedures["guard"]
    who = rules.combatant(skill=10, stance=stance)
    for by in ("outcome", "b"):
        assert guard.odds(who=who, by=by) == guard.path_odds(who=who, by=by)
    assert who.stamina == 6


@pytest.mark.parametrize("by", ["outcome", "excess", "wound", "dodge_direction",
                                "attacker_dead_time"])
def test_melee_attack_by_each_value_is_the_path_walks(by):
    """Asked by a value, what a branch decided and a comparison keyed leave out must not
    matter: a swordsman and a fist (`unarmed_parry` hurts his limb), dodged and parried."""
    rb = rulecraft.load("ringing_steel")
    attack = rb.procedures["melee_attack"]
    sword, spear = rb.combatant(**SHEET_A), rb.combatant(**SHEET_B)
    fist = rb.combatant(**dict(SHEET_A, weapon="Hand", training={"Hand": 5}))
    for attacker in (sword, fist):
        for asked in ({}, {"defence": "Parry"}):
            assert attack.odds(attacker=attacker, defender=spear, by=by, **asked) == \
                attack.path_odds(attacker=attacker, defender=spear, by=by, **asked)
