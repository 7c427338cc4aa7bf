"""d20 modern (issue 16): rulebooks/d20_modern.rules played with scripted dice, each test
quoting the seed's sentence it pins (seed 001_3288d91f938999f6.txt)."""

from __future__ import annotations

import pytest

import rulecraft

# A level-3 fighter: BAB +3 (sample: +1 a level), Str +2, Dex +1.
from d20_samples import hero, run


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("d20_modern")


# "Personal Armor Class (AC): 10 + Dex bonus + ½ level + any worn armor bonus"
def test_armor_class(rb):
    assert rb.formulas["armor_class"](3, 4, 2) == 10 + 3 + 2 + 2
    assert rb.formulas["armor_class"](1, 5, 0) == 13  # ½ of 5 rounds down
    assert hero(rb, dex=2, level=6, armor=4).ac == 19


# "Melee: add BAB attack bonus + Str bonus." "Ranged: add BAB attack bonus + Dex bonus. This
# includes thrown weapons."
def test_attack_bonus_melee_ranged_thrown(rb):
    f = rb.formulas["attack_bonus"]
    assert f(3, 2, 1, "Melee") == 5
    assert f(3, 2, 1, "Ranged") == 4
    assert f(3, 2, 1, "Thrown") == 4


# "Unlike other D20 games, Natural 1's and 20's are not automatic misses and hits."
def test_natural_20_still_misses_a_high_ac(rb):
    a = hero(rb)                              # +3 BAB +2 Str: 20 + 5 = 25
    d = hero(rb, dex=5, level=10, armor=8)    # AC 10 + 5 + 5 + 8 = 28
    r = run(rb, "attack_roll", [20], attacker=a, defender=d)
    assert (r.outcome, r.outcome["natural"], r.outcome["total"]) == ("miss", 20, 25)


def test_natural_1_still_hits_a_low_ac(rb):
    a = hero(rb, level=12, str=4)             # 1 + 12 + 4 = 17
    d = hero(rb, dex=-1, level=1, armor=0)    # AC 9
    r = run(rb, "attack_roll", [1], attacker=a, defender=d)
    assert (r.outcome, r.outcome["total"]) == ("hit", 17)


# "If it is equal or more, it's a hit."
def test_equal_to_ac_hits(rb):
    d = hero(rb)                              # AC 10 + 1 + 1 = 12
    assert run(rb, "attack_roll", [7], attacker=hero(rb), defender=d).outcome == "hit"
    assert run(rb, "attack_roll", [6], attacker=hero(rb), defender=d).outcome == "miss"


# "Ranged: add BAB attack bonus + Dex bonus"; melee only at Close; a weapon's range bounds it.
def test_ranged_uses_dex_and_ranges(rb):
    a = hero(rb, weapon="Pistol", dex=3)
    d = hero(rb)
    r = run(rb, "attack_roll", [5], attacker=a, defender=d, range="Medium")
    assert r.outcome["total"] == 5 + 3 + 3
    assert run(rb, "attack_roll", [], attacker=a, defender=d, range="Long").outcome == "no_attack"
    assert run(rb, "attack_roll", [], attacker=hero(rb), defender=d, range="Short").outcome == "no_attack"


# "For melee (hand-to-hand) weapons, add the attacker's Str bonus to the damage."
def test_melee_damage_adds_str_ranged_does_not(rb):
    d = hero(rb, hp=20)
    r = run(rb, "strike", [10, 2], attacker=hero(rb, weapon="Knife"), defender=d)
    assert r.outcome["damage"] == 2 + 2
    d = hero(rb, hp=20)
    r = run(rb, "strike", [10, 3, 4], attacker=hero(rb, weapon="Pistol"), defender=d, range="Short")
    assert r.outcome["damage"] == 7


# "At 0 HP, a combatant is dead"
def test_zero_hp_is_dead(rb):
    d = hero(rb, hp=3)
    r = run(rb, "strike", [15, 4], attacker=hero(rb, weapon="Knife"), defender=d)
    assert r.outcome["wound"] == "dead"
    assert r.combatants["defender"].hp == 0


# "Characters and important NPC's who have FP may choose to use them here to negate any
# damage taken from the attack."
def test_fp_negates_damage(rb):
    d = hero(rb, hp=5, fp=2, important=True)
    r = run(rb, "take_damage", [], defender=d, damage=6, use_fp=True)
    assert r.outcome == "negated"
    d = r.combatants["defender"]
    assert (d.hp, d.fp) == (5, 1)


# "Characters out of FP might use their XP, but there will be Ref-decided consequences"
def test_xp_negates_damage_with_a_ruling(rb):
    d = hero(rb, hp=5, fp=0, xp=300, important=True)
    r = run(rb, "take_damage", [], defender=d, damage=6, use_xp=True, xp_cost=200)
    assert r.outcome == "negated_by_xp"
    d = r.combatants["defender"]
    assert (d.hp, d.xp) == (5, 100)
    assert any(e.kind == "ruling" for e in r.trace)


# The language: a flat list of one fighter for each side of lists is a side of one each.
def test_one_fighter_to_each_side_of_lists(rb):
    a, b = hero(rb), hero(rb, weapon="Knife")
    f = rb.fight([a, b], seed=5)
    assert [name for name, _ in f.sides] == ["heroes", "foes"]
    assert [len(members) for _, members in f.sides] == [1, 1]
    assert f.winner() in ("heroes", "foes")
    # three fighters to two sides of lists is not one each: refused as before
    with pytest.raises(Exception):
        rb.fight([a, b, hero(rb)], seed=5)
