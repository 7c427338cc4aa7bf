"""A Pygments lexer for rule files, so that docs, sheets and any Pygments-based tool (Sphinx,
MkDocs, `pygmentize`) colour `.rules` text the way an author reads it: declarations, the
book's tables, dice, and the `# CHOICE:` notes that say where a reading was chosen.

Pygments is optional (`pip install 'rulecraft[editors]'`); it finds this lexer by the entry
point `rulecraft` (`pygmentize -l rulecraft FILE`). Its words are dsl/words.py's."""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String,
                            Text, Whitespace)

from .words import BUILTINS, CONSTANTS, DECLARATIONS, DICE, KEYWORDS, NUMBER

__all__ = ["BUILTINS", "CONSTANTS", "DECLARATIONS", "KEYWORDS", "RulesLexer"]



class RulesLexer(RegexLexer):
    """rulecraft's rule language (`.rules` files)."""

    name = "rulecraft"
    aliases = ["rulecraft", "rules"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-rulecraft"]
    url = "https://github.com/rulecraft/rulecraft"

    tokens = {
        "root": [
            (r"[ \t]*#[ \t]*(CHOICE|LANGUAGE)\b.*?$", Comment.Special),
            (r"[ \t]*#.*?$", Comment.Single),
            # A declaration and the name it declares, at the start of a line.
            (r"^(%s)([ \t]+)([^\W\d]\w*)" % "|".join(DECLARATIONS),
             bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (r"^([ \t]*)(\|)", bygroups(Whitespace, Punctuation), "row"),
            (r"\n", Whitespace),
            (r"[ \t]+", Whitespace),
            (r'"[^"\n]*"', String.Double),
            (DICE, Number),
            (NUMBER, Number),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(BUILTINS, suffix=r"(?=\()"), Name.Builtin),
            (words(DECLARATIONS + KEYWORDS, suffix=r"\b"), Keyword),
            (r"==|!=|<=|>=|->|\.\.|[<>=+\-*/]", Operator),
            (r"[():,\[\]{}.]", Punctuation),
            (r"[^\W\d]\w*", Name),
            (r".", Text),
        ],
        # A table row as the book prints it: cells between bars; a cell `= …` is an expression.
        "row": [
            (r"\n", Whitespace, "#pop"),
            (r"\|", Punctuation),
            (r"[ \t]+", Whitespace),
            (r"(=)([^|\n]*)", bygroups(Operator, String.Other)),
            (DICE, Number),
            (r"-?" + NUMBER + r"(?=[ \t]*(\||\n|$))", Number),
            (r"[^|\n]+?(?=[ \t]*(\||\n|$))", String),
        ],
    }
