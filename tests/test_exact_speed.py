"""Exact odds made fast (issue 9): what the engine skips, shown by the work it does.

A state goes straight on where no other could merge with it, into the next segment's function
where it is a step forward; a roll nothing reads, a `delay` and a call nothing of is read make
no more states than they must; a frame belongs to one state. Each is pinned against the path
walk (`path_odds`) and by counting the segments played, never by timing anything.
"""

from __future__ import annotations

import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

import rulecraft
from rulecraft import CalculationError
from rulecraft.runtime import exact, exact_plan

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_core import SHEET_A, SHEET_B  # noqa: E402

HEAD = 'rulebook sample "Sample"\n'
FIGHTER = 'combatant fighter "Fighter":\n  skill: 1..20\n  state stamina: 0..30 = 6\n'


def procedures(text: str) -> dict[str, rulecraft.runtime.procedures.Procedure]:
    return rulecraft.compile(HEAD + text, filename="sample.rules").procedures


@pytest.fixture
def played(monkeypatch):
    """How many segments the exact odds played, by procedure."""
    count: Counter[str] = Counter()
    monkeypatch.setattr(exact, "TALLY", count)
    return count


def test_the_totals_of_the_first_roll_go_straight_on(played):
    """Each total of the first roll is played at once, through the join of an `if` without a
    roll in one branch (a call of the next segment), never waiting to be merged: the
    states there could only meet themselves. (The total is read whole, `a * 2`: a total
    only compared with numbers merges by what the comparisons give, test_exact_constants.)"""
    p = procedures('procedure p "P" ():\n'
                   "  roll a = d20\n"
                   "  if a == 1:\n"
                   "    roll fumble = d10\n"
                   "    let lost = fumble + 2\n"
                   "  else:\n"
                   "    let lost = 2\n"
                   "  if a * 2 >= 22:\n"
                   "    outcome hit with (lost = lost)\n"
                   "  outcome missed with (lost = lost)\n")["p"]
    for by in ("outcome", "lost"):
        assert p.odds(by=by) == p.path_odds(by=by)
    played.clear()
    assert p.odds() == {"hit": Fraction(1, 2), "missed": Fraction(1, 2)}
    # The first segment, the 20 totals (each with the join after the `if`, called straight
    # from the `else`), and the fumble's segment, once: its d10 is read by nothing asked.
    assert played["p"] == 1 + 20 + 1


def test_a_roll_nothing_reads_makes_one_state(played):
    p = procedures('procedure p "P" ():\n'
                   "  roll a = d6\n"
                   "  roll location = d100\n"
                   "  let where = location\n"
                   "  if a >= 5:\n"
                   "    outcome high with (where = where)\n"
                   "  outcome low with (where = where)\n")["p"]
    assert p.odds() == {"high": Fraction(1, 3), "low": Fraction(2, 3)}
    # Not 6 * 100 states: the d100 is merged away (and the d6's totals, only compared with
    # 5, are two states: 5 or more, or not).
    assert played["p"] == 1 + 2 + 2
    assert p.odds(by="where") == p.path_odds(by="where")


def test_a_delay_keeps_nothing_alive_yet_fails_where_a_run_fails(played):
    """With no clock, a `delay` changes nothing: what it reads does not keep states apart,
    but its arguments are still worked out, so a rule error in them is still an error."""
    rules = procedures(FIGHTER +
                       'procedure p "P" (who: fighter):\n'
                       "  roll wait = d100\n"
                       "  delay who by wait\n"
                       "  roll a = d6\n"
                       "  if a >= 5:\n"
                       "    outcome high\n"
                       "  outcome low\n"
                       'procedure q "Q" (who: fighter):\n'
                       "  roll wait = d6\n"
                       "  delay who by 60 / (wait - wait)\n"
                       "  outcome done\n")
    rb = rules["p"]
    who = rulecraft.compile(HEAD + FIGHTER, "fighter.rules").combatant(skill=10)
    assert rb.odds(who=who) == {"high": Fraction(1, 3), "low": Fraction(2, 3)}
    assert played["p"] <= 1 + 1 + 6
    with pytest.raises(CalculationError):
        rules["q"].path_odds(who=who)
    with pytest.raises(CalculationError):
        rules["q"].odds(who=who)


def test_a_call_nothing_of_is_read_is_played_once_for_the_same_arguments(monkeypatch):
    """Twenty states call the same procedure with the same party: one path of it is played,
    once, and each state holds its outcome."""
    rules = procedures(FIGHTER +
                       'procedure tire "Tire" (who: fighter):\n'
                       "  set who.stamina = max(0, who.stamina - 1)\n"
                       "  roll breath = d6\n"
                       "  outcome done with (breath = breath)\n"
                       'procedure p "P" (who: fighter):\n'
                       "  roll a = d20\n"
                       "  call after = tire(who)\n"
                       "  let breath = after.breath\n"
                       "  if a > 15:\n"
                       "    outcome high\n"
                       "  outcome low\n")
    who = rulecraft.compile(HEAD + FIGHTER, "fighter.rules").combatant(skill=10)
    calls = Counter()
    one_path = exact.Exact.one_path

    def counted(self, callee, args, fresh):
        calls[callee.name] += 1
        return one_path(self, callee, args, fresh)

    monkeypatch.setattr(exact.Exact, "one_path", counted)
    assert rules["p"].odds(who=who) == {"high": Fraction(1, 4), "low": Fraction(3, 4)}
    assert calls == {"tire": 1}
    assert rules["p"].odds(who=who) == rules["p"].path_odds(who=who)
    assert who.stamina == 6  # played on copies


def test_states_that_only_differ_in_what_one_branch_set_keep_their_own_frames():
    """A segment writes into the frame it is given: totals played straight on, and states
    merged later, must each have had a frame of their own."""
    p = procedures('procedure p "P" ():\n'
                   "  let bonus = 0\n"
                   "  roll a = d6\n"
                   "  if a >= 4:\n"
                   "    let bonus = a\n"
                   "  roll b = d6\n"
                   "  if b > 3:\n"
                   "    let bonus = bonus + 1\n"
                   "  outcome done with (total = bonus + b)\n")["p"]
    by_hand: dict[int, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            bonus = (a if a >= 4 else 0) + (1 if b > 3 else 0)
            by_hand[bonus + b] = by_hand.get(bonus + b, 0) + Fraction(1, 36)
    assert p.odds(by="total") == by_hand == p.path_odds(by="total")


def test_the_melee_attack_by_outcome_plays_a_few_segments_per_face(played):
    """Ringing Steel's blow, asked which outcome: the d20's totals go straight on through
    the fumble's `if` and merge where only their comparisons are read (`attack_roll == 20`,
    `attack_roll == 1`), the after-blow call (nothing of it read) is played once. Since parts
    II–IV the whip's entangling branch reads the excess and the area after the location roll;
    a swordsman's `whip_attack` is "Strike" in every state, so that branch is decided and keeps
    nothing alive (test_exact_constants): 37 segments, where liveness per step kept them apart
    and the blow played 546 (the path walk: 272 whole runs of ~20 segments each). (Until
    2026-12 `entangle`'s event sent the blow down the path walk, and this count was 0.)"""
    rb = rulecraft.load("ringing_steel")
    attack = rb.procedures["melee_attack"]
    a, b = rb.combatant(**SHEET_A), rb.combatant(**SHEET_B)
    odds = attack.odds(attacker=a, defender=b)
    assert odds == attack.path_odds(attacker=a, defender=b)
    assert sum(odds.values()) == 1
    assert 0 < played["melee_attack"] <= 40


def test_a_loose_slot_is_keyed_as_it_is_when_simple_else_through_keyed() -> None:
    """Issue 19 (exact): "Make those odds merge again ... answers unchanged": a slot whose kind
    the compiler does not know (melee_attack's `excess`) is keyed by the value itself when it
    is simple (no call per state), and a party or a list in it as `_keyed` keys it."""
    rb = rulecraft.load("ringing_steel")
    one, two = rb.combatant(**SHEET_A), rb.combatant(**SHEET_B)
    key = exact_plan._key_function([], (), (0,))
    assert key is not None
    assert key([7], [one]) == (7,) and key([None], [one]) == (None,)
    assert key([two], [one, two]) == (("@party", 1),)
    assert key([[one, 3]], [one, two]) == (("@list", ("@party", 0), 3),)
    assert exact_plan._key_function([], (), ()) is None
