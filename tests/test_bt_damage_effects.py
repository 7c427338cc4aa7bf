"""BT chapter 3: each damage type's side effects, body parts, bleeding, knockback, bashes and
falling, pinned to the seed (shared/seeds/000_0f73853bd0a076ff.txt) with scripted dice.

The defender, unless told otherwise: 40 HTK, health 50, agility 50, 150 lb, MVM 5, no armour and
no PAB, so a wound's damage is its HTK: over 10 is over a quarter, over 20 over half. A health
save is a d100 at or under 50; half of it, at or under 25. The dice of a wound: the health save,
then (over half, failed) the half save, then a ripping tackle.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("bt")


def fighter(rb, **figures):
    return rb.combatant(**{"weapon": "Mace", "htk": 40, **figures})


def wound(rb, damage, damage_type, location, dice=(), defender=None, **more):
    defender = defender if defender is not None else fighter(rb)
    return rb.procedures["wound"].run(defender=defender, damage=damage, damage_type=damage_type,
                                      location=location, dice=list(dice), **more)


def given(r, party="defender"):
    """The conditions a run gave a party: "Shock on Chest/Upper back", "Overborne", …"""
    return {e.value for e in r.trace if e.kind == "give" and e.name == party}


CHEST, ARM, BELLY, GROIN, HEAD = (
    "Chest/Upper back", "Lower arm", "Abdomen/Lower back", "Groin/Behind", "Head")


# ---- the thresholds ----------------------------------------------------------------------------

# "The minor side effect occurs when a person has taken a single blow of over a quarter of their
# HTK and fails their health saving throw."
def test_a_quarter_exactly_is_no_side_effect(rb):
    r = wound(rb, 10, "Slicing", ARM)
    assert r.outcome["effects"] == "none_" and r.combatants["defender"].bleeding == 0


def test_over_a_quarter_and_a_made_save_is_no_side_effect(rb):
    r = wound(rb, 11, "Slicing", ARM, dice=[50])
    assert r.outcome["effects"] == "saved" and r.combatants["defender"].bleeding == 0


# "The major side effect occurs when the defender has taken over half of their HTK in a single
# blow and fails their health saving throw. In that case, the minor effect will also occur unless
# the defender makes half their health saving throw."
def test_over_half_the_major_and_the_minor_unless_the_half_save(rb):
    both = wound(rb, 21, "Chopping", ARM, dice=[51, 26]).outcome["effects"]
    assert (both["major"], both["minor"]) == (True, True)
    major = wound(rb, 21, "Chopping", ARM, dice=[51, 25]).outcome["effects"]
    assert (major["major"], major["minor"]) == (True, False)
    minor = wound(rb, 20, "Chopping", ARM, dice=[51]).outcome["effects"]     # half, not over
    assert (minor["major"], minor["minor"]) == (False, True)


def test_side_effect_odds_over_half(rb):
    # Over half: a failed save (1/2) is the major effect; the minor too unless the half save is
    # made (25 in 100): 1/2 x 3/4.
    odds = rb.procedures["blow_side_effects"].odds(
        attacker=fighter(rb), defender=fighter(rb), damage_type="Chopping",
        location="Upper arm", taken=21, by="minor")
    assert odds == {False: Fraction(5, 8), True: Fraction(3, 8)}


def test_concussive_damage_has_no_secondary_effects(rb):
    # "another 10 points get turned to concussive damage-which PAB is twice as effective against
    # and has no secondary effects": 30 crushing on 10 armour, PAB 0: 20 HTK, 10 of them
    # concussive; the 10 others are not over a quarter of 40: no save rolled.
    d = fighter(rb, armour={"Breastplate": "Iron plate"})
    r = wound(rb, 30, "Crushing", CHEST, defender=d)
    assert r.outcome["htk_taken"] == 20 and r.outcome["effects"] == "none_"


# ---- slicing -----------------------------------------------------------------------------------

# "The minor side effect of slicing is bleeding. This means the bleeding person loses 1 HTK ever
# minute unless the wound is bound. The effect is cumulative: so someone hit three times with a
# minor would be losing 3 HTK every minute."
def test_slicing_minor_bleeds_one_a_minute_cumulatively(rb):
    d = fighter(rb)
    for _ in range(3):
        r = wound(rb, 11, "Slicing", "Upper arm", dice=[51], defender=d)
        d = r.combatants["defender"]
        assert given(r) <= {"Injured on Upper arm"}          # bleeding is no condition
    assert d.bleeding == 3 and d.htk_left == 40 - 33
    bled = rb.procedures["bleed"].run(fighter=d)
    assert bled.outcome["lost"] == 3 and bled.combatants["fighter"].htk_left == 4
    assert rb.procedures["bind_wounds"].run(fighter=d).combatants["fighter"].bleeding == 0


# "The major effect is shock. This hit makes that body part useless for the rest of that combat.
# Head and chest shots cause stun effects, limb shots cause the temporary loss of that limb, and
# abdomen and groin shots cause loss of -4 MVM, and 1/2 stun effects ... Also, add 2 HTK of
# bleeding per minute instead of the normal one."
def test_slicing_major_is_shock_by_region_and_bleeds_two(rb):
    r = wound(rb, 21, "Slicing", CHEST, dice=[51, 26])          # major and minor
    assert given(r) == {"Injured on " + CHEST, "Shock on " + CHEST, "Stunned on " + CHEST}
    assert r.combatants["defender"].bleeding == 2             # not 3: "instead of"
    r = wound(rb, 21, "Slicing", CHEST, dice=[51, 25])          # the major alone
    assert r.combatants["defender"].bleeding == 2
    r = wound(rb, 21, "Slicing", ARM, dice=[51, 25])
    assert given(r) == {"Injured on " + ARM, "Shock on " + ARM, "Limb useless on " + ARM}
    r = wound(rb, 21, "Slicing", BELLY, dice=[51, 25])
    assert "Half stunned on " + BELLY in given(r)
    assert r.combatants["defender"].movement == 5 - 4
    r = wound(rb, 21, "Slicing", GROIN, dice=[51, 25])
    assert "Half stunned on " + GROIN in given(r) and r.combatants["defender"].mvm_lost == 4


# ---- chopping and crushing ---------------------------------------------------------------------

# Chopping: "The minor side effect of chopping is paralysis. It is almost identical to the major
# side effect of slicing except that no bleeding results from a minor chop ... The major side
# effect is disabling. Two paralysis shots to the same location act as a disable ... Head and
# chest shots cause unconsciousness, limb shots cause the bones in the limb to break and 1/2 stun
# effects to occur, abdomen shots cause -8 MVM and stun effects. Groin shots cause sys shock at
# 75% wounded."
# Conditions last through one run (a fight): two blows in one, as a fight lands them.
TWICE = """rulebook bt_twice "Two blows"
extends bt

procedure two_wounds (defender: fighter, damage_type: damage_type, location: location):
  call first = wound(defender, 11, damage_type, location)
  call second = wound(defender, 11, damage_type, location)
  outcome done
"""


@pytest.fixture(scope="module")
def twice():
    return rulecraft.compile(TWICE, "bt_twice.rules").procedures["two_wounds"]


@pytest.mark.parametrize("kind", ["Chopping", "Crushing"])
def test_minor_is_paralysis_without_bleeding_and_two_make_a_disable(rb, twice, kind):
    r = wound(rb, 11, kind, ARM, dice=[51])
    assert given(r) == {"Paralysis on " + ARM, "Limb useless on " + ARM}
    assert r.combatants["defender"].bleeding == 0
    r = twice.run(defender=fighter(rb), damage_type=kind, location=ARM, dice=[51, 51])
    assert given(r) == {"Paralysis on " + ARM, "Limb useless on " + ARM, "Injured on " + ARM,
                        "Disabled on " + ARM, "Bone broken on " + ARM, "Half stunned on " + ARM}
    r = twice.run(defender=fighter(rb), damage_type=kind, location=CHEST, dice=[51, 51])
    assert "Disabled on " + CHEST in given(r) and "Unconscious on " + CHEST in given(r)
    r = twice.run(defender=fighter(rb), damage_type=kind, location=ARM, dice=[51, 50])
    assert "Disabled on " + ARM not in given(r)                  # the second save made


@pytest.mark.parametrize("kind", ["Chopping", "Crushing", "Energy"])
def test_major_is_disabling_by_region(rb, kind):
    # Crushing: "identical to the major side effect of chopping"; energy: "as per crushing
    # disabling".
    head = given(wound(rb, 21, kind, HEAD, dice=[51, 25]))
    assert head == {"Injured on Head", "Disabled on Head", "Unconscious on Head"}
    chest = given(wound(rb, 21, kind, CHEST, dice=[51, 25]))
    assert "Unconscious on " + CHEST in chest
    r = wound(rb, 21, kind, BELLY, dice=[51, 25])
    assert "Stunned on " + BELLY in given(r) and r.combatants["defender"].mvm_lost == 8
    groin = given(wound(rb, 21, kind, GROIN, dice=[51, 25]))
    assert "System shock at 75% wounded on " + GROIN in groin
    assert wound(rb, 21, kind, BELLY, dice=[51, 25]).combatants["defender"].bleeding == 0


# ---- piercing ----------------------------------------------------------------------------------

# "The major side effect is shock. It is almost identical with the major side effect of slicing
# except that the person hit only bleeds one HTK per minute." (Its minor, the critical level, is
# in every piercing blow: test_bt_damage.)
def test_piercing(rb):
    minor = wound(rb, 11, "Piercing", ARM, dice=[51])
    assert given(minor) == set() and minor.combatants["defender"].bleeding == 0
    major = wound(rb, 21, "Piercing", ARM, dice=[51, 25])
    assert "Shock on " + ARM in given(major) and major.combatants["defender"].bleeding == 1


# ---- ripping -----------------------------------------------------------------------------------

# "The minor side effect of ripping is an overbear tackle. Roll an OVB tackle against your
# opponent's DEF. This effect also causes the wounded body part to bleed at one HTK per minute
# ... The major side effect is as per shock(slicing) except that you can add +20 to your OVB."
def test_ripping_tackles_and_bleeds(rb):
    attacker = fighter(rb, ovb=60)
    defender = fighter(rb, **{"def": 10})
    # minor: tackle at 60 - 10 = 50
    r = wound(rb, 11, "Ripping", ARM, dice=[51, 50], defender=defender, attacker=attacker)
    assert given(r) == {"Overborne"} and r.combatants["defender"].bleeding == 1
    r = wound(rb, 11, "Ripping", ARM, dice=[51, 51], defender=defender, attacker=attacker)
    assert given(r) == set()
    # major (the half save made): shock, bleeding 2, the tackle at 60 + 20 - 10 = 70
    r = wound(rb, 21, "Ripping", ARM, dice=[51, 25, 70], defender=defender, attacker=attacker)
    assert given(r) == {"Injured on " + ARM, "Shock on " + ARM, "Limb useless on " + ARM,
                        "Overborne"}
    assert r.combatants["defender"].bleeding == 2


# ---- energy ------------------------------------------------------------------------------------

# "The minor side effect is as per shock(slicing) except there is no bleeding."
def test_energy_minor_is_shock_without_bleeding(rb):
    r = wound(rb, 11, "Energy", CHEST, dice=[51])
    assert given(r) == {"Shock on " + CHEST, "Stunned on " + CHEST}
    assert r.combatants["defender"].bleeding == 0


# ---- projectile and explosive ------------------------------------------------------------------

# Projectile: "The minor side effect is that for system shock roll purposes projectile damage is
# doubled. 2) The major side effect is shock as per slicing." Explosive: "tripled".
@pytest.mark.parametrize("kind, times", [("Projectile", 2), ("Explosive", 3)])
def test_system_shock_multipliers_and_shock(rb, kind, times):
    r = wound(rb, 12, kind, ARM, dice=[51])
    assert r.outcome["system_shock"] == 12 * times
    assert r.combatants["defender"].system_shock == 12 * times and given(r) == set()
    saved = wound(rb, 12, kind, ARM, dice=[50])
    assert saved.outcome["system_shock"] == 12
    major = wound(rb, 21, kind, ARM, dice=[51, 25])                # the minor spared
    assert major.outcome["system_shock"] == 21
    assert "Shock on " + ARM in given(major) and major.combatants["defender"].bleeding == 2


# ---- body parts --------------------------------------------------------------------------------

# "To injure a body part you must do half your HTK to it if it is major (forearm, head...). All
# your HTK will cripple a major limb or body part. You must do another set of HTK to DESTROY the
# limb."
def test_injuring_crippling_and_destroying_a_body_part(rb):
    d = fighter(rb, health=100)                                 # every save made (any d100)
    r = wound(rb, 19, "Crushing", ARM, dice=[1], defender=d)
    assert given(r) == set()
    r = wound(rb, 1, "Crushing", ARM, defender=r.combatants["defender"])   # 20 of 40: half
    assert given(r) == {"Injured on " + ARM}
    r = wound(rb, 20, "Crushing", ARM, dice=[1], defender=r.combatants["defender"])
    assert given(r) == {"Crippled on " + ARM}
    r = wound(rb, 39, "Crushing", ARM, dice=[1], defender=r.combatants["defender"])
    assert given(r) == set()                                     # 79: not yet another 40
    r = wound(rb, 1, "Crushing", ARM, defender=r.combatants["defender"])
    assert given(r) == {"Destroyed on " + ARM}
    assert r.combatants["defender"].location_htk == {ARM: 80}


# ---- knockback ---------------------------------------------------------------------------------

# "For slicing, and piercing damage every 15 points is the unit. For chopping and ripping every
# 10 points is the unit. For crushing and projectile damage every 5 points is the unit. For
# explosive damage every 2 points is the unit." "Energy has no knockback." "Weight: For every 25#
# you weigh over/under 150 you may subtract/add 1 foot (no fractions, please)"
@pytest.mark.parametrize("damage, kind, weight, feet", [
    (23, "Crushing", 150, 2),       # the worked example: 4 units of 5
    (14, "Slicing", 150, 0), (15, "Slicing", 150, 0.5), (30, "Piercing", 150, 1),
    (19, "Chopping", 150, 0.5), (20, "Ripping", 150, 1), (10, "Projectile", 150, 1),
    (5, "Explosive", 150, 1), (100, "Energy", 150, 0),
    (23, "Crushing", 175, 1), (23, "Crushing", 199, 1), (23, "Crushing", 200, 0),
    (23, "Crushing", 125, 3), (23, "Crushing", 149, 2), (4, "Crushing", 100, 0),
    (10, "Crushing", 300, 0),
])
def test_knockback_feet(rb, damage, kind, weight, feet):
    assert rb.formulas["knockback_feet"](damage=damage, damage_type=kind, weight=weight) == feet


# "+25% for lower arm / +10% for upper arm / +0% for abdomen / -10% for chest/upper legs / -25%
# for head/legs at or below knees / -50% (next category) / -100% (next category). These
# modifiers are shifted down one category if the opponent is in motion when the blow lands, and
# two categories if the opponent is jumping. If the jump is one in which one leg is the landing
# leg (such as a jump kick), a blow against the landing leg carries an additional -50%." "A hold
# on one upper leg carries a -25%, and on one lower leg carries a -50%. These modifiers are
# cumulative." "Every foot per count (round down) you are moving when hit subtracts 5%"
@pytest.mark.parametrize("location, figures, modifier", [
    ("Lower arm", {}, 25), ("Upper arm", {}, 10), ("Abdomen/Lower back", {}, 0),
    ("Chest/Upper back", {}, -10), ("Upper leg", {}, -10), ("Head", {}, -25),
    ("Lower leg", {}, -25), ("Hand", {}, 25), ("Foot", {}, -25), ("Groin/Behind", {}, 0),
    ("Lower arm", {"speed": 1}, 25 - 5),                       # 1 ft/ct is not moving
    ("Lower arm", {"speed": 2.5}, 10 - 10),                    # moving: one category down
    ("Lower arm", {"maneuvering": True}, 10),
    ("Lower arm", {"jumping": True}, 0),                       # two categories
    ("Head", {"jumping": True}, -100),
    ("Head", {"jumping": True, "speed": 3}, -100 - 15),        # the last category holds
    ("Lower leg", {"jumping": True, "landing_leg": True}, -100 - 50),
    ("Chest/Upper back", {"upper_leg_holds": 1}, -10 - 25),
    ("Chest/Upper back", {"upper_leg_holds": 1, "lower_leg_holds": 2}, -10 - 25 - 100),
])
def test_knockback_save_modifiers(rb, location, figures, modifier):
    args = dict(speed=0, maneuvering=False, jumping=False, landing_leg=False,
                upper_leg_holds=0, lower_leg_holds=0)
    args.update(figures)
    assert rb.formulas["knockback_save_modifier"](location=location, **args) == modifier


def test_a_foot_or_less_needs_no_save(rb):
    r = rb.procedures["knocked_back"].run(defender=fighter(rb), feet=1, location=CHEST)
    assert r.outcome == "stood" and r.outcome["feet"] == 1


# "If you are knocked back more than a foot you must make an agility save or be knocked back
# twice as far."
def test_a_failed_save_doubles_the_knockback(rb):
    p = rb.procedures["knocked_back"]
    assert p.run(defender=fighter(rb), feet=2, location=CHEST, dice=[40]).outcome["feet"] == 2
    r = p.run(defender=fighter(rb), feet=2, location=CHEST, dice=[41])   # over 50 - 10
    assert r.outcome == "stood" and r.outcome["feet"] == 4


# "A critical miss is a fall ... You take damage from knockback if you hit something (the floor,
# for instance) as if you landed from a fall at the velocity that you were knocked back at"
def test_a_critical_miss_is_a_fall_onto_the_floor(rb):
    # 96, a critical miss (96-00, CHOICE): a fall at 2 ft/ct: critical chance 4 (roll 50: none),
    # 1d4 (3), agility 100 (failed), the location 60 (abdomen): 3 explosive HTK.
    r = rb.procedures["knocked_back"].run(defender=fighter(rb, agility=95), feet=2,
                                          location=CHEST, dice=[96, 50, 3, 100, 60])
    assert r.outcome == "hit_something" and r.outcome["fell"] is True
    assert r.outcome["damage"] == 3 and "Fallen" in given(r)
    assert r.combatants["defender"].location_htk == {BELLY: 3}


# "If you are knocked back further than your MVM you must make an AGL save at -10% for every foot
# beyond your MVM or fall."
def test_past_the_mvm_a_second_save_or_a_fall(rb):
    p = rb.procedures["knocked_back"]
    # 3 ft doubled to 6 (41 > 40); 1 ft past MVM 5: 50 - 10 - 10 = 30; 30 stands.
    r = p.run(defender=fighter(rb), feet=3, location=CHEST, dice=[41, 30])
    assert r.outcome == "stood" and r.outcome["feet"] == 6
    # 31 falls: at 6 ft/ct, critical chance 12 (13: none), 3d4 (4, 4, 4), agility 51 (failed),
    # the location 20 (chest): 12 explosive HTK; over a quarter of 40: a health save, made.
    r = p.run(defender=fighter(rb), feet=3, location=CHEST,
              dice=[41, 31, 13, 4, 4, 4, 51, 20, 50])
    assert r.outcome == "hit_something" and r.outcome["damage"] == 12
    assert r.combatants["defender"].htk_lost == 12


def test_knocked_into_a_wall(rb):
    # 1 ft into something: a fall at 1 ft/ct, no d4s (1/2 rounded down), nothing taken.
    r = rb.procedures["knocked_back"].run(defender=fighter(rb), feet=1, location=CHEST,
                                          obstacle=True, dice=[50, 100, 20])
    assert r.outcome == "hit_something" and r.outcome["damage"] == 0
    assert r.outcome["fell"] is False


# "The stopping power of an attack is a comparison of the knockback of the technique vs. the bash
# of the oncoming opponent ... The combatant doing the lesser amount of damage must save versus
# knockback against the differences."
def test_bash(rb):
    p = rb.procedures["bash"]
    a, b = fighter(rb), fighter(rb)
    r = p.run(striker=a, oncoming=b, damage=20, damage_type="Crushing", bash_damage=10,
              bash_type="Chopping", location=CHEST, dice=[40])
    assert r.outcome == "oncoming_knocked"
    assert (r.outcome["striker_feet"], r.outcome["oncoming_feet"]) == (2, 0.5)
    assert r.outcome["how"]["feet"] == 1.5
    r = p.run(striker=a, oncoming=b, damage=5, damage_type="Crushing", bash_damage=30,
              bash_type="Crushing", location=CHEST, dice=[40])
    assert r.outcome == "striker_knocked" and r.outcome["how"]["feet"] == 2.5
    r = p.run(striker=a, oncoming=b, damage=10, damage_type="Crushing", bash_damage=20,
              bash_type="Chopping", location=CHEST)
    assert r.outcome == "stopped"


# ---- falling -----------------------------------------------------------------------------------

# "Chance for critical damage from a fall equals velocity in feet per count * 2. Damage from a
# fall equals velocity/2 in d4s of explosive damage. A successful Agility save cuts damage in
# half. A successful falling skill roll will also cut damage in half."
def test_fall_figures(rb):
    f = rb.formulas
    assert f["fall_critical_chance"](velocity=24) == 48
    assert (f["fall_dice"](velocity=24), f["fall_dice"](velocity=7)) == (12, 3)


def test_falling_chart(rb):
    # "Acceleration (once you get going) is 8 ft/ct squared" (sample chart: from rest)
    chart = rb.tables["falling"]
    assert (chart.lookup(1).velocity, chart.lookup(8).velocity) == (8, 64)
    p = rb.procedures["fall_from"]
    counts = {h: p.run(faller=fighter(rb, htk=1000), height=h, seed=1).outcome["count"]
              for h in (0, 4, 5, 16, 17, 500)}
    assert counts == {0: 1, 4: 1, 5: 2, 16: 2, 17: 3, 500: 8}


def test_a_fall_halved_by_the_agility_save_and_by_the_skill(rb):
    p = rb.procedures["fall"]
    # 8 ft/ct: critical chance 16 (17: none); 4d4 = 10; agility 50 made: 5; chest: 5 HTK.
    r = p.run(faller=fighter(rb), velocity=8, dice=[17, 1, 2, 3, 4, 50, 20])
    assert (r.outcome["critical"], r.outcome["damage"]) == (False, 5)
    assert r.combatants["faller"].htk_lost == 5
    # agility failed (51), the falling skill (40) made (40): 5.
    r = p.run(faller=fighter(rb, falling=40), velocity=8, dice=[17, 1, 2, 3, 4, 51, 40, 20])
    assert r.outcome["damage"] == 5
    # both made: a quarter, rounded down: 2.
    r = p.run(faller=fighter(rb, falling=40), velocity=8, dice=[17, 1, 2, 3, 4, 50, 40, 20])
    assert r.outcome["damage"] == 2
    # a critical (16): double HTK (CHOICE), 10.
    r = p.run(faller=fighter(rb), velocity=8, dice=[16, 1, 2, 3, 4, 50, 20])
    assert r.outcome["critical"] is True and r.combatants["faller"].htk_lost == 10


def test_a_fall_through_armour_and_pab(rb):
    # Explosive: "PAB is 1/4 effective"; a breastplate of iron plate, 8 against explosive.
    d = fighter(rb, pab=8, armour={"Breastplate": "Iron plate"})
    # 12 ft/ct: 6d4 all 4 = 24, agility failed: 24 on the chest: 16 through, 8 concussive, PAB
    # 2 stops 4 of it (4 taken), the other 8 with no PAB left: 12; over a quarter: a save, made.
    r = rb.procedures["fall"].run(faller=d, velocity=12,
                                  dice=[50, 4, 4, 4, 4, 4, 4, 51, 20, 50])
    assert r.outcome["damage"] == 24 and r.combatants["faller"].htk_lost == 12
