"""The command line's values (issue 6): booleans, a combatant's values checked all at once and
named by party, field and where they were given, and `odds --by` in the order of its values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulecraft.cli import cli

PROJECT = Path(__file__).resolve().parent.parent
SWORDSMAN = PROJECT / "docs" / "examples" / "swordsman.json"
SPEARMAN = PROJECT / "docs" / "examples" / "spearman.json"


def invoke(*args: str):
    """Run the click command in-process; a Python exception escaping a command fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def failed(result) -> str:
    """The report of a rule or input error: exit 1, no traceback, nothing on stdout."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    assert result.stdout == ""
    return result.stderr


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# -- defect 6: a boolean from the command line -----------------------------------------------------

MOUNTED = '''rulebook mounted "Mounted"
combatant rider "Rider":
  skill: 1..20
  mounted: bool
formula pick(above: bool, x: 1..10) = if above then x + 1 else x - 1
procedure charge "Charge" (rider: rider, lance: bool = false):
  roll r = d6
  if rider.mounted and lance:
    outcome impaled with (r = r)
  else:
    outcome missed with (r = r)
'''


def test_eval_passes_a_boolean_to_a_formula(tmp_path):
    rules = write(tmp_path, "mounted.rules", MOUNTED)
    assert invoke("eval", str(rules), "pick(true, 3)").stdout == "4\n"
    assert invoke("eval", str(rules), "pick(false, 3)").stdout == "2\n"


@pytest.mark.parametrize("mounted, lance, outcome", [("true", "true", "impaled"),
                                                     ("TRUE", "false", "missed"),
                                                     ("false", "True", "missed")])
def test_run_passes_booleans_to_a_parameter_and_a_combatant(tmp_path, mounted, lance, outcome):
    rules = write(tmp_path, "mounted.rules", MOUNTED)
    result = invoke("run", str(rules), "charge", "rider.skill=4", f"rider.mounted={mounted}",
                    f"lance={lance}", "--dice", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == outcome


def test_odds_take_a_boolean_from_a_combatant_file(tmp_path):
    rules = write(tmp_path, "mounted.rules", MOUNTED)
    rider = write(tmp_path, "rider.json", '{"skill": 5, "mounted": true}')
    result = invoke("odds", str(rules), "charge", f"rider=@{rider}", "lance=true", "--json")
    assert json.loads(result.stdout) == [{"outcome": "impaled", "probability": "1",
                                          "percent": 100.0}]


# -- defect 10: a combatant's values, every problem named by party, field and source ------------

def test_every_problem_in_a_combatant_file_is_reported_with_party_field_and_file(tmp_path):
    sheet = write(tmp_path, "bad spearman.json",
                  '{"strength": 25, "dexterity": 11, "constitution": 12, "willpower": 9,\n'
                  ' "training": {"Spear": "high", "Dagger": 2}, "weapon": "Spear",'
                  ' "armour": "Lihgt"}')
    report = failed(invoke("run", "ringing_steel", "melee_attack", f"attacker=@{SWORDSMAN}",
                           f"defender=@{sheet}", "--seed", "1"))
    lines = report.splitlines()
    assert lines == [
        f"defender.strength must be a whole number from 1 to 20; got 25 (in {sheet})",
        "defender.training.Spear must be a whole number from 1 to 10; got the text 'high' "
        f"(write numbers without quotes) (in {sheet})",
        "defender.armour must be one of None, Protection, Light, Standard, Heavy, Heavy Plus, "
        "Extra Heavy, Super Heavy, Full; got 'Lihgt' — did you mean 'Light'? "
        f"(in {sheet})",
        "3 errors"]


def test_a_value_given_on_the_command_line_is_named_as_typed():
    report = failed(invoke("run", "ringing_steel", "melee_attack", f"attacker=@{SWORDSMAN}",
                           f"defender=@{SPEARMAN}", "defender.training.Spear=high", "--seed", "1"))
    assert report.splitlines() == [
        "defender.training.Spear must be a whole number from 1 to 10; got the text 'high' "
        "(write numbers without quotes) (given as defender.training.Spear=high)"]
    assert "ringing_steel.rules" not in report  # nothing in the rulebook is wrong


def test_problems_of_both_parties_are_reported_together(tmp_path):
    attacker = write(tmp_path, "a.json", '{"strenght": 12, "dexterity": 12, "constitution": 11,'
                     ' "willpower": 10, "training": {"Swrod": 5}, "weapon": "Sword",'
                     ' "armour": "Standard", "skill": 9}')
    report = failed(invoke("odds", "ringing_steel", "melee_attack", f"attacker=@{attacker}",
                           f"defender=@{SPEARMAN}", "defender.weapon=Claymore"))
    lines = report.splitlines()
    assert f"attacker.strenght: a fighter has no characteristic or state called 'strenght'; " \
           f"did you mean 'strength'? (in {attacker})" in lines
    assert any(line.startswith("a key of attacker.training must be one of Sword, ") and
               line.endswith(f"got 'Swrod' — did you mean 'Sword'? (in {attacker})")
               for line in lines)
    assert f"attacker.skill: a fighter works skill out from its other figures; it cannot be " \
           f"given (in {attacker})" in lines
    assert "attacker.strength: not given; a fighter needs it (a whole number from 1 to 20)" \
        in lines
    assert any(line.startswith("defender.weapon must be one of Sword, ") and
               line.endswith("got 'Claymore' (given as defender.weapon=Claymore)")
               for line in lines)
    assert lines[-1] == "5 errors"


def test_each_party_is_checked_against_its_own_model(tmp_path):
    rules = write(tmp_path, "two.rules", 'rulebook mounted "Mounted"\n'
                  'combatant rider "Rider":\n  skill: 1..20\n'
                  'combatant horse "Horse":\n  speed: 1..10\n  derived pace = speed * 2\n'
                  'procedure gallop "Gallop" (rider: rider, horse: horse):\n  roll r = d6\n'
                  '  outcome done with (total = r + horse.pace + rider.skill)\n')
    result = invoke("run", str(rules), "gallop", "rider.skill=3", "horse.speed=4", "--dice", "2")
    assert result.stdout == "done\n  total: 13\n"
    report = failed(invoke("run", str(rules), "gallop", "rider.skill=30", "rider.speed=1",
                           "horse.speed=4", "horse.pace=9", "--dice", "2"))
    assert report.splitlines() == [
        "rider.skill must be a whole number from 1 to 20; got 30 (given as rider.skill=30)",
        "rider.speed: a rider has no characteristic or state called 'speed' "
        "(given as rider.speed=1)",
        "horse.pace: a horse works pace out from its other figures; it cannot be given "
        "(given as horse.pace=9)",
        "3 errors"]


def test_combatant_problems_as_json_are_one_error_each(tmp_path):
    report = failed(invoke("run", "ringing_steel", "melee_attack", f"attacker=@{SWORDSMAN}",
                           f"defender=@{SPEARMAN}", "defender.strength=0", "defender.willpower=x",
                           "--seed", "1", "--json"))
    errors = json.loads(report)["errors"]
    assert [e["message"] for e in errors] == [
        "defender.strength must be a whole number from 1 to 20; got 0 "
        "(given as defender.strength=0)",
        "defender.willpower must be a whole number from 1 to 20; got the text 'x' (write numbers "
        "without quotes) (given as defender.willpower=x)"]
    assert all(e["kind"] == "RangeError" and e["file"] is None for e in errors)


# -- defect 12: `odds --by` lists values in their own order ----------------------------------------

ORDERED = '''rulebook ordered "Ordered values"
enum grade "Grade": Poor, Fair, Good, Superb
procedure test "Test" (bonus: integer = 0):
  outcomes:
    fumble "Fumble" with grade, score, note
    pass "Pass" with grade, score, note
    crit "Crit" with grade, score, note
  roll r = d10
  let score = r * 3 + bonus
  let grade = (if r <= 2 then "Poor" else if r <= 5 then "Fair"
               else if r <= 9 then "Good" else "Superb")
  let note = if r <= 2 then "alpha" else if r <= 5 then "mid" else "zeta"
  let low = if r <= 4 then r - 2.5 else none
  if r == 1:
    outcome fumble
  else if r == 10:
    outcome crit
  else:
    outcome pass
'''


def listed(rules: Path, by: str) -> list[str]:
    """The first column of `odds --by` as printed."""
    result = invoke("odds", str(rules), "test", "--by", by)
    assert result.exit_code == 0, result.output
    return [line[:24].strip() for line in result.stdout.splitlines()]


@pytest.mark.parametrize("by, order", [
    ("outcome", ["fumble", "pass", "crit"]),  # as declared, not by likelihood (pass is 4/5)
    ("grade", ["Poor", "Fair", "Good", "Superb"]),  # the enum's order, not alphabetical
    ("score", ["3", "6", "9", "12", "15", "18", "21", "24", "27", "30"]),  # numbers as numbers
    ("note", ["alpha", "mid", "zeta"]),  # text alphabetically (zeta is the likeliest)
    ("low", ["-1.5", "-0.5", "0.5", "1.5", "(none)"]),  # a value the path lacks comes last
])
def test_odds_by_lists_values_in_their_own_order(tmp_path, by, order):
    assert listed(write(tmp_path, "ordered.rules", ORDERED), by) == order


def test_odds_by_json_keeps_the_same_order(tmp_path):
    rules = write(tmp_path, "ordered.rules", ORDERED)
    rows = json.loads(invoke("odds", str(rules), "test", "--by", "grade", "--json").stdout)
    assert rows == [{"grade": "Poor", "probability": "1/5", "percent": 20.0},
                    {"grade": "Fair", "probability": "3/10", "percent": 30.0},
                    {"grade": "Good", "probability": "2/5", "percent": 40.0},
                    {"grade": "Superb", "probability": "1/10", "percent": 10.0}]
    scores = json.loads(invoke("odds", str(rules), "test", "--by", "score", "--json").stdout)
    assert [row["score"] for row in scores] == list(range(3, 31, 3))


def test_odds_of_a_blow_by_wound_follow_the_injury_table_order():
    """"`odds --by` lists an ordered value (damage factor, injury) by probability"."""
    result = invoke("odds", "ringing_steel", "melee_attack", f"attacker=@{SWORDSMAN}",
                    f"defender=@{SPEARMAN}", "--by", "wound", "--json")
    wounds = [row["wound"] for row in json.loads(result.stdout)]
    severity = ["Bruise", "L Wound", "Wound", "S Wound", "Disable", "Sever", "Death"]
    assert wounds[-1] is None  # the blows that do not wound
    assert wounds[:-1] == sorted(wounds[:-1], key=severity.index)
    result = invoke("odds", "ringing_steel", "melee_attack", f"attacker=@{SWORDSMAN}",
                    f"defender=@{SPEARMAN}", "--by", "damage_factor", "--json")
    factors = [row["damage_factor"] for row in json.loads(result.stdout)][:-1]
    assert factors == sorted(factors) and len(factors) > 3
