"""Defects found in review, each pinned so it stays fixed (the rule or doc it breaks is quoted)."""

from __future__ import annotations

import json
import os
import stat

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.compiler.evaluate import parse_dice_text

HEAD = 'rulebook t "T"\n'


def compile_errors(text: str) -> list[rulecraft.RulecraftError]:
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(HEAD + text, filename="t.rules")
    return list(getattr(info.value, "errors", [info.value]))


def test_a_parameter_error_names_the_formula_that_was_called():
    rb = rulecraft.load("ringing_steel")
    line = next(i for i, text in enumerate(rb.source.splitlines(), 1)
                if text.startswith("formula base_speed("))
    with pytest.raises(rulecraft.RangeError) as info:
        rb.formulas["base_speed"](skill=5.0, armour="None", weapon="Claymore")
    assert info.value.line == line


def test_two_numeric_keys_are_never_swapped():
    rb = rulecraft.compile(HEAD + "table t \"T\" by row: 1..3, col: 1..5 -> integer:\n"
                           "  | R | 1 | 2 | 3 | 4 | 5 |\n  | 1 | 11 | 12 | 13 | 14 | 15 |\n"
                           "  | 2 | 21 | 22 | 23 | 24 | 25 |\n  | 3 | 31 | 32 | 33 | 34 | 35 |\n",
                           filename="t.rules")
    assert rb.tables["t"].lookup(2, 5) == 25
    with pytest.raises(rulecraft.RangeError, match="no row for row 5"):
        rb.tables["t"].lookup(5, 2)


def test_a_name_set_in_one_branch_only_is_a_rule_error_when_used_elsewhere():
    # Issue 6, defect 7: "A name set in only one branch is silently none, and the run-time error
    # points at the procedure's header, not the read." A name read where some path did not set
    # it is a compile error naming the name, at the read.
    with pytest.raises(rulecraft.RuleTypeError, match="x is not set on every path") as info:
        rulecraft.compile(HEAD + "procedure p \"P\" (n: 1..6):\n  roll r = d6\n  if r > 3:\n"
                          "    let x = 1\n  outcome o with (y = x + 1)\n", filename="t.rules")
    assert (info.value.line, info.value.column) == (6, 23)  # the `x` in `x + 1`


@pytest.mark.parametrize("text, words", [
    ("formula f(a: 1..10, a: 1..10) = a\n", "listed twice"),
    ("formula f(a: 10..1) = a\n", "empty"),
    ("formula f(a: 1..10 = 20) = a\n", "outside"),
    ("formula f(a: 1..10) = if a then 1 else 2\n", "yes or no"),
    ("procedure p \"P\" (n: 1..6):\n  outcome o with (y = 1, y = 2)\n", "given twice"),
    ("procedure p \"P\" (n: 1..6):\n  outcome o\n  outcome q\n", "never reached"),
    ("procedure p \"P\" (n: 1..6):\n  roll r = d6\n  if r > 3:\n    let v = 1\n  else:\n"
     "    let v = \"A\"\n  outcome o\n", "in one branch"),
    ("table b \"B\" by s: number -> integer:\n  | S | V |\n  | 1-5 | 1 |\n  | 3-8 | 2 |\n",
     "overlaps"),
])
def test_rule_mistakes_are_caught_when_compiling(text, words):
    assert any(words in e.message for e in compile_errors(text))


def test_a_rule_nested_too_deeply_is_a_rule_error():
    body = " + ".join(["a"] * 700)
    errors = compile_errors(f"formula f(a: integer) = {body}\n")
    assert "nested too deeply" in errors[0].message


def test_a_missing_table_is_a_key_error_and_a_rule_error():
    rb = rulecraft.load("ringing_steel")
    with pytest.raises(KeyError):
        rb.tables["wound"]
    with pytest.raises(rulecraft.RulecraftError, match="did you mean 'wounds'"):
        rb.tables["wound"]


def test_compiling_something_that_is_not_text_is_a_rule_error():
    with pytest.raises(rulecraft.RulecraftError, match="not NoneType"):
        rulecraft.compile(None)  # type: ignore[arg-type]


def test_a_failing_chooser_is_reported_as_the_callers():
    rb = rulecraft.load("ringing_steel")
    fighter = rb.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                           training={"Sword": 5}, weapon="Sword", armour="Standard")
    with pytest.raises(rulecraft.RangeError, match="function choosing defence"):
        rb.procedures["melee_attack"].run(attacker=fighter, defender=fighter, dice=[10, 3],
                                          defence=lambda options, values: 1 / 0)


def test_dice_and_seed_together_and_odds_by_an_unknown_value_are_errors():
    rb = rulecraft.load("ringing_steel")
    fighter = rb.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                           training={"Sword": 5}, weapon="Sword", armour="Standard")
    attack = rb.procedures["melee_attack"]
    with pytest.raises(rulecraft.RangeError, match="not both"):
        attack.run(attacker=fighter, defender=fighter, dice=[3], seed=1)
    with pytest.raises(rulecraft.RangeError, match="did you mean 'wound'"):
        attack.odds(attacker=fighter, defender=fighter, by="wonud")
    with pytest.raises(rulecraft.DiceError, match="whole numbers"):
        attack.run(attacker=fighter, defender=fighter, dice=["x"])


def test_exact_distributions_of_huge_dice_are_refused_quickly():
    with pytest.raises(rulecraft.DiceError, match="distribution_work"):
        parse_dice_text("1000d6").distribution()
    assert len(parse_dice_text("200d6").distribution()) == 1001


def test_hash_in_a_table_cell_is_text_and_names_may_be_unicode():
    rb = rulecraft.compile(HEAD + "formula größe(länge: 1..10) = länge * 2\n"
                           "table t \"T\" by k:\n  | K     | V |\n  | No #1 | 1 |  # a comment\n",
                           filename="t.rules")
    assert rb.formulas["größe"](länge=3) == 6
    assert rb.tables["t"].lookup("No #1") == 1
    assert rb.tables["t"].rows[0].comments == ("a comment",)


def test_cli_refuses_a_combatant_that_is_not_an_object_and_seed_with_dice(tmp_path):
    sheet = tmp_path / "list.json"
    sheet.write_text(json.dumps([1, 2]))
    runner = CliRunner()
    result = runner.invoke(cli, ["run", "ringing_steel", "melee_attack", f"attacker=@{sheet}",
                                 f"defender=@{sheet}", "--seed", "1"])
    assert result.exit_code == 1 and "JSON object" in result.stderr
    result = runner.invoke(cli, ["run", "ringing_steel", "melee_attack", "--seed", "1",
                                 "--dice", "3"])
    assert result.exit_code == 2


def test_cli_errors_are_json_under_json():
    result = CliRunner().invoke(cli, ["eval", "ringing_steel", "skil(3)", "--json"])
    assert result.exit_code == 1
    error = json.loads(result.stderr)["errors"][0]
    assert (error["kind"], error["line"], error["column"]) == ("UnknownNameError", 1, 1)


@pytest.mark.skipif(os.name != "posix", reason="links and modes")
def test_fmt_write_follows_links_and_keeps_the_mode(tmp_path):
    real = tmp_path / "real.rules"
    real.write_text(HEAD + "formula f(a: 1..10)    =   a\n")
    real.chmod(0o640)
    link = tmp_path / "link.rules"
    link.symlink_to(real)
    result = CliRunner().invoke(cli, ["fmt", str(link), "--write"])
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert "formula f(a: 1..10) = a" in real.read_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
