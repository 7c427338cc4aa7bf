"""House rules as overlays (issue 7): `extends` a base and change only what the house changes,
each change naming its target; errors in the right file; `diff` in the rules' own terms."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli

SWORDSMAN = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                 training={"Sword": 5}, weapon="Sword", armour="Standard")
SPEARMAN = dict(strength=13, dexterity=11, constitution=12, willpower=9,
                training={"Spear": 6}, weapon="Spear", armour="Light")

# A house rule in a handful of lines: the damage factor rounds down instead of to the nearest.
HOUSE = """rulebook rs_house "Ringing Steel, our table"
extends ringing_steel

# Our table finds blows too kind: the damage factor rounds down.
replace formula damage_factor(blow_strength: integer, excess: integer) "Damage Factor" = max(1, floor((blow_strength + excess) / 4))
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def blow_odds(rb: rulecraft.Rulebook) -> dict:
    return rb.procedures["melee_attack"].odds(
        by="wound", attacker=rb.combatant(**SWORDSMAN), defender=rb.combatant(**SPEARMAN),
        defence="Parry")


def test_a_small_house_rule_is_the_forked_copy_without_the_copy(tmp_path):
    # "A small house rule over Ringing Steel written in a handful of lines gives the same results
    # as the forked copy would, and `odds` shows the change."
    house = rulecraft.load(write(tmp_path, "house.rules", HOUSE))
    base = rulecraft.load("ringing_steel")
    forked_text = base.source.replace(
        "max(1, round((blow_strength + excess) / 4))",
        "max(1, floor((blow_strength + excess) / 4))")
    assert forked_text != base.source
    forked = rulecraft.compile(forked_text, "forked.rules")
    assert blow_odds(house) == blow_odds(forked)
    assert blow_odds(house) != blow_odds(base)
    assert sum(blow_odds(house).values()) == 1
    for blow in ([17, 4], [20, 5, 8], [12, 9]):
        a = house.procedures["melee_attack"].run(attacker=house.combatant(**SWORDSMAN),
                                                defender=house.combatant(**SPEARMAN),
                                                dice=blow)
        b = forked.procedures["melee_attack"].run(attacker=forked.combatant(**SWORDSMAN),
                                                 defender=forked.combatant(**SPEARMAN),
                                                 dice=blow)
        assert dict(a.outcome) == dict(b.outcome)


def test_the_base_is_unchanged_and_known_to_the_house(tmp_path):
    house = rulecraft.load(write(tmp_path, "house.rules", HOUSE))
    base = rulecraft.load("ringing_steel")
    assert base.formulas["damage_factor"](blow_strength=5, excess=2) == 2  # 7 / 4 rounds to 2
    assert house.formulas["damage_factor"](blow_strength=5, excess=2) == 1  # and down to 1
    assert house.base is not None and house.base.filename == "ringing_steel.rules"
    assert house.base.formulas["damage_factor"](blow_strength=5, excess=2) == 2
    origin = house.origins["damage_factor"]
    assert origin.status == "changed" and origin.span.filename.endswith("house.rules")
    assert origin.base.filename == "ringing_steel.rules"
    assert "weapons" not in house.origins  # the base's own rule


AMENDMENTS = """rulebook rs_more "More house rules"
extends ringing_steel

amend table weapons:
  cell | Sword | B | 5 |
  row | Cutlass | Cut | Medium | 2.2 | 3 | 2.6 | 3.0 | -1 |
  add column | Reach |
  cell | Spear | Reach | 3 |

amend table wounds:
  cell | 1 | Head | L Wound |

amend table injury_effects:
  cell | L Wound | Action Time | 3 |

amend enum injury: Scratch

amend combatant fighter:
  state luck: 0..5 = 2
  replace derived walk = walk_rate(armour) + time_penalty + 1

amend procedure saving_throw:
  insert after roll throw:
    let lucky = throw == 3
  replace step verdict:
    if lucky or throw <= needed:
      outcome made
    outcome failed

formula reach(w: weapon) = if weapons[w].reach == none then 0 else weapons[w].reach
"""


def test_rows_cells_columns_members_fields_and_steps_change_by_name(tmp_path):
    base_text = rulecraft.load("ringing_steel").source
    named = base_text.replace("  if throw <= needed:\n    outcome made\n  outcome failed",
                              "  step verdict:\n    if throw <= needed:\n      outcome made\n"
                              "    outcome failed")
    assert named != base_text
    write(tmp_path, "named.rules", named)
    rb = rulecraft.load(write(tmp_path, "more.rules",
                              AMENDMENTS.replace("extends ringing_steel", 'extends "named.rules"')))
    assert rb.tables["weapons"].lookup("Sword").b == 5
    assert rb.tables["weapons"].lookup("Cutlass").a == 2.2
    assert rb.formulas["reach"](w="Spear") == 3 and rb.formulas["reach"](w="Sword") == 0
    assert rb.tables["wounds"].lookup(1, "Head") == "L Wound"
    assert "Scratch" in rb.enums["injury"].members
    fighter = rb.combatant(**SWORDSMAN)
    assert fighter.luck == 2 and fighter.walk == 7  # Standard armour walks 6, plus one
    # One fact, one place: the Timings Table's wound rows read the Types of Injury table.
    assert rb.tables["timings"].lookup("LW").time() == 3
    assert rulecraft.load("ringing_steel").tables["timings"].lookup("LW").time() == 2
    save = rb.procedures["saving_throw"]
    assert save.run(combatant=fighter, dice=[1, 1, 1]).outcome == "made"
    assert save.run(combatant=fighter, dice=[6, 6, 6]).outcome == "failed"


@pytest.mark.parametrize("change, words", [
    ("replace formula damage_factr(x: integer) = x", "has no formula 'damage_factr'; did you "
     "mean 'damage_factor'?"),
    ("amend table weapons:\n  cell | Swrd | B | 5 |", "no row 'Swrd'; did you mean 'Sword'?"),
    ("amend table weapons:\n  cell | Sword | Q | 5 |", "no column 'Q'"),
    ("amend procedure melee_attack:\n  remove let excesss", "no step let excesss; did you mean "
     "'let excess'?"),
    ("amend procedure melee_attack:\n  remove let excess", "let excess is written 2 times"),
    ("formula skill(x: integer) = x", "skill is already a formula of the base"),
    ("remove table weapon", "did you mean 'weapons'?"),
    ("replace table damage_factor by x:\n  | X | Y |\n  | a | 1 |",
     "damage_factor is a formula in the base"),
    ("amend combatant fighter:\n  remove strenght", "did you mean 'strength'?"),
    ("amend enum injury: Bruise", "'Bruise' is already a member"),
])
def test_a_change_naming_nothing_is_an_error_in_the_house_file(tmp_path, change, words):
    path = write(tmp_path, "bad.rules", 'rulebook bad "Bad"\nextends ringing_steel\n' + change
                 + "\n")
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.load(path)
    errors = getattr(info.value, "errors", [info.value])
    assert any(words in e.message for e in errors), [e.message for e in errors]
    assert all(e.filename == str(path) and e.line >= 3 for e in errors)
    assert "^" in str(info.value)


def test_a_type_clash_is_reported_at_the_base_rule_it_breaks(tmp_path):
    path = write(tmp_path, "clash.rules", 'rulebook clash "Clash"\nextends ringing_steel\n'
                 'replace formula damage_factor(blow_strength: injury, excess: integer) = excess\n')
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.load(path)
    err = getattr(info.value, "errors", [info.value])[0]
    assert err.filename == "ringing_steel.rules"
    base_line = rulecraft.load("ringing_steel").source.splitlines()[err.line - 1]
    assert "damage_factor(" in base_line
    assert base_line.strip() in str(err)  # the caret shows the base's own line


def test_extending_in_a_circle_and_a_missing_base_are_errors(tmp_path):
    write(tmp_path, "a.rules", 'rulebook a "A"\nextends "b.rules"\n')
    write(tmp_path, "b.rules", 'rulebook b "B"\nextends "a.rules"\n')
    with pytest.raises(rulecraft.CycleError, match="extend each other in a circle"):
        rulecraft.load(tmp_path / "a.rules")
    with pytest.raises(rulecraft.RulecraftError, match="cannot read the base 'nope.rules'") as e:
        rulecraft.load(write(tmp_path, "c.rules", 'rulebook c "C"\nextends "nope.rules"\n'))
    assert e.value.line == 2


def test_chains_of_bases_work(tmp_path):
    write(tmp_path, "mid.rules", HOUSE)
    top = write(tmp_path, "top.rules", 'rulebook top "Top"\nextends "mid.rules"\n'
                'amend table weapons:\n  cell | Sword | B | 6 |\n')
    rb = rulecraft.load(top)
    assert rb.tables["weapons"].lookup("Sword").b == 6
    assert rb.formulas["damage_factor"](blow_strength=5, excess=2) == 1  # from the middle
    assert rb.base.base.filename == "ringing_steel.rules"


def test_a_base_changing_under_its_house_is_caught_at_the_next_check(tmp_path):
    base = write(tmp_path, "base.rules", 'rulebook base "Base"\nformula f(x: 1..9) = x\n')
    house = write(tmp_path, "house.rules", 'rulebook house "House"\nextends "base.rules"\n'
                  "replace formula f(x: 1..9) = x * 2\n")
    assert rulecraft.load(house).formulas["f"](x=2) == 4
    base.write_text('rulebook base "Base"\nformula g(x: 1..9) = x\n', encoding="utf-8")
    with pytest.raises(rulecraft.UnknownNameError, match="has no formula 'f'"):
        rulecraft.load(house)


def test_changes_need_a_base():
    with pytest.raises(rulecraft.RulecraftError, match="write `extends NAME`"):
        rulecraft.compile('rulebook r "R"\nremove formula f\n')


def test_a_house_file_formats_as_written(tmp_path):
    text = AMENDMENTS + "\nremove formula run_rate\n"
    assert rulecraft.format_rules(rulecraft.format_rules(text)) == rulecraft.format_rules(text)
    assert "  replace step verdict:\n    if lucky" in rulecraft.format_rules(text)


def test_diff_lists_each_change_in_the_rules_own_terms(tmp_path):
    path = write(tmp_path, "house.rules", HOUSE + "amend table weapons:\n  cell | Sword | B | 5 |\n"
                 "  row | Cutlass | Cut | Medium | 2.2 | 3 | 2.6 | 3.0 | -1 |\n")
    result = CliRunner().invoke(cli, ["diff", "ringing_steel", str(path)])
    assert result.exit_code == 0, result.output
    assert "table weapons: changed\n  Sword, B: 4 → 5\n  row Cutlass added" in result.output
    assert "formula damage_factor: changed" in result.output
    assert "floor((blow_strength + excess) / 4)" in result.output
    same = CliRunner().invoke(cli, ["diff", "ringing_steel", "ringing_steel", "--json"])
    assert same.exit_code == 0 and '"changes": []' in same.output


def test_a_house_rulebook_s_source_keeps_its_bases_texts_when_pickled(tmp_path):
    import pickle

    house = rulecraft.load(write(tmp_path, "house.rules", HOUSE))
    again = pickle.loads(pickle.dumps(house.source))
    assert again == house.source
    assert again.of("ringing_steel.rules") == rulecraft.load("ringing_steel").source


def test_a_quick_reference_table_is_replaced_or_removed_like_any_rule(tmp_path):
    path = write(tmp_path, "ref.rules", 'rulebook r "R"\nextends ringing_steel\n'
                 "remove reference hit_chances\n"
                 'replace reference skill_grid "Skill by Dexterity":\n'
                 "  rows dexterity in 4..20 by 4\n  columns training in 1..3\n"
                 '  cell skill(dexterity, training, "Standard")\n')
    rb = rulecraft.load(path)
    assert "hit_chances" not in rb.references and rb.references["skill_grid"].title == \
        "Skill by Dexterity"
    result = CliRunner().invoke(cli, ["diff", "ringing_steel", str(path)])
    assert "reference hit_chances: removed" in result.output
    assert "now: reference skill_grid \"Skill by Dexterity\": rows dexterity in 4..20 by 4" in \
        result.output


def test_comments_between_amended_fields_format_and_stay_out_of_diff(tmp_path):
    text = ('rulebook h "H"\n\nextends ringing_steel\n\namend combatant fighter:\n'
            "  # luck helps\n  state luck: 0..5 = 2\n  # walk faster\n"
            "  replace derived walk = walk_rate(armour) + time_penalty + 1\n\n"
            "# a note on what follows\nformula extra(x: 1..2) = x\n")
    assert rulecraft.format_rules(text) == text
    path = write(tmp_path, "h.rules", text)
    result = CliRunner().invoke(cli, ["diff", "ringing_steel", str(path)])
    assert "field walk: derived walk = athletic_move_rate(walk_rate(armour) + time_penalty, " \
           "athletics) → derived walk = walk_rate(armour) + time_penalty + 1\n" in result.output
    assert "a note on what follows" not in result.output


def test_a_base_step_that_calls_a_house_formula_names_it_in_the_trace(tmp_path):
    """Issue 20: "a trace step that calls a replaced formula names the house file's rule"."""
    house = tmp_path / "house.rules"
    house.write_text('rulebook hdf "House"\nextends ringing_steel\n\n'
                     '# Blows are less kind: the damage factor rounds down.\n'
                     'replace formula damage_factor(blow_strength: integer, excess: integer) '
                     '"Damage Factor" = max(1, floor((blow_strength + excess) / 4))\n',
                     encoding="utf-8")
    rb = rulecraft.load(str(house))
    sw = rb.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                      training={"Sword": 5}, weapon="Sword", armour="Standard")
    sp = rb.combatant(strength=13, dexterity=11, constitution=12, willpower=10,
                      training={"Spear": 5}, weapon="Spear", armour="Standard")
    result = rb.procedures["melee_attack"].run(attacker=sw, defender=sp, dice=[17, 4])
    [step] = [e for e in result.trace if e.kind == "let" and e.name == "damage_factor"]
    assert step.span.filename == "ringing_steel.rules"
    assert step.detail == f"uses damage_factor of {house.name}:5"
    base = rulecraft.load("ringing_steel").procedures["melee_attack"].run(
        attacker=sw, defender=sp, dice=[17, 4])
    assert [e.detail for e in base.trace if e.name == "damage_factor"] == [""]


def test_a_quick_reference_whose_figures_a_house_rule_changes_shows_the_base_s_beside():
    """Issue 20: "a quick reference whose figures change is marked with the base's figure
    beside the new one". The house file's heavier sword (B 5, not 4) changes the blow strength
    the weapon figures reference works out; the rapier it adds is a row of its own."""
    house = rulecraft.load(str(Path(__file__).parent.parent / "docs" / "examples" /
                               "rs_house.rules"))
    md = rulecraft.sheet(house, "md")
    figures = md.split("### Each weapon in a typical fighter's hands", 1)[1].split("###", 1)[0]
    assert "| Sword | 10 | 27 | 32 | 17 ~~16~~ | 14 |" in figures
    assert "| Dagger | 10 | 30 | 30 | 12 | 11 |" in figures  # unchanged, unmarked
    html = rulecraft.sheet(house, "html")
    part = html.split('id="reference-weapon_figures"', 1)[1].split("</article>", 1)[0]
    assert '<td class="changed"><span class="m-num">17</span> <del class="base">16</del></td>' \
        in part
    assert '<span class="house">house rule</span>' in part


def test_an_amended_procedure_marks_its_changed_steps_and_prints_only_the_base_s_replaced():
    """Issue 20: "in an amended procedure the changed steps are highlighted and the unchanged
    base steps are not reprinted in full". The RQ3 house rules amend the hit location roll:
    its d20 becomes the aim's dice."""
    md = rulecraft.sheet(rulecraft.load("rq3_house"), "md")
    part = md.split("### Hit location\n", 1)[1].split("\n### ", 1)[0]
    assert "for the Location Roll. *(house rule)*" in part
    assert "- **2** Outcome: **Located**" in part and "Located**, with Roll = Location Roll, " \
        "Location = [Humanoid hit locations](#humanoid-hit-locations)\\[Attack, Location Roll\\]." \
        "\n" in part  # unchanged: not marked
    base = part.split("The base's steps the house rules replace or remove (the others are as "
                      "above):\n\n", 1)[1]
    assert base.strip() == "- **1** Roll d20 for the Location Roll."
    html = rulecraft.sheet(rulecraft.load("rq3_house"), "html")
    article = html.split('id="procedure-hit_location_roll"', 1)[1].split("</article>", 1)[0]
    assert '<tr class="changed">' in article
