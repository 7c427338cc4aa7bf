"""Ringing Steel, part IV: every weapon of both weapon tables in every formula (issue 18, "Every
weapon of both weapon tables (the rapier, hand and foot, lance, whip and net included) and a
shield are usable as a combatant's weapons, with every formula"), and the joined table that
makes them one type.

Seed: shared/seeds/002_41f740bb26c2da28.txt, lines 207-229 (Unarmed Combat, the Unusual Weapons
Table), 288-290 (Rapier), 620-666 (the formulas). Expected figures worked out by hand.
"""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.runtime.errors import RulecraftError


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


def f(rb, name, **kw):
    return rb.formulas[name](**kw)


# ---- the joined table: one type of weapon ----------------------------------------------------

def test_the_weapon_type_is_the_rows_of_both_tables(rb):
    both = rb.tables["weapon_data"]
    names = [r.keys[0].text for r in both.rows]
    assert names == ["Sword", "Dagger", "Spear", "Club", "Javelin", "Short sword",
                     "Quarterstaff", "Greatsword", "Hand axe", "Battleaxe", "Shield",
                     "Hand", "Foot", "Rapier", "Pole arm", "Lance", "Whip", "Net"]
    # a row of either table is read through the joined one, cell for cell as printed
    assert both.lookup("Pole arm")["range"] == "Special"       # "Pole arm Cut Special 1.4 10 ..."
    assert both.lookup("Net")["modifier"] == 6                  # "Net Cut Medium 2.6 6"
    assert both.lookup("Sword")["dc"] == 3                      # "Sword Cut Medium 2.0 4 2.8 3.0 0"


# ---- Anti-Parry: "AP = Skill x A"; the rapier's skill three less ------------------------------

@pytest.mark.parametrize("weapon, expected", [
    ("Hand", 18),       # 6 x 3.0
    ("Foot", 14),       # 6 x 2.4 = 14.4
    ("Rapier", 9),      # (6 - 3) x 3.2 = 9.6: "treated as being three less ... Anti-Parry"
    ("Pole arm", 8),    # 6 x 1.4 = 8.4
    ("Lance", 10),      # 6 x 1.8 = 10.8
    ("Whip", 15),       # 6 x 2.6 = 15.6
    ("Net", 15),
    ("Sword", 12),      # unchanged: 6 x 2.0
])
def test_anti_parry(rb, weapon, expected):
    assert f(rb, "anti_parry", skill=6.0, weapon=weapon) == expected


# ---- Parries: "PS = Skill x DS + 12", "PC = SKill x DC + 16"; no DS/DC, no parry -------------

@pytest.mark.parametrize("weapon, stab, cut", [
    ("Hand", 36, 28),      # 6 x 4.0 + 12; 6 x 2.0 + 16
    ("Rapier", 25, 30),    # 3 x 4.5 + 12 = 25.5; 3 x 4.8 + 16 = 30.4
    ("Pole arm", 19, 31),  # 6 x 1.2 + 12 = 19.2; 6 x 2.6 + 16 = 31.6
    ("Foot", None, None),  # "Foot Stab Short 2.4 Skill-4 -3": no DS, DC
    ("Lance", None, None),
    ("Whip", None, None),  # "A whip cannot be used for parries"
    ("Net", None, None),
])
def test_parries(rb, weapon, stab, cut):
    assert f(rb, "parry_stab", skill=6.0, weapon=weapon) == stab
    assert f(rb, "parry_cut", skill=6.0, weapon=weapon) == cut


def test_a_rapier_skill_below_three_counts_as_none(rb):
    # CHOICE: the skill three less is never below 0.
    assert f(rb, "anti_parry", skill=2.0, weapon="Rapier") == 0
    assert f(rb, "parry_stab", skill=2.0, weapon="Rapier") == 12


# ---- Blow Strength: "BS = Strength + B"; hand "Skill-6", foot "Skill-4"; armoured limbs --------

@pytest.mark.parametrize("weapon, skill, armour, expected", [
    ("Hand", 6.0, "None", 12),       # 12 + (6 - 6)
    ("Hand", 4.3, "None", 10),       # 12 + 4.3 - 6 = 10.3, rounded down
    ("Hand", 6.0, "Light", 12),      # arm protection 3: below the range 4 to 8
    ("Hand", 6.0, "Standard", 14),   # arm 8: "increased by two for protection in the range 4 to 8"
    ("Hand", 6.0, "Super Heavy", 16),  # arm 10: "by four for protection in the range 9 to 15"
    ("Foot", 6.0, "Standard", 14),   # 12 + (6 - 4); legs 0 in Standard
    ("Foot", 6.0, "Heavy", 16),      # legs 8
    ("Foot", 6.0, "Full", 18),       # legs 15
    ("Rapier", 6.0, "Full", 14),     # 12 + 2: the full skill for all other calculations
    ("Pole arm", 6.0, "None", 28),   # two-handed strength 18 + 10
    ("Lance", 6.0, "None", 16),
    ("Whip", 6.0, "None", 8),        # 12 - 4
    ("Sword", 6.0, "Full", 16),      # armour adds to no weapon but hand and foot
    ("Net", 6.0, "None", None),      # "This is a non damaging weapon"
])
def test_blow_strength(rb, weapon, skill, armour, expected):
    assert f(rb, "blow_strength", strength=12, weapon=weapon, skill=skill,
             armour=armour) == expected


def test_limb_armour_table_boundaries(rb):
    t = rb.tables["limb_armour"]
    assert [t.lookup(p) for p in (0, 3, 4, 8, 9, 15)] == [0, 0, 2, 2, 4, 4]


# ---- Base Speed: "Speed = 20 - Skill + Armour Modifier + Weapon Modifier" ----------------------

@pytest.mark.parametrize("weapon, expected", [
    ("Hand", 9),       # 20 - 6 + 0 - 5
    ("Foot", 11),      # - 3
    ("Rapier", 12),    # 20 - (6 - 3) - 5
    ("Pole arm", 22),  # + 8
    ("Lance", 14),
    ("Whip", 18),
    ("Net", 20),
])
def test_base_speed(rb, weapon, expected):
    assert f(rb, "base_speed", skill=6.0, armour="Standard", weapon=weapon) == expected


@pytest.mark.parametrize("weapon, expected", [
    ("Pole arm", True), ("Net", True), ("Spear", True), ("Hand", False), ("Rapier", False),
    ("Lance", False), ("Whip", False)])
def test_two_handed(rb, weapon, expected):
    # "These are very long weapons"; "A net is a two handed weapon"
    assert f(rb, "two_handed", weapon=weapon) is expected


# ---- a combatant armed with each -------------------------------------------------------------

def boxer(rb, weapon="Hand", **kw):
    base = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                training={weapon: 5}, weapon=weapon, armour="Standard")
    return rb.combatant(**{**base, **kw})


def test_a_fighter_of_each_unusual_weapon_has_his_figures(rb):
    # Skill = 12/4 x ln 6 x 1.0 = 5.375... -> 5.4
    h = boxer(rb)
    assert h.skill == pytest.approx(5.4)
    # AP 5.4 x 3 = 16.2; PS 5.4 x 4 + 12 = 33.6; PC 5.4 x 2 + 16 = 26.8;
    # BS 12 + 5.4 - 6 + 2 (arms 8) = 13.4 -> 13; speed 20 - 5.4 - 5 = 9.6 -> 9
    assert (h.anti_parry, h.parry_stab, h.parry_cut, h.blow_strength, h.base_speed) == (
        16, 33, 26, 13, 9)
    r = boxer(rb, "Rapier")
    # AP 2.4 x 3.2 = 7.68; PS 2.4 x 4.5 + 12 = 22.8; PC 2.4 x 4.8 + 16 = 27.52; BS 14;
    # speed 20 - 2.4 - 5 = 12.6
    assert (r.anti_parry, r.parry_stab, r.parry_cut, r.blow_strength, r.base_speed) == (
        7, 22, 27, 14, 12)
    n = boxer(rb, "Net")
    assert (n.parry_stab, n.parry_cut, n.blow_strength, n.base_speed) == (None, None, None, 20)
    k = boxer(rb, "Foot")
    assert (k.parry_stab, k.blow_strength) == (None, 13)  # 12 + 5.4 - 4 = 13.4


def test_a_fighter_with_a_weapon_of_neither_table_is_refused(rb):
    with pytest.raises(RulecraftError, match="weapon"):
        boxer(rb, weapon="Claymore")


# ---- the language: a joined table -------------------------------------------------------------

JOINED = """rulebook t "T"

table both "Both" by item given skill:
  rows: swords, odd

table swords "Swords" by item:
  | Item  | A | B |
  | Long  | 2 | 4 |
  | Short | 1 | 2 |

table odd "Odd" by odd_item given skill:
  | Item | A | B           |
  | Fist | 3 | = skill - 6 |

formula a(w: item) = w.a

formula b(w: item, skill: 0.0..20.0) = both[w, skill = skill].b
"""


def test_a_joined_table_holds_the_rows_of_the_tables_it_names():
    rb = rulecraft.compile(JOINED, "j.rules")
    assert rb.formulas["a"](w="Fist") == 3
    assert rb.formulas["a"](w="Long") == 2
    assert rb.formulas["b"](w="Fist", skill=8) == 2
    assert rb.formulas["b"](w="Short", skill=8) == 2
    # the table joined keeps its own lookups
    assert rb.tables["swords"].lookup("Long")["b"] == 4


@pytest.mark.parametrize("change, message, line, column", [
    (("rows: swords, odd", "rows: swords, nope"),
     "rows: names no table nope; name the record tables whose rows both holds", 4, 3),
    (("rows: swords, odd", "rows: swords, both"),
     "rows: names itself", 4, 3),
    (("| Item | A | B           |", "| Item | B | A           |"),
     "table odd prints the columns Item | B | A, but swords prints Item | A | B", 12, 3),
    (("  rows: swords, odd\n", "  rows: swords, odd\n  | Item | A | B |\n"),
     "table both takes its rows from swords, odd: it prints none of its own", 5, 3),
])
def test_joined_table_errors(change, message, line, column):
    text = JOINED.replace(*change)
    with pytest.raises(RulecraftError) as e:
        rulecraft.compile(text, "j.rules")
    shown = str(e.value)
    assert f"j.rules:{line}:{column}: {message}" in shown
    assert "^" in shown


def test_a_joined_table_is_printed_back_as_written():
    from rulecraft.dsl.formatter import format_file
    from rulecraft.dsl.parser import parse
    assert format_file(parse(JOINED, "j.rules")) == JOINED


# ---- who parries what ------------------------------------------------------------------------

@pytest.mark.parametrize("weapon, against, expected", [
    ("Sword", "Sword", True),
    ("Hand", "Sword", True),          # "When parries are made by the hand"
    ("Foot", "Sword", False),         # no parry factors printed
    ("Whip", "Sword", False),         # "A whip cannot be used for parries"
    ("Lance", "Sword", False),
    ("Pole arm", "Sword", False),     # "Polearms can be used for parries against long range
    ("Pole arm", "Spear", True),      #  weapons only"
    ("Pole arm", "Quarterstaff", True),
    ("Sword", "Net", False),          # "A net can only be parried by a long weapon or a polearm"
    ("Shield", "Net", False),
    ("Greatsword", "Net", True),
    ("Pole arm", "Net", True),        # the net's rule names the polearm
])
def test_parries_with(rb, weapon, against, expected):
    assert f(rb, "parries_with", weapon=weapon, against=against) is expected


def test_a_parry_the_weapons_do_not_allow_is_a_passive_dodge(rb):
    # A kicker "parries" a sword: he makes a Passive Dodge (PDF = 5.4 + 8 -> 13, Standard armour).
    kicker, swordsman = boxer(rb, "Foot"), boxer(rb, "Sword")
    r = rb.procedures["melee_attack"].run(attacker=swordsman, defender=kicker,
                                          defence="Parry", dice=[2])
    assert (r.outcome["defence"], r.outcome["defence_potential"]) == ("Passive Dodge", 13)
    # A shield does not parry a net either; the shield-bearer's sword does not.
    netman = boxer(rb, "Net")
    shielded = boxer(rb, "Sword", shield=True, training={"Sword": 5, "Shield": 4})
    r = rb.procedures["melee_attack"].run(attacker=netman, defender=shielded,
                                          defence="Parry", dice=[1, 5])
    assert r.outcome["defence"] == "Passive Dodge"


def test_the_competent_policy_parries_with_a_hand_and_dodges_with_a_foot(rb):
    # hand vs a sword (cut): PC 26 >= ADF 5.4 x 2 + 16 = 26.8 -> 26: parries (a tie parries);
    # a kicker cannot parry: he dodges actively.
    attack = rb.procedures["melee_attack"]
    h, k, s = boxer(rb), boxer(rb, "Foot"), boxer(rb, "Sword")
    assert attack.run(attacker=s, defender=h, policy="competent", dice=[2]).outcome[
        "defence"] == "Parry"
    assert attack.run(attacker=s, defender=k, policy="competent", dice=[2, 3]).outcome[
        "defence"] == "Active Dodge"
