"""Ringing Steel rules that need the dynamic half of the language (issue 6)."""

from __future__ import annotations

import pytest

import rulecraft

SHEET = dict(strength=10, dexterity=10, constitution=10, willpower=10, training={"Sword": 3},
             weapon="Sword")


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


# "When a combatant is hit by grapeshot, it is assumed to hit all areas of the body, and a
# damage factor is calculated for each separately. However, if the effective blow strength on
# any part of the body is zero or less, then there is no effect on that part."
@pytest.mark.parametrize("armour, strength, excess, expected", [
    # Light: Head 5, Shoulder 4, Arm 3, Chest 4, Abdomen 4, Leg 0. Blow strength 6, excess 2:
    # effective 1, 3, 2, 2, 2, 6 -> damage factors 1, 1, 1, 1, 1, 2 -> all Bruises.
    ("Light", 6, 2, {"Head": ("Bruise",), "Arm": ("Bruise",), "Shoulder": ("Bruise",),
                     "Chest": ("Bruise",), "Abdomen": ("Bruise",), "Leg": ("Bruise",)}),
    # Full protects 15 everywhere: a blow strength of 15 has no effect on any part.
    ("Full", 15, 8, {}),
    # Standard: 8 on every area but the leg (0). Blow strength 12, excess 6: effective 4
    # (damage factor round(10 / 4) = 3 with halves up) on five areas, 12 on the leg
    # (round(18 / 4) = 5): row 3 and row 5 of the Wounds Table.
    ("Standard", 12, 6, {"Head": ("L Wound",), "Arm": ("Wound",), "Shoulder": ("Bruise",),
                         "Chest": ("L Wound",), "Abdomen": ("Bruise",), "Leg": ("Wound",)}),
])
def test_grapeshot_hits_every_area_separately(rb, armour, strength, excess, expected):
    defender = rb.combatant(**SHEET, armour=armour)
    r = rb.procedures["grapeshot_hit"].run(defender=defender, blow_strength=strength,
                                           excess=excess)
    assert r.outcome == "hit"
    assert r.outcome["injuries"] == expected
    assert r.outcome["areas_hit"] == len(expected)
    assert [e.value for e in r.trace if e.kind == "each"] == \
        ["Head", "Arm", "Shoulder", "Chest", "Abdomen", "Leg"]


def test_melee_attack_declares_its_outcomes(rb):
    outcomes = rb.procedures["melee_attack"].outcomes
    assert list(outcomes) == ["critical_miss", "hit", "parried", "dodged", "missed", "entangled"]
    shared = ("attack_roll", "defence", "defence_potential", "attacker_fatigue_save_modifier",
              "defender_fatigue_save_modifier", "advantage", "defender_delay")
    assert all(fields[:len(shared)] == shared for fields in outcomes.values())
    assert "wound" in outcomes["hit"] and "attacker_dead_time" in outcomes["parried"]


def test_the_dodge_after_a_blow_is_a_call_with_its_own_line_in_the_trace(rb):
    # "When a defender dodges, he moves one hex to the back ... The direction moved is
    # determined by rolling a d6": the after-blow steps are one procedure, called by the blow.
    a = rb.combatant(**SHEET, armour="Standard")
    b = rb.combatant(**SHEET, armour="Light")
    r = rb.procedures["melee_attack"].run(attacker=a, defender=b, dice=[2, 3],
                                          defence="Active Dodge")
    assert r.outcome == "dodged"
    call = [e for e in r.trace if e.kind in ("call", "return")]
    assert [(e.kind, e.name, e.depth) for e in call] == [("call", "after", 0),
                                                         ("return", "after", 0)]
    roll = next(e for e in r.trace if e.name == "dodge_roll")
    assert roll.depth == 1 and roll.value == 3
