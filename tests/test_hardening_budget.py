"""A rule file cannot make a call hang by going over collections: every aggregate and list made
item by item spends one budget of items per evaluation (`aggregate_items`), and a range is never
built just to be looked in or gone over.

The hardening issue: "A rule the language cannot say... never a traceback". The fuzz finding it
pins: `formula f(n: 1..10) = sum(sum(y for y in 1..1000000) for x in 1..1000000)` ran
(practically) forever when it was worked out, and `x in 1..1000000` built the whole range each
time it was asked.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import rulecraft
from rulecraft.cli import cli

HEAD = 'rulebook budget "Budget"\n'
NESTED = "formula f(n: 1..10) = sum(sum(y for y in 1..1000000) for x in 1..1000000)\n"
SMALL = rulecraft.Limits(aggregate_items=1000)


def compiled(text: str, limits: rulecraft.Limits = rulecraft.DEFAULT_LIMITS) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, "budget.rules", limits)


def budget_error(call: Callable[[], object], line: int) -> rulecraft.RangeError:
    """The error `call` stops with: the limit named, with how to raise it, at `line` of the file."""
    with pytest.raises(rulecraft.RangeError) as caught:
        call()
    err = caught.value
    assert "aggregate_items" in err.message
    assert "--limit aggregate_items=N" in err.message
    assert (err.filename, err.line) == ("budget.rules", line)
    assert str(err).startswith(f"budget.rules:{line}:") and "^" in str(err)
    return err


def invoke(*args: str) -> Result:
    """Run the click command in-process; a Python exception escaping a command fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


# -- the budget --------------------------------------------------------------------------------

def test_the_limit_has_a_generous_default_and_is_checked_like_the_others() -> None:
    assert rulecraft.DEFAULT_LIMITS.aggregate_items == 5_000_000
    assert "aggregate_items" in rulecraft.Limits.names()
    with pytest.raises(rulecraft.RangeError, match="aggregate_items"):
        rulecraft.Limits(aggregate_items=0)


def test_nested_aggregates_over_huge_ranges_stop_with_the_limit_named() -> None:
    rb = compiled(NESTED)
    err = budget_error(lambda: rb.formulas["f"](n=1), line=2)
    assert "5000000" in err.message
    assert "sum(sum(y for y in 1..1000000)" in str(err)  # the rule's own line, under the caret


def test_one_aggregate_over_the_largest_range_is_well_within_the_default() -> None:
    rb = compiled("formula total(n: 1..10) = sum(x for x in 1..1000000) + n\n")
    assert rb.formulas["total"](n=1) == 500_000_500_001


def test_the_aggregates_an_evaluation_nests_share_its_budget_through_formula_calls() -> None:
    rb = compiled("formula inner(n: integer) = sum(y for y in 1..n)\n"
                  "formula outer(n: integer) = sum(inner(100) for x in 1..n)\n", SMALL)
    assert rb.formulas["outer"](n=9) == 9 * 5050  # 9 items, then 9 times 100: 909
    budget_error(lambda: rb.formulas["outer"](n=10), line=2)  # 1010: stopped in inner


def test_a_table_expression_worked_out_inside_an_aggregate_shares_its_budget() -> None:
    rb = compiled("table g by code given n:\n  | Code | Value              |\n"
                  "  | A    | = sum(y for y in 1..n) |\n"
                  'formula f(n: integer) = sum(g["A", n = 100] for x in 1..n)\n', SMALL)
    assert rb.formulas["f"](n=9) == 9 * 5050
    budget_error(lambda: rb.formulas["f"](n=10), line=4)


def test_each_evaluation_starts_afresh_even_after_one_ran_out() -> None:
    rb = compiled("formula f(n: integer) = sum(sum(y for y in 1..n) for x in 1..n)\n", SMALL)
    assert rb.formulas["f"](n=30) == 30 * 465  # 30 + 900 items
    assert rb.formulas["f"](n=30) == 30 * 465  # the same again: nothing carried over
    budget_error(lambda: rb.formulas["f"](n=32), line=2)  # 32 + 1024
    assert rb.formulas["f"](n=30) == 30 * 465  # the stopped call left nothing behind


@pytest.mark.parametrize("body", [
    "sum(len(1..100) for x in 1..n)",  # a range built as a list, item by item
    "sum(count(m[1], 7) for x in 1..n)",  # counted item by item
    "count(x in m[1] for x in 1..n)",  # looked for item by item
    "sum(len(flatten(m)) for x in 1..n)",  # gathered item by item
])
def test_work_hidden_in_a_builtin_counts_against_the_budget(body: str) -> None:
    rb = compiled(f"formula f(m: map integer -> list integer, n: integer) = {body}\n", SMALL)
    m = {1: tuple(range(100))}
    assert rb.formulas["f"](m=m, n=4) is not None  # 4 items, then 4 times 100
    budget_error(lambda: rb.formulas["f"](m=m, n=20), line=2)


def test_the_limit_is_raised_as_every_limit_is() -> None:
    rb = compiled("formula f(n: integer) = sum(sum(y for y in 1..n) for x in 1..n)\n",
                  rulecraft.Limits(aggregate_items=2000))
    assert rb.formulas["f"](n=40) == 40 * 820


# -- where rules are worked out ----------------------------------------------------------------

PROCEDURE = ("procedure p (n: integer):\n"
             "  roll r = d6\n"
             "  let total = r + sum(sum(y for y in 1..n) for x in 1..n)\n"
             "  outcome done with (total = total)\n")


def test_a_procedure_step_stops_at_its_line() -> None:
    rb = compiled(PROCEDURE, SMALL)
    assert rb.procedures["p"].run(n=30, dice=[4]).outcome["total"] == 4 + 30 * 465
    budget_error(lambda: rb.procedures["p"].run(n=32, dice=[4]), line=4)


def test_exact_odds_stop_at_the_same_line() -> None:
    rb = compiled(PROCEDURE, SMALL)
    assert len(rb.procedures["p"].odds(by="total", n=30)) == 6
    budget_error(lambda: rb.procedures["p"].odds(by="total", n=32), line=4)


def test_a_reference_sheet_names_itself_and_the_line() -> None:
    rb = compiled('reference r "R":\n  rows a in 1..3\n'
                  "  cell sum(sum(y for y in 1..40) for x in 1..40) + a\n", SMALL)
    err = budget_error(lambda: rb.references["r"].grids(), line=4)
    assert err.message.startswith("reference r: ")


def test_a_derived_figure_stops_with_the_limit_named() -> None:
    rb = compiled("combatant fighter:\n  skill: 1..40\n"
                  "  derived reach = sum(sum(y for y in 1..skill) for x in 1..skill)\n", SMALL)
    assert rb.combatant(skill=30)["reach"] == 30 * 465
    with pytest.raises(rulecraft.RulecraftError, match="aggregate_items"):
        rb.combatant(skill=32)


# -- ranges are compared, not built ------------------------------------------------------------

@pytest.mark.parametrize("expression, expected", [
    ("3 in 1..6", True), ("1 in 1..6", True), ("6 in 1..6", True), ("0 in 1..6", False),
    ("7 in 1..6", False), ("7 not in 1..6", True), ("3 not in 1..6", False),
    ("2 in 5..1", False), ("-3 in -5..-1", True), ("4 / 2 in 1..6", True),
    ("5 / 2 in 1..6", False), ("999999 in 1..1000000", True),
])
def test_membership_in_a_range_gives_what_the_list_would(expression: str, expected: bool) -> None:
    assert rulecraft.evaluate(compiled(""), expression) is expected


def test_membership_in_a_range_costs_nothing_however_long_the_range() -> None:
    rb = compiled("formula hits(n: integer) = count(x * 1000 in 1..1000000 for x in 1..n)\n",
                  SMALL)
    assert rb.formulas["hits"](n=1000) == 1000  # 1000 items; the range is never built


def test_membership_still_holds_a_range_to_its_limit() -> None:
    with pytest.raises(rulecraft.RangeError, match="key_span"):
        rulecraft.evaluate(compiled(""), "5 in 1..2000000")


def test_membership_of_a_range_with_bounds_worked_out_at_run_time() -> None:
    rb = compiled("formula inside(x: integer, low: integer, high: integer) = x in low..high\n")
    assert rb.formulas["inside"](x=5, low=5, high=9) is True
    assert rb.formulas["inside"](x=10, low=5, high=9) is False
    assert rb.formulas["inside"](x=5, low=9, high=5) is False


def test_an_aggregate_goes_over_a_range_without_building_it() -> None:
    rb = compiled("formula f(n: integer) = count(x mod 7 == 0 for x in 1..n)\n")
    tracemalloc.start()
    try:
        assert rb.formulas["f"](n=300_000) == 42_857
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # 300,000 numbers held at once take some 10 MB


# -- the command line ----------------------------------------------------------------------------

def test_the_command_line_says_which_limit_and_exits_1(tmp_path: Path) -> None:
    rules = tmp_path / "budget.rules"
    rules.write_text(HEAD + NESTED + PROCEDURE.replace("1..n", "1..1000000"), encoding="utf-8")
    for args in (["eval", str(rules), "f(1)"], ["run", str(rules), "p", "n=1", "--seed", "1"],
                 ["odds", str(rules), "p", "n=1"]):
        result = invoke(*args)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output and "internal error" not in result.output
        assert "aggregate_items" in result.stderr and "--limit aggregate_items=N" in result.stderr
        assert f"{rules}:" in result.stderr and "^" in result.stderr


def test_the_command_line_raises_the_limit(tmp_path: Path) -> None:
    rules = tmp_path / "budget.rules"
    rules.write_text(HEAD + "formula f(n: integer) = sum(sum(y for y in 1..n) for x in 1..n)\n",
                     encoding="utf-8")
    assert invoke("eval", str(rules), "f(40)", "--limit", "aggregate_items=1000").exit_code == 1
    result = invoke("eval", str(rules), "f(40)", "--limit", "aggregate_items=2000")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(40 * 820)


def test_formulas_calling_formulas_twice_over_are_refused_before_they_run():
    # A chain where each formula calls the one before twice makes 2^n calls and no aggregate:
    # counted when compiling, refused where the count first passes the budget.
    lines = ['rulebook t "T"', "formula f0(x: 1..3) = x"]
    lines += [f"formula f{i}(x: 1..3) = f{i - 1}(x) + f{i - 1}(x)" for i in range(1, 41)]
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile("\n".join(lines) + "\n", "chain.rules")
    errors = getattr(info.value, "errors", [info.value])
    assert len(errors) == 1 and errors[0].line == 24  # f22: 2^23 - 1 calls
    assert "would call formulas more than 5000000 times" in errors[0].message
    assert "--limit aggregate_items=N" in errors[0].message
    # Under the budget it compiles and works out.
    ok = rulecraft.compile("\n".join(lines[:12]) + "\n", "chain.rules")
    assert ok.formulas["f10"](x=1) == 1024


def test_an_aggregate_counts_the_formula_calls_each_item_makes():
    text = ('rulebook t "T"\nformula f0(x: integer) = x\n'
            "formula f1(x: integer) = f0(x) + f0(x)\nformula f2(x: integer) = f1(x) + f1(x)\n"
            "formula g(n: 1..3) = sum(f2(y) for y in 1..1000000)\n"
            "formula h(n: 1..3) = sum(f2(y) for y in 1..100)\n")
    rb = rulecraft.compile(text, "g.rules")
    assert rb.formulas["h"](n=1) == 4 * 5050
    with pytest.raises(rulecraft.RangeError) as info:
        rb.formulas["g"](n=1)  # a million items, eight calls each: past 5,000,000
    assert "with the formula calls made for each" in info.value.message
    assert info.value.line == 5
