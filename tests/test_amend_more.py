"""Issue 15, item 7: house rules that amend a base procedure's parameters and outcomes, and that
name the second (or Nth) step binding a name — "amendments that add an outcome to a base
procedure, change its parameters or outcome schema, or target the second binding of a name"."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

# A swing of a d6: a 6 always hits (the first `let excess`), else skill + bonus against the die
# (the second).
BASE = """rulebook base "Base"
combatant fighter:
  skill: integer
procedure swing "A swing" (attacker: fighter, bonus: -5..5 = 0):
  outcomes:
    all with roll
    hit "Hit" with excess
    miss "Miss"
  roll r = d6
  if r == 6:
    let excess = 6
    outcome hit with roll = r, excess = excess
  let excess = attacker.skill + bonus - r
  if excess >= 0:
    outcome hit with roll = r, excess = excess
  outcome miss with roll = r
"""

# Our table: a reach bonus, a wider and kinder bonus, a fumble on a 1, the sound of every blow,
# and how far a miss missed by.
HOUSE = """rulebook house "House"
extends "base.rules"

amend procedure swing:
  add parameter reach: 0..3 = 0
  replace parameter bonus: -9..9 = 1
  add outcome fumble "Fumble" with excess
  add margin to outcome miss
  add sound to all outcomes
  insert after roll r:
    let sound = if r == 1 then "clang" else "thud"
    if r == 1:
      outcome fumble with roll = r, excess = 0
  replace let excess (second):
    let excess = attacker.skill + bonus + reach - r
    let margin = 0 - excess
"""


def files(tmp_path: Path, house: str) -> Path:
    (tmp_path / "base.rules").write_text(BASE, encoding="utf-8")
    path = tmp_path / "house.rules"
    path.write_text(house, encoding="utf-8")
    return path


def house_errors(tmp_path: Path, house: str) -> list[rulecraft.RulecraftError]:
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.load(files(tmp_path, house))
    return list(getattr(info.value, "errors", [info.value]))


def only(found: list[rulecraft.RulecraftError]) -> rulecraft.RulecraftError:
    assert len(found) == 1, "\n".join(str(e) for e in found)
    return found[0]


def line_of(text: str, part: str) -> tuple[int, int]:
    for n, line in enumerate(text.splitlines(), 1):
        if part in line:
            return n, line.index(part) + 1
    raise AssertionError(part)


def test_the_amended_swing_plays_scripted(tmp_path):
    rb = rulecraft.load(files(tmp_path, HOUSE))
    swing = rb.procedures["swing"]
    fighter = rb.combatant(skill=2)
    assert [p.name for p in swing.params] == ["attacker", "bonus", "reach"]
    hit = swing.run(attacker=fighter, reach=1, dice=[4])  # 2 + 1 (bonus now 1) + 1 - 4 = 0
    assert hit.outcome == "hit" and dict(hit.outcome) == {"roll": 4, "sound": "thud",
                                                         "excess": 0}
    miss = swing.run(attacker=fighter, dice=[5])  # 2 + 1 - 5 = -2
    assert miss.outcome == "miss" and miss.outcome.margin == 2 and miss.outcome.sound == "thud"
    fumble = swing.run(attacker=fighter, dice=[1])
    assert fumble.outcome == "fumble" and fumble.outcome.sound == "clang"
    assert swing.run(attacker=fighter, dice=[6]).outcome.excess == 6  # the first binding stays


def test_the_amended_swing_has_exact_odds_and_the_base_is_unchanged(tmp_path):
    rb = rulecraft.load(files(tmp_path, HOUSE))
    fighter = rb.combatant(skill=2)
    assert rb.procedures["swing"].odds(attacker=fighter) == {
        "fumble": Fraction(1, 6), "hit": Fraction(1, 2), "miss": Fraction(1, 3)}
    base = rb.base
    assert base is not None and [p.name for p in base.procedures["swing"].params] == [
        "attacker", "bonus"]
    assert base.procedures["swing"].odds(attacker=base.combatant(skill=2)) == {
        "hit": Fraction(1, 2), "miss": Fraction(1, 2)}


def test_diff_lists_parameters_and_outcomes(tmp_path):
    path = files(tmp_path, HOUSE)
    result = CliRunner().invoke(cli, ["diff", str(tmp_path / "base.rules"), str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "  parameter bonus: bonus: -5..5 = 0 → bonus: -9..9 = 1" in lines
    assert "  parameter reach added: reach: 0..3 = 0" in lines
    assert "  outcome fumble added, carrying roll, sound, excess" in lines
    assert "  outcome miss: carries sound, margin too" in lines
    assert "  outcome hit: carries sound too" in lines
    assert "  + let excess = attacker.skill + bonus + reach - r" in lines


def test_show_and_format_keep_the_amendments(tmp_path):
    path = files(tmp_path, HOUSE)
    shown = CliRunner().invoke(cli, ["show", str(path), "swing"])
    assert shown.exit_code == 0, shown.output
    assert "swing(attacker: fighter, bonus: -9..9 = 1, reach: 0..3 = 0)" in shown.output
    assert 'outcome fumble "Fumble"' in shown.output
    formatted = CliRunner().invoke(cli, ["fmt", str(path)])
    assert formatted.exit_code == 0, formatted.output
    for line in ("  add parameter reach: 0..3 = 0", "  replace parameter bonus: -9..9 = 1",
                 '  add outcome fumble "Fumble" with excess', "  add margin to outcome miss",
                 "  add sound to all outcomes", "  replace let excess (second):"):
        assert line in formatted.output.splitlines()


def test_the_last_binding_and_an_ordinal_past_the_end(tmp_path):
    last = HOUSE.replace("replace let excess (second):", "replace let excess (last):")
    rb = rulecraft.load(files(tmp_path, last))
    assert rb.procedures["swing"].run(attacker=rb.combatant(skill=2), reach=1,
                                      dice=[4]).outcome == "hit"
    third = HOUSE.replace("replace let excess (second):", "replace let excess (third):")
    err = only(house_errors(tmp_path, third))
    assert (err.line, err.column) == line_of(third, "let excess (third)")
    assert err.message == ("let excess is written 2 times in procedure swing (lines 11, 13): "
                           "there is no third")


def test_an_ordinal_that_is_no_ordinal(tmp_path):
    text = HOUSE.replace("(second)", "(2nd)").replace("let excess (2nd)", "let excess (twice)")
    err = only(house_errors(tmp_path, text))
    assert (err.line, err.column) == line_of(text, "let excess (twice)")
    assert "(twice) does not say which let excess" in err.message and "(second)" in err.message


def test_a_name_bound_twice_without_an_ordinal_offers_one(tmp_path):
    text = HOUSE.replace("replace let excess (second):", "replace let excess:")
    err = only(house_errors(tmp_path, text))
    assert (err.line, err.column) == line_of(text, "let excess:")
    assert "let excess is written 2 times in procedure swing (lines 11, 13)" in err.message
    assert "`let excess (first)` or `let excess (second)`" in err.message


@pytest.mark.parametrize("edit, message, hint", [
    ("replace parameter bonsu: -9..9 = 1", "procedure swing has no parameter 'bonsu'",
     "did you mean 'bonus'?"),
    ("add parameter bonus: -9..9 = 1", "procedure swing already has a parameter bonus (line 4 "
     "of the base)", "write `replace parameter bonus: …`"),
    ("add margin to outcome mis", "procedure swing has no outcome 'mis'", "did you mean 'miss'?"),
    ("add outcome hit with margin", "procedure swing already has an outcome hit (line 7 of the "
     "base)", "`add VALUE to outcome hit`"),
    ("add roll to outcome miss", "every outcome of procedure swing already carries roll", ""),
    ("add excess to all outcomes", "outcome hit of procedure swing already carries excess", ""),
])
def test_an_amendment_naming_what_is_not_there(tmp_path, edit, message, hint):
    text = ('rulebook house "House"\nextends "base.rules"\n\namend procedure swing:\n'
            f"  {edit}\n")
    err = only(house_errors(tmp_path, text))
    assert (err.line, err.column) == (5, 3) and err.filename.endswith("house.rules")
    assert message in err.message and hint in err.message


def test_an_outcome_added_that_no_step_reaches_is_an_error(tmp_path):
    text = ('rulebook house "House"\nextends "base.rules"\n\namend procedure swing:\n'
            '  add outcome fumble "Fumble"\n')
    err = only(house_errors(tmp_path, text))
    assert (err.line, err.column) == (5, 3)
    assert "outcome fumble is declared but no step ends in it" in err.message


def test_a_value_added_that_the_base_does_not_set_is_reported_at_the_base(tmp_path):
    # "A change that breaks a rule of the base … is reported at the base's rule."
    text = ('rulebook house "House"\nextends "base.rules"\n\namend procedure swing:\n'
            '  add margin to outcome miss\n')
    err = only(house_errors(tmp_path, text))
    assert err.filename.endswith("base.rules")
    assert (err.line, err.column) == line_of(BASE, "outcome miss with roll")
    assert "outcome miss carries margin" in err.message


def test_outcomes_of_a_procedure_without_an_outcomes_block(tmp_path):
    base = BASE.replace('  outcomes:\n    all with roll\n    hit "Hit" with excess\n'
                        '    miss "Miss"\n', "")
    (tmp_path / "base.rules").write_text(base, encoding="utf-8")
    path = tmp_path / "house.rules"
    path.write_text('rulebook house "House"\nextends "base.rules"\n\namend procedure swing:\n'
                    "  add sound to all outcomes\n", encoding="utf-8")
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.load(path)
    assert (info.value.line, info.value.column) == (5, 3)
    assert "declares no `outcomes:` block" in info.value.message


def test_a_parameter_changed_so_a_base_call_no_longer_fits_is_reported_at_the_call(tmp_path):
    base = BASE + """procedure two_swings (attacker: fighter):
  call first = swing(attacker, 5)
  outcome done with first = first
"""
    (tmp_path / "base.rules").write_text(base, encoding="utf-8")
    path = tmp_path / "house.rules"
    path.write_text('rulebook house "House"\nextends "base.rules"\n\namend procedure swing:\n'
                    "  replace parameter bonus: bool = false\n", encoding="utf-8")
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.load(path)
    found = list(getattr(info.value, "errors", [info.value]))
    assert all(e.filename.endswith("base.rules") for e in found)
    assert line_of(base, "swing(attacker, 5)")[0] in [e.line for e in found]  # the call
    assert line_of(base, "attacker.skill + bonus - r")[0] in [e.line for e in found]  # a use


# -- the language reference's example, over Ringing Steel ------------------------------------------

SWORDSMAN = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                 training={"Sword": 5}, weapon="Sword", armour="Standard")
SPEARMAN = dict(strength=13, dexterity=11, constitution=12, willpower=9,
                training={"Spear": 6}, weapon="Spear", armour="Light")


def test_the_reference_example_over_ringing_steel(tmp_path):
    import re

    text = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text("utf-8")
    block = next(b for b in re.findall(r"```(?:rulecraft)?\n(.*?)```", text, re.S)
                 if "rulebook rs_reach" in b)
    path = tmp_path / "rs_reach.rules"
    path.write_text(block, encoding="utf-8")
    rb = rulecraft.load(path)
    attack = rb.procedures["melee_attack"]

    def fighters() -> dict:
        return dict(attacker=rb.combatant(**SWORDSMAN), defender=rb.combatant(**SPEARMAN),
                    defence="Passive Dodge")

    missed = attack.run(**fighters(), dice=[2])
    assert missed.outcome == "missed" and missed.outcome.margin == 1
    assert attack.run(**fighters(), reach=1, dice=[2, 5]).outcome == "hit"
    assert attack.odds(**fighters())["missed"] == Fraction(1, 20)
    assert "missed" not in attack.odds(**fighters(), reach=3)
    with pytest.raises(rulecraft.RulecraftError, match="attack_bonus"):
        attack.run(**fighters(), attack_bonus=21, dice=[2])
    assert attack.run(**fighters(), attack_bonus=20, dice=[2, 5]).outcome == "hit"


def test_seeded_runs_and_a_bad_amendment_on_the_command_line(tmp_path):
    rb = rulecraft.load(files(tmp_path, HOUSE))
    seen = {rb.procedures["swing"].run(attacker=rb.combatant(skill=2), seed=seed).outcome.name
            for seed in range(40)}
    assert seen == {"hit", "miss", "fumble"}
    bad = files(tmp_path, HOUSE.replace("add margin to outcome miss", "add margin to outcome mis"))
    result = CliRunner().invoke(cli, ["check", str(bad)])
    assert result.exit_code == 1
    assert "procedure swing has no outcome 'mis'; did you mean 'miss'?" in result.output
    assert "Traceback" not in result.output
