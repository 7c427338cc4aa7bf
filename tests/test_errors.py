"""Errors: every mistake in a rule file, or in a use of a rulebook, is a RulecraftError that says
where it is (`file:line:col: message`), shows the rule line and puts a caret under the mistake.

Most cases are a small valid rulebook (BASE) plus one mistake, so the exact line and column of
the mistake are known. Cases where rulecraft misbehaves, or says something a game master could
not act on, assert the right behaviour and are marked xfail(strict=True) with the reason.
"""

from __future__ import annotations

import pytest

import rulecraft
from rulecraft.compiler.evaluate import parse_dice_text

BASE_LINES = [
    'rulebook mini "Mini"',
    'enum form "Form": Stab, Cut',
    'table weapons "Weapons" by weapon:',
    "  | Weapon | Form | A   | B |",
    "  | Sword  | Cut  | 2.0 | 4 |",
    "  | Spear  | Stab | 1.8 | 4 |",
    'formula skill(dexterity: 1..20, training: 1..10) "Skill" = '
    "round(dexterity / 4 * ln(training + 1), 1)",
]
BASE = "\n".join(BASE_LINES) + "\n"
NEXT = len(BASE_LINES) + 1  # the line a mistake appended to BASE sits on (8)

D100_LINES = [  # appended to BASE: the enum is line NEXT, the table line NEXT + 1
    'enum zone "Zone": Head, Chest, Legs, Arms, Hands',
    'table hits "Hit location" by roll: 1..100 -> zone:',
    "  | Roll  | Location |",
    "  | 01-10 | Head     |",
    "  | 11-50 | Chest    |",
    "  | 51-98 | Legs     |",
    "  | 99-00 | Arms     |",
]


# -- helpers -------------------------------------------------------------------------------------

def compile_error(text: str, filename: str = "mine.rules") -> rulecraft.RulecraftError:
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.compile(text, filename=filename)
    return info.value


def errors_of(err: rulecraft.RulecraftError) -> list[rulecraft.RulecraftError]:
    return list(err.errors) if isinstance(err, rulecraft.RulecraftErrors) else [err]


def single(err: rulecraft.RulecraftError) -> rulecraft.RulecraftError:
    """The one error reported (a RulecraftErrors group of one, or the error itself)."""
    found = errors_of(err)
    assert len(found) == 1, f"expected one error, got {len(found)}:\n{err}"
    return found[0]


def assert_caret(err: rulecraft.RulecraftError, text: str, source: str | None = None,
                 whole: bool = True) -> None:
    """str(err) is `file:line:col: message`, the rule line indented by four spaces, then a caret
    line whose carets start at the column and sit under `text` (all of it when `whole`)."""
    lines = str(err).split("\n")
    assert len(lines) >= 3, str(err)
    head, shown, caret = lines[:3]
    assert head == f"{err.filename}:{err.line}:{err.column}: {err.message}"
    assert shown.startswith("    ") and caret.startswith("    ")
    shown, caret = shown[4:], caret[4:]
    if source is not None:
        assert shown == source.splitlines()[err.line - 1]
    start = caret.index("^")
    assert start == err.column - 1, str(err)
    assert caret[:start].strip() == ""
    marks = caret[start:]
    assert set(marks) == {"^"}, str(err)
    assert shown[start:].startswith(text), f"caret is not under {text!r}:\n{err}"
    if whole:
        assert len(marks) == len(text), f"caret does not cover {text!r}:\n{err}"


def col(line: str, text: str) -> int:
    """The 1-based column where `text` starts in `line`."""
    assert text in line
    return line.index(text) + 1


@pytest.fixture(scope="module")
def rs() -> rulecraft.Rulebook:
    return rulecraft.load("ringing_steel")


def rs_line(rb: rulecraft.Rulebook, start: str) -> tuple[int, str]:
    """The number and text of the first Ringing Steel line starting (after indentation) so."""
    for number, line in enumerate(rb.source.splitlines(), start=1):
        if line.lstrip().startswith(start):
            return number, line
    raise AssertionError(f"no line starts with {start!r}")


@pytest.fixture(scope="module")
def fighters(rs):
    sword = rs.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                         training={"Sword": 5}, weapon="Sword", armour="Standard")
    spear = rs.combatant(strength=13, dexterity=11, constitution=12, willpower=9,
                         training={"Spear": 6, "Dagger": 2}, weapon="Spear", armour="Light")
    return sword, spear


GOOD_FIGHTER = dict(strength=12, dexterity=12, constitution=11, willpower=10,
                    training={"Sword": 5}, weapon="Sword", armour="Standard")


def test_base_rulebook_is_valid():
    rb = rulecraft.compile(BASE, filename="mine.rules")
    assert rb.formulas["skill"](dexterity=12, training=5) == 5.4
    assert rb.tables["weapons"].lookup("Spear").a == 1.8


def test_error_hierarchy():
    for kind in (rulecraft.RuleSyntaxError, rulecraft.UnknownNameError, rulecraft.RuleTypeError,
                 rulecraft.TableError, rulecraft.CycleError, rulecraft.RangeError,
                 rulecraft.DiceError, rulecraft.UnknownRulebookError, rulecraft.RulecraftErrors):
        assert issubclass(kind, rulecraft.RulecraftError)


# -- a malformed file ----------------------------------------------------------------------------

def test_missing_close_paren_at_end_of_file():
    line = "formula x(a: 1..2) = max(a, 1"
    text = BASE + line + "\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert (err.filename, err.line, err.column) == ("mine.rules", NEXT, len(line))
    assert '")"' in err.message
    assert_caret(err, "1", text)


def test_missing_close_paren_before_another_rule_is_reported_on_its_own_line():
    text = BASE + "formula x(a: 1..2) = max(a, 1\nformula y(b: 1..2) = b\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert err.line == NEXT
    assert '")"' in err.message
    assert "'for'" not in err.message


def test_stray_character():
    line = "formula x(a: 1..2) = a + $"
    text = BASE + line + "\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert (err.line, err.column) == (NEXT, col(line, "$"))
    assert "unexpected character '$'" in err.message
    assert_caret(err, "$", text)


def test_single_quotes_get_a_hint_about_double_quotes():
    line = "formula x(a: 1..2) = 'Sword'"
    err = single(compile_error(BASE + line + "\n"))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert (err.line, err.column) == (NEXT, col(line, "'"))
    assert "double quotes" in err.message


def test_line_indented_more_than_the_one_above():
    text = BASE + "formula x(a: 1..2) = a\n   formula y(a: 1..2) = a\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert (err.line, err.column) == (NEXT + 1, 4)
    assert "indented more" in err.message
    assert_caret(err, "f", text)


def test_table_row_indented_more_than_the_rows_above():
    text = BASE.replace("  | Spear", "    | Spear")
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert (err.line, err.column) == (6, 5)
    assert "indented more" in err.message
    assert_caret(err, "|", text)


def test_table_row_indented_less_than_the_rows_above():
    text = BASE.replace("  | Spear", " | Spear")
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert err.line == 6
    assert "dedent" not in err.message.lower()
    assert "indent" in err.message.lower()


def test_procedure_step_not_indented():
    text = BASE + "procedure p(a: 1..2):\noutcome done\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert (err.line, err.column) == (NEXT + 1, 1)
    assert_caret(err, "outcome", text)


def test_procedure_step_not_indented_says_indent():
    err = single(compile_error(BASE + "procedure p(a: 1..2):\noutcome done\n"))
    assert "indent" in err.message


def test_table_row_missing_its_closing_bar():
    row = "  | Spear  | Stab | 1.8 | 4"
    text = BASE.replace("  | Spear  | Stab | 1.8 | 4 |", row)
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.TableError)
    # The caret sits just after the last cell, where the | is missing.
    assert (err.line, err.column) == (6, len(row) + 1)
    assert "|" in err.message and "row" in err.message
    lines = str(err).split("\n")
    assert lines[1] == "    " + row
    assert lines[2] == "    " + " " * len(row) + "^"


# -- unknown names, with "did you mean" ---------------------------------------------------------

# (the line, the offending text, the words the message must hold)
UNKNOWN_NAMES = [
    ("formula x(d: 1..20, t: 1..10) = skil(d, t) + 1", "skil(d, t)",
     ["'skil'", "did you mean 'skill'?"]),
    ("formula x(weapon: weapon) = weapon.aa * 2", "weapon.aa", ["'aa'", "did you mean 'a'?"]),
    ('formula x(f: form) = if f == "Stabb" then 1 else 2', '"Stabb"',
     ["'Stabb'", "did you mean 'Stab'?"]),
    ('formula x(f: form) = if "Stabb" == f then 1 else 2', '"Stabb"',
     ["'Stabb'", "did you mean 'Stab'?"]),
    ('formula x(f: form) = if f != "Stabb" then 1 else 2', '"Stabb"',
     ["'Stabb'", "did you mean 'Stab'?"]),
    ('formula x(a: 1..2) = weapons["Swrd"].a * a', '"Swrd"', ["did you mean 'Sword'?"]),
    ("formula x(w: weapn) = 1", "weapn", ["type 'weapn'", "did you mean 'weapon'?"]),
    ("formula x(dexterity: 1..20) = dexterty + 1", "dexterty", ["did you mean 'dexterity'?"]),
]


@pytest.mark.parametrize("line, offending, words", UNKNOWN_NAMES,
                         ids=[offending for _, offending, _ in UNKNOWN_NAMES])
def test_unknown_name_suggests_the_known_one(line, offending, words):
    text = BASE + line + "\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.UnknownNameError)
    assert (err.line, err.column) == (NEXT, col(line, offending))
    for word in words:
        assert word in err.message
    assert_caret(err, offending, text)


def test_misspelt_enum_member_in_a_membership_list():
    line = 'formula x(f: form) = if f in ["Stab", "Cutt"] then 1 else 2'
    err = single(compile_error(BASE + line + "\n"))
    assert isinstance(err, rulecraft.UnknownNameError)
    assert (err.line, err.column) == (NEXT, col(line, '"Cutt"'))
    assert "did you mean 'Cut'?" in err.message


# -- type errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("expression, culprit, side", [
    ("f + 1", "f", "left"),
    ("1 + f", "f", "right"),
    ('a + "Sword"', '"Sword"', "right"),
])
def test_adding_a_name_to_a_number(expression, culprit, side):
    line = f"formula x(a: 1..2, f: form) = {expression}"
    text = BASE + line + "\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleTypeError)
    start = len("formula x(a: 1..2, f: form) = ") + expression.index(culprit) + 1
    assert (err.line, err.column) == (NEXT, start)
    assert "needs numbers" in err.message and side in err.message
    assert_caret(err, culprit, text)


def test_round_to_a_fractional_number_of_places():
    line = "formula x(a: 0.0..2.0) = round(a, 1.5)"
    text = BASE + line + "\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleTypeError)
    assert (err.line, err.column) == (NEXT, col(line, "1.5"))
    assert "decimal places" in err.message and "whole number" in err.message
    assert_caret(err, "1.5", text)


def test_branches_of_a_conditional_mixing_a_number_and_a_name():
    expression = "if a > 1 then 1 else f"
    line = f"formula x(a: 1..2, f: form) = {expression}"
    text = BASE + line + "\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.RuleTypeError)
    assert (err.line, err.column) == (NEXT, col(line, "if a"))
    assert "branches" in err.message
    assert "whole number" in err.message and "form" in err.message
    assert_caret(err, expression, text)


# -- table errors --------------------------------------------------------------------------------

def test_row_with_too_few_cells():
    row = "  | Spear  | Stab | 1.8 |"
    text = BASE.replace("  | Spear  | Stab | 1.8 | 4 |", row)
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.TableError)
    assert (err.line, err.column) == (6, 3)
    assert "3 cells" in err.message and "header has 4" in err.message
    assert_caret(err, row.strip(), text)


def test_duplicate_key():
    text = BASE.replace("| Spear  | Stab |", "| Sword  | Stab |")
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.TableError)
    # The second "Sword", on the row that repeats it.
    assert (err.line, err.column) == (6, 5)
    assert "two entries" in err.message and "Sword" in err.message
    assert_caret(err, "Sword", text)


def test_d100_table_reads_00_as_100():
    rb = rulecraft.compile(BASE + "\n".join(D100_LINES) + "\n", filename="mine.rules")
    hits = rb.tables["hits"]
    assert [hits.lookup(n) for n in (1, 10, 11, 50, 51, 98, 99, 100)] == \
        ["Head", "Head", "Chest", "Chest", "Legs", "Legs", "Arms", "Arms"]
    # `00` on its own is 100 too.
    lines = D100_LINES[:-1] + ["  | 99    | Arms     |", "  | 00    | Hands    |"]
    rb = rulecraft.compile(BASE + "\n".join(lines) + "\n", filename="mine.rules")
    assert rb.tables["hits"].lookup(100) == "Hands"
    assert rb.tables["hits"].lookup(99) == "Arms"


def test_d100_table_with_a_gap_names_the_uncovered_numbers():
    lines = [line.replace("11-50", "12-50").replace("51-98", "51-96") for line in D100_LINES]
    text = BASE + "\n".join(lines) + "\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.TableError)
    assert (err.line, err.column) == (NEXT + 1, 1)  # the table's line: a gap has no row
    assert "11, 97-98 uncovered" in err.message and "1..100" in err.message
    assert_caret(err, "table", text, whole=False)


def test_d100_table_with_an_overlap_names_the_overlapping_numbers():
    lines = [line.replace("11-50", "11-52") for line in D100_LINES]
    text = BASE + "\n".join(lines) + "\n"
    err = single(compile_error(text))  # one error: no spurious gap after the overlap
    assert isinstance(err, rulecraft.TableError)
    assert (err.line, err.column) == (NEXT + 5, 5)  # the row 51-98 that runs into 11-52
    assert "overlaps" in err.message
    assert "51-52" in err.message
    assert_caret(err, "51-98", text)


def test_d100_table_cell_not_in_its_enum():
    lines = [line.replace("| Legs ", "| Lgs  ") for line in D100_LINES]
    text = BASE + "\n".join(lines) + "\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.UnknownNameError)
    assert (err.line, err.column) == (NEXT + 5, 13)
    assert "unknown zone 'Lgs'; did you mean 'Legs'?" in err.message
    assert_caret(err, "Lgs", text)


def test_d100_key_outside_the_declared_span():
    lines = [line.replace("99-00", "99-101") for line in D100_LINES]
    err = errors_of(compile_error(BASE + "\n".join(lines) + "\n"))
    assert any(isinstance(e, rulecraft.TableError) and "outside" in e.message for e in err)


# -- cycles --------------------------------------------------------------------------------------

def test_formulas_that_call_each_other():
    text = BASE + "formula a(x: 1..2) = b(x) + 1\nformula b(x: 1..2) = a(x) - 1\n"
    err = single(compile_error(text))
    assert isinstance(err, rulecraft.CycleError)
    assert (err.line, err.column) == (NEXT, 1)
    assert "a → b → a" in err.message
    assert_caret(err, "formula a", text, whole=False)


def test_formula_that_calls_itself():
    err = single(compile_error(BASE + "formula a(x: 1..2) = a(x) + 1\n"))
    assert isinstance(err, rulecraft.CycleError)
    assert err.line == NEXT
    assert "a → a" in err.message


COMBATANT_CYCLE = (
    'combatant fighter "Fighter":\n'
    "  strength: 1..20\n"
    "  derived offence = guard + strength\n"
    "  derived guard = offence - 1\n"
)


def test_derived_figures_that_depend_on_each_other():
    text = BASE + COMBATANT_CYCLE
    found = errors_of(compile_error(text))
    cycles = [e for e in found if isinstance(e, rulecraft.CycleError)]
    assert len(cycles) == 1
    err = cycles[0]
    assert (err.line, err.column) == (NEXT + 2, 3)
    assert "offence → guard → offence" in err.message
    assert_caret(err, "derived offence", text, whole=False)


def test_derived_cycle_is_reported_once():
    err = single(compile_error(BASE + COMBATANT_CYCLE))
    assert isinstance(err, rulecraft.CycleError)


# -- several errors in one file ------------------------------------------------------------------

def test_several_errors_are_all_reported_sorted_by_line():
    text = BASE + (
        'formula y(a: 1..2) = a + "S"\n'        # NEXT: type error
        "formula x(a: 1..2) = b + 1\n"          # NEXT + 1: unknown name
        "formula z(w: weapn) = 1\n"             # NEXT + 2: unknown type
    )
    err = compile_error(text)
    assert isinstance(err, rulecraft.RulecraftErrors)
    assert len(err.errors) == 3
    assert [e.line for e in err.errors] == [NEXT, NEXT + 1, NEXT + 2]
    assert [type(e) for e in err.errors] == [rulecraft.RuleTypeError, rulecraft.UnknownNameError,
                                             rulecraft.UnknownNameError]
    shown = str(err)
    for e in err.errors:
        assert f"mine.rules:{e.line}:{e.column}: {e.message}" in shown
    assert shown.rstrip().endswith("3 errors")
    # The group itself points at the first.
    assert (err.line, err.column) == (err.errors[0].line, err.errors[0].column)


def test_errors_of_different_passes_are_reported_together():
    text = BASE.replace("  | Spear  | Stab | 1.8 | 4 |", "  | Spear  | Stab | 1.8 |") + (
        "formula x(a: 1..2) = b + 1\n"
        "formula a(x: 1..2) = a(x)\n"
    )
    err = compile_error(text)
    assert isinstance(err, rulecraft.RulecraftErrors)
    kinds = [type(e) for e in err.errors]
    assert kinds == [rulecraft.TableError, rulecraft.UnknownNameError, rulecraft.CycleError]
    assert [e.line for e in err.errors] == sorted(e.line for e in err.errors)


# -- values outside their declared range, from Python -------------------------------------------

def test_formula_argument_out_of_range(rs):
    line_no, line = rs_line(rs, "formula skill(")
    with pytest.raises(rulecraft.RangeError) as info:
        rs.formulas["skill"](dexterity=25, training=5, armour="Standard")
    err = info.value
    assert (err.filename, err.line, err.column) == ("ringing_steel.rules", line_no,
                                                    col(line, "dexterity: 1..20"))
    assert "dexterity" in err.message and "1 to 20" in err.message and "25" in err.message
    assert_caret(err, "dexterity: 1..20", rs.source)


def test_formula_unknown_armour_suggests_the_closest(rs):
    line_no, line = rs_line(rs, "formula skill(")
    with pytest.raises(rulecraft.RangeError) as info:
        rs.formulas["skill"](dexterity=12, training=5, armour="Standrd")
    err = info.value
    assert (err.line, err.column) == (line_no, col(line, "armour: armour"))
    assert "'Standrd'" in err.message and "did you mean 'Standard'?" in err.message
    assert_caret(err, "armour: armour", rs.source)


def test_number_given_as_text_says_so(rs):
    with pytest.raises(rulecraft.RangeError) as info:
        rs.formulas["skill"](dexterity="12", training=5, armour="Standard")
    assert "text" in info.value.message or '"12"' in info.value.message


@pytest.mark.parametrize("args, kwargs, words", [
    ((), {"dexterity": 12, "training": 5}, ["armour"]),          # a missing argument
    ((12, 5), {}, ["armour"]),                                    # a missing positional one
    ((12, 5, "Standard", 3), {}, ["skill", "1"]),                 # one too many
    ((), {"dexterity": 12, "training": 5, "armour": "Standard", "speed": 3}, ["skill", "speed"]),
])
def test_formula_call_misuse_is_a_rulecraft_error_not_a_type_error(rs, args, kwargs, words):
    line_no, _ = rs_line(rs, "formula skill(")
    with pytest.raises(rulecraft.RulecraftError) as info:
        rs.formulas["skill"](*args, **kwargs)
    err = info.value
    assert not isinstance(err, TypeError)
    assert (err.filename, err.line) == ("ringing_steel.rules", line_no)
    for word in words:
        assert word in err.message
    assert "formula skill(" in str(err)  # the rule line is shown


def test_formula_argument_given_twice_is_a_rulecraft_error(rs):
    line_no, _ = rs_line(rs, "formula skill(")
    with pytest.raises(rulecraft.RulecraftError) as info:
        rs.formulas["skill"](12, 5, "Standard", dexterity=12)
    assert info.value.line == line_no
    assert "dexterity" in info.value.message


def test_combatant_characteristic_out_of_range(rs):
    line_no, line = rs_line(rs, "strength: 1..20")
    with pytest.raises(rulecraft.RangeError) as info:
        rs.combatant(**{**GOOD_FIGHTER, "strength": 0})
    err = info.value
    assert (err.line, err.column) == (line_no, col(line, "strength"))
    assert "strength" in err.message and "1 to 20" in err.message and "0" in err.message
    assert_caret(err, "s", rs.source, whole=False)


def test_combatant_missing_characteristic(rs):
    line_no, line = rs_line(rs, "willpower: 1..20")
    given = dict(GOOD_FIGHTER)
    del given["willpower"]
    with pytest.raises(rulecraft.RangeError) as info:
        rs.combatant(**given)
    err = info.value
    assert (err.line, err.column) == (line_no, col(line, "willpower"))
    assert "needs willpower" in err.message


def test_combatant_unknown_keyword_suggests_the_characteristic(rs):
    line_no, _ = rs_line(rs, "combatant fighter")
    with pytest.raises(rulecraft.RangeError) as info:
        rs.combatant(**GOOD_FIGHTER, strenght=3)
    err = info.value
    assert err.line == line_no
    assert "'strenght'" in err.message and "did you mean 'strength'?" in err.message


def test_combatant_misspelt_weapon_in_training(rs):
    with pytest.raises(rulecraft.RangeError) as info:
        rs.combatant(**{**GOOD_FIGHTER, "training": {"Swrd": 5}})
    assert "did you mean 'Sword'?" in info.value.message


def test_procedure_choice_misspelt(rs, fighters):
    sword, spear = fighters
    line_no, _ = rs_line(rs, "choose defence by defender")
    with pytest.raises(rulecraft.RangeError) as info:
        rs.procedures["melee_attack"].run(attacker=sword, defender=spear, dice=[17, 4],
                                          defence="Parri")
    err = info.value
    assert err.line == line_no
    assert "did you mean 'Parry'?" in err.message


# -- unknown rulebooks and dice ------------------------------------------------------------------

def test_unknown_rulebook():
    with pytest.raises(rulecraft.UnknownRulebookError) as info:
        rulecraft.load("no_such_book")
    err = info.value
    assert isinstance(err, rulecraft.RulecraftError)
    assert "no_such_book" in str(err) and "ringing_steel" in str(err)
    assert "Traceback" not in str(err)


def test_misspelt_rulebook_suggests_the_closest():
    with pytest.raises(rulecraft.UnknownRulebookError) as info:
        rulecraft.load("ringing_stel")
    assert "did you mean 'ringing_steel'?" in str(info.value)


def test_scripted_dice_running_out_names_the_rule_line(rs, fighters):
    sword, spear = fighters
    with pytest.raises(rulecraft.DiceError) as info:
        rs.procedures["melee_attack"].run(attacker=sword, defender=spear, dice=[17])
    err = info.value
    assert err.filename == "ringing_steel.rules"
    rule = rs.source.splitlines()[err.line - 1]
    assert rule.strip() == "roll location_roll = d10"
    assert "ran out" in err.message and "d10" in err.message
    assert_caret(err, "roll location_roll", rs.source, whole=False)


def test_no_scripted_dice_at_all_names_the_first_roll(rs, fighters):
    sword, spear = fighters
    with pytest.raises(rulecraft.DiceError) as info:
        rs.procedures["melee_attack"].run(attacker=sword, defender=spear, dice=[])
    assert rs.source.splitlines()[info.value.line - 1].strip() == "roll attack_roll = d20"


def test_scripted_die_that_cannot_come_from_the_die(rs, fighters):
    sword, spear = fighters
    with pytest.raises(rulecraft.DiceError) as info:
        rs.procedures["melee_attack"].run(attacker=sword, defender=spear, dice=[17, 11])
    err = info.value
    assert rs.source.splitlines()[err.line - 1].strip() == "roll location_roll = d10"
    assert "11" in err.message and "d10" in err.message


@pytest.mark.parametrize("dice, words", [
    ("5000d6", ["5000", "limit", "1000"]),
    ("1000d6 + d6", ["1001", "limit", "1000"]),
    ("d100000", ["100000", "sides", "10000"]),
    ("3d6kh4", ["keeps", "4", "3"]),
])
def test_dice_too_large_name_the_limit(dice, words):
    parsed = parse_dice_text(dice)
    with pytest.raises(rulecraft.DiceError) as info:
        rulecraft.SeededDice(1).roll(parsed)
    for word in words:
        assert word in info.value.message


def test_dice_text_that_is_not_dice():
    with pytest.raises(rulecraft.DiceError) as info:
        parse_dice_text("2d6 * 3")
    err = info.value
    assert (err.line, err.column) == (1, 1)
    assert "like 2d4+12" in err.message
    with pytest.raises(rulecraft.DiceError) as info:
        parse_dice_text("2d")
    assert "like 2d4+12" in info.value.message


# -- runtime failures inside a rule are rulecraft errors too ------------------------------------

def test_division_by_zero_in_a_formula():
    rb = rulecraft.compile(BASE + 'formula ratio(a: 0..10, b: 0..10) "Ratio" = a / b\n',
                           filename="mine.rules")
    with pytest.raises(rulecraft.RulecraftError) as info:
        rb.formulas["ratio"](a=1, b=0)
    assert info.value.line == NEXT


def test_log_of_zero_in_an_expression(rs):
    with pytest.raises(rulecraft.RulecraftError):
        rulecraft.evaluate(rs, "ln(0)")


def test_expression_formula_call_checks_the_declared_range(rs):
    with pytest.raises(rulecraft.RangeError):
        rulecraft.evaluate(rs, 'skill(25, 5, "Standard")')


def test_runtime_error_in_an_expression_shows_the_expression(rs):
    expression = "max(w for w in [])"
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.evaluate(rs, expression)
    assert str(info.value).split("\n")[1] == "    " + expression


# -- rule files never run Python -----------------------------------------------------------------

@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """Run in an empty folder, so a payload's `touch pwned` would leave a marker here."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


PYTHON_CODE = '__import__("os").system("touch pwned")'


def test_python_in_a_formula_is_refused(workdir):
    # The language has no method calls: the `.system(` is a syntax error ...
    err = single(compile_error(BASE + f"formula x(a: 1..2) = {PYTHON_CODE}\n"))
    assert isinstance(err, rulecraft.RuleSyntaxError)
    assert err.line == NEXT
    # ... and `__import__` is just an unknown function.
    line = 'formula x(a: 1..2) = __import__("os")'
    err = single(compile_error(BASE + line + "\n"))
    assert isinstance(err, rulecraft.UnknownNameError)
    assert (err.line, err.column) == (NEXT, col(line, "__import__"))
    assert "'__import__'" in err.message
    assert not (workdir / "pwned").exists()


@pytest.mark.parametrize("cell, kind", [
    (f"= {PYTHON_CODE}", rulecraft.RuleSyntaxError),
    ('= __import__("os")', rulecraft.UnknownNameError),
])
def test_python_in_an_expression_cell_is_refused(workdir, cell, kind):
    table = (
        'table tricks "Tricks" by trick:\n'
        "  | Trick | Effect |\n"
        f"  | Boom  | {cell} |\n"
    )
    err = single(compile_error(BASE + table))
    assert isinstance(err, kind)
    assert err.line == NEXT + 2
    assert not (workdir / "pwned").exists()


def test_python_in_a_plain_cell_is_inert_text(workdir):
    payload = PYTHON_CODE
    table = (
        'table tricks "Tricks" by trick:\n'
        f"  | Trick | Effect |\n"
        f"  | Boom  | {payload} |\n"
    )
    rb = rulecraft.compile(BASE + table, filename="mine.rules")
    assert rb.tables["tricks"].lookup("Boom") == payload
    assert rulecraft.evaluate(rb, 'tricks["Boom"]') == payload
    assert not (workdir / "pwned").exists()


def test_python_in_a_text_value_is_inert(workdir):
    payload = "') + __import__('os').system('touch pwned') + ('"
    rb = rulecraft.compile(BASE + f'formula x(a: 1..2) "T{payload}" = "{payload}"\n',
                           filename="mine.rules")
    assert rb.formulas["x"](a=1) == payload
    assert not (workdir / "pwned").exists()


def test_python_typed_into_eval_is_refused(workdir, rs):
    with pytest.raises(rulecraft.RuleSyntaxError):
        rulecraft.evaluate(rs, PYTHON_CODE)
    with pytest.raises(rulecraft.RulecraftError) as info:
        rulecraft.evaluate(rs, '__import__("os")')
    assert isinstance(single(info.value), rulecraft.UnknownNameError)
    with pytest.raises(rulecraft.RulecraftError):
        rulecraft.evaluate(rs, 'skill(12, 5, "Standard").__class__')
    assert not (workdir / "pwned").exists()


def test_carriage_return_in_a_text_does_not_run_python(workdir):
    # Python reads a lone CR as a new line: a CR in a quoted text must not end the
    # `# file:line: rule` comment written above each generated statement and start real code.
    payload = "\r    pass\ropen('pwned', 'w').close()\rdef _h():#"
    text = BASE + f'formula sneaky(a: 1..2) = "{payload}"\n'
    try:
        rb = rulecraft.compile(text, filename="mine.rules")
    except rulecraft.RulecraftError:
        rb = None
    assert not (workdir / "pwned").exists()
    if rb is not None:  # accepted: then the text is only text
        assert rb.formulas["sneaky"](a=1) == payload
        assert not (workdir / "pwned").exists()


@pytest.mark.parametrize("name", [
    'x"""+str(open("pwned","w").close())+""".rules',
    "xNone.rules",
    # SECURITY: the name goes into the generated module's first line; a newline in it must
    # not start a line of Python.
    "x\n    pass\nopen('pwned','w').close()\ndef _h():#.rules",
    "x\nopen('pwned','w').close()\n#.rules",
    "x\ropen('pwned','w').close()\r#.rules",
])
def test_rule_file_name_does_not_run_python(workdir, name):
    # The file's name goes into generated comments and docstrings; it must stay text.
    rb = rulecraft.compile(BASE, filename=name)  # a file name is no reason to refuse a file
    assert not (workdir / "pwned").exists()
    assert rb.formulas["skill"](dexterity=12, training=5) == 5.4
    assert not (workdir / "pwned").exists()


@pytest.mark.parametrize("line", [
    'formula x(class: 1..2) "X" = class + 1',
    'formula lambda(a: 1..2) "X" = a + 1',
])
def test_python_keywords_as_names(line):
    # A game's words ("class") are rule names like any other: generated code prefixes them.
    rb = rulecraft.compile(BASE + line + "\n", filename="mine.rules")
    name = "x" if "formula x(" in line else "lambda"
    formula = rb.formulas[name]
    assert formula(**{formula.params[0].name: 2}) == 3
    assert formula(2) == 3


@pytest.mark.parametrize("title", ["C:\\N", "back\\", "\\x41 \\u0041 {0} %s"])
def test_backslash_in_a_title_is_text(title):
    # Titles go into generated docstrings: escapes in them are text, not Python escapes.
    rb = rulecraft.compile(BASE + f'formula x(a: 1..2) "{title}" = a\n', filename="mine.rules")
    assert rb.formulas["x"].title == title
    assert rb.formulas["x"](a=2) == 2


def test_formula_named_like_a_helper_does_not_change_other_formulas():
    rb = rulecraft.compile(BASE + 'formula _round(a: 0.0..2.0) "R" = a\n'
                           'formula y(a: 0.0..2.0) "Y" = round(a)\n', filename="mine.rules")
    assert rb.formulas["y"](a=1.5) == 2
