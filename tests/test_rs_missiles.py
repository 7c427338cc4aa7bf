"""Ringing Steel part III, Missile Weapons, and part IV's guns, pinned against the seed.

Seed: shared/seeds/002_41f740bb26c2da28.txt, "Missile Weapons" (lines 394-524) and "Guns".
The archer used throughout: Dex 14, Longbow training 6, Light armour (factor 1.1, modifier -1).
  Skill = 14/4 x ln 7 x 1.1 = 7.49 -> 7.5      Accuracy = 2.0 x 7.5 + 0 = 15
  LT = 15 - 7.5 - 1 = 6.5 -> 6   AT = 20 - 7.5 - 1 = 11.5 -> 11   FT = 8 - 7.5 - 1 -> 1 (minimum)
  Base speed (drawing) = 20 - 7.5 - 1 + 1 = 12.5 -> 12      Blow strength 18
The target: the swordsman of test_rs_melee (Standard armour: 8 on every area but the leg; best
skill 5.4), ten hexes ahead of the archer.
"""

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
