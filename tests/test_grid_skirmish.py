"""Issue 15's field, together: a Ringing Steel two-against-one on the hex grid (facing, front
and back hexes, a blocking attack made out of turn when a fighter enters a blocked hex), an
arrow in flight while its target walks, and a rider and his horse taking turns of their own —
tests/rules/grid_skirmish.rules, written as the book says; and the seams where the issue's
constructs meet."""

from __future__ import annotations

import pytest

import rulecraft

# ---- seams between the constructs ------------------------------------------------------------

MOUNTED = """rulebook mount "A rider and his horse"
combatant rider:
  skill: 1..20
  state hp: 0..10 = 3 clamped
combatant horse:
  speed: 1..30
  state hp: 0..10 = 5 clamped
encounter charge (knight: rider, steed: horse, footman: rider):
  clock tenths
  sides: knight and steed against footman
  for each p in party:
    act p at 1
  turn p:
    if p is horse:
      act p after 30 - p.speed
    else if p == knight:
      act p after 20 - p.skill
    else:
      act p after p.skill
  ends when one side standing
  at most 5 turns
"""


def test_a_party_of_several_models_is_compared_with_one_and_narrowed_down_an_else_if_chain():
    # "narrowed with `if p is horse:`": past `if p is horse:`, each `else if` and the last
    # `else:` read p as a rider; and a rider or horse may be the knight.
    rb = rulecraft.compile(MOUNTED, "m.rules")
    knight = rb.combatant(skill=12)
    steed = rb.combatant_models["horse"].build(speed=12)
    footman = rb.combatant(skill=4)
    log = rb.fight([knight, steed, footman], seed=1, names=["Bors", "Dobbin", "Jack"]).log()
    assert "1 Bors         Bors's action completes at 9" in log      # 20 - skill 12
    assert "1 Dobbin       Dobbin's action completes at 19" in log   # 30 - speed 12
    assert "1 Jack         Jack's action completes at 5" in log      # skill 4


INDEXED = """rulebook idx "The fight's lists, indexed"
combatant fighter:
  name: name
  state at: hex = hex(0, 0)
  state hp: 0..3 = 1
encounter skirmish (heroes: list fighter, foes: list fighter):
  clock tenths
  for each f in party:
    act f at 1
  turn f:
    if len(foes(f)) > 0:
      let first_foe = foes(f)[0]
      let last_ally = if len(allies(f)) > 0 then allies(f)[-1] else f
      let nearest = parties_within(f.at, 5)[0]
      let beside = party_at(f.at + hex(1, 0))
      let lead = heroes[0]
      let last = party[-1]
      stop first_foe
  ends when one side standing
  at most 5 turns
"""


def test_the_lists_a_fight_reads_its_sides_by_are_lists_of_the_language():
    # `foes(f)[0]` (issue 15 item 7's "list ... index" on item 2's sides): foes, allies and
    # party were Python lists, which indexing refused ("foes(f) is not a list").
    rb = rulecraft.compile(INDEXED, "idx.rules")
    a, b, c = (rb.combatant(name=n, at=(i, 0)) for i, n in enumerate("ABC"))
    fight = rb.fight({"heroes": [a, b], "foes": [c]}, seed=1)
    seen = {e["name"]: e["value"].name for e in fight.events if e["kind"] == "let"}
    assert seen == {"first_foe": "C", "last_ally": "B", "nearest": "A", "beside": "B",
                    "lead": "A", "last": "C"}
    assert fight.winner() == "heroes"


def test_a_side_of_one_fighter_is_given_by_the_fighter_itself():
    # `rb.fight({"heroes": [a, b], "foes": c})`: a side's one fighter was read as a list of
    # fighters and failed with a KeyError from Python.
    rb = rulecraft.compile(INDEXED, "idx.rules")
    a, b, c = (rb.combatant(name=n, at=(i, 0)) for i, n in enumerate("ABC"))
    fight = rb.fight({"heroes": [a, b], "foes": c}, seed=1)
    assert fight.winner() == "heroes" and [f.name for f in fight.sides[1][1]] == ["C"]
