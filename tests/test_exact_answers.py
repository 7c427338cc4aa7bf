"""Exact odds of a caller answering its callee's choices: `call blow = melee_attack(attacker,
defender) choosing defence = "Parry"` (issue 19's pairing "a choice passed by the caller", the
bench_core row "choice passed by the caller, exact odds": 4.5x icepool while the caller walked
every path of the blow). The call now hands its answers on, and the callee is worked out with
them, as a run plays it (`_ctx.call(…, answers=…)`); its endings are remembered apart from the
same call answered otherwise. Every answer here is checked against the path walk."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import rulecraft

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_core import SHEET_A, SHEET_B  # noqa: E402

RULES = '''rulebook answers "A caller answering its callee's choices"
extends ringing_steel

procedure parried "The caller has the defender parry" (attacker: fighter, defender: fighter):
  call blow = melee_attack(attacker, defender) choosing defence = "Parry"
  outcome done with (result = blow, wound = blow.wound)

procedure styled "The caller's own parameter answers" (attacker: fighter, defender: fighter, style: defence = "Active Dodge"):
  call blow = melee_attack(attacker, defender) choosing defence = style
  outcome done with (result = blow, wound = blow.wound)

procedure handed_on "An answer reaches the callee's callee" (attacker: fighter, defender: fighter):
  call inner = plain(attacker, defender) choosing defence = "Parry"
  outcome done with (result = inner.result)

procedure plain "No answer" (attacker: fighter, defender: fighter):
  call blow = melee_attack(attacker, defender)
  outcome done with (result = blow)

procedure either "The same call from the same state, answered or not" (attacker: fighter, defender: fighter):
  roll coin = d2
  if coin == 1:
    call parried_blow = melee_attack(attacker, defender) choosing defence = "Parry"
    outcome done with (wound = parried_blow.wound)
  call blow = melee_attack(attacker, defender)
  outcome done with (wound = blow.wound)
'''

RB = rulecraft.compile(RULES, "answers.rules")
A, B = RB.combatant(**SHEET_A), RB.combatant(**SHEET_B)


@pytest.mark.parametrize("name, given, by", [
    ("parried", {}, "result"), ("parried", {}, "wound"),
    ("styled", {}, "result"), ("styled", {"style": "Parry"}, "result"),
    ("handed_on", {}, "result"),
])
def test_the_answers_odds_are_the_path_walks(name: str, given: dict[str, str], by: str) -> None:
    procedure = RB.procedures[name]
    assert procedure.stepper is not None  # worked out by states, not by walking its paths
    odds = procedure.odds(attacker=A, defender=B, by=by, **given)
    assert dict(odds) == dict(procedure.path_odds(attacker=A, defender=B, by=by, **given))


def test_the_same_call_answered_and_not_is_remembered_apart() -> None:
    """The same blow, from the same state, answered on one branch and not on the other: its
    endings are worked out for each (the answers are part of what a call is remembered by),
    half the parried blow's wounds and half the plain blow's."""
    melee, either = RB.procedures["melee_attack"], RB.procedures["either"]
    parried = melee.odds(attacker=A, defender=B, defence="Parry", by="wound")
    plain = melee.odds(attacker=A, defender=B, by="wound")
    assert parried != plain
    odds = either.odds(attacker=A, defender=B, by="wound")
    assert dict(odds) == {k: (parried.get(k, 0) + plain.get(k, 0)) / 2
                          for k in set(parried) | set(plain)}
    assert dict(odds) == dict(either.path_odds(attacker=A, defender=B, by="wound"))
