"""Issue 20, where does a rule live: "`rulecraft show RULEBOOK --uses NAME` lists every formula,
table, procedure step, reference and policy that reads a name or a figure"."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.uses import uses


def _show(*args: str):
    return CliRunner().invoke(cli, ["show", *args])


def test_a_natural_20_lives_in_two_places_and_both_are_found():
    """Ringing Steel: "a natural 20 hits" is the formula `hits`, "and is a critical" a step of
    the blow; changing one alone gives a different rule. Both read the attack roll."""
    found = {(u.line, u.rule) for u in uses(rulecraft.load("ringing_steel"), "attack_roll")}
    source = rulecraft.load("ringing_steel").source.split("\n")
    hits = next(i for i, x in enumerate(source, 1) if x.startswith("formula hits("))
    critical = next(i for i, x in enumerate(source, 1) if "let critical = attack_roll == 20" in x)
    assert (hits, "formula hits") in found
    assert (critical, "procedure melee_attack") in found
    assert any(rule == "reference hit_chances" for _, rule in found)


def test_figures_table_cells_policies_and_combatants_are_places_too():
    rb = rulecraft.load("ringing_steel")
    rules = {u.rule for u in uses(rb, "base_speed")}
    assert "policy competent" in rules  # closing = if fighter.base_speed <= foe.base_speed …
    assert "combatant fighter" in rules and "encounter duel" in rules
    assert "table timings" in rules  # `= base_speed + walk - 3`, a cell's expression
    assert "table unusual_weapons" in {u.rule for u in uses(rb, "skill")}  # `= skill - 6`


def test_a_house_file_and_its_base_each_show_their_places():
    found = uses(rulecraft.load("rq3_house"), "critical_chance")
    rules = [(u.filename, u.rule) for u in found]
    assert rules[:2] == [("rq3_house.rules", "replace formula succeeded_level"),
                         ("rq3_core.rules", "formula succeeded_level")]
    # and the base's worked example of it
    assert ("rq3_core.rules", 'example "Criticals and specials as the Skill Results table '
            'prints them"') in rules


def test_the_command_prints_each_place_and_json_for_programs():
    source = rulecraft.load("ringing_steel").source.split("\n")
    lines = [i for i, x in enumerate(source, 1) if "fatigue_limit" in x
             and not x.startswith("formula fatigue_limit(")]  # its declaration is not a use
    result = _show("ringing_steel", "--uses", "fatigue_limit")
    assert result.exit_code == 0
    assert result.output.startswith(f"fatigue_limit is read in {len(lines)} places:\n")
    assert re.search(rf"\n  ringing_steel.rules:{lines[0]} +formula fatigue_excess +formula "
                     r"fatigue_excess\(", result.output)
    data = json.loads(_show("ringing_steel", "--uses", "fatigue_limit", "--json").output)
    assert [u["line"] for u in data["uses"]] == lines
    assert {"file": "ringing_steel.rules", "line": lines[1], "rule": "combatant fighter",
            "text": "derived fatigue_limit = fatigue_limit(strength, constitution)"} \
        in data["uses"]
    none = _show("ringing_steel", "--uses", "morale")
    assert none.exit_code == 0
    assert none.output == "morale is read in 0 places (no rule of ringing_steel reads it)\n"
    missing = _show("no_such_book", "--uses", "x")
    assert missing.exit_code == 1 and "Traceback" not in missing.output
