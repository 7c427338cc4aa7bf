"""Ringing Steel part IV: knock back, knocked-down combatants and falls, damage to armour and shields.

Seed: shared/seeds/002_41f740bb26c2da28.txt, lines 7-32 and 200-206. Fighters as in
tests/test_rs_melee.py:
S, swordsman: Str 12, Sword (Cut, Medium) BS 16, AP 10, PS 27, PC 32, PDF 13, walk 6, Standard
  armour (8 everywhere but the legs); with a shield (Training 5): shield Parry-Stab
  floor(5.4 x 3.4 + 12) = 30, Parry-Cut floor(5.4 x 3.0 + 16) = 32; shield BS 12 - 4 = 8.
P, spearman: Str 13, Spear (Stab, Long) two-handed BS 23, AP 10, PC 37, Light armour.
"""

import pytest

import rulecraft


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


S = dict(strength=12, dexterity=12, constitution=11, willpower=10, training={"Sword": 5},
         weapon="Sword", armour="Standard")
P = dict(strength=13, dexterity=11, constitution=12, willpower=9, training={"Spear": 6},
         weapon="Spear", armour="Light")
SHIELDED = dict(S, training={"Sword": 5, "Shield": 5}, shield=True)


def run(rb, name, **kw):
    return rb.procedures[name].run(**kw)


# ---- the Bash Score table --------------------------------------------------------------------

@pytest.mark.parametrize("score, effect", [
    (-99, "Attacker back one hex"),   # "below -10 Attacker must move back one hex."
    (-11, "Attacker back one hex"),
    (-10, "No knock back"),           # "-10 – 0 None."
    (0, "No knock back"),
    (1, "Defender back one hex"),     # "1 – 5 Defender must move back one hex."
    (5, "Defender back one hex"),
    (6, "Defender back two hexes"),   # "6 – 10 Defender must move back two hexes."
    (10, "Defender back two hexes"),
    (11, "Defender knocked over"),    # ">10 Defender knocked over."
    (99, "Defender knocked over"),
])
def test_bash_score_table(rb, score, effect):
    assert rb.tables["bash_table"].lookup(score) == effect


def test_bash_score_formulas(rb):
    f = rb.formulas
    # "the blow strength of the parrying weapon subtracted from that of the attacking weapon,
    # and the attack excess ... is added"; "When the parrying weapon is a shield, the Bash
    # Score is decreased by ten."
    assert f["parry_bash_score"](attack_strength=16, parry_strength=23, excess=-17) == -24
    assert f["parry_bash_score"](attack_strength=23, parry_strength=8, excess=-10, shield=True) == -5
    # "attacker's blow strength - armour reduction in area hit - defender's strength + attack excess"
    assert f["hit_bash_score"](attack_strength=23, protection=8, strength=12, excess=12) == 15


# ---- a blow and its knock back ---------------------------------------------------------------

def test_parried_blow_forces_the_attacker_back(rb):
    # S (BS 16) against P parrying with his spear (PC 37, BS 23): d20 10, excess 10 + 10 - 37 =
    # -17; Bash Score 16 - 23 - 17 = -24, "below -10 Attacker must move back one hex";
    # "directions ... as for dodging": bias Back, d6 3 -> Right; "walk back actions": WB 2*WF = 12.
    r = run(rb, "blow_with_knock_back", attacker=rb.combatant(**S), defender=rb.combatant(**P),
            defence="Parry", dice=[10, 3])
    o = r.outcome
    assert o["blow"] == "parried" and o["bash_score"] == -24
    k = o["knock"]
    assert k == "attacker_back"
    assert (k["direction"], k["hexes"], k["walk_back_time"]) == ("Right", 1, 12)


def test_a_hit_never_forces_the_attacker_back(rb):
    # "It is then treated as above, except the attacker is never forced back."
    r = run(rb, "knock_back", attacker=rb.combatant(**S), defender=rb.combatant(**P),
            bash_score=-20, hit=True, dice=[])
    assert r.outcome == "unmoved" and r.outcome["effect"] == "No knock back"


def test_defender_pushed_back_two_hexes(rb):
    r = run(rb, "knock_back", attacker=rb.combatant(**S), defender=rb.combatant(**P),
            bash_score=7, defender_bias="Left", dice=[2])
    o = r.outcome
    # dodge table, Left column: 1-3 Left; two walk-back moves of WF 6 each.
    assert o == "defender_back"
    assert (o["hexes"], o["direction"], o["walk_back_time"]) == (2, "Left", 24)


def test_knocked_back_into_an_obstacle_is_knocked_over(rb):
    # "In the case of knock backs, if an obstacle hex is given, the combatant is knocked over
    # instead." Bash 3 on P: d6 6 -> Back; the referee says it is a wall; the fall: d6 1 (Left),
    # reaction d10 1, landing d20 1 -> "landed well".
    r = run(rb, "knock_back", attacker=rb.combatant(**S), defender=rb.combatant(**P),
            bash_score=3, obstacle=True, dice=[6, 1, 1, 1])
    o = r.outcome
    assert o == "knocked_over" and o["fallen"] == "defender"
    assert o["fall"] == "landed_well"


def test_shield_parry_lessens_the_bash(rb):
    # P (BS 23, stab) against S parrying with his shield (PS 30 >= weapon's 27): d20 10, excess
    # 10 + 10 - 30 = -10; Bash 23 - 8 - 10 - 10 = -5: none. Shield: effective excess 0,
    # effective BS 23 - 15 = 8, damage factor round(8 / 4) = 2: not damaged.
    r = run(rb, "blow_with_knock_back", attacker=rb.combatant(**P),
            defender=rb.combatant(**SHIELDED), defence="Parry", dice=[10])
    o = r.outcome
    assert o["blow"] == "parried" and o["blow"]["with_shield"] is True
    assert o["bash_score"] == -5 and o["knock"] == "unmoved"
    assert r.combatants["defender"].shield_damage == 0


def test_a_heavy_hit_knocks_down_and_the_fall_hurts(rb):
    # P hits S (passive dodge 13): d20 15, excess 12; d10 6 long/stab Chest, armour 8; eBS 15,
    # DF round(27/4) = 7: Chest S Wound, and the armour there is damaged (DF six or more).
    # Bash 23 - 8 - 12 + 12 = 15 > 10: knocked over. The fall: d6 6 -> Back; reaction
    # max(1, 9 - 5.4) = 3.6; landing d20 17 - PDF 9 (13, -4 for the Serious Wound) = 8;
    # short/stab d10 7 Chest, armour 8 (damaged, not useless); blow strength 15 - 8 = 7;
    # DF round(15/4) = 4, "reduced by one" = 3: Chest L Wound. Getting up: 3 walks of
    # 6 + 8 (the Serious Wound's tenths) = 42.
    r = run(rb, "blow_with_knock_back", attacker=rb.combatant(**P), defender=rb.combatant(**S),
            dice=[15, 6, 6, 9, 17, 7])
    o = r.outcome
    assert o["blow"] == "hit" and o["blow"]["wound"] == "S Wound" and o["bash_score"] == 15
    fall = o["knock"]["fall"]
    assert fall == "injured"
    assert (fall["direction"], float(fall["reaction"]), fall["fall_time"], fall["rise_time"]) == (
        "Back", 3.6, 10, 42)
    assert (fall["location"], fall["protection"], fall["effective_blow_strength"],
            fall["excess"], fall["damage_factor"], fall["wound"]) == (
        "Chest", 8, 7, 8, 3, "L Wound")
    d = r.combatants["defender"]
    assert d.injuries == {"Chest": ("S Wound", "L Wound")}
    assert d.armour_damage == {"Chest": 1}


# ---- knocked down: every branch ---------------------------------------------------------------

def test_landing_well(rb):
    # "A roll of 1 indicates that the combatant has landed well and suffers no damage ...
    # Getting up takes 3 walk moves unless the roll on landing was 1 when this is reduced to 2."
    r = run(rb, "knocked_down", combatant=rb.combatant(**S), bash_score=20, dice=[4, 10, 1])
    o = r.outcome
    assert o == "landed_well" and o["rise_time"] == 12 and float(o["reaction"]) == 4.6
    assert r.combatants["combatant"].injuries == {}


def test_a_damage_factor_of_one_does_not_injure(rb):
    # bash 5, d20 10: excess 10 - 13 < 0 "treated as zero"; Chest armour 8: eBS -3,
    # DF max(1, round(-3/4)) = 1: "counted as not injuring".
    r = run(rb, "knocked_down", combatant=rb.combatant(**S), bash_score=5, dice=[1, 1, 10, 6])
    o = r.outcome
    assert o == "unhurt" and (o["excess"], o["damage_factor"], float(o["reaction"])) == (0, 0, 1)
    assert o["rise_time"] == 18


def test_a_critical_fall(rb):
    # "A roll of 20 indicates a critical fall and is treated for a critical hit": excess
    # 20 - 13 = 7, + d10 2 = 9; d10 1 Head, armour 8; eBS 12 - 8 = 4; DF round(13/4) = 3,
    # less one = 2: Head Bruise.
    r = run(rb, "knocked_down", combatant=rb.combatant(**S), bash_score=12, dice=[1, 1, 20, 2, 1])
    o = r.outcome
    assert o == "injured" and o["critical"] is True
    assert (o["excess"], o["location"], o["damage_factor"], o["wound"]) == (9, "Head", 2, "Bruise")
    assert r.combatants["combatant"].fatigue == 1


GROUND = """rulebook rs_ground "Knocked down, then attacked"
extends ringing_steel

procedure fallen_then_attacked "Knocked down, then attacked" (first: fighter, second: fighter):
  call fall = knocked_down(second, 5)
  call blow = melee_attack(first, second)
  outcome done "Done" with (blow = blow)

procedure fallen_up_then_attacked "Knocked down, up again, then attacked" (first: fighter, second: fighter):
  call fall = knocked_down(second, 5)
  call up = get_up(second, fall == "landed_well")
  call blow = melee_attack(first, second)
  outcome done "Done" with (blow = blow, rise_time = up.rise_time)
"""


def test_on_the_ground_no_active_defence(rb):
    # "When on the ground no active defence can be made." Knocked down (d6 1, reaction 1,
    # landing 10, location 6: unhurt), then attacked: a Parry is refused, a passive dodge made
    # (d20 2: 10 + 2 - 13 = -1, missed).
    ground = rulecraft.compile(GROUND)
    proc = ground.procedures["fallen_then_attacked"]
    with pytest.raises(rulecraft.RulecraftError, match="cannot choose 'Parry' for defence: the options are Passive Dodge, No Action"):
        proc.run(first=ground.combatant(**S), second=ground.combatant(**S), defence="Parry",
                 dice=[1, 1, 10, 6, 10])
    r = proc.run(first=ground.combatant(**S), second=ground.combatant(**S), dice=[1, 1, 10, 6, 2])
    assert r.outcome["blow"]["defence"] == "Passive Dodge"


def test_up_again_he_parries(rb):
    # "Getting up takes 3 walk moves unless the roll on landing was 1": landed well (d20 1),
    # up in 2 x 6 = 12 tenths, and then a Parry is his again (d20 2: 10 + 2 - 32, parried).
    ground = rulecraft.compile(GROUND)
    r = ground.procedures["fallen_up_then_attacked"].run(
        first=ground.combatant(**S), second=ground.combatant(**S), defence="Parry", dice=[1, 1, 1, 2])
    assert r.outcome["rise_time"] == 12
    assert r.outcome["blow"] == "parried" and r.outcome["blow"]["defence"] == "Parry"


def test_getting_up(rb):
    # "RI Rise 3*WF"; "reduced to 2" after landing well.
    for landed_well, tenths in ((False, 18), (True, 12)):
        r = run(rb, "get_up", combatant=rb.combatant(**S), landed_well=landed_well, dice=[])
        assert r.outcome["rise_time"] == tenths


# ---- damage to armour and shields: a sequence ------------------------------------------------

def test_armour_damaged_then_useless(rb):
    # "injury with damage factor six or higher, his armour in that location is damaged ... if
    # another such injury is received in that location then that piece of armour is rendered
    # useless. ... damage factor nine or higher ... rendered immediately useless."
    s = rb.combatant(**S)
    r = run(rb, "wear_armour", combatant=s, area="Chest", damage_factor=5, dice=[])
    assert r.outcome == "sound"
    r = run(rb, "wear_armour", combatant=r.combatants["combatant"], area="Chest", damage_factor=6, dice=[])
    assert r.outcome == "damaged"
    r = run(rb, "wear_armour", combatant=r.combatants["combatant"], area="Chest", damage_factor=6, dice=[])
    assert r.outcome == "useless"
    worn = r.combatants["combatant"]
    # The useless piece protects no more: S's Sword hits P's... here P hits S on the chest:
    # d20 15, excess 12, d10 6 Chest, protection 0, eBS 23, DF round(35/4) = 9: Disable.
    r = run(rb, "melee_attack", attacker=rb.combatant(**P), defender=worn, dice=[15, 6])
    assert (r.outcome["protection"], r.outcome["damage_factor"], r.outcome["wound"]) == (0, 9, "Disable")
    r = run(rb, "wear_armour", combatant=rb.combatant(**S), area="Head", damage_factor=9, dice=[])
    assert r.outcome == "useless" and r.combatants["combatant"].armour_damage == {"Head": 2}


@pytest.mark.parametrize("strength, excess, outcome, factor", [
    (16, -11, "sound", None),    # effective excess -1: "cannot be damaged"
    (16, -5, "sound", 2),        # ee 5, eBS 1: round(6/4) = 2
    (30, -2, "damaged", 6),      # ee 8, eBS 15: round(23/4) = 6
    (35, 5, "useless", 9),       # ee 15, eBS 20: round(35/4) = 9
])
def test_shield_damage(rb, strength, excess, outcome, factor):
    # "adding ten to the attack excess ... using a protection factor of 15 ... damaged by an
    # effective damage factor of six and rendered useless by an effective damage factor of nine"
    r = run(rb, "wear_shield", defender=rb.combatant(**SHIELDED), attack_strength=strength,
            excess=excess, dice=[])
    assert r.outcome == outcome and r.outcome["damage_factor"] == factor


def test_shield_damaged_twice_is_useless_and_parries_no_more(rb):
    d = rb.combatant(**SHIELDED)
    assert d.shield_parry_stab == 30
    for expected in ("damaged", "useless"):
        r = run(rb, "wear_shield", defender=d, attack_strength=30, excess=-2, dice=[])
        assert r.outcome == expected
        d = r.combatants["defender"]
    assert d.shield_damage == 2 and d.shield_parry_stab == 0
