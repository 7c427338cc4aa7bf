"""Issue 9, fast start: `rulecraft eval` with a warm cache reads the compiled rulebook's symbol
table and code (compiler/kept.py) instead of compiling, and parses its expression with the
grammar's tables cut to what an expression reaches (dsl/cached.py). Both must be invisible:
the same values, the same errors, the cache as safe as before."""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys

import pytest
from lark import Token, Tree
from lark.exceptions import UnexpectedInput

import rulecraft
from rulecraft import api
from rulecraft.compiler import kept
from rulecraft.dsl import parser
from rulecraft.dsl.errors import syntax_error
from rulecraft.runtime.tables import Record

BASE = '''rulebook base "Base"
table bonus "Bonus" by x: 1..10 -> integer:
  | x    | value |
  | 1-5  | 1     |
  | 6-10 | 2     |
formula twice(x: 1..10) = 2 * bonus[x]
'''
HOUSE = '''rulebook house "House"
extends "base.rules"
replace formula twice(x: 1..10) = 3 * bonus[x]
'''

EXPRESSIONS = {
    "ringing_steel": ['skill(12, 5, "Standard")', 'wounds[5, "Head"]', 'anti_parry(5.4, "Sword")',
                      'armour["Light"].factor', 'weapons["Sword"]', "d20 + 3",
                      'skill(25, 5, "Standard")', 'skil(12, 5, "Standard")', 'wounds[5, "Hed"]',
                      "dexterity + 1", 'skill(12, 5, "Standard"', "1 / 0", "[1, 2] + 3",
                      'max(x * 2 for x in [1, 2, 3])', 'wounds[99, "Head"]'],
    "rq3_house": ["1 + 2", "nothing_here(3)", "[1, 2, 3]"],
}


@pytest.fixture
def own_cache(tmp_path_factory, monkeypatch):
    folder = tmp_path_factory.mktemp("cache") / "cache"  # not beside the rule files (refused)
    monkeypatch.setenv("RULECRAFT_CACHE", str(folder))
    api._cache.clear()
    yield folder
    api._cache.clear()


def outcome(call):
    """A value, or the error's kind and text: what a person sees either way."""
    try:
        value = call()
    except rulecraft.RulecraftError as err:
        return type(err).__name__, str(err)
    return value.as_dict() if isinstance(value, Record) else value


def kept_entries(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("scope-"))


@pytest.mark.parametrize("book", sorted(EXPRESSIONS))
def test_a_kept_rulebook_evaluates_as_the_compiled_one(own_cache, book):
    compiled = rulecraft.load(book)
    for expression in EXPRESSIONS[book]:
        expected = outcome(lambda: rulecraft.evaluate(compiled, expression))
        assert outcome(lambda: api.evaluate_file(book, expression)) == expected, expression
        text, filename = api._read(book, rulecraft.Limits())
        assert kept.load(kept.key(filename, text, rulecraft.Limits()), text,
                         lambda bases: True) is not None
        assert outcome(lambda: api.evaluate_file(book, expression)) == expected, expression
    assert len(kept_entries(own_cache)) == 1


def run_eval(cache, *arguments: str) -> subprocess.CompletedProcess[str]:
    code = ("import sys\nfrom rulecraft.cli import main\ntry:\n    main()\nfinally:\n"
            "    print('compiled' if 'rulecraft.compiler.build' in sys.modules else 'kept')")
    env = {**os.environ, "RULECRAFT_CACHE": str(cache)}
    return subprocess.run([sys.executable, "-c", code, "eval", *arguments], env=env,
                          capture_output=True, text=True, timeout=120)


def test_eval_in_a_new_process_reads_what_the_first_one_compiled(own_cache):
    first = run_eval(own_cache, "ringing_steel", 'skill(12, 5, "Standard")')
    assert first.returncode == 0 and first.stdout.split() == ["5.4", "compiled"], first.stderr
    again = run_eval(own_cache, "ringing_steel", 'wounds[5, "Head"]')
    assert again.returncode == 0 and again.stdout.split() == ["Wound", "kept"], again.stderr
    failed = run_eval(own_cache, "ringing_steel", 'skil(12, 5, "Standard")')
    assert failed.returncode == 1 and failed.stdout.split() == ["kept"]
    assert "unknown function 'skil'; did you mean 'skill'?" in failed.stderr


def test_a_corrupt_kept_entry_is_ignored_and_made_again(own_cache):
    assert api.evaluate_file("ringing_steel", 'skill(12, 5, "Standard")') == 5.4
    (entry,) = kept_entries(own_cache)
    whole = (own_cache / entry).read_bytes()
    for garbage in (b"", b"\x80\x04not a pickle", whole[:len(whole) // 2]):
        (own_cache / entry).write_bytes(garbage)
        assert api.evaluate_file("ringing_steel", 'skill(12, 5, "Standard")') == 5.4
    assert kept_entries(own_cache) == [entry]


def test_an_edited_base_is_seen_by_eval(own_cache, tmp_path):
    base, house = tmp_path / "base.rules", tmp_path / "house.rules"
    base.write_text(BASE, encoding="utf-8")
    house.write_text(HOUSE, encoding="utf-8")
    assert api.evaluate_file(house, "twice(7)") == 6
    assert api.evaluate_file(house, "twice(7)") == 6  # from the kept entry
    base.write_text(BASE.replace("| 6-10 | 2     |", "| 6-10 | 4     |"), encoding="utf-8")
    api._cache.clear()
    assert api.evaluate_file(house, "twice(7)") == 12
    assert api.evaluate_file(house, "twice(7)") == 12


def test_without_a_cache_eval_compiles(monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", "off")
    assert api.evaluate_file("ringing_steel", 'skill(12, 5, "Standard")') == 5.4


def test_a_record_pickles_by_its_fields():
    record = rulecraft.load("ringing_steel").tables["weapons"].lookup("Sword")
    again = pickle.loads(pickle.dumps(record))
    assert again == record and again.ds == record.ds


PIECES = ['skill', '(', ')', '12', ',', '"Standard"', 'foo', '[', ']', '+', '-', '*', '/', 'if',
          'then', 'else', 'for', 'in', 'and', 'or', 'not', '.', 'd20', '3d6', '==', '<=', '..',
          'max', 'x', 'true', 'none', '\n', '=', ':', 'table', 'roll', '%', '->', '|', '#', "'",
          '2.5', 'by', 'default', 'from', 'times', 'at', 'most', 'with', 'every', 'wounds']


def parsed(lark, text):
    try:
        return shape(lark.parse(text, start="expr"))
    except UnexpectedInput as err:
        return str(syntax_error(lark, err, text, text, "<expression>", 0, 0, "expr"))


def shape(node):
    """A parse tree as plain data (a rule's name is a str whether Lark built or loaded it)."""
    if isinstance(node, Token):
        return (node.type, str(node), node.line, node.column, node.end_pos)
    if isinstance(node, Tree):
        return (str(node.data), node.meta.line, node.meta.column, [shape(c) for c in node.children])
    return node


def test_the_cut_parser_parses_and_fails_as_the_whole_grammar_does():
    whole, cut = parser._lark(), parser._expression_lark()
    assert len(cut.rules) < len(whole.rules)
    chosen = random.Random(9)
    for _ in range(3000):
        text = " ".join(chosen.choice(PIECES) for _ in range(chosen.randint(1, 6)))
        assert parsed(cut, text) == parsed(whole, text), text
