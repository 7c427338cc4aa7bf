"""Ringing Steel part III, Missile Weapons, and part IV's guns, pinned against the seed.

Seed: shared/seeds/002_41f740bb26c2da28.txt, "Missile Weapons" (lines 394-524) and "Guns".
The archer used throughout: Dex 14, Longbow training 6, Light armour (factor 1.1, modifier -1).
  Skill = 14/4 x ln 7 x 1.1 = 7.49 -> 7.5      Accuracy = 2.0 x 7.5 + 0 = 15
  LT = 15 - 7.5 - 1 = 6.5 -> 6   AT = 20 - 7.5 - 1 = 11.5 -> 11   FT = 8 - 7.5 - 1 -> 1 (minimum)
  Base speed (drawing) = 20 - 7.5 - 1 + 1 = 12.5 -> 12      Blow strength 18
The target: the swordsman of test_rs_melee (Standard armour: 8 on every area but the leg; best
skill 5.4), ten hexes ahead of the archer.
"""

from fractions import Fraction

import pytest

import rulecraft


@pytest.fixture(scope="module")
def rb():
    return rulecraft.load("ringing_steel")


ARCHER = dict(strength=11, dexterity=14, constitution=11, willpower=10, training={"Dagger": 2},
              weapon="Dagger", armour="Light", missile="Longbow", missile_training=6)
SWORDSMAN = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                 training={"Sword": 5}, weapon="Sword", armour="Standard")


def archer(rb, **more):
    return rb.combatant(**{**ARCHER, **more})


def swordsman(rb, **more):
    return rb.combatant(**{**SWORDSMAN, "at": (10, 0), **more})


# ---- the tables, cell by cell against the seed ------------------------------------------------
def test_missiles_table_first_last_and_gun_rows(rb):
    t = rb.tables["missiles"]
    # "Shortbow 2.2 -1 15 4 15 20 8 0"
    row = t.lookup("Shortbow")
    assert (row.a, row.a1, row.b_str, row.vel, row.l, row.m, row.f, row.modifier) == \
        (2.2, -1, 15, 4, 15, 20, 8, 0)
    # "Arbalest 1.0 +5 40 8 30 16 6 3"
    row = t.lookup("Arbalest")
    assert (row.a, row.a1, row.b_str, row.vel, row.l, row.m, row.f, row.modifier) == \
        (1.0, 5, 40, 8, 30, 16, 6, 3)
    # "Axe 2.6 -5 21 1 5 16 10 -1"
    assert t.lookup("Axe").vel == 1 and t.lookup("Axe").a1 == -5
    # "Musket 1.3 +4 8/50 10 10 15 5 2"
    row = t.lookup("Musket")
    assert (row.a, row.a1, row.vel, row.l, row.m, row.f, row.modifier) == (1.3, 4, 10, 10, 15, 5, 2)
    f = rb.formulas["missile_blow_strength"]
    # "The first is for grape-shot, the second for ball."
    assert f("Musket", "Grapeshot") == 8 and f("Musket", "Ball") == 50
    assert f("Handgun", "Grapeshot") == 6 and f("Handgun", "Ball") == 40
    assert f("Longbow") == 18


def test_range_bands_of_the_missiles_table(rb):
    t = rb.tables["missile_ranges"]
    # "Shortbow ... 2–15 16–40 41–75 >75"
    assert [t.lookup("Shortbow", d) for d in (2, 15, 16, 40, 41, 75, 76)] == \
        ["Short", "Short", "Medium", "Medium", "Long", "Long", "Extreme"]
    # "Knife ... 1–10 11–20 21–30": no Extreme band
    assert t.lookup("Knife", 30) == "Long"
    # "Musket ... 2–30 31–70 71–120 >120"
    assert t.lookup("Musket", 120) == "Long" and t.lookup("Musket", 121) == "Extreme"
    assert t.lookup("Javelin", 50) == "Long" and t.lookup("Crossbow", 1) == "Short"


def test_velocity_table_corners(rb):
    t = rb.tables["velocity"]
    # "Short 10/10 ... 1/50", "Long 30/5 ... 6/40 6/40"
    cell = lambda r, v: (t.lookup(r, v).flight_time, t.lookup(r, v).attack_potential)  # noqa
    assert cell("Short", 1) == (10, 10) and cell("Short", 10) == (1, 50)
    assert cell("Medium", 3) == (16, 12) and cell("Medium", 10) == (3, 40)
    assert cell("Long", 9) == (6, 40) and cell("Long", 10) == (6, 40)
    # "Extreme 28/6 24/8 20/8 16/12 14/15 12/25 10/35": CHOICE, velocities 4-10
    assert cell("Extreme", 4) == (28, 6) and cell("Extreme", 10) == (10, 35)
    assert t.lookup("Extreme", 3) is None


def test_missile_defence_table_rows(rb):
    t = rb.tables["missile_defence"]
    assert [t.lookup("Standing", r) for r in ("Short", "Medium", "Long", "Extreme")] == \
        [10, 12, 15, 19]
    # "Walking; In combat 11 13 16 20"
    assert t.lookup("Walking", "Medium") == t.lookup("In combat", "Medium") == 13
    # "Evading/Soft Cover/Galloping 16 18 20 22"
    assert t.lookup("Galloping", "Extreme") == t.lookup("Soft cover", "Extreme") == 22
    assert t.lookup("Cantering", "Short") == 14
    # "Behind arros slit 20 22 24 26"
    assert [t.lookup("Behind arrow slit", r) for r in ("Short", "Medium", "Long", "Extreme")] == \
        [20, 22, 24, 26]
    assert t.lookup("Moving in hard cover", "Short") == 19


# ---- the figures --------------------------------------------------------------------------------
def test_an_archers_figures(rb):
    a = archer(rb)
    # "Accuracy = A x Skill + A1"; "LT = L - Skill + Armour Modifier"; AT, FT alike
    assert (a.missile_skill, a.accuracy, a.load_time, a.aim_time, a.fire_time) == \
        (7.5, 15, 6, 11, 1)
    assert a.missile_base_speed == 12 and a.missile_blow_strength == 18
    nobody = swordsman(rb)
    assert nobody.missile is None and nobody.accuracy == 0


def test_injuries_take_from_accuracy_and_add_to_each_missile_time_but_not_blow_strength(rb):
    # "subtractions from Anti-Parries also apply to Accuracy, and additions to base speed apply
    # to the times for all three missile actions separately. Blow strength, however, is not
    # altered." A Wound: -1 attack, +4 to actions.
    hurt = archer(rb, injuries={"Chest": ["Wound"]})
    assert (hurt.accuracy, hurt.load_time, hurt.aim_time, hurt.fire_time) == (14, 10, 15, 5)
    assert hurt.missile_blow_strength == 18


def test_an_automatic_gun_needs_no_load_action(rb):
    # "An automatic gun expels a used cartridge ... Therefore, there is no load action required"
    gunner = archer(rb, missile="Handgun", automatic=True)
    assert gunner.load_time == 0
    assert archer(rb, missile="Handgun").load_time > 0


# ---- a shot -------------------------------------------------------------------------------------
def shot(rb, dice, **args):
    args.setdefault("attacker", archer(rb))
    args.setdefault("defender", swordsman(rb))
    return rb.procedures["missile_shot"].run(dice=dice, **args)


def test_a_hit_is_resolved_as_a_short_stab(rb):
    # d20 5 + accuracy 15 = 20 against Standing at Short (10 hexes: "2–30") 10: excess 10.
    # "All missiles are treated as short stabbing": d10 6 -> Chest; 18 - 8 = 10 effective,
    # (10 + 10) / 4 = 5 -> a Wound on the chest. The reaction d10 4 - 5.4 -> minimum 1.
    r = shot(rb, [5, 4, 6])
    assert r.outcome == "hit" and r.values["strike"].excess == 10
    assert r.values["shot"].flight_time == 6 and r.values["shot"].attack_potential == 18
    assert r.combatants["defender"].injuries == {"Chest": ("Wound",)}
    assert r.combatants["attacker"].missiles_fired == 1
    # Fatigue: "Making an attack" (CHOICE: a missile attack is one).
    assert r.combatants["attacker"].fatigue == 1


def test_a_miss_gives_the_negative_excess_and_a_landing_hex(rb):
    # Fast aim: accuracy 15 - 10 = 5; roll 2: 7 against hard cover at short range 18: missed by
    # 11 -> "Far beyond" (10-12): two hexes beyond the target along the flight.
    r = shot(rb, [2], target_action="Hard cover", fast_aim=True)
    assert r.outcome == "missed"
    assert r.values["strike"].negative_excess == 11
    assert r.values["strike"].landing == rulecraft.runtime.space.Hex(12, 0)


def test_critical_roll_one_drops_the_weapon(rb):
    # "for 1–6, count clockwise from in front of the attacker as 1. 7–10 means same hex."
    r = shot(rb, [1, 1])
    assert r.outcome == "misfired" and r.values["shot"].dropped_at == rulecraft.runtime.space.Hex(1, 0)
    assert r.combatants["attacker"].missile_dropped
    assert shot(rb, [1, 8]).values["shot"].dropped_at == rulecraft.runtime.space.Hex(0, 0)
    # Dropped: nothing more to loose until it is picked up.
    again = shot(rb, [], attacker=r.combatants["attacker"])
    assert again.outcome == "no_missile"


def test_bows_cannot_fire_at_adjacent_hexes_and_thrown_weapons_run_out_of_range(rb):
    assert shot(rb, [], defender=swordsman(rb, at=(1, 0))).outcome == "out_of_range"
    knife = archer(rb, missile="Knife")
    assert shot(rb, [], attacker=knife, defender=swordsman(rb, at=(31, 0))).outcome == \
        "out_of_range"
    assert shot(rb, [2, 10, 10, 10], attacker=knife, defender=swordsman(rb, at=(1, 0))).outcome \
        in ("hit", "missed")


def strike(rb, dice, choices=None, **args):
    args.setdefault("attacker", archer(rb))
    args.setdefault("defender", swordsman(rb))
    return rb.procedures["missile_strike"].run(dice=dice, choices=choices or {}, **args)


def test_the_archers_best_skill_is_his_bow_skill(rb):
    # "Dodge Factor ... Depends on best skill in a weapon": the longbow (7.5) beats the dagger
    # (14/4 x ln 3 x 1.1 = 4.2). PDF = 7.5 + 8 = 15.
    assert archer(rb).best_skill == 7.5 and archer(rb).passive_dodge_factor == 15


def test_active_defence_a_roll_of_one_always_misses_and_its_excess_lands_the_missile(rb):
    # "A combatant may defend actively against a missile attack by his target ... Rolls of 1 and
    # 20 always 'miss' or 'hit' respectively ... If the attack fails, the negative excess from
    # it is used as above." 18 + 1 against 10 would get through; the 1 stops it; excess 9 is no
    # negative excess, so the missile comes down just beyond (CHOICE: at least 1).
    r = strike(rb, [1], attack_roll=5, range="Short", attack_potential=18, accuracy=15,
               fired_by_his_target=True)
    assert r.outcome == "defended" and r.values["negative_excess"] == 1
    assert r.values["landing"].landed_at == rulecraft.runtime.space.Hex(11, 0)


def test_active_defence_with_a_shield_then_the_attack_as_evading(rb):
    # "In the case of shields 5 is added to the defense potential": 10 + 5 = 15; 18 + 3 = 21
    # gets through, "the missile attack is then treated normally, with the defender considered
    # to be evading": 5 + 15 against 16 (Evading, Short), excess 4. Fired by his target: no
    # reaction roll; location d10 6 -> Chest, (10 + 4) / 4 = 3.5 -> 4: a Light Wound.
    shielded = swordsman(rb, shield=True, training={"Sword": 5, "Shield": 4})
    r = strike(rb, [3, 6], defender=shielded, attack_roll=5, range="Short", attack_potential=18,
               accuracy=15, fired_by_his_target=True)
    assert r.outcome == "hit" and r.values["defence_potential"] == 16
    assert r.values["through"] == 6 and r.values["excess"] == 4
    assert r.values["wound"].reaction_time == 0 and r.values["wound"].wound == "L Wound"
    # A defence roll of 20 always gets through, whatever the figures: Evading, 16 again.
    r = strike(rb, [20, 6], attack_roll=5, range="Short", attack_potential=0, accuracy=15,
               fired_by_his_target=True, target_action="Behind arrow slit")
    assert r.outcome == "hit" and r.values["defence_potential"] == 16
    # A failed defence: 10 + 2 against 15 (Standing, Long): missed by 3 -> "Beyond".
    r = strike(rb, [2], attack_roll=19, range="Long", attack_potential=10, accuracy=15,
               fired_by_his_target=True)
    assert r.outcome == "defended" and r.values["negative_excess"] == 3


def test_a_critical_twenty_adds_a_d10_and_a_ten_lets_the_archer_choose(rb):
    # "The critical roll of 20 is treated normally": 20 + 0 against 22 (Hard cover, Long) is -2;
    # d10 10 -> excess 8, location chosen (Head). The reaction: d10 3 - 5.4 -> 1.
    # Head armour 8: 18 - 8 = 10, (10 + 8) / 4 = 4.5 -> 5: a Wound.
    r = strike(rb, [10, 3], {"location": "Head"}, attack_roll=20, range="Long",
               attack_potential=10, accuracy=0, target_action="Hard cover")
    wound = r.values["wound"]
    assert r.outcome == "hit" and wound.excess == 8 and wound.location == "Head"
    assert wound.reaction_time == 1 and wound.wound == "Wound"
    # A 6 instead: -2 + 6 = 4, counted as five; the location is rolled (d10 1 -> Head).
    r = strike(rb, [6, 3, 1], attack_roll=20, range="Long", attack_potential=10, accuracy=0,
               target_action="Hard cover")
    assert r.values["wound"].excess == 5


def test_grapeshot_hits_every_area_its_strength_gets_through(rb):
    # "When a combatant is hit by grapeshot, it is assumed to hit all areas of the body ... if
    # the effective blow strength on any part of the body is zero or less, then there is no
    # effect on that part." Handgun grapeshot 6: only the unarmoured leg (Standard armour):
    # (6 + 15) / 4 = 5.25 -> 5, a Wound on the leg.
    gunner = archer(rb, missile="Handgun", shot="Grapeshot")
    r = strike(rb, [5], attacker=gunner, attack_roll=12, range="Short", attack_potential=40,
               accuracy=gunner.accuracy)
    assert r.outcome == "hit" and r.values["excess"] == 15
    assert r.values["wound"] == "grapeshot" and r.values["wound"].areas_hit == 1
    assert r.combatants["defender"].injuries == {"Leg": ("Wound",)}


def test_a_dud_cartridge_costs_five_or_twenty_tenths_and_a_reaction(rb):
    # "For a manual gun ... a 5 tenths dead time plus a reaction time. For an automatic it takes
    # 20 tenths plus a reaction time": reaction d10 9 - best skill 7.5 = 1.5.
    for automatic, dud in ((False, 6.5), (True, 21.5)):
        gunner = archer(rb, missile="Handgun", automatic=automatic)
        r = rb.procedures["loose"].run(attacker=gunner, defender=swordsman(rb), dice=[1, 9])
        assert r.outcome == "dud" and float(r.values["dud_time"]) == dud
        # The dud is spent: "when they have all been fired it is necessary to reload".
        assert r.combatants["attacker"].cartridges == 5


def test_reloading_takes_ten_tenths_a_cartridge_and_a_gun_holds_six(rb):
    gunner = archer(rb, missile="Handgun", cartridges=2)
    r = rb.procedures["reload"].run(fighter=gunner, dice=[])
    assert (r.values["loaded"], r.values["reload_time"], r.combatants["fighter"].cartridges) == \
        (4, 40, 6)
    # "It is possible to reload a gun which is not yet emptied."
    r = rb.procedures["reload"].run(fighter=gunner, cartridges=3, dice=[])
    assert (r.values["reload_time"], r.combatants["fighter"].cartridges) == (30, 5)
    assert rb.procedures["reload"].run(fighter=archer(rb), dice=[]).outcome == "not_a_gun"
    # Out of cartridges: nothing to loose.
    empty = archer(rb, missile="Handgun", cartridges=0)
    assert rb.procedures["loose"].run(attacker=empty, defender=swordsman(rb), dice=[]).outcome \
        == "no_missile"


def test_recovered_missiles_and_arrows_broken_coming_out_of_a_wound(rb):
    # "wooden arrows having a 25% chance of breaking"
    recover = rb.procedures["recover_missile"]
    spent = archer(rb, missiles_fired=3)
    broken = recover.run(fighter=spent, from_a_wound=True, dice=[25])
    assert broken.outcome == "broken" and broken.combatants["fighter"].missiles_fired == 3
    whole = recover.run(fighter=spent, from_a_wound=True, dice=[26])
    assert whole.outcome == "recovered" and whole.combatants["fighter"].missiles_fired == 2
    assert recover.run(fighter=spent, dice=[]).outcome == "recovered"
    # A crossbow bolt is no wooden arrow (CHOICE): it comes out whole, no die rolled.
    bolt = archer(rb, missile="Crossbow", missiles_fired=1)
    assert recover.run(fighter=bolt, from_a_wound=True, dice=[]).outcome == "recovered"
    assert recover.run(fighter=archer(rb), dice=[]).outcome == "none_fired"
    # The tally: twelve carried, twelve fired, nothing more to loose.
    assert shot(rb, [], attacker=archer(rb, missiles_fired=12)).outcome == "no_missile"


def test_the_arc_a_missile_may_be_aimed_into(rb):
    # "bounded by — but not including — the hex rows out of front left and front right faces"
    arc = rb.formulas["in_missile_arc"]
    Hex = rulecraft.runtime.space.Hex
    assert arc(Hex(0, 0), 0, Hex(5, 0)) and arc(Hex(0, 0), 0, Hex(2, -1))
    assert not arc(Hex(0, 0), 0, Hex(3, -3)) and not arc(Hex(0, 0), 0, Hex(0, 3))  # the rows
    assert not arc(Hex(0, 0), 0, Hex(-4, 0)) and not arc(Hex(0, 0), 0, Hex(0, 0))
    assert arc(Hex(0, 0), 3, Hex(-4, 0))


def test_exact_odds_of_a_shot(rb):
    # Accuracy 15 against Standing at Short (10): every roll from 2 hits; a 1 misfires.
    odds = rb.procedures["missile_shot"].odds(attacker=archer(rb), defender=swordsman(rb))
    assert odds == {"misfired": Fraction(1, 20), "hit": Fraction(19, 20)}


# ---- the encounter: shooters against fighters closing on the hex grid -------------------------
def field(rb, shooters, fighters, dice, apart=16, until=40, **options):
    return rb.fight({"shooters": shooters, "fighters": fighters}, encounter="missile_field",
                    settings={"apart": apart}, dice=dice, until=until, **options)


def acts(fight, label_set):
    return [(e["time"], e["value"], e["detail"].split("as ")[-1]) for e in fight.events
            if e["kind"] == "act" and e["detail"].split("as ")[-1] in label_set]


def calls(fight, procedure):
    return [e for e in fight.events if e["kind"] == "call" and e["procedure"] == procedure]


def test_draw_load_aim_fire_then_the_missile_flies_its_time_of_flight(rb):
    # "it must first be drawn. This takes a time equal to base speed" (12), then Load (6), Aim
    # (11) and Fire (1): loosed at 30 at the swordsman, who has walked from 16 to 10 hexes off
    # (Short: "2–30"; velocity 5: 6/18), so it arrives at 36. He has the archer as his target,
    # so he defends actively: 18 + d20 4 against Walking 11 gets through; then 5 + 15 against
    # Evading 16: excess 4, d10 6 Chest, (10 + 4) / 4 -> 4: a Light Wound.
    fight = field(rb, [archer(rb)], [swordsman(rb)], [5, 4, 6])
    missile_labels = {"Drawing", "Loading", "Aiming", "Firing"}
    assert acts(fight, missile_labels)[:5] == [(0, 12, "Drawing"), (12, 18, "Loading"),
                                               (18, 29, "Aiming"), (29, 30, "Firing"),
                                               (30, 36, "Loading")]
    loosed, = calls(fight, "loose")
    assert (loosed["time"], loosed["value"]["distance"], loosed["value"]["flight_time"]) == \
        (30, 10, 6)
    struck, = calls(fight, "missile_strike")
    assert struck["time"] == 36 and struck["value"].name == "hit"
    assert (struck["value"]["defence_potential"], struck["value"]["wound"]) == (16, "L Wound")


def test_a_missile_that_misses_strikes_whoever_stands_where_it_lands(rb):
    # A poor archer (Shortbow, Training 1: Accuracy 2.2 x 2.7 - 1 -> 4) looses at 47 at the
    # nearer of two swordsmen walking in line abreast, 22 hexes off (Medium: velocity 4, 14/12).
    # At 61 the target defends actively (12 + 5 against 13) and then evades (18): 6 + 4 misses
    # by 8, "Beyond right" (CHOICE), the hex of the other swordsman. "an attack is made that
    # combatant. The attack potential is given by a fresh d20 roll, accuracy taken as zero":
    # 15 against Walking at Medium, 13: location 6 Chest, 15 - 8 = 7, (7 + 2) / 4 -> 2: a Bruise.
    poor = archer(rb, missile="Shortbow", missile_training=1)
    fight = field(rb, [poor], [swordsman(rb), swordsman(rb)], [6, 5, 15, 3, 6], apart=30,
                  until=62)
    struck, = calls(fight, "missile_strike")
    assert struck["value"].name == "missed" and struck["value"]["negative_excess"] == 8
    assert struck["value"]["stray"] == "struck" and struck["value"]["stray"]["place"] == \
        "Beyond right"
    assert [f.injuries for f in fight.fighters][1:] == [{}, {"Chest": ("Bruise",)}]


def test_a_blow_during_the_aim_cancels_it_and_the_user_can_make_no_active_defence(rb):
    # A knife thrower (Training 6: draw 8, Load 1, Aim 5, Fire 1) two hexes from a swordsman,
    # who steps next to him and strikes at 6 + 14 = 20, while he aims his second knife. "A
    # combatant using a missile weapon can make no active defence and has his Passive Dodge
    # Factor reduced by two": the parry chosen becomes a Passive Dodge, 15 - 2 = 13; 10 + 15
    # hits by 12. "During Aim — the action is cancelled ... he must start again with a Load
    # action", and he reacts (d10 5 - 7.5 -> 1).
    thrower = archer(rb, missile="Knife", missiles_carried=6)
    fight = field(rb, [thrower], [swordsman(rb)], [10, 15, 6, 5, 9, 9, 9], apart=2, until=22,
                  choices={"defence": "Parry"})
    blow, = calls(fight, "melee_attack")
    assert (blow["time"], blow["value"]["defence"], blow["value"]["defence_potential"]) == \
        (20, "Passive Dodge", 13)
    assert (20, 22, "Aim cancelled") in acts(fight, {"Aim cancelled"})
    assert [(e["time"], e["value"]) for e in fight.events if e["kind"] == "delay"][-1] == (20, 1)


def test_a_blow_during_the_fire_takes_its_damage_factor_from_the_shot(rb):
    # A knife thrower with Training 2 (draw 11, Load 1, Aim 8, Fire 4: firing from 20 to 24);
    # a swordsman in Heavy armour (walk 7, base speed 16) strikes at 7 + 16 = 23. Passive
    # Dodge 12 - 2 = 10; 9 + 3 hits by 2, d10 1 Head: 16 - 5 = 11, (11 + 2) / 4 -> 3 ("the
    # accuracy of the shot is reduced by the damage factor of the attack"): Accuracy 7 - 3 = 4.
    thrower = archer(rb, missile="Knife", missile_training=2)
    heavy = swordsman(rb, armour="Heavy")
    fight = field(rb, [thrower], [heavy], [3, 1, 12, 4, 4, 4], apart=2, until=40)
    blow, = calls(fight, "melee_attack")
    assert (blow["time"], blow["value"]["defence_potential"], blow["value"]["damage_factor"]) \
        == (23, 10, 3)
    loosed, = calls(fight, "loose")
    assert loosed["value"]["accuracy"] == 4
    # "the time for the action is not altered, all modifiers are added to the following
    # action": the Fire still ends at 24 (loosed then); the Light Wound's 2 and the dead time's
    # 2 go to the Load after it (1, +2 for the wound from now on, +4 carried: 24 to 31).
    assert loosed["time"] == 24
    assert (24, 31, "Loading") in acts(fight, {"Loading"})
    # The blow was struck by the thrower's own target while he fired: no reaction roll.
    assert not any(e["kind"] == "delay" and e["time"] == 23 and e["value"] not in (0, 2)
                   for e in fight.events)


def test_the_shipped_encounter_runs_from_fighter_files(tmp_path):
    from click.testing import CliRunner

    from rulecraft.cli import cli

    files = [f"examples/ringing_steel/{n}.toml" for n in ("archer", "gunner")]
    foes = [f"examples/ringing_steel/{n}.toml" for n in ("swordsman", "champion")]
    result = CliRunner().invoke(cli, ["fight", "ringing_steel", "--encounter", "missile_field",
                                       *files, "vs", *foes, "--seed", "2", "--policy",
                                       "competent"])
    assert result.exit_code == 0, result.output
    assert "Firing" in result.output and "won by" in result.output


def test_after_a_misfire_the_bow_is_picked_up_and_a_thrower_draws_the_next(rb):
    # "In order to continue using missiles a new weapon must be drawn, or else the old one
    # picked up, moving as necessary." The archer's 1 at 30: d10 3 drops the longbow back right
    # of him, (-1, 1); he walks there (6) and readies it (12): a Load from 48.
    fight = field(rb, [archer(rb)], [swordsman(rb)], [1, 3] + [5] * 6, until=55)
    assert (30, 48, "Picking up") in acts(fight, {"Picking up"})
    assert (48, 54, "Loading") in acts(fight, {"Loading"})
    assert fight.fighters[0].at == rulecraft.runtime.space.Hex(-1, 1)
    # A javelin thrower (draw 10, Load 1, Aim 5, Fire 1) misfires at 17 and draws the next
    # javelin (CHOICE): loading again from 27.
    thrower = archer(rb, missile="Javelin", missiles_carried=5)
    fight = field(rb, [thrower], [swordsman(rb)], [1, 3] + [5] * 6, until=30)
    assert [a for a in acts(fight, {"Drawing"})] == [(0, 10, "Drawing"), (17, 27, "Drawing")]
    assert fight.fighters[0].missiles_fired == 1


def test_the_landing_places_of_a_missile_that_misses(rb):
    # CHOICE (the figure is missing): bands of three of the negative excess, "If the negative
    # excess is greater than 20 then it is taken as 20".
    places = rb.tables["miss_places"]
    assert [places.lookup(e) for e in (1, 3, 4, 9, 10, 18, 19, 20)] == [
        "Beyond", "Beyond", "Beyond left", "Beyond right", "Far beyond", "Far right",
        "Farthest", "Farthest"]
    # Over an edge the missile flies on along facing 0: Beyond is the hex ahead, Farthest three
    # ahead; over a vertex, between the hexes ahead and front left.
    Hex = rulecraft.runtime.space.Hex
    landing = rb.procedures["missile_landing"]
    for archer_at, excess, where in (((0, 0), 20, (13, 0)), ((0, 0), 4, (11, -1)),
                                     ((6, 2), 1, (12, -1)), ((6, 2), 13, (12, -2))):
        r = landing.run(attacker=archer(rb, at=archer_at), defender=swordsman(rb),
                        negative_excess=excess, range="Short", dice=[])
        assert r.outcome == "fell" and r.values["landed_at"] == Hex(*where)
    # The action rows: a blow is "In combat", anything not listed Standing.
    row = rb.formulas["missile_row"]
    assert (row("Attacking"), row("Evading"), row("Loading")) == ("In combat", "Evading",
                                                                  "Standing")
