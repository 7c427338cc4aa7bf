"""Every built-in rulebook's HTML sheet, printed by headless Chromium on A4 and on Letter: a sane
number of pages, and no text reaching outside the printable width. Chromium is the Debian
package `chromium` (.ci/run installs it); without it these tests are skipped, saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulecraft
from rulecraft.compiler.sheets import render

from browser import Browser, chromium, page_count

BUILTINS = rulecraft.builtin_rulebooks()
DOCS = Path(__file__).resolve().parent.parent / "docs"

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="headless Chromium is not installed (apt-get install chromium; "
    ".ci/run installs it)")


@needs_chromium
@pytest.mark.parametrize("name", BUILTINS)
def test_the_sheet_prints_on_a4_and_letter(name, tmp_path):
    rb = rulecraft.load(name)
    pages = {}
    with Browser() as browser:  # one launch for both papers
        for paper in ("a4", "letter"):
            sheet = tmp_path / f"{name}_{paper}.html"
            sheet.write_text(render(rb, "html", paper), encoding="utf-8")
            browser.open(sheet)
            pdf = browser.pdf()
            assert pdf.startswith(b"%PDF-")
            pages[paper] = page_count(pdf)
            layout = browser.spills(paper)
            assert layout["spills"] == [], f"text outside the {paper} page: {layout['spills']}"
            assert layout["scrollWidth"] <= layout["width"]
    # Sane: every part printed, compactly; the two papers differ by a page or two at most.
    rules = len(rb.tables) + len(rb.formulas) + len(rb.procedures)
    for paper, count in pages.items():
        assert 1 <= count <= max(6, rules // 2), (paper, count)
    assert abs(pages["a4"] - pages["letter"]) <= max(2, pages["a4"] // 4)


@pytest.mark.parametrize("name", BUILTINS)
def test_the_docs_show_what_each_sheet_looks_like(name):
    shot = DOCS / f"sheet_{name}.png"
    assert shot.is_file(), f"{shot} is missing: run `python tests/browser.py` to make it"
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
