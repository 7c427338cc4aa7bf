"""A Pygments lexer for rule files, so that docs, sheets and any Pygments-based tool (Sphinx,
MkDocs, `pygmentize`) colour `.rules` text the way an author reads it: declarations, the
book's tables, dice, and the `# CHOICE:` notes that say where a reading was chosen.

Pygments is optional (`pip install 'rulecraft[editors]'`); it finds this lexer by the entry
point `rulecraft` (`pygmentize -l rulecraft FILE`). The word lists are the grammar's own and
the compiler's built-ins; tests/test_editors.py checks that they stay so."""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (Comment, Keyword, Name, Number, Operator, Punctuation, String,
                            Text, Whitespace)

# The words that open a declaration: a rule file's outline.
DECLARATIONS = ("rulebook", "enum", "table", "formula", "combatant", "procedure", "encounter",
                "policy", "reference", "pattern", "unit", "calendar", "notation", "extends",
                "replace", "remove", "amend")
# Every other word of the grammar (dsl/grammar.lark's quoted words).
KEYWORDS = ("act", "add", "adds", "after", "afterwards", "against", "aim", "all", "and", "as",
            "at", "be", "before", "by", "call", "cancel", "cap", "cell", "chance", "changed",
            "choose", "choosing", "clamped", "clock", "column", "columns", "combined",
            "default", "delay", "derived", "each", "else", "end", "ends", "entered", "every",
            "facing", "for", "from", "ft", "give", "given", "hex", "if", "in", "insert",
            "integer", "is", "lane", "lengthen", "let", "list", "map", "may", "mod", "most",
            "not", "number", "on", "one", "only", "or", "outcome", "outcomes", "parameter",
            "per", "raise", "ready", "referee", "repeat", "reveal", "roll", "round", "row",
            "rows", "ruling", "seeing", "set", "side", "sides", "standing", "state", "step",
            "stop", "take", "the", "then", "times", "to", "turn", "turns", "until", "when",
            "where", "while", "with")
CONSTANTS = ("true", "false", "none")
# The compiler's built-in functions (compiler/expressions.py BUILTINS).
BUILTINS = ("abs", "action", "all", "allies", "any", "approach", "argmax", "argmin", "ceil",
            "count", "dice", "distance", "facing_to", "flatten", "floor", "foes", "group",
            "has", "hex", "hex_distance", "hex_in_front", "hexes_within", "in_front",
            "in_hexes", "index", "last_action", "len", "line", "list", "ln", "max", "maximum",
            "mean", "min", "minimum", "mirror", "next", "next_turn", "occupies",
            "parties_within", "party_at", "previous", "remaining", "round", "round_half_down",
            "round_half_even", "shift", "side", "sides_standing", "sort", "sort_descending",
            "sqrt", "standing", "step", "sum", "target", "truncate", "turn")

DICE = r"\d*d(\d+|%)((kh|kl|dh|dl)\d+)?(?![A-Za-z0-9_])"  # dsl/grammar.lark's DICE
NUMBER = r"\d+(\.\d+)?"


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
