"""Issue 20, editor support: "a TextMate grammar in `editors/` so VS Code and other editors
highlight `.rules` files; a Pygments lexer used for the docs and the sheets' source listings"."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pygments import lex
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String

import rulecraft
from rulecraft.compiler.expressions import BUILTINS as COMPILER_BUILTINS
from rulecraft.dsl import highlight
from rulecraft.dsl.highlight import RulesLexer

ROOT = Path(__file__).parent.parent
GRAMMAR = (ROOT / "dsl" / "grammar.lark").read_text(encoding="utf-8")
TEXTMATE = json.loads((ROOT / "editors" / "vscode" / "syntaxes" / "rulecraft.tmLanguage.json")
                      .read_text(encoding="utf-8"))
WORDS = set(re.findall(r'"([a-z_]{2,})"', GRAMMAR))

SAMPLE = '''\
# CHOICE: the trailing "4" is ignored
formula skill(dexterity: 1..20) "Skill" = round(dexterity / 4, 1) + 2d6
table weapons "Weapons Table" by weapon given skill:
  | Weapon | Range  | A   | B           |
  | Hand   | Short  | 3.0 | = skill - 6 |
'''


def _tokens(text: str) -> list[tuple[object, str]]:
    return [(t, v) for t, v in lex(text, RulesLexer()) if v.strip()]


def test_every_word_of_the_grammar_is_highlighted():
    """A word the grammar gains is a word the editors colour: the lists are the grammar's."""
    listed = set(highlight.DECLARATIONS) | set(highlight.KEYWORDS) | set(highlight.CONSTANTS)
    assert WORDS - listed == set()
    assert listed - WORDS == set()


def test_the_builtins_are_the_compiler_s():
    assert set(highlight.BUILTINS) == set(COMPILER_BUILTINS)


@pytest.mark.parametrize("name", rulecraft.builtin_rulebooks())
def test_every_shipped_rulebook_lexes_whole_and_without_errors(name):
    source = rulecraft.load(name).source
    tokens = list(lex(source, RulesLexer()))
    assert "".join(v for _, v in tokens) == source
    assert [v for t, v in tokens if t in Error] == []


def test_what_an_author_reads_is_what_is_coloured():
    tokens = _tokens(SAMPLE)
    assert tokens[0] == (Comment.Special, '# CHOICE: the trailing "4" is ignored')
    assert (Keyword.Declaration, "formula") in tokens and (Name.Class, "skill") in tokens
    assert (Name.Builtin, "round") in tokens and (Number, "2d6") in tokens
    assert (Operator, "..") in tokens and (String.Double, '"Skill"') in tokens
    assert (Keyword, "given") in tokens and (Name.Class, "weapons") in tokens
    row = tokens[tokens.index((String, "Hand")) - 1:]
    assert row[:6] == [(Punctuation, "|"), (String, "Hand"), (Punctuation, "|"),
                       (String, "Short"), (Punctuation, "|"), (Number, "3.0")]
    assert (Operator, "=") in row and (String.Other, " skill - 6 ") in row


def test_pygments_finds_the_lexer_by_name_and_by_file():
    """`pygmentize -l rulecraft FILE`: the entry point pyproject.toml declares."""
    assert isinstance(get_lexer_by_name("rulecraft"), RulesLexer)
    assert isinstance(get_lexer_for_filename("house.rules"), RulesLexer)


# ---- the TextMate grammar -----------------------------------------------------------------

def _patterns(rule: dict, inside: bool = False) -> list[dict]:
    """A rule's patterns with `include`s followed (the grammar's repository); a begin/end
    rule is one pattern, unless it is the one whose inside is asked for."""
    if "begin" in rule and not inside:
        return [rule]
    found = []
    for p in rule.get("patterns", [rule] if "match" in rule else []):
        if "include" in p:
            found += _patterns(TEXTMATE["repository"][p["include"][1:]])
        else:
            found.append(p)
    return found


def _scopes(line: str) -> list[tuple[str, str]]:
    """What a TextMate editor colours on one line: the first pattern that matches at each
    point, as a TextMate engine tries them (a row's own patterns inside a row)."""
    out: list[tuple[str, str]] = []
    patterns, i = _patterns(TEXTMATE), 0
    while i < len(line):
        for p in patterns:
            m = re.compile(p.get("match") or p["begin"]).match(line, i)
            if m and m.end() > i:
                if "begin" in p:
                    out.append((p["beginCaptures"]["1"]["name"], m.group(1)))
                    patterns = _patterns(p, inside=True)
                elif "captures" in p:
                    out += [(c["name"], m.group(int(k))) for k, c in p["captures"].items()]
                else:
                    out.append((p["name"], m.group()))
                i = m.end()
                break
        else:
            i += 1
    return [(scope, text) for scope, text in out if text.strip()]


def test_the_textmate_grammar_is_a_vscode_extension():
    package = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text("utf-8"))
    language = package["contributes"]["languages"][0]
    assert language["extensions"] == [".rules"]
    grammar = package["contributes"]["grammars"][0]
    assert grammar["scopeName"] == TEXTMATE["scopeName"] == "source.rulecraft"
    assert (ROOT / "editors" / "vscode" / grammar["path"]).is_file()
    assert (ROOT / "editors" / "vscode" / language["configuration"]).is_file()


def test_the_textmate_grammar_colours_as_the_lexer_does():
    lines = SAMPLE.splitlines()
    assert _scopes(lines[0]) == [("comment.line.number-sign.choice.rulecraft", lines[0])]
    formula = _scopes(lines[1])
    assert formula[:2] == [("storage.type.declaration.rulecraft", "formula"),
                           ("entity.name.type.rulecraft", "skill")]
    assert ("support.function.builtin.rulecraft", "round") in formula
    assert ("constant.numeric.dice.rulecraft", "2d6") in formula
    assert ("keyword.control.rulecraft", "given") in _scopes(lines[2])
    row = _scopes(lines[4])
    assert row[:4] == [("punctuation.separator.table.rulecraft", "|"),
                       ("string.unquoted.cell.rulecraft", "Hand"),
                       ("punctuation.separator.table.rulecraft", "|"),
                       ("string.unquoted.cell.rulecraft", "Short")]
    assert ("constant.numeric.rulecraft", "3.0") in row
    assert ("meta.expression.cell.rulecraft", " skill - 6 ") in row


def test_the_textmate_grammar_knows_every_word():
    keywords = next(p for p in _patterns(TEXTMATE["repository"]["expression"])
                    if p["name"] == "keyword.control.rulecraft")
    constants = next(p for p in _patterns(TEXTMATE["repository"]["expression"])
                     if p["name"] == "constant.language.rulecraft")
    known = {w for w in WORDS if re.fullmatch(keywords["match"], w)
             or re.fullmatch(constants["match"], w)}
    assert known == WORDS


def test_the_textmate_grammar_is_what_editors_generate_py_writes():
    """The grammar file is made from dsl/words.py: `python editors/generate.py` after the
    language gains a word."""
    import runpy

    made = runpy.run_path(str(ROOT / "editors" / "generate.py"))["text"]()
    assert (ROOT / "editors" / "vscode" / "syntaxes" / "rulecraft.tmLanguage.json").read_text(
        encoding="utf-8") == made
