"""Every built-in rulebook's cheat sheet (and screen, where it declares one) printed by headless
Chromium on A4 and on Letter (issue 22): "at most two pages, with no text wider than its column
and no table split across pages". Chromium is the Debian package `chromium`; without it these
tests are skipped, saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulecraft
from rulecraft.compiler.sheets import render

from browser import Browser, chromium, page_count

BUILTINS = rulecraft.builtin_rulebooks()
ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="headless Chromium is not installed (apt-get install chromium; "
    ".ci/run installs it)")


def _prints_on_two_pages(rb: rulecraft.Rulebook, layout: str, folder: Path) -> None:
    with Browser() as browser:  # one launch for both papers
        for paper in ("a4", "letter"):
            sheet = folder / f"{rb.name}_{layout}_{paper}.html"
            sheet.write_text(render(rb, "html", paper, layout=layout), encoding="utf-8")
            browser.open(sheet)
            pdf = browser.pdf()
            assert pdf.startswith(b"%PDF-")
            assert 1 <= page_count(pdf) <= 2, (paper, page_count(pdf))
            # Laid out as print lays it out, its columns a page high: every item whole in one
            # column (so never split across pages) and no text past its column.
            layout_ = browser.columns(paper)
            assert layout_["split"] == [], f"split across columns on {paper}: {layout_['split']}"
            assert layout_["wide"] == [], f"wider than its column on {paper}: {layout_['wide']}"
            assert layout_["columns"] <= 2 * layout_["count"], (paper, layout_)


@needs_chromium
@pytest.mark.parametrize("name", BUILTINS)
def test_the_cheat_sheet_prints_on_two_pages_of_a4_and_letter(name, tmp_path):
    _prints_on_two_pages(rulecraft.load(name), "cheat", tmp_path)


@needs_chromium
@pytest.mark.parametrize("name", [n for n in BUILTINS
                                  if "screen" in rulecraft.load(n).sheet_plans])
def test_the_screen_prints_on_two_pages_of_a4_and_letter(name, tmp_path):
    _prints_on_two_pages(rulecraft.load(name), "screen", tmp_path)


@needs_chromium
def test_a_rulebook_declaring_nothing_gets_a_default_that_fits_or_says_what_it_dropped(tmp_path):
    # "a rulebook with no declaration gets a default that fits the same page limit or says
    # which items it dropped": Ringing Steel without its block is far more than two pages.
    text = (ROOT / "rulebooks" / "ringing_steel.rules").read_text(encoding="utf-8")
    rb = rulecraft.compile(text[:text.index("# ==== Cheat sheet ====")],
                           filename="ringing_steel.rules")
    assert "cheat" not in rb.sheet_plans
    page = render(rb, layout="cheat")
    assert "Not on this sheet (no room in two pages; see the reference sheet): " in page
    assert "Timings Table" in page.split("Not on this sheet")[1]
    _prints_on_two_pages(rb, "cheat", tmp_path)


def test_a_small_rulebook_declaring_nothing_has_everything_on_its_default():
    text = (ROOT / "rulebooks" / "rq3_core.rules").read_text(encoding="utf-8")
    rb = rulecraft.compile(text[:text.index("# ==== Cheat sheet ====")], filename="rq3.rules")
    page = render(rb, layout="cheat")
    assert "Not on this sheet" not in page
    assert all(f'data-rule="table:{name}"' in page for name in rb.tables)


@pytest.mark.parametrize("name", BUILTINS)
def test_the_docs_show_each_cheat_sheet(name):
    shot = DOCS / f"cheat_{name}.png"
    assert shot.is_file(), f"{shot} is missing: run `python tests/browser.py` to make it"
    assert shot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
