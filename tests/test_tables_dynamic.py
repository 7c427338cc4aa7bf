"""Tables as the books print them (issue 6, "Tables" and its defects).

One column, one kind of value; bands per row where the book prints them per row; gaps in open
integer keys; band bounds written as expressions of the table's given figures; columns headed by
ranges; a rulebook's own damage notation (BT); the generated module naming the right rule text.
Each case quotes the seed, the issue or the defect it pins.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rulecraft
from rulecraft.dsl.formatter import format_file
from rulecraft.dsl.parser import parse
from rulecraft.runtime.dice import Dice, DiceTerm, ScriptedDice

HEAD = 'rulebook t "T"\n'


def book(text: str) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, filename="t.rules")


def errors(text: str) -> list[rulecraft.RulecraftError]:
    with pytest.raises(rulecraft.RulecraftError) as info:
        book(text)
    return sorted(getattr(info.value, "errors", [info.value]), key=lambda e: (e.line, e.column))


def only(found: list[rulecraft.RulecraftError]) -> rulecraft.RulecraftError:
    assert len(found) == 1, "\n".join(str(e) for e in found)
    return found[0]


def at(text: str, line: int, part: str) -> tuple[int, int]:
    """(line, column) of `part` on 1-based `line` of the rule file (HEAD is line 1)."""
    return line, (HEAD + text).splitlines()[line - 1].index(part) + 1


# -- 1. one column, one kind of value -------------------------------------------------------------

WEAPONS_TWO = ('table weapons "Weapons Table" by weapon:\n'
               '  | Weapon | A   | B |\n'
               '  | Sword  | two | 4 |\n'
               '  | Spear  | 1.8 | 4 |\n'
               '  | Club   | 1.8 | 2 |\n')


def test_text_in_a_number_column_is_an_error_at_its_cell():
    # Defect: "Text in a number column of a record table passes `check`; then
    # `weapons["Sword"].a * 2` prints `twotwo`".
    err = only(errors(WEAPONS_TWO + 'formula f() = weapons["Sword"].a * 2\n'))
    assert isinstance(err, rulecraft.TableError)
    assert (err.line, err.column) == at(WEAPONS_TWO, 4, "two")
    assert err.message == ("'two' is not a number, and column A holds numbers: write a number, "
                           "leave the cell blank, or declare the column (`a: name`)")
    assert str(err).splitlines()[1:] == ["      | Sword  | two | 4 |", "                 ^^^"]


def test_a_column_of_words_reads_a_number_as_its_text():
    # Ringing Steel's Timings Table notes: "Given in armour table", "20 from horse"; a column of
    # words takes a bare "10" as the words printed, so every cell of it is a name.
    rb = book('table notes "N" by code:\n'
              '  | Code | Notes                |\n'
              '  | WF   | Given in armour table |\n'
              '  | FA   | 20 from horse        |\n'
              '  | RI   | 10                   |\n')
    assert rb.tables["notes"].lookup("RI") == "10"
    found = errors('table notes "N" by code:\n  | Code | Notes |\n  | WF | Given |\n'
                   '  | RI | 10 |\nformula f() = notes["RI"] + 1\n')
    # Issue 15: reported at the cell that disagrees (line 4), naming it and the rule (line 6).
    assert "a name" in only(found).message and only(found).line == 4
    assert "'Given' (line 4)" in only(found).message and "line 6" in only(found).message


def test_a_blank_cell_stays_allowed_and_fails_at_the_rule_that_needs_it():
    # Ringing Steel, Unusual Weapons: the Net's B is printed blank; using it as a number is an
    # error where the rule runs, naming the rule.
    rb = book('table w "W" by weapon:\n  | Weapon | A | B |\n  | Net | 2.6 | |\n'
              '  | Whip | 2.6 | -4 |\nformula f(x: weapon) = w[x].b * 2\n')
    assert rb.formulas["f"]("Whip") == -8
    with pytest.raises(rulecraft.CalculationError) as info:
        rb.formulas["f"]("Net")
    assert info.value.line == 6


def test_a_declared_column_type_holds_for_every_cell():
    # Issue 6: "a column's type holds for the whole column ... inferred once or declared".
    text = ('enum weapon_type "Type": Cut, Stab\n'
            'table w "W" by weapon:\n'
            '  type: weapon_type\n'
            '  b: integer\n'
            '  notes: name\n'
            '  | Weapon | Type | B   | Notes |\n'
            '  | Sword  | Cut  | 4   | 12    |\n'
            '  | Spear  | Stap | 2.5 | 3     |\n')
    found = errors(text)
    assert [(e.line, e.column) for e in found] == [at(text, 9, "Stap"), at(text, 9, "2.5")]
    assert found[0].message == "unknown weapon_type 'Stap'; did you mean 'Stab'?"
    assert found[1].message == ("'2.5' is not a whole number, and column B is declared "
                                "integer: write a whole number or leave the cell blank")
    rb = book(text.replace("Stap", "Stab").replace("2.5", "2"))
    assert rb.tables["w"].lookup("Sword").notes == "12"  # declared words: the printed text


def test_an_unknown_column_or_type_in_a_declaration_is_named():
    text = ('table w "W" by weapon:\n  colour: name\n  b: integr\n'
            '  | Weapon | B |\n  | Sword | 4 |\n')
    found = errors(text)
    assert [e.message for e in found] == [
        "unknown table option colour: name (known: blank: above, results: across, "
        "gaps: allowed, or a column's type such as `b: number`)",
        "unknown column type 'integr'; did you mean 'integer'?"]


def test_mostly_dice_reads_a_number_as_a_fixed_roll():
    rb = book('table w "W" by weapon:\n  | Weapon | Damage |\n  | Sword | 2d6+1 |\n'
              '  | Club | d8 |\n  | Fist | 1 |\n')
    assert rb.tables["w"].lookup("Fist") == Dice((), 1)


def test_whole_number_cells_of_a_cross_table_must_be_whole():
    text = 'table t "T" by a: 1..2, b: 1..2 -> integer:\n  | A | 1 | 2 |\n  | 1 | 3 | 4.5 |\n' \
           '  | 2 | 5 | 6 |\n'
    err = only(errors(text))
    assert (err.line, err.column) == at(text, 4, "4.5")
    assert err.message == "'4.5' is not a whole number"


# -- 2. bands per row ------------------------------------------------------------------------------

RANGES = ('enum band "Range": Short, Long\n'
          'table ranges "Ranges" by weapon, distance: integer in cells -> band:\n'
          '  results: across\n'
          '  | Weapon | Short | Long |\n'
          '  | Bow    | 1-10  | >10  |\n'
          '  | Sling  | 1-5   | 6-20 |\n')


def test_bands_printed_per_row_are_that_rows_bands():
    # Defect 4: "A two-key table with bands (`ranges["Bow", 15]` where the Bow row prints `>10`)
    # says 'no entry': one band axis is shared across columns."
    rb = book(RANGES + 'formula f() = ranges["Bow", 15]\n')
    assert rb.formulas["f"]() == "Long"
    table = rb.tables["ranges"]
    assert [table.lookup("Bow", 10), table.lookup("Sling", 10), table.lookup("Sling", 5)] == \
        ["Short", "Long", "Short"]
    with pytest.raises(rulecraft.RangeError, match="no entry for Sling, 21"):
        table.lookup("Sling", 21)


def test_the_missiles_table_ranges_read_across():
    # Ringing Steel, part III: "The range part of the Missile table is then consulted to give the
    # range as short, medium, long or extreme": "Shortbow ... 2–15 16–40 41–75 >75",
    # "Knife ... 1–10 11–20 21–30".
    rb = book('enum missile_range "Range": Short, Medium, Long, Extreme\n'
              'table missile_ranges "Missiles Table, ranges" by missile, '
              'distance: integer in cells -> missile_range:\n'
              '  results: across\n'
              '  | Weapon   | Short | Medium | Long   | Extreme |\n'
              '  | Shortbow | 2–15  | 16–40  | 41–75  | >75     |\n'
              '  | Longbow  | 2–30  | 31–70  | 71–120 | >120    |\n'
              '  | Knife    | 1–10  | 11–20  | 21–30  |         |\n')
    table = rb.tables["missile_ranges"]
    assert [table.lookup("Shortbow", d) for d in (2, 15, 16, 75, 76)] == \
        ["Short", "Short", "Medium", "Long", "Extreme"]
    assert [table.lookup("Longbow", 75), table.lookup("Knife", 30)] == ["Long", "Long"]
    with pytest.raises(rulecraft.RangeError):
        table.lookup("Knife", 31)


def test_bands_of_one_row_must_not_overlap_and_other_rows_may_differ():
    text = RANGES.replace("| Sling  | 1-5   | 6-20 |", "| Sling  | 1-5   | 5-20 |")
    err = only(errors(text))
    assert err.message == "5-20 overlaps 1-5 at 5 (row Sling)"
    assert (err.line, err.column) == at(text, 7, "5-20")


def test_results_down_the_side_is_still_the_dodge_table():
    # Ringing Steel's dodge table: the bias across the top, the direction moved down the side.
    rb = book('enum side "Side": Left, Back, Right\n'
              'table dodge "Dodge" by bias: side, roll: 1..6 in cells -> side:\n'
              '  results: down\n'
              '  | Direction | Left | Back | Right |\n'
              '  | Left      | 1–3  | 1    | 1     |\n'
              '  | Right     | 4–5  | 2–5  | 2–3   |\n'
              '  | Back      | 6    | 6    | 4–6   |\n')
    assert rb.tables["dodge"].lookup("Left", 5) == "Right"


# -- 3. gaps in open integer keys ------------------------------------------------------------------

def test_a_gap_in_an_open_integer_key_is_an_error_naming_it():
    # Issue 6: "Gaps in open integer keys reported like gaps in closed ones" (`<0`, `1-5`, `>10`
    # leave 6..10 uncovered).
    text = ('table t "T" by x: integer -> name:\n  | X | V |\n  | <0 | a |\n  | 1-5 | b |\n'
            '  | >10 | c |\n')
    err = only(errors(text))
    assert isinstance(err, rulecraft.TableError)
    assert err.message == ("table t leaves 0, 6-10 uncovered; its rows must leave no gap "
                           "(write `gaps: allowed` if the book leaves one on purpose)")
    assert err.line == 2


def test_a_gap_in_one_row_of_bands_names_the_row():
    text = RANGES.replace("| Sling  | 1-5   | 6-20 |", "| Sling  | 1-5   | 8-20 |")
    assert only(errors(text)).message.startswith("table ranges leaves 6-7 uncovered (row Sling)")


def test_a_book_that_leaves_a_gap_on_purpose_says_so():
    rb = book('table t "T" by x: integer -> name:\n  gaps: allowed\n  | X | V |\n'
              '  | <0 | a |\n  | 1-5 | b |\n  | >10 | c |\n')
    with pytest.raises(rulecraft.RangeError, match="no row for X 7"):
        rb.tables["t"].lookup(7)


# -- 4. band bounds that are expressions of given figures ------------------------------------------

RIDER = ('table rider_hits "Hits to the rider" by bash_score: integer given skill_sum:\n'
         '  | Bash score    | Effect                          |\n'
         '  | below -10     | Attacker must move back one hex |\n'
         '  | -10 – 0       | None                            |\n'
         '  | 1 – skill_sum | Horse moves back one hex        |\n'
         '  | > skill_sum   | Rider knocked off               |\n')


def test_a_band_bound_may_be_the_skill_sum():
    # Ringing Steel, part IV: "1 – Skill Sum Horse moves back one hex / > Skill Sum Rider knocked
    # off. Skill Sum = Skill of rider + Skill of horse."
    table = book(RIDER).tables["rider_hits"]
    assert table.lookup(5, skill_sum=8) == "Horse moves back one hex"
    assert table.lookup(8, skill_sum=8) == "Horse moves back one hex"
    assert table.lookup(9, skill_sum=8) == "Rider knocked off"
    assert table.lookup(9, skill_sum=12) == "Horse moves back one hex"
    assert table.lookup(-11, skill_sum=8) == "Attacker must move back one hex"
    assert table.lookup(0) == "None"  # a printed band needs no figures


def test_a_band_bound_may_be_an_expression_of_several_figures():
    table = book(RIDER.replace("given skill_sum", "given rider, horse")
                 .replace("1 – skill_sum", "1 – rider + horse")
                 .replace("> skill_sum  ", "> rider + horse")).tables["rider_hits"]
    assert table.lookup(8, rider=5, horse=3) == "Horse moves back one hex"
    assert table.lookup(9, rider=5, horse=3) == "Rider knocked off"


def test_a_band_needing_figures_says_which():
    table = book(RIDER).tables["rider_hits"]
    with pytest.raises(rulecraft.RangeError) as info:
        table.lookup(5)
    assert info.value.message == ("table rider_hits needs skill_sum for its row `1 – skill_sum`: "
                                  "look it up with skill_sum=…")


def test_a_bound_that_cannot_be_worked_out_names_the_table_and_the_bound():
    table = book(RIDER.replace("1 – skill_sum", "1 – 10 / skill_sum")).tables["rider_hits"]
    with pytest.raises(rulecraft.CalculationError) as info:
        table.lookup(5, skill_sum=0)
    assert info.value.message == "table rider_hits: a division by zero in `10 / skill_sum`"
    assert info.value.line == 2


def test_a_band_bound_naming_no_given_figure_is_an_error_at_the_cell():
    text = RIDER.replace("1 – skill_sum", "1 – skil_sum")
    err = only(errors(text))
    assert (err.line, err.column) == at(text, 6, "skil_sum")
    assert "skil_sum" in err.message and "skill_sum" in err.message


def test_worked_out_bands_in_a_declared_span_leave_printed_rows_first():
    # Ringing Steel, part IV: "A d20 is rolled, and if this is more than 3 x rider's skill he
    # falls. A roll of 20 always throws and a roll of one never."
    table = book('table thrown "Thrown by a shying horse" by roll: 1..20 given rider_skill:\n'
                 '  | Roll                | Result   |\n'
                 '  | 1                   | stays on |\n'
                 '  | 2 – 3 * rider_skill | stays on |\n'
                 '  | > 3 * rider_skill   | falls    |\n'
                 '  | 20                  | falls    |\n').tables["thrown"]
    assert [table.lookup(r, rider_skill=7) for r in (1, 19, 20)] == \
        ["stays on", "stays on", "falls"]
    assert [table.lookup(r, rider_skill=2) for r in (1, 6, 7)] == ["stays on", "stays on", "falls"]
    with pytest.raises(rulecraft.RangeError, match="no row for Roll 21 .it covers 1 to 20."):
        table.lookup(21, rider_skill=7)


# -- 5. columns headed by ranges -------------------------------------------------------------------

DEFENCE = ('table missile_defence "Missile Defense" by action, distance{} -> integer:\n'
           '  | Action   | 2-15 | 16-40 | 41-75 | >75 |\n'
           '  | Standing | 10   | 12    | 15    | 19  |\n'
           '  | Walking  | 11   | 13    | 16    | 20  |\n')


@pytest.mark.parametrize("declared", ["", ": integer"])
def test_a_header_of_ranges_is_a_numeric_column_key(declared):
    # Issue 6: "the Missiles Table's header "2-15 16-40 41-75 >75" (column labels that are
    # ranges/bands) used as the column key of a cross table (lookup by a number finds the column
    # whose range holds it)."
    rb = book(DEFENCE.format(declared) + 'formula f(d: integer) = missile_defence["Walking", d]\n')
    table = rb.tables["missile_defence"]
    assert [table.lookup("Standing", d) for d in (2, 15, 16, 40, 75, 76, 500)] == \
        [10, 10, 12, 12, 15, 19, 19]
    assert rb.formulas["f"](41) == 16


def test_a_header_of_ranges_leaving_a_gap_is_reported():
    # As a gap down the side is reported once per column, one across the top is once per row.
    found = errors(DEFENCE.format("").replace("16-40", "17-40"))
    assert [e.message.split(";")[0] for e in found] == [
        "table missile_defence leaves 16 uncovered (row Standing)",
        "table missile_defence leaves 16 uncovered (row Walking)"]


# -- 6. a rulebook's own dice notation ------------------------------------------------------------

BT_NOTATION = (
    '# BT: "Damage is written as a number. If no symbol follows the number then 2d4 are added.\n'
    '# If a * follows then 2d6 are added. If a ^ follows then 2d8 are added."\n'
    'notation damage "Damage":\n'
    '  none adds 2d4\n'
    '  "*" adds 2d6\n'
    '  "^" adds 2d8\n')

BT_WEAPONS = (BT_NOTATION +
              'table bt_weapons "Weapons" by weapon:\n'
              '  damage: damage\n'
              '  | Weapon      | Damage  | Type |\n'
              '  | Knife       | 12      | PR   |\n'
              '  | Sword       | 12*     | SL   |\n'
              '  | Greataxe    | 12^     | CH   |\n'
              '  | Fist        | 3 + 1d6 | CR   |\n'
              '  | Spell       | 3d6     | NR   |\n')


def test_bt_damage_marks_read_as_dice():
    # BT: "If no symbol follows the number then 2d4 are added. If a * follows then 2d6 are
    # added. If a ^ follows then 2d8 are added. If it is irregular damage it will be fully
    # written out as [constant] + XdY. If the constant is 0 it will simply be XdY."
    table = book(BT_WEAPONS).tables["bt_weapons"]
    assert table.lookup("Knife").damage == Dice((DiceTerm(2, 4),), 12)
    assert table.lookup("Sword").damage == Dice((DiceTerm(2, 6),), 12)
    assert table.lookup("Greataxe").damage == Dice((DiceTerm(2, 8),), 12)
    assert table.lookup("Fist").damage == Dice((DiceTerm(1, 6),), 3)
    assert table.lookup("Spell").damage == Dice((DiceTerm(3, 6),), 0)


def test_bt_damage_rolls_from_the_table():
    rb = book(BT_WEAPONS + 'procedure hit(w: weapon):\n  roll damage = bt_weapons[w].damage\n'
              '  outcome hit with damage = damage\n')
    result = rb.procedures["hit"].run(dice=ScriptedDice([6, 5]), w="Sword")
    assert result.values["damage"] == 23
    odds = rb.procedures["hit"].odds(by="damage", w="Greataxe")
    assert min(odds) == 14 and max(odds) == 28


def test_a_damage_cell_without_a_known_mark_is_an_error_at_the_cell():
    text = BT_WEAPONS.replace("| 12^     |", "| 12%     |")
    err = only(errors(text))
    line = text.splitlines().index("  | Greataxe    | 12%     | CH   |") + 2
    assert (err.line, err.column) == at(text, line, "12%")
    assert err.message == ("'12%' is not damage: write a number followed by one of its marks "
                           "(12, 12*, 12^) or dice such as 3 + 1d6")


def test_a_cross_table_of_damage():
    rb = book(BT_NOTATION + 'table blows "Blows" by size: 1..2, kind -> damage:\n'
              '  | Size | Punch | Kick |\n  | 1 | 2 | 4* |\n  | 2 | 3^ | 6 |\n')
    assert rb.tables["blows"].lookup(1, "Kick") == Dice((DiceTerm(2, 6),), 4)


def test_a_notation_lists_each_mark_once():
    err = only(errors(BT_NOTATION + '  "*" adds 2d10\n'))
    assert err.message == "the mark \"*\" is listed twice"
    assert err.line == 8


def test_a_notation_prints_back_as_written():
    tree = parse(HEAD + BT_NOTATION)
    text = format_file(tree)
    assert 'notation damage "Damage":\n  none adds 2d4\n  "*" adds 2d6\n  "^" adds 2d8\n' in text
    assert format_file(parse(text)) == text


# -- 7. the generated module names the rule it came from -------------------------------------------

def test_an_expression_cell_is_labelled_with_its_own_text():
    # Defect 13: "In the generated module an expression cell's comment shows the wrong rule text
    # (the Unusual Weapons' `= skill - 6` is labelled with the file's first words)."
    rb = rulecraft.load("ringing_steel")
    line = rb.source.splitlines().index(
        next(x for x in rb.source.splitlines() if "= skill - 6" in x)) + 1
    generated = rb.python_source.splitlines()
    labels = [generated[i + 1].strip() for i, x in enumerate(generated)
              if x.startswith("def cell_")]
    assert f"# {rb.filename}:{line}: skill - 6" in labels
    assert not any(":1: " in label for label in labels)


# -- lookups with the wrong number of keys --------------------------------------------------------

def test_a_lookup_with_too_many_keys_is_a_clean_error():
    table = book('table t "T" by k -> integer:\n  | K | V |\n  | a | 1 |\n').tables["t"]
    with pytest.raises(rulecraft.RangeError, match="looked up by 1 key"):
        table.lookup("a", 2)
    with pytest.raises(rulecraft.RangeError, match="looked up by 1 key"):
        table.lookup(2, "a")


# -- the language reference's examples compile as printed ----------------------------------------

def _doc_block(starting: str) -> str:
    text = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text("utf-8")
    blocks = re.findall(r"```(?:rulecraft)?\n(.*?)```", text, re.S)
    return next(b for b in blocks if starting in b)


@pytest.mark.parametrize("starting, table, keys, given, expected", [
    ("table missile_ranges", "missile_ranges", ("Longbow", 75), {}, "Long"),
    ("table rider_hits", "rider_hits", (9,), {"skill_sum": 8}, "Rider knocked off"),
    ("notation damage", "bt_weapons", ("Sword",), {}, None),
])
def test_the_reference_examples_compile(starting, table, keys, given, expected):
    found = book(_doc_block(starting)).tables[table].lookup(*keys, **given)
    if expected is None:
        assert found.damage == Dice((DiceTerm(2, 6),), 12)
    else:
        assert found == expected
