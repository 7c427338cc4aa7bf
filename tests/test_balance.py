"""Issue 9, balance views for house-rule authors: `compare` (one target under two rulebooks) and
`sweep` (one outcome's chance across a grid), from Python and on the command line."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

ROOT = Path(__file__).resolve().parent.parent
HOUSE = str(ROOT / "docs" / "examples" / "rs_house.rules")
PARTIES = [f"attacker=@{ROOT / 'docs' / 'examples' / 'swordsman.json'}",
           f"defender=@{ROOT / 'docs' / 'examples' / 'spearman.json'}"]


@pytest.fixture(scope="module")
def books():
    return rulecraft.load("ringing_steel"), rulecraft.load(HOUSE)


def fighters(rb):
    return (rb.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                         training={"Sword": 5}, weapon="Sword", armour="Standard"),
            rb.combatant(strength=13, dexterity=11, constitution=12, willpower=9,
                         training={"Spear": 6}, weapon="Spear", armour="Light"))


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_compare_lays_the_two_rulebooks_odds_side_by_side(books):
    base, house = books
    a, b = fighters(base)
    compared = rulecraft.compare(base, house, "melee_attack", by="wound", attacker=a, defender=b)
    before = base.procedures["melee_attack"].odds(attacker=a, defender=b, by="wound")
    # The house rulebook makes the fighters by its own rules (its Sword strikes harder).
    ha, hb = fighters(house)
    after = house.procedures["melee_attack"].odds(attacker=ha, defender=hb, by="wound")
    assert {v: (b_, o) for v, b_, o in compared.rows} == {
        v: (before.get(v), after.get(v)) for v in set(before) | set(after)}
    assert [v for v, _, _ in compared.rows][:3] == ["Bruise", "L Wound", "Wound"]  # severity
    assert sum(compared.difference(row) for row in compared.rows) == 0
    assert compared.rows != tuple((v, p, p) for v, p, _ in compared.rows)  # the house differs


def test_compare_a_formula_made_anew_by_each_rulebook(books):
    base, house = books
    compared = rulecraft.compare(base, house, "blow_strength", strength=12, weapon="Sword")
    assert compared.rows == (("value", 16, 17),) and compared.difference(compared.rows[0]) == 1


def test_sweep_is_the_odds_at_each_point(books):
    base, _ = books
    a, b = fighters(base)
    swept = rulecraft.sweep(base, "melee_attack",
                            {"attacker.dexterity": [6, 12, 18], "defender.armour": ["None", "Full"]},
                            show="hit", attacker=a, defender=b)
    assert len(swept.cells) == 6
    for (dexterity, armour), p in swept.cells.items():
        attacker = base.combatant(**{**_given(a), "dexterity": dexterity})
        defender = base.combatant(**{**_given(b), "armour": armour})
        odds = base.procedures["melee_attack"].odds(attacker=attacker, defender=defender)
        assert p == odds["hit"] and type(p) is Fraction
    text = swept.text()
    assert "attacker.dexterity ↓" in text and "defender.armour →" in text
    data = swept.as_json()
    assert data["vary"] == {"attacker.dexterity": [6, 12, 18], "defender.armour": ["None", "Full"]}
    assert all("/" in point["probability"] or point["probability"] in ("0", "1")
               for point in data["points"])


def _given(fighter):
    return {name: fighter[name] for name in fighter.model.given_names}


def test_sweep_a_formula_over_a_grid(books):
    base, _ = books
    swept = rulecraft.sweep(base, "skill", {"dexterity": range(6, 19, 6),
                                            "armour": ["None", "Standard", "Full"]}, training=5)
    assert swept.cells[(12, "Standard")] == base.formulas["skill"](dexterity=12, training=5,
                                                                    armour="Standard")
    assert swept.show is None and len(swept.cells) == 9


def test_sweep_names_what_it_never_comes_to(books):
    base, _ = books
    a, b = fighters(base)
    with pytest.raises(rulecraft.RangeError, match="never comes to 'hurt'"):
        rulecraft.sweep(base, "melee_attack", {"attacker.dexterity": [6]}, show="hurt",
                        attacker=a, defender=b)


# ---- on the command line: the README's examples -----------------------------------------------

def test_compare_on_the_command_line():
    result = invoke("compare", "ringing_steel", HOUSE, "melee_attack", *PARTIES, "--by", "wound")
    assert result.exit_code == 0, result.output
    assert "melee_attack: ringing_steel → rs_house" in result.output
    assert "S Wound" in result.output and "%" in result.output
    data = json.loads(invoke("compare", "ringing_steel", HOUSE, "melee_attack", *PARTIES,
                             "--by", "wound", "--json").output)
    rows = {r["wound"]: r for r in data["rows"]}
    assert Fraction(rows["Bruise"]["base"]) == Fraction(3, 100)
    assert Fraction(rows["Bruise"]["difference"]) == \
        Fraction(rows["Bruise"]["other"]) - Fraction(rows["Bruise"]["base"])


def test_sweep_on_the_command_line():
    result = invoke("sweep", "ringing_steel", "skill", "training=5", "--vary", "dexterity=6..18",
                    "--vary", "armour=None,Standard,Full")
    assert result.exit_code == 0, result.output
    assert "dexterity ↓" in result.output and "5.4" in result.output
    result = invoke("sweep", "ringing_steel", "melee_attack", *PARTIES, "--vary",
                    "attacker.dexterity=6..18..6", "--show", "hit", "--json")
    assert result.exit_code == 0, result.output
    points = json.loads(result.output)["points"]
    assert [p["attacker.dexterity"] for p in points] == [6, 12, 18]
    assert all(Fraction(p["probability"]) <= 1 for p in points)


@pytest.mark.parametrize("args, words", [
    (["sweep", "ringing_steel", "skill", "--vary", "dexterity"], "NAME=VALUES"),
    (["sweep", "ringing_steel", "skill", "--vary", "dexterity=9..3"], "low to high"),
    (["sweep", "ringing_steel", "skil", "--vary", "dexterity=6..8"], "did you mean 'skill'"),
    (["compare", "ringing_steel", "nowhere.rules", "skill"], "no rulebook"),
])
def test_balance_commands_say_what_is_wrong(args, words):
    result = invoke(*args)
    assert result.exit_code == 1
    assert words in result.output
