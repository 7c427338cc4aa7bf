"""Ringing Steel formulas and small tables, pinned against the seed text.

Seed: shared/seeds/002_41f740bb26c2da28.txt, "Ringing Steel -- a Man-to-Man combat system part I".
Every expected number below was worked out by hand / with `decimal`, never by re-running the
formula inside the test.  Project readings where the seed is garbled or silent are noted inline.
"""

import pytest

import rulecraft


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


def field(record, name):
    """A table record's field, whether the record exposes attributes or mapping keys."""
    if hasattr(record, name):
        return getattr(record, name)
    return record[name]


def injury_name(value):
    """The printed name of an injury value (a plain string or an enum-like object)."""
    if isinstance(value, str):
        return value
    for attr in ("name", "value", "label"):
        candidate = getattr(value, attr, None)
        if isinstance(candidate, str):
            return candidate
    return str(value)


WEAPONS = ["Sword", "Dagger", "Spear", "Club", "Javelin", "Short sword", "Quarterstaff",
           "Greatsword", "Hand axe", "Battleaxe", "Shield"]
ARMOURS = ["None", "Protection", "Light", "Standard", "Heavy", "Heavy Plus", "Extra Heavy",
           "Super Heavy", "Full"]


# ---------------------------------------------------------------------------------------------
# Skill
# "Skill = (Dexterity/4) x ln(Training + 1) x Armour Factor 4"
# "Armour Factor is read from Armour Table. ln is natural logarithm. Measure to one decimal place."
# (The trailing "4" is a garble and ignored; one decimal place, halves up.)
# ---------------------------------------------------------------------------------------------
SKILL_CASES = [
    # dexterity, training, armour, expected        unrounded value
    (12, 5, "Standard", 5.4),       # 5.3753
    (1, 1, "Full", 0.1),            # 0.1213  (smallest possible Skill)
    (1, 1, "None", 0.2),            # 0.2253
    (20, 10, "None", 15.6),         # 15.5863 (largest possible Skill)
    (20, 10, "Full", 8.4),          # 8.3926
    (1, 10, "Standard", 0.6),       # 0.5995  (rounds up, truncation would give 0.5)
    (1, 10, "None", 0.8),           # 0.7793
    (20, 1, "Standard", 3.5),       # 3.4657  (rounds up, truncation would give 3.4)
    (20, 1, "Full", 2.4),           # 2.4260
    (10, 3, "Protection", 4.2),     # 4.1589
    (14, 4, "Light", 6.2),          # 6.1963
    (16, 6, "Heavy", 7),            # 7.0053
    (15, 7, "Heavy Plus", 6.6),     # 6.6282
    (11, 2, "Extra Heavy", 2.4),    # 2.4169
    (18, 8, "Super Heavy", 7.4),    # 7.4156
    (13, 9, "Full", 5.2),           # 5.2384
    (8, 5, "None", 4.7),            # 4.6586
]


@pytest.mark.parametrize("dexterity, training, armour, expected", SKILL_CASES)
def test_skill(rb, dexterity, training, armour, expected):
    # "Skill = (Dexterity/4) x ln(Training + 1) x Armour Factor ... Measure to one decimal place."
    assert rb.formulas["skill"](dexterity=dexterity, training=training, armour=armour) == expected


def test_skill_cases_cover_every_armour():
    assert {case[2] for case in SKILL_CASES} == set(ARMOURS)


def test_result_types(rb):
    # Contract: int for integral values, float otherwise.
    assert isinstance(rb.formulas["skill"](dexterity=12, training=5, armour="Standard"), float)
    seven = rb.formulas["skill"](dexterity=16, training=6, armour="Heavy")
    assert seven == 7 and isinstance(seven, int) and not isinstance(seven, bool)
    # "Note: all attack and defence figures are rounded down to integer values."
    ap = rb.formulas["anti_parry"](skill=5.4, weapon="Sword")
    assert isinstance(ap, int) and not isinstance(ap, bool)


# ---------------------------------------------------------------------------------------------
# Anti-Parry, Parry-Stab, Parry-Cut
# "AP = Skill x A"  "PS = Skill x DS + 12"  "PC = SKill x DC + 16"
# "Note: all attack and defence figures are rounded down to integer values."
# ---------------------------------------------------------------------------------------------
ATTACK_DEFENCE_CASES = [
    # skill, weapon, AP, PS, PC          Skill*A, Skill*DS, Skill*DC
    (5.4, "Sword", 10, 27, 32),          # 10.80 15.12 16.20
    (5.4, "Dagger", 10, 30, 30),         # 10.80 18.36 14.04
    (5.4, "Spear", 9, 24, 35),           # 9.72 12.96 19.44
    (5.4, "Club", 9, 28, 27),            # 9.72 16.20 11.88
    (5.4, "Javelin", 9, 27, 31),         # 9.72 15.12 15.12
    (5.4, "Short sword", 10, 27, 31),    # 10.80 15.12 15.12
    (5.4, "Quarterstaff", 11, 33, 37),   # 11.88 21.60 21.60
    (5.4, "Greatsword", 8, 27, 31),      # 8.64 15.12 15.12
    (5.4, "Hand axe", 10, 23, 31),       # 10.80 11.88 15.12
    (5.4, "Battleaxe", 8, 19, 31),       # 8.64 7.56 15.12
    (5.4, "Shield", 5, 30, 32),          # 5.40 18.36 16.20
    (0.1, "Dagger", 0, 12, 16),          # 0.20 0.34 0.26
    (0.1, "Shield", 0, 12, 16),          # 0.10 0.34 0.30
    (15.6, "Quarterstaff", 34, 74, 78),  # 34.32 62.40 62.40
    (15.6, "Sword", 31, 55, 62),         # 31.20 43.68 46.80
    (8.4, "Battleaxe", 13, 23, 39),      # 13.44 11.76 23.52
    (3.5, "Greatsword", 5, 21, 25),      # 5.60 9.80 9.80
    (7.0, "Club", 12, 33, 31),           # 12.60 21.00 15.40
    (0.6, "Hand axe", 1, 13, 17),        # 1.20 1.32 1.68
]

# Products that are exact integers: floor() must not drop them to the integer below
# (the engine computes in decimal; a sloppy float implementation risks 6.999... -> 6).
EXACT_PRODUCT_CASES = [
    # skill, weapon, AP, PS, PC          Skill*A, Skill*DS, Skill*DC
    (2.5, "Sword", 5, 19, 23),           # 5.00 7.00 7.50
    (2.5, "Short sword", 5, 19, 23),     # 5.00 7.00 7.00
    (2.5, "Javelin", 4, 19, 23),         # 4.50 7.00 7.00
    (2.5, "Spear", 4, 18, 25),           # 4.50 6.00 9.00
    (2.5, "Greatsword", 4, 19, 23),      # 4.00 7.00 7.00
    (5.0, "Spear", 9, 24, 34),           # 9.00 12.00 18.00
    (5.0, "Battleaxe", 8, 19, 30),       # 8.00 7.00 14.00
    (5.0, "Hand axe", 10, 23, 30),       # 10.00 11.00 14.00
    (5.0, "Dagger", 10, 29, 29),         # 10.00 17.00 13.00
    (5.0, "Quarterstaff", 11, 32, 36),   # 11.00 20.00 20.00
    (5.0, "Club", 9, 27, 27),            # 9.00 15.00 11.00
    (5.0, "Shield", 5, 29, 31),          # 5.00 17.00 15.00
    (7.5, "Greatsword", 12, 33, 37),     # 12.00 21.00 21.00
]


@pytest.mark.parametrize("skill, weapon, ap, ps, pc", ATTACK_DEFENCE_CASES + EXACT_PRODUCT_CASES)
def test_anti_parry(rb, skill, weapon, ap, ps, pc):
    # "AP = Skill x A" / "all attack and defence figures are rounded down to integer values."
    assert rb.formulas["anti_parry"](skill=skill, weapon=weapon) == ap


@pytest.mark.parametrize("skill, weapon, ap, ps, pc", ATTACK_DEFENCE_CASES + EXACT_PRODUCT_CASES)
def test_parry_stab(rb, skill, weapon, ap, ps, pc):
    # "PS = Skill x DS + 12" / "all attack and defence figures are rounded down to integer values."
    assert rb.formulas["parry_stab"](skill=skill, weapon=weapon) == ps


@pytest.mark.parametrize("skill, weapon, ap, ps, pc", ATTACK_DEFENCE_CASES + EXACT_PRODUCT_CASES)
def test_parry_cut(rb, skill, weapon, ap, ps, pc):
    # "PC = SKill x DC + 16" / "all attack and defence figures are rounded down to integer values."
    assert rb.formulas["parry_cut"](skill=skill, weapon=weapon) == pc


def test_attack_defence_cases_cover_every_weapon():
    assert {case[1] for case in ATTACK_DEFENCE_CASES} == set(WEAPONS)


# ---------------------------------------------------------------------------------------------
# Two-handed strength and Blow Strength
# "All long weapons require the use of two hands. The Strength used to calculate Blow Strength is
#  the combatant's two-handed strength which is one and a half times the ordinary strength,
#  rounding halves down."   "BS = Strength + B"
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("strength, expected", [
    (1, 1),    # 1.5 -> 1
    (2, 3),
    (3, 4),    # 4.5 -> 4
    (7, 10),   # 10.5 -> 10
    (12, 18),
    (13, 19),  # 19.5 -> 19
    (20, 30),
])
def test_two_handed_strength(rb, strength, expected):
    # "one and a half times the ordinary strength, rounding halves down."
    assert rb.formulas["two_handed_strength"](strength=strength) == expected


BLOW_STRENGTH_CASES = [
    # strength, weapon, expected   (Long / M+L weapons use two-handed strength: 12 -> 18, 13 -> 19)
    (12, "Sword", 16), (13, "Sword", 17),
    (12, "Dagger", 12), (13, "Dagger", 13),
    (12, "Spear", 22), (13, "Spear", 23),                 # Long: 18+4, 19+4
    (12, "Club", 14), (13, "Club", 15),
    (12, "Javelin", 14), (13, "Javelin", 15),
    (12, "Short sword", 14), (13, "Short sword", 15),
    (12, "Quarterstaff", 19), (13, "Quarterstaff", 20),   # M+L: 18+1, 19+1
    (12, "Greatsword", 25), (13, "Greatsword", 26),       # Long: 18+7, 19+7
    (12, "Hand axe", 15), (13, "Hand axe", 16),
    (12, "Battleaxe", 23), (13, "Battleaxe", 24),         # Long: 18+5, 19+5
    (12, "Shield", 8), (13, "Shield", 9),                 # B is -4
    (1, "Dagger", 1),
    (1, "Spear", 5),                                      # two-handed 1 (1.5 down) + 4
    (1, "Shield", -3),
    (20, "Greatsword", 37),                               # 30 + 7
    (20, "Shield", 16),
]


@pytest.mark.parametrize("strength, weapon, expected", BLOW_STRENGTH_CASES)
def test_blow_strength(rb, strength, weapon, expected):
    # "BS = Strength + B" / "All long weapons require the use of two hands."
    assert rb.formulas["blow_strength"](strength=strength, weapon=weapon) == expected


def test_blow_strength_cases_cover_every_weapon():
    assert {case[1] for case in BLOW_STRENGTH_CASES} == set(WEAPONS)


# ---------------------------------------------------------------------------------------------
# Base Speed
# "Speed = 20 - Skill + Armour Modifier + Weapon Modifier"  (project: rounded down to whole tenths)
# ---------------------------------------------------------------------------------------------
BASE_SPEED_CASES = [
    # skill, armour, weapon, expected          unrounded
    (5.4, "Standard", "Sword", 14),            # 14.6
    (5.4, "None", "Dagger", 8),                # 8.6
    (3.5, "Protection", "Spear", 13),          # 13.5
    (6.2, "Light", "Club", 12),                # 12.8
    (7.0, "Heavy", "Javelin", 13),             # 13.0
    (6.6, "Heavy Plus", "Short sword", 14),    # 14.4
    (2.4, "Extra Heavy", "Quarterstaff", 18),  # 18.6
    (7.4, "Super Heavy", "Greatsword", 20),    # 20.6
    (5.2, "Full", "Hand axe", 18),             # 18.8
    (8.4, "Full", "Battleaxe", 18),            # 18.6
    (4.7, "None", "Shield", 13),               # 13.3
    (15.6, "Full", "Greatsword", 13),          # 13.4
    (0.1, "Full", "Greatsword", 28),           # 28.9
    (5.0, "Standard", "Sword", 15),            # 15.0
    (15.6, "None", "Sword", 1),                # 1.4
    (0.1, "None", "Sword", 16),                # 16.9
]


@pytest.mark.parametrize("skill, armour, weapon, expected", BASE_SPEED_CASES)
def test_base_speed(rb, skill, armour, weapon, expected):
    # "Speed = 20 - Skill + Armour Modifier + Weapon Modifier"
    assert rb.formulas["base_speed"](skill=skill, armour=armour, weapon=weapon) == expected


def test_base_speed_cases_cover_every_weapon_and_armour():
    assert {case[2] for case in BASE_SPEED_CASES} == set(WEAPONS)
    assert {case[1] for case in BASE_SPEED_CASES} == set(ARMOURS)


# ---------------------------------------------------------------------------------------------
# Move rates
# "Move Rates: Time taken to move one metre at walk and run speeds. Read from Armour table."
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("armour, walk, run", [
    ("None", 5, 3), ("Protection", 6, 3), ("Light", 6, 3), ("Standard", 6, 3), ("Heavy", 7, 4),
    ("Heavy Plus", 7, 4), ("Extra Heavy", 8, 4), ("Super Heavy", 9, 5), ("Full", 10, 5),
])
def test_move_rates(rb, armour, walk, run):
    # "Move Rates: ... Read from Armour table."
    assert rb.formulas["walk_rate"](armour=armour) == walk
    assert rb.formulas["run_rate"](armour=armour) == run


# ---------------------------------------------------------------------------------------------
# Fatigue Limit and Dodge Factors
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("strength, constitution, expected", [
    (1, 1, 8), (20, 20, 46), (12, 10, 28), (1, 20, 27), (13, 12, 31),
])
def test_fatigue_limit(rb, strength, constitution, expected):
    # "FL = Strength + Constitution + 6"
    assert rb.formulas["fatigue_limit"](strength=strength, constitution=constitution) == expected


@pytest.mark.parametrize("best_skill, active, passive", [
    # best skill, ADF, PDF         Skill*2+16, Skill+8
    (0.1, 16, 8),                  # 16.2, 8.1
    (0.5, 17, 8),                  # 17.0, 8.5
    (2.5, 21, 10),                 # 21.0, 10.5
    (5.4, 26, 13),                 # 26.8, 13.4
    (7.0, 30, 15),                 # 30.0, 15.0
    (8.4, 32, 16),                 # 32.8, 16.4
    (15.6, 47, 23),                # 47.2, 23.6
])
def test_dodge_factors(rb, best_skill, active, passive):
    # "ADF = Best Skill x 2 + 16"  "PDF = Best Skill + 8"
    # "Note: all attack and defence figures are rounded down to integer values."
    assert rb.formulas["active_dodge_factor"](best_skill=best_skill) == active
    assert rb.formulas["passive_dodge_factor"](best_skill=best_skill) == passive


# ---------------------------------------------------------------------------------------------
# Damage factor
# "[Table omitted. A good approximation is to take a value equal to blow strength plus excess,
#  divide by 4 and round to the nearest integer (but not below 1)]"
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("blow_strength, excess, expected", [
    # (bs + excess) / 4: 0 -> 0, 0.25 -> 0 (both raised to 1); 0.5 -> 1 (halves up); 0.75, 1.25
    (0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1), (5, 0, 1),
    (6, 0, 2), (7, 0, 2), (8, 0, 2),  # 1.5 -> 2, 1.75, 2
    (10, 0, 3), (4, 6, 3),            # 2.5 -> 3 (half-even would give 2)
    (14, 0, 4), (12, 2, 4),           # 3.5 -> 4
    (16, 2, 5), (11, 7, 5),           # 4.5 -> 5 (half-even would give 4)
    (20, 5, 6),                       # 6.25
])
def test_damage_factor(rb, blow_strength, excess, expected):
    # "divide by 4 and round to the nearest integer (but not below 1)"
    assert rb.formulas["damage_factor"](blow_strength=blow_strength, excess=excess) == expected


def test_damage_factor_negative_effective_blow_strength(rb):
    # "subtracting the armour protection factor ... to give an effective blow strength": it can be
    # negative (e.g. Dagger, Strength 5, against protection 15); "(but not below 1)".
    assert rb.formulas["damage_factor"](blow_strength=-3, excess=2) == 1   # -0.25 -> 1


# ---------------------------------------------------------------------------------------------
# Fatigue
# "Fatigue has no effect until the total taken exceeds half a combatant's Fatigue Limit. Then the
#  times for all actions are increased by one and all Anti-Parries, defence potentials and blow
#  Strengths are decreased by one. Blow Strengths are decreased by one for every fatigue point over
#  this level. Times are increased by one for every two fatigue points, and Anti-Parries and
#  defence potentials decreased by one for every three fatigue points."
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fatigue, fatigue_limit, expected", [
    (0, 28, 0), (14, 28, 0),  # exactly half: "no effect until the total taken exceeds half"
    (15, 28, 1), (20, 28, 6), (28, 28, 14),
    (29, 28, 15),             # over the limit itself
    (12, 25, 0),              # 24 < 25
    (13, 25, 1),              # 26 > 25; 13 - floor(25/2)
    (4, 8, 0), (5, 8, 1),
])
def test_fatigue_excess(rb, fatigue, fatigue_limit, expected):
    # "Fatigue has no effect until the total taken exceeds half a combatant's Fatigue Limit."
    assert rb.formulas["fatigue_excess"](fatigue=fatigue, fatigue_limit=fatigue_limit) == expected


@pytest.mark.parametrize("excess, time, potential, blow", [
    (0, 0, 0, 0),
    (1, 1, 1, 1),   # "Then the times ... increased by one and all Anti-Parries ... decreased by one"
    (2, 1, 1, 2), (3, 2, 1, 3), (4, 2, 2, 4), (5, 3, 2, 5), (6, 3, 2, 6), (7, 4, 3, 7),
    (12, 6, 4, 12),
])
def test_fatigue_modifiers(rb, excess, time, potential, blow):
    # "Times are increased by one for every two fatigue points, and Anti-Parries and defence
    #  potentials decreased by one for every three fatigue points."
    # "Blow Strengths are decreased by one for every fatigue point over this level."
    assert rb.formulas["fatigue_time_modifier"](excess=excess) == time
    assert rb.formulas["fatigue_potential_modifier"](excess=excess) == potential
    assert rb.formulas["fatigue_blow_modifier"](excess=excess) == blow


# ---------------------------------------------------------------------------------------------
# Types of injury
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("injury, anti_parry, defence, action_time, fatigue", [
    # "Bruise: ... Has no effect on attack and defence. Affects stamina by adding one to fatigue"
    ("Bruise", 0, 0, 0, 1),
    # "Light Wound: ... Has no affect on AntiParries or defence potentials. Adds a modifier of two
    #  tenths to the current action. Adds two fatigue points."
    ("L Wound", 0, 0, 2, 2),
    # "Wound: ... Subtracts one from all Anti-Parries and two from all defence potentials. Adds a
    #  modifier of four tenths to the current action. Adds four fatigue points."
    ("Wound", -1, -2, 4, 4),
    # "Serious Wound: ... Subtracts two from all Anti-Parries and four from all defence potentials.
    #  Adds eight tenths to the current action. Adds eight fatigue points."
    ("S Wound", -2, -4, 8, 8),
])
def test_injury_effects(rb, injury, anti_parry, defence, action_time, fatigue):
    record = rb.tables["injury_effects"].lookup(injury)
    assert field(record, "anti_parry") == anti_parry
    assert field(record, "defence") == defence
    assert field(record, "action_time") == action_time
    assert field(record, "fatigue") == fatigue


@pytest.mark.parametrize("held, new, combined", [
    ("Bruise", "Bruise", "L Wound"),    # "Two Bruises in the same area consititute a Light Wound."
    ("L Wound", "L Wound", "Wound"),    # "Two Light Wound in the same area constitute a Wound."
    ("Wound", "Wound", "S Wound"),      # "Two Wounds in one area count as a Serious Wound"
    ("S Wound", "Wound", "Disable"),    # "A Serious Wound plus a Wound in the same area counts as
    ("Wound", "S Wound", "Disable"),    #  a Disablement" (and "three [Wounds] as a Disablement")
])
def test_accumulation(rb, held, new, combined):
    assert injury_name(rb.tables["accumulation"].lookup(held, new)) == combined


# ---------------------------------------------------------------------------------------------
# Errors: declared ranges and closed vocabularies
# "Dexterity ... (1-20)"  "Training ... (1-10)"
# "an armour type selected from the Armour Table"; "weapons ... selected from the Weapons Table"
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, parameter", [
    (dict(dexterity=0, training=5, armour="Standard"), "dexterity"),
    (dict(dexterity=21, training=5, armour="Standard"), "dexterity"),
    (dict(dexterity=12, training=0, armour="Standard"), "training"),
    (dict(dexterity=12, training=11, armour="Standard"), "training"),
    (dict(dexterity=12, training=5, armour="Mithril"), "armour"),
])
def test_skill_rejects_bad_arguments(rb, kwargs, parameter):
    with pytest.raises(rulecraft.RulecraftError) as info:
        rb.formulas["skill"](**kwargs)
    assert parameter in str(info.value)


@pytest.mark.parametrize("name, kwargs, parameter", [
    ("anti_parry", dict(skill=5.4, weapon="Lightsaber"), "weapon"),
    ("parry_stab", dict(skill=5.4, weapon="Lightsaber"), "weapon"),
    ("parry_cut", dict(skill=5.4, weapon="Lightsaber"), "weapon"),
    ("blow_strength", dict(strength=12, weapon="Lightsaber"), "weapon"),
    ("base_speed", dict(skill=5.4, armour="Mithril", weapon="Sword"), "armour"),
    ("base_speed", dict(skill=5.4, armour="Standard", weapon="Lightsaber"), "weapon"),
    ("walk_rate", dict(armour="Mithril"), "armour"),
    ("run_rate", dict(armour="Mithril"), "armour"),
])
def test_unknown_names_rejected(rb, name, kwargs, parameter):
    with pytest.raises(rulecraft.RulecraftError) as info:
        rb.formulas[name](**kwargs)
    assert parameter in str(info.value)
