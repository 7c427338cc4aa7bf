"""A condition written out is a member of the rulebook's enum `condition` (docs/language.md,
"Lasting conditions": "The condition's name is any name value; an enum `condition` checks
them"). Found when issue 15's slices met: the duel's "Attacking" became an action label and left
the enum, and the skirmish, written beside it, still gave "Attacking" — a condition never meant."""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime.errors import RulecraftError

RULES = '''rulebook t
enum condition: Stunned
combatant fighter:
  hp: 1..9
encounter e (a: fighter, b: fighter):
  clock tenths
  act a at 0
  turn f:
    give f "Stuned"
    if has(f, "Sleeping"):
      stop f
    end f "Stunned"
    act f after 1
  ends when has(a, "Stunned")
  at most 3 turns
'''


def test_a_misspelt_condition_is_an_error_where_it_is_written():
    with pytest.raises(RulecraftError) as caught:
        rulecraft.compile(RULES, filename="t.rules")
    text = str(caught.value)
    assert "t.rules:9:12: unknown condition 'Stuned'; did you mean 'Stunned'?" in text
    assert "t.rules:10:15: unknown condition 'Sleeping'" in text
    assert "'Stunned'" not in text.split("Sleeping")[1]  # `end f "Stunned"` and `has` are fine


def test_without_an_enum_condition_any_name_is_a_condition():
    text = RULES.replace("enum condition: Stunned\n", "")
    rb = rulecraft.compile(text, filename="t.rules")
    assert rb.procedures["e"].run(a=rb.combatant(hp=3), b=rb.combatant(hp=3)).outcome == "capped"


def test_the_shipped_rulebooks_name_only_their_conditions():
    for name in ("ringing_steel", "rq3_core", "rq3_house"):
        rulecraft.load(name)
