"""Issue 15, item 7: tables the seeds print that the language could not yet say — a key cell
naming several members of an enum, and a record table looked up by the band one of its columns
prints in each row."""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft
from rulecraft.compiler.sheets import render
from rulecraft.runtime.errors import RulecraftError

from samples import book, error_of  # tests/samples.py


# ---- key cells naming several members ------------------------------------------------------

# BT, Hit location modifiers: "+10% for upper arm / +0% for abdomen / -10% for chest/upper legs
# / -25% for head/legs at or below knees".
LOCATIONS = (
    'enum location: Head, Chest, "Upper arm", Abdomen, "Upper leg", "Lower leg"\n'
    'table aimed "Hit location modifiers" by location:\n'
    '  | Location               | Modifier |\n'
    '  | Upper arm              | 10       |\n'
    '  | Abdomen                | 0        |\n'
    '  | Chest/Upper leg        | -10      |\n'
    '  | Head, Lower leg        | -25      |\n'
    'table severity by roll: 1..2, location -> integer:\n'
    '  | Roll | Head, Chest | Upper arm/Abdomen | Upper leg, Lower leg |\n'
    '  | 1    | 3           | 2                 | 1                    |\n'
    '  | 2    | 4           | 3                 | 2                    |\n'
    'procedure aim(at: location):\n'
    '  roll d = d100\n'
    '  if d <= 50 + aimed[at]:\n'
    '    outcome hit with severity = severity[1, at]\n'
    '  outcome missed\n')


def test_a_cell_naming_several_members_gives_each_of_them_the_row():
    rb = book(LOCATIONS)
    aimed = rb.tables["aimed"]
    assert [aimed.lookup(x) for x in ("Upper arm", "Abdomen", "Chest", "Upper leg", "Head",
                                      "Lower leg")] == [10, 0, -10, -10, -25, -25]
    assert [rb.tables["severity"].lookup(2, x) for x in ("Head", "Chest", "Upper arm",
                                                         "Abdomen", "Lower leg")] == [
        4, 4, 3, 3, 2]
    assert aimed.key_values() == ("Upper arm", "Abdomen", "Chest", "Upper leg", "Head",
                                  "Lower leg")


def test_several_members_in_every_dice_mode_and_on_sheets():
    rb = book(LOCATIONS)
    p = rb.procedures["aim"]
    r = p.run(at="Head", dice=[25])
    assert (r.outcome, r.outcome["severity"]) == ("hit", 3)  # 25 <= 50 - 25
    assert p.run(at="Lower leg", dice=[26]).outcome == "missed"
    assert p.odds(at="Chest") == {"hit": Fraction(40, 100), "missed": Fraction(60, 100)}
    assert p.run(at="Chest", seed=3).outcome in ("hit", "missed")
    md = render(rb, "md")
    assert "| Head, Lower leg | -25 |" in md  # printed as the book prints it


@pytest.mark.parametrize("row, words", [
    ("  | Head, Foot     | -25 |", "unknown location 'Foot'"),
    ("  | Head/Abdomen   | -25 |", "table aimed has two entries for Abdomen"),
])
def test_a_wrong_member_or_a_member_twice_is_an_error_at_the_cell(row, words):
    text = LOCATIONS.replace("  | Head, Lower leg        | -25      |", row)
    message = error_of(text)
    assert "sample.rules:8:5: " in message and words in message


# ---- a record table looked up by a column of bands ---------------------------------------

# d20 modern, Combat Ranges: "L-Long: Barely in visual range ... M-Medium: In identifiable
# visual range ... S-Short: Engaged in close firearm combat / C-Close: Engaged in hand-to-hand
# combat". The feet are this file's (the seed names the ranges, not their distances).
RANGES = (
    'table combat_ranges "Combat Ranges" by range:\n'
    '  | Range  | Feet       | Penalty |\n'
    '  | Close  | 0-5        | 0       |\n'
    '  | Short  | 6-30       | -2      |\n'
    '  | Medium | 31-100     | -4      |\n'
    '  | Long   | 101 and up | -8      |\n'
    'formula range_penalty(feet: 0..1000) "Range penalty" = combat_ranges.feet[feet].penalty\n'
    'procedure shot(bonus: 0..10):\n'
    '  roll d = d20\n'
    '  let distance = d * 10\n'
    '  let range = combat_ranges.feet[distance]\n'
    '  roll hit = d20 + bonus + range.penalty\n'
    '  if hit >= 15:\n'
    '    outcome hit with range = range\n'
    '  outcome missed with range = range\n')


def test_the_row_whose_band_holds_a_value():
    rb = book(RANGES)
    f = rb.formulas["range_penalty"]
    assert [f(feet=x) for x in (0, 5, 6, 30, 31, 100, 101, 1000)] == [0, 0, -2, -2, -4, -4,
                                                                       -8, -8]


def test_bands_in_every_dice_mode_in_the_trace_and_on_sheets():
    rb = book(RANGES)
    p = rb.procedures["shot"]
    r = p.run(bonus=2, dice=[3, 17])  # 30 ft: Short, 17 + 2 - 2
    assert (r.outcome, r.outcome["range"]) == ("hit", "Short")
    assert "let range = Short" in r.explain()
    assert p.run(bonus=2, dice=[11, 17]).outcome == "missed"  # 110 ft: Long, 17 + 2 - 8
    odds = p.odds(bonus=0)
    assert odds["hit"] == sum(Fraction(n, 20) * Fraction(k, 20) for n, k in (
        (3, 4),  # 10-30 ft, Short: 17 and up
        (7, 2),  # 40-100 ft, Medium: 19 and up
        (10, 0)))  # 110-200 ft, Long: 23 and up, never
    assert p.run(bonus=1, seed=9).outcome in ("hit", "missed")
    md = render(rb, "md")
    assert "Range = the row of [Combat Ranges](#combat-ranges) whose Feet holds Distance" in md


def test_a_value_no_band_holds_is_a_clear_error_when_the_rule_runs():
    rb = book(RANGES.replace("  | Close  | 0-5        | 0       |\n", ""))  # from 6 ft
    with pytest.raises(RulecraftError) as caught:
        rb.formulas["range_penalty"](feet=3)
    assert "sample.rules:7:56: no row of table combat_ranges has a Feet band holding 3" in \
        str(caught.value)


@pytest.mark.parametrize("old, new, line, column, words", [
    ("| 31-100     |", "| 25-100     |", 6, 14, "25-100 overlaps 6-30"),
    ("| 31-100     |", "| lots       |", 6, 14, "'lots' is not a band of numbers (such as 3-7, "
                                                 "8 and up, >75) for the Feet column"),
    ("| 31-100     |", "| 40-100     |", 2, 1, "leaves 31-39 uncovered"),
    (".feet[feet].penalty", ".fet[feet].penalty", 8, 56, "unknown column of table "
                                                         "combat_ranges: 'fet'"),
    ('.feet[feet].penalty', '.feet["x"].penalty', 8, 75, "a band holds numbers"),
])
def test_band_errors_at_their_line_and_column(old, new, line, column, words):
    message = error_of(RANGES.replace(old, new, 1))
    assert f"sample.rules:{line}:{column}: " in message and words in message


# ---- the language reference's examples compile as printed ----------------------------------


def _doc_block(starting: str) -> str:
    from pathlib import Path
    import re

    text = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text("utf-8")
    return next(b for b in re.findall(r"```(?:rulecraft)?\n(.*?)```", text, re.S) if starting in b)


def test_the_reference_examples_compile():
    aimed = book(_doc_block("table aimed")).tables["aimed"]
    assert aimed.lookup("Lower leg") == -25 and aimed.lookup("Upper leg") == -10
    ranges = _doc_block("table combat_ranges").split("\n\n")[0] + "\n"
    rb = book(ranges + "formula band(feet: 0..500) = combat_ranges.feet[feet]\n")
    assert rb.formulas["band"](feet=31) == "Medium"
