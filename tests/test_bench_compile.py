"""The compile-at-scale benchmark is honest and keeps working: its baseline (Lark's plain parse
with the engine's grammar and options) reads the very text the engine compiles, formula for
formula, and the duplicate file is what the issue describes ("`check` of a 1 MB file of one
formula repeated (duplicate definitions)"), its errors capped with a count of the rest."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import rulecraft

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import bench_compile  # noqa: E402
from bench_compile import duplicate_file, formula_lines, lark_parser  # noqa: E402


def test_the_baseline_parses_the_text_the_engine_compiles():
    text = formula_lines(120)
    assert text.count("\n") == 120
    rb = rulecraft.compile(text, "big.rules")
    tree = lark_parser().parse(text, start="start")
    names = [str(t.children[0]) for t in tree.iter_subtrees_topdown() if t.data == "formula_decl"]
    assert names == sorted(rb.formulas, key=lambda n: int(n[1:]))
    assert rb.formulas["f7"](x=3) == 3 * 2 + 7


def test_the_duplicate_file_is_one_formula_repeated_up_to_the_size():
    text = duplicate_file(20_000)
    assert 20_000 - len(bench_compile.DUPLICATE_LINE) < len(text.encode()) <= 20_000
    with pytest.raises(rulecraft.RulecraftErrors) as caught:
        rulecraft.compile(text, "dup.rules")
    copies = text.count("formula f ")
    shown = str(caught.value)
    assert "f is defined twice (first at line 2)" in shown
    assert f"({copies - 1:,} errors)" in shown


def test_quick_run_prints_every_row(capsys):
    assert bench_compile.main(["--quick", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "    200 " in out and "    400 " in out
    assert "slope per line: engine" in out
    assert "more errors, not shown" in out
