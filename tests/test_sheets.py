"""Reference sheets (`rulecraft sheet`): every built-in rulebook in both formats, complete,
well-formed, deterministic; formulas as math; the book beside the rule; quick-reference tables
worked out by the engine; house rules marked; templates sandboxed and escaped."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.compiler.sheets import SheetError, markdown_text, render
from rulecraft.dsl.formatter import format_file
from rulecraft.dsl.parser import parse

BUILTINS = rulecraft.builtin_rulebooks()
ROOT = Path(__file__).resolve().parent.parent
HOUSE = ROOT / "docs" / "examples" / "rs_house.rules"


@pytest.fixture(scope="module")
def sheets() -> dict[tuple[str, str], str]:
    return {(name, fmt): render(rulecraft.load(name), fmt) for name in BUILTINS
            for fmt in ("html", "md")}


def text_of(page: str) -> str:
    """What a reader sees of an HTML sheet: its text, tags dropped, entities read."""
    body = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


class _Balance(HTMLParser):
    """Every element closed, in order; void elements never closed; no stray end tags."""

    VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "area", "base", "source"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.problems: list[str] = []
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [v for k, v in attrs if k == "id" and v]
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [v for k, v in attrs if k == "id" and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            self.problems.append(f"</{tag}> closes a void element")
        elif not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> at {self.getpos()} closes {self.open[-1:]}")
        else:
            self.open.pop()


def well_formed(page: str) -> _Balance:
    checker = _Balance()
    checker.feed(page)
    checker.close()
    assert page.startswith("<!DOCTYPE html>")
    assert checker.problems == [] and checker.open == []
    assert len(checker.ids) == len(set(checker.ids)), "an id is used twice"
    return checker


# -- every built-in rulebook, both formats --------------------------------------------------

@pytest.mark.parametrize("name", BUILTINS)
def test_every_table_formula_and_procedure_is_on_the_html_sheet(name, sheets):
    rb = rulecraft.load(name)
    page = sheets[(name, "html")]
    ids = set(well_formed(page).ids)
    seen = text_of(page)
    for kind, items in (("table", rb.tables), ("formula", rb.formulas),
                        ("procedure", rb.procedures), ("reference", rb.references)):
        for item in items.values():
            assert f"{kind}-{item.name}" in ids
            assert item.title in seen
            assert f'href="#{kind}-{item.name}"' in page  # the table of contents
    for table in rb.tables.values():
        for row in table.rows:
            for cell in row.keys + row.cells:
                if cell.text and not cell.text.startswith("="):
                    assert cell.text in seen, (table.name, cell.text)
    for procedure in rb.procedures.values():
        article = page.split(f'id="procedure-{procedure.name}"', 1)[1].split("</article>")[0]
        assert article.count('<td class="no">') >= _count_steps(procedure.steps)
    # nothing links to a place the sheet does not have
    assert set(re.findall(r'href="#([^"]+)"', page)) <= ids


def _count_steps(steps) -> int:
    return sum(1 + sum(_count_steps(block) for _, block in st.blocks) for st in steps)


@pytest.mark.parametrize("name", BUILTINS)
def test_every_table_formula_and_procedure_is_on_the_markdown_sheet(name, sheets):
    rb = rulecraft.load(name)
    page = sheets[(name, "md")]
    headings = re.findall(r"^### (.+)$", page, flags=re.M)
    for items in (rb.tables, rb.formulas, rb.procedures, rb.references):
        for item in items.values():
            assert markdown_text(item.title) in headings
    for table in rb.tables.values():
        # a pipe table: a header row and its rule, each row as many cells as the header
        head = "| " + " | ".join(markdown_text(h) for h in (*table.side_labels, *table.columns))
        assert head + " |" in page, table.name
    anchors = {_slug(h) for h in re.findall(r"^#+ (.+)$", page, flags=re.M)}
    assert set(re.findall(r"\]\(#([^)]+)\)", page)) <= anchors | {
        f"{_slug(h)}-{n}" for h in anchors for n in range(1, 4)}


def _slug(heading: str) -> str:
    heading = re.sub(r"\\(.)", r"\1", heading)
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("fmt", ["html", "md"])
@pytest.mark.parametrize("name", BUILTINS)
def test_sheets_are_byte_identical_twice(name, fmt, sheets):
    rb = rulecraft.load(name)
    fresh = rulecraft.compile(rb.source + "\n", filename=rb.filename)  # compiled anew
    assert render(fresh, fmt) == sheets[(name, fmt)]


# -- what a sheet says -----------------------------------------------------------------------

def test_formulas_are_math_with_their_name_and_source(sheets):
    seen = text_of(sheets[("ringing_steel", "html")])
    assert "Skill = (Dexterity ÷ 4) × ln(Training + 1) × Armour Factor, to one decimal place" \
        in seen
    # the rapier's skill "treated as being three less" (part IV): the skill with the weapon
    assert "Anti-Parry = Skill with the weapon(Skill, Weapon) × Weapon A, rounded down" in seen
    assert "Base Speed = max(1, ⌊20 − Skill with the weapon(Skill, Weapon) + Armour Modifier + " \
        "Weapon Modifier⌋)" in seen
    assert '"Skill = (Dexterity/4) x ln(Training + 1) x Armour Factor 4' in seen  # the seed
    md = sheets[("ringing_steel", "md")]
    assert "**Skill** = (Dexterity ÷ 4) × ln(Training + 1) × Armour Factor, *to one decimal " \
        "place, halves up*" in md
    # math, not code (the worked examples printed under rules are rule text, in code blocks)
    assert "```" not in re.sub(r"\*\*Example: [^\n]*\n```\n.*?```", "", md, flags=re.S)


def test_procedures_are_numbered_steps_in_words_linking_their_tables(sheets):
    page = sheets[("ringing_steel", "html")]
    seen = text_of(page)
    assert "Defender chooses the Defence: Parry, Active Dodge, Passive Dodge or No Action " \
        "(by default Passive Dodge)." in seen
    assert "Roll d20 for the Attack Roll." in seen
    assert "Anti-Parry = Attacker’s Anti-Parry + Attack Bonus + (if Simultaneous then 2; " \
        "otherwise 0)." in seen
    assert "Excess = Anti-Parry + Attack Roll − Defence Potential." in seen
    # Effects on time, in words: "DG Dodge +WF", "PY Parry + * (* = 2 or 4)".
    assert "Add Defender Delay to the action Defender has under way, or else to the next one " \
        "he starts." in seen
    assert "Wound = Wounds Table[min(Damage Factor, 12), Area]." in seen
    assert '<a class="m-name" href="#table-wounds">Wounds Table</a>' in page
    assert '<a class="m-name" href="#procedure-after_the_blow">After the blow</a>' in page
    md = sheets[("ringing_steel", "md")]
    assert "[Wounds Table](#wounds-table)" in md
    assert "- **20.9** Wound = [Wounds Table](#wounds-table)\\[min(Damage Factor, 12), Area\\]." \
        in md


def test_the_book_beside_the_rule_or_rules_only():
    rb = rulecraft.load("ringing_steel")
    quote = "The attack is resolved by adding a d20 roll"
    with_sources = text_of(render(rb, "html", sources=True))
    rules_only = text_of(render(rb, "html", sources=False))
    assert quote in with_sources and quote not in rules_only
    assert "Roll d20 for the Attack Roll." in rules_only
    assert quote not in render(rb, "md", sources=False)


def test_paper_sizes_and_the_running_header():
    rb = rulecraft.load("ringing_steel")
    a4, letter = render(rb, "html", "a4"), render(rb, "html", "letter")
    assert "size: A4;" in a4 and "size: letter;" in letter
    assert '@top-left { content: "Ringing Steel";' in a4
    assert 'counter(page) " of " counter(pages)' in a4
    assert "break-inside: avoid" in a4 and "break-after: avoid" in a4
    assert "http" not in a4.replace("http-equiv", "")  # self-contained: nothing fetched
    with pytest.raises(SheetError, match="a4 or letter"):
        render(rb, "html", "a3")


def test_quick_references_are_worked_out_by_the_engine():
    rb = rulecraft.load("ringing_steel")
    skill = rb.references["skill_grid"]
    grids = skill.grids()
    assert len(grids) == len(rb.tables["armour"].rows)  # one per armour
    standard = dict(grids[3].each)["armour"], grids[3]
    assert standard[0] == "Standard"
    row = standard[1].rows.index(12)
    assert float(standard[1].cells[row][4]) == rb.formulas["skill"](12, 5, "Standard") == 5.4
    figures = rb.references["weapon_figures"].grids()[0]
    sword = figures.cells[figures.rows.index("Sword")]
    fighter = rb.combatant(strength=12, dexterity=12, constitution=11, willpower=10,
                           training={"Sword": 5}, weapon="Sword", armour="Standard")
    assert sword == (fighter.anti_parry, fighter.parry_stab, fighter.parry_cut,
                     fighter.blow_strength, fighter.base_speed)
    hits = rb.references["hit_chances"].grids()[0]
    # Anti-Parry 12 against 20 needs 8 or more on the d20 (20 always hits, 1 always misses)
    from fractions import Fraction
    assert hits.cells[hits.rows.index(12)][hits.columns.index(20)] == Fraction(13, 20)
    assert hits.cells[hits.rows.index(28)][hits.columns.index(8)] == Fraction(19, 20)
    assert hits.cells[hits.rows.index(4)][hits.columns.index(40)] == Fraction(1, 20)
    page = render(rb, "html")
    assert '<td title="13/20"><span class="m-num">65%</span></td>' in page


def test_references_read_like_the_book_and_format_round_trip():
    text = rulecraft.load("ringing_steel").source
    assert "reference skill_grid" in text
    tree = parse(text, "ringing_steel.rules")
    again = parse(format_file(tree), "ringing_steel.rules")
    refs = [d for d in tree.declarations if type(d).__name__ == "ReferenceDecl"]
    # Part I's three, and those the later parts add (part III: missile_figures, missile_chances).
    assert {"skill_grid", "weapon_figures", "hit_chances"} <= {r.name for r in refs}
    assert format_file(again) == format_file(tree)


@pytest.mark.parametrize("lines, message", [
    ("  cell f(a)\n", "needs a `rows NAME in …` line"),
    ("  rows a in 1..5 by 0\n  cell f(a)\n", "`by` takes a whole number of 1 or more"),
    ("  rows a in 1..5\n  cell f(b)\n", "unknown name 'b'"),
    ("  rows a in 1..5\n  roll r = d6\n  cell r >= a\n", "a cell is the chance of something"),
    ("  rows a in 1..5\n  cell chance a >= 3\n", "a chance is worked out over dice"),
    ("  rows a in 1..5\n  columns b in 1..2\n  column \"X\" = f(b)\n", "show one `cell …`"),
    ("  rows a in 1..5\n  cell d6\n", "not dice"),
    ("  rows a in colours\n  cell 1\n", "unknown name 'colours'"),
    ("  rows a in 1..5\n  columns a in 1..2\n  cell 1\n", "a is named twice"),
])
def test_a_wrong_reference_is_an_error_with_a_caret(lines, message):
    source = 'rulebook t "T"\nformula f(a: 1..10) = a * 2\nreference r "R":\n' + lines
    with pytest.raises(rulecraft.RulecraftError) as caught:
        rulecraft.compile(source, "t.rules")
    assert message in str(caught.value)
    assert "t.rules:" in str(caught.value) and "^" in str(caught.value)


def test_a_reference_whose_cell_fails_names_itself():
    rb = rulecraft.compile('rulebook t "T"\nformula f(a: 1..10) = a * 2\n'
                           'reference r "R":\n  rows a in 1..12 by 5\n  cell f(a)\n', "t.rules")
    with pytest.raises(rulecraft.RulecraftError, match="reference r"):
        render(rb, "html")


def test_a_reference_too_large_to_work_out_names_its_limit():
    rb = rulecraft.compile('rulebook t "T"\nreference r "R":\n  rows a in 1..50\n'
                           '  columns b in 1..50\n  roll x = 3d6\n  cell chance x + a >= b\n',
                           "t.rules")
    with pytest.raises(rulecraft.RulecraftError, match="enumeration_work"):
        rulecraft.sheet(rb, limits=rulecraft.Limits(enumeration_work=1000))
    assert "reference-r" in rulecraft.sheet(rb)  # 50 × 50 × 16 totals: within the default


# -- escaping and templates -------------------------------------------------------------------

HOSTILE = '''rulebook evil "<script>alert(1)</script> {{ 7 * 7 }}"
  source: "</style><script>x()</script>"
# {{ config }} <b>bold</b> {% raw %} | *star* [link](http://x)
table t "T <i>" by k:
  | K        | Note                      |
  | <script> | {{ 7*7 }} and {% if %} |
formula f(a: 1..3) "F {{ a }}" = a + 1
'''


def test_rule_text_is_shown_as_text_never_run():
    rb = rulecraft.compile(HOSTILE, "evil.rules")
    page = render(rb, "html")
    well_formed(page)
    assert "<script>" not in page and "<b>" not in page and "<i>" not in page
    assert "&lt;script&gt;" in page
    assert "{{ 7*7 }}" in html.unescape(page) and "49" not in page
    assert "</style><script>" not in page
    md = render(rb, "md")
    assert "<script>" not in md and "\\<script\\>" in md
    assert "\\{\\{ 7\\*7 \\}\\}" not in md and "{{ 7\\*7 }}" in md  # braces mean nothing here
    assert "{% raw %} \\| \\*star\\*" in md  # no emphasis, no table bar
    assert "\\[link\\](http://x)" in md


def test_a_user_template_extends_the_builtin_one(tmp_path):
    (tmp_path / "sheet.html").write_text(
        '{% extends "builtin/sheet.html" %}{% block contents %}<p id="mine">Ours: '
        "{{ sheet.title }} {{ sheet.tables[0].notes[0].text if sheet.tables[0].notes else '' }}"
        "</p>{% endblock %}", encoding="utf-8")
    rb = rulecraft.compile(HOSTILE, "evil.rules")
    page = render(rb, "html", templates=tmp_path)
    assert '<p id="mine">Ours: &lt;script&gt;' in page
    assert 'class="contents"' not in page and "table-t" in page


@pytest.mark.parametrize("body", [
    "{{ sheet.__class__.__mro__ }}",
    "{{ ''.__class__.__subclasses__() }}",
    "{{ sheet.procedures.__init__.__globals__ }}",
])
def test_a_user_template_runs_in_the_sandbox(tmp_path, body):
    (tmp_path / "sheet.md").write_text(body, encoding="utf-8")
    with pytest.raises(SheetError, match="template failed"):
        render(rulecraft.load("ringing_steel"), "md", templates=tmp_path)


def test_a_missing_template_folder_or_template_is_an_error(tmp_path):
    rb = rulecraft.load("ringing_steel")
    with pytest.raises(SheetError, match="not a folder"):
        render(rb, "html", templates=tmp_path / "nowhere")
    (tmp_path / "sheet.html").write_text('{% include "nothing.html" %}', encoding="utf-8")
    with pytest.raises(SheetError, match="nothing.html"):
        render(rb, "html", templates=tmp_path)


# -- house rules ------------------------------------------------------------------------------

def test_a_house_rulebook_marks_what_it_changes_beside_the_base():
    rb = rulecraft.load(HOUSE)
    page = render(rb, "html")
    well_formed(page)
    seen = text_of(page)
    assert "House rules over Ringing Steel" in seen
    weapons = page.split('id="table-weapons"', 1)[1].split("</article>")[0]
    assert '<span class="house">house rule</span>' in weapons
    assert '<td class="changed">5 <del class="base">4</del></td>' in weapons
    assert '<tr class="added">' in weapons  # the cutlass
    formula = text_of(page.split('id="formula-damage_factor"', 1)[1].split("</article>")[0])
    assert "Damage Factor = max(1, ⌊(Blow Strength + Excess) ÷ 4⌋)" in formula
    assert "base: Damage Factor = max(1, round((Blow Strength + Excess) ÷ 4))" in formula
    assert "house rule" not in text_of(page.split('id="table-wounds"', 1)[1].split(
        "</article>")[0])
    md = render(rb, "md")
    assert "| Sword | Cut | Medium | 2.0 | 5 ~~4~~ |" in md
    assert "*(house rule)*" in md


# -- the command ------------------------------------------------------------------------------

def test_the_command_writes_a_sheet_whole(tmp_path):
    out = tmp_path / "rs.html"
    result = CliRunner().invoke(cli, ["sheet", "ringing_steel", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == render(rulecraft.load("ringing_steel"), "html")
    assert [p.name for p in tmp_path.iterdir()] == ["rs.html"]  # no temporary file left
    result = CliRunner().invoke(cli, ["sheet", "ringing_steel", "--format", "md",
                                      "--rules-only", "--paper", "letter"])
    assert result.exit_code == 0
    assert result.output == render(rulecraft.load("ringing_steel"), "md", "letter", False)


def test_the_command_never_writes_over_the_rule_file(tmp_path):
    rules = tmp_path / "mine.rules"
    text = 'rulebook mine "Mine"\nformula f(a: 1..3) = a\n'
    rules.write_text(text, encoding="utf-8")
    for target in (rules, tmp_path / "." / "mine.rules"):
        result = CliRunner().invoke(cli, ["sheet", str(rules), "-o", str(target)])
        assert result.exit_code == 1
        assert "is the rule file the sheet is made from" in result.output
        assert rules.read_text(encoding="utf-8") == text
    builtin = rulecraft.api.rule_files(rulecraft.load("ringing_steel"))[0]
    result = CliRunner().invoke(cli, ["sheet", "ringing_steel", "-o", builtin])
    assert result.exit_code == 1 and "rule file" in result.output


def test_the_command_reports_a_bad_rule_file_without_writing(tmp_path):
    rules = tmp_path / "bad.rules"
    rules.write_text('rulebook bad "Bad"\nformula f(a: 1..3) = b\n', encoding="utf-8")
    out = tmp_path / "bad.html"
    result = CliRunner().invoke(cli, ["sheet", str(rules), "-o", str(out)])
    assert result.exit_code == 1 and "unknown name 'b'" in result.output
    assert not out.exists()
