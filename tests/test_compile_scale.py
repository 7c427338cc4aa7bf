"""Issue 19, compile at scale: "duplicate definitions reported in linear time, the error list
capped with a count of the rest"."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import rulecraft
from rulecraft.cli import cli
from rulecraft.runtime.errors import RulecraftErrors

FORMULA = 'formula f(x: 1..20) "F" = x * 2 + 1\n'


def _pasted(times: int) -> str:
    return 'rulebook d "D"\n' + FORMULA * times


def test_a_pasted_block_prints_a_screenful_and_counts_the_rest(tmp_path):
    """`check` of a file of one formula repeated: 30,303 errors printed before; now the first
    hundred, each with its line and caret, and a count of the rest."""
    path = tmp_path / "pasted.rules"
    path.write_text(_pasted(301), encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 1
    out = result.output
    assert out.count("is defined twice") == 100
    assert f"{path}:3:1: " in out and "    ^" in out
    assert out.rstrip().endswith("... and 200 more errors, not shown (300 errors)")


def test_every_error_is_still_there_for_a_program():
    """The cap is on what is printed: the Python API keeps every error, in file order."""
    with pytest.raises(RulecraftErrors) as caught:
        rulecraft.compile(_pasted(151), "pasted.rules")
    errors = caught.value.errors
    assert len(errors) == 150
    assert [e.line for e in errors] == list(range(3, 153))


def test_the_same_report_twice_is_shown_once_and_different_ones_are_kept():
    """Reports are the same when their place and words are: two formulas defined twice on
    different lines are two errors; the count under a short list is the plain count."""
    with pytest.raises(RulecraftErrors) as caught:
        rulecraft.compile(_pasted(3), "pasted.rules")
    text = str(caught.value)
    assert text.count("is defined twice") == 2
    assert text.endswith("2 errors")
