"""The column pass: one kind of value per table column, as declared or as most cells print it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.dice import Dice
from rulecraft.runtime.errors import RuleTypeError, Span, TableError
from rulecraft.runtime.tables import Record

from . import cells
from .cells import Notation
from .scope import Scope
from .types import ANY, CELL, DICE, INT, NUM, Mixed, T, Domain

BAD = object()  # what a reader returns for a cell that is not of its kind
BUILTIN = ("integer", "number", "dice", "name")

# A cell as first read, before its column's kind is known: (kind, value, text, span) with kind
# one of int, num, record, dice, name, blank, expr (cells.infer).
RawCell = tuple[str, Any, str, Span]

# The kinds a column can take when nothing is declared, in the order that wins a tie: a column
# of words reads any cell as its text, a column of dice reads a number as a fixed roll.
_CATEGORY = {"name": "name", "dice": "dice", "int": "numeric", "num": "numeric",
             "record": "numeric"}
_A = {"name": "a word", "dice": "dice", "numeric": "a number"}
_MANY = {"name": "words", "dice": "dice", "numeric": "numbers"}
_DECLARE = {"name": "name", "dice": "dice", "numeric": "number"}


@attrs.frozen
class Reader:
    """A declared cell type (`-> integer`, a column's `b: integer`): its type for rules and how
    one printed cell is read (BAD when the cell is not of the type)."""

    name: str
    type: T
    what: str  # what a cell must be, for messages: "a whole number"
    parse: Callable[[str], Any]
    domain: Domain | None = None  # an enum or a table's names: an unknown one gets a hint
    notation: Notation | None = None

    def problem(self, text: str, column: str | None = None) -> str:
        """Why `text` does not fit, and what to write instead when it sits in a named column."""
        if self.notation is not None:
            return (f"{text!r} is not {self.name}: write a number followed by one of its marks "
                    f"({self.notation.examples()}) or dice such as 3 + 1d6")
        base = f"{text!r} is not {self.what}"
        if column is None:
            return base
        return (f"{base}, and column {column} is declared {self.name}: write {self.what} or "
                "leave the cell blank")


def _integer(text: str) -> Any:
    return cells.number(text) if cells.INT_RE.match(text) else BAD


def _number(text: str) -> Any:
    return cells.number(text) if cells.NUM_RE.match(text) else BAD


def _dice(text: str) -> Any:
    if cells.NUM_RE.match(text):
        return Dice((), cells.number(text))  # a fixed amount: "3" rolls 3
    dice = cells.parse_dice(text)
    return BAD if dice is None else dice


def _builtin(name: str) -> Reader:
    if name == "integer":
        return Reader(name, INT, "a whole number", _integer)
    if name == "number":
        return Reader(name, NUM, "a number", _number)
    if name == "dice":
        return Reader(name, DICE, "dice such as 2d6+1", _dice)
    return Reader(name, T("name"), "a name", lambda text: text)


def record_reader(fields: tuple[str, ...]) -> Reader:
    """`-> (time, attack)`: cells printed `10/10`, read as records of numbers."""

    def parse(text: str) -> Any:
        parts = cells.parse_record(text)
        if parts is None or len(parts) != len(fields):
            return BAD
        return Record(dict(zip(fields, parts)))

    return Reader("record", T("record", fields=tuple((f, NUM) for f in fields)),
                  f"{len(fields)} numbers separated by / ({'/'.join(fields)})", parse)


def read_notations(scope: Scope, decls: Sequence[Any]) -> dict[str, Notation]:
    """Every `notation` of the file, its marks checked: each once, each adding dice."""
    out: dict[str, Notation] = {}
    for d in decls:
        if not isinstance(d, s.NotationDecl):
            continue
        if d.name in BUILTIN:
            scope.error(RuleTypeError, f"a notation cannot be called {d.name}: it names the "
                        "cells of a built-in type", d.span)
            continue
        marks: dict[str, Dice] = {}
        for m in d.marks:
            if m.mark in marks:
                shown = "none" if not m.mark else f'"{m.mark}"'
                scope.error(RuleTypeError, f"the mark {shown} is listed twice", m.span)
                continue
            dice = cells.parse_dice(m.dice)
            if dice is None:
                scope.error(RuleTypeError, f"{m.dice!r} is not dice such as 2d6", m.span)
                continue
            marks[m.mark] = dice
        out[d.name] = Notation(d.name, marks)
    return out


class CellTypes:
    """The cell types a table may declare: built-in, a rulebook's notations, enums and the row
    names of record tables."""

    def __init__(self, scope: Scope, notations: dict[str, Notation]) -> None:
        self.scope = scope
        self.notations = notations

    def reader(self, name: str, span: Span, what: str = "cell type") -> Reader | None:
        """The reader of a declared type; None (and an error naming the known ones) if unknown."""
        if name in BUILTIN:
            return _builtin(name)
        notation = self.notations.get(name)
        if notation is not None:
            def read(text: str) -> Any:
                dice = notation.read(text)  # type: ignore[union-attr]
                return BAD if dice is None else dice

            return Reader(name, DICE, f"{name} such as {notation.examples()}", read,
                          notation=notation)
        domain = self.scope.domain(name)
        if domain is not None:
            members = frozenset(domain.members)
            return Reader(name, T("name", domain=domain), f"a {name}",
                          lambda text: text if text in members else BAD, domain=domain)
        self.scope.unknown(what, name, span, [*BUILTIN, *self.notations, *self.scope.enums,
                                              *self.scope.domains])
        return None

    def read(self, reader: Reader, text: str, span: Span, column: str | None = None) -> Any:
        """One printed cell as the declared type; a cell that does not fit is reported at it."""
        value = reader.parse(text)
        if value is not BAD:
            return value
        if reader.domain is not None:
            self.scope.unknown(reader.domain.name, text, span, list(reader.domain.members))
        else:
            self.scope.error(TableError, reader.problem(text, column), span)
        return None

    # -- a column nothing declares -----------------------------------------------------------
    def infer(self, raw: list[RawCell], label: str, field: str,
              table: str = "") -> tuple[T, list[Any]]:
        """The kind most of the column's printed cells have (a tie goes to words, then dice),
        and each cell as that kind; a cell of another kind is an error at that cell. Words
        with numbers among them keep which cells are words (`T.mixed`), for a rule that reads
        the column as a number."""
        counts = Counter(_CATEGORY[kind] for kind, *_ in raw if kind in _CATEGORY)
        if not counts:
            return (CELL if any(k == "expr" for k, *_ in raw) else ANY), [v for _, v, _, _ in raw]
        column = max(("name", "dice", "numeric"), key=lambda c: counts[c])
        values = [self._as(column, kind, value, text, span, label, field)
                  for kind, value, text, span in raw]
        kinds = {kind for kind, *_ in raw}
        if "expr" in kinds:
            return CELL, values
        t = self._type(column, kinds)
        if column == "name" and counts["numeric"]:
            words = tuple((text, span) for kind, _, text, span in raw if kind == "name")
            t = attrs.evolve(t, mixed=Mixed(table, label, words, counts["numeric"]))
        return (t.or_none() if "blank" in kinds else t), values

    def _as(self, column: str, kind: str, value: Any, text: str, span: Span, label: str,
            field: str) -> Any:
        if kind in ("blank", "expr") or _CATEGORY[kind] == column:
            return value
        if column == "name":
            return text  # a column of words: the cell as printed
        if column == "dice" and kind in ("int", "num"):
            return Dice((), value)  # a fixed roll
        self.scope.error(TableError, f"{text!r} is not {_A[column]}, and column {label} holds "
                         f"{_MANY[column]}: write {_A[column]}, leave the cell blank, or declare "
                         f"the column (`{field}: {_DECLARE[_CATEGORY[kind]]}`)", span)
        return None

    @staticmethod
    def _type(column: str, kinds: set[str]) -> T:
        if column == "name":
            return T("name")
        if column == "dice":
            return DICE
        numbers = kinds - {"blank"}
        if numbers == {"int"}:
            return INT
        if numbers <= {"int", "num"}:
            return NUM
        return ANY  # records (`6/40` beside `15`): checked where a rule uses one
