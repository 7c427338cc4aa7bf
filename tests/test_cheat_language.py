"""The rule language's `cheat sheet:` and `screen:` (issue 22): "a declaration in the rule
language naming the items of the cheat sheet and their order (sections such as "Attack",
"Wounds", "Time"), with a sensible default when a rulebook declares none; house files can add,
remove or reorder items, and what a house file changes is marked"."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.compiler.sheets import render
from rulecraft.dsl.formatter import format_file
from rulecraft.dsl.parser import parse

from cheat_reader import CheatReader
from samples import book, error_of

BUILTINS = rulecraft.builtin_rulebooks()
ROOT = Path(__file__).resolve().parent.parent

RULES = '''
table wounds "Wounds" by damage: integer:
  | damage | wound  |
  | 1      | Bruise |
  | 2      | Wound  |

formula skill(dex: integer) = dex + 1

procedure attack(skill: integer):
  roll attack_roll = d20
  if attack_roll <= skill:
    outcome hit
  outcome missed
'''


def test_a_declaration_names_sections_and_their_items_in_order():
    rb = book(RULES + '''
cheat sheet "At the table":
  section "Attack": attack, skill
  section "Wounds": wounds
''')
    plan = rb.sheet_plans["cheat"]
    assert plan.title == "At the table"
    assert [(s.title, [i.name for i in s.items]) for s in plan.sections] == \
        [("Attack", ["attack", "skill"]), ("Wounds", ["wounds"])]
    read = CheatReader(render(rb, layout="cheat"))
    assert list(read.items) == ["procedure:attack", "formula:skill", "table:wounds"]
    page = render(rb, layout="cheat")
    assert page.index(">Attack<") < page.index(">Wounds<")


def test_add_move_and_remove_place_items_before_or_after_others():
    rb = book(RULES + '''
cheat sheet:
  section "Attack": attack
  add wounds, skill to "Attack" before attack
  move skill to "Time"
  move wounds to "Attack" after attack
''')
    plan = rb.sheet_plans["cheat"]
    assert [(s.title, [i.name for i in s.items]) for s in plan.sections] == \
        [("Attack", ["attack", "wounds"]), ("Time", ["skill"])]


def test_the_declaration_prints_as_written():
    text = 'rulebook sample "Sample"\n' + RULES + '''
cheat sheet "At the table":
  section "Attack": attack, skill
  add wounds to "Attack" after attack
  move skill to "Time" before wounds
  remove wounds

screen:
  panel "Tables": wounds
'''
    tree = parse(text, "sample.rules")
    written = format_file(tree)
    sheets = written[written.index("cheat sheet"):]
    assert sheets == text[text.index("cheat sheet"):]  # already in the formatter's layout
    again = parse(written, "sample.rules").declarations[-2:]
    assert [(d.kind, d.title, [(x.op, x.section, [i.name for i in x.items]) for x in d.lines])
            for d in again] == \
        [(d.kind, d.title, [(x.op, x.section, [i.name for i in x.items]) for x in d.lines])
         for d in tree.declarations[-2:]]
    assert 'cheat sheet "At the table":\n  section "Attack": attack, skill\n' in format_file(tree)
    assert '  move skill to "Time" before wounds\n' in format_file(tree)


@pytest.mark.parametrize(("lines", "said"), [
    ('  section "Attack": atack\n',
     "sample.rules:17:21: unknown rule for the sheet (a table, quick reference, formula or "
     "procedure) 'atack'; did you mean 'attack'?"),
    ('  section "Attack": attack, attack\n', "attack is on the sheet already"),
    ('  section "Attack": attack\n  section "Attack": skill\n',
     'there is already a section "Attack": write `add … to "Attack"`'),
    ('  remove skill\n', "skill is not on the sheet: nothing to move or remove"),
    ('  panel "Attack": attack\n', 'a cheat sheet has sections: write `section "Attack": …`'),
    ('  section "Attack": attack\n  add skill to "Attack" after wounds\n',
     'wounds is not in "Attack", so nothing can go after it there'),
])
def test_mistakes_are_said_at_their_place(lines, said):
    assert said in error_of(RULES + "\ncheat sheet:\n" + lines)


def test_a_mistake_shows_its_line_and_a_caret_from_the_command_line(tmp_path):
    rules = tmp_path / "mine.rules"
    rules.write_text('rulebook mine "Mine"\n' + RULES + '\nscreen:\n  panel "A": wounds, woonds\n',
                     encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", str(rules)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "mine.rules:17:22: unknown rule for the sheet" in result.output
    assert "                         ^^^^^^" in result.output


def test_one_block_of_each_kind():
    assert "a rulebook has one `cheat sheet:` block" in error_of(
        RULES + '\ncheat sheet:\n  section "A": wounds\n\ncheat sheet:\n  section "B": skill\n')


# -- house files ---------------------------------------------------------------------------------

def test_a_house_file_adds_removes_and_moves_and_its_changes_are_marked():
    # "house files can add, remove or reorder items, and what a house file changes is marked as
    # on the reference sheet, with the base's figure beside it"
    rb = rulecraft.load("rq3_house")
    plan = rb.sheet_plans["cheat"]
    items = {i.name: i for s in plan.sections for i in s.items}
    assert items["to_hit_modifiers"].added and not items["melee_attack"].added
    assert "location_parts" not in items and "location_parts" in plan.removed
    # A rule the house file removed is off its base's sheet too.
    assert "dodge_avoids" not in items and "dodge_avoids" in plan.removed
    assert [s.title for s in plan.sections if s.added] == ["Injuries"]
    page = render(rb, layout="cheat")
    read = CheatReader(page)
    assert "new" in read.texts["table:to_hit_modifiers"]
    assert "house" in read.texts["table:weapons"]  # a table the house rules changed …
    assert '<del class="base">' in page  # … with the base's figure beside it
    assert "Taken off:" in page and "Body part of a location" in page
    # A column the base has not got is new, not a change in each of its cells.
    assert "—" not in "".join(read.texts["table:weapons"].split("Second special")[1:])
    md = render(rb, "md", layout="cheat")
    assert "*(new)*" in md and "*(house)*" in md and "~~" in md


def test_a_house_file_moving_an_item_marks_it_moved(tmp_path):
    (tmp_path / "base.rules").write_text('rulebook base "Base"\n' + RULES + '''
cheat sheet:
  section "Attack": attack, skill
  section "Wounds": wounds
''', encoding="utf-8")
    house = tmp_path / "house.rules"
    house.write_text('rulebook house "House"\nextends "base.rules"\n\ncheat sheet:\n'
                     '  move skill to "Wounds" before wounds\n', encoding="utf-8")
    rb = rulecraft.load(house)
    plan = rb.sheet_plans["cheat"]
    assert [(s.title, [(i.name, i.moved) for i in s.items]) for s in plan.sections] == \
        [("Attack", [("attack", False)]), ("Wounds", [("skill", True), ("wounds", False)])]
    assert "moved" in CheatReader(render(rb, layout="cheat")).texts["formula:skill"]


# -- every built-in declares its own -------------------------------------------------------------

@pytest.mark.parametrize("name", BUILTINS)
def test_every_builtin_declares_its_cheat_sheet_at_the_end_of_its_file(name):
    # "Every built-in rulebook (and each new one as it lands) declares its cheat sheet"
    rb = rulecraft.load(name)
    assert rb.sheet_plans["cheat"].span is not None
    text = (ROOT / "rulebooks" / f"{name}.rules").read_text(encoding="utf-8")
    heading = text.index("# ==== Cheat sheet ====")
    rest = [line for line in text[heading:].splitlines()[1:] if line and not
            line.startswith(("#", " ", "cheat sheet", "screen"))]
    assert rest == [], f"the cheat sheet block is not the end of {name}.rules"


@pytest.mark.parametrize("name", ["ringing_steel", "rq3_core", "rq3_house"])
def test_ringing_steel_and_runequest_declare_a_screen_of_three_or_four_panels(name):
    # "A game master's screen: `--layout screen` — three or four landscape panels"
    plan = rulecraft.load(name).sheet_plans["screen"]
    assert 3 <= len(plan.sections) <= 4
    assert all(rulecraft.load(name).tables.get(i.name) is not None
               for s in plan.sections for i in s.items)
