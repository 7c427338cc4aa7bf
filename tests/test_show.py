"""`rulecraft show`: what a rulebook holds (tables, formulas, procedures, the combatant model),
one entry in full, the generated Python, and the names generated code uses.

Most cases use click's CliRunner on `rulecraft.cli.cli`; the `console script` case runs the
installed `rulecraft` program from the repository root, the way a new user does.
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

PROJECT = Path(__file__).resolve().parent.parent
SCRIPT = Path(sys.executable).with_name("rulecraft")


def invoke(*args: str):
    """Run the click command in-process; a Python exception escaping a command fails the test."""
    result = CliRunner().invoke(cli, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def shown(*args: str) -> str:
    result = invoke("show", *args)
    assert result.exit_code == 0, result.output
    return result.output


def shown_json(*args: str):
    return json.loads(shown(*args, "--json"))


def by_name(items: list[dict], name: str) -> dict:
    return next(item for item in items if item["name"] == name)


def flat(text: str) -> str:
    """Text with its wrapped lines joined: what it says, whatever the width."""
    return " ".join(text.split())


@pytest.fixture(scope="module")
def rs() -> rulecraft.Rulebook:
    return rulecraft.load("ringing_steel")


DUEL = '''rulebook duel "Duel"
enum guard "Guard": High, Low
enum side "Side": Left, Right
combatant fencer "Fencer":
  skill: 1..20
  state hits: integer = 0
  derived reach = skill + 2

procedure dodge_away "Dodge away" (who: fencer):
  choose way by who from side default "Left"
  outcome moved with (way = way)

# "A lunge is met by the defender's guard."
procedure lunge "Lunge" (attacker: fencer, defender: fencer, bonus: integer = 0):
  outcomes:
    all with roll
    touch "Touché" with margin
    parried "Parried"
  choose guard by defender from guard default "High"
  roll roll = d20
  let margin = attacker.skill + bonus + roll - 15
  if margin >= 0 and guard == "Low":
    add 1 to defender.hits
    outcome touch
  else:
    call away = dodge_away(defender)
    outcome parried

# The next declaration's comment.
formula double(x: integer) = x * 2
'''


@pytest.fixture(scope="module")
def duel(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("rules") / "duel.rules"
    path.write_text(DUEL, encoding="utf-8")
    return path


# -- 1. the whole rulebook ------------------------------------------------------------------------

def test_show_lists_tables_with_keys_and_columns():
    lines = shown("ringing_steel").splitlines()
    wounds = next(line for line in lines if line.strip().startswith("wounds "))
    assert '"Wounds Table"' in wounds
    assert "by damage_factor: 1..12, area" in wounds
    assert "Head, Arm, Shoulder, Chest, Abdomen, Leg" in wounds
    weapons = next(line for line in lines if line.strip().startswith("weapons "))
    assert "by weapon ->" in weapons and "type, range, a, b, ds, dc, modifier" in weapons
    accumulation = next(line for line in lines if line.strip().startswith("accumulation "))
    assert "by held: injury, new: injury" in accumulation


def test_show_lists_formulas_with_typed_parameters():
    text = shown("ringing_steel")
    assert 'skill(dexterity: 1..20, training: 1..10, armour: armour)  "Skill-Factor"' in text
    assert ("fatigue_recovered(tenths: integer, constitution: 1..20, recovered_before: "
            "integer = 0)") in text


def test_show_lists_procedures_with_choices_and_outcomes():
    text = flat(shown("ringing_steel"))
    assert ("melee_attack(attacker: fighter, defender: fighter, attack_bonus: -10..10 = 0, "
            "defence_bonus: -10..10 = 0, simultaneous: bool = false, blow_bonus: -30..30 = 0, "
            "diving: bool = false, critical_only: bool = false, shield_covers: bool = false, "
            "strikes_as_long: bool = false, active_defence: bool = true)") in text
    assert ("choose defence by defender: Parry | Active Dodge | Passive Dodge | No Action "
            "(default Passive Dodge)") in text
    assert ('saving_throw(combatant: fighter, against: characteristic = "Willpower", '
            "modifier: -99..20 = 0)") in text
    assert 'outcome made "Saving Throw made": throw, needed' in text


def test_show_lists_the_choices_of_called_procedures_and_declared_outcomes(duel):
    text = shown(str(duel))
    assert "  lunge(attacker: fencer, defender: fencer, bonus: integer = 0)  \"Lunge\"" in text
    assert "    choose guard by defender: High | Low (default High)" in text
    assert "    choose way by who: Left | Right (default Left), in dodge_away" in text
    assert '    outcome touch "Touché": roll, margin' in text
    assert '    outcome parried "Parried": roll' in text
    assert '  double(x: integer)\n' in text  # no title of its own: none shown


def test_show_lists_the_combatant_model():
    text = shown("ringing_steel")
    assert "combatant fighter \"Combatant\":" in text
    assert "  strength: 1..20" in text
    assert "  training: map weapon -> 1..10" in text
    assert "  state fatigue: integer = 0" in text
    assert "  state injuries: map area -> list injury combined by accumulation" in text
    assert "  derived skill: number = skill(dexterity, training[weapon], armour)" in text


def test_show_json_has_stable_keys(rs):
    data = shown_json("ringing_steel")
    # The keys every rulebook has, in this order; then those of what it declares (part III's
    # missile diagrams, a policy): a rulebook without them has none.
    assert list(data) == ["rulebook", "title", "file", "tables", "formulas", "procedures",
                          "combatants", "enums", "standing", "patterns", "units", "policies"]
    assert data["rulebook"] == "ringing_steel" and data["file"] == "ringing_steel.rules"
    assert [t["name"] for t in data["tables"]] == list(rs.tables)
    wounds = by_name(data["tables"], "wounds")
    assert wounds["keys"] == [{"name": "damage_factor", "type": "1..12", "in_cells": False},
                              {"name": "area", "type": "area", "in_cells": False}]
    assert by_name(data["tables"], "dodge")["keys"][1] == {"name": "roll", "type": "1..6",
                                                         "in_cells": True}
    skill = by_name(data["formulas"], "skill")
    assert skill["params"][0] == {"name": "dexterity", "type": "1..20", "optional": False,
                                  "default": None}
    assert by_name(data["formulas"], "fatigue_recovered")["params"][2]["default"] == 0


def test_show_json_procedures_carry_choices_and_outcomes_in_order(duel):
    lunge = by_name(shown_json(str(duel))["procedures"], "lunge")
    assert lunge["params"][2] == {"name": "bonus", "type": "integer", "optional": True,
                                  "default": 0}
    assert lunge["choices"] == [
        {"name": "guard", "by": "defender", "options": ["High", "Low"], "default": "High",
         "procedure": "lunge"},
        {"name": "way", "by": "who", "options": ["Left", "Right"], "default": "Left",
         "procedure": "dodge_away"}]
    assert lunge["outcomes"] == [
        {"name": "touch", "title": "Touché", "fields": [{"name": "roll", "type": "integer"},
                                                        {"name": "margin", "type": "integer"}]},
        {"name": "parried", "title": "Parried", "fields": [{"name": "roll", "type": "integer"}]}]
    attack = by_name(shown_json("ringing_steel")["procedures"], "melee_attack")
    assert attack["choices"][0]["options"] == ["Parry", "Active Dodge", "Passive Dodge",
                                               "No Action"]
    hit = by_name(attack["outcomes"], "hit")
    assert {"name": "wound", "type": "injury"} in hit["fields"]


def test_show_json_combatant_fields_by_role():
    fighter = shown_json("ringing_steel")["combatants"][0]
    assert fighter["name"] == "fighter"
    assert by_name(fighter["characteristics"], "strength")["type"] == "1..20"
    assert by_name(fighter["state"], "fatigue") == {
        "name": "fatigue", "line": by_name(fighter["state"], "fatigue")["line"],
        "type": "integer", "default": 0, "combined_by": None}
    assert by_name(fighter["state"], "injuries")["combined_by"] == "accumulation"
    assert by_name(fighter["derived"], "anti_parry")["formula"] == \
        "anti_parry(skill, weapon) - attack_penalty"
    assert by_name(fighter["derived"], "skill")["type"] == "number"  # as the compiler found


# -- 1. one entry in full -------------------------------------------------------------------------

def test_show_a_table_prints_it_as_a_table(rs):
    text = shown("ringing_steel", "wounds")
    grid = [line for line in text.splitlines() if line.startswith("  | ")]
    assert len(grid) == 1 + 12  # the header and twelve rows
    assert len({len(line) for line in grid}) == 1  # aligned
    assert re.fullmatch(r"  \| Damage Factor \| Head +\| Arm +\| Shoulder \| Chest +\| "
                        r"Abdomen \| Leg +\|", grid[0])
    assert grid[1].split("|")[1:3] == [" 1             ", " Bruise  "]
    assert "blank" in shown_json("ringing_steel", "wounds")["options"]


def test_show_a_table_json_has_its_rows_with_lines(rs):
    data = shown_json("ringing_steel", "weapons")
    assert data["kind"] == "table" and data["layout"] == "record"
    assert data["header"] == ["Weapon", "Type", "Range", "A", "B", "DS", "DC", "Modifier"]
    assert data["rows"][0]["keys"] == ["Sword"]
    assert data["rows"][0]["cells"] == ["Cut", "Medium", "2.0", "4", "2.8", "3.0", "0"]
    assert data["rows"][0]["line"] == rs.tables["weapons"].rows[0].span.line


def test_show_a_formula_with_its_rule_text(rs):
    text = shown("ringing_steel", "skill")
    line = rs.formulas["skill"].span.line
    assert text.splitlines()[0] == f'formula skill "Skill-Factor" (ringing_steel.rules:{line})'
    assert "= round(dexterity / 4 * ln(training + 1) * armour.factor, 1)" in text
    assert "# \"Skill = (Dexterity/4) x ln(Training + 1)" in text  # the book it cites
    assert f"  {line} | formula skill(dexterity: 1..20" in text


def test_show_a_procedure_with_its_steps_and_lines(duel):
    text = shown(str(duel), "lunge")
    assert text.splitlines()[0] == f'procedure lunge "Lunge" ({duel}:14)'
    assert "  # \"A lunge is met by the defender's guard.\"" in text
    assert "    outcome touch \"Touché\": roll: integer, margin: integer" in text
    numbered = [line for line in text.splitlines() if re.match(r"  +\d+ \| ", line)]
    assert numbered[0] == "  14 | procedure lunge \"Lunge\" (attacker: fencer, defender: fencer, " \
                          "bonus: integer = 0):"
    assert "  20 |   roll roll = d20" in numbered
    assert numbered[-1] == "  27 |     outcome parried"  # not the next declaration's comment
    steps = shown_json(str(duel), "lunge")["steps"]
    assert [(step["kind"], step["line"]) for step in steps] == [
        ("choose", 19), ("roll", 20), ("let", 21), ("if", 22)]
    branch = steps[3]["blocks"]
    assert [b["when"] for b in branch] == ['margin >= 0 and guard == "Low"', "otherwise"]
    assert [(step["kind"], step["line"]) for step in branch[1]["steps"]] == [("call", 26),
                                                                           ("outcome", 27)]


def test_show_an_enum_and_the_combatant_model():
    assert "Bruise, L Wound, Wound, S Wound, Disable, Sever, Death" in shown("ringing_steel",
                                                                              "injury")
    data = shown_json("ringing_steel", "fighter")
    assert data["kind"] == "combatant"
    # Part I's states first; the later parts' (the hex grid, missiles …) after them.
    assert [f["name"] for f in data["state"]][:3] == ["fatigue", "fatigue_recovered", "injuries"]


def test_show_finds_an_entry_by_its_printed_title():
    assert shown_json("ringing_steel", "Wounds Table")["name"] == "wounds"


def test_show_an_unknown_name_says_what_was_meant():
    result = invoke("show", "ringing_steel", "wound")
    assert result.exit_code == 1
    assert "no table, formula, procedure, enum, combatant or policy called 'wound'" in result.output
    assert "did you mean 'wounds'?" in result.output
    assert "Traceback" not in result.output
    result = invoke("show", "ringing_steel", "wound", "--json")
    assert result.exit_code == 1
    error = json.loads(result.output)["errors"][0]
    assert "did you mean 'wounds'?" in error["message"]


def test_show_a_rule_file_by_path(tmp_path):
    path = tmp_path / "épée.rules"
    path.write_text('rulebook épée "Épée"\nenum côté: gauche, droite\n'
                    'formula touche(force: 1..6, côté: côté = "gauche") = force * 2\n',
                    encoding="utf-8")
    data = shown_json(str(path))
    assert data["file"] == str(path)
    assert data["formulas"][0]["params"][1] == {"name": "côté", "type": "côté",
                                                "optional": True, "default": "gauche"}
    assert data["tables"] == [] and data["procedures"] == [] and data["combatants"] == []
    assert 'touche(force: 1..6, côté: côté = "gauche")' in shown(str(path))


def test_show_lists_every_combatant_model(tmp_path):
    path = tmp_path / "mounted.rules"
    path.write_text('rulebook mounted "Mounted"\ncombatant rider "Rider":\n  skill: 1..20\n'
                    'combatant horse "Horse":\n  speed: 1..10\n  state tired: bool = false\n'
                    '  derived pace = speed * 2\n', encoding="utf-8")
    text = shown(str(path))
    assert 'combatant rider "Rider":\n  skill: 1..20\n' in text
    assert ('combatant horse "Horse":\n  speed: 1..10\n  state tired: bool = false\n'
            "  derived pace: integer = speed * 2") in text
    assert [m["name"] for m in shown_json(str(path))["combatants"]] == ["rider", "horse"]
    assert shown_json(str(path), "horse")["derived"][0]["type"] == "integer"


def test_show_an_unknown_rulebook_is_an_error():
    result = invoke("show", "ringing_stel")
    assert result.exit_code == 1
    assert "did you mean 'ringing_steel'?" in result.output


def test_show_help_says_what_it_does():
    result = invoke("show", "--help")
    assert result.exit_code == 0
    for word in ("RULEBOOK", "NAME", "--json", "--python", "--limit"):
        assert word in result.output


@pytest.mark.skipif(not SCRIPT.exists(), reason="the console script is not installed")
def test_show_as_a_new_user_runs_it_from_the_repository_root():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for args in (["show", "ringing_steel"], ["show", "rulebooks/ringing_steel.rules", "wounds"],
                 ["show", "ringing_steel", "--python"]):
        done = subprocess.run([str(SCRIPT), *args], cwd=PROJECT, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout and not done.stderr


# -- 2. the generated Python, readable -------------------------------------------------------------

GLOBAL = re.compile(r"\b[A-Z][A-Z]*_\w+|\b[A-Z]+[0-9]+\w*")  # a generated module-level name


def functions(source: str) -> dict[str, str]:
    """Each top-level function of a generated module by name."""
    found: dict[str, str] = {}
    for block in re.split(r"\n(?=def )", "\n" + source):
        if block.startswith("def "):
            found[block[4:].split("(", 1)[0]] = block
    return found


def test_show_python_prints_the_module_every_function_citing_its_rule_lines(rs):
    text = shown("ringing_steel", "--python")
    compile(text, "shown.py", "exec")  # valid Python as printed
    defs = functions(rs.python_source)
    assert {"f_skill", "pub_skill", "p_melee_attack", "p_saving_throw", "derive"} <= set(defs)
    for name, code in defs.items():
        assert re.search(r"\n +# ringing_steel\.rules:\d+: ", code), name
    assert all(line in text for line in rs.python_source.splitlines() if line.strip())
    # what the module's globals hold is said above it, as they are not written in it
    assert "\n#   NUM_1_5 = 1.5\n" in text and "\n#   DICE_d20 = d20\n" in text
    assert '\n#   T_wounds = table wounds "Wounds Table"\n' in text
    assert "\n#   COL_weapon_data_a = column a of table weapon_data, by key\n" in text


def test_generated_constants_are_named_after_what_they_hold(rs):
    source = rs.python_source
    line = next(i for i, text in enumerate(rs.source.splitlines(), 1)
                if "roll attack_roll = d20" in text)
    assert f"_ctx.roll(SPAN_L{line}_C3, 'attack_roll', DICE_d20)" in source
    assert "DICE_3d6" in source  # the saving throw
    assert "_round_half_down((v_strength * NUM_1_5))" in source  # "one and a half times"
    assert "COL_weapon_data_a[v_weapon]" in source and "COL_armour_factor[v_armour]" in source
    assert "in MEMBERS_armour" in source and "OPTIONS_defence" in source
    assert "_check(PARAM_dexterity_L" in source
    old = re.compile(r"(?:C|S|DICE|COL)[0-9]+\w*|(?:PARAM|MEMBERS|OPTIONS)_[0-9]+")
    assert not [n for n in set(GLOBAL.findall(source)) if old.fullmatch(n)]  # C40, S107, ...


def test_every_generated_global_is_bound_when_the_module_runs(rs):
    from rulecraft.compiler.build import COMPILED

    scope, namespace = COMPILED[rs]
    for name in set(GLOBAL.findall(rs.python_source)):
        assert name in namespace, name


def test_show_python_of_one_rule_prints_its_functions(rs):
    text = shown("ringing_steel", "skill", "--python")
    assert set(functions(text)) == {"f_skill", "pub_skill"}
    assert set(functions(shown("ringing_steel", "melee_attack", "--python"))) == {"p_melee_attack"}
    cells = functions(shown("ringing_steel", "timings", "--python"))
    assert cells and all(name.startswith("cell_") for name in cells)
    data = shown_json("ringing_steel", "--python")
    assert data["python"].rstrip() == shown("ringing_steel", "--python").rstrip()
    assert data["file"] == "ringing_steel.rules" and data["name"] is None
    result = invoke("show", "ringing_steel", "injury", "--python")
    assert result.exit_code == 1 and "enum injury has no generated code" in result.output
    # A combatant model: its own `derive` and a function for each derived figure.
    fighter = set(functions(shown("ringing_steel", "fighter", "--python")))
    assert {"derive", "d_skill", "d_anti_parry", "d_fatigue_over"} <= fighter
    horse = set(functions(shown("ringing_steel", "horse", "--python")))
    assert "derive_1" in horse and "derive" not in horse and not fighter & horse


CLASHING = '''rulebook clash "Names that could meet in generated code"
table a "A" by k:
  | K | B_c | D |
  | x | 1.5 | 2 |
table a_b "AB" by m:
  | M | C   | D |
  | x | 2.5 | 3 |
table épée "Épée" by lame:
  | Lame | Tranchant | Pointe |
  | x    | 0.5       | 1      |
formula f(k: k, m: m, lame: lame) = k.b_c + m.c + lame.tranchant + 2.5 + 2.50 + 2.5
formula g(n: 1..3) = n * 0.5
procedure p "P" (n: 1..3):
  roll r = d6
  roll s = d6
  outcome done with (total = r + s + n * 0.5 + 2.50)
'''


def test_generated_names_stay_unique_when_rule_names_could_meet():
    rb = rulecraft.compile(CLASHING, "clash.rules")
    assert rb.formulas["f"]("x", "x", "x") == 1.5 + 2.5 + 0.5 + 2.5 + 2.5 + 2.5
    assert rb.formulas["g"](3) == 1.5
    assert rb.procedures["p"].run(n=2, dice=[3, 4]).outcome["total"] == 3 + 4 + 1 + 2.5
    source = rb.python_source
    # table a's column b_c and table a_b's column c would both read COL_a_b_c
    assert "COL_a_b_c[" in source and "COL_a_b_c_2[" in source
    assert "COL_épée_tranchant[" in source
    # 2.5 and 2.50 are two constants (each is printed as written), 0.5 one
    assert re.search(r"\bNUM_2_5\b", source) and re.search(r"\bNUM_2_50\b", source)
    assert source.count("NUM_0_5") >= 2 and "NUM_0_5_2" not in source
    # three types whose members are the same: the name says all three
    assert "in MEMBERS_k_or_m_or_lame" in source
    compile(source, "clash.py", "exec")


def test_a_parameter_named_like_a_generated_name_hides_nothing():
    rb = rulecraft.compile('rulebook r "R"\nformula f(NUM_2_5: integer, type: integer) = '
                           'NUM_2_5 * 2.5 + type\n', "r.rules")
    assert rb.formulas["f"](2, 1) == 6
    assert rb.formulas["f"](NUM_2_5=2, type=1) == 6
