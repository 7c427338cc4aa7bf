"""Writes editors/vscode/syntaxes/rulecraft.tmLanguage.json from the language's words
(rulecraft/dsl/words.py). Run it after the grammar gains a word:

    python editors/generate.py

tests/test_editors.py checks that the file is what this writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rulecraft.dsl.words import BUILTINS, CONSTANTS, DECLARATIONS, DICE, KEYWORDS, NUMBER

GRAMMAR = Path(__file__).parent / "vscode" / "syntaxes" / "rulecraft.tmLanguage.json"


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(sorted(words, key=lambda w: (-len(w), w)))


def grammar() -> dict[str, Any]:
    """The TextMate grammar: comments (CHOICE notes apart), declarations and their names,
    table rows, and expressions."""
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "rulecraft rules",
        "scopeName": "source.rulecraft",
        "fileTypes": ["rules"],
        "patterns": [{"include": "#comment"}, {"include": "#declaration"}, {"include": "#row"},
                     {"include": "#expression"}],
        "repository": {
            "comment": {"patterns": [
                {"name": "comment.line.number-sign.choice.rulecraft",
                 "match": r"#\s*(CHOICE|LANGUAGE)\b.*$"},
                {"name": "comment.line.number-sign.rulecraft", "match": r"#.*$"}]},
            "declaration": {"patterns": [
                {"match": r"^(%s)\s+([^\W\d]\w*)" % _alternatives(DECLARATIONS),
                 "captures": {"1": {"name": "storage.type.declaration.rulecraft"},
                              "2": {"name": "entity.name.type.rulecraft"}}}]},
            "row": {
                "begin": r"^\s*(\|)",
                "beginCaptures": {"1": {"name": "punctuation.separator.table.rulecraft"}},
                "end": r"$", "name": "meta.table.row.rulecraft",
                "patterns": [
                    {"name": "punctuation.separator.table.rulecraft", "match": r"\|"},
                    {"match": r"(=)([^|]*)",
                     "captures": {"1": {"name": "keyword.operator.rulecraft"},
                                  "2": {"name": "meta.expression.cell.rulecraft"}}},
                    {"name": "constant.numeric.dice.rulecraft", "match": DICE},
                    {"name": "constant.numeric.rulecraft", "match": r"-?" + NUMBER + r"(?=\s*(\||$))"},
                    {"name": "string.unquoted.cell.rulecraft", "match": r"[^|\s][^|]*?(?=\s*(\||$))"}]},
            "expression": {"patterns": [
                {"name": "string.quoted.double.rulecraft", "match": r'"[^"]*"'},
                {"name": "constant.numeric.dice.rulecraft", "match": DICE},
                {"name": "constant.numeric.rulecraft", "match": r"\b" + NUMBER + r"\b"},
                {"name": "constant.language.rulecraft",
                 "match": r"\b(%s)\b" % _alternatives(CONSTANTS)},
                {"name": "support.function.builtin.rulecraft",
                 "match": r"\b(%s)(?=\()" % _alternatives(BUILTINS)},
                {"name": "keyword.control.rulecraft",
                 "match": r"\b(%s)\b" % _alternatives(DECLARATIONS + KEYWORDS)},
                {"name": "keyword.operator.rulecraft", "match": r"==|!=|<=|>=|->|\.\.|[<>=+\-*/]"},
                {"name": "variable.other.rulecraft", "match": r"[^\W\d]\w*"}]},
        },
    }


def text() -> str:
    return json.dumps(grammar(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    GRAMMAR.write_text(text(), encoding="utf-8")
    print(f"wrote {GRAMMAR}")
