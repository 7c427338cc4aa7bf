"""Issue 20, examples inside rulebooks: "a rulebook states worked examples — inputs, scripted
dice, expected outcome and values — next to the rule they illustrate ... `rulecraft test
[RULEBOOK...]` runs them and reports each failure with the example's line, what was expected,
what came out, and the trace. House rulebooks inherit their base's examples and mark the ones
their changes are meant to break (and state the new expectation). Every built-in rulebook
carries the worked examples of its seed text; the pytest suite runs them all."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.runtime.errors import RulecraftError

BASE = '''rulebook base "Base"

enum weapon "Weapon": Sword, Shield

formula bonus(x: 1..20) "Bonus" = max(0, x - 5)

combatant fighter "Fighter":
  strength: 1..20
  training: map weapon -> 1..10
  state hp: integer = 10
  derived best = max(training[w] for w in training)

procedure attack "Attack" (skill: 0..20):
  roll r = d20
  if r + skill >= 15:
    outcome hit "Hit" with (margin = r + skill - 15)
  outcome miss "Miss"

procedure hurt "Hurt" (f: fighter, amount: integer):
  set f.hp = f.hp - amount
  outcome done "Done" with (left = f.hp)

# "A fighter of 12 has a bonus of 7."
example "The bonus of a strong fighter":
  expect bonus(12) == 7
  expect bonus(3) == 0

example "A roll of 10 with skill 5 just hits" with dice 10:
  call blow = attack(5)
  expect blow == "hit"
  expect blow.margin == 0

example "A wound taken by a fighter written out":
  let knight = fighter(strength = 12, training = {"Sword": 5, "Shield": 3})
  expect knight.best == 5
  call wound = hurt(knight, 4)
  expect wound.left == 6 and knight.hp == 6
'''


@pytest.fixture()
def base(tmp_path):
    path = tmp_path / "base.rules"
    path.write_text(BASE, encoding="utf-8")
    return path


def test_each_example_runs_with_its_dice_and_checks_what_came_out(base):
    rb = rulecraft.load(str(base))
    assert [e.title for e in rb.examples] == [
        "The bonus of a strong fighter", "A roll of 10 with skill 5 just hits",
        "A wound taken by a fighter written out"]
    assert "example_no_1" not in rb.procedures  # examples are not procedures to play
    outcomes = [e.run() for e in rb.examples]
    assert all(o.passed for o in outcomes)
    assert [(c.expected, c.got) for c in outcomes[1].checks] == [
        ('blow == "hit"', "blow = hit"), ("blow.margin == 0", "blow.margin = 0")]
    assert rb.examples[1].dice == (10,)


def test_a_failure_says_the_line_what_was_expected_what_came_out_and_the_trace(base):
    base.write_text(BASE.replace("expect blow.margin == 0", "expect blow.margin == 1"), "utf-8")
    result = CliRunner().invoke(cli, ["test", str(base)])
    assert result.exit_code == 1
    assert f"{base}:28:1: example 'A roll of 10 with skill 5 just hits' failed" in result.output
    assert "  line 31: expected blow.margin == 1; got blow.margin = 0" in result.output
    assert "roll r = 10 (d20: 10)" in result.output  # the trace
    assert result.output.rstrip().endswith("3 examples, 2 passed, 1 failed")


def test_the_command_reports_json_picks_by_title_and_says_when_there_are_none(base):
    ok = CliRunner().invoke(cli, ["test", str(base)])
    assert ok.exit_code == 0 and ok.output.endswith("3 examples, 3 passed\n")
    picked = CliRunner().invoke(cli, ["test", str(base), "-k", "BONUS"])
    assert picked.output.endswith("1 example (of 3, matching 'BONUS'), 1 passed\n")
    data = json.loads(CliRunner().invoke(cli, ["test", str(base), "--json"]).output)
    assert data[0]["examples"][0] == {
        "title": "The bonus of a strong fighter", "line": 24, "passed": True, "error": None,
        "checks": [{"line": 25, "expected": "bonus(12) == 7", "got": "bonus(12) = 7",
                    "passed": True},
                   {"line": 26, "expected": "bonus(3) == 0", "got": "bonus(3) = 0",
                    "passed": True}]}
    missing = CliRunner().invoke(cli, ["test", "no_such_rulebook"])
    assert missing.exit_code == 1 and "Traceback" not in missing.output


def test_a_rulebook_without_examples_says_so(tmp_path):
    plain = tmp_path / "plain.rules"
    plain.write_text('rulebook plain "Plain"\n\nformula f(x: 1..3) "F" = x\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["test", str(plain)])
    assert result.exit_code == 0
    assert "no worked examples" in result.output


def test_a_house_file_inherits_its_base_s_examples_and_restates_those_it_breaks(base):
    house = base.parent / "house.rules"
    house.write_text('rulebook house "House"\nextends "base.rules"\n\n'
                     'replace formula bonus(x: 1..20) "Bonus" = max(0, x - 4)\n\n'
                     '# Our bonus is one more: the book\'s example no longer holds.\n'
                     'replace example "The bonus of a strong fighter":\n'
                     '  expect bonus(12) == 8\n', encoding="utf-8")
    rb = rulecraft.load(str(house))
    assert len(rb.examples) == 3 and all(e.run().passed for e in rb.examples)
    assert rb.origins["example 'The bonus of a strong fighter'"].status == "changed"
    house.write_text(house.read_text().split("\n# Our")[0] + "\n", encoding="utf-8")
    [broken] = [o for o in (e.run() for e in rulecraft.load(str(house)).examples)
                if not o.passed]
    assert broken.checks[0].got == "bonus(12) = 8"  # the base's example, broken by the house


@pytest.mark.parametrize("text, message", [
    ('example "":\n  expect 1 == 1\n', "an example has a title"),
    ('example "A":\n  expect 1 == 1\nexample "A":\n  expect 2 == 2\n',
     "two examples are called 'A'"),
    ('procedure p "P" ():\n  expect 1 == 1\n  outcome done "Done"\n', "`expect` checks a worked"),
    ('combatant fighter "F":\n  strength: 1..20\nexample "E":\n  let k = fighter(strenght = 3)\n'
     '  expect k.strength == 3\n', "has no characteristic or state called 'strenght'; did you"),
    ('combatant fighter "F":\n  strength: 1..20\nformula f(x: 1..3) "F" = fighter(strength = x)'
     '.strength\n', "is written out whole only in the steps of a procedure or an example"),
    ('example "E":\n  expect {"a": 1, 2: 3} == 1\n', "a map's keys are of one kind"),
])
def test_examples_are_checked_when_compiled(text, message):
    with pytest.raises(RulecraftError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rulecraft.compile('rulebook e "E"\n\n' + text, "e.rules")


def test_a_fighter_out_of_range_stops_the_example_with_the_rule_s_line():
    rb = rulecraft.compile('rulebook e "E"\n\ncombatant fighter "F":\n  strength: 1..20\n\n'
                           'example "E":\n  let k = fighter(strength = 30)\n'
                           '  expect k.strength == 30\n', "e.rules")
    [outcome] = [e.run() for e in rb.examples]
    assert not outcome.passed
    assert outcome.error.startswith("e.rules:7:11: strength must be a whole number from 1 to 20")


def test_examples_and_map_literals_keep_their_layout(base):
    from rulecraft.dsl.formatter import format_file
    from rulecraft.dsl.parser import parse

    assert format_file(parse(BASE, "base.rules")) == BASE


@pytest.mark.parametrize("name", rulecraft.builtin_rulebooks())
def test_every_built_in_rulebook_s_examples_pass(name):
    """"Every built-in rulebook carries the worked examples of its seed text; the pytest
    suite runs them all.\""""
    for outcome in (e.run() for e in rulecraft.load(name).examples):
        assert outcome.passed, outcome.report()


def test_the_language_reference_s_examples_pass_over_ringing_steel(tmp_path):
    """docs/language.md's worked examples, as written there, pass over the built-in rulebook."""
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "docs" / "language.md").read_text(encoding="utf-8")
    section = doc.split("## Worked examples", 1)[1]
    block = section.split("```rulecraft\n", 1)[1].split("```\n", 1)[0]
    house = tmp_path / "house.rules"
    house.write_text('rulebook documented "Documented"\nextends ringing_steel\n\n' + block,
                     encoding="utf-8")
    outcomes = [e.run() for e in rulecraft.load(str(house)).examples]
    assert len(outcomes) == 2 + len(rulecraft.load("ringing_steel").examples)  # and its base's
    assert all(o.passed for o in outcomes), [o.report() for o in outcomes]


def test_a_dice_default_of_a_fighter_s_figure_is_its_dice():
    """Found writing the starter file: `damage: dice = 1d6` gave every fighter no damage."""
    rb = rulecraft.compile('rulebook e "E"\n\ncombatant fighter "F":\n  damage: dice = 1d6\n',
                           "e.rules")
    assert str(rb.combatant().damage) == "d6"
    with pytest.raises(RulecraftError, match=r"skill's default is written as it is: a number, "
                       r"a text, dice, a list, a hex or none \(a figure worked out from others "
                       r"is `derived`\)") as caught:
        rulecraft.compile('rulebook e "E"\n\ncombatant fighter "F":\n  strength: 1..20\n'
                          '  skill: 1..20 = strength + 1\n', "e.rules")
    assert (caught.value.line, caught.value.column) == (5, 18)


def test_a_house_example_titled_as_one_of_its_base_s_says_to_replace_it(base):
    house = base.parent / "house.rules"
    house.write_text('rulebook house "House"\nextends "base.rules"\n\n'
                     'example "The bonus of a strong fighter":\n  expect bonus(12) == 7\n',
                     encoding="utf-8")
    with pytest.raises(RulecraftError) as caught:
        rulecraft.load(str(house))
    assert (caught.value.line, caught.value.column) == (4, 1)
    assert caught.value.message.startswith(
        "the base already has an example called 'The bonus of a strong fighter' (")
    assert 'write `replace example "The bonus of a strong fighter":` to restate it' in \
        caught.value.message


def test_a_sheet_prints_each_example_under_the_rule_it_shows():
    """"Sheets can print an example under its rule": under the first procedure, formula or
    table its steps read."""
    md = rulecraft.sheet(rulecraft.load("ringing_steel"), "md")
    wounds = md.split("### Wounds Table", 1)[1].split("\n### ", 1)[0]
    assert '**Example: A damage factor of 5 to the head is a Wound**\n```\nexpect wounds[5, ' \
           '"Head"] == "Wound"\n```' in wounds
    attack = md.split("### Making an attack", 1)[1].split("\n### ", 1)[0]
    assert "**Example: A swordsman's blow parried** (dice 5)" in attack
    html = rulecraft.sheet(rulecraft.load("ringing_steel"), "html")
    skill = html.split('id="formula-skill"', 1)[1].split("</article>", 1)[0]
    assert '<p class="example-head">Example: A typical swordsman&#39;s skill and figures</p>' \
        in skill


@pytest.mark.parametrize("name", rulecraft.builtin_rulebooks())
def test_rulecraft_test_passes_on_every_built_in_rulebook(name):
    result = CliRunner().invoke(cli, ["test", name])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{name}: ")
