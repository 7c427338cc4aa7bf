"""The language against the hardest tables and rules of all four seeds, not only Ringing Steel I.

Each rule file here is a transcription of a seed passage (quoted), written the way a later
rulebook will write it; the assertions pin the seed's values. They prove the grammar and the
compiled model reach the other systems before their rulebooks are written.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft

HEAD = 'rulebook sample "Sample"\n'


def book(text: str) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, filename="sample.rules")


def test_bt_d100_hit_locations_with_00_and_names_with_slashes():
    # BT: "01-10 Head ... 11-39 Chest/Upper back ... 99-00 Foot", and the head sub-table
    # "01-30(Skull); 31-50(Side); ... 96-00(Throat)"; "*Even numbers are right side".
    rb = book(
        "table hit_locations \"Hit Locations\" by roll: 1..100 -> name:\n"
        "  | D100  | Location            |\n"
        "  | 01-10 | Head                |\n"
        "  | 11-39 | Chest/Upper back    |\n"
        "  | 40-47 | Upper Arm           |\n"
        "  | 48-51 | Lower Arm           |\n"
        "  | 52-53 | Hand                |\n"
        "  | 54-81 | Abdomen/Lower back  |\n"
        "  | 82-84 | Groin/Behind        |\n"
        "  | 85-94 | Upper leg           |\n"
        "  | 95-98 | Lower leg           |\n"
        "  | 99-00 | Foot                |\n"
        "table head \"Head\" by roll: 1..100 -> name:\n"
        "  | D100  | Part   |\n"
        "  | 01-30 | Skull  |\n"
        "  | 31-50 | Side   |\n"
        "  | 51-55 | Eyes   |\n"
        "  | 56-65 | Nose   |\n"
        "  | 66-80 | Cheeks |\n"
        "  | 81-85 | Mouth  |\n"
        "  | 86-95 | Neck   |\n"
        "  | 96-00 | Throat |\n"
        "formula side(roll: 1..100) \"Side\" = if roll / 2 == floor(roll / 2) then \"right\" else \"left\"\n"
    )
    locations = rb.tables["hit_locations"]
    assert [locations.lookup(r) for r in (1, 10, 11, 39, 53, 98, 99, 100)] == [
        "Head", "Head", "Chest/Upper back", "Chest/Upper back", "Hand", "Lower leg", "Foot", "Foot"]
    assert rb.tables["head"].lookup(100) == "Throat"
    assert (rb.formulas["side"](roll=42), rb.formulas["side"](roll=99)) == ("right", "left")


def test_bt_armour_pipeline_worked_example():
    # BT: "Opponent does 23 point of damage to chest- crushing. It is a SL 6 strike! ... Chest
    # armor (10 pts) reduces damage to 13 pts ... reduces 10 of the 13 remaining pts to
    # concussive damage ... 5 points of PAB stop it. This leaves our defender with one point of
    # PAB ... SL 6 = Triple damage -> 9 points ... remaining PAB of 1 reduces that to 8".
    # Armour takes its points off, turns as many again into concussive damage that PAB stops at
    # two for one, the critical multiplier applies to the rest, and what PAB is left takes off
    # the end (concussive damage beyond the PAB is the BT rulebook's to settle).
    rb = book(
        "formula armour_pipeline(damage: integer, armour: integer, pab: integer, multiplier: integer)"
        " \"Damage taken\" = max(0, max(0, damage - 2 * armour) * multiplier"
        " - max(0, pab - ceil(min(armour, max(0, damage - armour)) / 2)))\n"
    )
    assert rb.formulas["armour_pipeline"](damage=23, armour=10, pab=6, multiplier=3) == 8


def test_rs_mounted_combat_bands_on_both_axes_and_record_cells():
    # RS part IV: "0.1–1.9 2.0–3.9 4.0–5.9 6.0–7.9 8 and up" across (rider), the same down
    # (horse), cells "3/-4/-5" = "increase in base speed/addition to attack potential/addition
    # to defence potential".
    rb = book(
        "table mounted_combat \"Mounted Combat Table\" by horse_skill: number, rider_skill: number"
        " -> (base_speed, attack, defence):\n"
        "  | Horse \\ Rider | 0.1–1.9  | 2.0–3.9  | 4.0–5.9  | 6.0–7.9  | 8 and up |\n"
        "  | 0.1–1.9       | 3/-4/-5  | 2/-3/-4  | 1/-2/-3  | 1/-2/-2  | 0/-1/-2  |\n"
        "  | 2.0–3.9       | 2/-3/-4  | 1/-2/-3  | 0/-1/-3  | 0/-1/-1  | -1/0/-1  |\n"
        "  | 4.0–5.9       | 2/-3/-3  | 1/-1/-3  | 0/0/-1   | -1/0/0   | -2/1/0   |\n"
        "  | 6.0–7.9       | 1/-2/-3  | 0/-1/-2  | -1/0/-1  | -1/1/0   | -2/2/1   |\n"
        "  | 8 and up      | 1/-2/-3  | 0/0/-2   | -1/1/-1  | -2/2/0   | -3/3/2   |\n"
    )
    table = rb.tables["mounted_combat"]
    cell = table.lookup(4.5, 9.0)
    assert (cell.base_speed, cell.attack, cell.defence) == (-2, 1, 0)
    assert table.lookup(0.1, 0.1).defence == -5
    assert table.lookup(12, 2.0).attack == 0


def test_rs_bash_table_with_open_bands():
    # RS part IV: "below -10 Attacker must move back one hex. / -10 – 0 None. / 1 – 5 Defender
    # must move back one hex. / 6 – 10 Defender must move back two hexes. / >10 Defender
    # knocked over."
    rb = book(
        "table bash \"Bash Score\" by bash_score: integer -> name:\n"
        "  | Bash Score | Effect                             |\n"
        "  | below -10  | Attacker must move back one hex.   |\n"
        "  | -10 – 0    | None.                              |\n"
        "  | 1 – 5      | Defender must move back one hex.   |\n"
        "  | 6 – 10     | Defender must move back two hexes. |\n"
        "  | >10        | Defender knocked over.             |\n"
    )
    bash = rb.tables["bash"]
    assert bash.lookup(-11) == "Attacker must move back one hex."
    assert bash.lookup(-10) == bash.lookup(0) == "None."
    assert bash.lookup(10) == "Defender must move back two hexes."
    assert bash.lookup(11) == bash.lookup(400) == "Defender knocked over."


def test_rs_missiles_table_ranges_and_gun_blow_strength_records():
    # RS part III: "Shortbow 2.2 -1 15 4 15 20 8 0 2–15 16–40 41–75 >75" and
    # "Handgun 1.5 +2 6/40 9 10 15 5 2 1–15 16–40 41–75 >75" (grape-shot/ball).
    rb = book(
        "table missiles \"Missiles Table\" by missile:\n"
        "  | Weapon   | A   | A1 | B.Str | Vel | L  | M  | F | Modifier | Short | Medium | Long   | Extreme |\n"
        "  | Shortbow | 2.2 | -1 | 15    | 4   | 15 | 20 | 8 | 0        | 2–15  | 16–40  | 41–75  | >75     |\n"
        "  | Handgun  | 1.5 | 2  | 6/40  | 9   | 10 | 15 | 5 | 2        | 1–15  | 16–40  | 41–75  | >75     |\n"
        "  | Knife    | 2.4 | -3 | 9     | 2   | 5  | 14 | 10 | -3      | 1–10  | 11–20  | 21–30  |         |\n"
    )
    handgun = rb.tables["missiles"].lookup("Handgun")
    assert handgun.b_str == (6, 40) and handgun["A1"] == 2 and handgun.extreme == ">75"
    assert rb.tables["missiles"].lookup("Knife").extreme is None


def test_rs_velocity_table_time_attack_pairs():
    # RS part III: "Short 10/10 9/12 8/14 ..." — "time of flight/effective attack potential".
    rb = book(
        "enum missile_range: Short, Medium, Long, Extreme\n"
        "table velocity \"Velocity\" by range: missile_range, velocity: 1..3 -> (time, attack):\n"
        "  | Range   | 1     | 2     | 3     |\n"
        "  | Short   | 10/10 | 9/12  | 8/14  |\n"
        "  | Medium  | 20/8  | 19/10 | 16/12 |\n"
        "  | Long    | 30/5  | 30/7  | 24/8  |\n"
        "  | Extreme | 28/6  | 24/8  | 20/8  |\n"
    )
    cell = rb.tables["velocity"].lookup("Medium", 3)
    assert (cell.time, cell.attack) == (16, 12)


def test_rq3_levels_of_success_with_explicit_rounding():
    # RQ3 house rules: "a failure or fumble is 0 levels of success; success is 1, special is 2,
    # and critical is 3. If the total modified skill chance is 100% or more, then a roll of
    # (1/100 chance, rounding normally) is a hypercritical (4 levels of success)."
    rb = book(
        "formula levels_of_success(roll: 1..100, chance: 0..1000) \"Levels of success\" = "
        "if chance >= 100 and roll <= max(1, round(chance / 100)) then 4 "
        "else if roll <= max(1, round(chance / 20)) then 3 "
        "else if roll <= round(chance / 5) then 2 "
        "else if roll <= min(95, chance) then 1 else 0\n"
        "formula half_armour(armour: 0..40) \"1/2 armor\" = round(armour / 2)\n"
    )
    levels = rb.formulas["levels_of_success"]
    assert [levels(roll=r, chance=150) for r in (1, 2, 8, 30, 31, 95, 96)] == [4, 4, 3, 2, 1, 1, 0]
    assert levels(roll=1, chance=60) == 3 and levels(roll=12, chance=60) == 2
    # "½ armor. Counts all armor, magical or not. Round 0.5 up."
    assert [rb.formulas["half_armour"](armour=a) for a in (3, 5, 8)] == [2, 3, 4]


def test_d20_attack_roll_and_knockout_odds():
    # d20 modern: "Roll 1d20 + BAB + Str or Dex bonus against the opponent's AC. If it is equal
    # or more, it's a hit ... Natural 1's and 20's are not automatic misses and hits."
    rb = book(
        "combatant soldier \"Soldier\":\n"
        "  bab: 0..20\n"
        "  str_bonus: -5..5\n"
        "  ac: 1..40\n"
        "procedure attack \"Attack roll\" (attacker: soldier, defender: soldier):\n"
        "  roll attack_roll = d20\n"
        "  let total = attack_roll + attacker.bab + attacker.str_bonus\n"
        "  if total >= defender.ac:\n"
        "    outcome hit with (total = total)\n"
        "  else:\n"
        "    outcome miss with (total = total)\n"
    )
    a = rb.combatant(bab=3, str_bonus=2, ac=12)
    d = rb.combatant(bab=1, str_bonus=0, ac=15)
    odds = rb.procedures["attack"].odds(attacker=a, defender=d)
    assert odds == {"hit": Fraction(11, 20), "miss": Fraction(9, 20)}  # 10..20 on the d20
    assert rb.procedures["attack"].run(attacker=a, defender=d, dice=[20]).outcome == "hit"


@pytest.mark.parametrize("dice, low, high", [("2d4+12", 14, 20), ("4d6kh3", 3, 18),
                                             ("3d6", 3, 18), ("d100", 1, 100)])
def test_dice_notation_of_the_seeds(dice, low, high):
    # BT: "If it is irregular damage it will be fully written out as [constant] + XdY".
    from rulecraft.compiler.evaluate import parse_dice_text  # loaded on first use, not by import

    parsed = parse_dice_text(dice)
    totals = [t for t, _ in parsed.distribution()]
    assert (totals[0], totals[-1]) == (low, high)
    assert sum(p for _, p in parsed.distribution()) == 1


def test_formula_parameters_may_have_defaults():
    rb = book(
        "formula bonus(level: 1..20, magic: 0..5 = 0) \"Bonus\" = level + magic\n"
        "formula doubled(level: 1..20) \"Doubled\" = bonus(level) * 2\n"
    )
    assert rb.formulas["bonus"](level=3) == 3
    assert rb.formulas["bonus"](3, 2) == 5
    assert rb.formulas["doubled"](level=4) == 8
    with pytest.raises(rulecraft.RangeError):
        rb.formulas["bonus"](level=3, magic=9)


def test_state_maps_of_numbers_and_of_lists_grow_from_empty():
    # RQ3: "apply penetrating damage to location HP and general HP" — damage by location.
    rb = book(
        "enum hit_location: Head, Chest\n"
        "combatant body \"Body\":\n"
        "  hp: 1..30\n"
        "  state damage: map hit_location -> integer\n"
        "  state notes: map hit_location -> list name\n"
        "  derived total = sum(damage[l] for l in damage)\n"
        "procedure hurt \"Hurt\" (victim: body, where: hit_location, points: 0..99):\n"
        "  add points to victim.damage[where]\n"
        "  add \"hit\" to victim.notes[where]\n"
        "  outcome done with (total = victim.total)\n"
    )
    victim = rb.combatant(hp=12)
    first = rb.procedures["hurt"].run(victim=victim, where="Chest", points=5, dice=[])
    again = rb.procedures["hurt"].run(victim=first.combatants["victim"], where="Chest", points=3,
                                      dice=[])
    after = again.combatants["victim"]
    assert after.damage == {"Chest": 8} and after.notes == {"Chest": ("hit", "hit")}
    assert again.outcome["total"] == 8


def test_two_key_lookups_take_their_keys_in_either_order():
    rb = rulecraft.load("ringing_steel")
    # Wounds Table: "5 Wound S Wound L Wound Wound L Wound Wound" — Head is Wound.
    assert rb.tables["wounds"].lookup(5, "Head") == rb.tables["wounds"].lookup("Head", 5) == "Wound"
    # Dodge table: Left column "1–3" is Left, Back column "2–5" is Right.
    assert rb.tables["dodge"].lookup("Back", 4) == rb.tables["dodge"].lookup(4, "Back") == "Right"
    with pytest.raises(rulecraft.RangeError, match="did you mean 'Head'"):
        rb.tables["wounds"].lookup("Haed", 5)


def test_names_from_python_forgive_letter_case_only():
    rb = rulecraft.load("ringing_steel")
    assert rb.formulas["skill"](dexterity=12, training=5, armour="standard") == 5.4
    assert rb.tables["wounds"].lookup(5, "head") == "Wound"
    fighter = rb.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                           training={"sword": 5}, weapon="sword", armour="STANDARD")
    assert (fighter.weapon, fighter.armour, fighter.training) == ("Sword", "Standard",
                                                                   {"Sword": 5})
    result = rb.procedures["melee_attack"].run(attacker=fighter, defender=fighter,
                                               defence="parry", dice=[2])
    assert result.outcome == "parried"
    with pytest.raises(rulecraft.RangeError, match="did you mean 'Standard'"):
        rb.formulas["skill"](dexterity=12, training=5, armour="Standrd")


def test_windows_line_endings_and_a_byte_order_mark_are_read(tmp_path):
    path = tmp_path / "windows.rules"
    path.write_bytes(b'\xef\xbb\xbfrulebook t "T"\r\n# doubled\r\nformula a(x: 1..5) = x * 2\r\n')
    rb = rulecraft.load(str(path))
    assert rb.formulas["a"](x=3) == 6
    assert rb.formulas["a"].comments == ("doubled",)
