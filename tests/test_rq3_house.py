"""`rq3_house`, the House Combat Rules of seed 003 over `rq3_core`: each test pins a sentence or a
table row of the seed (quoted in the test) with scripted dice, exact odds where they are small.

The seed is /work/shared/seeds/003_b24d18753fd77c10.txt ("House Combat Rules", sections A-J);
docs/rq3.md ("House rules") lists every choice made where it is garbled, ambiguous or silent.
Expected figures are worked out here by hand from the seed, not read from the rule file.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("rq3_house")


@pytest.fixture(scope="module")
def core():
    return rulecraft.load("rq3_core")


# A: STR 13, CON 12, SIZ 13, DEX 14, broadsword (1D8+1, slashes and impales) 60%: critical
#    01-03, special 04-12, success 13-60, fumble 99-00. STR+SIZ 26: +1D4. HP 13. SR 2+2+2 = 6.
A = dict(strength=13, constitution=12, size=13, intelligence=12, power=11, dexterity=14,
         appearance=10, weapon="Broadsword", attacks={"Broadsword": 60},
         parries={"Broadsword": 50}, skills={"Dodge": 40}, armour={"Chest": 4})
# D: STR 12, CON 14, SIZ 15, DEX 11, battle axe (HP 8) parry 45% (critical 01-02, special
#    01-09, fumble 98-00), Dodge 35% (critical 01-02, special 01-07). HP 15; location HP at
#    15: legs 5, abdomen 5, chest 6, arms 4, head 5. Armour 5 on the body and head, 3 on limbs.
D = dict(strength=12, constitution=14, size=15, intelligence=13, power=10, dexterity=11,
         appearance=9, weapon="Battle axe", attacks={"Battle axe": 50},
         parries={"Battle axe": 45}, skills={"Dodge": 35},
         armour={"Head": 5, "Chest": 5, "Abdomen": 5, "Right arm": 3, "Left arm": 3,
                 "Right leg": 3, "Left leg": 3})


def make(book, base, **changes):
    return book.combatant(**{**base, **changes})


def attack(book, attacker=None, defender=None, dice=(), **choices):
    return book.procedures["melee_attack"].run(
        attacker=attacker or make(book, A), defender=defender or make(book, D),
        dice=list(dice), **choices)


def picks(*chosen):
    """A chooser for `combat_choice`: the Nth spare level buys the Nth choice."""
    return lambda options, values: chosen[values["pick"] - 1]


# ---- the base, and what the house changes ----------------------------------------------------

def test_rq3_house_is_a_builtin_rulebook_over_rq3_core(rb):
    assert "rq3_house" in rulecraft.builtin_rulebooks()
    assert (rb.name, rb.base.name) == ("rq3_house", "rq3_core")


def test_loading_rq3_core_restores_the_base_behaviour_for_the_same_dice(rb, core):
    # The same blow, the same dice: d100 20 (a success), d8 7 + 1, d4 3, then the location die.
    # rq3_core rolls a d20: 2 is the right leg (AP 3): 11 - 3 = 8 through, leg 5 - 8 = -3.
    # rq3_house aims high by default (D): 1d10+10, so the same 2 is 12, the chest (AP 5): 6.
    dice = [20, 7, 3, 2]
    base = attack(core, make(core, A), make(core, D), dice, defence="No defence")
    house = attack(rb, dice=dice, defence="No defence")
    assert (base.outcome["location"], base.outcome["penetrating"],
            base.outcome["location_hp_left"]) == ("Right leg", 8, -3)
    assert (house.outcome["location"], house.outcome["penetrating"],
            house.outcome["location_hp_left"]) == ("Chest", 6, 0)
    # The house's base is rq3_core itself, and plays as loading rq3_core does.
    again = attack(rb.base, make(rb.base, A), make(rb.base, D), dice, defence="No defence")
    assert dict(again.outcome) == dict(base.outcome)
    # A success parried by a success: the base lets the 13 points past the axe's 8; the house
    # cancels the attack's one level (E) and nothing is rolled for damage.
    dice = [20, 30, 8, 4, 1]
    base = attack(core, make(core, A), make(core, D), dice, defence="Parry")
    house = attack(rb, dice=dice, defence="Parry")
    assert (base.outcome.name, base.outcome["absorbed"], base.outcome["penetrating"]) == (
        "hit", 8, 2)
    assert (house.outcome.name, house.outcome["damage"]) == ("parried", None)


# Every rule the house file changes or removes, as `rulecraft diff` names it.
CHANGED = ["enum success_level: changed", "table levels_of_success: changed",
           "table weapons: changed", "formula succeeded_level: changed",
           "formula dodge_avoids: removed", "combatant adventurer: changed",
           "procedure special_damage_roll: removed", "procedure hit_location_roll: changed",
           "procedure defence_roll: changed", "procedure blow_damage: changed",
           "procedure wound: changed", "procedure melee_attack: changed"]


def test_diff_rq3_core_rq3_house_lists_each_changed_rule(rb):
    result = CliRunner().invoke(cli, ["diff", "rq3_core", "rq3_house"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for line in CHANGED:
        assert line in lines, line
    # ... and nothing else is changed: every other house rule is new.
    assert sorted(n for n, o in rb.origins.items() if o.status != "added") == sorted(
        line.split()[1].rstrip(":") for line in CHANGED)
    assert "  row Hypercritical added: 4" in lines and "  row Ultracritical added: 5" in lines
    assert "  - roll location_roll = d20" in lines
    assert "  + roll location_roll = aim_dice[aim]" in lines


# ---- A and B: bonuses and penalties to hit ---------------------------------------------------

@pytest.mark.parametrize("condition, against_it, its_attacks, levels", [
    ("Helpless", 0, 0, 1),               # "+1 level of success vs. totally helpless ..."
    ("Surprised", 25, 0, 0),             # "+25% to hit surprised victim, victim in shock, etc."
    ("In shock", 25, 0, 0),
    ("On the ground", 20, -20, 0),       # "+20% to hit victim on ground." "-20% if attacking
                                         # from ground."
    ("Surprised in combat", 10, 0, 0),   # "+10% to hit victim surprised in combat."
    ("High ground", 0, 10, 0),           # "+10% high ground advantage"
    ("Totally blind", 0, -75, 0),        # "-75% if totally blind"
    ("Moving past", 0, -10, 0),          # "-10% if attacker is moving rapidly past target"
    ("Moving", -10, 0, 0),               # "-10% for attacking moving target with missile weapon."
    ("Behind", 0, 0, 0),                 # (for G's shields only)
])
def test_the_table_of_bonuses_and_penalties_row_by_row(rb, condition, against_it, its_attacks,
                                                       levels):
    row = rb.tables["to_hit_modifiers"].lookup(condition)
    assert (row.against_it, row.its_attacks, row.levels) == (against_it, its_attacks, levels)
    assert row.only_with == ("Missile" if condition == "Moving" else None)


def test_the_table_has_a_row_for_every_condition(rb):
    assert list(rb.tables["to_hit_modifiers"].keys[0].members) == list(
        rb.enums["condition"].members)


@pytest.mark.parametrize("attack_kind, own, target, size, modifier", [
    ("Melee", {}, {"On the ground": True}, 13, 20),
    ("Melee", {"On the ground": True}, {}, 13, -20),
    ("Melee", {"On the ground": True}, {"On the ground": True}, 13, 0),
    ("Melee", {}, {"Surprised": True, "In shock": True}, 13, 50),
    ("Melee", {"High ground": True, "Totally blind": True}, {}, 13, -65),
    ("Melee", {"Moving past": True}, {"Surprised in combat": True}, 13, 0),
    ("Melee", {}, {"Moving": True}, 13, 0),       # only a missile weapon is slowed by it
    ("Missile", {}, {"Moving": True}, 13, -10),
    ("Melee", {}, {"On the ground": False}, 13, 0),
])
def test_modifiers_add_up_from_both_sides(rb, attack_kind, own, target, size, modifier):
    assert rb.formulas["to_hit_modifier"](attack=attack_kind, own=own, target=target,
                                          target_size=size, serpentine=False) == modifier


@pytest.mark.parametrize("size, serpentine, bonus", [
    (20, False, 0), (21, False, 0), (22, False, 1), (23, False, 1), (30, False, 5),
    (40, True, 0),   # "(snaky shaped things do not have this bonus)"
])
def test_plus_1_percent_per_2_siz_over_20(rb, size, serpentine, bonus):
    # A: "+1%/2 target SIZ over 20 (snaky shaped things do not have this bonus)."
    assert rb.formulas["large_target_bonus"](size=size, serpentine=serpentine) == bonus


@pytest.mark.parametrize("size, penalty", [(5, 0), (4, -10), (3, -20), (1, -40), (13, 0)])
def test_minus_10_percent_per_siz_below_5(rb, size, penalty):
    # B: "-10% per SIZ of target below 5."
    assert rb.formulas["small_target_penalty"](size=size) == penalty


def test_a_surprised_victim_is_hit_on_85(rb):
    # "+25% to hit surprised victim": 60 + 25 = 85.
    victim = make(rb, D, conditions={"Surprised": True})
    hit = attack(rb, defender=victim, dice=[85, 1, 1, 5], defence="No defence")
    assert (hit.values["attack_chance"], hit.outcome.name) == (85, "hit")
    assert attack(rb, defender=victim, dice=[86], defence="No defence").outcome == "missed"


@pytest.mark.parametrize("roll, rolled, counted", [
    (61, "Failure", "Success"),          # a miss hits a helpless target
    (30, "Success", "Special"),
    (10, "Special", "Critical"),
    (2, "Critical", "Hypercritical"),
    (99, "Fumble", "Fumble"),            # CHOICE: a fumble stays a fumble
])
def test_plus_one_level_of_success_against_a_helpless_target(rb, roll, rolled, counted):
    # A: "+1 level of success vs. totally helpless, unconscious, dying, immobile or completely
    # surprised target (you cruel bastard!)."
    assert rb.formulas["level_of_success"](roll=roll, skill=60) == rolled
    assert rb.formulas["raised_level"](level=rolled, levels=1) == counted
    victim = make(rb, D, conditions={"Helpless": True})
    r = rb.procedures["melee_attack"].run(attacker=make(rb, A), defender=victim,
                                          defence="No defence", dice=[roll] + [1] * 12,
                                          combat_choice="Other")
    assert r.outcome["attack_level"] == counted


@pytest.mark.parametrize("skill, bonus, halved", [
    (60, 10, 35),    # 1/2 x (60 - 10) + 10
    (60, 0, 30),
    (61, 10, 36),    # 25.5: CHOICE, rounded halves up
    (101, -5, 48),   # 1/2 x 106 - 5
])
def test_halving_keeps_the_manipulation_bonus_whole(rb, skill, bonus, halved):
    # B: "x1/2 (before bonuses to hit) for aimed blows, wild swings, split attacks, or
    # wrong-handed attacks ((1/2 * (skill - Manipulation bonus))+Manipulation bonus)."
    assert rb.formulas["halved_skill"](skill=skill, manipulation_bonus=bonus) == halved


@pytest.mark.parametrize("manner, chance", [("Normal", 60), ("Aimed blow", 35),
                                            ("Wild swing", 35), ("Split attack", 35),
                                            ("Wrong-handed", 35)])
def test_each_manner_of_blow_halves_the_skill(rb, manner, chance):
    assert rb.formulas["attack_skill"](skill=60, manipulation_bonus=10, manner=manner) == chance


def test_an_aimed_blow_with_a_manipulation_bonus(rb):
    # B: halved "before bonuses to hit"; D: "Aimed blow to a specific location goes on SR 10 at
    # 1/2 chance (plus bonuses/penalties to hit; e.g., Bladesharp adds full +5%/pt)". Skill 60,
    # Manipulation +10: 1/2 x 50 + 10 = 35; the victim on the ground +20; Bladesharp 2 +10: 65.
    aimer = make(rb, A, manipulation_bonus=10, bladesharp=2)
    victim = make(rb, D, conditions={"On the ground": True})
    r = attack(rb, aimer, victim, [65, 4, 2], defence="No defence", manner="Aimed blow",
               chosen_location="Head")
    assert (r.values["attack_chance"], r.values["attack_strike_rank"]) == (65, 10)
    # A success at 65: 1D8+1 (4 + 1) + 1D4 (2) = 7 to the chosen head, AP 5: 2 through.
    assert (r.outcome.name, r.outcome["location"], r.outcome["penetrating"]) == ("hit", "Head", 2)
    assert attack(rb, aimer, victim, [66], defence="No defence",
                  manner="Aimed blow").outcome == "missed"


# ---- C: multiple parries and dodges ----------------------------------------------------------

def _defences(rb, defender, defence, primaries):
    """The chance of each defence in a round, one after another on the same defender."""
    chances = []
    for primary in primaries:
        r = rb.procedures["defence_roll"].run(defender=defender, defence=defence, dice=[50],
                                              primary_defence=primary)
        chances.append(r.values["defence_chance"])
        defender = r.combatants["defender"]
    return chances


def test_the_third_parry_is_at_minus_40_percent(rb):
    # C: "Choose 1 attack to be primary dodge at full chance ..., then all others are -20%
    # cumulative per attack, so third dodge is at -40%". Parry 45%: 45, 25, 5.
    assert _defences(rb, make(rb, D), "Parry", [True, False, False]) == [45, 25, 5]


def test_the_primary_defence_may_come_later_in_the_round(rb):
    # "(may be later than other attacks in round)"
    assert _defences(rb, make(rb, D), "Parry", [False, False, True]) == [25, 5, 45]


def test_with_nothing_chosen_the_first_defence_is_the_primary_one(rb):
    defender = make(rb, D)
    chances = []
    for _ in range(3):
        r = rb.procedures["defence_roll"].run(defender=defender, defence="Dodge", dice=[50])
        chances.append(r.values["defence_chance"])
        defender = r.combatants["defender"]
    assert chances == [35, 15, -5]


def test_there_is_one_primary_defence_a_round(rb):
    r = rb.procedures["defence_roll"].run(defender=make(rb, D), defence="Parry", dice=[50])
    again = r.combatants["defender"]
    with pytest.raises(rulecraft.RulecraftError, match="cannot choose"):
        rb.procedures["defence_roll"].run(defender=again, defence="Parry", dice=[50],
                                          primary_defence=True)
    fresh = rb.procedures["new_round"].run(combatant=again).combatants["combatant"]
    assert _defences(rb, fresh, "Parry", [True]) == [45]


@pytest.mark.parametrize("changes, chance", [
    (dict(encumbrance=8), 27),                                        # "-ENC"
    (dict(footing="In water", skills={"Dodge": 35, "Swim": 20}), 20),  # "limited by ... Swim"
    (dict(footing="In water", skills={"Dodge": 35, "Swim": 60}), 35),
    (dict(footing="Mounted", skills={"Dodge": 35, "Ride": 30}, encumbrance=10), 25),
    (dict(footing="Mounted"), 0),                                     # no Ride skill written
])
def test_a_dodge_is_less_enc_and_within_swim_or_ride(rb, changes, chance):
    # E: "Dodging (always -ENC; limited by modified Swim skill when in water, or Ride skill when
    # on mount, etc.)"
    assert _defences(rb, make(rb, D, **changes), "Dodge", [True]) == [chance]


def test_the_third_dodge_is_at_minus_40_and_less_enc(rb):
    # "so third dodge is at -40% (-ENC too)": 35 - 5 - 40.
    assert _defences(rb, make(rb, D, encumbrance=5), "Dodge", [True, False, False]) == [
        30, 10, -10]


def test_defending_against_two_opponents_needs_over_99_percent(rb):
    # C: "Against one opponent, or if >99% split against 2 opponents".
    f = rb.formulas["may_defend_against_two"]
    assert (f(skill=99), f(skill=100)) == (False, True)


# ---- C: multiple attacks ---------------------------------------------------------------------

@pytest.mark.parametrize("raw, allowed", [(100, False), (101, True), (150, True)])
def test_splitting_a_skill_needs_a_raw_skill_over_100(rb, raw, allowed):
    # C: "splitting skill among 2 foes if raw skill is >100%".
    assert rb.formulas["may_split_skill"](raw_skill=raw) == allowed
    attacker = make(rb, A, attacks={"Broadsword": raw})
    r = rb.procedures["multiple_attacks"].run(attacker=attacker)
    assert r.outcome == ("allowed" if allowed else "skill_too_low")


@pytest.mark.parametrize("dexterity, first, second, outcome", [
    (14, 6, 9, "allowed"),        # DEX 14 (2) + SIZ 13 (2) + broadsword (2): 6, then 9
    (19, 4, 7, "allowed"),
    (5, 9, 12, "too_late"),       # "cannot be done if total SR would be >10"
])
def test_the_second_attack_comes_3_sr_later_and_not_past_sr_10(rb, dexterity, first, second,
                                                                outcome):
    # C: "Second attack is always 3 SR after first; cannot be done if total SR would be >10."
    attacker = make(rb, A, dexterity=dexterity, attacks={"Broadsword": 120})
    r = rb.procedures["multiple_attacks"].run(attacker=attacker)
    assert (r.outcome.name, r.outcome["first_strike_rank"], r.outcome["second_strike_rank"]) == (
        outcome, first, second)


def test_two_weapons_attack_twice_but_do_not_parry_or_dodge(rb):
    # C: "Can be done with two one-handed weapons ... if not parrying or dodging (2 actions)".
    r = rb.procedures["multiple_attacks"].run(attacker=make(rb, D), how="Second weapon")
    assert r.outcome == "allowed"
    both_hands = r.combatants["attacker"]
    blow = attack(rb, defender=both_hands, dice=[70])
    assert blow.outcome["defence"] == "No defence"
    with pytest.raises(rulecraft.RulecraftError, match="cannot choose 'Parry'"):
        attack(rb, defender=both_hands, dice=[70], defence="Parry")


def test_split_attacks_are_each_at_half(rb):
    # B: "x1/2 ... for ... split attacks": raw 120, Manipulation +10: 1/2 x 110 + 10 = 65.
    splitter = make(rb, A, attacks={"Broadsword": 120}, manipulation_bonus=10)
    r = attack(rb, splitter, dice=[70], defence="No defence", manner="Split attack")
    assert (r.values["attack_chance"], r.outcome.name) == (65, "missed")


# ---- D: aiming high or low -------------------------------------------------------------------

@pytest.mark.parametrize("aim, die, location", [
    ("Low", 1, "Right leg"), ("Low", 8, "Left leg"), ("Low", 10, "Abdomen"),
    ("High", 1, "Abdomen"), ("High", 2, "Chest"), ("High", 5, "Right arm"),
    ("High", 8, "Left arm"), ("High", 10, "Head"),
])
def test_aiming_low_rolls_1d10_and_high_1d10_plus_10(rb, aim, die, location):
    # D: "just roll 1d10 for location if aiming low; 1d10+10 for location if aiming high."
    r = rb.procedures["hit_location_roll"].run(attack="Melee", aim=aim, dice=[die])
    assert r.outcome["location"] == location


def test_aiming_high_location_odds(rb):
    odds = rb.procedures["hit_location_roll"].odds(by="location", aim="High")
    assert odds == {"Abdomen": Fraction(1, 10), "Chest": Fraction(1, 10),
                    "Right arm": Fraction(3, 10), "Left arm": Fraction(3, 10),
                    "Head": Fraction(2, 10)}
    low = rb.procedures["hit_location_roll"].odds(by="location", aim="Low")
    assert low == {"Right leg": Fraction(4, 10), "Left leg": Fraction(4, 10),
                   "Abdomen": Fraction(2, 10)}


def test_a_blow_aims_high_unless_declared_otherwise(rb):
    # D: "we generally assume that most people/things aim high anyway": the d10 shows 1 -> 11.
    r = attack(rb, dice=[30, 1, 1, 1], defence="No defence")
    assert (r.values["aim"], r.outcome["location"]) == ("High", "Abdomen")
    low = attack(rb, dice=[30, 1, 1, 1], defence="No defence", aim="Low")
    assert low.outcome["location"] == "Right leg"
    plain = attack(rb, dice=[30, 1, 1, 12], defence="No defence", aim="Not aimed")
    assert plain.outcome["location"] == "Chest"


def test_wild_swings_and_missiles_cannot_aim(rb):
    # D: "Missile weapons, wild swings, or spells cannot aim high/low."
    assert rb.formulas["may_aim"](attack="Missile", manner="Normal") is False
    assert rb.formulas["may_aim"](attack="Melee", manner="Wild swing") is False
    r = attack(rb, dice=[20, 1, 1, 12], defence="No defence", manner="Wild swing")
    assert (r.values["aim"], r.values["attack_chance"], r.outcome["location"]) == (
        "Not aimed", 30, "Chest")
    with pytest.raises(rulecraft.RulecraftError, match="cannot choose 'High'"):
        attack(rb, dice=[20], defence="No defence", manner="Wild swing", aim="High")


# ---- E: levels of success --------------------------------------------------------------------

@pytest.mark.parametrize("level, levels", [
    ("Fumble", 0), ("Failure", 0), ("Success", 1), ("Special", 2), ("Critical", 3),
    ("Hypercritical", 4), ("Ultracritical", 5)])
def test_levels_of_success(rb, level, levels):
    # E: "a failure or fumble is 0 levels of success; success is 1, special is 2, and critical
    # is 3 ... a hypercritical (4 levels of success) ... an ultracritical (5 levels of success!)"
    assert rb.tables["levels_of_success"].lookup(level) == levels


def _levels(rb, skill):
    return [rb.formulas["level_of_success"](roll=r, skill=skill) for r in range(1, 101)]


def test_a_hypercritical_at_skill_100(rb):
    # E: "If the total modified skill chance is 100% or more, then a roll of (1/100 chance,
    # rounding normally) is a hypercritical". Skill 100: 01 hypercritical, 02-05 critical,
    # 06-20 special, 21-95 success, 96-99 failure, 00 fumble.
    assert _levels(rb, 100) == (["Hypercritical"] + ["Critical"] * 4 + ["Special"] * 15
                                + ["Success"] * 75 + ["Failure"] * 4 + ["Fumble"])
    assert rb.formulas["level_of_success"](roll=1, skill=99) == "Critical"


def test_hypercriticals_grow_with_the_skill_rounding_normally(rb):
    f = rb.formulas["hypercritical_chance"]
    assert [f(skill=s) for s in (99, 100, 149, 150, 250, 499)] == [0, 1, 1, 2, 3, 5]


def test_an_ultracritical_at_skill_500(rb):
    # E: "At 500-1000%, an 01 is an ultracritical (5 levels of success!)." Skill 500: 01
    # ultracritical, 02-05 hypercritical, 06-25 critical, 26-95 special.
    assert _levels(rb, 500) == (["Ultracritical"] + ["Hypercritical"] * 4 + ["Critical"] * 20
                                + ["Special"] * 70 + ["Failure"] * 4 + ["Fumble"])
    assert rb.formulas["level_of_success"](roll=1, skill=499) == "Hypercritical"
    assert rb.formulas["level_of_success"](roll=1, skill=1000) == "Ultracritical"


def test_skill_roll_odds_at_500_are_exact(rb):
    odds = rb.procedures["skill_roll"].odds(by="level", skill=500)
    assert odds == {"Ultracritical": Fraction(1, 100), "Hypercritical": Fraction(4, 100),
                    "Critical": Fraction(20, 100), "Special": Fraction(70, 100),
                    "Failure": Fraction(4, 100), "Fumble": Fraction(1, 100)}


@pytest.mark.parametrize("attack_roll, dodge_roll, outcome, net", [
    (30, 20, "dodged", 0),      # success - success
    (10, 20, "hit", 1),         # special - success: one level left, to hit
    (2, 5, "hit", 1),           # critical - special
    (30, 5, "dodged", -1),      # success - special
    (30, 36, "hit", 1),         # the dodge failed
])
def test_a_dodge_cancels_levels_of_success(rb, attack_roll, dodge_roll, outcome, net):
    # E: "Dodging ... simply cancels out levels of success." "Attacking requires 1 level of
    # success to be spent to hit the foe."
    r = attack(rb, dice=[attack_roll, dodge_roll, 1, 1, 2], defence="Dodge")
    assert (r.outcome.name, r.values["net_levels"]) == (outcome, net)
    if outcome == "hit":
        assert r.values["blow"]["picks"] == ()     # no level left for a choice
        assert r.outcome["damage"] == 3             # 1D8+1 and 1D4, no special damage


def test_a_parry_cancels_levels_of_success(rb):
    # E: "Parrying usually does cancel levels of success". A special (10) parried by a success
    # (30): one level left, the blow lands; the axe absorbs its 8 HP of 9 + 4 = 13 and loses 1
    # HP, 5 go on to the chest (d10+10 = 12), AP 5: nothing through.
    r = attack(rb, dice=[10, 30, 8, 4, 2], defence="Parry")
    assert (r.outcome.name, r.outcome["absorbed"], r.outcome["penetrating"]) == ("hit", 8, 0)
    assert r.combatants["defender"].weapon_damage == 1
    # A special parried by a special: no level left.
    assert attack(rb, dice=[10, 5], defence="Parry").outcome == "parried"


@pytest.mark.parametrize("attack_roll, spare", [(30, 0), (10, 1), (2, 2)])
def test_each_level_after_the_first_buys_a_choice(rb, attack_roll, spare):
    # E: "Any levels of attack success after that allow a choice (so 1 for special, 2 for
    # critical, 3 for hypercritical, etc.)". Without a choice given, the broadsword slashes
    # first, then halves the armour (CHOICE).
    r = attack(rb, dice=[attack_roll, 1, 1, 1, 2, 99, 99], defence="No defence")
    assert list(r.values["blow"]["picks"]) == ["Slash", "Half armour"][:spare]


def test_a_hypercritical_buys_three_choices(rb):
    master = make(rb, A, attacks={"Broadsword": 100})
    r = attack(rb, master, dice=[1, 1, 1, 2, 2, 99], defence="No defence")
    assert r.outcome["attack_level"] == "Hypercritical"
    assert list(r.values["blow"]["picks"]) == ["Slash", "Half armour", "Half armour"]


# ---- F: combat choices -----------------------------------------------------------------------

def _extremes(rb, expression):
    return tuple(rulecraft.evaluate(rb, f"{f}({expression})") for f in
                 ("minimum", "maximum", "mean"))


def test_a_long_spear_impale_is_d10_plus_12(rb):
    # F1A: "Does full weapon damage plus one rolled weapon damage; so a long spear (1d10+1)
    # does 11+1d10+1 = d10+12 damage on an impale."
    assert str(rb.tables["weapons"].lookup("Long spear").damage) == "d10 + 1"
    assert _extremes(rb, 'impale_damage(weapons["Long spear"].damage, false)') == (
        13, 22, Fraction(35, 2))


def test_a_long_spear_impale_in_a_blow(rb):
    # A special (10) with the spear, Impale chosen: 11 + (d10 3 + 1) = 15, + 1D4 (2) "at end" =
    # 17 to the chest (d10+10 = 12), AP 5: 12 through; then the spear sticks unless the attacker
    # rolls 1/5 of 60 = 12 (rolled 50).
    spearman = make(rb, A, weapon="Long spear", attacks={"Long spear": 60})
    r = attack(rb, spearman, dice=[10, 3, 2, 2, 50], defence="No defence",
               combat_choice="Impale")
    assert (r.outcome["damage"], r.outcome["penetrating"]) == (17, 12)
    assert r.values["stuck"] == "stuck"


def test_a_bastard_sword_slash_is_2d10_plus_2(rb):
    # F1B: "Does two rolls of weapon damage; so a bastard sword (1d10+1) does 2d10+2."
    assert _extremes(rb, 'slash_damage(weapons["Bastard sword"].damage, false)') == (4, 22, 13)
    swordsman = make(rb, A, weapon="Bastard sword", attacks={"Bastard sword": 60})
    r = attack(rb, swordsman, dice=[10, 7, 9, 1, 2, 10], defence="No defence",
               combat_choice="Slash")
    assert r.outcome["damage"] == 8 + 10 + 1        # 2d10+2, then 1D4 at end


def test_only_the_weapons_that_can_impale_impale(rb):
    # F1: "Broadswords and smaller bladed weapons can impale; bastard and great swords cannot".
    # "Axes, all swords, claws, bites, etc. can slash." "Only works with blunt weapons."
    opens = {w: list(rb.formulas["specials_of"](weapon=w)) for w in rb.tables["weapons"].keys[
        0].members}
    assert opens == {"Dagger": ["Impale"], "Shortsword": ["Impale", "Slash"],
                     "Broadsword": ["Impale", "Slash"], "Bastard sword": ["Slash"],
                     "Great sword": ["Slash"], "Battle axe": ["Slash"],
                     "Heavy mace": ["Crush"], "Long spear": ["Impale"]}
    swordsman = make(rb, A, weapon="Bastard sword", attacks={"Bastard sword": 60})
    with pytest.raises(rulecraft.RulecraftError, match="cannot choose 'Impale'"):
        attack(rb, swordsman, dice=[10], defence="No defence", combat_choice="Impale")


@pytest.mark.parametrize("strength, size, bonus", [
    (13, 13, 4),     # STR+SIZ 26: 1D4 at its most
    (20, 20, 6),     # 40: 1D6
    (25, 20, 12),    # 45: 2D6
    (45, 45, 18),    # 90: 5D6, "up to 3d6 (18)"
    (10, 10, 0),     # 20: no bonus
])
def test_a_crush_maximises_the_damage_bonus_up_to_18(rb, strength, size, bonus):
    # F1C: "Crush: Maximizes damage bonus of attacker, up to 3d6 (18). Only works with blunt
    # weapons." A heavy mace (1D10) special, Crush: the d10 (6) and the bonus at its most.
    maceman = make(rb, A, strength=strength, size=size, weapon="Heavy mace",
                   attacks={"Heavy mace": 60})
    r = attack(rb, maceman, dice=[10, 6, 5, 99, 99], defence="No defence", combat_choice="Crush")
    assert r.outcome["damage"] == 6 + bonus
    assert "stuck" not in r.values                  # "Never sticks in wound"


@pytest.mark.parametrize("kind, metres", [("Crushing", 4), ("Slashing", 2), ("Impaling", 1)])
def test_knockback_metres_for_each_weapon_class(rb, kind, metres):
    # F2: "each (3 for blunt weapon; 5 for slashing; 10 for impaling) pts damage beyond victim
    # SIZ knocks victim back 1m." 25 damage against SIZ 13: 12 beyond.
    assert rb.formulas["knockback_metres"](damage=25, size=13, kind=kind) == metres
    assert rb.formulas["knockback_metres"](damage=13 + {"Crushing": 2, "Slashing": 4,
                                                        "Impaling": 9}[kind], size=13,
                                           kind=kind) == 0


def test_a_victim_knocked_back_rolls_dex_x5_or_falls(rb):
    # F2: "Victims knocked back must roll DEXx5% or fall down". DEX 11: 55%. 21 crushing points
    # on SIZ 15: 6 beyond, 2 m.
    knock = rb.procedures["knockback"]
    stays = knock.run(victim=make(rb, D), damage=21, kind="Crushing", dice=[55])
    assert (stays.outcome.name, stays.outcome["metres"], stays.outcome["fell"]) == (
        "knocked_back", 2, False)
    falls = knock.run(victim=make(rb, D), damage=21, kind="Crushing", dice=[56])
    assert falls.outcome["fell"] is True
    assert falls.combatants["victim"].conditions == {"On the ground": True}


def test_knockback_into_something_is_1d6_a_metre_left(rb):
    # F2: "1d6 damage per m remaining to be traveled if anything is hit along the way." 4 m
    # (27 crushing on SIZ 15), a wall after 1 m: 3d6 (2, 3, 4) = 9 to the chest (d20 12), AP 5.
    r = rb.procedures["knockback"].run(victim=make(rb, D), damage=27, kind="Crushing",
                                       obstacle_at=1, dice=[2, 3, 4, 12, 10])
    assert (r.outcome["metres"], r.outcome["impact"], r.outcome["fell"]) == (4, 9, False)
    assert r.combatants["victim"].location_damage == {"Chest": 4}


def test_a_victim_knocked_down_gets_no_roll(rb):
    # F2: "Alternatively, may be used to knock victim down. ... victims knocked down get no roll."
    r = rb.procedures["knockback"].run(victim=make(rb, D), damage=21, kind="Crushing",
                                       knock_down=True, dice=[])
    assert r.outcome == "knocked_down"
    assert r.combatants["victim"].conditions == {"On the ground": True}
    short = rb.procedures["knockback"].run(victim=make(rb, D), damage=17, kind="Crushing",
                                           knock_down=True, dice=[])
    assert short.outcome == "unmoved"       # CHOICE: a knockdown needs 1 m's worth


def test_knockback_as_a_choice_in_a_blow(rb):
    # F2 bought by a special (10) with a heavy mace: STR+SIZ 36, so 1D6.
    maceman = make(rb, A, strength=18, size=18, weapon="Heavy mace", attacks={"Heavy mace": 60})
    r = attack(rb, maceman, dice=[10, 10, 6, 2, 99], defence="No defence",
               combat_choice="Knockback")
    # STR+SIZ 36: 1D6. 10 + 6 = 16 on SIZ 15: 1 beyond, none for blunt 3.
    assert (r.outcome["damage"], r.values["knocked"].name) == (16, "unmoved")


def test_maximum_weapon_damage_just_rolls_the_bonus(rb):
    # F3: "Maximum weapon damage. Just roll damage bonus." Broadsword 9, 1D4 (3).
    r = attack(rb, dice=[10, 3, 2], defence="No defence", combat_choice="Maximum damage")
    assert r.outcome["damage"] == 12


@pytest.mark.parametrize("armour_points, once, twice", [(5, 3, 0), (4, 2, 0), (3, 2, 0),
                                                        (1, 1, 0), (0, 0, 0)])
def test_half_armour_rounds_half_up_and_twice_ignores_it(rb, armour_points, once, twice):
    # F4: "1/2 armor. Counts all armor, magical or not. Round 0.5 up. May be picked twice (2
    # levels of success) to ignore all armor."
    f = rb.formulas["halved_armour"]
    assert (f(armour_points=armour_points, halvings=1),
            f(armour_points=armour_points, halvings=2)) == (once, twice)


def test_half_armour_in_a_blow(rb):
    # A special, half armour: 5 + 2 = 7 to the chest (12), AP 5 -> 3: 4 through.
    r = attack(rb, dice=[10, 4, 2, 2], defence="No defence", combat_choice="Half armour")
    assert (r.outcome["armour_points"], r.outcome["penetrating"]) == (3, 4)


def test_choose_location(rb):
    # F5: "Choose location. May hit any hit location desired." No location die is rolled.
    r = attack(rb, dice=[10, 4, 2], defence="No defence", combat_choice="Choose location",
               chosen_location="Left leg")
    assert r.outcome["location"] == "Left leg"


def test_disarm(rb):
    # F6: "Disarm. As RQ rules." CHOICE: the victim's weapon is knocked away.
    r = attack(rb, dice=[10, 4, 2, 2], defence="No defence", combat_choice="Disarm")
    assert r.combatants["defender"].disarmed is True


def test_damage_the_parrying_weapon_even_more(rb):
    # F7: "Damage parrying weapon even more. -1 AP per pt exceeding AP of parrying weapon.
    # Victim's body is unharmed." A critical (2) parried by a success (30): one level to hit,
    # one to spend. 9 + 4 = 13 against the axe's 8 HP: it loses 5.
    r = attack(rb, dice=[2, 30, 8, 4], defence="Parry", combat_choice="Damage parrying weapon")
    assert (r.outcome.name, r.outcome["absorbed"]) == ("parried", 13)
    defender = r.combatants["defender"]
    assert (defender.weapon_damage, defender.weapon_hp, defender.general_damage) == (5, 3, 0)


def test_damaging_the_parrying_weapon_needs_a_parry(rb):
    with pytest.raises(rulecraft.RulecraftError, match="cannot choose 'Damage parrying weapon'"):
        attack(rb, dice=[10], defence="No defence", combat_choice="Damage parrying weapon")


def test_other(rb):
    # F8: "Other (do subdual damage, humiliate victim, etc.)": no figure; the blow is plain.
    r = attack(rb, dice=[10, 4, 2, 2], defence="No defence", combat_choice="Other")
    assert (r.outcome["damage"], list(r.values["blow"]["picks"])) == (7, ["Other"])


def test_half_armour_may_be_picked_twice_but_a_special_once(rb):
    options = rb.formulas["choices_left"]
    left = options(weapon="Broadsword", parried=False, picks=["Slash", "Half armour"])
    assert "Half armour" in left and "Impale" not in left and "Slash" not in left
    left = options(weapon="Broadsword", parried=False, picks=["Half armour", "Half armour"])
    assert "Half armour" not in left and "Other" in left


# ---- F1: weapons stuck in the wound ----------------------------------------------------------

@pytest.mark.parametrize("special, chance", [("Impale", 12), ("Slash", 30)])
def test_a_weapon_sticks_unless_the_attacker_rolls_a_fifth_or_half(rb, special, chance):
    # F1A: "stuck in the wound ... unless the attacker rolls 1/5 of their raw ... skill
    # immediately"; F1B: "Weapon sticks as above unless attacker rolls 1/2 of their raw skill."
    stick = rb.procedures["stick"]
    free = stick.run(attacker=make(rb, A), victim=make(rb, D), location="Chest",
                     special=special, dice=[chance])
    stuck = stick.run(attacker=make(rb, A), victim=make(rb, D), location="Chest",
                      special=special, dice=[chance + 1])
    assert (free.outcome.name, stuck.outcome.name) == ("free", "stuck")
    assert stuck.combatants["victim"].stuck_weapons == {"Chest": 1}
    assert (stuck.combatants["attacker"].weapon_stuck,
            stuck.combatants["attacker"].stuck_by) == (True, special)


def test_an_impale_that_does_not_penetrate_is_still_stuck(rb):
    # F1A: "If the impale does not penetrate armor, it is still stuck!" Spear special, Impale:
    # 11 + 1 + 1 = 13 + 1 = 14 to the chest... against AP 20.
    spearman = make(rb, A, weapon="Long spear", attacks={"Long spear": 60})
    tank = make(rb, D, armour={"Chest": 20})
    r = attack(rb, spearman, tank, dice=[10, 1, 1, 2, 90], defence="No defence",
               combat_choice="Impale")
    assert (r.outcome["penetrating"], r.values["stuck"].name) == (0, "stuck")


def test_withdrawing_a_stuck_weapon(rb):
    # F1A: "Each round thereafter they may roll again to withdraw"; "Victims may withdraw
    # impaling weapon by rolling (STR+CON-weapon ENC)x2% or less"; "A fumbled withdraw drives
    # the weapon in deeper (takes 2 successful withdraw rolls!)". The victim: STR 12 + CON 14
    # less the broadsword's ENC 1, x 2 = 50%.
    s = rb.procedures["stick"].run(attacker=make(rb, A), victim=make(rb, D), location="Chest",
                                   special="Impale", dice=[90])
    attacker, victim = s.combatants["attacker"], s.combatants["victim"]
    withdraw = rb.procedures["withdraw"]
    assert withdraw.run(attacker=attacker, victim=victim, location="Chest", by_victim=True,
                        dice=[51]).outcome == "still_stuck"
    freed = withdraw.run(attacker=attacker, victim=victim, location="Chest", by_victim=True,
                         dice=[50])
    assert freed.outcome == "free" and freed.combatants["attacker"].weapon_stuck is False
    deeper = withdraw.run(attacker=attacker, victim=victim, location="Chest", dice=[100])
    assert deeper.outcome == "deeper"
    victim = deeper.combatants["victim"]
    assert victim.stuck_weapons == {"Chest": 2}
    once = withdraw.run(attacker=attacker, victim=victim, location="Chest", dice=[12])
    assert once.outcome == "loosened"     # the attacker's 1/5 of 60
    twice = withdraw.run(attacker=attacker, victim=once.combatants["victim"], location="Chest",
                         dice=[12])
    assert twice.outcome == "free"
    assert withdraw.run(attacker=attacker, victim=victim, location="Head",
                        dice=[]).outcome == "free"     # nothing stuck there


def test_holding_a_stuck_weapon_applies_the_damage_bonus_ignoring_armour(rb):
    # F1A: "By holding onto the impaling weapon, attacker may apply their damage bonus to the
    # wound (ignoring armor)"; F1B: "The attacker may apply 1/2 of their damage bonus".
    hold = rb.procedures["hold_weapon_in_wound"]
    for special, roll, damage in [("Impale", 3, 3), ("Slash", 3, 2), ("Slash", 4, 2)]:
        s = rb.procedures["stick"].run(attacker=make(rb, A), victim=make(rb, D),
                                       location="Chest", special=special, dice=[90])
        r = hold.run(attacker=s.combatants["attacker"], victim=s.combatants["victim"],
                     location="Chest", dice=[roll])
        assert (r.outcome["damage"], r.outcome["penetrating"]) == (damage, damage)
    assert hold.run(attacker=make(rb, A), victim=make(rb, D), location="Chest",
                    dice=[]).outcome == "not_stuck"


def test_a_wound_with_a_weapon_in_it_cannot_be_healed(rb):
    # F1A: "stuck in the wound (which then cannot be healed)".
    s = rb.procedures["stick"].run(attacker=make(rb, A), victim=make(rb, D), location="Chest",
                                   special="Impale", dice=[90])
    victim = s.combatants["victim"]
    healer = make(rb, A, skills={"First Aid": 60})
    assert rb.procedures["first_aid"].run(healer=healer, patient=victim, location="Chest",
                                          dice=[]).outcome == "stuck"


# ---- G: passive shield protection ------------------------------------------------------------

@pytest.mark.parametrize("shield, ap, left_arm, melee, missile", [
    ("Buckler", 8, 25, None, None),     # "buckler shield 25% even if parry is missed"
    ("Target", 12, 50, None, None),     # "target/heater shield 50% of time"
    ("Heater", 12, 50, None, None),
    ("Kite", 16, 95, None, None),       # "kite/round shield 95%"
    ("Round", 16, 95, None, None),
    ("Hoplite", 18, 100, "Abdomen", "Chest"),   # "covers L arm always AND 1 other location
                                                # (normally assumed abdomen in melee; chest in
                                                # missile combat if aware)"
])
def test_the_shields_row_by_row(rb, shield, ap, left_arm, melee, missile):
    row = rb.tables["shields"].lookup(shield)
    assert (row.ap, row.left_arm, row.melee, row.missile) == (ap, left_arm, melee, missile)


def _shield(rb, shield, location, dice, attack="Melee", from_behind=False, damage=10, **d):
    return rb.procedures["passive_shield"].run(
        defender=make(rb, D, shield=shield, **d), location=location, attack=attack,
        from_behind=from_behind, damage=damage, dice=dice)


def test_a_buckler_covers_the_left_arm_a_quarter_of_the_time(rb):
    assert _shield(rb, "Buckler", "Left arm", [25]).outcome["points"] == 8
    assert _shield(rb, "Buckler", "Left arm", [26]).outcome == "uncovered"
    assert _shield(rb, "Buckler", "Right arm", []).outcome == "uncovered"
    odds = rb.procedures["passive_shield"].odds(
        by="points", defender=make(rb, D, shield="Kite"), location="Left arm", attack="Melee",
        from_behind=False, damage=10)
    assert odds == {16: Fraction(95, 100), 0: Fraction(5, 100)}


def test_a_hoplite_shield_covers_the_left_arm_always_and_the_abdomen_or_chest(rb):
    assert _shield(rb, "Hoplite", "Left arm", []).outcome["points"] == 18
    assert _shield(rb, "Hoplite", "Abdomen", []).outcome["points"] == 18
    assert _shield(rb, "Hoplite", "Chest", []).outcome == "uncovered"
    assert _shield(rb, "Hoplite", "Chest", [], attack="Missile").outcome["points"] == 18
    unaware = _shield(rb, "Hoplite", "Chest", [], attack="Missile",
                      conditions={"Surprised": True})
    assert unaware.outcome == "uncovered"


def test_a_hoplite_shield_covers_one_other_location_against_an_unaware_defender_too(rb):
    # G: "hoplite shield covers L arm always AND 1 other location (normally assumed abdomen in
    # melee; chest in missile combat if aware)". Always one other location: the chest only
    # against a missile the defender is aware of, else the abdomen, as normally assumed — a
    # surprised or helpless defender's shield still covers it (issue 21: it covered only the
    # left arm). No dice: a sure cover rolls none.
    for unaware in ({"Surprised": True}, {"Helpless": True}):
        for attack in ("Missile", "Melee"):
            covered = _shield(rb, "Hoplite", "Abdomen", [], attack=attack, conditions=unaware)
            assert (covered.outcome.name, covered.outcome["points"]) == ("covered", 18)
            assert _shield(rb, "Hoplite", "Left arm", [], attack=attack,
                           conditions=unaware).outcome["points"] == 18
            assert _shield(rb, "Hoplite", "Chest", [], attack=attack,
                           conditions=unaware).outcome == "uncovered"
    # Aware of a missile, the chest instead of the abdomen: one other location, not two.
    assert _shield(rb, "Hoplite", "Abdomen", [], attack="Missile").outcome == "uncovered"
    odds = rb.procedures["passive_shield"].odds(
        by="points", defender=make(rb, D, shield="Hoplite", conditions={"Surprised": True}),
        location="Abdomen", attack="Missile", from_behind=False, damage=10)
    assert odds == {18: 1}


def test_shields_do_not_protect_from_behind(rb):
    # G: "Shields do not protect from behind if they are wielded".
    assert _shield(rb, "Hoplite", "Left arm", [], from_behind=True).outcome == "uncovered"


def test_the_shield_adds_its_ap_and_loses_1_if_penetrated(rb):
    # G: "Add shield AP to armor AP if struck, but shield loses 1 AP as usual if it is
    # penetrated." A slash chosen with the location: left arm, (8 + 8 + 2) + 4 = 22 against a
    # hoplite shield's 18 and AP 3: 1 through; the shield is down to 17.
    hoplite = make(rb, D, shield="Hoplite")
    r = attack(rb, defender=hoplite, dice=[2, 8, 8, 4, 90], defence="No defence",
               combat_choice=picks("Slash", "Choose location"), chosen_location="Left arm")
    assert (r.outcome["damage"], r.outcome["armour_points"], r.outcome["penetrating"]) == (
        22, 21, 1)
    assert r.combatants["defender"].shield_damage == 1


# ---- H: effects of damage --------------------------------------------------------------------

def test_a_limb_severed_by_one_slash(rb):
    # H2: "Slashing weapons sever limbs if one blow does penetrating damage equal to 2x location
    # HP; 1d100% of limb is gone." A critical (2): Slash and half armour. (8 + 1) + (4 + 1) + 1D4
    # 2 = 16 to the right arm (d10+10 = 13), AP 3 -> 2: 14 through, twice its 4 HP and more.
    # The limb takes 8 (H2's cap); 40% of it is gone; CON 14 x 1% (rolled 20): in shock (H5).
    r = attack(rb, dice=[2, 8, 4, 2, 3, 40, 20, 50], defence="No defence")
    assert list(r.values["blow"]["picks"]) == ["Slash", "Half armour"]
    assert (r.outcome["location"], r.outcome["penetrating"]) == ("Right arm", 14)
    victim = r.combatants["defender"]
    assert victim.injuries == {"Right arm": "Severed"}
    assert victim.limb_lost == {"Right arm": 40}
    assert (victim.location_damage, victim.general_damage) == ({"Right arm": 8}, 8)
    assert victim.conditions == {"In shock": True} and victim.heroic is False


def test_severing_needs_twice_the_hit_points_in_one_slash(rb):
    f = rb.formulas["injury_of"]
    # Right arm, 4 HP: 8 in one slash severs; 7 maims only if the location has taken 8 in all.
    assert f(kind="Slashing", limb=True, blow=8, dealt=8, location_hp=4) == "Severed"
    assert f(kind="Slashing", limb=True, blow=7, dealt=7, location_hp=4) is None
    assert f(kind="Slashing", limb=True, blow=4, dealt=8, location_hp=4) == "Maimed"


def test_other_body_parts_sever_at_four_times_their_hit_points(rb):
    # H3: "Other body parts are severed if 4x location HP done in one blow (heads, chest,
    # etc.)." The head, 5 HP.
    f = rb.formulas["injury_of"]
    assert f(kind="Slashing", limb=False, blow=20, dealt=20, location_hp=5) == "Severed"
    assert f(kind="Slashing", limb=False, blow=19, dealt=19, location_hp=5) == "Maimed"


def test_impaling_weapons_never_do_more_than_maim(rb):
    # H3: "Impaling weapons never do more than maim locations; they cannot sever or pulverize."
    f = rb.formulas["injury_of"]
    assert f(kind="Impaling", limb=False, blow=40, dealt=40, location_hp=5) == "Maimed"
    assert f(kind="Impaling", limb=True, blow=8, dealt=8, location_hp=4) == "Maimed"


def test_maimed_at_twice_and_pulverised_at_four_times_from_blunt_weapons(rb):
    # H4: "Locations are maimed if they take 2x location HP in total damage from any sources;
    # pulverized (~ severed without chance of reattaching) if 4x damage from
    # non-slashing/impaling weapons."
    f = rb.formulas["injury_of"]
    assert f(kind="Crushing", limb=False, blow=3, dealt=10, location_hp=5) == "Maimed"
    assert f(kind="Crushing", limb=False, blow=12, dealt=20, location_hp=5) == "Pulverised"
    assert f(kind="Slashing", limb=False, blow=12, dealt=20, location_hp=5) == "Maimed"
    assert f(kind="Crushing", limb=False, blow=9, dealt=9, location_hp=5) is None


def test_a_limb_takes_no_more_than_twice_its_hit_points_and_hits_are_rerolled(rb):
    # H2: "You cannot take more than 2x HP damage to a limb; reroll subsequent hits to that
    # location and ignore extra damage there." The right arm already has 8 (2 x 4): the next
    # hit there (d10+10 = 13) is rolled again, and lands on the head (20).
    maimed = make(rb, D, location_damage={"Right arm": 8}, general_damage=8,
                  injuries={"Right arm": "Maimed"}, conditions={"In shock": True})
    r = attack(rb, defender=maimed, dice=[30, 4, 2, 3, 10], defence="No defence")
    assert r.outcome["location"] == "Head"
    # A blow on the arm itself (chosen) takes nothing more from it; but 9 + 4 - 3 = 10 in one
    # slash is twice its HP: severed all the same (30% of it), no second shock roll.
    chosen = attack(rb, defender=maimed, dice=[10, 8, 4, 30], defence="No defence",
                    combat_choice="Choose location", chosen_location="Right arm")
    assert (chosen.outcome["penetrating"], chosen.values["struck"]["taken"]) == (10, 0)
    victim = chosen.combatants["defender"]
    assert (victim.general_damage, victim.injuries, victim.limb_lost) == (
        8, {"Right arm": "Severed"}, {"Right arm": 30})


def test_a_victim_maimed_in_a_limb_rolls_con_x1_or_is_in_shock(rb):
    # H5: "Victims with maimed or severed limbs are in shock ... unless roll CONx1% (Heroic)."
    # A special (10) buys the left leg (5 HP, AP 3), which has 7 already: 9 + 1 - 3 = 7, of
    # which the leg takes 3 (to 10, twice 5): maimed. CON 14: a roll of 14 is Heroic.
    hurt = make(rb, D, location_damage={"Left leg": 7}, general_damage=7)
    heroic = attack(rb, defender=hurt, dice=[10, 8, 1, 14], defence="No defence",
                    combat_choice="Choose location", chosen_location="Left leg")
    victim = heroic.combatants["defender"]
    assert victim.injuries == {"Left leg": "Maimed"}
    assert (victim.heroic, victim.conditions) == (True, {})
    shocked = attack(rb, defender=hurt, dice=[10, 8, 1, 15], defence="No defence",
                     combat_choice="Choose location", chosen_location="Left leg")
    assert shocked.combatants["defender"].conditions == {"In shock": True}


def test_a_victim_in_shock_is_easier_to_hit(rb):
    # H5 then A: "+25% to hit ... victim in shock".
    victim = make(rb, D, conditions={"In shock": True})
    assert attack(rb, defender=victim, dice=[85, 1, 1, 5],
                  defence="No defence").values["attack_chance"] == 85


# ---- I: healing ------------------------------------------------------------------------------

@pytest.mark.parametrize("level, low, high", [
    ("Fumble", -1, -1), ("Failure", 0, 0), ("Success", 1, 1), ("Special", 1, 3),
    ("Critical", 3, 3), ("Hypercritical", 4, 4), ("Ultracritical", 5, 5)])
def test_first_aid_heals_by_level_of_success(rb, level, low, high):
    # I1: "heals 1HP on success, 1d3 on special, 3 on critical, 4 on hypercritical. ... Fumble
    # does 1HP damage." (CHOICE: an ultracritical 5.)
    assert rb.tables["first_aid_healing"].lookup(level).extremes() == (low, high)


def _wounded(rb, **changes):
    return make(rb, D, location_damage={"Chest": 5}, general_damage=5, **changes)


def test_first_aid_once_a_wound(rb):
    # I1: "Can only be used once/wound." First Aid 60%: a special (10) and 1d3 (2).
    healer = make(rb, A, skills={"First Aid": 60})
    aid = rb.procedures["first_aid"]
    r = aid.run(healer=healer, patient=_wounded(rb), location="Chest", dice=[10, 2])
    assert (r.outcome.name, r.outcome["level"], r.outcome["healed"]) == ("treated", "Special", 2)
    patient = r.combatants["patient"]
    assert (patient.location_damage, patient.general_damage) == ({"Chest": 3}, 3)
    assert aid.run(healer=healer, patient=patient, location="Chest",
                   dice=[10, 2]).outcome == "already"
    # A new wound there may be bound again.
    hurt = rb.procedures["wound"].run(defender=patient, location="Chest", damage=7,
                                      kind="Slashing", dice=[])
    assert aid.run(healer=healer, patient=hurt.combatants["defender"], location="Chest",
                   dice=[30]).outcome["healed"] == 1


def test_a_fumbled_first_aid_does_1_damage(rb):
    healer = make(rb, A, skills={"First Aid": 60})
    r = rb.procedures["first_aid"].run(healer=healer, patient=_wounded(rb), location="Chest",
                                       dice=[100])
    assert r.outcome["healed"] == -1
    assert r.combatants["patient"].general_damage == 6


def test_magical_healing_spends_magic_points(rb):
    # I2: "Magical healing can be used as much as MPs are available." POW 11 (CHOICE: 1 MP a
    # hit point).
    heal = rb.procedures["magical_healing"]
    caster = make(rb, A)
    r = heal.run(caster=caster, patient=_wounded(rb), location="Chest", points=4, dice=[])
    assert (r.outcome["healed"], r.combatants["caster"].magic_points) == (4, 7)
    assert heal.run(caster=caster, patient=_wounded(rb), location="Chest", points=12,
                    dice=[]).outcome == "too_few_magic_points"


@pytest.mark.parametrize("source, heals", [("Flesh wound", True), ("Fire", True), ("Acid", True),
                                           ("Drowning", False), ("Dehydration", False),
                                           ("Suffocation", False), ("Poison", False),
                                           ("Bleeding", False)])
def test_magic_heals_fire_and_acid_but_not_drowning_or_poison(rb, source, heals):
    # I2: "Magical healing in most cases can heal damage from fire and acid, but other damage
    # such as drowning, dehydration, suffocation, poison, bleeding, etc. must be healed
    # naturally (See below) or with Heal Body."
    r = rb.procedures["magical_healing"].run(caster=make(rb, A), patient=_wounded(rb),
                                             location="Chest", points=2, source=source, dice=[])
    assert r.outcome == ("healed" if heals else "not_by_magic")


def test_a_severed_part_is_healed_by_one_whole_casting_within_10_mr(rb):
    # I2: "Severed or pulverized locations must be COMPLETELY healed by ONE spellcasting within
    # 10 MR (1 minute)." An arm severed with 8 damage: 8 points restore it; 7 do not.
    severed = make(rb, D, location_damage={"Right arm": 8}, general_damage=8,
                   injuries={"Right arm": "Severed"}, heroic=True)
    heal = rb.procedures["magical_healing"]
    whole = heal.run(caster=make(rb, A), patient=severed, location="Right arm", points=8,
                     melee_rounds=10, dice=[])
    assert whole.outcome == "healed"
    assert whole.combatants["patient"].injuries == {"Right arm": "Healed"}
    assert heal.run(caster=make(rb, A), patient=severed, location="Right arm", points=7,
                    dice=[]).outcome == "lost"
    assert heal.run(caster=make(rb, A), patient=severed, location="Right arm", points=8,
                    melee_rounds=11, dice=[]).outcome == "lost"


def test_a_patient_in_shock_recovers_at_positive_hit_points_with_3_sr_penalty(rb):
    # I2: "Patients in shock or dying do not recover until the SR they reach positive location HP
    # or GHP, and then their actions have a 3SR penalty." Left arm maimed (8 of 4 HP).
    shocked = make(rb, D, location_damage={"Left arm": 8}, general_damage=8,
                   injuries={"Left arm": "Maimed"}, conditions={"In shock": True})
    heal = rb.procedures["magical_healing"]
    some = heal.run(caster=make(rb, A), patient=shocked, location="Left arm", points=4, dice=[])
    assert some.combatants["patient"].conditions == {"In shock": True}     # 4 - 4 = 0 HP
    enough = heal.run(caster=make(rb, A), patient=shocked, location="Left arm", points=5,
                      dice=[])
    patient = enough.combatants["patient"]
    assert (patient.conditions, patient.strike_rank_penalty) == ({"In shock": False}, 3)
    assert patient.strike_rank == 6 + 3
    after = rb.procedures["new_round"].run(combatant=patient).combatants["combatant"]
    assert after.strike_rank == 6


def test_regrowing_limbs_have_no_hit_points(rb):
    # I2: "People regrowing severed limbs have 0 limb HP (and these HP subtracted from GHP)
    # until they are fully healed." HP 15; an arm at 15 has 4.
    regrowing = make(rb, D, regrowing={"Right arm": True})
    assert regrowing.hit_points_left == 11


def test_divine_intervention_under_pow_plus_hero_points(rb):
    # I3: "roll 1d100 ... if under POW (+ HEP) then success. GM determines effects based o roll."
    di = rb.procedures["divine_intervention"]
    worshipper = make(rb, D)     # POW 10
    assert di.run(worshipper=worshipper, dice=[10]).outcome == "answered"
    assert di.run(worshipper=worshipper, dice=[11]).outcome == "unanswered"
    r = di.run(worshipper=worshipper, hero_points=5, dice=[15])
    assert (r.outcome.name, r.outcome["roll"]) == ("answered", 15)


@pytest.mark.parametrize("level, points", [("Fumble", -1), ("Failure", 0), ("Success", 1),
                                           ("Special", 2), ("Critical", 3),
                                           ("Hypercritical", 4), ("Ultracritical", 5)])
def test_natural_healing_by_level_of_success(rb, level, points):
    # I4: "with a CONx5% roll: -1 on fumble, 0 on failure, +1 on success, +2 on special, +3 on
    # critical." (CHOICE: 4 and 5 above.)
    assert rb.formulas["natural_healing_points"](level=level) == points


@pytest.mark.parametrize("source, hours", [("Bleeding", 24), ("Suffocation", 24),
                                           ("Drowning", 24), ("Flesh wound", 168),
                                           ("Poison", 168)])
def test_natural_healing_takes_a_day_or_a_week(rb, source, hours):
    # I4: "For ephemeral damage like bleeding, suffocation, drowing, recover in 24 hrs with a
    # CONx5% roll ... For major damage like flesh wounds, poison, etc., recover in 1 week".
    # CON 14 x 5 = 70: 03 is a critical (3).
    r = rb.procedures["natural_healing"].run(patient=_wounded(rb), location="Chest",
                                             source=source, dice=[3])
    assert (r.outcome["hours"], r.outcome["level"], r.outcome["healed"]) == (
        hours, "Critical", 3)


def test_disease_does_not_recover_naturally(rb):
    # I4: "Disease points do not recover without Restore Health magic."
    r = rb.procedures["natural_healing"].run(patient=_wounded(rb), location="Chest",
                                             source="Disease", dice=[])
    assert r.outcome == "never"


# ---- J: experience checks --------------------------------------------------------------------

def test_a_successful_parry_earns_a_check_even_against_a_miss(rb):
    # J: "You get attack/parry/dodge checks if you survive a combat and used those skills
    # successfully, even if your opponent missed and you parried".
    r = attack(rb, dice=[70, 30], defence="Parry")
    assert r.outcome == "missed"
    assert r.combatants["defender"].combat_checks == {"Parry": True}
    assert r.combatants["attacker"].combat_checks == {}


def test_an_attack_that_fails_to_penetrate_still_earns_a_check(rb):
    # J: "or if your attack failed to penetrate armor". 2 + 1 = 3 on the chest's 5.
    r = attack(rb, dice=[30, 1, 2, 2], defence="No defence")
    assert (r.outcome["penetrating"], r.combatants["attacker"].combat_checks) == (
        0, {"Attack": True})


def test_checks_are_kept_only_by_survivors_who_did_not_turn_heroic(rb):
    # J: "BUT if you died or became Heroic from shock you gain no checks from that episode, and
    # dead/resurrected characters lose any checks they were waiting to roll for."
    end = rb.procedures["end_of_combat"]
    earned = dict(combat_checks={"Attack": True, "Dodge": True}, checks={"Parry": True})
    survivor = end.run(adventurer=make(rb, A, **earned)).combatants["adventurer"]
    assert survivor.checks == {"Attack": True, "Dodge": True, "Parry": True}
    heroic = end.run(adventurer=make(rb, A, heroic=True, **earned))
    assert heroic.outcome == "heroic"
    assert {k for k, v in heroic.combatants["adventurer"].checks.items() if v} == {"Parry"}
    dead = end.run(adventurer=make(rb, A, general_damage=13, **earned))
    assert dead.outcome == "died"
    assert not any(dead.combatants["adventurer"].checks.values())


# ---- the rulebook as a whole -----------------------------------------------------------------

def test_a_plain_melee_attack_has_exact_odds(rb):
    # Without a defence or a choice, every path ends: the odds of the outcomes sum to one.
    weak = make(rb, A, weapon="Dagger", attacks={"Dagger": 60})
    odds = rb.procedures["melee_attack"].odds(attacker=weak, defender=make(rb, D),
                                              defence="No defence", combat_choice="Other")
    assert odds == {"hit": Fraction(60, 100), "missed": Fraction(38, 100),
                    "fumbled": Fraction(2, 100)}
