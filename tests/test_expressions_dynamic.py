"""Issue 6, the expression half: dice figures, `mod`, ranges, aggregates over every collection,
`combatant[field]` and lookups of table expressions with their given figures.

Each test quotes the seed passage or the defect it answers; the values are worked out by hand.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.runtime.errors import (CalculationError, RangeError, RulecraftError,
                                      RuleSyntaxError, RuleTypeError, UnknownNameError)

HEAD = 'rulebook sample "Sample"\n'


def book(text: str) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, filename="sample.rules")


def value(rb: rulecraft.Rulebook, expression: str):
    return rulecraft.evaluate(rb, expression)


def eval_cli(rulebook: str, expression: str):
    result = CliRunner().invoke(cli, ["eval", rulebook, expression])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture(scope="module")
def empty():
    return book("")


@pytest.fixture(scope="module")
def rs():
    return rulecraft.load("ringing_steel")


# ---- 1. dice and numbers -------------------------------------------------------------------


@pytest.mark.parametrize("expression, expected", [
    # RQ3, F.1.A Impale: "Does full weapon damage plus one rolled weapon damage; so a long spear
    # (1d10+1) does 11+1d10+1 = d10+12 damage on an impale."
    ("maximum(d10 + 1)", 11),
    ("minimum(d10 + 1)", 2),
    # RQ3, F.1.C Crush: "Maximizes damage bonus of attacker, up to 3d6 (18)."
    ("maximum(3d6)", 18),
    # BT: "If no symbol follows the number then 2d4 are added ... The maximum damage a weapon can
    # do is: (maximum `by-the-book' damage + material mods + magical mods)*3" (12, +1, +2).
    ("(maximum(12 + 2d4) + 1 + 2) * 3", 69),
    ("minimum(12 + 2d4)", 14),
    ("mean(12 + 2d4)", 17),
    ("mean(d6)", 3.5),
    ("mean(3d6)", 10.5),
    ("maximum(4d6kh3)", 18),
    ("minimum(4d6kh3)", 3),
    ("maximum(d6 - d4)", 5),
    ("minimum(d6 - d4)", -3),
    # RS Reaction: "d10 - Best Skill, minimum one": faces 1-4 give 1, 5-10 give 2-7.
    ("mean(max(1, d10 - 3))", 3.1),
    ("maximum(max(1, d10 - 3))", 7),
    ("minimum(max(1, d10 - 3))", 1),
    ("maximum(min(6, d8))", 6),
    # A number is a roll of no dice.
    ("maximum(5)", 5),
    ("mean(2.5)", 2.5),
])
def test_maximum_minimum_and_mean_of_dice_are_exact(empty, expression, expected):
    assert value(empty, expression) == expected


def test_mean_of_keep_highest_is_exact(empty):
    # 4d6 keep the highest 3: 15869 / 1296 exactly (to the 28 digits every number carries).
    assert value(empty, "mean(4d6kh3)") == pytest.approx(15869 / 1296, abs=1e-15)
    assert value(empty, "mean(4d6kh3) * 1296") == 15869


def test_impale_damage_is_the_maximum_plus_a_roll(empty):
    # RQ3: "a long spear (1d10+1) does 11+1d10+1 = d10+12 damage on an impale".
    assert str(value(empty, "maximum(d10 + 1) + (d10 + 1)")) == "d10 + 12"


def test_a_number_where_dice_are_expected():
    rb = book(
        "formula bonus(c: bool) = if c then 0 else d6\n"
        "formula capped(c: bool) = min(3, if c then 2 else d6)\n"
        "procedure damage \"Damage\" (c: bool):\n"
        "  roll r = if c then 0 else d6\n"
        "  outcome done with r = r\n"
    )
    assert rb.formulas["bonus"](c=False) == rulecraft.runtime.dice.Dice(
        (rulecraft.runtime.dice.DiceTerm(1, 6),))
    assert rb.formulas["bonus"](c=True) == 0
    assert rb.formulas["capped"](c=True) == rulecraft.runtime.dice.Dice((), 2, at_most=3)
    assert rb.procedures["damage"].run(dice=[4], c=False).outcome["r"] == 4
    assert rb.procedures["damage"].run(dice=[], c=True).outcome["r"] == 0


def test_a_conditional_of_a_number_and_dice_has_the_type_dice():
    with pytest.raises(RuleTypeError, match="cannot compare dice"):
        book("formula f(c: bool) = (if c then 0 else d6) < 3\n")


def test_d_percent_is_d100(empty):
    assert value(empty, "maximum(d%)") == 100
    assert value(empty, "maximum(2d%kh1)") == 100
    assert str(value(empty, "d% + 0")) == "d100"
    rb = book("procedure p \"P\" (c: bool):\n  roll r = d%\n  outcome done with r = r\n")
    assert rb.procedures["p"].run(dice=[100], c=True).outcome["r"] == 100
    assert "d%" in rulecraft.format_rules(
        HEAD + "procedure p \"P\" (c: bool):\n  roll r = d%\n  outcome done with r = r\n")


# BT: "*Even numbers are right side, odd numbers are left side".
@pytest.mark.parametrize("expression, expected", [
    ("42 mod 2", 0), ("99 mod 2", 1), ("7 + 5 mod 3", 9), ("2 * 7 mod 4", 2),
    ("14 mod 4 * 2", 4), ("-7 mod 3", 2), ("7 mod -3", -2), ("7.5 mod 2", 1.5),
    ("-7.5 mod 2", 0.5), ("10 mod 2.5", 0),
])
def test_mod_is_the_remainder_with_the_precedence_of_times(empty, expression, expected):
    assert value(empty, expression) == expected


def test_mod_reads_the_even_roll_rule():
    rb = book("formula side(roll: 1..100) \"Side\" = if roll mod 2 == 0 then \"right\" else \"left\"\n")
    assert (rb.formulas["side"](roll=42), rb.formulas["side"](roll=99)) == ("right", "left")


def test_mod_by_zero_and_of_dice_are_rule_errors(empty):
    with pytest.raises(CalculationError, match="division by zero"):
        value(empty, "5 mod (3 - 3)")
    with pytest.raises(RuleTypeError, match="dice"):
        value(empty, "d6 mod 2")


def test_mod_and_ranges_print_back_as_written():
    text = (HEAD + "\nformula f(x: integer) = (x + 1) mod 2 + x mod (3 * 2)\n\n"
            "formula g(x: integer) = sum(y for y in 1..x + 1)\n")
    assert rulecraft.format_rules(text) == text


def test_mod_is_a_level_of_nesting(empty):
    with pytest.raises(RuleSyntaxError, match="nested too deeply"):
        value(empty, " mod ".join(["7"] * 60))


def test_mod_is_still_a_name():
    rb = book("enum e \"E\": mod, b\nformula f(mod: integer) = mod mod 2 + mod\n")
    assert rb.formulas["f"](mod=7) == 8


def test_mod_is_still_a_field_name():
    rb = book("table gear \"Gear\" by item:\n  | Item | Mod | Weight |\n  | Axe  | 2   | 3      |\n"
              "formula f(item: item) = item.mod mod 2\n")
    assert rb.formulas["f"](item="Axe") == 0


# ---- 2. aggregates over every collection ---------------------------------------------------

COLLECTIONS = (
    "enum injury \"Injury\": Bruise, \"L Wound\", Wound, \"S Wound\", Disable, Sever, Death\n"
    "table weapons \"Weapons\" by weapon:\n"
    "  | Weapon | A   | Speed |\n"
    "  | Sword  | 2.0 | 3     |\n"
    "  | Dagger | 2.0 | 1     |\n"
    "  | Spear  | 1.8 | 3     |\n"
)


@pytest.fixture(scope="module")
def coll():
    return book(COLLECTIONS)


@pytest.mark.parametrize("expression, expected", [
    # Defect 5: "An aggregate over a table passes `check`, then exits 3 ('Table' object is not
    # iterable')": it goes over the table's keys.
    ("sum(weapons[w].a for w in weapons)", 5.8),
    ("sum(w.speed for w in weapon)", 7),
    ("count(i != \"Bruise\" for i in injury)", 6),
    ("sum(x for x in 1..6)", 21),
    ("max(x * x for x in -3..2)", 9),
    ("sum(x for x in 3..2)", 0),
    ("count(x mod 2 == 0 for x in 1..100)", 50),
    ("all(x > 0 for x in 1..6)", True),
    ("any(x == \"Death\" for x in injury)", True),
    ("argmin(weapons[w].speed for w in weapons)", "Dagger"),
    # ties go to the first in the collection's order
    ("argmax(weapons[w].speed for w in weapons)", "Sword"),
    ("argmax(x mod 3 for x in 1..6)", 2),
    ("sort(weapons[w].speed for w in weapons)", ("Dagger", "Sword", "Spear")),
    ("sort_descending(weapons[w].speed for w in weapons)", ("Sword", "Spear", "Dagger")),
    ("sort([weapons[w].speed, weapons[w].a] for w in weapons)", ("Dagger", "Spear", "Sword")),
    ("sort_descending(x mod 3 for x in 1..6)", (2, 5, 1, 4, 3, 6)),
    ("sort(-x for x in [3, 1, 2])", (3, 2, 1)),
    ("len(1..6) + len(injury) + len(weapons)", 16),
    ("3 in 1..6", True),
    ("7 in 1..6", False),
    ("\"Sword\" in weapons", True),
    ("\"Wound\" in injury", True),
    ("count(1..6, 3)", 1),
])
def test_aggregates_go_over_every_collection(coll, expression, expected):
    assert value(coll, expression) == expected


def test_aggregate_item_types_flow_into_the_loop_variable(coll):
    with pytest.raises(UnknownNameError, match="did you mean 'speed'"):
        value(coll, "sum(w.sped for w in weapons)")
    with pytest.raises(RuleTypeError, match="needs numbers"):
        value(coll, "sum(i for i in injury)")
    with pytest.raises(UnknownNameError, match="unknown injury 'Wond'"):
        value(coll, "count(i == \"Wond\" for i in injury)")
    with pytest.raises(RuleTypeError, match="a whole number"):
        value(coll, "sum(x for x in 1..2.5)")


def test_an_empty_argmin_is_a_rule_error(coll):
    with pytest.raises(RangeError, match="empty"):
        value(coll, "argmin(x for x in 3..2)")
    assert value(coll, "sort(x for x in 3..2)") == ()


def test_a_range_is_bounded_by_the_key_span_limit(coll):
    with pytest.raises(RangeError, match="key_span"):
        value(coll, "sum(x for x in 1..10000000000)")


def test_a_table_of_ranges_is_not_a_collection():
    with pytest.raises(RuleTypeError, match="1..10"):
        book("table t \"T\" by roll: 1..10 -> integer:\n  | Roll | V |\n  | 1-5  | 1 |\n"
             "  | 6-10 | 2 |\nformula f(x: integer) = sum(t[r] for r in t)\n")


FIGHTERS = (
    "enum characteristic \"Characteristic\": Strength, Dexterity, Constitution, \"Will Power\"\n"
    "enum luck \"Luck\": Strength, Luck\n"
    "enum mixed \"Mixed\": Strength, Weapon\n"
    "combatant fighter \"Fighter\":\n"
    "  strength: 1..20\n"
    "  dexterity: 1..20\n"
    "  constitution: 1..20\n"
    "  will_power: 1..20\n"
    "  weapon: name\n"
    "  state initiative: integer = 0\n"
)


def fighters_book(procedures: str) -> rulecraft.Rulebook:
    return book(FIGHTERS + procedures)


def fighter(rb, **given):
    figures = dict(strength=10, dexterity=10, constitution=10, will_power=10, weapon="Sword")
    figures.update(given)
    return rb.combatant(**figures)


def test_aggregates_over_lists_of_combatants():
    # d20 initiative: the order of a round, highest first, dexterity breaking ties.
    rb = fighters_book(
        "procedure order \"Order\" (a: fighter, b: fighter, c: fighter):\n"
        "  let first = argmax(x.initiative for x in [a, b, c])\n"
        "  let order = sort_descending([x.initiative, x.dexterity] for x in [a, b, c])\n"
        "  let weakest = argmin(x.strength for x in [a, b, c])\n"
        "  outcome done with (first = first.dexterity, weakest = weakest.strength,"
        " last = len(order))\n"
    )
    a = fighter(rb, dexterity=11, initiative=15, strength=9)
    b = fighter(rb, dexterity=14, initiative=15, strength=9)
    c = fighter(rb, dexterity=18, initiative=3, strength=12)
    done = rb.procedures["order"].run(a=a, b=b, c=c)
    assert dict(done.outcome) == {"first": 11, "weakest": 9, "last": 3}
    assert [x.dexterity for x in done.values["order"]] == [14, 11, 18]


# ---- 3. combatant[field] -------------------------------------------------------------------

# RS: "Three d6 are rolled and the total score added. This is then compared to an appropriate
# characteristic — usually Will Power or Dexterity ... and if it is less than or equal to the
# characteristic the Saving Throw is successful."
SAVING_THROW = (
    "procedure saving_throw \"Saving Throw\" (defender: fighter, against: characteristic):\n"
    "  roll throw = 3d6\n"
    "  if throw <= defender[against]:\n"
    "    outcome made with (throw = throw, needed = defender[against])\n"
    "  else:\n"
    "    outcome failed with (throw = throw, needed = defender[against])\n"
)


def test_a_combatants_field_named_by_an_enum():
    rb = fighters_book(SAVING_THROW)
    defender = fighter(rb, will_power=9, dexterity=14)
    throw = rb.procedures["saving_throw"]
    assert throw.run(dice=[3, 3, 4], defender=defender, against="Will Power").outcome.name == \
        "failed"
    made = throw.run(dice=[3, 3, 4], defender=defender, against="Dexterity").outcome
    assert (made.name, made["needed"]) == ("made", 14)


def test_a_combatants_field_by_an_enum_is_checked_when_compiling():
    with pytest.raises(RulecraftError, match="field of a fighter, named by luck: 'Luck'"):
        fighters_book(SAVING_THROW.replace("against: characteristic", "against: luck"))
    with pytest.raises(RulecraftError, match="different kinds of value"):
        fighters_book(SAVING_THROW.replace("against: characteristic", "against: mixed"))
    with pytest.raises(RulecraftError, match="did you mean 'dexterity'"):
        fighters_book(SAVING_THROW.replace("defender[against]", "defender[\"Dexterty\"]"))
    rb = fighters_book(
        "formula f(x: integer) = x\n"
        "procedure p \"P\" (defender: fighter):\n"
        "  let s = f(defender[\"Strength\"])\n"
        "  outcome done with s = s\n")
    assert rb.procedures["p"].run(defender=fighter(rb, strength=17)).outcome["s"] == 17


def test_a_combatants_field_by_a_name_known_only_at_run_time():
    rb = fighters_book(
        "procedure p \"P\" (defender: fighter, against: name):\n"
        "  let score = defender[against] + 1\n"
        "  outcome done with score = score\n")
    defender = fighter(rb, constitution=7)
    assert dict(rb.procedures["p"].run(defender=defender, against="Constitution").outcome) == \
        {"score": 8}
    with pytest.raises(RangeError, match="no field 'Luck'"):
        rb.procedures["p"].run(defender=defender, against="Luck")
    # A name is read as a field of the model's, never as a Python attribute.
    for name in ("__class__", "_values", "model", "__dict__"):
        with pytest.raises(RangeError, match="no field"):
            rb.procedures["p"].run(defender=defender, against=name)


def test_only_a_combatant_is_read_by_a_name_value():
    with pytest.raises(RuleTypeError, match="looked up"):
        fighters_book("formula f(x: integer) = x[\"Strength\"]\n")


# ---- 4. a range as the options of a choice -------------------------------------------------


def test_choose_from_a_range():
    rb = fighters_book(
        "procedure bid \"Bid\" (attacker: fighter):\n"
        "  choose n by attacker from 1..6 default 1\n"
        "  outcome done with n = n + 1\n")
    bid = rb.procedures["bid"]
    a = fighter(rb)
    assert dict(bid.run(attacker=a).outcome) == {"n": 2}
    assert dict(bid.run(attacker=a, choices={"n": 6}).outcome) == {"n": 7}
    with pytest.raises(RangeError, match="the options are 1, 2, 3, 4, 5, 6"):
        bid.run(attacker=a, choices={"n": 7})


# ---- 5. table expressions with their given figures (defect 11) ----------------------------


def test_eval_reads_a_table_expression_with_its_given_figures(rs):
    # Defect 11: "`eval` cannot evaluate an expression cell (`timings["AT"].time` with its given
    # figures)". The Timings Table's "AT Attack ... = base_speed + walk - 3".
    assert value(rs, 'timings["AT", base_speed = 14, walk = 6].time') == 17
    assert value(rs, 'timings["PY", shield = true].time') == 2
    assert value(rs, 'timings["ST"].time') == 1
    result = eval_cli("ringing_steel", 'timings["AT", base_speed = 14, walk = 6].time')
    assert (result.exit_code, result.output.strip()) == (0, "17")
    record = value(rs, 'timings["WB", walk = 6]')
    assert (record.time, record.action) == (12, "Walk Back")


def test_missing_givens_are_a_compile_error_naming_them(rs):
    with pytest.raises(RuleTypeError, match=r"needs walk"):
        value(rs, 'timings["AT", base_speed = 14].time')
    with pytest.raises(RulecraftError, match="did you mean 'walk'"):
        value(rs, 'timings["AT", base_speed = 14, wlak = 6].time')
    with pytest.raises(RuleTypeError, match="given twice"):
        value(rs, 'timings["AT", walk = 6, walk = 7, base_speed = 1].time')
    with pytest.raises(RuleTypeError, match="given figures"):
        value(rs, 'weapons["Sword", walk = 6].a')


def test_missing_givens_known_only_at_run_time_are_a_rule_error():
    rb = book(
        "table timings \"Timings\" by code given walk, run:\n"
        "  | Code | Time       |\n"
        "  | WF   | = walk     |\n"
        "  | RF   | = run      |\n"
        "  | ST   | 1          |\n"
        "formula time(code: code, walk: integer) = timings[code, walk = walk] + 1\n")
    assert rb.formulas["time"](code="WF", walk=6) == 7
    assert rb.formulas["time"](code="ST", walk=6) == 2
    with pytest.raises(RangeError, match="needs run"):
        rb.formulas["time"](code="RF", walk=6)


def test_givens_reach_bands_worked_out_from_them():
    # RS part IV, hits to a rider: "1 – Skill Sum ... Skill Sum = Skill of rider + Skill of
    # horse": a rule gives the figure in the lookup, as Python does (`lookup(9, skill_sum=8)`).
    rb = book(
        "table rider_hits \"Hits to the rider\" by bash_score: integer given skill_sum:\n"
        "  | Bash score    | Effect                          |\n"
        "  | below -10     | Attacker must move back one hex |\n"
        "  | -10 – 0       | None                            |\n"
        "  | 1 – skill_sum | Horse moves back one hex        |\n"
        "  | > skill_sum   | Rider knocked off               |\n"
        "formula effect(score: integer, rider: integer, horse: integer) ="
        " rider_hits[score, skill_sum = rider + horse]\n")
    effect = rb.formulas["effect"]
    assert effect(score=8, rider=5, horse=3) == "Horse moves back one hex"
    assert effect(score=9, rider=5, horse=3) == "Rider knocked off"
    assert effect(score=-3, rider=5, horse=3) == "None"


def test_a_lookup_with_givens_prints_back():
    text = HEAD + '\nformula f(w: integer) = timings["AT", base_speed = 14, walk = w].time\n'
    assert rulecraft.format_rules(text) == text


# ---- 6. defect 8: a blank cell is a rule error, never exit 3 -------------------------------


def test_a_blank_cell_plus_one_is_a_rule_error(rs):
    # Defect 8 (part): "`unusual_weapons["Net"].b + 1` ... exit 3".
    result = eval_cli("ringing_steel", 'unusual_weapons["Net"].b + 1')
    assert result.exit_code == 1, result.output
    assert 'unusual_weapons["Net"].b is none here (a blank table cell' in result.output
    result = eval_cli("ringing_steel", 'unusual_weapons["Net", skill = 5].b + 1')
    assert result.exit_code == 1, result.output
    assert "blank table cell" in result.output
    assert value(rs, 'unusual_weapons["Hand", skill = 8].b + 1') == 3
    with pytest.raises(RulecraftError):
        value(rs, 'unusual_weapons["Net", skill = 5].b + 1')


# ---- docs/language.md ----------------------------------------------------------------------


def test_the_documented_examples_compile_and_read_as_the_books_say():
    from rulecraft.compiler.evaluate import parse_dice_text

    rb = fighters_book(
        "formula impale(damage: dice) \"Impale damage\" = maximum(damage) + damage\n"
        "formula greatest_damage(damage: dice, mods: integer) = (maximum(damage) + mods) * 3\n"
        "formula side(roll: 1..100) \"Side\" = if roll mod 2 == 0 then \"right\" else \"left\"\n"
        + SAVING_THROW)
    assert str(rb.formulas["impale"](damage=parse_dice_text("d10+1"))) == "d10 + 12"
    assert rb.formulas["greatest_damage"](damage=parse_dice_text("2d4+12"), mods=3) == 69
    assert rb.formulas["side"](roll=3) == "left"


# ---- the grammar ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["1..", "x mod", "t[a = 1]", "..6"])
def test_broken_new_forms_are_rule_errors(empty, text):
    with pytest.raises(RulecraftError):
        value(empty, text)


# ---- lists made item by item, and lists joined --------------------------------------------------

def test_a_list_made_item_by_item_and_lists_joined():
    rb = rulecraft.compile('rulebook t "T"\n'
                           'formula names(n: 1..5) = [x * 2 for x in 1..n] + [0]\n')
    assert rb.formulas["names"](n=3) == (2, 4, 6, 0)
    text = 'rulebook t "T"\n\nformula names(n: 1..5) = [x * 2 for x in 1..n] + [0]\n'
    assert rulecraft.format_rules(text) == text


def test_lists_of_two_kinds_do_not_join():
    with pytest.raises(rulecraft.RuleTypeError, match="one kind of value"):
        rulecraft.compile('rulebook t "T"\nformula f(n: 1..5) = [n] + ["a"]\n')


def test_d_percent_in_a_table_cell_and_on_the_command_line():
    rb = rulecraft.compile('rulebook t "T"\ntable rolls by k:\n  | K | Dice |\n  | a | d%   |\n'
                           'formula top(k: k) = maximum(rolls[k])\n')
    assert rb.formulas["top"](k="a") == 100
    result = CliRunner().invoke(cli, ["roll", "d%", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert 1 <= int(result.output.split()[-1]) <= 100
