"""Ringing Steel, part IV: unarmed combat, the whip and the net, played with scripted dice.

Seed: shared/seeds/002_41f740bb26c2da28.txt, lines 207-253 (Unarmed Combat), 339-357 (Whip,
Net), 25-31 (knocked down). Every figure worked out by hand from the fighters below.

  boxer      Str 12 Dex 12, Training Hand 5, Standard armour: skill 5.4; hand AP 16, PS 33,
             PC 26, BS 12 + 5.4 - 6 + 2 (arms 8) = 13; ADF 26, PDF 13; walk 6.
  swordsman  Str 12 Dex 12, Training Sword 5, Standard: AP 10, PS 27, PC 32, BS 16, speed 14,
             PDF 13; no unarmed skill: hand AP 0, hand PS 12.
"""

from __future__ import annotations

import pytest

import rulecraft


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


def fighter(rb, weapon, armour="Standard", **kw):
    base = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                training={weapon: 5}, weapon=weapon, armour=armour)
    return rb.combatant(**{**base, **kw})


def run(rb, name, dice, **kw):
    return rb.procedures[name].run(dice=dice, **kw)


# ---- hand parries, parried punches and kicks ------------------------------------------------

def test_a_hand_parry_takes_the_blow_less_the_excess_on_the_arm(rb):
    # "the attacking blow strength is reduced by adding the excess, which will be negative, and
    # then treated as an excess zero hit to the parrying arm". Str 20 sword: BS 24. d20 10:
    # excess 10 + 10 - 26 (PC) = -6; 24 - 6 = 18, less arm armour 8 = 10; DF round(10/4) = 3
    # (halves up): Arm 3 = Wound, 4 fatigue points.
    r = run(rb, "melee_attack", [10], attacker=fighter(rb, "Sword", strength=20),
            defender=fighter(rb, "Hand"), defence="Parry")
    assert (r.outcome, r.outcome["defence_potential"], r.outcome["excess"]) == ("parried", 26, -6)
    boxer = r.combatants["defender"]
    assert boxer.injuries == {"Arm": ("Wound",)}
    assert boxer.fatigue == 4


def test_a_hand_parry_of_no_blow_strength_left_does_no_damage(rb):
    # "except that a zero or negative blow strength does no damage": Str 8 sword, BS 12; d20 5:
    # excess 10 + 5 - 26 = -11; 12 - 11 = 1, less 8 armour: nothing.
    r = run(rb, "melee_attack", [5], attacker=fighter(rb, "Sword", strength=8),
            defender=fighter(rb, "Hand"), defence="Parry")
    assert r.outcome == "parried"
    assert r.combatants["defender"].injuries == {}
    limb = next(e for e in r.trace if e.kind == "return" and e.name == "parrying_arm")
    assert (limb.value, limb.value["effective_blow_strength"]) == ("unhurt", -7)


def test_a_parried_punch_hurts_the_puncher(rb):
    # "the attacker suffers damage from an excess zero hit with blow strength given by attacker's
    # blow strength - 2*attacker's skill - excess for parried attack." Boxer in no armour: skill
    # 12/4 x ln 6 x 1.3 = 6.99 -> 7.0, AP 21, BS 12 + 7 - 6 = 13. d20 2: 21 + 2 - 27 (PS) = -4;
    # 13 - 14 + 4 = 3 on the bare arm: DF round(0.75) = 1, a Bruise.
    r = run(rb, "melee_attack", [2], attacker=fighter(rb, "Hand", "None"),
            defender=fighter(rb, "Sword"), defence="Parry")
    assert (r.outcome, r.outcome["excess"]) == ("parried", -4)
    assert r.combatants["attacker"].injuries == {"Arm": ("Bruise",)}
    assert r.combatants["defender"].injuries == {}  # a sword parries, not a hand


def test_a_parried_kick_hurts_the_leg(rb):
    # Kicker in no armour: skill 7.0, AP floor(16.8) = 16, BS 12 + 7 - 4 = 15. d20 10: excess
    # 16 + 10 - 27 = -1; 15 - 14 + 1 = 2: DF round(0.5) = 1: Leg, Bruise.
    r = run(rb, "melee_attack", [10], attacker=fighter(rb, "Foot", "None"),
            defender=fighter(rb, "Sword"), defence="Parry")
    assert r.combatants["attacker"].injuries == {"Leg": ("Bruise",)}


def test_a_kick_finds_its_location_on_the_medium_stab_column(rb):
    # "The medium stab hit location table is used in the case of kicks": d10 9 is R Leg there
    # (Abdomen on short/stab). Kicker, Standard: AP floor(5.4 x 2.4) = 12, BS 13.4 -> 13; d20 15:
    # excess 12 + 15 - 13 (PDF) = 14; leg armour 0: DF round(27/4) = 7: Leg 7 = Wound.
    r = run(rb, "melee_attack", [15, 9], attacker=fighter(rb, "Foot"),
            defender=fighter(rb, "Sword"))
    o = r.outcome
    assert (o, o["location"], o["effective_blow_strength"], o["damage_factor"], o["wound"]) == (
        "hit", "R Leg", 13, 7, "Wound")


# ---- the net ---------------------------------------------------------------------------------

def test_a_net_entangles_without_a_location_and_he_frees_himself(rb):
    # "Hit location is not determined"; "It will take the opponent 10 + attack excess tenths to
    # free himself"; "If he chooses to ignore the net and fight entangled, times for all actions
    # are increased by five, and all attack potentials and defense potentials are decreased
    # by 3." Net AP floor(5.4 x 2.6) = 14; d20 9: excess 14 + 9 - 13 = 10.
    r = run(rb, "melee_attack", [9], attacker=fighter(rb, "Net"),
            defender=fighter(rb, "Sword"))
    o = r.outcome
    assert (o, o["location"], o["wrapped"], o["excess"]) == ("entangled", None, True, 10)
    caught = r.combatants["defender"]
    assert (caught.entangled, caught.entangle_excess) == ("Net", 10)
    assert (caught.anti_parry, caught.parry_cut, caught.base_speed, caught.walk) == (7, 29, 19, 11)
    assert caught.injuries == {}
    # ... then frees himself: 10 + 10 tenths (his own entanglement no longer counts).
    freed = run(rb, "free_himself", [], fighter=caught)
    assert (freed.outcome, freed.outcome["time"]) == ("freed", 20)
    after = freed.combatants["fighter"]
    assert (after.entangled, after.anti_parry, after.base_speed) == ("Nothing", 10, 14)
    again = run(rb, "free_himself", [], fighter=after)
    assert again.outcome == "not_entangled"


# ---- the whip --------------------------------------------------------------------------------

def test_a_whip_lash_round_an_arm_is_released_and_entangles(rb):
    # "if they hit a limb or a shoulder then the whip is wrapped around the opponent's limb";
    # "release the whip, which takes one tenth"; "a modifier of one is added all his actions,
    # and all his attack and defence potentials are reduced by one. This lasts for 10 x ( attack
    # excess + 1 ) tenths". Whip AP 14; d20 9: excess 10; d10 3 on med/stab: R Arm.
    r = run(rb, "melee_attack", [9, 3], attacker=fighter(rb, "Whip"),
            defender=fighter(rb, "Sword"), whip_attack="Entangle", whip_hold="Release")
    o = r.outcome
    assert (o, o["location"], o["wrapped"]) == ("entangled", "R Arm", True)
    caught = r.combatants["defender"]
    assert (caught.entangled, caught.anti_parry, caught.base_speed) == ("Whip", 9, 15)
    tangle = next(e for e in r.trace if e.kind == "return" and e.name == "tangle")
    assert tangle.value["lasts"] == 110
    assert caught.injuries == {}


def test_a_whip_lash_to_the_head_does_not_wrap(rb):
    r = run(rb, "melee_attack", [9, 1], attacker=fighter(rb, "Whip"),
            defender=fighter(rb, "Sword"), whip_attack="Entangle")
    assert (r.outcome, r.outcome["wrapped"]) == ("entangled", False)
    assert r.combatants["defender"].entangled == "Nothing"


def test_a_whip_strikes_on_the_medium_stab_column(rb):
    # "used for normal attacks as a long range weapon, with hit location determined as for a
    # medium range stabbing weapon": d10 7 is Abdomen on med/stab (Chest on med/cut).
    r = run(rb, "melee_attack", [9, 7], attacker=fighter(rb, "Whip"),
            defender=fighter(rb, "Sword"))
    assert (r.outcome, r.outcome["location"]) == ("hit", "Abdomen")


@pytest.mark.parametrize("release, dice, outcome", [
    # DN 5 + 3 = 8 tenths <= the whip's Base Speed 20 - 5.4 + 4 = 18.6 -> 18: released in time
    (True, [], "cancelled"),
    # not releasing: the pull is a throw: whip AP 14 vs PDF 13, d20 1 fails
    (False, [1], "pulled"),
])
def test_pulling_down_with_the_whip(rb, release, dice, outcome):
    r = run(rb, "whip_pull", dice, attacker=fighter(rb, "Whip"), defender=fighter(rb, "Sword"),
            wrap_excess=3, release=release)
    assert r.outcome == outcome


# ---- knocked down (one procedure with the knock-back part's: `knocked_down(combatant, bash)`;
# its dice: the fall's d6 direction, the d10 reaction, the d20 landing, a critical's d10, the
# d10 location; the damage factor it reports is the one reduced by one) ---------------------

def test_a_fall_lands_well_on_a_one(rb):
    # "A roll of 1 indicates that the combatant has landed well and suffers no damage"; getting
    # up "reduced to 2" walk moves.
    s = fighter(rb, "Sword")
    r = run(rb, "knocked_down", [4, 5, 1], combatant=s, bash_score=20)
    assert (r.outcome, r.outcome["direction"], r.outcome["rise_time"]) == ("landed_well", "Right", 12)


def test_a_fall_hurts_with_a_damage_factor_one_less(rb):
    # d20 17: excess 17 - 13 = 4; d10 6 short/stab: Chest (armour 8); bash 20: 12 + 4 = 16 / 4 =
    # DF 4, "all other damage factors are reduced by one": 3, Chest L Wound.
    s = fighter(rb, "Sword")
    r = run(rb, "knocked_down", [6, 5, 17, 6], combatant=s, bash_score=20)
    o = r.outcome
    assert (o, o["excess"], o["location"], o["damage_factor"], o["wound"]) == (
        "injured", 4, "Chest", 3, "L Wound")
    assert r.combatants["combatant"].injuries == {"Chest": ("L Wound",)}
    assert o["rise_time"] == 18  # "Getting up takes 3 walk moves"


def test_a_fall_of_damage_factor_one_does_not_injure(rb):
    # d20 5: excess 5 - 13 < 0 -> 0; d10 1: Head (armour 8); bash 10: 2 / 4 -> DF 1 -> 0: none.
    s = fighter(rb, "Sword")
    r = run(rb, "knocked_down", [6, 5, 5, 1], combatant=s, bash_score=10)
    assert (r.outcome, r.outcome["excess"], r.outcome["damage_factor"]) == ("unhurt", 0, 0)


def test_a_critical_fall(rb):
    # 20: "treated for a critical hit": d10 3 added: 20 - 13 + 3 = 10; d10 8: Abdomen (8);
    # bash 18: (10 + 10) / 4 = 5 -> 4: Abdomen L Wound.
    s = fighter(rb, "Sword")
    r = run(rb, "knocked_down", [6, 5, 20, 3, 8], combatant=s, bash_score=18)
    o = r.outcome
    assert (o["excess"], o["location"], o["damage_factor"], o["wound"]) == (
        10, "Abdomen", 4, "L Wound")


# ---- who may strike a fallen man -------------------------------------------------------------

@pytest.mark.parametrize("weapon, expected", [
    ("Sword", True), ("Spear", True), ("Foot", True), ("Dagger", False), ("Hand", False),
    ("Shield", False), ("Pole arm", True)])
def test_attacks_the_fallen(rb, weapon, expected):
    # "may be attacked with any medium or long range weapon, or with a foot"
    assert rb.formulas["attacks_the_fallen"](weapon=weapon) is expected


# ---- grappling: conditions given within one run ------------------------------------------------

GRAPPLE = '''rulebook rs_grapple "Grapples, for the tests"
extends ringing_steel

procedure held "A grapple already under way" (attacker: fighter, defender: fighter, advantage: bool = true, ground: bool = false, then: name = "blow"):
  give attacker "Grappling"
  give defender "Grappling"
  if advantage:
    give attacker "Grapple advantage"
  else:
    give defender "Grapple advantage"
  if ground:
    give attacker "Ground grappling"
    give defender "Ground grappling"
  if then == "blow":
    call blow = grapple_blow(attacker, defender)
    outcome done "Done" with (result = blow, a_adv = has(attacker, "Grapple advantage"), d_adv = has(defender, "Grapple advantage"), grappling = has(attacker, "Grappling"))
  if then == "throw":
    call throw = grapple_throw(attacker, defender)
    outcome done "Done" with (result = throw, a_adv = has(attacker, "Grapple advantage"), d_adv = has(defender, "Grapple advantage"), grappling = has(attacker, "Grappling"), ground = has(defender, "Ground grappling"), down = has(defender, "On the ground"))
  call part = disengage(attacker, defender)
  outcome done "Done" with (result = part, a_adv = has(attacker, "Grapple advantage"), d_adv = has(defender, "Grapple advantage"), grappling = has(attacker, "Grappling"))
'''


@pytest.fixture(scope="module")
def gr():
    return rulecraft.compile(GRAPPLE, "rs_grapple.rules")


def held(gr, dice, **kw):
    base = dict(strength=12, dexterity=12, constitution=11, willpower=10, armour="Standard")
    boxer = gr.combatant(**base, training={"Hand": 5}, weapon="Hand")
    sword = gr.combatant(**base, training={"Sword": 5}, weapon="Sword")
    attacker = kw.pop("attacker", boxer)
    return gr.procedures["held"].run(dice=dice, attacker=attacker, defender=sword, **kw).outcome


def test_a_blow_in_a_grapple_adds_four_and_passes_the_advantage(gr):
    # "four is added to the attack potential for all attacks in a grapple": hand AP 16 + 4 vs
    # the swordsman's ADF 26; d20 7: 16 + 4 + 7 - 26 = 1, a hit (without the four, -3);
    # d10 6: Chest; his dodge d6 2, and the random hex both move to, d6 3.
    base = dict(strength=12, dexterity=12, constitution=11, willpower=10, armour="Standard")
    boxer = gr.combatant(**base, training={"Hand": 5}, weapon="Hand")
    sword = gr.combatant(**base, training={"Sword": 5}, weapon="Sword")
    r = gr.procedures["held"].run(dice=[7, 6, 2, 3], attacker=boxer, defender=sword,
                                  defence="Active Dodge")
    inner = [e.value for e in r.trace if e.kind == "return" and e.name == "blow"]
    assert [(v.name, v["excess"]) for v in inner if v.name == "hit"] == [("hit", 1)]
    o = r.outcome
    assert (o["result"], o["result"]["hex"], o["a_adv"], o["d_adv"]) == ("struck", 3, True, False)
    # d20 1: a critical miss: the advantage goes to the defender.
    o = held(gr, [1, 4])
    assert (o["a_adv"], o["d_adv"]) == (False, True)


def test_only_the_one_with_advantage_strikes_and_only_with_a_close_weapon(gr, rb):
    # "While grappling, only the combatant with advantage can attack"
    assert held(gr, [], advantage=False)["result"] == "refused"
    base = dict(strength=12, dexterity=12, constitution=11, willpower=10, armour="Standard")
    spear = gr.combatant(**base, training={"Spear": 5}, weapon="Spear")
    assert held(gr, [], attacker=spear)["result"] == "refused"


def test_a_dodge_in_a_grapple_moves_both_to_a_random_hex(gr):
    # "Only dodging and hand parries ... Movement due to dodging happens to both combatants ...
    # rolling a d6 to give a random adjacent hex": d20 3 (20 + 3 - 26 ADF: dodged), dodge d6 4,
    # the random hex d6 5. On the ground, "no movement results from dodges".
    o = held(gr, [3, 4, 5], defence="Active Dodge")
    assert (o["result"], o["result"]["hex"]) == ("struck", 5)
    o = held(gr, [3, 4], defence="Active Dodge", ground=True)
    assert o["result"]["hex"] is None


def test_a_throw_from_a_grapple_and_following_down(gr):
    # hand AP 16 vs PDF 13; d20 10: excess 13; the fall: d6 2, d10 5 (reaction), d20 1 (landed
    # well).
    o = held(gr, [10, 2, 5, 1], then="throw")
    assert (o["result"], o["result"]["thrown"], o["ground"], o["down"], o["grappling"]) == (
        "done", True, True, False, True)
    # not following: "the two combatants are considered disengaged"; he lies on the ground
    o = held(gr, [10, 2, 5, 1], then="throw", follow_down=False)
    assert (o["grappling"], o["a_adv"], o["down"]) == (False, False, True)
    # "no throws are possible" on the ground; a failed throw
    assert held(gr, [], then="throw", ground=True)["result"]["thrown"] is False
    assert held(gr, [1], then="throw")["result"]["thrown"] is False


def test_disengaging(gr):
    # "against the opponent's active dodge ... The combatant with the advantage increases his
    # attack potential by five": 16 + 5 + d20 6 - 26 = 1: disengaged.
    o = held(gr, [6], then="part")
    assert (o["result"], o["grappling"], o["a_adv"]) == ("disengaged", False, False)
    assert o["result"]["rise_time"] == 0
    # without advantage, five less: 16 - 5 + 6 - 26 < 0: held
    assert held(gr, [6], then="part", advantage=False)["result"] == "held"
    # on the ground "the disengaging combatant takes one walk move to get up, while his opponent
    # takes two": walks of 6
    o = held(gr, [6], then="part", ground=True)
    assert (o["result"]["rise_time"], o["result"]["opponent_rise_time"]) == (6, 12)


def test_a_grab_and_its_miss(rb):
    b, s = fighter(rb, "Hand"), fighter(rb, "Sword")
    # "a punch with two added to the attack potential": 16 + 2 + d20 1 fails (critical 1)
    r = rb.procedures["grab"].run(dice=[1], attacker=b, defender=s)
    assert r.outcome == "missed"
    # a hand parry: the swordsman's hand PS 12 (no unarmed skill): 18 + 5 - 12 = 11
    r = rb.procedures["grab"].run(dice=[5], attacker=b, defender=s, defence="Parry")
    assert (r.outcome, r.outcome["excess"]) == ("grappling", 11)


def test_a_third_attacks_at_close_quarters(rb):
    # "If the attack misses, it is then treated as an attack on the other combatant": d20 2
    # misses the boxer (10 + 2 - 13), d20 9 hits the other (10 + 9 - 13 = 6), d10 6 Chest.
    s, b, o = fighter(rb, "Sword"), fighter(rb, "Hand"), fighter(rb, "Dagger")
    r = rb.procedures["close_quarters_attack"].run(dice=[2, 9, 6], attacker=s, target=b,
                                                   other=o)
    assert r.outcome == "hit_other"
    r = rb.procedures["close_quarters_attack"].run(dice=[12, 6], attacker=s, target=b, other=o)
    assert r.outcome == "hit_target"
    r = rb.procedures["close_quarters_attack"].run(dice=[2, 1, 5], attacker=s, target=b,
                                                   other=o)
    assert r.outcome == "missed"


def test_the_whip_held_for_a_pull(rb):
    r = rb.procedures["melee_attack"].run(dice=[9, 3], attacker=fighter(rb, "Whip"),
                                          defender=fighter(rb, "Sword"),
                                          whip_attack="Entangle", whip_hold="Pull down")
    assert (r.outcome, r.outcome["wrapped"]) == ("entangled", True)
    assert r.combatants["defender"].entangled == "Nothing"  # held, not released


@pytest.mark.parametrize("dice, outcome, torn, entangled", [
    # swordsman AP 10, BS 16: d20 18: 10 + 18 - 25 = 3: DF round(19/4) = 5: "unaffected by a
    # damage factor of five or less"; the net, AP 14 vs PDF 13, d20 5: 6: entangled.
    ([18, 5], "entangled", False, "Net"),
    # d20 2: the disarm fails (-13); the net's d20 1 always fails.
    ([2, 1], "missed", False, "Nothing"),
])
def test_a_disarming_parry_against_a_net(rb, dice, outcome, torn, entangled):
    r = rb.procedures["net_disarming_parry"].run(dice=dice, attacker=fighter(rb, "Net"),
                                                 defender=fighter(rb, "Sword"))
    assert (r.outcome, r.outcome["torn"]) == (outcome, torn)
    assert r.combatants["defender"].entangled == entangled


def test_a_strong_parry_tears_the_net(rb):
    # Str 20 sword, BS 24: d20 17: 10 + 17 - 25 = 2: DF round(26/4) = 7 >= 6: "torn by one of six
    # or more"; "A torn net cannot be used in combat".
    r = rb.procedures["net_disarming_parry"].run(dice=[17, 15], attacker=fighter(rb, "Net"),
                                                 defender=fighter(rb, "Sword", strength=20))
    assert (r.outcome, r.outcome["disarm_excess"]) == ("torn_free", 2)
    assert r.combatants["attacker"].net_torn is True
    assert r.combatants["defender"].entangled == "Nothing"
