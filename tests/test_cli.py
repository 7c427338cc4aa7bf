"""The `rulecraft` command line: every command's help, list, check, eval, roll and run, their
exit codes (0 fine, 1 an error in a rule file or in what was asked, 2 a misused command) and
that a person only ever sees `file:line:col: message` with a caret, never a Python traceback.

Most cases use click's CliRunner on `rulecraft.cli.cli`; the `console script` tests run the
installed `rulecraft` program in a subprocess, the way a person runs it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.compiler.evaluate import parse_dice_text

PROJECT = Path(__file__).resolve().parent.parent
SWORDSMAN = PROJECT / "docs" / "examples" / "swordsman.json"
SPEARMAN = PROJECT / "docs" / "examples" / "spearman.json"
PARTIES = [f"attacker=@{SWORDSMAN}", f"defender=@{SPEARMAN}"]
SCRIPT = Path(sys.executable).with_name("rulecraft")


# -- helpers -------------------------------------------------------------------------------------

def invoke(*args: str):
    """Run the click command in-process; a Python exception escaping a command fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def script(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the installed console script as a person would, from `cwd` (outside the checkout)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def assert_no_traceback(text: str) -> None:
    assert "Traceback" not in text
    assert "internal error" not in text


def assert_caret_report(output: str, filename: str, line: int, column: int, source_line: str,
                        width: int) -> None:
    """`filename:line:col: message`, the rule line indented by four, carets under the mistake."""
    lines = output.splitlines()
    heads = [i for i, text in enumerate(lines) if text.startswith(f"{filename}:{line}:{column}: ")]
    assert heads, f"no {filename}:{line}:{column}: in\n{output}"
    i = heads[0]
    assert lines[i + 1] == "    " + source_line
    assert lines[i + 2] == "    " + " " * (column - 1) + "^" * width


@pytest.fixture(scope="module")
def rs() -> rulecraft.Rulebook:
    return rulecraft.load("ringing_steel")


def line_of(source: str, text: str) -> tuple[int, int, str]:
    """Line number, column and line of the only occurrence of `text` in `source`."""
    assert source.count(text) == 1, text
    for number, line in enumerate(source.splitlines(), start=1):
        if text in line:
            return number, line.index(text) + 1, line
    raise AssertionError(text)


def rule_at(rb: rulecraft.Rulebook, line: int) -> str:
    return rb.source.splitlines()[line - 1].strip()


@pytest.fixture
def broken(tmp_path, rs) -> tuple[Path, int, int, str]:
    """A copy of Ringing Steel with one mistake: `armour.facter` for `armour.factor`."""
    text = rs.source.replace("armour.factor", "armour.facter")
    path = tmp_path / "broken.rules"
    path.write_text(text, encoding="utf-8")
    return (path, *line_of(text, "armour.facter"))


# -- help ------------------------------------------------------------------------------------------

def test_the_documented_commands_exist():
    assert {"list", "check", "eval", "roll", "run"} <= set(cli.commands)


@pytest.mark.parametrize("command", [[]] + [[name] for name in sorted(cli.commands)])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_for_every_command(command, flag):
    result = invoke(*command, flag)
    assert result.exit_code == 0
    assert result.output.startswith("Usage: ")
    if not command:
        for name in cli.commands:
            assert name in result.output


def test_version():
    result = invoke("--version")
    assert result.exit_code == 0
    assert "0.1.0" in result.output


def test_misused_command_exits_2():
    assert invoke("roll").exit_code == 2                       # DICE missing
    assert invoke("roll", "d6", "--seed", "x").exit_code == 2  # not a number
    assert invoke("frobnicate").exit_code == 2                 # no such command
    assert invoke("check").exit_code == 2                      # FILES missing


# -- list and check --------------------------------------------------------------------------------

def test_list(rs):
    result = invoke("list")
    assert result.exit_code == 0
    assert "ringing_steel" in result.output and "Ringing Steel" in result.output


def test_list_json(rs):
    result = invoke("list", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [r["name"] for r in rows] == rulecraft.builtin_rulebooks()
    assert {"name": "ringing_steel", "title": "Ringing Steel", "tables": len(rs.tables),
            "formulas": len(rs.formulas), "procedures": len(rs.procedures)} in rows


def test_check_builtin_is_clean():
    result = invoke("check", "ringing_steel")
    assert result.exit_code == 0
    assert result.output.startswith("ringing_steel: ok")


def test_check_broken_copy(broken):
    path, line, column, source_line = broken
    result = invoke("check", str(path))
    assert result.exit_code == 1
    assert_no_traceback(result.output)
    assert f"{path}:{line}:{column}: unknown field" in result.stderr
    assert "did you mean 'factor'?" in result.stderr
    assert_caret_report(result.stderr, str(path), line, column, source_line,
                        len("armour.facter"))


def test_check_reports_every_file_and_fails_if_any_fails(broken):
    path = broken[0]
    result = invoke("check", "ringing_steel", str(path))
    assert result.exit_code == 1
    assert "ringing_steel: ok" in result.stdout
    assert str(path) in result.stderr


def test_check_reports_every_error_of_a_file(tmp_path, rs):
    text = rs.source.replace("armour.factor", "armour.facter").replace(
        "max(1, round((blow_strength", "max(1, rond((blow_strength")
    path = tmp_path / "twice.rules"
    path.write_text(text, encoding="utf-8")
    result = invoke("check", str(path))
    assert result.exit_code == 1
    assert "did you mean 'factor'?" in result.stderr
    assert "did you mean 'round'?" in result.stderr
    assert result.stderr.rstrip().endswith("2 errors")


def test_check_syntax_error_in_a_copy(tmp_path, rs):
    text = rs.source.replace("formula fatigue_limit(strength: 1..20, constitution: 1..20)",
                             "formula fatigue_limit(strength: 1..20, constitution: 1..20 $")
    path = tmp_path / "syntax.rules"
    path.write_text(text, encoding="utf-8")
    line, column, source_line = line_of(text, "$")
    result = invoke("check", str(path))
    assert result.exit_code == 1
    assert_no_traceback(result.output)
    assert_caret_report(result.stderr, str(path), line, column, source_line, 1)


def test_check_missing_and_unreadable_files(tmp_path):
    result = invoke("check", str(tmp_path / "nowhere.rules"))
    assert result.exit_code == 1
    assert "no rulebook called" in result.stderr
    binary = tmp_path / "binary.rules"
    binary.write_bytes(b"\xff\xfe\x00rulebook")
    result = invoke("check", str(binary))
    assert result.exit_code == 1
    assert "cannot read" in result.stderr


# -- eval ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("expression, shown, value", [
    ('skill(12, 5, "Standard")', "5.4", 5.4),
    ('wounds[5, "Head"]', "Wound", "Wound"),
    ('anti_parry(5.4, "Sword")', "10", 10),
    ('armour["Light"].factor', "1.1", 1.1),
])
def test_eval(expression, shown, value):
    result = invoke("eval", "ringing_steel", expression)
    assert result.exit_code == 0
    assert result.stdout.strip() == shown
    result = invoke("eval", "ringing_steel", expression, "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"expression": expression, "value": value}


def test_eval_table_row_json():
    result = invoke("eval", "ringing_steel", 'weapons["Sword"]', "--json")
    assert result.exit_code == 0
    value = json.loads(result.stdout)["value"]
    assert value["type"] == "Cut" and value["range"] == "Medium"
    assert value["a"] == 2 and value["b"] == 4 and value["ds"] == 2.8 and value["modifier"] == 0


@pytest.mark.parametrize("expression, message, culprit", [
    ('skil(12, 5, "Standard")', "unknown function 'skil'; did you mean 'skill'?",
     'skil(12, 5, "Standard")'),
    ('wounds[5, "Hed"]', "unknown area 'Hed'; did you mean 'Head'?", '"Hed"'),
    ("dexterity + 1", "unknown name 'dexterity'", "dexterity"),
])
def test_eval_unknown_name(expression, message, culprit):
    result = invoke("eval", "ringing_steel", expression)
    assert result.exit_code == 1
    assert_no_traceback(result.output)
    column = expression.index(culprit) + 1
    assert f"<expression>:1:{column}: {message}" in result.stderr
    assert_caret_report(result.stderr, "<expression>", 1, column, expression, len(culprit))


def test_eval_unknown_rulebook():
    result = invoke("eval", "ringing_stel", "d20")
    assert result.exit_code == 1
    assert "did you mean 'ringing_steel'?" in result.stderr


def test_eval_formula_call_out_of_range():
    result = invoke("eval", "ringing_steel", 'skill(25, 5, "Standard")')
    assert result.exit_code == 1
    assert "dexterity" in result.output


# -- roll ------------------------------------------------------------------------------------------

def test_roll_is_reproducible_with_a_seed():
    first = invoke("roll", "2d4+12", "--seed", "3")
    second = invoke("roll", "2d4+12", "--seed", "3")
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout
    total, faces = rulecraft.SeededDice(3).roll(parse_dice_text("2d4+12"))
    assert first.stdout.strip() == str(total)
    assert 14 <= total <= 20


def test_roll_explain_and_json_show_the_faces():
    total, faces = rulecraft.SeededDice(3).roll(parse_dice_text("2d4+12"))
    explained = invoke("roll", "2d4+12", "--seed", "3", "--explain")
    assert explained.exit_code == 0
    assert explained.stdout.strip() == f"2d4 + 12: {', '.join(map(str, faces))} → {total}"
    result = invoke("roll", "2d4+12", "--seed", "3", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data == {"dice": "2d4 + 12", "total": total, "faces": list(faces)}
    assert len(data["faces"]) == 2 and all(1 <= f <= 4 for f in data["faces"])
    assert data["total"] == 12 + sum(data["faces"])


def test_roll_keep_highest():
    data = json.loads(invoke("roll", "4d6kh3", "--seed", "11", "--json").stdout)
    assert len(data["faces"]) == 4
    assert data["total"] == sum(sorted(data["faces"])[1:])


def test_roll_incomplete_dice_exits_1_with_a_caret():
    result = invoke("roll", "2d")
    assert result.exit_code == 1
    assert_no_traceback(result.output)
    lines = result.stderr.splitlines()
    match = re.match(r"^<dice>:1:(\d+): ", lines[0])
    assert match, result.stderr
    assert lines[1] == "    2d"
    assert lines[2] == "    " + " " * (int(match.group(1)) - 1) + "^"


def test_roll_incomplete_dice_message_is_plain():
    result = invoke("roll", "2d")
    assert '")"' not in result.stderr
    assert "2d6" in result.stderr or "like 2d4+12" in result.stderr


def test_roll_too_many_dice_names_the_limit():
    result = invoke("roll", "5000d6")
    assert result.exit_code == 1
    assert "5000" in result.stderr and "limit is 1000" in result.stderr


def test_roll_not_dice():
    result = invoke("roll", "2d6 * 3")
    assert result.exit_code == 1
    assert "like 2d4+12" in result.stderr


# -- run -------------------------------------------------------------------------------------------

def test_run_documented_command_from_the_project_folder(monkeypatch):
    monkeypatch.chdir(PROJECT)
    result = invoke("run", "ringing_steel", "melee_attack",
                    "attacker=@docs/examples/swordsman.json",
                    "defender=@docs/examples/spearman.json", "--dice", "17,4", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["outcome"]["name"] == "hit"
    assert data["outcome"]["values"]["attack_roll"] == 17
    assert "trace" not in data
    assert set(data["combatants"]) == {"attacker", "defender"}


def test_run_plain_output_names_the_outcome():
    result = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17,4")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "hit"
    assert "  attack_roll: 17" in lines


def test_run_trace_shows_rule_lines(rs):
    result = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17,4",
                    "--trace")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "trace:" in lines
    entries = lines[lines.index("trace:") + 1:]
    # Two spaces, and two more per call deep (the after-blow steps are a called procedure).
    pattern = re.compile(r"^  (?:  )*ringing_steel\.rules:(\d+):(\d+): (\w+) (\S+) = (.*)$")
    checked = set()
    for entry in entries:
        match = pattern.match(entry)
        assert match, entry
        line, column, kind, name = int(match[1]), int(match[2]), match[3], match[4]
        rule = rs.source.splitlines()[line - 1]
        assert rule[column - 1:].startswith(rule.strip())  # the column starts the step
        if kind in ("roll", "let", "choose", "outcome"):
            assert rule.strip().startswith(f"{kind} {name}"), (entry, rule)
            checked.add(kind)
    assert checked == {"roll", "let", "choose", "outcome"}
    assert any(re.search(r": roll attack_roll = 17 \(d20: 17\)$", e) for e in entries)
    assert any(re.search(r": roll location_roll = 4 \(d10: 4\)$", e) for e in entries)


def test_run_trace_shows_injuries_as_plain_text():
    result = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17,4",
                    "--trace")
    change = [line for line in result.stdout.splitlines() if "defender.injuries" in line]
    assert change and "Disable" in change[0]
    assert "('" not in change[0] and ",)" not in change[0]


def test_run_trace_json(rs):
    result = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17,4",
                    "--trace", "--json")
    assert result.exit_code == 0
    trace = json.loads(result.stdout)["trace"]
    rolls = [e for e in trace if e["kind"] == "roll"]
    assert [(e["name"], e["value"]) for e in rolls] == [("attack_roll", 17), ("location_roll", 4)]
    for e in rolls:
        assert e["file"] == "ringing_steel.rules"
        assert rule_at(rs, e["line"]).startswith(f"roll {e['name']} = ")


@pytest.mark.parametrize("choice, outcome, dice", [
    ("defence=Parry", "parried", "17,4"),
    ('defence="Active Dodge"', "hit", "17,4,3"),
    ("defence=No Action", "hit", "17,4"),
])
def test_run_with_a_choice(choice, outcome, dice):
    result = invoke("run", "ringing_steel", "melee_attack", *PARTIES, choice, "--dice", dice,
                    "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["outcome"]["name"] == outcome
    assert data["outcome"]["values"]["defence"] == choice.split("=", 1)[1].strip('"')


def test_run_combatant_field_by_field():
    fields = ["defender.strength=13", "defender.dexterity=11", "defender.constitution=12",
              "defender.willpower=9", "defender.training.Spear=6", "defender.training.Dagger=2",
              "defender.weapon=Spear", "defender.armour=Light"]
    by_fields = invoke("run", "ringing_steel", "melee_attack", PARTIES[0], *fields,
                       "--dice", "17,4", "--json")
    by_file = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17,4", "--json")
    assert by_fields.exit_code == by_file.exit_code == 0
    assert json.loads(by_fields.stdout) == json.loads(by_file.stdout)


def test_run_with_a_seed_is_reproducible():
    first = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--seed", "7", "--json")
    second = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--seed", "7", "--json")
    assert first.exit_code == second.exit_code == 0
    assert first.stdout == second.stdout


def test_run_too_few_dice_names_the_rule_line(rs):
    result = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17")
    assert result.exit_code == 1
    assert_no_traceback(result.output)
    head = result.stderr.splitlines()[0]
    match = re.match(r"^ringing_steel\.rules:(\d+):(\d+): (.*)$", head)
    assert match, result.stderr
    line, column = int(match[1]), int(match[2])
    assert rule_at(rs, line) == "roll location_roll = d10"
    assert "ran out" in match[3] and "d10" in match[3]
    source_line = rs.source.splitlines()[line - 1]
    assert column == source_line.index("roll") + 1
    assert_caret_report(result.stderr, "ringing_steel.rules", line, column, source_line,
                        len(result.stderr.splitlines()[2].strip()))


@pytest.mark.parametrize("arguments, words", [
    (["melee_atack", *PARTIES], ["melee_atack", "melee_attack"]),           # no such procedure
    (["melee_attack", PARTIES[0]], ["needs defender"]),                    # a party missing
    (["melee_attack", *PARTIES, "defence=Parri"], ["did you mean 'Parry'?"]),
    (["melee_attack", *PARTIES, "attacker.strength=25"], ["strength", "1 to 20"]),
    (["melee_attack", "attacker=@/no/such/file.json", PARTIES[1]], ["cannot read combatant"]),
    (["melee_attack", *PARTIES, "third=@" + str(SPEARMAN)], ["third"]),
    (["melee_attack", *PARTIES, "nonsense"], ["name=value"]),
])
def test_run_mistakes_exit_1(arguments, words):
    result = invoke("run", "ringing_steel", *arguments, "--dice", "17,4")
    assert result.exit_code == 1
    assert_no_traceback(result.output)
    for word in words:
        assert word in result.stderr


def test_run_bad_dice_list():
    result = invoke("run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17,x")
    assert result.exit_code == 1
    assert "17,4" in result.stderr  # shows how to write it


# -- the real console script -----------------------------------------------------------------------

def test_script_help(tmp_path):
    done = script("--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "Usage: rulecraft" in done.stdout
    done = script("run", "--help", cwd=tmp_path)
    assert done.returncode == 0


def test_script_run_json(tmp_path):
    done = script("run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17,4", "--json",
                  cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["outcome"]["name"] == "hit"
    assert done.stderr == ""


def test_script_check_broken_copy(tmp_path, broken):
    path, line, column, source_line = broken
    done = script("check", path.name, cwd=path.parent)
    assert done.returncode == 1
    assert_no_traceback(done.stdout + done.stderr)
    assert_caret_report(done.stderr, path.name, line, column, source_line, len("armour.facter"))


@pytest.mark.parametrize("arguments, code", [
    (["check", "ringing_steel"], 0),
    (["list", "--json"], 0),
    (["eval", "ringing_steel", 'skil(12, 5, "Standard")'], 1),
    (["roll", "2d"], 1),
    (["run", "ringing_steel", "melee_attack", *PARTIES, "--dice", "17"], 1),
    (["run", "ringing_steel", "no_such_procedure", *PARTIES], 1),
    (["check", "no_such_book"], 1),
    (["roll"], 2),
    (["frobnicate"], 2),
])
def test_script_exit_codes_and_no_traceback(tmp_path, arguments, code):
    done = script(*arguments, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    assert_no_traceback(done.stdout + done.stderr)
    if code == 1:
        assert done.stderr.strip()


@pytest.mark.parametrize("expression", ["1 / 0", "ln(0)", "sqrt(-1)"])
def test_script_eval_arithmetic_error_is_a_rule_error(tmp_path, expression):
    done = script("eval", "ringing_steel", expression, cwd=tmp_path)
    assert done.returncode == 1
    assert_no_traceback(done.stderr)
    assert "^" in done.stderr


def test_script_check_of_a_strangely_named_file_runs_no_python(tmp_path):
    name = "evil\nopen('pwned','w').close()\n#.rules"
    (tmp_path / name).write_text('rulebook m "M"\nformula x(a: 1..2) = a\n', encoding="utf-8")
    done = script("check", name, cwd=tmp_path)
    assert_no_traceback(done.stderr)
    assert not (tmp_path / "pwned").exists()


# ---- odds ------------------------------------------------------------------------------------

def test_odds_are_exact_and_sum_to_one():
    # The swordsman's Anti-Parry 10 against the spearman's Passive Dodge Factor 13: a d20 of 1
    # is a critical miss, 2 misses (12 < 13), 3 to 20 hit — 18 of 20 faces.
    result = invoke("odds", "ringing_steel", "melee_attack", f"attacker=@{SWORDSMAN}",
                    f"defender=@{SPEARMAN}", "--json")
    assert result.exit_code == 0, result.output
    rows = {row["outcome"]: row["probability"] for row in json.loads(result.stdout)}
    assert rows == {"hit": "9/10", "critical_miss": "1/20", "missed": "1/20"}


def test_odds_by_an_outcome_value():
    result = invoke("odds", "ringing_steel", "melee_attack", f"attacker=@{SWORDSMAN}",
                    f"defender=@{SPEARMAN}", "defence=Parry", "--by", "wound")
    assert result.exit_code == 0, result.output
    assert "L Wound" in result.stdout and "%" in result.stdout


def test_odds_of_an_unknown_procedure_is_a_rule_error():
    result = invoke("odds", "ringing_steel", "charge")
    assert result.exit_code == 1
    assert "has no procedure 'charge'" in result.stderr
