"""Cheat sheets and screens (`rulecraft sheet RB --layout cheat|screen`, issue 22): "the one or
two pages a player keeps at the table" — lookup tables, quick references, formulas on one line,
procedures condensed to their decision points; no quotations; a footer naming the rulebook,
house file and version; every value the engine's."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.compiler import cheat_view
from rulecraft.compiler.sheet_math import words
from rulecraft.compiler.sheets import SheetError, render
from rulecraft.runtime.errors import RulecraftError
from rulecraft.runtime.values import display

from cheat_reader import CheatReader

BUILTINS = rulecraft.builtin_rulebooks()


@pytest.fixture(scope="module")
def cheats() -> dict[str, tuple[rulecraft.Rulebook, str]]:
    return {name: (rb, render(rb, "html", layout="cheat"))
            for name in BUILTINS for rb in [rulecraft.load(name)]}


def test_every_builtin_has_a_cheat_sheet_in_html_and_markdown(cheats):
    for name, (rb, page) in cheats.items():
        assert page.startswith("<!DOCTYPE html>") and "landscape" in page
        md = render(rb, "md", layout="cheat")
        assert md.startswith(f"# {rb.title}"), name
        # "No quotations": the book's words stay on the reference sheet.
        assert 'class="source"' not in page and "\n> " not in md


def test_the_footer_names_the_rulebook_the_house_file_and_the_version(cheats):
    # "a footer says which rulebook, house file and version it came from"
    rb, page = cheats["rq3_house"]
    said = CheatReader(page)
    assert "rq3_house.rules" in page and "rq3_core.rules" in page
    assert re.search(r"by rulecraft \d+\.\d+", page)
    md = render(rb, "md", layout="cheat")
    assert "rq3\\_house.rules" in md and "over RuneQuest 3 core" in md
    assert said.items  # and items on it


def test_a_procedure_is_condensed_to_its_decision_points(cheats):
    # "each procedure condensed to its decision points (which dice are rolled, against what,
    # and what each result leads to) as a short flow rather than every step"
    rb = rulecraft.load("ringing_steel")
    views = cheat_view.sheet_view._Builder(rb, lambda *a: "", False,
                                           cheat_view.DEFAULT_LIMITS)
    item = cheat_view._item(rb, views, cheat_view.PlanItem("melee_attack"))
    said = ["".join(p.text for p in st.text) for st in _every(item.view.steps)]
    text = "\n".join(said)
    assert "Roll d20 for the Attack Roll" in " ".join(text.split())
    assert any(s.startswith("→") and "Hit" in s for s in said)  # what a result leads to
    assert any("Excess" in s and "Attack Roll" in s for s in said)  # against what
    assert len(said) <= _count(rb.procedures["melee_attack"].steps) // 2
    assert not any(s.startswith(("Add ", "Set ")) for s in said)  # no bookkeeping


def test_a_call_reads_apart_from_the_outcome_it_leads_to():
    # A net's hit calls `entangle` ("Entangled") and ends in the outcome `entangled`: the two
    # lines said "→ Entangled" and "→ **Entangled**" (closing note of issue 19/22).
    rb = rulecraft.load("ringing_steel")
    views = cheat_view.sheet_view._Builder(rb, lambda *a: "", False,
                                           cheat_view.DEFAULT_LIMITS)
    item = cheat_view._item(rb, views, cheat_view.PlanItem("melee_attack"))
    said = ["".join(p.text for p in st.text) for st in _every(item.view.steps)]
    assert "→ see Entangled" in said and "→ Entangled" in said
    assert said.index("→ see Entangled") < said.index("→ Entangled")
    assert "→ see After the blow" in said


def _every(steps):
    return [x for st in steps for x in (st, *(y for b in st.blocks for y in _every(b.steps)))]


def _count(steps):
    return sum(1 + sum(_count(b) for _, b in st.blocks) for st in steps)


def test_a_rulebook_with_no_screen_is_told_what_to_write():
    result = CliRunner().invoke(cli, ["sheet", "bt", "--layout", "screen"])
    assert result.exit_code != 0
    assert "declares no game master's screen" in result.output
    assert "Traceback" not in result.output


def test_the_cli_writes_a_cheat_sheet(tmp_path):
    out = tmp_path / "cheat.md"
    result = CliRunner().invoke(cli, ["sheet", "rq3_core", "--layout", "cheat", "--format",
                                      "md", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("# RuneQuest 3 core")


def test_a_layout_the_sheets_do_not_know_is_refused():
    with pytest.raises(SheetError, match="layout"):
        render(rulecraft.load("rq3_core"), layout="poster")


def test_two_renders_are_byte_identical(cheats):
    rb, page = cheats["d20_modern"]
    assert render(rb, "html", layout="cheat") == page


# -- every value on it equals what the engine computes ----------------------------------------

@pytest.mark.parametrize("name", BUILTINS)
def test_every_value_read_back_is_the_engines(name, cheats):
    # "every value on it equals what the engine computes (a test reads it back)"
    rb, page = cheats[name]
    read = CheatReader(page)
    assert read.items, "nothing on the sheet"
    checked = 0
    for key, tables in read.items.items():
        kind, rule = key.split(":", 1)
        if kind == "table" and rule in rb.tables:  # a long table in parts, its header repeated
            rows = [tables[0][0]] + [row for part, head in zip(tables, read.heads[key])
                                     for row in part[head:]]
            checked += _table_agrees(rb.tables[rule], rows)
        elif kind == "reference":
            checked += _grids_agree(rb.references[rule], tables, read.heads[key])
        elif kind == "formula":
            checked += _formula_agrees(rb.formulas[rule], read.texts[key])
        elif kind == "procedure":
            checked += _flow_agrees(rb.procedures[rule], read.texts[key])
    assert checked > 20, f"only {checked} values read back"


def _formula_agrees(formula, printed: str) -> int:
    """Its one line holds every number of the rule's body (`0.1`, `16`, `20`), and only those
    and the numbers of the rules it names (none made up)."""
    said = re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", formula.body)
    shown = set(re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", printed))
    assert set(said) <= shown, (formula.name, said, printed)
    return len(said)


def _flow_agrees(procedure, printed: str) -> int:
    """Every roll of its flow is a roll of the procedure, with the procedure's own dice."""
    rolls = {words(name.split()[1]): " ".join(dice.split()) for step in _steps(procedure.steps)
             if step.kind == "roll" for name, dice in [step.text.split("=", 1)]}
    shown = re.findall(r"Roll (\d*d\d+) for the (.+?)\.", " ".join(printed.split()))
    for dice, name in shown:
        assert rolls[name] == dice, (procedure.name, name, dice, rolls[name])
    return len(shown)


def _steps(steps):
    return [x for st in steps for x in (st, *(y for _, b in st.blocks for y in _steps(b)))]


def _table_agrees(table, rows) -> int:
    header, body = rows[0], rows[1:]
    assert header == [*table.side_labels, *table.columns]
    assert len(body) == len(table.rows)
    n = 0
    for printed, row in zip(body, table.rows):
        for got, cell in zip(printed, (*row.keys, *row.cells)):
            if not cell.text.startswith("="):  # an expression cell is printed as math
                assert got == " ".join(cell.text.split()), (table.name, got, cell.text)
                n += 1
    return n


def _grids_agree(reference, tables, heads) -> int:
    grids = reference.grids()
    assert len(tables) == len(grids)
    n = 0
    for printed, grid, head in zip(tables, grids, heads):
        body = printed[head:]
        assert [r[0] for r in body] == [display(x) for x in grid.rows]
        for row, values in zip(body, grid.cells):
            for got, value in zip(row[1:], values):
                n += 1
                if isinstance(value, Fraction):
                    assert abs(Fraction(Decimal(got.rstrip("%"))) / 100 - value) <= \
                        Fraction(1, 2000), (reference.name, got, value)
                elif isinstance(value, (int, Decimal)) and not isinstance(value, bool):
                    assert Decimal(got) == Decimal(value), (reference.name, got, value)
                else:
                    assert got == display(value), (reference.name, got, value)
    return n


def test_a_users_template_replaces_or_extends_the_cheat_sheet(tmp_path):
    (tmp_path / "cheat.html").write_text('{% extends "builtin/cheat.html" %}\n'
                                         "{% block masthead %}<h1>Our table</h1>{% endblock %}\n",
                                         encoding="utf-8")
    page = render(rulecraft.load("rq3_core"), layout="cheat", templates=tmp_path)
    assert "<h1>Our table</h1>" in page and 'data-rule="table:weapons"' in page
    (tmp_path / "cheat.md").write_text("{{ cheat.sections[0].title }} {{ 1/0 }}\n",
                                       encoding="utf-8")
    with pytest.raises(RulecraftError, match="cheat.md:1:1: the template failed: division by zero"):
        render(rulecraft.load("rq3_core"), "md", layout="cheat", templates=tmp_path)
