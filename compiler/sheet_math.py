"""Sheets: rule expressions as math a player reads — `Skill = (Dexterity ÷ 4) × ln(Training + 1)
× Armour Factor` — with every table, formula and procedure it names linked to its place.

The text of a compiled formula, cell or step is read back into an expression only to typeset it;
what it means is the compiled rulebook's. The result is a tuple of `Piece`s, which each
template writes in its own format (so rule text is escaped by the template, never trusted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.dsl.comments import strip_comments
from rulecraft.dsl.parser import parse_expression


@attrs.frozen
class Piece:
    """A run of text on a sheet: `kind` styles it (a name, an operator, a number, a quoted
    literal, plain words) and `link` is the anchor of what it names, if it names one."""

    text: str
    kind: str = "text"  # "name", "op", "num", "lit", "text"
    link: str | None = None


Rich = tuple[Piece, ...]


@attrs.frozen
class Vocabulary:
    """What the names of one rulebook read as on its sheet, and where each one is."""

    tables: Mapping[str, Piece]  # a table's name -> its title, linked to it
    formulas: Mapping[str, Piece]  # the same for formulas
    procedures: Mapping[str, Piece]  # and procedures
    labels: Mapping[str, str]  # a record field's name -> its printed column header
    words: Mapping[str, str]  # a figure's name -> the title of the formula named alike
    units: Mapping[str, str] = attrs.field(factory=dict)  # a unit of distance -> its title

    def name(self, name: str) -> str:
        """A figure's name as a player reads it: `attack_roll` is "Attack Roll", `anti_parry`
        "Anti-Parry" (the formula of that name is printed so), a short field `ds` "DS"."""
        if name in self.words:
            return self.words[name]
        return words(name)


# Short names that are words, not a book's column letters: a party's place is `at` ("F’s At").
_SHORT_WORDS = frozenset(("at", "to", "in", "on", "by", "of", "up"))


def words(name: str) -> str:
    """`attack_roll` → "Attack Roll"; a name of one or two letters reads as capitals (`a` → "A",
    `ds` → "DS", as the books print such columns)."""
    parts = [w for w in name.split("_") if w]
    if len(parts) == 1 and len(parts[0]) <= 2 and parts[0] not in _SHORT_WORDS:
        return parts[0].upper()
    return " ".join(w[:1].upper() + w[1:] for w in parts)


def folded(title: str) -> str:
    """A printed title as the name it would have (`Anti-Parry` → `anti_parry`)."""
    return "_".join(title.lower().replace("-", " ").split())


# Binding strength, loosest first (as the grammar's levels).
_LEVEL = {"or": 1, "and": 2, "not": 3, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4, ">=": 4,
          "in": 4, "not in": 4, "is": 4, "..": 5, "+": 6, "-": 6, "*": 7, "/": 7, "mod": 7}
_UNARY, _POSTFIX, _ATOM = 8, 9, 10
# Built-ins of an encounter's sides (compiler/sides.py), read as words around the fighter.
_SIDE_WORDS = {"foes": ("", "’s foes still standing"), "allies": ("", "’s allies still standing"),
               "side": ("", "’s side"), "target": ("", "’s target"),
               "standing": ("", " still standing"),
               "sides_standing": ("the number of sides still standing", "")}
_SIGNS = {"==": "=", "!=": "≠", "<=": "≤", ">=": "≥", "*": "×", "/": "÷", "-": "−",
          "in": "∈", "not in": "∉", "is": "is a"}
# What the outermost rounding of a formula says, in the books' words.
ROUNDING = {"floor": "rounded down", "ceil": "rounded up", "truncate": "rounded towards zero",
            "round": "rounded to the nearest, halves up",
            "round_half_down": "rounded to the nearest, halves down",
            "round_half_even": "rounded to the nearest, halves to even"}
_PLACES = {1: "one decimal place", 2: "two decimal places", 3: "three decimal places"}


def rounding_note(name: str, places: int) -> str:
    """`round(x, 1)`: "to one decimal place, halves up"."""
    if not places:
        return ROUNDING[name]
    where = _PLACES.get(places, f"{places} decimal places")
    return f"{ROUNDING[name].replace('rounded to the nearest', 'to ' + where)}" \
        if name.startswith("round") else f"{ROUNDING[name]} to {where}"


def parse(text: str) -> s.Expr:
    """The expression a compiled rule was written as (only to typeset it), its comments cut."""
    code, _ = strip_comments(text)
    return parse_expression(code.strip())


class MathWriter:
    """Typesets expressions against one rulebook's vocabulary. `local` names are values of the
    rule itself (parameters, steps, loop names: never a table of the same name); `parties`
    are the combatants among them (their figures read "Attacker’s Anti-Parry")."""

    def __init__(self, vocabulary: Vocabulary, local: frozenset[str] = frozenset(),
                 parties: frozenset[str] = frozenset()) -> None:
        self.vocabulary = vocabulary
        self.local = local | parties
        self.parties = parties
        self._dispatch: dict[type, Callable[[Any], tuple[list[Piece], int]]] = {
            s.Number: self.visit_Number, s.String: self.visit_String,
            s.DiceLit: lambda n: ([Piece(n.text, "num")], _ATOM),
            s.Constant: lambda n: ([Piece({True: "yes", False: "no", None: "none"}[n.value],
                                          "lit")], _ATOM),
            s.Name: self.visit_Name, s.ListLit: self.visit_ListLit, s.Unary: self.visit_Unary,
            s.Binary: self.visit_Binary, s.Conditional: self.visit_Conditional,
            s.Attr: self.visit_Attr, s.Index: self.visit_Index, s.Call: self.visit_Call,
            s.Aggregate: self.visit_Aggregate, s.RangeExpr: self.visit_RangeExpr,
            s.Placed: self.visit_Placed,
            s.MapLit: self.visit_MapLit,
        }

    def expression(self, node: s.Expr) -> Rich:
        return tuple(_joined(self._expr(node)[0]))

    def value(self, node: s.Expr) -> Rich:
        """An expression given as the value of a name: a yes-or-no one in parentheses, so
        `Critical = (Attack Roll = 20)` does not read as two equations."""
        said = self.expression(node)
        if isinstance(node, s.Binary) and _LEVEL[node.op] <= 4 or \
                isinstance(node, s.Unary) and node.op == "not":
            return (Piece("(", "op"), *said, Piece(")", "op"))
        return said

    def text(self, text: str) -> Rich:
        """An expression given as rule text."""
        return self.expression(parse(text))

    def rounded(self, node: s.Expr) -> tuple[Rich, str | None]:
        """An expression with its outermost rounding said in words instead (`round(x, 1)` is
        x, "to one decimal place, halves up")."""
        if isinstance(node, s.Call) and node.name in ROUNDING and not node.named and \
                1 <= len(node.args) <= 2:
            places = node.args[1] if len(node.args) == 2 else None
            if places is None or (isinstance(places, s.Number) and places.text.isdigit()):
                digits = int(places.text) if isinstance(places, s.Number) else 0
                return self.value(node.args[0]), rounding_note(node.name, digits)
        return self.value(node), None

    # -- the walk --------------------------------------------------------------------------
    def _expr(self, node: Any) -> tuple[list[Piece], int]:
        visit = self._dispatch.get(type(node))
        if visit is None:
            raise AssertionError(f"no sheet math for {type(node).__name__}")
        return visit(node)

    def _wrap(self, node: Any, least: int) -> list[Piece]:
        pieces, level = self._expr(node)
        return [Piece("(", "op"), *pieces, Piece(")", "op")] if level < least else pieces

    def visit_Number(self, node: s.Number) -> tuple[list[Piece], int]:
        return [Piece(node.text, "num")], _ATOM

    def visit_String(self, node: s.String) -> tuple[list[Piece], int]:
        return [Piece(f"“{node.value}”", "lit")], _ATOM

    def visit_Name(self, node: s.Name) -> tuple[list[Piece], int]:
        if node.name in self.vocabulary.tables and node.name not in self.local:
            return [self.vocabulary.tables[node.name]], _ATOM  # a table, by its name
        return [Piece(self.vocabulary.name(node.name), "name")], _ATOM

    def visit_ListLit(self, node: s.ListLit) -> tuple[list[Piece], int]:
        return [Piece("[", "op"), *self._list(node.items), Piece("]", "op")], _ATOM

    def visit_MapLit(self, node: Any) -> tuple[list[Piece], int]:
        out: list[Piece] = [Piece("{", "op")]
        for i, (key, value) in enumerate(node.pairs):
            out += ([Piece(", ", "op")] if i else []) + self._expr(key)[0] + [Piece(": ", "op")]
            out += self._expr(value)[0]
        return out + [Piece("}", "op")], _ATOM

    def _list(self, items: tuple[Any, ...]) -> list[Piece]:
        out: list[Piece] = []
        for i, item in enumerate(items):
            if i:
                out.append(Piece(", ", "op"))
            out += self._expr(item)[0]
        return out

    def visit_Unary(self, node: s.Unary) -> tuple[list[Piece], int]:
        if node.op == "not":
            return [Piece("not ", "text"), *self._wrap(node.operand, _LEVEL["not"])], \
                _LEVEL["not"]
        return [Piece("−", "op"), *self._wrap(node.operand, _UNARY)], _UNARY

    def visit_Binary(self, node: s.Binary) -> tuple[list[Piece], int]:
        level = _LEVEL[node.op]
        right_name = node.right.name if isinstance(node.right, s.Name) else None
        if node.op == "in" and right_name in self.vocabulary.units and \
                right_name not in self.local:  # `distance(a, b) in feet`: "… in ft"
            return [*self._wrap(node.left, _LEVEL["+"]), Piece(" in ", "text"),
                    Piece(self.vocabulary.units[right_name], "text")], level
        sign = Piece(f" {_SIGNS.get(node.op, node.op)} ", "text" if node.op.isalpha() else "op")
        if level == 4:
            right = _LEVEL[".."] if node.op in ("in", "not in") else _LEVEL["+"]
            return [*self._wrap(node.left, _LEVEL["+"]), sign,
                    *self._wrap(node.right, right)], level
        left, right = self._wrap(node.left, level), self._wrap(node.right, level + 1)
        if node.op == "*":  # "(Dexterity ÷ 4) × ln(…)": a quotient in a product reads boxed
            left = self._boxed(node.left, left)
            right = self._boxed(node.right, right)
        return [*left, sign, *right], level

    def _boxed(self, node: Any, pieces: list[Piece]) -> list[Piece]:
        if isinstance(node, s.Binary) and node.op == "/" and pieces[:1] != [Piece("(", "op")]:
            return [Piece("(", "op"), *pieces, Piece(")", "op")]
        return pieces

    def visit_Conditional(self, node: s.Conditional) -> tuple[list[Piece], int]:
        """`if c then a else if d then b else e`: "if C then A; if D then B; otherwise E"."""
        out: list[Piece] = []
        while isinstance(node, s.Conditional):
            if out:
                out.append(Piece("; ", "op"))
            out += [Piece("if ", "text"), *self._wrap(node.test, 1), Piece(" then ", "text"),
                    *self._wrap(node.then, 1)]
            node = node.otherwise
        return [*out, Piece("; otherwise ", "text"), *self._wrap(node, 1)], 0

    def visit_Attr(self, node: s.Attr) -> tuple[list[Piece], int]:
        if isinstance(node.value, s.Name) and node.value.name in self.parties:
            owner, figure = words(node.value.name), self.vocabulary.name(node.name)
            return [Piece(f"{owner}’s {figure}", "name")], _POSTFIX
        label = self.vocabulary.labels.get(node.name) or self.vocabulary.name(node.name)
        return [*self._wrap(node.value, _POSTFIX), Piece(f" {label}", "name")], _POSTFIX

    def visit_Index(self, node: s.Index) -> tuple[list[Piece], int]:
        value = node.value
        if isinstance(value, s.Attr) and isinstance(value.value, s.Name) and \
                value.value.name in self.vocabulary.tables and \
                value.value.name not in self.local and len(node.keys) == 1:
            # combat_ranges.feet[40]: "the row of Combat Ranges whose Feet holds 40"
            label = self.vocabulary.labels.get(value.name) or self.vocabulary.name(value.name)
            return [Piece("the row of ", "text"), self.vocabulary.tables[value.value.name],
                    Piece(" whose ", "text"), Piece(label, "name"), Piece(" holds ", "text"),
                    *self._wrap(node.keys[0], _POSTFIX)], 0
        keys = self._list(node.keys)
        for name, value in node.given:
            keys += [Piece(", ", "op"), Piece(self.vocabulary.name(name), "name"),
                     Piece(" = ", "op"), *self._expr(value)[0]]
        return [*self._wrap(node.value, _POSTFIX), Piece("[", "op"), *keys,
                Piece("]", "op")], _POSTFIX

    def visit_Call(self, node: s.Call) -> tuple[list[Piece], int]:
        args = node.args
        if node.name == "floor" and len(args) == 1:
            return [Piece("⌊", "op"), *self._expr(args[0])[0], Piece("⌋", "op")], _ATOM
        if node.name == "ceil" and len(args) == 1:
            return [Piece("⌈", "op"), *self._expr(args[0])[0], Piece("⌉", "op")], _ATOM
        if node.name == "abs" and len(args) == 1:
            return [Piece("|", "op"), *self._expr(args[0])[0], Piece("|", "op")], _ATOM
        if node.name == "sqrt" and len(args) == 1:
            return [Piece("√", "op"), *self._wrap(args[0], _ATOM)], _ATOM
        v = self.vocabulary
        if node.name not in v.formulas and not node.named and \
                (node.name, len(args)) in _ORDER_WORDS:  # next(i): "the one after I"
            before, between, after = _ORDER_WORDS[node.name, len(args)]
            said = [Piece(before, "text"), *self._wrap(args[0], _POSTFIX)]
            if len(args) == 2:
                said += [Piece(between, "text"), *self._wrap(args[1], _POSTFIX)]
            return [*said, Piece(after, "text")], 0
        if node.name in _SIDE_WORDS and len(args) <= 1 and node.name not in v.formulas:
            return self._side_words(node)
        head = v.formulas.get(node.name) or Piece(node.name.replace("_", " "), "text")
        inner = self._list(args)
        for name, value in node.named:
            inner += [Piece(", " if inner else "", "op"), Piece(v.name(name), "name"),
                      Piece(" = ", "op"), *self._expr(value)[0]]
        return [head, Piece("(", "op"), *inner, Piece(")", "op")], _POSTFIX

    def _side_words(self, node: s.Call) -> tuple[list[Piece], int]:
        """The sides of a fight in words: "Fighter’s foes still standing", "the sides still
        standing"."""
        before, after = _SIDE_WORDS[node.name]
        who = self._wrap(node.args[0], _POSTFIX) if node.args else []
        return [*([Piece(before, "text")] if before else []), *who,
                Piece(after, "text")], _POSTFIX

    def visit_Aggregate(self, node: s.Aggregate) -> tuple[list[Piece], int]:
        """`max(x for w in training)`: "max of X for each W in Training"."""
        var = Piece(self.vocabulary.name(node.var), "name")
        each = [Piece(" for each ", "text"), var, Piece(" in ", "text"),
                *self._wrap(node.collection, _POSTFIX)]
        if node.where is not None:  # `[c for c in party if c.hp > 0]`
            each += [Piece(" if ", "text"), *self._wrap(node.where, 1)]
        if node.name == "list":
            return [Piece("[", "op"), *self._expr(node.body)[0], *each, Piece("]", "op")], _ATOM
        if node.name == "group":  # "each X in Party, grouped by X Side"
            return [Piece("each ", "text"), *each[1:], Piece(", grouped by ", "text"),
                    *self._wrap(node.body, 1)], 0
        name = node.name.replace("_", " ")
        return [Piece(f"{name} of ", "text"), *self._wrap(node.body, _POSTFIX), *each], 0

    def visit_Placed(self, node: s.Placed) -> tuple[list[Piece], int]:
        """`reach[…] from f.at facing f.facing`: the pattern's hexes from a hex, turned."""
        level = _LEVEL[".."]
        return [*self._wrap(node.offsets, level + 1), Piece(" from ", "text"),
                *self._wrap(node.at, level + 1), Piece(" facing ", "text"),
                *self._wrap(node.facing, level + 1)], level

    def visit_RangeExpr(self, node: s.RangeExpr) -> tuple[list[Piece], int]:
        level = _LEVEL[".."]
        return [*self._wrap(node.low, level + 1), Piece("–", "op"),
                *self._wrap(node.high, level + 1)], level


# An enum's order said in words: (before, between the two arguments, after).
_ORDER_WORDS = {
    ("next", 1): ("the one after ", "", " in its order"),
    ("previous", 1): ("the one before ", "", " in its order"),
    ("shift", 2): ("", " moved by ", " places in its order"),
    ("index", 1): ("the place of ", "", " in its order (the first is 0)"),
    # has_entry(missile_ranges[m, d]): "Missiles Table, ranges[M, D] is printed"
    ("has_entry", 1): ("", "", " is printed"),
}


def _joined(pieces: list[Piece]) -> list[Piece]:
    """Neighbouring pieces of one kind and link as one (shorter output, same text)."""
    out: list[Piece] = []
    for piece in pieces:
        if not piece.text:
            continue
        if out and out[-1].kind == piece.kind and out[-1].link == piece.link:
            out[-1] = Piece(out[-1].text + piece.text, piece.kind, piece.link)
        else:
            out.append(piece)
    return out


__all__ = ["MathWriter", "Piece", "Rich", "Vocabulary", "folded", "parse", "rounding_note",
           "words"]
