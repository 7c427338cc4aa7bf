"""Ringing Steel part IV: feints, hand switch, disarming, diving, pulling blows, armour types,
terrain and fatigue from every source.

Seed: shared/seeds/002_41f740bb26c2da28.txt, lines 155-206, 359-393 and 875-882. Fighters:
S, swordsman: Str 12, Dex 12, Sword 5, Standard: Skill 5.4, AP 10, PS 27, PC 32, BS 16, PDF 13,
  Base Speed 14, walk 6, run 3, FL 29, Willpower 10.
D, dagger: Str 10, Dex 14, Dagger 5, no armour: Skill 3.5 x ln 6 x 1.3 = 8.15 -> 8.2, AP 16,
  BS 10, Base Speed 20 - 8.2 - 3 - 3 = 5.8 -> 5, walk 5, run 3.
G, greatsword: Str 18, Dex 18, Greatsword 10, no armour: Skill 4.5 x ln 11 x 1.3 = 14.03 -> 14.0,
  AP 14 x 1.6 = 22, BS 27 + 7 = 34.
W, weakling: S with Str 5: BS 9, PC 32.
"""

import pytest

import rulecraft


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


S = dict(strength=12, dexterity=12, constitution=11, willpower=10, training={"Sword": 5},
         weapon="Sword", armour="Standard")
D = dict(strength=10, dexterity=14, constitution=10, willpower=10, training={"Dagger": 5},
         weapon="Dagger", armour="None")
G = dict(strength=18, dexterity=18, constitution=12, willpower=12, training={"Greatsword": 10},
         weapon="Greatsword", armour="None")
W = dict(S, strength=5)


def run(rb, name, **kw):
    return rb.procedures[name].run(**kw)


# ---- feints --------------------------------------------------------------------------------

def test_feint_detected(rb):
    # "The detector's skill less his opponent's skill plus a d10 roll ... seven or less then the
    # feint is detected": S detects D: 5.4 - 8.2 + 9 = 6.2 <= 7. "The action takes a time equal
    # to two walk moves, with the feinting move occurring after half the time": 2 x 5 = 10, at 5.
    r = run(rb, "feint", feinter=rb.combatant(**D), target=rb.combatant(**S), detect=True, dice=[9])
    o = r.outcome
    assert o == "detected" and o["detection"]["result"] == pytest.approx(6.2)
    assert (o["action_time"], o["feint_at"], o["real_move"]) == (10, 5, "Front right")


def test_feint_not_detected_and_reaction(rb):
    # D detects S: 8.2 - 5.4 + 5 = 7.8 > 7: not detected; S... here S feints, D changes his action:
    # "he must make a reaction roll": max(1, 6 - 8.2) = 1.
    r = run(rb, "feint", feinter=rb.combatant(**S), target=rb.combatant(**D), detect=True,
            react=True, dice=[5, 6])
    o = r.outcome
    assert o == "undetected" and o["reaction"] == 1 and o["action_time"] == 12


def test_feint_detection_boundary(rb):
    f = rb.formulas["feint_detected"]
    assert f(detector=5, feinter=5, roll=7) is True    # "seven or less"
    assert f(detector=5, feinter=5, roll=8) is False


# ---- hand switch ---------------------------------------------------------------------------

def test_hand_switch_only_short_single_handed(rb):
    # "A combatant using one, short, single-handed weapon may switch it"
    assert run(rb, "hand_switch", switcher=rb.combatant(**S), dice=[]).outcome == "not_allowed"
    r = run(rb, "hand_switch", switcher=rb.combatant(**D), dice=[])
    # "This takes l0 - skill tenths": 10 - 8.2 = 1.8.
    assert r.outcome == "switched" and r.outcome["switch_time"] == pytest.approx(1.8)
    assert r.combatants["switcher"].weapon_in_left is True


def test_blow_with_a_switch_adds_two_unless_detected(rb):
    # D (AP 16) against S passive (PDF 13): d20 4: 16 + 2 + 4 - 13 = 9.
    r = run(rb, "blow_with_hand_switch", attacker=rb.combatant(**D), defender=rb.combatant(**S),
            dice=[4, 1])
    assert r.outcome["attack_bonus"] == 2 and r.outcome["blow"]["excess"] == 9
    # Detected (S: 5.4 - 8.2 + 1 = -1.8 <= 7): "A detected switch is treated as a normal attack".
    r = run(rb, "blow_with_hand_switch", attacker=rb.combatant(**D), defender=rb.combatant(**S),
            detect=True, dice=[1, 4, 1])
    assert r.outcome["detected"] is True and r.outcome["blow"]["excess"] == 7


# ---- disarming and breaking ----------------------------------------------------------------

def test_disarm_against_a_dodge_misses(rb):
    # "If the opponent chooses to dodge the attack then it automatically misses except for
    # critical roll 20": G (AP 22) vs S dodging (ADF 26): d20 19, excess 15, yet a miss.
    r = run(rb, "disarm_attack", attacker=rb.combatant(**G), defender=rb.combatant(**S),
            defence="Active Dodge", dice=[19, 3])
    assert r.outcome == "dodged" and r.outcome["blow"] == "dodged"
    assert r.combatants["defender"].injuries == {}
    # A 20 "is treated as if the attack had been to hit".
    r = run(rb, "disarm_attack", attacker=rb.combatant(**G), defender=rb.combatant(**S),
            defence="Active Dodge", dice=[20, 1, 6, 3])
    assert r.outcome["blow"] == "hit"


def test_disarm_by_attack_branches(rb):
    # G (AP 22, BS 34) against W parrying with his sword (PC 32, BS 9): effective BS 25.
    def attempt(dice):
        return run(rb, "disarm_attack", attacker=rb.combatant(**G), defender=rb.combatant(**W),
                   defence="Parry", dice=dice)
    # d20 9: 22 + 9 - 32 = -1: parried; Bash 34 - 9 - 1 = 24 > 10: W knocked over (d6 1,
    # reaction d10 1, landing d20 1).
    r = attempt([9, 1, 1, 1])
    assert r.outcome == "parried" and r.outcome["bash_score"] == 24
    assert r.outcome["knock"] == "knocked_over"
    # d20 10: excess 0, damage category round(25/4) = 6: "four or better then the opponent is
    # disarmed"; the dropped weapon's d10 is 7.
    r = attempt([10, 7, 1, 1, 1])
    o = r.outcome
    assert o == "disarmed" and (o["damage_category"], o["landing_roll"]) == (6, 7)
    assert r.combatants["defender"].disarmed is True
    # d20 19: excess 9, round(34/4) = 9 (halves up): "nine or better the weapon breaks".
    r = attempt([19, 1, 1, 1])
    assert r.outcome == "broken" and r.outcome["damage_category"] == 9
    assert r.combatants["defender"].weapon_broken is True
    # "Critical roll 20 always breaks the weapon" (S vs S: eBS 0, excess 10 + 20 - 32 = -2).
    r = run(rb, "disarm_attack", attacker=rb.combatant(**S), defender=rb.combatant(**S),
            defence="Parry", dice=[20])
    assert r.outcome == "broken"
    # "critical roll 1 ... treated normally": d10 5 + 2 = 7 tenths.
    r = attempt([1, 5])
    assert r.outcome == "critical_miss" and r.outcome["attacker_dead_time"] == 7


def test_disarm_held(rb):
    # S (AP 10, BS 16) against W (PC 32, BS 9): d20 19: excess -3: parried (bash 16-9-3 = 4:
    # W back one hex, d6 1 -> Back column 1 = Left).
    r = run(rb, "disarm_attack", attacker=rb.combatant(**S), defender=rb.combatant(**W),
            defence="Parry", dice=[19, 1])
    assert r.outcome == "parried" and r.outcome["knock"] == "defender_back"
    # D (AP 16, BS 10, a dagger stabs) against W's Parry-Stab 27: d20 17: excess 6; eBS 1:
    # round(7/4) = 2: below four: held. Bash 10 - 9 + 6 = 7: W back two hexes (d6 6 -> Back).
    r = run(rb, "disarm_attack", attacker=rb.combatant(**D), defender=rb.combatant(**W),
            defence="Parry", dice=[17, 6])
    assert r.outcome == "held" and (r.outcome["excess"], r.outcome["damage_category"]) == (6, 2)
    assert r.outcome["bash_score"] == 7
    assert (r.outcome["knock"]["direction"], r.outcome["knock"]["hexes"]) == ("Back", 2)


def test_disarming_parry_sequence(rb):
    # "An attack to disarm is made to prepare ... The next time the combatant attempts to parry
    # and is successful an attack to parry is considered to take place ... the opponent being
    # forced to parry ... After each attempt ... the weapon must be re-prepared".
    g = run(rb, "prepare_disarm", combatant=rb.combatant(**G), dice=[])
    assert g.outcome["time"] == 7
    g = g.combatants["combatant"]
    # W attacks G, who parries (PC 55): d20 10, 10 + 10 - 55: parried. Then G's disarm: d20 10,
    # 22 + 10 - 32 = 0, eBS 25, round(25/4) = 6: disarmed; landing d10 4; bash 25: W knocked
    # over (d6 1, reaction 1, landing 1).
    r = run(rb, "disarming_parry", parrier=g, attacker=rb.combatant(**W), defence="Parry",
            dice=[10, 10, 4, 1, 1, 1])
    assert r.outcome == "disarm_tried" and r.outcome["disarm"] == "disarmed"
    assert r.combatants["attacker"].disarmed is True
    assert r.combatants["parrier"].disarm_ready is False
    # Not prepared again: an ordinary parry.
    r = run(rb, "disarming_parry", parrier=r.combatants["parrier"], attacker=rb.combatant(**W),
            defence="Parry", dice=[10])
    assert r.outcome == "not_ready"


# ---- diving attack, pulling blows ------------------------------------------------------------

def test_diving_attack(rb):
    # "The time for the action is Base Speed + Run Move Rate - 5 tenths": D 5 + 3 - 5 = 3.
    # "5 added to the attack potential and 6 to the blow strength. Hit location is determined as
    # for a short, stabbing weapon": D vs S passive: 16 + 5 + 2 - 13 = 10; d10 6 short/stab
    # Chest, armour 8; eBS 10 + 6 - 8 = 8: DF round(18/4) = 5 (halves up): Chest Wound.
    r = run(rb, "diving_attack", attacker=rb.combatant(**D), defender=rb.combatant(**S), dice=[2, 6])
    o = r.outcome
    assert o == "dived" and o["dive_time"] == 3 and o["rise_time"] == 15
    b = o["blow"]
    assert (b["excess"], b["location"], b["effective_blow_strength"], b["wound"]) == (
        10, "Chest", 8, "Wound")
    # "A combatant using a short or medium range weapon ... only possible if ... already running"
    assert run(rb, "diving_attack", attacker=rb.combatant(**G), defender=rb.combatant(**S),
               dice=[]).outcome == "not_allowed"
    assert run(rb, "diving_attack", attacker=rb.combatant(**D), defender=rb.combatant(**S),
               running=False, dice=[]).outcome == "not_allowed"


def test_a_dive_is_parried_as_a_stab(rb):
    # "if the opponent parries the attack is treated as coming from a stabbing weapon": S's
    # Parry-Stab 27, not his Parry-Cut 32 (D's dagger stabs anyway; a sword diver shows it).
    sword_diver = dict(S, weapon="Sword")
    r = run(rb, "diving_attack", attacker=rb.combatant(**sword_diver), defender=rb.combatant(**S),
            defence="Parry", dice=[2])
    assert r.outcome["blow"]["defence_potential"] == 27


def test_pulling_blows(rb):
    # "reduce his blow strength by any amount up to his skill": S's skill 5.4 allows 5, not 6.
    assert run(rb, "pulled_blow", attacker=rb.combatant(**S), defender=rb.combatant(**S),
               pull=6, dice=[]).outcome == "too_much"
    # S vs S passive: d20 10: excess 7, d10 6 Chest, eBS 16 - 5 - 8 = 3: DF round(10/4) = 3
    # (halves up): Chest L Wound (unpulled: round(15/4) = 4, L Wound too; d10 1 Head shows it).
    r = run(rb, "pulled_blow", attacker=rb.combatant(**S), defender=rb.combatant(**S), pull=5,
            dice=[10, 6])
    assert (r.outcome["blow"]["effective_blow_strength"], r.outcome["blow"]["damage_factor"]) == (3, 3)


def test_shield_covers_the_passive_defence(rb):
    # "his passive defence factor is increased by 5"
    shielded = dict(S, training={"Sword": 5, "Shield": 5}, shield=True)
    r = run(rb, "melee_attack", attacker=rb.combatant(**S), defender=rb.combatant(**shielded),
            shield_covers=True, dice=[2])
    assert r.outcome["defence_potential"] == 18
    r = run(rb, "melee_attack", attacker=rb.combatant(**S), defender=rb.combatant(**S),
            shield_covers=True, dice=[2])
    assert r.outcome["defence_potential"] == 13


# ---- armour types ----------------------------------------------------------------------------

def test_standard_armour_totals(rb):
    total = rb.formulas["armour_total"]
    # Armour Table rows summed (Head, Shoulder, Arm, Chest, Abdomen, Leg).
    assert [total(suit=a) for a in ("None", "Protection", "Standard", "Heavy", "Full")] == [
        0, 13, 40, 48, 90]


def test_non_standard_armour(rb):
    # "the nearest standard total above or equal to that chosen is taken"
    f = rb.formulas["effective_armour"]
    assert f(head=8, shoulder=8, arm=8, chest=8, abdomen=8, leg=0) == "Standard"   # 40
    assert f(head=8, shoulder=8, arm=8, chest=8, abdomen=8, leg=1) == "Heavy"      # 41
    assert f(head=15, shoulder=15, arm=15, chest=15, abdomen=15, leg=15) == "Full"
    assert f(head=0, shoulder=0, arm=0, chest=0, abdomen=0, leg=0) == "None"


# ---- terrain ---------------------------------------------------------------------------------

@pytest.mark.parametrize("rate, ground, added", [
    (3, "Firm", 0),
    (5, "Soft", 1), (6, "Soft", 2),               # "five or less ... by one and all others by two"
    (3, "Muddy", 1), (4, "Muddy", 2), (7, "Muddy", 2), (8, "Muddy", 3),
    (2, "Difficult", 2), (3, "Difficult", 2),     # CHOICE: three with "less than three"
    (4, "Difficult", 3), (7, "Difficult", 3), (8, "Difficult", 4), (10, "Difficult", 4),
])
def test_ground_table(rb, rate, ground, added):
    assert rb.tables["ground_move"].lookup(rate, ground) == added
    assert rb.formulas["ground_move_rate"](rate=rate, ground=ground) == rate + added


def test_height(rb):
    f = rb.formulas
    assert [f["height_bonus"](steps_above=s) for s in (0, 1, 5, 7)] == [0, 1, 5, 5]
    assert f["attack_possible_at_height"](steps=5) and not f["attack_possible_at_height"](steps=6)
    assert f["reach_at_height"](range="Long", steps=3) == "Medium"
    assert f["reach_at_height"](range="Medium", steps=5) == "Short"
    assert f["reach_at_height"](range="Long", steps=2) == "Long"
    assert f["slope_steps"](ground="Muddy", uphill=True) == 1
    assert f["slope_steps"](ground="Soft", uphill=True) == 0
    assert f["climb_time"](steps=2, move_rate=6) == 12


def test_height_hit_location(rb):
    # "if the height difference is 2 steps the top combatant has hit location determined from
    # 1 to 6, and the lower one has from 5 to 10."
    up = run(rb, "height_hit_location", attacker=rb.combatant(**S), steps_above=2, dice=[6])
    assert (up.outcome["sides"], up.outcome["location_roll"]) == (6, 6)
    down = run(rb, "height_hit_location", attacker=rb.combatant(**S), steps_above=-2, dice=[1])
    assert down.outcome["location_roll"] == 5 and down.outcome["location"] == "L Arm"
    odds = rb.procedures["height_hit_location"].odds(by="location_roll",
                                                     attacker=rb.combatant(**S), steps_above=-2)
    assert sorted(odds) == [5, 6, 7, 8, 9, 10]


def test_obstacles_and_cover(rb):
    # "with a cutting weapon, then base speed is increased by one for each obstacle, and blow
    # strength decreased similarily."
    f = rb.formulas
    assert f["obstacle_speed"](weapon="Sword", obstacles=2) == 2
    assert f["obstacle_speed"](weapon="Dagger", obstacles=2) == 0
    assert f["obstacle_blow"](weapon="Battleaxe", obstacles=1) == 1
    assert f["target_visible"](cover="Soft") and not f["target_visible"](cover="Hard")
    assert not f["target_visible"](cover="No cover", combatant_between=True)


# ---- fatigue from every source: a sequence ---------------------------------------------------

def test_fatigue_past_the_limit_and_recovery(rb):
    # S: Fatigue Limit 12 + 11 + 6 = 29. "Making an attack" 1 point.
    s = rb.combatant(**S, fatigue=27)
    r = run(rb, "activity_fatigue", combatant=s, activity="Making an attack", dice=[])
    assert r.outcome["taken"] == "tired" and r.combatants["combatant"].fatigue == 28
    # Two more: 30 >= 29: "Saving Throw against Will Power, the latter being reduced by one for
    # every point taken over the Limit": 10 - 1 = 9; 3d6 = 9 made, then 10 failed.
    r = run(rb, "take_fatigue", combatant=r.combatants["combatant"], points=2, dice=[3, 3, 3])
    assert r.outcome == "held_on" and r.outcome["save"]["needed"] == 9
    r = run(rb, "take_fatigue", combatant=r.combatants["combatant"], points=1, dice=[4, 3, 3])
    assert r.outcome == "passed_out" and r.outcome["save"]["needed"] == 8
    # Recovery: "one per twenty tenths ... a maximum equal to a combatant's Constitution".
    tired = rb.combatant(**S, fatigue=20, fatigue_recovered=9)
    r = run(rb, "recover_fatigue", combatant=tired, tenths=100, dice=[])
    assert (r.outcome["points"], r.outcome["fatigue"]) == (2, 18)
    assert r.combatants["combatant"].fatigue_recovered == 11
    r = run(rb, "recover_fatigue", combatant=r.combatants["combatant"], tenths=100, dice=[])
    assert r.outcome["points"] == 0
