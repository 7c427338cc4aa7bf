"""The compiler's types: what an expression evaluates to, and the domains of names."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class Domain:
    """A closed set of names: an enum, or the rows of a record table keyed by name."""

    name: str
    members: tuple[str, ...]
    table: str | None = None  # the record table whose rows these names key (for `.field`)


@attrs.frozen
class Mixed:
    """A record table's column of words where some cells print numbers: which cells are words
    and how many are numbers, so a rule reading the column as a number is told which cells
    disagree, at the first of them."""

    table: str
    column: str  # its label, as printed
    words: tuple[tuple[str, Any], ...]  # each word cell's text and span
    numbers: int


@attrs.frozen
class T:
    """A type. `kind` is one of: int, num, bool, name, record, dice, combatant, map, list,
    table, cell, none, nothing, any.

    `any` is never declared by a rule: it is the type of a value known only when the rule runs
    (a table's `given` figure), and every use of such a value is checked then (`_cast`).
    `nothing` is the item type of an empty list: it fits wherever an item is wanted."""

    kind: str
    domain: Domain | None = None  # name
    fields: tuple[tuple[str, T], ...] = ()  # record
    key: T | None = None  # map
    item: T | None = None  # map, list
    ref: str | None = None  # table name (table), combatant model name (combatant)
    # The value may be none: a column with a blank cell, a name not bound on every path,
    # `if … then x else none`. Every use that needs the value itself checks it when the rule
    # runs (`_present`); comparing with `==` and passing it on do not.
    maybe: bool = False
    # A column of words with numbers among them (name): what a rule reading it as a number is
    # told. Not part of the type: the column is a column of names.
    mixed: Mixed | None = attrs.field(default=None, eq=False)

    def sure(self) -> T:
        """This type without `maybe`: what a value is once it is known not to be none."""
        return attrs.evolve(self, maybe=False) if self.maybe else self

    def or_none(self) -> T:
        """This type with `maybe` (none stays none; `any` is checked wherever it is used)."""
        if self.maybe or self.kind in ("none", "any"):
            return self
        return attrs.evolve(self, maybe=True)

    def field(self, name: str) -> T | None:
        for field_name, field_type in self.fields:
            if field_name == name:
                return field_type
        return None

    def __str__(self) -> str:
        if self.maybe:
            return f"{self.sure()} or none"
        if self.kind == "name":
            return article(self.domain.name) if self.domain else "a name"
        if self.kind == "map":
            return f"a map of {self.key} to {self.item}"
        if self.kind == "list":
            return f"a list of {self.item}"
        if self.kind == "combatant":
            return article(self.ref or "combatant")
        if self.kind == "outcome":
            return f"an outcome of {self.ref}"
        if self.kind == "table":
            return f"table {self.ref}"
        if self.kind == "pattern":
            return f"pattern {self.ref}"
        if self.kind == "int" and self.ref == "facing":
            return "a facing (0 to 5)"
        return {
            "int": "a whole number", "num": "a number", "bool": "a yes/no value",
            "record": "a record", "dice": "dice", "cell": "a table expression",
            "none": "none", "any": "a value", "nothing": "nothing", "hex": "a hex",
        }[self.kind]


def article(noun: str) -> str:
    """`a weapon`, `an injury`."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


INT = T("int")
NUM = T("num")
BOOL = T("bool")
NAME = T("name")
DICE = T("dice")
NONE = T("none")
ANY = T("any")
NOTHING = T("nothing")
# The time of an encounter, `now`: a number of the clock's unit, whole when the clock's times
# are. An integer may take it (or `now + 1`): whether it is whole is checked when the rule runs.
CLOCK = T("num", ref="clock")
CELL = T("cell")  # an `= …` table cell: a value a rule cannot read until given its figures
HEX = T("hex")  # a hex of the grid (runtime.space.Hex)
# A facing, 0 to 5: a whole number that goes round (`f.facing + 1` after 5 is 0).
FACING = T("int", ref="facing")


# What the run-time check `_cast` can verify, by the kind of type wanted.
RUNTIME_KINDS = {"int": "int", "num": "num", "bool": "bool", "name": "name", "list": "list",
                 "map": "map", "dice": "dice", "record": "record", "collection": "collection",
                 "hex": "hex"}


def is_number(t: T) -> bool:
    return t.kind in ("int", "num", "any", "nothing")


def is_collection(t: T) -> bool:
    return t.kind in ("list", "map", "any")


def join(a: T, b: T) -> T | None:
    """The type of a value that is either `a` or `b` (branches of a conditional), or None."""
    if a.kind == "none":
        return b.or_none()
    if b.kind == "none":
        return a.or_none()
    joined = _join(a.sure(), b.sure())
    return joined.or_none() if joined is not None and (a.maybe or b.maybe) else joined


def _join(a: T, b: T) -> T | None:
    if a == b:
        return a
    if a.kind == "nothing":
        return b
    if b.kind == "nothing":
        return a
    if a.kind == "any" or b.kind == "any":
        return ANY
    if a.kind == b.kind == "int":  # a facing and a whole number
        return INT
    if is_number(a) and is_number(b):
        return NUM
    if {a.kind, b.kind} <= {"dice", "int", "num"}:
        return DICE  # `if c then 0 else d6`: a number is a roll of no dice
    if a.kind == "name" and b.kind == "name":
        return a if a.domain == b.domain else NAME
    if a.kind == b.kind == "list":
        item = join(a.item or NOTHING, b.item or NOTHING)
        return T("list", item=item) if item is not None else None
    if a.kind == b.kind == "map" and a.key == b.key:
        item = join(a.item or NOTHING, b.item or NOTHING)
        return T("map", key=a.key, item=item) if item is not None else None
    return None


def accepts(wanted: T, got: T) -> bool:
    """Whether a value of type `got` may be passed where `wanted` is declared (a `maybe`
    value is checked where it is passed: `_present`)."""
    wanted, got = wanted.sure(), got.sure()
    if wanted.kind == "any" or got.kind in ("any", "nothing"):
        return True
    if wanted.kind == "num":
        return got.kind in ("int", "num")
    if wanted.kind == "int" and got == CLOCK:
        return True
    if wanted.kind == "dice":
        return got.kind in ("dice", "int", "num", "none")
    if wanted.kind == "name":
        if got.kind != "name":
            return False
        return wanted.domain is None or got.domain is None or wanted.domain == got.domain
    if wanted.kind in ("map", "list"):
        if got.kind != wanted.kind:
            return False
        keys_fit = wanted.kind == "list" or accepts(wanted.key or ANY, got.key or NOTHING)
        return keys_fit and accepts(wanted.item or ANY, got.item or NOTHING)
    if wanted.kind == got.kind == "combatant" and wanted.ref and got.ref:
        # A party of several models (`a rider or horse`) fits only where each of them does.
        return set(got.ref.split(" or ")) <= set(wanted.ref.split(" or "))
    return wanted.kind == got.kind or got.kind == "none"
