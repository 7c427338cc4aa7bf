"""BT chapter 3, damage and armour: hit locations, the damage notation, the damage types and the
armour pipeline, pinned to the seed (shared/seeds/000_0f73853bd0a076ff.txt) with scripted dice.

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
    """A 150 lb fighter with 40 HTK and a mace unless told otherwise."""
    return rb.combatant(**{"weapon": "Mace", "htk": 40, **figures})


def values(result):
    return dict(result.outcome)


# ---- the worked armour example ----------------------------------------------------------------

# "1) Opponent does 23 point of damage to chest- crushing. It is a SL 6 strike! Yikes! 2) Chest
# armor (10 pts) reduces damage to 13 pts. 3) Chest armor reduces 10 of the 13 remaining pts to
# concussive damage 4) Concussive damage goes through - 5 points of PAB stop it. This leaves our
# defender with one point of PAB 5) Crit effect applied. SL 6 = Triple damage -> 9 points of
# damage 6) remaining PAB of 1 reduces that to 8 pots. 7) 8 Hits To Kill of Crushing DAM is taken
# to the chest. 8) Knockback is calculated using all 23 of the original points"
def example_defender(rb):
    # an iron plate breastplate: 10 against crushing (the sample armour table), PAB 6
    return fighter(rb, pab=6, armour={"Breastplate": "Iron plate"})


def test_worked_example_step_by_step_in_the_wound(rb):
    r = rb.procedures["wound"].run(defender=example_defender(rb), damage=23,
                                   damage_type="Crushing", location="Chest/Upper back",
                                   multiplier=3)
    v = values(r)
    assert v["protection"] == 10                      # 2) 10 points taken off: 13 left
    assert (v["concussive"], v["penetrating"]) == (10, 3)   # 3) 10 of the 13 concussive
    assert (v["concussive_taken"], v["pab_left"]) == (0, 1)  # 4) 5 PAB stop it; 1 left
    assert v["multiplied"] == 9                       # 5) SL 6 = triple: 9
    assert v["htk_taken"] == 8                        # 6), 7) 8 HTK to the chest
    defender = r.combatants["defender"]
    assert defender.location_htk == {"Chest/Upper back": 8}
    assert defender.htk_lost == 8 and defender.htk_left == 32


def test_worked_example_as_a_whole_blow_with_its_knockback_from_23(rb):
    attacker = fighter(rb, weapon="Maul")               # 15^: 15 + 2d8
    defender = example_defender(rb)
    # d100 20: chest (11-39), even: right; the maul's 2d8 show 4 and 4: 23; 8 HTK of 40 is not
    # over a quarter (no health save); 23 crushing is 4 units of 5: 2 ft, more than a foot: an
    # agility save, 10 against 50 - 10 (chest) made.
    r = rb.procedures["damage_blow"].run(attacker=attacker, defender=defender, sl=6,
                                         dice=[20, 4, 4, 10])
    v = values(r)
    assert (v["location"], v["side"], v["head_part"]) == ("Chest/Upper back", "Right", None)
    assert (v["damage_type"], v["damage"], v["level"], v["multiplier"]) == ("Crushing", 23, 6, 3)
    assert v["htk_taken"] == 8
    assert v["knockback"] == 2                          # from all 23 points, not the 8
    assert r.combatants["defender"].htk_left == 32


def test_the_worked_example_is_the_same_in_exact_odds(rb):
    odds = rb.procedures["wound"].odds(defender=example_defender(rb), damage=23,
                                       damage_type="Crushing", location="Chest/Upper back",
                                       multiplier=3, by="htk_taken")
    assert odds == {8: 1}


def test_concussive_damage_past_the_pab_is_taken_without_the_multiplier(rb):
    # CHOICE: 30 crushing against 10 armour and PAB 2: 20 through, 10 concussive, PAB stops 4
    # of it (6 taken), the other 10 x 3 = 30 with no PAB left: 36.
    r = rb.procedures["wound"].run(defender=fighter(rb, htk=400, pab=2,
                                                    armour={"Breastplate": "Iron plate"}),
                                   damage=30, damage_type="Crushing",
                                   location="Chest/Upper back", multiplier=3)
    v = values(r)
    assert (v["concussive_taken"], v["pab_left"], v["multiplied"], v["htk_taken"]) == (6, 0, 30, 36)


def test_pab_effectiveness_by_type(rb):
    # "PAB is only 3/4 effective against slicing damage"; "half effect against piercing";
    # "NOT effective against projectile damage"; "1/4 effective against explosive damage".
    pab = rb.formulas["effective_pab"]
    assert [pab(pab=8, damage_type=t) for t in
            ("Slicing", "Chopping", "Crushing", "Piercing", "Ripping", "Projectile", "Energy",
             "Explosive")] == [6, 8, 8, 4, 8, 0, 4, 2]
    assert pab(pab=6, damage_type="Slicing") == 4         # 4.5, rounded down


def test_layers_of_armour_add_their_protection(rb):
    # "If there are layers of armor over a certain location on the body ... add the protection
    # values." Chain haulberk (4 against crushing) under an iron breastplate (10): 14.
    d = fighter(rb, armour={"Haulberk": "Chain", "Breastplate": "Iron plate", "Helm": "Chain"})
    protection = rb.formulas["protection"]
    args = dict(armour=d.armour, taken={}, damage_type="Crushing", advanced=False)
    assert protection(location="Chest/Upper back", **args) == 14
    assert protection(location="Upper leg", **args) == 4   # the haulberk alone
    assert protection(location="Head", **args) == 4        # the helm
    assert protection(location="Foot", **args) == 0


# ---- hit locations ----------------------------------------------------------------------------

# "01-10 Head / 11-39 Chest/Upper back / 40-47 Upper Arm / 48-51 Lower Arm / 52-53 Hand / 54-81
# Abdomen/Lower back / 82-84 Groin/Behind / 85-94 Upper leg / 95-98 Lower leg / 99-00 Foot"
@pytest.mark.parametrize("roll, location", [
    (1, "Head"), (10, "Head"), (11, "Chest/Upper back"), (39, "Chest/Upper back"),
    (40, "Upper arm"), (47, "Upper arm"), (48, "Lower arm"), (51, "Lower arm"), (52, "Hand"),
    (53, "Hand"), (54, "Abdomen/Lower back"), (81, "Abdomen/Lower back"), (82, "Groin/Behind"),
    (84, "Groin/Behind"), (85, "Upper leg"), (94, "Upper leg"), (95, "Lower leg"),
    (98, "Lower leg"), (99, "Foot"), (100, "Foot"),
])
def test_hit_location_table_every_boundary(rb, roll, location):
    assert rb.tables["hit_locations"].lookup(roll) == location


# "01-30(Skull); 31-50(Side); 51-55(Eyes); 56-65(Nose); 66-80(Cheeks); 81-85(Mouth);
# 86-95(Neck); 96-00(Throat)"
@pytest.mark.parametrize("roll, part", [
    (1, "Skull"), (30, "Skull"), (31, "Side"), (50, "Side"), (51, "Eyes"), (55, "Eyes"),
    (56, "Nose"), (65, "Nose"), (66, "Cheeks"), (80, "Cheeks"), (81, "Mouth"), (85, "Mouth"),
    (86, "Neck"), (95, "Neck"), (96, "Throat"), (100, "Throat"),
])
def test_head_sub_table_every_boundary(rb, roll, part):
    assert rb.tables["head_parts"].lookup(roll) == part


def test_even_is_right_odd_is_left_and_00_is_even(rb):
    # "*Even numbers are right side, odd numbers are left side"
    side = rb.formulas["side"]
    assert [side(roll=r) for r in (10, 11, 39, 40, 99, 100)] == [
        "Right", "Left", "Left", "Right", "Left", "Right"]


def test_hit_location_rolls_the_head_table_on_a_head_hit(rb):
    p = rb.procedures["hit_location"]
    a = fighter(rb)
    assert values(p.run(attacker=a, dice=[10, 96])) == {
        "location": "Head", "head_part": "Throat", "side": "Right"}
    assert values(p.run(attacker=a, dice=[11])) == {
        "location": "Chest/Upper back", "head_part": None, "side": "Left"}
    assert values(p.run(attacker=a, dice=[100])) == {
        "location": "Foot", "head_part": None, "side": "Right"}


def test_hit_location_exact_odds_are_the_table_widths(rb):
    odds = rb.procedures["hit_location"].odds(attacker=fighter(rb), by="location")
    assert odds["Head"] == Fraction(10, 100) and odds["Chest/Upper back"] == Fraction(29, 100)
    assert odds["Hand"] == Fraction(2, 100) and odds["Foot"] == Fraction(2, 100)
    assert sum(odds.values()) == 1


def test_a_called_shot_places_the_blow_and_the_attacker_picks_the_side(rb):
    p = rb.procedures["hit_location"]
    r = p.run(attacker=fighter(rb), called="Upper leg", side="Left")
    assert values(r) == {"location": "Upper leg", "head_part": None, "side": "Left"}
    r = p.run(attacker=fighter(rb), called="Head", dice=[51])   # the head part is still rolled
    assert values(r)["head_part"] == "Eyes"


# "-10% upper legs, -25% lower legs with hand or short hand-held weapon; -10% chest/upper back,
# -25% head with foot or knee."
def test_called_shot_modifiers(rb):
    t = rb.tables["called_shots"]
    assert t.lookup("Hand or short weapon", "Upper leg") == -10
    assert t.lookup("Hand or short weapon", "Lower leg") == -25
    assert t.lookup("Foot or knee", "Chest/Upper back") == -10
    assert t.lookup("Foot or knee", "Head") == -25


# ---- the damage notation ---------------------------------------------------------------------

# "If no symbol follows the number then 2d4 are added. If a * follows then 2d6 are added. If a ^
# follows then 2d8 are added. If it is irregular damage it will be fully written out as
# [constant] + XdY. If the constant is 0 it will simply be XdY."
@pytest.mark.parametrize("weapon, printed, least, most, mean", [
    ("Mace", "8", 10, 16, 13),             # 8 + 2d4
    ("Scimitar", "8*", 10, 20, 15),        # 8 + 2d6
    ("Broadsword", "8^", 10, 24, 17),      # 8 + 2d8
    ("Pistol", "4 + 3d6", 7, 22, Fraction(29, 2)),
    ("Fist", "1d4", 1, 4, Fraction(5, 2)),
])
def test_damage_notation_least_most_and_mean(rb, weapon, printed, least, most, mean):
    damage = rb.tables["weapons"].lookup(weapon).damage
    assert damage.extremes() == (least, most)
    assert damage.mean() == mean


def test_maximum_damage(rb):
    # "(maximum `by-the-book' damage + material mods + magical mods)*3"
    m = rb.formulas["maximum_damage"]
    damage = rb.tables["weapons"].lookup("Scimitar").damage        # most 20
    assert m(damage=damage) == 60
    assert m(damage=damage, material=2, magical=3) == 75
    grid = rb.references["weapon_damage"].grids()[0]
    row = grid.cells[grid.rows.index("Broadsword")]
    assert row == (10, 17, 24, 72)


def test_maximum_damage_caps_the_multiplied_damage(rb):
    # A fist (1d4, maximum damage 12) at a 4x critical: 4 through no armour is 16, capped at 12.
    attacker = fighter(rb, weapon="Fist")
    defender = fighter(rb, htk=400)
    r = rb.procedures["damage_blow"].run(attacker=attacker, defender=defender, sl=9,
                                         dice=[60, 4])
    assert values(r)["multiplier"] == 4 and values(r)["htk_taken"] == 12


# ---- the damage types ------------------------------------------------------------------------

# Slicing "(+4) ... (-10 MOD) ... (+2 WSD) ... PAB is only 3/4 effective ... Every 15 points";
# Chopping "(+4 WSD) ... (+10 MOD) ... (+2) ... Every 10 points"; Crushing "(+15 MOD) ... (+2
# WSD), and do average damage ... Every 5 points"; Piercing "(-4 WSD) ... (-2) ... (-10 MOD) ...
# PAB is only half ... Every 15 points"; Ripping "(+4), and have average speed ... (-15 MOD) ...
# Every 10 points"; Energy "(-5 WSD), do more damage(+5), and be easy to use (+10). PAB is only
# half effective ... does not generate knockback"; Projectile "(+4) ... (-4 WSD) ... (+0). PAB is
# NOT effective"; Explosive "PAB is 1/4 effective ... Every 2 points".
@pytest.mark.parametrize("kind, abbreviation, damage, mod, wsd, pab, knockback", [
    ("Slicing", "SL", 4, -10, 2, 0.75, 15),
    ("Chopping", "CH", 2, 10, 4, 1, 10),
    ("Crushing", "CR", 0, 15, 2, 1, 5),
    ("Piercing", "PR", -2, -10, -4, 0.5, 15),
    ("Ripping", "RP", 4, -15, 0, 1, 10),
    ("Projectile", "PJ", 4, 0, -4, 0, 5),       # CHOICE: the Knockback section's 5, not 10
    ("Energy", "NR", 5, 10, -5, 0.5, None),
    ("Explosive", "EX", None, None, None, 0.25, 2),
])
def test_damage_types_table_row_by_row(rb, kind, abbreviation, damage, mod, wsd, pab, knockback):
    row = rb.tables["damage_types"].lookup(kind)
    assert (row.abbreviation, row.damage, row.mod, row.wsd, row.pab, row.knockback) == (
        abbreviation, damage, mod, wsd, pab, knockback)


def test_piercing_raises_the_critical_level_every_time(rb):
    # "The minor side effect of piercing is raising one level of critical effect. This is in
    # effect every time the weapon is used." SL 5 doubles; a piercing SL 5 strikes at level 6:
    # triple. Knife 4 + 2d4 (3, 3): 10 through nothing; PAB 0.
    r = rb.procedures["damage_blow"].run(attacker=fighter(rb, weapon="Knife"),
                                         defender=fighter(rb, htk=400), sl=5, dice=[60, 3, 3])
    v = values(r)
    assert (v["level"], v["multiplier"], v["htk_taken"]) == (6, 3, 30)
    r = rb.procedures["damage_blow"].run(attacker=fighter(rb, weapon="Mace"),
                                         defender=fighter(rb, htk=400), sl=5,
                                         dice=[60, 1, 1])
    assert (values(r)["level"], values(r)["multiplier"]) == (5, 2)


# ---- armour hits, degradation, encumbrance, shields ------------------------------------------

def test_armour_hits_half_a_hit_when_stopped_two_when_through(rb):
    # "Damage that strikes the armor but doesn't go through does 1/2 a hit of damage to armor.
    # Damage that goes through does 2 hits of damage to armor."
    wound = rb.procedures["wound"]
    d = fighter(rb, armour={"Breastplate": "Iron plate", "Haulberk": "Chain"})  # 14 vs crushing
    r = wound.run(defender=d, damage=14, damage_type="Crushing", location="Chest/Upper back")
    assert r.combatants["defender"].armour_taken == {"Breastplate": 0.5, "Haulberk": 0.5}
    r = wound.run(defender=r.combatants["defender"], damage=15, damage_type="Crushing",
                  location="Chest/Upper back")
    assert r.combatants["defender"].armour_taken == {"Breastplate": 2.5, "Haulberk": 2.5}
    r = wound.run(defender=r.combatants["defender"], damage=15, damage_type="Crushing",
                  location="Upper leg")                       # the haulberk only
    assert r.combatants["defender"].armour_taken == {"Breastplate": 2.5, "Haulberk": 4.5}


def test_armour_hits_are_a_number_times_damage_points(rb):
    # "CHARACTERS ARMOR'S HITS = A#*Damage Points": iron plate (A# 6) breastplate (6 DP): 36.
    assert rb.formulas["armour_hits"](armour_type="Iron plate", piece="Breastplate") == 36
    assert rb.formulas["armour_hits"](armour_type="Chain", piece="Haulberk") == 48


def test_basic_armour_works_until_zero_hits_advanced_by_the_share_left(rb):
    # "In the basic rules a piece of armor works just fine until it is at zero hits and then it
    # falls apart. In the Advanced rules the effectiveness of the armor is directly proportional
    # to the percentage of it's hits it has taken."
    worn = rb.formulas["worn_protection"]
    assert worn(value=10, taken=35, hits=36, advanced=False) == 10
    assert worn(value=10, taken=36, hits=36, advanced=False) == 0
    assert worn(value=10, taken=9, hits=36, advanced=True) == 7     # 3/4 left: 7.5 down
    assert worn(value=10, taken=18, hits=36, advanced=True) == 5
    assert worn(value=10, taken=40, hits=36, advanced=True) == 0
    d = fighter(rb, armour={"Breastplate": "Iron plate"})
    protection = rb.formulas["protection"]
    args = dict(armour=d.armour, location="Chest/Upper back", damage_type="Crushing")
    assert protection(taken={"Breastplate": 18}, advanced=True, **args) == 5
    assert protection(taken={"Breastplate": 18}, advanced=False, **args) == 10
    assert protection(taken={"Breastplate": 36}, advanced=False, **args) == 0


def test_encumbrance_and_the_suit_modifiers(rb):
    # "ENC = A#* WGT MOD of item"; modifiers "only apply if the person is wearing a half suit of
    # armor or more ... A haulberk is a complete suit and a byrnie is a half suit."
    full = fighter(rb, agility=60, mvm=6, armour={"Haulberk": "Chain", "Helm": "Iron plate"})
    assert full.encumbrance == 4 * 5 + 6 * 1
    assert (full.agl, full.movement) == (60 - 15, 6 - 2)
    half = fighter(rb, agility=60, mvm=6, armour={"Byrnie": "Chain"})
    assert (half.agl, half.movement) == (60 - 7, 6 - 1)      # -7.5, -1 rounded up
    bare = fighter(rb, agility=60, mvm=6, armour={"Breastplate": "Iron plate"})
    assert (bare.agl, bare.movement) == (60, 6)


def test_shields_as_armour_and_their_modifiers(rb):
    # "A leather-wood shield is as heavy leather; wood is as studded leather; metal-wood is as
    # splint; and metal is as iron plate in absorption." "no mods for buckler or small shield; a
    # medium shield has 1/2 mods (as per byrnie); a large shield is as 3/4 the armor type
    # (rounded up); and a tower shield is as the armor type."
    shields = rb.tables["shields"]
    assert [shields.lookup(s) for s in ("Leather-wood", "Wood", "Metal-wood", "Metal")] == [
        "Heavy leather", "Studded leather", "Splint", "Iron plate"]
    m = rb.formulas["shield_modifier"]
    assert [m(shield="Metal", shield_size=s, modifier="Agility")
            for s in ("Buckler", "Small", "Medium", "Large", "Tower")] == [0, 0, -15, -22, -30]
    d = fighter(rb, agility=50, shield="Metal", shield_size="Large")
    assert d.agl == 28
    # A blow on the shield: metal absorbs as iron plate, 10 against crushing.
    r = rb.procedures["wound"].run(defender=d, damage=12, damage_type="Crushing",
                                   location="Lower arm", on_shield=True)
    assert values(r)["protection"] == 10 and values(r)["htk_taken"] == 2


# ---- the three dice modes ----------------------------------------------------------------------

def test_a_whole_blow_seeded_and_sampled_and_its_exact_odds_refused_offering_samples(rb):
    blow = rb.procedures["damage_blow"]
    a, d = fighter(rb, weapon="Knife"), fighter(rb)
    r = blow.run(attacker=a, defender=d, seed=7)
    assert r.outcome == "struck" and 6 <= r.outcome["damage"] <= 12     # 4 + 2d4
    assert blow.run(attacker=a, defender=d, seed=7).outcome == r.outcome
    sampled = blow.sample(200, by="location", seed=1, attacker=a, defender=d)
    assert sum(e.count for e in sampled.values()) == 200
    with pytest.raises(rulecraft.RangeError, match=r"limit work.*--samples 100000"):
        blow.odds(attacker=a, defender=d, limits=rulecraft.Limits(work=20000))


# ---- the side effects and region tables, row by row ------------------------------------------

# Slicing "bleeding", "shock ... 2 HTK of bleeding per minute instead of the normal one";
# chopping "paralysis ... no bleeding", "disabling"; crushing "identical to the minor side effect
# of chopping", "identical to the major"; piercing "raising one level of critical effect",
# "shock ... only bleeds one HTK per minute"; ripping "an overbear tackle ... bleed at one HTK
# per minute", "as per shock(slicing) except that you can add +20 to your OVB"; projectile "for
# system shock roll purposes projectile damage is doubled", "shock as per slicing"; energy "as
# per shock(slicing) except there is no bleeding", "as per crushing disabling"; explosive
# "tripled", "shock as per slicing".
@pytest.mark.parametrize("kind, row", [
    ("Slicing", ("Bleeding", 1, "Shock", 2, 1, 0, 0)),
    ("Chopping", ("Paralysis", 0, "Disabling", 0, 1, 0, 0)),
    ("Crushing", ("Paralysis", 0, "Disabling", 0, 1, 0, 0)),
    ("Piercing", ("Critical level", 0, "Shock", 1, 1, 1, 0)),
    ("Ripping", ("Overbear", 1, "Shock", 2, 1, 0, 20)),
    ("Projectile", ("System shock", 0, "Shock", 2, 2, 0, 0)),
    ("Energy", ("Shock", 0, "Disabling", 0, 1, 0, 0)),
    ("Explosive", ("System shock", 0, "Shock", 2, 3, 0, 0)),
])
def test_side_effects_table_row_by_row(rb, kind, row):
    r = rb.tables["side_effects"].lookup(kind)
    assert (r.minor, r.minor_bleeding, r.major, r.major_bleeding, r.system_shock,
            r.critical_levels, r.ovb_bonus) == row


# "Head and chest shots cause stun effects, limb shots cause the temporary loss of that limb, and
# abdomen and groin shots cause loss of -4 MVM, and 1/2 stun effects"; disabling: "Head and
# chest shots cause unconsciousness, limb shots cause the bones in the limb to break and 1/2 stun
# effects to occur, abdomen shots cause -8 MVM and stun effects. Groin shots cause sys shock at
# 75% wounded."
@pytest.mark.parametrize("region, row", [
    ("Head", ("Stunned", None, 0, "Unconscious", None, 0)),
    ("Chest", ("Stunned", None, 0, "Unconscious", None, 0)),
    ("Limb", ("Limb useless", None, 0, "Bone broken", "Half stunned", 0)),
    ("Abdomen", ("Half stunned", None, 4, "Stunned", None, 8)),
    ("Groin", ("Half stunned", None, 4, "System shock at 75% wounded", None, 0)),
])
def test_region_effects_row_by_row(rb, region, row):
    r = rb.tables["region_effects"].lookup(region)
    assert (r.shock, r.shock_also, r.shock_mvm, r.disabling, r.disabling_also,
            r.disabling_mvm) == row


def test_knockback_categories_in_order(rb):
    # "+25% ... +10% ... +0% ... -10% ... -25% ... -50% (next category) -100% (next category)"
    t = rb.tables["knockback_modifiers"]
    assert [t.lookup(c) for c in ("+25%", "+10%", "+0%", "-10%", "-25%", "-50%", "-100%")] == [
        25, 10, 0, -10, -25, -50, -100]
    sizes = rb.tables["shield_sizes"]
    assert [sizes.lookup(s) for s in ("Buckler", "Small", "Medium", "Large", "Tower")] == [
        0, 0, 0.5, 0.75, 1]
