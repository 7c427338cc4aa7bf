"""Issue 15, item 8: defects found by trying the language, each first reproduced in a small rule
file (these tests failed before their fix)."""

from __future__ import annotations

from decimal import Decimal

import pytest

import rulecraft

HEAD = 'rulebook t "T"\n'


def book(text: str) -> rulecraft.Rulebook:
    return rulecraft.compile(HEAD + text, filename="t.rules")


def errors(text: str) -> list[rulecraft.RulecraftError]:
    with pytest.raises(rulecraft.RulecraftError) as info:
        book(text)
    return list(getattr(info.value, "errors", [info.value]))


def only(found: list[rulecraft.RulecraftError]) -> rulecraft.RulecraftError:
    assert len(found) == 1, "\n".join(str(e) for e in found)
    return found[0]


def at(text: str, line: int, part: str) -> tuple[int, int]:
    """(line, 1-based column) of `part` on 1-based `line` of the rule file (HEAD is line 1)."""
    return line, (HEAD + text).splitlines()[line - 1].index(part) + 1


# -- a parameter named like an enum --------------------------------------------------------------

SHADOW = """enum location: Head, Chest, Legs
combatant fighter:
  skill: integer
procedure aim(attacker: fighter, location: location = "Head"):
  choose target by attacker from location default "Head"
  outcome Done with spot = target
"""


def test_a_parameter_named_like_an_enum_is_not_a_list_of_its_letters():
    # "A parameter named like an enum shadows it and `choose … from location` then offers the
    # letters of the value ("H, e, a, d") — passes `check`."
    err = only(errors(SHADOW))
    assert (err.line, err.column) == at(SHADOW, 6, "location default")
    assert "the parameter location" in err.message
    assert "hides the enum location" in err.message
    assert "give the parameter a name of its own" in err.message


def test_choosing_from_the_enum_works_once_the_parameter_is_renamed():
    rb = book(SHADOW.replace("location: location", "aimed: location"))
    fighter = rb.combatant(skill=3)
    assert rb.procedures["aim"].run(attacker=fighter, target="Legs").outcome.spot == "Legs"
    assert rb.procedures["aim"].odds(by="spot", attacker=fighter) == {"Head": 1}


def test_a_name_that_is_no_collection_is_refused_as_choices():
    text = SHADOW.replace("location: location", "aimed: location").replace(
        "from location", "from aimed")
    err = only(errors(text))
    assert (err.line, err.column) == at(text, 6, "aimed default")
    assert "choose … from needs a list" in err.message and "not a location" in err.message


# -- two record tables keyed by the same key name ------------------------------------------------

TWO_TABLES = """table swords by item:
  | Name  | Weight | Reach |
  | Long  | 3      | 2     |
  | Short | 2      | 1     |
table shields by item:
  | Name  | Weight | Cover |
  | Round | 4      | 2     |
  | Kite  | 5      | 3     |
formula sword_weight(n: item) = swords[n].weight
formula shield_weight(n: shields) = shields[n].weight + n.cover
"""


def test_two_record_tables_keyed_by_one_key_name_each_have_their_rows():
    # "Two record tables keyed by the same key name share one domain (the second table's rows
    # are refused)."
    rb = book(TWO_TABLES)
    assert rb.formulas["sword_weight"](n="Long") == 3
    assert rb.formulas["shield_weight"](n="Kite") == 8
    assert [k.members for k in rb.tables["shields"].keys] == [("Round", "Kite")]
    assert [k.members for k in rb.tables["swords"].keys] == [("Long", "Short")]


def test_a_table_whose_rows_are_another_tables_still_shares_its_names():
    # A table of more figures for the same weapons keeps reading as that table's row type.
    text = TWO_TABLES + """table sword_prices by item:
  | Name  | Price |
  | Short | 10    |
formula price(n: item) = sword_prices[n] + n.weight
"""
    rb = book(text)
    assert rb.formulas["price"](n="Short") == 12


def test_a_lookup_with_the_other_tables_names_is_an_error():
    text = TWO_TABLES + "formula wrong(n: item) = shields[n].weight\n"
    err = only(errors(text))
    assert err.line == 12 and "shields" in err.message


# -- now, on a clock whose times are whole -------------------------------------------------------

LAST_SEEN = """combatant fighter:
  hp: integer
  state moves: integer = 0
  state last_seen: integer = 0
encounter watch(a: fighter, b: fighter, pace: number = 1):
  clock rounds "rounds"
  act a at 0
  act b at 0
  turn f:
    set f.last_seen = now
    add 1 to f.moves
    act f after pace
  ends when now >= 3
  at most 10 turns
"""


def test_now_goes_into_an_integer_state_when_the_clocks_times_are_whole():
    # "`now` is a number that an integer state cannot hold."
    rb = book(LAST_SEEN)
    a, b = rb.combatant(hp=1), rb.combatant(hp=1)
    result = rb.procedures["watch"].run(a=a, b=b, dice=[])
    seen = result.combatants["a"].last_seen
    assert result.outcome == "ended" and seen == 3 and type(seen) is int
    assert rb.procedures["watch"].odds(by="time", a=rb.combatant(hp=1),
                                       b=rb.combatant(hp=1)) == {3: 1}


def test_a_time_that_is_truly_fractional_is_an_error_where_it_is_set():
    rb = book(LAST_SEEN)
    with pytest.raises(rulecraft.RulecraftError) as info:
        rb.procedures["watch"].run(a=rb.combatant(hp=1), b=rb.combatant(hp=1),
                                   pace=Decimal("1.5"), dice=[])
    err = info.value
    assert (err.line, err.column) == at(LAST_SEEN, 11, "now")
    assert "last_seen holds a whole number" in err.message and "1.5" in err.message


def test_now_plus_a_whole_number_is_whole_too():
    text = LAST_SEEN.replace("= now\n", "= now + 1\n")
    rb = book(text)
    a = rb.combatant(hp=1)
    result = rb.procedures["watch"].run(a=a, b=rb.combatant(hp=1), dice=[])
    assert result.combatants["a"].last_seen == 4


def test_a_fraction_of_now_is_still_refused_when_compiling():
    text = LAST_SEEN.replace("= now\n", "= now / 2\n")
    err = only(errors(text))
    assert (err.line, err.column) == at(text, 11, "now / 2")
    assert "last_seen holds a whole number, not a number" in err.message


# -- a column mixing words and numbers -----------------------------------------------------------

MIXED = """table weapons by weapon:
  | Weapon | Damage | Reach |
  | Sword  | 5      | 2     |
  | Club   | 3      | long  |
  | Spear  | 4      | 3     |
  | Axe    | 4      | short |
formula hit(w: weapon) = weapons[w].reach * 2
"""


def test_a_column_of_words_and_numbers_is_reported_at_the_cells_that_disagree():
    # "A column mixing text and numbers is reported where it is read (`* needs numbers, but the
    # right side is a name`), not at the cells that disagree — say which cells."
    err = only(errors(MIXED))
    assert (err.line, err.column) == at(MIXED, 5, "long")
    assert "column Reach of table weapons" in err.message
    assert "'long' (line 5)" in err.message and "'short' (line 7)" in err.message
    assert "2 cells are numbers" in err.message
    assert "line 8" in err.message and "*" in err.message


def test_the_same_column_read_by_a_field_of_the_row_type_and_compared():
    text = MIXED.replace("weapons[w].reach * 2", "if w.reach > 1 then 1 else 0")
    err = only(errors(text))
    assert (err.line, err.column) == at(text, 5, "long")
    assert "'short' (line 7)" in err.message and ">" in err.message


def test_a_column_of_words_read_as_words_is_no_error():
    rb = book(MIXED.replace("weapons[w].reach * 2", "weapons[w].reach"))
    assert rb.formulas["hit"](w="Club") == "long"
    assert rb.formulas["hit"](w="Sword") == "2"


def test_now_in_a_seeded_run_and_the_fractional_clock_on_the_command_line(tmp_path):
    from click.testing import CliRunner

    from rulecraft.cli import cli

    rb = book(LAST_SEEN)
    result = rb.procedures["watch"].run(a=rb.combatant(hp=1), b=rb.combatant(hp=1), seed=3)
    assert result.combatants["b"].last_seen == 3
    path = tmp_path / "t.rules"
    path.write_text(HEAD + LAST_SEEN, encoding="utf-8")
    (tmp_path / "f.json").write_text('{"hp": 1}', encoding="utf-8")
    fighter = f"@{tmp_path / 'f.json'}"
    out = CliRunner().invoke(cli, ["run", str(path), "watch", f"a={fighter}", f"b={fighter}",
                                   "pace=0.5", "--seed", "1"])
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert "last_seen holds a whole number, but now is the number 0.5 here" in out.output
