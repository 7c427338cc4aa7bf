"""BT chapter 3, the action half: weapon use in counts, presses and retreats, to-hit modifiers and
the strike, pinned to the seed (shared/seeds/000_0f73853bd0a076ff.txt) with scripted dice.

Every expected number is worked out by hand from the quoted sentence and written as a literal.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("bt")


def fighter(rb, **figures):
    """A 150 lb fighter with 40 HTK, a mace (WSD 8, 2.5 ft) and skill 80 unless told otherwise."""
    return rb.combatant(**{"weapon": "Mace", "htk": 40, "skill": 80, **figures})


# ---- the press/retreat stage table, every row ----------------------------------------------------

# "Stage 1 Out Out of Range; no dam; no chance; disengaged / Stage 3 Retreat -3 FOD -30 to
# offensive acts/-3 dam +3 WSD / ... / Optimal Distance -Weapon length +2 feet +0/+0 / Stage 1
# Press +1 FOD +10 to offensive acts/+1 dam -1 WSD / ... / Stage 1 Over 1/2 length and over; 1/2
# chance; 1/2 dam; full WSD / Stage 2 Over 1/4 length and over; 1/4 chance; 1/4 dam; 1.5*WSD /
# Stage 3 Over less than 1/4 - no dam; no chance; no WSD (locked)"
STAGES = [
    # stage, FOD, to hit, damage, WSD, chance, dam, WSD x
    ("Out", None, 0, 0, 0, 0, 0, None),
    ("Retreat 3", -3, -30, -3, 3, 1, 1, 1),
    ("Retreat 2", -2, -20, -2, 2, 1, 1, 1),
    ("Retreat 1", -1, -10, -1, 1, 1, 1, 1),
    ("Optimal", 0, 0, 0, 0, 1, 1, 1),
    ("Press 1", 1, 10, 1, -1, 1, 1, 1),
    ("Press 2", 2, 20, 2, -2, 1, 1, 1),
    ("Press 3", 3, 30, 3, -3, 1, 1, 1),
    ("Over 1", None, 0, 0, 0, 0.5, 0.5, 1),
    ("Over 2", None, 0, 0, 0, 0.25, 0.25, 1.5),
    ("Over 3", None, 0, 0, 0, 0, 0, None),
]


@pytest.mark.parametrize("row", STAGES, ids=[r[0] for r in STAGES])
def test_every_stage_row_is_the_books(rb, row):
    stage, fod, to_hit, damage, wsd, chance, dam, wsd_x = row
    r = rb.tables["stages"].lookup(stage)
    assert (r.fod, r.to_hit, r.damage, r.wsd) == (fod, to_hit, damage, wsd)
    assert (r.chance, r.dam, r.wsd_x) == (chance, dam, wsd_x)


def test_stages_are_in_the_books_order(rb):
    assert list(rb.enums["stage"].members) == [r[0] for r in STAGES]


# "For units- each stage is 1 foot for weapons of 6 feet or less. It is 1-1/2 feet for +6 foot
# weapon. ... Optimal distance is weapon length plus 2 feet."
def test_stage_units_and_optimal_distance(rb):
    unit = rb.formulas["stage_unit"]
    assert (unit(6), unit(6.5), unit(8)) == (1, 1.5, 1.5)
    assert rb.formulas["optimal_distance"](3) == 5
    dist = rb.formulas["stage_distance"]
    assert dist("Press 3", 6) == 5                      # 8 ft less three 1-ft units
    assert dist("Retreat 3", 8) == 14.5                 # 10 ft and three 1½-ft units


# "Stage 3 press is the closest one can fight at effectively. Then the melee enters over
# press-1/2 weapon length or weapon length-1, which causes 1/2 strike chance and 1/2 damage. If it
# enters 1/4 weapon length to 1/2 weapon length then 1/4 strike chance and 1/4 damage. Any
# ranges lower than that can produce no damage."
@pytest.mark.parametrize("distance,length,stage", [
    (12, 6, "Out"), (11, 6, "Retreat 3"), (8, 6, "Optimal"), (9, 6, "Retreat 1"),
    (5, 6, "Press 3"), (4, 6, "Over 1"), (3, 6, "Over 1"), (2.9, 6, "Over 2"), (1.5, 6, "Over 2"),
    (1.4, 6, "Over 3"), (0, 6, "Over 3"),
    (10, 8, "Optimal"), (11.5, 8, "Retreat 1"), (14.5, 8, "Retreat 3"), (15.5, 8, "Out"),
    (5.5, 8, "Press 3"),
])
def test_the_stage_at_a_distance(rb, distance, length, stage):
    assert rb.formulas["stage_at"](distance, length) == stage


# "Reminder: The two opponents, unless they are alike will probably be at DIFFERENT stages!"
def test_a_spear_and_a_knife_at_one_distance_are_at_different_stages(rb):
    at = rb.formulas["stage_at"]
    assert (at(4, 8), at(4, 1)) == ("Over 1", "Retreat 1")


# ---- weapon use in counts ------------------------------------------------------------------------

# "Say an action takes X counts to do. For X/2 counts I consider the attack to be winding up ...
# From a held couched position it would take 3*X/4 to strike! It shaves a quarter WSD off your
# attack."
def test_winding_up_and_couched_attacks(rb):
    assert rb.formulas["winding_up"](8) == 4
    counts = rb.formulas["attack_counts"]
    assert counts(8) == 8
    assert counts(8, couched=True) == 6
    assert counts(10, couched=True) == 8                # 7.5 rounded up


# "Attacks against people closing with you at faster than 2 ft/ct can be made at 1/2 WSD (round
# up)."
def test_closing_faster_than_two_feet_a_count_halves_the_wsd(rb):
    counts = rb.formulas["attack_counts"]
    assert counts(9, closing=2) == 9
    assert counts(9, closing=2.5) == 5


# "Weapon Speed Modifiers are for offensive actions- weapons never get faster than half WSD due to
# this effect." Press 3 is -3 WSD, Retreat 3 +3, Over 2 1.5*WSD, Over 3 no WSD.
def test_the_stage_changes_the_wsd_but_never_below_half(rb):
    counts = rb.formulas["attack_counts"]
    assert counts(8, "Press 3") == 5
    assert counts(4, "Press 3") == 2                    # 1 would be faster than half of 4
    assert counts(8, "Retreat 3") == 11
    assert counts(8, "Over 1") == 8
    assert counts(8, "Over 2") == 12
    assert rb.formulas["stage_wsd"](8, "Over 3") is None


# "Recovery is half the speed of the attack or half the WSD whichever is slower." "Any action with
# a tool that FINISHES a new action while still recovering from its last action will take a -50."
def test_recovery_and_the_minus_fifty(rb):
    rec = rb.formulas["recovery"]
    assert rec(5, 8) == 4                               # half the WSD is slower
    assert rec(11, 8) == 6                              # half the attack is slower
    mod = rb.formulas["recovering_modifier"]
    assert (mod(13, 14), mod(14, 14)) == (-50, 0)


# "For every 5 ft/ct above 5 ft/ct one is moving relative to the target one does an extra.5*DAM."
def test_extra_damage_for_speed(rb):
    s = rb.formulas["speed_scale"]
    assert (s(5), s(9), s(10), s(15), s(19)) == (1, 1, 1.5, 2, 2)


# "To fire with DEF activated take -30 with all missile weapons on top of the movement mods"
def test_missiles_with_def_activated(rb):
    m = rb.formulas["missile_def_modifier"]
    assert (m(True, True), m(True, False), m(False, True)) == (-30, 0, 0)


# ---- to-hit modifiers ----------------------------------------------------------------------------

# "If you are moving at all: -40% to-hit (Possible support skill: Shoot-While-Move. Adds 3% per
# rank to your shot.) If your target is moving at all: -40% to-hit"
def test_moving_attacker_and_target(rb):
    mv = rb.formulas["moving_modifier"]
    assert (mv(True), mv(True, 5), mv(False, 5), mv(True, 20)) == (-40, -25, 0, 0)
    assert rb.formulas["target_moving_modifier"](True) == -40


# "For every foot per count your velocities are different: -10% to-hit. ... If it is at 45
# degrees then you can take 90% of the velocity differential minuses[9% per ft/ct instead of ten].
# If it is heading straight towards or straight away it is 0%"
def test_velocity_differential_by_angle(rb):
    v = rb.formulas["velocity_modifier"]
    assert v(3) == -30
    assert v(3, 45) == -27
    assert v(3, 0) == 0
    assert v(3.9, 90) == -30                            # whole feet per count


# "If you make an ACTIVE targeting perception ... that is successful you cut all the target based
# movement mods in half- including the velocity differential."
def test_targeting_perception_halves_the_target_mods(rb):
    t = rb.formulas["target_modifiers"]
    assert t(True, 3) == -70
    assert t(True, 3, perceived=True) == -35
    assert t(True, 3, 45, True) == -33                  # -67 halved toward zero


# "An opponent is defined as moving if they: (a) have a velocity greater than 1 ft/count, or (b)
# are engaged in a maneuver skill of some sort"; "Unstable Platform": -40%.
def test_who_counts_as_moving_and_unstable_platforms(rb):
    mv = rb.formulas["moving"]
    assert not mv(fighter(rb))
    assert rb.formulas["platform_modifier"](True) == -40


# ---- presses and retreats ------------------------------------------------------------------------

# "for every 20 greater one character has over the other he gains one stage of Press or Retreat"
def test_success_numbers_and_stages(rb):
    sn = rb.formulas["success_number"]
    assert (sn(60, 15), sn(60, 61)) == (45, 0)
    st = rb.formulas["maneuver_stages"]
    assert (st(45, 26), st(45, 25), st(45, 5), st(5, 45)) == (0, 1, 2, 0)


# ---- the strike ----------------------------------------------------------------------------------

def test_a_strike_at_optimal_distance_hits_with_its_success_level(rb):
    # skill 80 rolls 17: SL 6 (CHOICE); the blow: d100 30 chest, the mace's 2d4 3 and 3: 14
    a, d = fighter(rb), fighter(rb, htk=100)
    r = rb.procedures["strike"].run(attacker=a, defender=d, dice=[17, 30, 3, 3, 50, 50])
    assert r.outcome.name == "hit"
    v = dict(r.outcome)
    assert (v["chance"], v["roll"], v["sl"]) == (80, 17, 6)
    assert v["blow"]["damage"] == 14 and v["blow"]["multiplier"] == 3


def test_a_strike_over_the_chance_or_a_critical_miss_misses(rb):
    a, d = fighter(rb, skill=120), fighter(rb)
    assert rb.procedures["strike"].run(attacker=a, defender=d, dice=[96]).outcome.name == "missed"
    assert rb.procedures["strike"].run(attacker=fighter(rb), defender=d, dice=[81]).outcome.name == "missed"


def test_a_press_adds_to_hit_and_damage_and_over_halves_them(rb):
    # a mace (2.5 ft): optimal 4.5 ft; at 1.5 ft it is Press 3: +30 to hit, +3 dam
    a, d = fighter(rb, skill=50, distance=1.5), fighter(rb, htk=100)
    r = rb.procedures["strike"].run(attacker=a, defender=d, dice=[17, 30, 3, 3, 50, 50])
    v = dict(r.outcome)
    assert v["chance"] == 80 and v["blow"]["damage"] == 17
    # at 1.25 ft ("1/2 length and over"): Over 1, half the chance and half the damage
    a = fighter(rb, skill=50, distance=1.25)
    r = rb.procedures["strike"].run(attacker=a, defender=d, dice=[17, 30, 3, 3, 50, 50])
    v = dict(r.outcome)
    assert v["chance"] == 25 and v["sl"] == 0 and v["blow"]["damage"] == 7
    # "less than 1/4 - no dam; no chance"
    a = fighter(rb, skill=50, distance=0.5)
    assert rb.procedures["strike"].run(attacker=a, defender=d).outcome.name == "no_chance"


def test_the_modifiers_add_up_on_a_strike(rb):
    # moving (-40, two ranks of Shoot-While-Move +6), a moving target 3 ft/ct apart head-on
    # (-40, no differential), unstable (-40), finishing while recovering (-50): 150 - 164
    a = fighter(rb, skill=150, shoot_while_move=2, velocity=3)
    d = fighter(rb, maneuvering=True)
    r = rb.procedures["strike"].run(attacker=a, defender=d, angle=0, unstable=True,
                                    finishes=10, recovered_at=12)
    assert r.outcome.name == "no_chance"
    r = rb.procedures["strike"].run(attacker=a, defender=d, angle=0, dice=[90])
    assert dict(r.outcome)["chance"] == 76              # 150 - 34 - 40


# "There are combat perception pluses for the opponent to notice;-) an attack once it becomes
# committed(+30)."
def test_a_committed_attack_is_easier_to_notice(rb):
    cp = rb.formulas["committed_perception"]
    assert (cp(3, 8), cp(4, 8), cp(8, 8)) == (0, 30, 30)


def test_the_to_hit_roll_has_exact_odds(rb):
    # skill 100 at optimal distance: 01-95 hit, 96-00 always miss (CHOICE); a press of 3 at
    # Over 1 halves: 50
    odds = rb.procedures["to_hit"].odds(attacker=fighter(rb, skill=100), defender=fighter(rb))
    assert odds["hit"] == Fraction(95, 100)
    odds = rb.procedures["to_hit"].odds(attacker=fighter(rb, skill=100, distance=1.25),
                                        defender=fighter(rb))
    assert odds["hit"] == Fraction(50, 100)
