"""Rules of the other seeds that only the dynamic half of the language can say (issue 6, "Done
when"): d20 initiative with roll-offs and ranking, RQ3 levels of success buying special
effects in a loop, BT damage cells in the book's notation. Small rule files, scripted dice."""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft

# d20 (seed 001): "First, anyone with a +3 or +4 in Dex bonus will act first in every rd. (In
# HTH combat, those with the HTH Trained skill will go first over untrained.) If there are
# multiple high-speed combatants, have a roll off with a d20 and rank them in order. No ties.
# Next, the rest of the combatants roll a d20. ... Have a roll off between any ties. The
# combatants will then be ranked from high roll to lowest and attack, in order, each rd."
INITIATIVE = """rulebook d20 "d20 initiative"
combatant character:
  name: name
  dex_bonus: -4..4
  hth_trained: bool
  state initiative: integer = 0
  state tiebreak: integer = 0
  state tied: bool = false
  derived fast = if dex_bonus >= 3 then 1 else 0
  derived trained = if hth_trained then 1 else 0
procedure initiative_order "Initiative" (party: list character):
  for each c in party:
    roll first = d20
    set c.initiative = first
  # "Have a roll off between any ties": those tied roll again, until no two are tied.
  repeat until all(count([o.initiative, o.tiebreak] == [c.initiative, c.tiebreak] for o in party) == 1 for c in party), at most 20 times:
    for each c in party:
      set c.tied = count([o.initiative, o.tiebreak] == [c.initiative, c.tiebreak] for o in party) > 1
    for each c in party:
      if c.tied:
        roll again = d20
        set c.tiebreak = c.tiebreak * 20 + again
  at the cap:
    outcome unresolved
  let order = sort_descending([c.fast, c.trained, c.initiative, c.tiebreak] for c in party)
  outcome ranked with (order = [c.name for c in order])
"""


def _party(rb):
    make = rb.combatant
    return [make(name="Ana", dex_bonus=1, hth_trained=False),
            make(name="Bo", dex_bonus=3, hth_trained=False),
            make(name="Cy", dex_bonus=0, hth_trained=True),
            make(name="Di", dex_bonus=4, hth_trained=True)]


def test_d20_initiative_ranks_high_speed_first_then_high_roll_to_low():
    rb = rulecraft.compile(INITIATIVE)
    # Rolls: Ana 12, Bo 5, Cy 18, Di 2. Fast first (Di trained before Bo), then 18, 12.
    r = rb.procedures["initiative_order"].run(party=_party(rb), dice=[12, 5, 18, 2])
    assert r.outcome == "ranked"
    assert r.outcome["order"] == ("Di", "Bo", "Cy", "Ana")  # lists come back as tuples


def test_d20_initiative_rolls_off_ties_until_none_are_left():
    rb = rulecraft.compile(INITIATIVE)
    # Ana and Cy both roll 15: they roll off (7 and 7: again), then 3 and 9: Cy first.
    r = rb.procedures["initiative_order"].run(party=_party(rb), dice=[15, 5, 15, 2, 7, 7, 3, 9])
    assert r.outcome["order"] == ("Di", "Bo", "Cy", "Ana")  # lists come back as tuples
    rolls = [(e.name, e.value) for e in r.trace if e.kind == "roll"]
    assert rolls[4:] == [("again", 7), ("again", 7), ("again", 3), ("again", 9)]


def test_d20_initiative_seeded_is_repeatable_and_always_ranks_everyone():
    rb = rulecraft.compile(INITIATIVE)
    for seed in range(20):
        r = rb.procedures["initiative_order"].run(party=_party(rb), seed=seed)
        assert sorted(r.outcome["order"]) == ["Ana", "Bo", "Cy", "Di"]
        assert r.outcome["order"][:2] == ("Di", "Bo")


# RuneQuest 3 levels of success (rq3 house rules, seed 003; widely published: special at 1/5
# and critical at 1/20 of skill). CHOICE for the test: each level beyond a plain success buys
# one special effect, chosen in the order given, while levels are left.
LEVELS = """rulebook rq "RQ levels"
enum effect: "Extra damage", "Bypass armour", "Knockback"
procedure attack "Attack" (skill: 1..200, wanted: list effect):
  roll d = d100
  let level = if d <= round(skill / 20) then 3 else if d <= round(skill / 5) then 2 else if d <= skill then 1 else 0
  let spare = max(0, level - 1)
  let bought = 0
  let effects = []
  for each e in wanted:
    if bought < spare:
      let effects = effects + [e]
      let bought = bought + 1
  outcome done with (level = level, effects = effects)
"""


@pytest.mark.parametrize("roll, level, effects", [
    (3, 3, ["Extra damage", "Bypass armour"]),   # critical: 3 <= 60/20
    (12, 2, ["Extra damage"]),                   # special: 12 <= 60/5
    (50, 1, []),                                 # plain success
    (61, 0, []),                                 # failure
])
def test_rq3_levels_of_success_buy_one_effect_per_spare_level(roll, level, effects):
    rb = rulecraft.compile(LEVELS)
    r = rb.procedures["attack"].run(skill=60, wanted=["Extra damage", "Bypass armour",
                                                      "Knockback"], dice=[roll])
    assert (r.outcome["level"], list(r.outcome["effects"])) == (level, effects)


def test_rq3_level_odds_are_exact():
    rb = rulecraft.compile(LEVELS)
    odds = rb.procedures["attack"].odds(by="level", skill=60, wanted=[])
    assert odds == {3: Fraction(3, 100), 2: Fraction(9, 100), 1: Fraction(48, 100),
                    0: Fraction(40, 100)}


# BT (seed 000) prints damage as 12, 12*, 12^: the notation and what the dice can do.
BT = """rulebook bt "BT damage"
notation damage "Damage":
  none adds 2d4
  "*" adds 2d6
  "^" adds 2d8
table weapons by weapon:
  damage: damage
  | Weapon    | Damage |
  | Dagger    | 12     |
  | Broadsword| 12*    |
  | Maul      | 12^    |
formula least(w: weapon) = minimum(weapons[w])
formula most(w: weapon) = maximum(weapons[w])
formula average(w: weapon) = mean(weapons[w])
"""


@pytest.mark.parametrize("weapon, low, high, mean", [
    ("Dagger", 14, 20, 17), ("Broadsword", 14, 24, 19), ("Maul", 14, 28, 21)])
def test_bt_damage_cells_have_their_minimum_maximum_and_mean(weapon, low, high, mean):
    rb = rulecraft.compile(BT)
    assert rb.formulas["least"](w=weapon) == low
    assert rb.formulas["most"](w=weapon) == high
    assert rb.formulas["average"](w=weapon) == mean
