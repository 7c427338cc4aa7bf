"""The symbol table of one rulebook: what every name means, and the errors found so far."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.dice import Dice
from rulecraft.runtime.errors import (RulecraftError, RuleTypeError, Span, UnknownNameError,
                                     text_of)
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits

from .sides import UNION, common_fields
from .types import ANY, BOOL, DICE, FACING, HEX, INT, NUM, T, Domain

# The types of space (docs/language.md, "Space"): a hex of the grid and a facing, 0 to 5.
SPACE_TYPES = {"hex": HEX, "facing": FACING}

MAX_HINTS = 50  # "did you mean" hints per compile
# A prefix constant() is called with, as the kind a global's name starts with.
_KINDS = {"C": "NUM", "DICE": "DICE", "PARAM_": "PARAM", "MEMBERS_": "MEMBERS",
          "OPTIONS_": "OPTIONS"}


def _readable(name: str) -> bool:
    """A name Python reads back as itself: an identifier, already in NFKC form."""
    return name.isidentifier() and unicodedata.normalize("NFKC", name) == name


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
    # How many formula calls working out each formula makes (itself included), aggregates aside.
    formula_costs: dict[str, int] = attrs.field(factory=dict)
    combatant: s.CombatantDecl | None = None
    combatant_fields: dict[str, T] = attrs.field(factory=dict)  # the first model's
    models: dict[str, s.CombatantDecl] = attrs.field(factory=dict)  # every combatant model
    model_fields: dict[str, dict[str, T]] = attrs.field(factory=dict)
    procedures: dict[str, s.ProcedureDecl] = attrs.field(factory=dict)
    # Filled as procedures are generated (callees first): what a call needs of its callee.
    procedure_params: dict[str, list[tuple[str, T]]] = attrs.field(factory=dict)
    procedure_choices: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    procedure_checks: dict[tuple[str, str], str] = attrs.field(factory=dict)  # -> Param global
    schemas: dict[str, Any] = attrs.field(factory=dict)  # procedure -> outcomes.Schema
    policies: dict[str, s.PolicyDecl] = attrs.field(factory=dict)
    # The referee (compiler/referee.py): each procedure's choices a caller may answer (its own
    # and its callees'), and the standing constraints on choices.
    choice_info: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    standing: list[Any] = attrs.field(factory=list)
    patterns: dict[str, Any] = attrs.field(factory=dict)  # name -> compiler.patterns.PatternInfo
    units: dict[str, Any] = attrs.field(factory=dict)  # name -> runtime.space.Unit
    constants: dict[str, Any] = attrs.field(factory=dict)  # generated-code globals
    shared: dict[tuple[Any, ...], str] = attrs.field(factory=dict)  # constant() by value
    hints: int = 0  # "did you mean" hints given so far (each one compares with every name)
    limits: Limits = DEFAULT_LIMITS
    time_units: Any = None  # compiler/clock_units.TimeUnits: the clocks' and calendar's units
    _members: dict[frozenset[Any], str] = attrs.field(factory=dict, init=False, repr=False)
    _members_count: int = attrs.field(default=-1, init=False, repr=False)

    # -- errors ----------------------------------------------------------------------------
    def error(self, kind: type[RulecraftError], message: str, span: Span | None) -> None:
        self.errors.append(kind(message, span, self.source))

    def unknown(self, what: str, name: str, span: Span, known: list[str]) -> None:
        import difflib  # only when a name is wrong

        # Hints stop after the first few, so that a table of 10,000 unknown names does not
        # compare each one with every known name.
        close = difflib.get_close_matches(name, known, n=1) if self.hints < MAX_HINTS else []
        self.hints += 1
        hint = f"; did you mean {close[0]!r}?" if close else ""
        self.error(UnknownNameError, f"unknown {what} {name!r}{hint}", span)

    def condition_named(self, node: Any) -> None:
        """A condition written out (`give f "Stunned"`, `has(f, "Stunned")`) is a member of the
        rulebook's enum `condition`, when it declares one: a misspelt condition is never held."""
        conditions = self.enums.get("condition")
        if conditions is not None and type(node).__name__ == "String" and \
                node.value not in conditions.members:
            self.unknown("condition", node.value, node.span, list(conditions.members))

    def hides(self, node: Any, env: dict[str, Any], params: Any = ()) -> str:
        """What to add to an error about a value where a collection was wanted, when the value's
        name is also an enum's or a table's (`location: location`): the value hides it."""
        name = getattr(node, "name", None)
        if not isinstance(node, s.Name) or name not in env or self.domain(name) is None:
            return ""
        param = name in params
        what = f"the parameter {name}" if param else f"the value named {name}"
        kind, members = (("enum", "its members") if name in self.enums
                         else ("row type", "the table's rows"))
        return (f": here {name} is {what}, which hides the {kind} {name} — give the "
                f"{'parameter' if param else 'value'} a name of its own (`aimed: {name}`) "
                f"to choose from {members}")

    def fields_of(self, model: str | None) -> dict[str, T]:
        """The fields of a combatant model (`rider`, `horse`) with their types."""
        if model and UNION in model:  # a rider or horse: what they share
            return common_fields(self.model_fields, model)
        return self.model_fields.get(model or "", self.combatant_fields)

    def text(self, span: Span) -> str:
        """The rule text a span covers, as the author wrote it."""
        return (text_of(self.source, span.filename) or "")[span.start:span.end].strip()

    # -- generated-code globals ------------------------------------------------------------
    # Each is named `KIND_what`: an upper-case kind and what it holds (NUM_2_8, DICE_2d4_plus_12,
    # SPAN_L42_C5, COL_weapons_a, T_weapons, PARAM_dexterity_L238, MEMBERS_armour). Generated
    # functions and locals start in lower case (f_, pub_, p_, cell_, v_, derive) and helpers with
    # `_`, so a global never meets either; two globals whose names would meet get `_2`, `_3`, ….
    def constant(self, prefix: str, value: Any) -> str:
        """A module-level name bound to `value`: equal numbers, dice and name sets share one."""
        shareable = isinstance(value, (Decimal, Dice, frozenset, tuple))
        if shareable:
            # Equal and printed alike: 2.5 and 2.50 stay two constants (each prints as written).
            key = (prefix, type(value), str(value))
            name = self.shared.get(key)
            if name is not None and self.constants[name] == value:
                return name
        kind = _KINDS.get(prefix) or prefix.rstrip("_").upper()
        name = self._fresh(kind, self._what(value))
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
            # `COL_a_b_c` is table a's column b_c or table a_b's column c: the second is _2.
            ref = self._fresh("COL", f"{name}_{field}")
            self.constants[ref] = Column(self.tables[name].runtime, field)
            self.shared[key] = ref
        return self.shared[key]

    def span_ref(self, span: Span) -> str:
        """The global holding a span (for errors and the trace): one per place in the file.
        Nested expressions can start at one place: the second is named by its end too."""
        name = f"SPAN_L{span.line}_C{span.column}"
        for candidate in (name, f"{name}_to_L{span.end_line}_C{span.end_column}"):
            held = self.constants.get(candidate)
            if held is None or held == span:
                self.constants[candidate] = span
                return candidate
        name = self._fresh(candidate, "")
        self.constants[name] = span
        return name

    def _fresh(self, kind: str, what: str) -> str:
        """`KIND_what`, or with `_2`, `_3`, … if another global has that name."""
        name = f"{kind}_{what}" if what else kind
        if not (name.isascii() and name.isidentifier()) and not _readable(name):
            name = kind
        if name not in self.constants:
            return name
        number = 2
        while f"{name}_{number}" in self.constants:
            number += 1
        return f"{name}_{number}"

    def _what(self, value: Any) -> str:
        """What a constant holds, in identifier characters: 2.8 → 2_8, 2d4+12 → 2d4_plus_12,
        a parameter → its name and line, the members of an enum → the enum's name."""
        if isinstance(value, (int, Decimal, Dice)):
            text = str(value).replace("E+", "e").replace("E-", "e_minus_")
            for sign, word in (("+", "_plus_"), ("-", "_minus_"), (".", "_")):
                text = text.replace(sign, word)
            return re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_")
        if isinstance(value, (frozenset, tuple)):
            return self._domain_names().get(frozenset(value), "")
        name, span = getattr(value, "name", None), getattr(value, "span", None)
        if isinstance(name, str):  # a Param
            return f"{name}_L{span.line}" if isinstance(span, Span) else name
        return ""

    def _domain_names(self) -> dict[frozenset[Any], str]:
        """Each enum's or record table's member set → its name (built once they are all known)."""
        count = len(self.enums) + len(self.domains)
        if self._members_count != count:
            named: dict[frozenset[Any], list[str]] = {}
            for domain in (*self.enums.values(), *self.domains.values()):
                names = named.setdefault(frozenset(domain.members), [])
                if domain.name not in names:
                    names.append(domain.name)
            # Several types with the same members: the name says so rather than pick one.
            self._members = {members: "_or_".join(names[:3]) + ("_etc" if names[3:] else "")
                             for members, names in named.items()}
            self._members_count = count
        return self._members

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
        if name in SPACE_TYPES:  # after the rule's own names: an enum `facing` stays its own
            return SPACE_TYPES[name]
        if name in self.models:
            return T("combatant", ref=name)
        known = ["integer", "number", *SPACE_TYPES, *self.enums, *self.domains, *self.tables]
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


def cost(steps: tuple[Any, ...], more: int = 1) -> str:
    """The argument that makes a loop pass or a call cost the steps it plays, from the
    command's work (runtime/work.py): a unit is about an aggregate's item, and a step played
    (traced) takes about three; a pass costs one step more, a call five more."""
    return f", cost={3 * (len(s.all_steps(steps)) + more)}"
