"""The words of the rule language, for the tools that colour and complete rule files (the
Pygments lexer, the TextMate grammar, the language server): the grammar's own words and the
compiler's built-in functions. tests/test_editors.py checks that they stay so."""

from __future__ import annotations

# The words that open a declaration: a rule file's outline.
DECLARATIONS = ("rulebook", "enum", "table", "formula", "combatant", "procedure", "encounter",
                "policy", "reference", "pattern", "unit", "calendar", "notation", "extends",
                "replace", "remove", "amend", "example", "cheat", "screen")
# Every other word of the grammar (dsl/grammar.lark's quoted words).
KEYWORDS = ("act", "add", "adds", "after", "afterwards", "against", "aim", "all", "and", "as",
            "at", "be", "before", "by", "call", "cancel", "cap", "cell", "chance", "changed",
            "choose", "choosing", "clamped", "clock", "column", "columns", "combined", "default",
            "delay", "derived", "dice", "each", "else", "end", "ends", "entered", "every",
            "expect", "facing", "for", "from", "ft", "give", "given", "hex", "if", "in",
            "insert", "integer", "is", "lane", "lengthen", "let", "list", "map", "may", "mod",
            "most", "move", "no", "not", "number", "on", "one", "only", "or", "outcome",
            "outcomes", "panel", "parameter", "per", "raise", "ready", "referee", "repeat", "reveal", "roll",
            "round", "row", "rows", "ruling", "section", "seeing", "set", "sheet", "side",
            "sides", "standing", "state", "step", "stop", "take", "the", "then", "times", "to",
            "turn", "turns", "until", "when", "where", "while", "with")
CONSTANTS = ("true", "false", "none")
# The compiler's built-in functions (compiler/expressions.py BUILTINS).
BUILTINS = ("abs", "action", "all", "allies", "any", "approach", "argmax", "argmin", "ceil",
            "count", "dice", "distance", "facing_to", "flatten", "floor", "foes", "group",
            "has", "has_entry", "hex", "hex_distance", "hex_in_front", "hexes_within", "in_front",
            "in_hexes", "index", "last_action", "len", "line", "list", "ln", "max", "maximum",
            "mean", "min", "minimum", "mirror", "next", "next_turn", "occupies",
            "parties_within", "party_at", "previous", "remaining", "round", "round_half_down",
            "round_half_even", "shift", "side", "sides_standing", "sort", "sort_descending",
            "sqrt", "standing", "step", "sum", "target", "truncate", "turn")

DICE = r"\d*d(\d+|%)((kh|kl|dh|dl)\d+)?(?![A-Za-z0-9_])"  # dsl/grammar.lark's DICE
NUMBER = r"\d+(\.\d+)?"
