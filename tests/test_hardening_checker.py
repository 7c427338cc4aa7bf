"""The checker has no holes: whatever passes `check` runs or gives a rule error.

Each case is from the hardening issue, items 8–11; each failed (a Python exception, a wrong
value, or silence) before the fix.
"""

from __future__ import annotations

import gc
from decimal import Decimal
from fractions import Fraction

import pytest

import rulecraft

HEAD = 'rulebook checker "Checker"\n'


def compiled(text: str) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, "checker.rules")


def rule_error(text: str) -> rulecraft.RulecraftError:
    with pytest.raises(rulecraft.RulecraftError) as info:
        compiled(text)
    err = info.value
    for e in getattr(err, "errors", [err]):
        assert e.line is not None and e.line >= 2 and e.column is not None, str(e)
    return err


def message(err: rulecraft.RulecraftError) -> str:
    return "\n".join(e.message for e in getattr(err, "errors", [err]))


# -- 8. ill-typed rules compile, then crash ------------------------------------------------------

@pytest.mark.parametrize("body, words", [
    # "`min(x, sum(i for i in []), "Bruise")`"
    ('min(x, sum(i for i in []), "Bruise")', "min needs numbers"),
    # "`len`, `count`, `flatten`, `in`, `sum(... for y in x)` on a number"
    ("len(x)", "len needs a list or a map"),
    ("count(x, 1)", "count needs a list or a map"),
    ("flatten(x)", "flatten needs a map of lists"),
    ("1 in x", "looks in a list or a map"),
    ("sum(y for y in x)", "goes over a list or a map"),
    ("any(y for y in [1, 2])", "must be yes or no"),
    ("[1, \"Bruise\"]", "one kind of value"),
    ("dice(x, \"six\")", "whole numbers"),
])
def test_ill_typed_expressions_are_refused_when_compiling(body, words):
    assert words in message(rule_error(f"formula f(x: 1..3) = {body}\n"))


def test_an_empty_list_is_a_list_of_nothing_not_of_anything():
    rb = compiled("formula f(x: 1..3) = x + sum(i for i in []) + len([])\n")
    assert rb.formulas["f"](2) == 2


def test_a_formula_parameter_without_a_type_is_refused():
    # "`formula f(x) = x + 1` called with `"a"`"
    assert "needs a type" in message(rule_error("formula f(x) = x + 1\n"))


def test_a_single_column_table_is_not_read_as_a_record():
    # "a single-column table read as a record (`calc["B"].time` → `AttributeError`)"
    text = """table calc "Calc" by key given s:
  | Key | Time  |
  | A   | 1     |
  | B   | = s + 1 |
"""
    rb = compiled(text)
    for key in ("A", "B"):
        with pytest.raises(rulecraft.RulecraftError):
            rulecraft.evaluate(rb, f'calc["{key}"].time')
    with pytest.raises(rulecraft.RulecraftError):
        rulecraft.evaluate(rb, 'calc["B"] + 1')



@pytest.mark.parametrize("use", ["calc[k].time", "calc[k] + 1", "grid[k, 1].a", "grid[k, 2] * 2"])
def test_an_expression_cell_is_not_read_as_a_value_by_a_rule(use):
    # "a record cell written as an expression, then read with `.a`": the column holding an
    # `= …` cell is a table expression, so reading it as a number or a record is a rule error
    # when compiling, not an AttributeError when running.
    text = f"""table calc "Calc" by key: 1..2 given s:
  | Key | Time    |
  | 1   | 1       |
  | 2   | = s + 1 |
table grid "Grid" by key: 1..2, j: 1..2 -> (a, b) given s:
  | Key | 1     | 2   |
  | 1   | = s   | 1/2 |
  | 2   | 1/2   | 1/2 |
formula f(k: 1..2) = {use}
"""
    err = rule_error(text)
    assert "table expression" in message(err)
    assert [e.line for e in getattr(err, "errors", [err])] == [10]  # the formula's line

# -- 9. missing checks ---------------------------------------------------------------------------

def test_a_named_argument_does_not_silently_replace_a_positional_one():
    # "a named argument silently overrides a positional one (`g(x, a = 2)` drops `x`)"
    err = rule_error("formula g(x: 1..3, a: 1..3 = 1) = x + a\n"
                     "formula h(x: 1..3) = g(x, x = 2)\n")
    assert "given x twice" in message(err)


@pytest.mark.parametrize("text", [
    "formula g(x: 1..3 = 7) = x\n",
    'enum e: A, B\nformula g(x: e = "C") = x\n',
    "formula g(x: bool = 1) = x\n",
    # "`state hp: 1..20 = 30` gives 30"
    "combatant c:\n  level: 1..20\n  state hp: 1..20 = 30\n",
    "combatant c:\n  level: 1..20\n  state ok: bool = 3\n",
])
def test_defaults_are_checked_against_their_declared_type(text):
    assert "default" in message(rule_error(text))


def test_a_combatant_field_declared_twice_is_refused():
    # "a combatant field declared twice is accepted"
    err = rule_error("combatant c:\n  hp: 1..20\n  hp: 1..20\n")
    assert "declared twice" in message(err)


def test_add_to_a_yes_no_state_is_refused():
    # "`add true` to a `bool` state gives 2"
    err = rule_error("combatant c:\n  hp: 1..20\n  state ok: bool = false\n"
                     "procedure p(a: c):\n  add true to a.ok\n  outcome done\n")
    assert "add works on numbers and lists" in message(err)


# -- 10. ordinary values from Python -------------------------------------------------------------

NUMBERS = "formula f(x: number) = x + 1\nformula g(x: 1..10) = x\n"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf"), Decimal("NaN"),
                                   Decimal("Infinity")])
def test_nan_and_infinity_are_refused_with_the_parameter_named(value):
    # "from Python, `nan`/`inf` arguments"
    rb = compiled(NUMBERS)
    for name in ("f", "g"):
        with pytest.raises(rulecraft.RangeError, match="x must be"):
            rb.formulas[name](value)


def test_a_list_where_a_name_belongs_is_a_rule_error():
    # "a list where a name belongs"
    rb = compiled('enum e: A, B\nformula f(x: e) = x\nformula g(x: name) = x\n')
    for name in ("f", "g"):
        with pytest.raises(rulecraft.RangeError, match="x must be"):
            rb.formulas[name](["A"])
        with pytest.raises(rulecraft.RangeError, match="x must be"):
            rb.formulas[name]({"A": 1})


def test_a_missing_record_field_by_name_is_a_rule_error():
    # "`armour["Standard"]["Neck"]` (`KeyError`)"
    rb = compiled('table armour "Armour" by armour:\n  | Armour | Head | Arm |\n'
                  "  | Standard | 1 | 2 |\n")
    with pytest.raises(rulecraft.RangeError, match="no field for 'Neck'"):
        rulecraft.evaluate(rb, 'armour["Standard"]["Neck"]')
    assert rulecraft.evaluate(rb, 'armour["Standard"]["Arm"]') == 2


def test_exact_values_from_python_are_read_exactly():
    rb = compiled(NUMBERS)
    assert rb.formulas["f"](Fraction(1, 4)) == 1.25
    assert rb.formulas["f"](Decimal("2.5")) == 3.5
    assert rb.formulas["f"](2.0) == 3


def test_a_self_containing_list_is_refused():
    rb = compiled("formula f(x: list integer) = sum(i for i in x)\n")
    loop: list = [1]
    loop.append(loop)
    with pytest.raises(rulecraft.RangeError):
        rb.formulas["f"](loop)
    assert rb.formulas["f"]([1, 2, 3]) == 6


# -- 11. evaluate does not grow the rulebook -----------------------------------------------------

def test_evaluate_leaves_the_compiled_rulebook_as_it_was():
    # "`rulecraft.evaluate` leaks: each call with an aggregate adds a constant to the compiled
    # rulebook for good (50,000 calls: 165 MB, and each call 9× slower)."
    from rulecraft.compiler.build import COMPILED

    rb = compiled("formula f(x: 1..3) = x\n")
    scope, namespace = COMPILED[rb]
    before = (len(scope.constants), len(namespace))
    for _ in range(50):
        assert rulecraft.evaluate(rb, "max(i * 1.5 for i in [1, 2, 3]) + f(2)") == 6.5
    gc.collect()
    assert (len(scope.constants), len(namespace)) == before


# -- found by the fuzz tests ---------------------------------------------------------------------

BLANKS = """table w "W" by weapon:
  | Weapon | A | B |
  | Sword  | 1 |   |
  | Axe    | 2 | 3 |
formula f(x: weapon) = x.b + 1
formula g(x: weapon) = max(x.b, 0)
formula h(x: weapon) = if x.b == none then 0 else x.b * 2
"""


def test_a_blank_cell_used_as_a_number_is_a_rule_error_at_the_rule():
    # Unusual Weapons leaves DS and DC blank for the Foot, the Lance and the Whip: a rule doing
    # arithmetic with a blank cell stops with a rule error at its own line, not a TypeError.
    rb = compiled(BLANKS)
    assert rb.formulas["f"](x="Axe") == 4
    for name in ("f", "g"):
        with pytest.raises(rulecraft.CalculationError, match="x.b is none here") as info:
            rb.formulas[name](x="Sword")
        assert info.value.line == (6 if name == "f" else 7)
    assert rb.formulas["h"](x="Sword") == 0  # comparing with none is how a rule asks
    assert rb.formulas["h"](x="Axe") == 6


def test_a_name_set_on_one_path_only_is_refused_where_it_is_read():
    err = rule_error("""procedure p(n: 1..2):
  if n == 1:
    let bonus = 3
  let total = bonus + 1
  outcome done with (total = total)
""")
    assert "bonus is not set on every path to here" in message(err)
    assert err.line == 5


def test_a_name_set_on_every_path_is_read_after_the_if():
    rb = compiled("""procedure p(n: 1..2):
  if n == 1:
    let bonus = 3
  else:
    let bonus = none
  let total = if bonus == none then 0 else bonus + 1
  outcome done with (total = total)
""")
    assert rb.procedures["p"].run(n=1).outcome["total"] == 4
    assert rb.procedures["p"].run(n=2).outcome["total"] == 0


def test_a_table_with_a_dashed_rule_formats():
    text = 'rulebook t "T"\ntable w by k:\n  | Name | A |\n  |---|---|\n  | Sword | 1 |\n'
    formatted = rulecraft.format_rules(text)
    assert "| ----- | --- |" in formatted
    assert rulecraft.compile(formatted).tables["w"].lookup("Sword") == 1


def test_an_expression_cell_given_self_can_be_worked_out():
    rb = rulecraft.compile('rulebook t "T"\ntable timings "T" by code given self:\n'
                           '  | Code | Time       |\n  | AT   | = self + 1 |\n')
    assert rb.tables["timings"].lookup("AT")(self=3) == 4


def test_a_list_grown_in_a_loop_is_bounded_by_a_named_limit():
    # Found by the long fuzz run: each pass's list is kept in the trace, so 30,000 passes took
    # 3.5 GB. A list a rule joins holds at most `list_items` (10,000) items.
    rb = compiled("procedure p (n: integer):\n  let picks = []\n  for each i in 1..n:\n"
                  "    let picks = picks + [i]\n  outcome done with (count = len(picks))\n")
    assert rb.procedures["p"].run(n=100).outcome["count"] == 100
    with pytest.raises(rulecraft.RangeError, match="list_items"):
        rb.procedures["p"].run(n=20_000)


def test_a_given_figure_named_self_reaches_its_cell():
    # Found by the long fuzz run: `g["A", self = n]` raised a TypeError.
    rb = rulecraft.compile('rulebook t\ntable g by code given self:\n  | Code | Time   |\n'
                           '  | A    | = self |\nformula f(n: integer) = g["A", self = n]\n')
    assert rb.formulas["f"](n=3) == 3
    assert rulecraft.evaluate(rb, 'g["A", self = 2]') == 2
