"""The symbol table of one rulebook: what every name means, and the errors found so far."""

from __future__ import annotations

import difflib
from decimal import Decimal
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.dice import Dice
from rulecraft.runtime.errors import RulecraftError, RuleTypeError, Span, UnknownNameError
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits

from .types import ANY, BOOL, DICE, INT, NUM, T, Domain

MAX_HINTS = 50  # "did you mean" hints per compile


@attrs.define
class TableInfo:
    """What the compiler knows about a table: its key types and what a lookup returns."""

    decl: s.TableDecl
    key_types: list[T]
    value: T
    runtime: Any = None


@attrs.define
class FormulaInfo:
    decl: s.FormulaDecl
    params: list[tuple[str, T]]
    result: T | None = None
    param_refs: dict[str, str] = attrs.field(factory=dict)  # generated globals: each Param


@attrs.define
class Scope:
    """Every declared name of a rulebook, and the module-level objects generated code uses."""

    filename: str
    source: str
    errors: list[RulecraftError] = attrs.field(factory=list)
    enums: dict[str, Domain] = attrs.field(factory=dict)
    domains: dict[str, Domain] = attrs.field(factory=dict)
    tables: dict[str, TableInfo] = attrs.field(factory=dict)
    formulas: dict[str, FormulaInfo] = attrs.field(factory=dict)
    combatant: s.CombatantDecl | None = None
    combatant_fields: dict[str, T] = attrs.field(factory=dict)
    procedures: dict[str, s.ProcedureDecl] = attrs.field(factory=dict)
    constants: dict[str, Any] = attrs.field(factory=dict)  # generated-code globals
    shared: dict[tuple[Any, ...], str] = attrs.field(factory=dict)  # constant() by value
    hints: int = 0  # "did you mean" hints given so far (each one compares with every name)
    limits: Limits = DEFAULT_LIMITS

    # -- errors ----------------------------------------------------------------------------
    def error(self, kind: type[RulecraftError], message: str, span: Span | None) -> None:
        self.errors.append(kind(message, span, self.source))

    def unknown(self, what: str, name: str, span: Span, known: list[str]) -> None:
        # Hints stop after the first few, so that a table of 10,000 unknown names does not
        # compare each one with every known name.
        close = difflib.get_close_matches(name, known, n=1) if self.hints < MAX_HINTS else []
        self.hints += 1
        hint = f"; did you mean {close[0]!r}?" if close else ""
        self.error(UnknownNameError, f"unknown {what} {name!r}{hint}", span)

    def text(self, span: Span) -> str:
        """The rule text a span covers, as the author wrote it."""
        return self.source[span.start:span.end].strip()

    # -- generated-code globals ------------------------------------------------------------
    def constant(self, prefix: str, value: Any) -> str:
        """A module-level name bound to `value`: equal numbers, dice and name sets share one."""
        shareable = isinstance(value, (Decimal, Dice, frozenset, tuple))
        # Equal and printed alike: 2.5 and 2.50 stay two constants (each prints as written).
        key = (prefix, type(value), str(value))
        if shareable and key in self.shared and self.constants[self.shared[key]] == value:
            return self.shared[key]
        name = f"{prefix}{len(self.constants)}"
        self.constants[name] = value
        if shareable:
            self.shared.setdefault(key, name)
        return name

    def table_ref(self, name: str) -> str:
        """The generated-code global holding table `name` (T_weapons)."""
        ref = f"T_{name}"
        self.constants[ref] = self.tables[name].runtime
        return ref

    def column_ref(self, name: str, field: str) -> str:
        """The generated-code global holding one field of a single-key record table by key."""
        from rulecraft.runtime.tables import Column

        key = ("COL", name, field)
        if key not in self.shared:
            # Numbered: `T_a__b` could be table a's column b or a table called a__b.
            ref = f"COL{len(self.constants)}_{name}_{field}"
            self.constants[ref] = Column(self.tables[name].runtime, field)
            self.shared[key] = ref
        return self.shared[key]

    def span_ref(self, span: Span) -> str:
        name = f"S{len(self.constants)}"
        self.constants[name] = span
        return name

    # -- types -----------------------------------------------------------------------------
    def resolve_type(self, node: s.TypeExpr | None) -> T:
        """A declared type as the compiler's T (unknown names are reported, typed `any`)."""
        if node is None:
            return ANY
        if isinstance(node, s.RangeType):
            low, high = _number(node.low), _number(node.high)
            if low > high:
                self.error(RuleTypeError, f"the range {node.low}..{node.high} is empty: write the "
                           "smaller number first", node.span)
            return INT if isinstance(low, int) and isinstance(high, int) else NUM
        if isinstance(node, s.MapType):
            return T("map", key=self.resolve_type(node.key), item=self.resolve_type(node.item))
        if isinstance(node, s.ListType):
            return T("list", item=self.resolve_type(node.item))
        name = node.name
        primitive = {"integer": INT, "number": NUM, "bool": BOOL, "dice": DICE,
                     "name": T("name")}
        if name in primitive:
            return primitive[name]
        if name == "any":
            # A value of any type could be anything Python holds; a rule says what it takes.
            self.error(RuleTypeError, "`any` is not a type a rule can declare: say what the "
                       "value is (integer, number, 1..20, bool, name, dice, an enum or table "
                       "name, list …, map …)", node.span)
            return ANY
        domain = self.domain(name)
        if domain is not None:
            return T("name", domain=domain)
        if self.combatant is not None and name == self.combatant.name:
            return T("combatant", ref=name)
        known = ["integer", "number", *self.enums, *self.domains, *self.tables]
        if self.combatant is not None:
            known.append(self.combatant.name)
        self.unknown("type", name, node.span, known)
        return ANY

    def domain(self, name: str) -> Domain | None:
        if name in self.enums:
            return self.enums[name]
        if name in self.domains:
            return self.domains[name]
        if name in self.tables:
            key_types = self.tables[name].key_types
            if key_types and key_types[0].domain is not None:
                return key_types[0].domain
        return None


def _number(text: str) -> int | Decimal:
    return Decimal(text) if "." in text else int(text)
