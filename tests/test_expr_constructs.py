"""Issue 15, item 7: the expression constructs the seeds need — local names in formulas, order
on an enum's members, lists filtered, indexed and grouped, a parameter defaulting to dice,
removing a map entry, and recursion down to a declared bound.

Each rule file is a small transcription of the seed passage it quotes."""

from __future__ import annotations

from fractions import Fraction

import pytest

import rulecraft
from rulecraft.compiler.sheets import render
from rulecraft.runtime.errors import RulecraftError

HEAD = 'rulebook sample "Sample"\n'


def book(text: str) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, filename="sample.rules")


def error_of(text: str) -> str:
    with pytest.raises(RulecraftError) as caught:
        book(text)
    return str(caught.value)


# ---- local names in formulas: `… where a = …, b = …` --------------------------------------

# RS, Feints: "The detector's skill less his opponent's skill plus a d10 roll is calculated. If
# the result is seven or less then the feint is detected."
FEINT = (
    'formula feint_detected(detector: 0..30, feinter: 0..30, roll: 1..10) "Feint detected" = '
    'result <= 7 where result = difference + roll, difference = detector - feinter\n')


def test_where_names_a_step_of_the_working_and_later_locals_read_earlier_ones():
    rb = book(FEINT)
    f = rb.formulas["feint_detected"]
    assert f(detector=9, feinter=12, roll=10) is True  # 9 - 12 + 10 = 7: "seven or less"
    assert f(detector=9, feinter=12, roll=1) is True
    assert f(detector=12, feinter=9, roll=5) is False  # 8
    assert f.where == (("result", "difference + roll"), ("difference", "detector - feinter"))


def test_where_is_shown_by_show_and_on_sheets_in_words():
    rb = book(FEINT)
    md = render(rb, "md")
    assert "where Result = Difference + Roll" in md
    assert "and Difference = Detector − Feinter" in md
    html = render(rb, "html")
    assert 'class="equation where">where <span class="m-name">Result</span>' in html


def test_where_round_trips_through_the_formatter():
    once = rulecraft.format_rules(HEAD + FEINT)
    assert FEINT in once and rulecraft.format_rules(once) == once


@pytest.mark.parametrize("locals_, line, column, words", [
    ("x = detector + q", 3, 85, "unknown name 'q'"),
    ("x = y + 1, y = x", 3, 70, "worked out from each other in a circle: x → y → x"),
    ("roll = 3", 3, 70, "the local name roll hides the parameter roll of f"),
    ("x = 1, x = 2", 3, 77, "the local name x is given twice in f"),
])
def test_where_errors_name_the_local_at_its_line_and_column(locals_, line, column, words):
    message = error_of('\nformula f(detector: 0..30, feinter: 0..30, roll: 1..10) = roll '
                       f'where {locals_}\n')
    assert f"sample.rules:{line}:{column}: " in message and words in message


def test_a_local_used_in_a_procedure_runs_seeded_scripted_and_in_exact_odds():
    rb = book(FEINT + (
        "procedure detect(detector: 0..30, feinter: 0..30):\n"
        "  roll r = d10\n"
        "  if feint_detected(detector, feinter, r):\n"
        "    outcome detected\n"
        "  outcome missed\n"))
    p = rb.procedures["detect"]
    assert p.run(detector=9, feinter=12, dice=[7]).outcome == "detected"  # 9 - 12 + 7 = 4
    assert p.run(detector=9, feinter=12, dice=[10]).outcome == "detected"  # 7
    assert p.run(detector=15, feinter=12, dice=[5]).outcome == "missed"  # 8
    assert p.odds(detector=15, feinter=12) == {"detected": Fraction(4, 10),
                                                "missed": Fraction(6, 10)}
    assert p.run(detector=9, feinter=9, seed=1).outcome in ("detected", "missed")
