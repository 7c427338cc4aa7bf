"""Issue 19, compile at scale: "Memory held per rule line and check time linear in the file".
A rule file's syntax nodes are built while Lark reduces (dsl/reduced.py), with no parse tree in
between; they must be exactly the nodes the tree path builds — the same spans, the same comments —
and anything unusual must still be reported by the tree path, with file:line:col and caret."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulecraft
from rulecraft.dsl import parser, reduced
from rulecraft.dsl.checks import Place
from rulecraft.dsl.comments import CommentPool, strip_comments
from rulecraft.runtime.errors import RulecraftError

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted({*ROOT.glob("rulebooks/*.rules"), *ROOT.glob("examples/**/*.rules"),
                *ROOT.glob("tests/rules/**/*.rules"), *ROOT.glob("benchmarks/*.rules")})

TRICKY = '''rulebook t "Tricky"  # a comment on the header
# a comment above
enum weapon "Weapon": Sword, "Two Hands", Axe
formula f (x: 1..20) "F" = ((x)) * 2 + (1)  # parentheses leave no node
formula g (x: 1..20, y: 1..3 = 2) = if x > y then -x else f(x = x) + a where a = 1
table t "T" by n: 1..3:
  | n | v |
  | 1 | 2 |  # trailing
  | 2-3 | 4 |
procedure p (a: integer):
  outcomes:
    hit
    miss
  roll r = d6
  if r > a:  # about the test
    outcome hit
  else if r == a:
    outcome miss
  else:
    outcome miss
'''


def _both(text: str, filename: str = "t.rules"):
    stripped, comments = strip_comments(text)
    stripped += "" if stripped.endswith("\n") else "\n"
    place = Place(filename)
    fast_builder = parser._Builder(place, CommentPool(comments))
    fast = reduced.parse(parser._lark(), fast_builder, stripped, "start",
                         rulecraft.DEFAULT_LIMITS)
    full_builder, full = parser._parse_in_full(stripped, text, place, comments,
                                               rulecraft.DEFAULT_LIMITS)
    return (fast, fast_builder.pool.left()), (full, full_builder.pool.left())


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_file_reads_to_the_same_nodes(path):
    fast, full = _both(path.read_text(encoding="utf-8"), str(path))
    assert fast == full


def test_parentheses_placeholders_comments_and_blocks_read_alike():
    fast, full = _both(TRICKY)
    assert fast == full
    assert len(fast[0]) == 6


@pytest.mark.parametrize("text, said", [
    ('rulebook t "T"\nformula f (x: 1..2) = x +\n', "t.rules:2:"),
    ('rulebook t "T"\nformula f (x: 1..2) = x + 1' + "0" * 70 + "\n", "digits"),
    ('rulebook t "T"\nformula f (x: 1..2) = ' + "(" * 60 + "x" + " + 1)" * 60 + "\n",
     "nested too deeply"),
    ('rulebook t "T"\nformula ﬁle (x: 1..2) = x\n', "look-alike"),
])
def test_unusual_text_is_reported_by_the_tree_path(text, said):
    """"errors keep their file:line:col and caret": the reduced path gives up, the tree path
    reports, as before."""
    stripped, _ = strip_comments(text)
    with pytest.raises(reduced.Unusual):
        reduced.parse(parser._lark(), parser._Builder(Place("t.rules"), CommentPool([])),
                      stripped, "start", rulecraft.DEFAULT_LIMITS)
    with pytest.raises(RulecraftError) as caught:
        rulecraft.compile(text, "t.rules")
    shown = str(caught.value)
    assert said in shown and "t.rules:2:" in shown and "^" in shown


def test_a_file_that_fails_is_not_kept_in_the_disk_cache(tmp_path, monkeypatch):
    """Writing the tree of a 1 MB file full of duplicates cost more than reading it: a load
    that fails keeps nothing; one that succeeds keeps its tree as before."""
    cache, rules = tmp_path / "cache", tmp_path / "rules"
    cache.mkdir()
    rules.mkdir()
    monkeypatch.setenv("RULECRAFT_CACHE", str(cache))
    good, bad = rules / "good.rules", rules / "bad.rules"
    good.write_text('rulebook good "G"\nformula f (x: 1..2) = x\n', encoding="utf-8")
    bad.write_text('rulebook bad "B"\nformula f (x: 1..2) = x\nformula f (x: 1..2) = x\n',
                   encoding="utf-8")
    rulecraft.load(str(good))
    kept = {p for p in cache.rglob("*") if p.is_file()}
    with pytest.raises(RulecraftError, match="defined twice"):
        rulecraft.load(str(bad))
    assert {p for p in cache.rglob("*") if p.is_file()} == kept
    good.write_text('rulebook good "G"\nformula g (x: 1..2) = x\n', encoding="utf-8")
    rulecraft.load(str(good))
    assert len({p for p in cache.rglob("*") if p.is_file()} - kept) >= 1
