"""`rulecraft show RULEBOOK --uses NAME`: every place a rule reads a name or a figure, so that an
author changing a rule ("a natural 20 hits and is a critical") finds every place it lives first.

Read from the rule text itself (the rulebook's file and each base it extends), so a place is a
file and a line an author can open: a formula, a table cell written as an expression, a
procedure or encounter step, a quick reference, a policy's answer, a combatant's figure."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.dsl.parser import parse
from rulecraft.runtime.errors import text_of
from rulecraft.runtime.rulebook import Rulebook

from .rule_index import kind_of



@attrs.frozen
class Use:
    """One place that reads the name: file and line, the rule it is in, and the line's text."""

    filename: str
    line: int
    rule: str  # "formula skill", "procedure melee_attack", "replace formula …"
    text: str

    def as_json(self) -> dict[str, Any]:
        return {"file": self.filename, "line": self.line, "rule": self.rule, "text": self.text}


def uses(rulebook: Rulebook, name: str) -> list[Use]:
    """Every line of the rulebook and its bases that reads `name` (a rule, a value, an enum
    member in quotes is not a read) or a figure `name` (`attacker.name`), the house file
    first; the line that declares it is not a use."""
    found: list[Use] = []
    book: Any = rulebook
    while book is not None:
        source = text_of(book.source, book.filename) or ""
        tree = parse(source, book.filename)
        lines = source.split("\n")
        for decl in tree.declarations:
            rule = _rule(decl)
            seen = sorted({line for line in _reading_lines(decl, name)})
            found += [Use(book.filename, n, rule, lines[n - 1].strip()) for n in seen
                      if 0 < n <= len(lines)]
        book = getattr(book, "base", None)
    return found


def _rule(decl: Any) -> str:
    if isinstance(decl, s.ReplaceDecl):
        return f"replace {_rule(decl.decl)}"
    if isinstance(decl, s.AmendDecl):
        return f"amend {decl.kind} {decl.name}"
    if isinstance(decl, s.ExampleDecl):
        return f'example "{decl.title}"'
    if isinstance(decl, s.SheetDecl):  # `cheat sheet` or `screen`
        return decl.name
    return f"{kind_of(decl)} {getattr(decl, 'name', '')}"


def _reading_lines(node: Any, name: str) -> Iterator[int]:
    """The lines of a declaration where `name` is read: as a name, a call, a figure after a
    dot, or inside a table cell's `= …` expression."""
    if isinstance(node, s.Name) and node.name == name:
        yield node.span.line
    elif isinstance(node, (s.Attr, s.Call, s.Aggregate)) and node.name == name:
        yield node.span.line
    elif isinstance(node, s.SheetItem) and node.name == name:  # a cheat sheet shows it
        yield node.span.line
    elif isinstance(node, s.RowLine) and any(
            cell.strip().startswith("=") and re.search(rf"\b{re.escape(name)}\b", cell)
            for cell in node.text.split("|")):
        yield node.span.line
    if attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            if field.name in ("span", "comments", "name"):
                continue
            yield from _reading_lines(getattr(node, field.name), name)
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from _reading_lines(item, name)
