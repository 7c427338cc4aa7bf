"""Issue 20: "a Pygments lexer used for the docs and the sheets' source listings".
`rulecraft sheet RB --source` appends the rule file, and each base it extends, coloured by
dsl/highlight.py's lexer (HTML) or fenced ```rulecraft (Markdown); mkdocs colours the docs'
rule blocks with the same lexer."""

from __future__ import annotations

import html
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.compiler.sheets import render

pytest.importorskip("pygments", reason="the listing is coloured by Pygments ('.[editors]')")

ROOT = Path(__file__).resolve().parent.parent


def listed_files(page: str) -> dict[str, str]:
    """Each listing of an HTML sheet: its heading, and its text as a reader sees it (the
    line numbers left out)."""
    found = {}
    for name, body in re.findall(r'<article class="listing"[^>]*>\n<h3>(.*?)</h3>\n(.*?)'
                                 r"</article>", page, re.S):
        body = re.sub(r'<span class="linenos">.*?</span>', "", body)
        found[html.unescape(name)] = html.unescape(re.sub(r"<[^>]+>", "", body))
    return found


class _Balance(HTMLParser):
    """Every element closed in order (void elements aside)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in {"meta", "br", "hr", "img", "link", "wbr"}:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> at {self.getpos()}")
        else:
            self.open.pop()


def test_the_html_sheet_lists_the_rule_file_coloured_by_the_lexer():
    rb = rulecraft.load("ringing_steel")
    page = render(rb, "html", source=True)
    listed = listed_files(page)
    assert list(listed) == ["ringing_steel.rules"]
    assert listed["ringing_steel.rules"].rstrip("\n") == rb.source.rstrip("\n")
    listing = page[page.index('<section class="part part-source"'):]
    assert '<span class="kd">table</span>' in listing  # a declaration, by RulesLexer
    assert '<span class="cs"># CHOICE' in listing  # a reading chosen, as the lexer marks it
    assert ".rules-source .kd" in page  # its colours travel with the self-contained file
    checker = _Balance()
    checker.feed(page)
    assert checker.problems == [] and checker.open == []


def test_a_house_sheet_lists_the_house_file_then_each_base():
    house = rulecraft.load("rq3_house")
    listed = listed_files(render(house, "html", source=True))
    assert list(listed) == ["rq3_house.rules", "rq3_core.rules"]
    assert listed["rq3_core.rules"].rstrip("\n") == house.base.source.rstrip("\n")


def test_without_source_the_sheet_is_as_before():
    rb = rulecraft.load("bt")
    page = render(rb, "html")
    assert "Rule files" not in page and "rules-source" not in page
    assert "## Rule files" not in render(rb, "md")


def test_the_markdown_sheet_fences_each_file_for_the_highlighter(tmp_path):
    rule_file = tmp_path / "ticks.rules"
    text = ('rulebook ticks "Ticks"\n\n# A comment with ``` three backticks, <b>, | and *\n'
            "formula bonus(n: 1..20) = n + 1\n")
    rule_file.write_text(text, encoding="utf-8")
    sheet = render(rulecraft.load(str(rule_file)), "md", source=True)
    part = sheet[sheet.index("## Rule files"):]
    assert "### ticks.rules" in part
    assert f"````rulecraft\n{text}````\n" in part  # a fence longer than any in the file


def test_rule_text_in_the_listing_is_text_never_markup(tmp_path):
    rule_file = tmp_path / "odd.rules"
    rule_file.write_text('rulebook odd "Odd"\n# <script>alert(1)</script> {{ 7 * 7 }}\n'
                         "formula f(n: 1..6) = n\n", encoding="utf-8")
    page = render(rulecraft.load(str(rule_file)), "html", source=True)
    assert "<script>" not in page
    assert "{{ 7 * 7 }}" in listed_files(page)["odd.rules"]


def test_the_command_writes_the_listing(tmp_path):
    out = tmp_path / "rs.html"
    result = CliRunner().invoke(cli, ["sheet", "ringing_steel", "--source", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "ringing_steel.rules" in listed_files(out.read_text(encoding="utf-8"))
    assert "--source" in CliRunner().invoke(cli, ["sheet", "--help"]).output


def test_without_pygments_the_command_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pygments", None)  # as if it were not installed
    out = tmp_path / "rs.html"
    result = CliRunner().invoke(cli, ["sheet", "ringing_steel", "--source", "-o", str(out)])
    assert result.exit_code == 1
    assert "pip install 'rulecraft[editors]'" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_mkdocs_colours_rule_blocks_with_the_lexer():
    """mkdocs.yml's codehilite is Pygments: a block fenced ```rulecraft finds RulesLexer by
    its entry point (pyproject.toml), and the docs fence their rule blocks so."""
    from pygments.lexers import get_lexer_by_name

    from rulecraft.dsl.highlight import RulesLexer

    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "codehilite" in config and "fenced_code" in config
    assert isinstance(get_lexer_by_name("rulecraft"), RulesLexer)
