"""Space's declarations: a `unit` of distance and a `pattern` of hexes, read and checked.

A pattern's cells are a book's diagram in words (`ahead`, `2 ahead`, `ahead + front right`,
`own hex`, `(1, -1)`, `mirror of Short, Right`); they become a dict of key cells to hex offsets,
a global of the generated code, and a `runtime.space.Pattern` for `show` and sheets.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError, Span, TableError
from rulecraft.runtime.space import HERE, WORDS, Hex, Pattern, Unit, mirror, step

from .cells import number
from .types import T, Domain

if TYPE_CHECKING:
    from .scope import Scope


@attrs.define
class PatternInfo:
    """What the compiler knows of a pattern: its key types and the global holding its rows."""

    decl: Any
    key_types: list[T]
    runtime: Pattern
    ref: str


# ---- declarations ----------------------------------------------------------------------------
def read_space(scope: Scope, decls: tuple[Any, ...]) -> tuple[dict[str, Pattern],
                                                                 dict[str, Unit]]:
    """Every `unit` and `pattern` of the file, checked, into the scope and for the rulebook."""
    units, patterns = {}, {}
    for d in decls:
        if isinstance(d, s.UnitDecl):
            per_hex = number(d.per_hex)
            if per_hex == 0:
                scope.error(RuleTypeError, "a unit of distance is more than 0 per hex", d.span)
            units[d.name] = scope.units[d.name] = Unit(d.name, d.title or d.name, per_hex,
                                                       d.span, d.comments)
    for d in decls:
        if isinstance(d, s.PatternDecl):
            info = _PatternReader(scope, d).read()
            if info is not None:
                scope.patterns[d.name] = info
                patterns[d.name] = info.runtime
    return patterns, units


class _PatternReader:
    """A pattern's rows: key cells naming members, a last cell of hexes in the book's words
    (`ahead`, `2 ahead`, `ahead + front right`, `own hex`, `(1, -1)`) or `mirror of KEYS`."""

    def __init__(self, scope: Scope, decl: Any) -> None:
        self.scope, self.decl = scope, decl

    def read(self) -> PatternInfo | None:
        d = self.decl
        key_types = [self._key_type(k) for k in d.keys]
        if d.options:
            self.scope.error(RuleTypeError, "a pattern takes no options", d.options[0].span)
        rows = [r for r in d.rows if not r.is_rule]
        if not rows:
            self.scope.error(TableError, "a pattern needs a header row and a row of hexes",
                             d.span)
            return None
        width = len(d.keys) + 1
        read: dict[tuple[Any, ...], tuple[Hex, ...]] = {}
        mirrored: list[tuple[tuple[Any, ...], tuple[str, ...], Span]] = []
        for row in rows[1:] if len(rows) > 1 else rows[:0]:
            cells = _cells(row)
            if len(cells) != width:
                self.scope.error(TableError, f"this row has {len(cells)} cells; the pattern "
                                 f"has {width} columns ({len(d.keys)} keys, then the hexes)",
                                 row.span)
                continue
            keys = tuple(self._key(text, span, kt) for (text, span), kt in
                         zip(cells[:-1], key_types))
            if keys in read or any(keys == m[0] for m in mirrored):
                self.scope.error(TableError, f"the hexes for {' / '.join(map(str, keys))} are "
                                 "given twice", row.span)
                continue
            text, span = cells[-1]
            if text.lower().startswith("mirror of"):
                source = tuple(int(k) if kt.kind == "int" and re.fullmatch(r"-?\d+", k) else k
                               for k, kt in zip((k.strip() for k in
                                                 text[len("mirror of"):].split(",")),
                                                key_types))
                mirrored.append((keys, source, span))
                continue
            hexes = self._hexes(text, span)
            if hexes is not None:
                read[keys] = hexes
        if len(rows) < 2:
            self.scope.error(TableError, "a pattern needs a header row and a row of hexes",
                             d.span)
        for keys, source, span in mirrored:
            found = read.get(source)
            if found is None:
                named = " / ".join(map(str, source))
                self.scope.error(TableError, f"no row {named} to mirror (a row names the key "
                                 "cells of a row of hexes, in order)", span)
                continue
            # "Left handed weapons take the mirror image": through the line of facing 0.
            read[keys] = tuple(mirror(h) for h in found)
        ordered = tuple(read.items())
        runtime = Pattern(d.name, d.title or d.name, tuple(k.name for k in d.keys), ordered,
                          d.span, d.comments)
        ref = self.scope.constant("PATTERN_", dict(ordered))
        return PatternInfo(d, key_types, runtime, ref)

    def _key_type(self, key: Any) -> T:
        t = self.scope.resolve_type(key.type or s.NamedType(key.name, key.span))
        if t.kind not in ("name", "int", "any"):
            self.scope.error(RuleTypeError, f"a pattern's key is a name (an enum or a table's "
                             f"rows) or a whole number (1..6), not {t}", key.span)
        return t

    def _key(self, text: str, span: Span, kt: T) -> Any:
        if kt.kind == "int":  # `by roll: 1..6`: a die's result, as the dodge diagrams are read
            if re.fullmatch(r"-?\d+", text) is None:
                self.scope.error(TableError, f"{text!r} is not a whole number", span)
                return text
            return int(text)
        domain: Domain | None = kt.domain
        if domain is not None and text not in domain.members:
            self.scope.unknown(domain.name, text, span, list(domain.members))
        return text

    def _hexes(self, text: str, span: Span) -> tuple[Hex, ...] | None:
        items = [i.strip() for i in re.split(r",(?![^()]*\))", text)] if text.strip() else []
        out: list[Hex] = []
        for item in items:
            h = hex_words(item)
            if h is None:
                self.scope.error(TableError, f"{item!r} is not a hex of a pattern: write a walk "
                                 "from the fighter's own hex facing 0 (ahead, front right, "
                                 "back right, behind, back left, front left; `2 ahead`, "
                                 "`ahead + front right`), `own hex`, or `(q, r)`", span)
                return None
            out.append(h)
        return tuple(out)


def hex_words(item: str) -> Hex | None:
    """One hex of a pattern's cell, or None if the words do not say one."""
    text = " ".join(item.lower().split())
    if text in ("own hex", "here", "own"):
        return HERE
    pair = re.fullmatch(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)", text)
    if pair:
        return Hex(int(pair.group(1)), int(pair.group(2)))
    h = HERE
    for part in text.split("+"):
        found = re.fullmatch(r"(?:(\d+)\s+)?([a-z_ ]+)", part.strip())
        if not found or found.group(2).strip() not in WORDS:
            return None
        h = step(h, WORDS[found.group(2).strip()], int(found.group(1) or 1))
    return h


def _cells(row: Any) -> list[tuple[str, Span]]:
    r = row.span
    return [(text, Span(r.filename, r.line, r.column + offset, r.line,
                        r.column + offset + (len(text) or 1), r.start + offset,
                        r.start + offset + len(text)))
            for text, offset in row.cells()]


__all__ = ["PatternInfo", "hex_words", "read_space"]
