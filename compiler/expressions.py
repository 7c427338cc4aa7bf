"""Type-check an expression and write the Python that computes it, in one walk of the tree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.dsl.parser import parse_expression
from rulecraft.runtime.errors import RangeError, RulecraftError, RuleTypeError, UnknownNameError
from rulecraft.runtime.space import RELATIVE
from rulecraft.runtime.tables import CellExpression, Record
from rulecraft.runtime.values import field_name

from .literals import combatant_literal, visit_map
from . import sides as fight_sides
from .cells import number, parse_dice, snake
from .clock_units import unit_name
from .order import evaluates, formula_calls, names_used
from .banded import BandedLookups
from .ordered import ORDER_BUILTINS, OrderedExpressions
from .scope import Scope, TableInfo
from .sides import SIDE_BUILTINS, UNION
from .space import (SPACE_CALLS, space_attr, space_binary, space_call, space_index, space_name,
                    unit_of, visit_placed)
from .types import (ANY, BOOL, CELL, CLOCK, DICE, INT, NONE, NOTHING, NUM, RUNTIME_KINDS, T,
                    accepts, is_collection, is_number, join)

Env = dict[str, tuple[str, T]]  # rule name -> (Python code that reads it, its type)

_ROUNDING = {
    "floor": "_floor", "ceil": "_ceil", "round": "_round", "round_half_down": "_round_half_down",
    "round_half_even": "_round_half_even", "truncate": "_truncate",
}
# `NAME(body for x in collection)`: what each does with the bodies.
AGGREGATES = ("max", "min", "sum", "any", "all", "count", "argmin", "argmax", "sort",
              "sort_descending", "group", "list")
BUILTINS = sorted({*_ROUNDING, "ln", "sqrt", "min", "max", "abs", "dice", "count", "len",
                   "flatten", "maximum", "minimum", "mean", "has", "remaining", "next_turn",
                   "action", "last_action", "has_entry",
                   "hex_distance",
                   "hex_in_front", *SPACE_CALLS, *ORDER_BUILTINS, *AGGREGATES, *SIDE_BUILTINS})
# A value read from a table expression with its given figures: known only when the rule runs,
# and none where the cell is blank (or the expression gives none).
GIVEN = T("any", maybe=True)
_UNKNOWN = object()  # a lookup whose row is not known when compiling


# The common case of a `_cast` tested inline (a value of the kind passes as it is; any other
# goes to `_cast`, which says what was wanted): a whole number, the usual value of a figure.
_INLINE_TESTS = {"int": "type({0}) is int", "num": "type({0}) is int",
                 "bool": "type({0}) is bool", "name": "type({0}) is str"}


class Emitter(OrderedExpressions, BandedLookups):
    """Translate one expression at a time against a scope and an environment of local names."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self._dispatch: dict[type, Callable[[Any, Env], tuple[str, T]]] = {
            s.Number: self.visit_Number, s.String: self.visit_String, s.DiceLit: self.visit_DiceLit,
            s.Constant: self.visit_Constant, s.Name: self.visit_Name, s.ListLit: self.visit_ListLit,
            s.Unary: self.visit_Unary, s.Binary: self.visit_Binary,
            s.Conditional: self.visit_Conditional, s.Attr: self.visit_Attr,
            s.Index: self.visit_Index, s.Call: self.visit_Call, s.Aggregate: self.visit_Aggregate,
            s.RangeExpr: self.visit_RangeExpr,
            s.Placed: lambda node, env: visit_placed(self, node, env),
            s.MapLit: lambda node, env: visit_map(self, node, env),
        }
        self._limits_ref: str | None = None
        self._nested = False  # inside an expression being translated
        self._summing = False  # inside the terms of a sum (`a + b - c`): its outermost checks
        self._aggregates = False  # that expression has an aggregate in it
        self._spenders = 0  # the places in it spending items from its budget (`items_limit`)
        self._flat_gone_over: s.Expr | None = None  # an aggregate's `flatten(m)`, being written
        # The last division of two whole numbers written: the node, and its operands' Python.
        self._whole_division: tuple[Any, str, str] = (None, "", "")
        self.sides: fight_sides.Sides | None = None  # the sides of the encounter being written

    def expr(self, node: s.Expr, env: Env) -> tuple[str, T]:
        try:
            visit = self._dispatch[type(node)]
        except KeyError:
            raise AssertionError(f"no emitter for {type(node).__name__}") from None
        if self._nested:
            return visit(node, env)
        self._nested, self._aggregates, self._spenders = True, False, 0
        try:
            code, t = visit(node, env)
        finally:
            self._nested = False
        if self._aggregates and (self._spenders > 1 or evaluates(node, self.scope.formulas)):
            # One budget of items for the whole of it, aggregates nested or in a row alike.
            # (A lone aggregate's items are the whole budget: no `_evaluation` to gather them.)
            code = f"_evaluation(lambda: {code})"
        return code, t

    @property
    def items_limit(self) -> int:
        """`aggregate_items`, for a helper spending items from the expression's budget: each
        one asking is counted (a lone spender needs no `_evaluation` gathering them)."""
        self._spenders += 1
        return self.scope.limits.aggregate_items

    def condition(self, node: s.Expr, env: Env) -> tuple[str, T]:
        """An expression that must be yes or no (`if`, `and`, `or`, `not`)."""
        code, t = self.expr(node, env)
        if t.kind not in ("bool", "any"):
            self.scope.error(RuleTypeError, f"a condition must be yes or no (a comparison "
                             f"such as x >= 10), not {t}", node.span)
        return self.cast(code, t, "bool", node), BOOL

    def cast(self, code: str, t: T, kind: str, node: s.Expr) -> str:
        """`code` checked when the rule runs if its type is known only then (`any`), or if it
        may be none (a blank cell) where the value itself is needed."""
        code, t = self.present(code, t, node)
        if t == CLOCK and kind == "int":
            return self.whole_time(code, node, "this needs a whole number")
        if t.kind != "any" or kind not in RUNTIME_KINDS:
            return code
        cast = f"_cast({code}, {RUNTIME_KINDS[kind]!r}, {self.scope.span_ref(node.span)})"
        if code.isidentifier() and kind in _INLINE_TESTS:  # a name: read twice, no cost
            return f"({code} if {_INLINE_TESTS[kind].format(code)} else {cast})"
        return cast

    def whole_time(self, code: str, node: s.Expr, what: str) -> str:
        """The clock's time where a whole number is wanted: as it is when it is whole, an error
        naming `what` and the time when it is not."""
        label = repr(self.scope.text(node.span))
        return f"_whole_time({code}, {self.scope.span_ref(node.span)}, {what!r}, {label})"

    def present(self, code: str, t: T, node: s.Expr) -> tuple[str, T]:
        """A value that may be none, checked not to be where the rule needs the value itself."""
        if not t.maybe:
            return code, t
        label = repr(self.scope.text(node.span))
        return f"_present({code}, {self.scope.span_ref(node.span)}, {label})", t.sure()

    def _needs_numbers(self, message: str, t: T, node: Any) -> tuple[str, T]:
        """A value that is not a number where numbers are needed: an error there, or, when it
        comes from a column of words with numbers among them, at the column's first word,
        naming the words (the cells that disagree) and the rule that reads them."""
        mixed = t.mixed
        if mixed is None or not mixed.words:
            return self._bad(message, node)
        shown = mixed.words[:10]
        words = ", ".join(f"{text!r} (line {span.line})" for text, span in shown)
        if len(mixed.words) > len(shown):
            words += f" and {len(mixed.words) - len(shown)} more"
        plural = len(mixed.words) > 1
        numbers = (f"{mixed.numbers} cells are numbers" if mixed.numbers > 1
                   else "1 cell is a number")
        self.scope.error(RuleTypeError, (
            f"column {mixed.column} of table {mixed.table} holds words and numbers: {words} "
            f"{'are words' if plural else 'is a word'} where {numbers}, and the rule at line "
            f"{node.span.line} reads the column as a number ({message}): write "
            f"{'numbers in these cells' if plural else 'a number in this cell'}, or leave "
            f"{'them' if plural else 'it'} blank"), mixed.words[0][1])
        return "None", ANY

    def _bad(self, message: str, node: Any) -> tuple[str, T]:
        self.scope.error(RuleTypeError, message, node.span)
        return "None", ANY

    def limits(self) -> str:
        """The generated-code global holding the compile's limits (for dice and ranges)."""
        if self._limits_ref is None:
            self._limits_ref = self.scope.constant("LIMITS_", self.scope.limits)
        return self._limits_ref

    # -- collections -----------------------------------------------------------------------
    def collection(self, node: s.Expr, env: Env, what: str) -> tuple[str, T]:
        """Python that gives a collection's items in order, and their type: a list, a map (its
        keys), a range `1..6`, an enum or a record table's row names by their type's name
        (`injury`, `weapon`), a table by its name (its keys). `what` begins the error."""
        if isinstance(node, s.Name) and node.name not in env:
            if node.name in self.scope.tables:
                return self._table_keys(node, self.scope.tables[node.name], what)
            domain = self.scope.domain(node.name)
            if domain is not None:
                return self.scope.constant("ITEMS_", domain.members), T("name", domain=domain)
        code, t = self.expr(node, env)
        if not is_collection(t):
            self._bad(f"{what} a list or a map (or a range such as 1..6, an enum, a table), "
                      f"not {t}{self.scope.hides(node, env)}", node)
            return "()", ANY
        code = self.cast(code, t, "collection", node)
        t = t.sure()
        return code, ((t.key if t.kind == "map" else t.item) or ANY)

    def _table_keys(self, node: s.Name, info: TableInfo, what: str) -> tuple[str, T]:
        """A one-key table's keys, in printed order; a table of ranges or bands has none to
        list (its numbers are a range: `1..10`)."""
        table = info.runtime
        if len(info.key_types) != 1 or table is None:
            self._bad(f"{what} a table of one key; table {node.name} is looked up by "
                      f"{len(info.key_types)} keys", node)
            return "()", ANY
        keys = table.key_values()
        if not all(type(k) in (str, int) for k in keys):
            key = table.keys[0]
            span = f"{key.low}..{key.high}" if key.low is not None else "A..B"
            self._bad(f"table {node.name} is keyed by ranges of numbers, not by names: go over "
                      f"the numbers themselves, {span}", node)
            return "()", ANY
        return self.scope.constant("ITEMS_", tuple(keys)), info.key_types[0]

    def visit_RangeExpr(self, node: s.RangeExpr, env: Env) -> tuple[str, T]:
        """`1..6` as a value: a list of the numbers (gone over or looked in, it is never made:
        `_numbers`, `_in_range`)."""
        ends = self._range_ends(node, env)
        if ends is None:
            return "None", ANY
        limits = self.scope.limits
        return f"_range({ends}, {limits.key_span}, {self.items_limit})", T("list", item=INT)

    def _range_ends(self, node: s.RangeExpr, env: Env) -> str | None:
        """A range's two ends, then where it is written: the first arguments of its helpers."""
        ends = []
        for end in (node.low, node.high):
            code, t = self.expr(end, env)
            if t.sure().kind not in ("int", "any", "nothing"):
                self._bad(f"a range runs from a whole number to a whole number; this is {t}", end)
                return None
            ends.append(self.cast(code, t, "int", end))
        return f"{ends[0]}, {ends[1]}, {self.scope.span_ref(node.span)}"

    # -- atoms ---------------------------------------------------------------------------------
    def visit_Number(self, node: s.Number, env: Env) -> tuple[str, T]:
        value = number(node.text)
        if isinstance(value, int):
            return repr(value), INT
        return self.scope.constant("C", value), NUM

    def visit_String(self, node: s.String, env: Env) -> tuple[str, T]:
        return repr(node.value), T("name")

    def visit_DiceLit(self, node: s.DiceLit, env: Env) -> tuple[str, T]:
        dice = parse_dice(node.text.replace("d%", "d100"))  # "d%": the percentile die
        if dice is None:
            return self._bad(f"{node.text!r} is not a dice expression", node)
        return self.scope.constant("DICE", dice), DICE

    def visit_Constant(self, node: s.Constant, env: Env) -> tuple[str, T]:
        return repr(node.value), (NONE if node.value is None else BOOL)

    def visit_Name(self, node: s.Name, env: Env) -> tuple[str, T]:
        if node.name in env:
            return env[node.name]
        if node.name in self.scope.tables:
            return self.scope.table_ref(node.name), T("table", ref=node.name)
        if node.name in self.scope.formulas:
            return self._bad(f"formula {node.name} needs its arguments: {node.name}(…)", node)
        if self.scope.time_units is not None:  # a unit of time read as a number: `week`
            unit = unit_name(self, node.name, self.scope.time_units.current)
            if unit is not None:
                return unit
        found = space_name(self, node)
        if found is not None:
            return found
        known = list(env) + list(self.scope.tables) + list(self.scope.patterns) + \
            list(RELATIVE)
        self.scope.unknown("name", node.name, node.span, known)
        return "None", ANY

    def visit_ListLit(self, node: s.ListLit, env: Env) -> tuple[str, T]:
        parts = [self.expr(item, env) for item in node.items]
        item: T | None = NOTHING
        for (_, t), part in zip(parts, node.items):
            joined = join(item, t) if item is not None else None
            if joined is None and item is not None:
                self.scope.error(RuleTypeError, f"a list holds one kind of value: this is {t}, "
                                 f"the items before it {item}", part.span)
            item = joined
        return "(" + "".join(code + ", " for code, _ in parts) + ")", T("list", item=item or ANY)

    # -- operators -------------------------------------------------------------------------
    def visit_Unary(self, node: s.Unary, env: Env) -> tuple[str, T]:
        if node.op == "not":
            code, _ = self.condition(node.operand, env)
            return f"(not {code})", BOOL
        code, t = self.expr(node.operand, env)
        if not (is_number(t) or t.kind == "dice"):
            return self._bad(f"cannot negate {t}", node)
        return f"(-{self.cast(code, t, 'dice', node.operand)})", t.sure()

    def visit_Binary(self, node: s.Binary, env: Env) -> tuple[str, T]:
        op = node.op
        if op in ("and", "or"):
            left, _ = self.condition(node.left, env)
            right, _ = self.condition(node.right, env)
            return f"({left} {op} {right})", BOOL
        outermost = not self._summing
        self._summing = op in ("+", "-")
        try:
            left, lt = self.expr(node.left, env)
            if op in ("in", "not in"):
                return self._membership(node, left, lt, env)
            if op == "is":
                return fight_sides.is_model(self, node, left, lt)
            right, rt = self.expr(node.right, env)
        finally:
            self._summing = not outermost
        spatial = space_binary(self, node, left, lt, right, rt)
        if spatial is not None:
            return spatial
        if op in ("==", "!="):
            self._check_comparable(node, lt, rt)
            if lt.kind == "combatant" and rt.kind == "combatant" or "none" in (lt.kind, rt.kind):
                # The same party, not two parties with equal figures; none is none alone (and a
                # Decimal asked `!= None` looks through Python's number classes first).
                return f"({left} {'is' if op == '==' else 'is not'} {right})", BOOL
            return f"({left} {op} {right})", BOOL
        if op in ("<", "<=", ">", ">="):
            ordered = self.member_compare(node, left, lt, right, rt)
            if ordered is not None:
                return ordered
            if not (is_number(lt) and is_number(rt)):
                return self._needs_numbers(f"cannot compare {lt} with {rt} using {op}",
                                           lt if not is_number(lt) else rt, node)
            left, right = self.cast(left, lt, "num", node.left), self.cast(right, rt, "num",
                                                                             node.right)
            return f"({left} {op} {right})", BOOL
        if lt.kind == "dice" or rt.kind == "dice":
            if op in ("+", "-") and (is_number(lt) or lt.kind == "dice") and \
                    (is_number(rt) or rt.kind == "dice"):
                left, right = self.cast(left, lt, "dice", node.left), self.cast(right, rt, "dice",
                                                                                  node.right)
                return f"({left} {op} {right})", DICE
            return self._bad(f"dice can only be added to or subtracted from; not {op}", node)
        if op == "+" and lt.sure().kind == "list" and rt.sure().kind == "list":
            return self._joined_lists(node, left, lt, right, rt)
        if not is_number(lt):
            return self._needs_numbers(f"{op} needs numbers, but the left side is {lt}", lt,
                                       node.left)
        if not is_number(rt):
            return self._needs_numbers(f"{op} needs numbers, but the right side is {rt}", rt,
                                       node.right)
        left, right = self.cast(left, lt, "num", node.left), self.cast(right, rt, "num", node.right)
        lt, rt = lt.sure(), rt.sure()
        if op == "/":
            # Of whole numbers, a rounding written round it works in whole numbers (`_ratio`).
            self._whole_division = (node, left, right) if lt == rt == INT else (None, "", "")
            if isinstance(node.right, s.Number) and number(node.right.text) != 0:
                return f"(_Decimal({left}) / {right})", NUM  # a printed divisor: never zero
            return f"_div({left}, {right})", NUM
        if op == "mod":
            result = INT if lt == INT and rt == INT else (ANY if ANY in (lt, rt) else NUM)
            return f"_mod({left}, {right})", result
        # A number known only at run time stays `any`: whether it is whole is checked where it
        # is used (a parameter of a formula, a state field).
        result = INT if lt == INT and rt == INT else (ANY if ANY in (lt, rt) else NUM)
        if op in ("+", "-") and CLOCK in (lt, rt) and {lt, rt} <= {CLOCK, INT}:
            result = CLOCK  # `now + 1`: a time, whole when the clock's are
        digits = self.scope.limits.number_digits
        if op == "*" and result != NUM:  # whole numbers: their digits are bounded
            return f"_mul({left}, {right}, {self.scope.span_ref(node.span)}, {digits})", result
        if result != NUM and outermost and _computed_terms(node) > 1:  # `x + x` doubles
            return f"_sized({left} {op} {right}, {self.scope.span_ref(node.span)}, {digits})", \
                result
        return f"({left} {op} {right})", result

    def _membership(self, node: s.Binary, left: str, lt: T, env: Env) -> tuple[str, T]:
        """`x in c`, `x not in c`: in a range, two comparisons; in a list written out, Python's
        own `in`; in any other list, a look through it, spent from the budget of items."""
        negated = "not " if node.op == "not in" else ""
        unit = unit_of(self, node, left, lt, env)
        if unit is not None:
            return unit
        if isinstance(node.right, s.RangeExpr):
            ends = self._range_ends(node.right, env)
            if ends is None:
                return "None", ANY
            return f"({negated}_in_range({left}, {ends}, {self.scope.limits.key_span}))", BOOL
        right, item = self.collection(node.right, env, f"`{node.op}` looks in")
        self.check_member(node.left, lt, item)
        if isinstance(node.right, s.ListLit):
            if lt.kind == "name":
                self.check_member(node.right, T("list", item=item), lt)  # `… in ["Stab", "Cutt"]`
            return f"({left} {node.op} {right})", BOOL
        where = self.scope.span_ref(node.span)
        return f"({negated}_member({left}, {right}, {where}, " \
            f"{self.items_limit}))", BOOL

    def _joined_lists(self, node: s.Binary, left: str, lt: T, right: str,
                      rt: T) -> tuple[str, T]:
        """`effects + [e]`: one list after the other (a list holds one kind of value)."""
        item = join(lt.sure().item or NOTHING, rt.sure().item or NOTHING)
        if item is None:
            return self._bad(f"a list holds one kind of value: {lt} and {rt} do not join", node)
        left, right = self.cast(left, lt, "list", node.left), self.cast(right, rt, "list",
                                                                          node.right)
        where = self.scope.span_ref(node.span)
        limits = self.scope.limits
        return f"_joined({left}, {right}, {where}, {limits.list_items}, " \
            f"{self.items_limit})", T("list", item=item)

    def _check_comparable(self, node: s.Binary, lt: T, rt: T) -> None:
        if "outcome" in (lt.kind, rt.kind):  # `save == "made"`: the outcome's name
            self._check_outcome_name(node, lt, rt)
        elif lt.kind == "name" and isinstance(node.right, s.String):
            self.check_member(node.right, rt, lt)
        elif rt.kind == "name" and isinstance(node.left, s.String):
            self.check_member(node.left, lt, rt)
        elif join(lt, rt) is None and "none" not in (lt.kind, rt.kind) and \
                not _parties_may_meet(lt, rt):
            self.scope.error(RuleTypeError, f"comparing {lt} with {rt} is never true", node.span)

    def _check_outcome_name(self, node: s.Binary, lt: T, rt: T) -> None:
        outcome, other, other_node = (lt, rt, node.right) if lt.kind == "outcome" else \
            (rt, lt, node.left)
        schema = self.scope.schemas.get(outcome.ref or "")
        if other.kind not in ("name", "any", "none"):
            self.scope.error(RuleTypeError, f"an outcome is compared with the name of an "
                             f"outcome (\"made\"), not with {other}", node.span)
        elif isinstance(other_node, s.String) and schema is not None and \
                other_node.value not in schema.fields:
            self.scope.unknown(f"outcome of {outcome.ref}", other_node.value, other_node.span,
                               list(schema.fields))

    def check_member(self, node: s.Expr, got: T, wanted: T | None) -> None:
        """A quoted name used where a domain's name is expected must be one of its members."""
        if wanted is None or wanted.kind != "name" or wanted.domain is None:
            return
        if isinstance(node, s.String) and node.value not in wanted.domain.members:
            self.scope.unknown(wanted.domain.name, node.value, node.span,
                               list(wanted.domain.members))
        elif isinstance(node, s.ListLit):
            for item in node.items:
                self.check_member(item, got, wanted)

    def visit_Conditional(self, node: s.Conditional, env: Env) -> tuple[str, T]:
        test, _ = self.condition(node.test, env)
        then, tt = self.expr(node.then, env)
        other, ot = self.expr(node.otherwise, env)
        joined = join(tt, ot)
        if joined is None:
            return self._bad(f"the two branches give different kinds of value: {tt} and {ot}",
                             node)
        if tt.kind == "name" and isinstance(node.otherwise, s.String):
            self.check_member(node.otherwise, ot, tt)
        if ot.kind == "name" and isinstance(node.then, s.String):
            self.check_member(node.then, tt, ot)
        return f"({then} if {test} else {other})", joined

    # -- access ----------------------------------------------------------------------------
    def visit_Attr(self, node: s.Attr, env: Env) -> tuple[str, T]:
        if self._given_table(node.value, env) is not None:
            return self._given_field(node, env)
        code, t = self.present(*self.expr(node.value, env), node.value)
        if t.kind == "any":
            return f"_attr({code}, {node.name!r}, {self.scope.span_ref(node.span)})", ANY
        if t.kind == "record":
            ft = t.field(node.name)
            if ft is None:
                return self._no_field(node, [f for f, _ in t.fields], "record")
            return f"{code}._data[{node.name!r}]", ft
        if t.kind == "name" and t.domain is not None and t.domain.table is not None:
            info = self.scope.tables[t.domain.table]
            ft = info.value.field(node.name)
            if ft is None:
                return self._no_field(node, [f for f, _ in info.value.fields],
                                      f"row of table {info.decl.name}")
            return f"{self.scope.column_ref(info.decl.name, node.name)}[{code}]", ft
        if t.kind == "combatant":
            fields = self.scope.fields_of(t.ref)
            ft = fields.get(node.name)
            if ft is None and fight_sides.union_field(self, node, t):
                return "None", ANY
            if ft is None:
                return self._no_field(node, list(fields), t.ref or "combatant")
            return f"{code}._values[{node.name!r}]", ft
        if t.kind == "outcome":
            return self._outcome_field(node, code, t)
        if t.kind == "hex":
            return space_attr(self, node, code)
        return self._bad(f"{t} has no fields (asked for .{node.name})", node)

    def _outcome_field(self, node: s.Attr, code: str, t: T) -> tuple[str, T]:
        """`save.throw`: a value of a called procedure's outcome, as its schema declares it
        (none where the outcome reached does not carry it)."""
        schema = self.scope.schemas.get(t.ref or "")
        if schema is None and t.ref in self.scope.procedures:  # a circle's callee, not yet read
            return self._bad(f"{t.ref} is called in a circle before it is written: declare the "
                             f"outcomes it ends in (`outcomes:`) to read .{node.name}", node)
        ft = schema.field_type(node.name) if schema is not None else None
        if ft is None:
            known = schema.all_fields() if schema is not None else []
            return self._no_field(node, known, f"outcome of {t.ref}")
        return f"{code}._values.get({node.name!r})", ft

    def _no_field(self, node: s.Attr, known: list[str], what: str) -> tuple[str, T]:
        self.scope.unknown(f"field of a {what}:", node.name, node.span, known)
        return "None", ANY

    def visit_Index(self, node: s.Index, env: Env) -> tuple[str, T]:
        banded = self.banded(node, env)  # `combat_ranges.feet[40]`: the row whose band holds 40
        if banded is not None:
            return banded
        code, t = self.present(*self.expr(node.value, env), node.value)
        if t.kind == "table":
            look = self._table_lookup(node, code, self.scope.tables[t.ref or ""], env)
            return ("None", ANY) if look is None else self._table_value(node, look)
        if t.kind == "pattern":
            return space_index(self, node, code, t, env)
        keys = [self.present(*self.expr(k, env), k) for k in node.keys]
        if node.given:
            return self._bad("only a table with `given` figures is looked up with them", node)
        if len(keys) != 1:
            return self._bad("only tables are looked up by several keys", node)
        key, kt = keys[0]
        if t.kind == "combatant":
            return self._combatant_field(node, code, key, kt, t)
        if t.kind == "list":
            return self.list_item(node, code, t, key, kt)
        if t.kind == "map":
            self.check_member(node.keys[0], kt, t.key)
            where = self.scope.span_ref(node.span)
            label = repr(self.scope.text(node.value.span))
            return f"_item({code}, {key}, {where}, {label})", t.item or ANY
        if t.kind == "record":
            if kt.kind not in ("name", "any"):
                return self._bad(f"a record's field is picked by a name, not {kt}", node)
            picked = set(self._fields_picked(node.keys[0], kt, t))
            out = picked.pop() if len(picked) == 1 else ANY  # checked where it is used
            return f"_field({code}, {key}, {self.scope.span_ref(node.span)})", out
        if t.kind == "any":
            label = repr(self.scope.text(node.value.span))
            return f"_item({code}, {key}, {self.scope.span_ref(node.span)}, {label})", ANY
        return self._bad(f"{t} cannot be looked up with [ ]", node)

    def _combatant_field(self, node: s.Index, code: str, key: str, kt: T,
                         t: T) -> tuple[str, T]:
        """`defender[characteristic]`: the field a name value names. With the name's domain
        known (an enum whose members name fields), each member must be a field and all of one
        kind; else any field of the model, checked when the rule runs."""
        fields = self.scope.fields_of(t.ref)
        if kt.kind not in ("name", "any"):
            return self._bad(f"a {t.ref}'s field is picked by a name, not {kt}", node)
        key_node = node.keys[0]
        if isinstance(key_node, s.String):
            names = [key_node.value]
        elif kt.kind == "name" and kt.domain is not None:
            names = list(kt.domain.members)
        else:
            names = list(fields)
        picked: dict[str, T] = {}
        for name in names:
            if name in fields:  # a field as declared
                picked[name] = fields[name]
            elif field_name(name) in fields:  # a member naming it ("Willpower": willpower)
                picked[field_name(name)] = fields[field_name(name)]
            else:
                named = not isinstance(key_node, s.String) and kt.domain is not None
                what = f"field of a {t.ref}" + (f", named by {kt.domain.name}" if named
                                                 else "")
                self.scope.unknown(what + ":", name, key_node.span, list(fields))
        out: T | None = NOTHING
        for ft in picked.values():
            out = join(out, ft) if out is not None else None
        if out is None and kt.kind == "name" and kt.domain is not None:
            kinds = ", ".join(f"{f} is {ft}" for f, ft in picked.items())
            self.scope.error(RuleTypeError, f"the fields {kt.domain.name} names hold different "
                             f"kinds of value ({kinds})", key_node.span)
        ref = self.scope.constant("FIELDS_", frozenset(picked))
        where = self.scope.span_ref(node.span)
        return f"_stat({code}, {key}, {ref}, {where})", \
            ANY if out is None or out.kind == "nothing" else out

    # -- tables with given figures ---------------------------------------------------------
    def _table_lookup(self, node: s.Index, code: str, info: TableInfo,
                      env: Env) -> _Lookup | None:
        """A lookup in a table, its keys checked; None when it cannot be made."""
        keys = [self.present(*self.expr(k, env), k) for k in node.keys]
        name = info.decl.name
        if len(keys) != len(info.key_types):
            self._bad(f"table {name} is looked up by {len(info.key_types)} key(s), not "
                      f"{len(keys)}", node)
            return None
        for key_node, (_, kt), wanted in zip(node.keys, keys, info.key_types):
            if not accepts(wanted, kt):
                own = wanted.domain is not None and wanted.domain.name.endswith(f" of {name}")
                hint = f" (its rows are a type of their own: `{name}`)" if own else ""
                self.scope.error(RuleTypeError, f"table {name} needs {wanted} here, not {kt}"
                                 f"{hint}", key_node.span)
            self.check_member(key_node, kt, wanted)
        return _Lookup(code, tuple(k for k, _ in keys), info, self._givens(node, info, env),
                       self._row(node, info))

    def _givens(self, node: s.Index, info: TableInfo, env: Env) -> str | None:
        """`{'walk': …}`: the figures a lookup gives the table's expressions, by checked name."""
        if not node.given:
            return None
        table = info.decl.name
        if not info.decl.given:
            self.scope.error(RuleTypeError, f"table {table} has no given figures (its header "
                             "names none after `given`)", node.span)
            return None
        parts: dict[str, str] = {}
        for name, value in node.given:
            code, _ = self.expr(value, env)
            if name not in info.decl.given:
                self.scope.unknown(f"given figure of table {table}:", name, value.span,
                                   list(info.decl.given))
            elif name in parts:
                self.scope.error(RuleTypeError, f"{name} is given twice", value.span)
            else:
                parts[name] = code
        return "{" + ", ".join(f"{name!r}: {code}" for name, code in parts.items()) + "}"

    def _row(self, node: s.Index, info: TableInfo) -> Any:
        """The value a lookup finds when its keys are written out, for checking the figures
        its expressions need; _UNKNOWN when they are not (or find nothing)."""
        keys = [k.value if isinstance(k, s.String) else _literal_number(k) for k in node.keys]
        if info.runtime is None or any(k is None for k in keys):
            return _UNKNOWN
        try:
            return info.runtime.get(*keys)
        except RulecraftError:
            return _UNKNOWN

    def _table_value(self, node: s.Index, look: _Lookup) -> tuple[str, T]:
        """A row or a cell; with given figures (or a row written out), its table expressions
        worked out."""
        value, info = look.info.value, look.info
        if look.givens is None and (look.row is _UNKNOWN or value != CELL):
            return look.plain(), value  # a table expression stays one: read by Python
        if value.kind == "record":
            for field, ft in value.fields:
                if ft == CELL:
                    self._check_needs(node, info, field, _cell_of(look.row, field))
            value = T("record", fields=tuple((f, GIVEN if ft == CELL else ft)
                                             for f, ft in value.fields))
        elif value == CELL:
            self._check_needs(node, info, None, look.row)
            value = GIVEN
        return f"_given({look.table}, {look.keys()}, {look.givens or '{}'}, " \
            f"{self.scope.span_ref(node.span)})", value

    def _given_table(self, node: s.Expr, env: Env) -> TableInfo | None:
        """The record table with `given` figures that `node` looks a row up in, if it does."""
        if isinstance(node, s.Index) and isinstance(node.value, s.Name) and \
                node.value.name not in env and node.value.name in self.scope.tables:
            info = self.scope.tables[node.value.name]
            if info.decl.given and info.value.kind == "record":
                return info
        return None

    def _given_field(self, node: s.Attr, env: Env) -> tuple[str, T]:
        """`timings["AT", base_speed = 14, walk = 6].time`: one field of a row, its table
        expression worked out with the figures the lookup gives (only that field's)."""
        lookup = node.value
        assert isinstance(lookup, s.Index) and isinstance(lookup.value, s.Name)
        info = self.scope.tables[lookup.value.name]
        look = self._table_lookup(lookup, self.scope.table_ref(info.decl.name), info, env)
        if look is None:
            return "None", ANY
        ft = info.value.field(node.name)
        if ft is None:
            return self._no_field(node, [f for f, _ in info.value.fields],
                                  f"row of table {info.decl.name}")
        if look.givens is None and (look.row is _UNKNOWN or ft != CELL):
            return f"{look.plain()}._data[{node.name!r}]", ft
        if ft == CELL:
            self._check_needs(lookup, info, node.name, _cell_of(look.row, node.name))
        return f"_given_field({look.table}, {look.keys()}, {look.givens or '{}'}, " \
            f"{node.name!r}, {self.scope.span_ref(node.span)})", GIVEN if ft == CELL else ft

    def _check_needs(self, node: s.Index, info: TableInfo, field: str | None, cell: Any) -> None:
        """A table expression whose row is written out needs each given figure it uses."""
        if not isinstance(cell, CellExpression):
            return
        try:
            used = {name for name, _ in names_used(parse_expression(cell.text))}
        except RulecraftError:
            return
        supplied = {name for name, _ in node.given}
        missing = [g for g in info.decl.given if g in used and g not in supplied]
        if missing:
            shown = self.scope.text(node.span) + (f".{field}" if field else "")
            keys = ", ".join(self.scope.text(k.span) for k in node.keys)
            self.scope.error(RuleTypeError, f"{shown} is `= {cell.text}`, which needs "
                             f"{', '.join(missing)}: give {'it' if len(missing) == 1 else 'them'}"
                             f" in the lookup, as {info.decl.name}[{keys}, {missing[0]} = …]",
                             node.span)

    def _fields_picked(self, key_node: s.Expr, kt: T, record: T) -> list[T]:
        """The types of the fields a name can pick: one for a quoted name, those of its
        domain's members (`armour[…][area]` reads only area columns), else every field."""
        if isinstance(key_node, s.String):
            names = [key_node.value]
        elif kt.kind == "name" and kt.domain is not None:
            names = list(kt.domain.members)
        else:
            return [ft for _, ft in record.fields]
        picked = [ft for name in names if (ft := record.field(field_name(name))) is not None]
        return picked or [ft for _, ft in record.fields]

    # -- calls -----------------------------------------------------------------------------
    def visit_Call(self, node: s.Call, env: Env) -> tuple[str, T]:
        if node.name in self.scope.formulas:
            return self._formula_call(node, env)
        if node.name in _ROUNDING:
            return self._rounding(node, env)
        if node.name == "waited" and "_round_order" in env:  # d20 delay: compiler/clock_ticks
            from .clock_ticks import waited_call

            return waited_call(self, node, env)
        if node.named and node.name in ("has", "remaining"):  # `on="Head"`: compiler/located
            from .located import located_call

            return located_call(self, node, env)
        if node.name in self.scope.models and not node.args:  # `fighter(strength = 12, …)`
            return combatant_literal(self, node, env)
        if node.name == "has_entry":  # a table asked whether it holds keys: compiler/entries
            from .entries import has_entry_call

            return has_entry_call(self, node, env)
        if node.named:
            return self._bad(f"{node.name} takes no named arguments", node)
        name = node.name
        spatial = space_call(self, node, env)
        if spatial is not None:
            return spatial
        if name in ("len", "count") and len(node.args) == (2 if name == "count" else 1):
            return self._count(node, env)
        ordered = self.member_order(node, env)
        if ordered is not None:
            return ordered
        args = [self.present(*self.expr(a, env), a) for a in node.args]
        if name in ("maximum", "minimum", "mean") and len(args) == 1:
            (code, at), = args
            if not (is_number(at) or at.kind == "dice"):
                return self._bad(f"{name} is of dice (or a number), not {at}", node.args[0])
            code = self.cast(code, at, "dice", node.args[0])
            where = self.scope.span_ref(node.span)
            return f"_{name}({code}, {self.limits()}, {where})", NUM if name == "mean" else INT
        if name in ("ln", "sqrt", "abs") and len(args) == 1:
            (code, at), = args
            if not is_number(at):
                return self._bad(f"{name} needs a number, not {at}", node)
            helper = {"ln": "_ln", "sqrt": "_sqrt", "abs": "abs"}[name]
            code = self.cast(code, at, "num", node.args[0])
            return f"{helper}({code})", (at if name == "abs" and at.kind != "any" else NUM)
        if name in ("min", "max") and len(args) == 2 and DICE in (args[0][1], args[1][1]):
            (a, at), (b, bt) = args
            dice_code, bound, bound_t, bound_node = (a, b, bt, node.args[1]) if at == DICE \
                else (b, a, at, node.args[0])
            if not is_number(bound_t):
                return self._bad(f"{name} of dice takes one dice value and one number", node)
            side = "at_least" if name == "max" else "at_most"
            bound = self.cast(bound, bound_t, 'num', bound_node)
            return f"_dice_of({dice_code}).clamped({side}={bound})", DICE
        if name in ("min", "max") and len(args) >= 2:
            for (_, at), arg in zip(args, node.args):
                if not is_number(at):
                    return self._bad(f"{name} needs numbers; this is {at}", arg)
            codes = [self.cast(c, at, "num", arg) for (c, at), arg in zip(args, node.args)]
            types = [at for _, at in args]
            result = INT if all(at == INT for at in types) else (ANY if ANY in types else NUM)
            return f"{name}({', '.join(codes)})", result
        if name in ("hex_distance", "hex_in_front") and len(args) == (4 if name ==
                                                                   "hex_distance" else 5):
            for (_, at), arg in zip(args, node.args):
                if at.kind not in ("int", "num", "any"):
                    return self._bad(f"{name} takes whole numbers (hex coordinates"
                                     f"{', a facing' if name == 'hex_in_front' else ''}), not "
                                     f"{at}", arg)
            # A record's cell printed `2` is a number: checked whole as the rule runs.
            codes = [c if at.kind == "int" else
                     f"_sp_whole({c}, {self.scope.span_ref(arg.span)})"
                     for (c, at), arg in zip(args, node.args)]
            return f"_{name}({', '.join(codes)})", (INT if name == "hex_distance" else BOOL)
        if name in ("has", "remaining") and len(args) == 2:
            (who, wt), (cond, ct) = args
            if wt.kind not in ("combatant", "any"):
                return self._bad(f"{name}(party, condition) asks of a combatant, not {wt}",
                                 node.args[0])
            if ct.kind not in ("name", "any"):
                return self._bad(f"a condition is named (\"Stunned\"), not {ct}", node.args[1])
            self.scope.condition_named(node.args[1])
            return f"_ctx.{name}({who}, {cond})", (BOOL if name == "has" else NUM.or_none())
        if name in ("action", "last_action"):  # labels of actions: compiler/clock_events.py
            from .clock_events import action_call  # (it imports this module)

            found = action_call(self, node, args)
            if found is not None:
                return found
        if name == "next_turn" and len(args) == 1:
            (who, wt), = args
            if wt.kind not in ("combatant", "any"):
                return self._bad(f"next_turn(party) asks of a combatant, not {wt}", node.args[0])
            return f"_ctx.next_turn({who})", NUM.or_none()
        if name == "dice" and len(args) == 2:
            for (_, at), arg in zip(args, node.args):
                if at.kind not in ("int", "any"):
                    return self._bad(f"dice(count, sides) takes whole numbers, not {at}", arg)
            count, sides = (self.cast(c, at, "int", arg) for (c, at), arg in zip(args, node.args))
            return f"_dice({count}, {sides})", DICE
        if name == "flatten" and len(args) == 1:
            code, ct = args[0]
            if not (is_collection(ct) and ct.kind != "list"):
                return self._bad(f"flatten needs a map of lists, not {ct}", node.args[0])
            code = self.cast(code, ct, "map", node.args[0])
            item = ct.item.item if ct.kind == "map" and ct.item and ct.item.kind == "list" else ANY
            if self._flat_gone_over is node:  # its items are spent by the aggregate going over it
                return f"_flattened({code})", T("list", item=item)
            where = self.scope.span_ref(node.span)
            return f"_flatten({code}, {where}, {self.items_limit})", T("list", item=item)
        if name in SIDE_BUILTINS:
            return fight_sides.call(self, node, args)
        if name in BUILTINS:
            return self._bad(f"{name} does not take {len(args)} argument(s) here", node)
        self.scope.unknown("function", name, node.span, BUILTINS + list(self.scope.formulas))
        return "None", ANY

    def _count(self, node: s.Call, env: Env) -> tuple[str, T]:
        """`len(c)`, `count(c, value)`: of any collection (`len(injury)`, `count(1..6, 3)`)."""
        code, item = self.collection(node.args[0], env, f"{node.name} needs")
        if node.name == "len":
            return f"len({code})", INT
        value, vt = self.present(*self.expr(node.args[1], env), node.args[1])
        self.check_member(node.args[1], vt, item)
        where = self.scope.span_ref(node.span)
        return f"_count({code}, {value}, {where}, {self.items_limit})", INT

    def _rounding(self, node: s.Call, env: Env) -> tuple[str, T]:
        if node.named or not 1 <= len(node.args) <= 2:
            return self._bad(f"{node.name}(x) or {node.name}(x, places)", node)
        code, t = self.expr(node.args[0], env)
        if not is_number(t):
            return self._bad(f"{node.name} needs a number, not {t}", node.args[0])
        code = self.cast(code, t, "num", node.args[0])
        places = 0
        if len(node.args) == 2:
            p = node.args[1]
            if not isinstance(p, s.Number) or "." in p.text:
                return self._bad("the number of decimal places must be written as a whole number",
                                 p)
            places = int(p.text)
        helper = _ROUNDING[node.name]
        if places:
            return f"{helper}({code}, {places})", NUM
        if self._whole_division[0] is node.args[0]:  # `round(a / 4)` of whole numbers
            _, left, right = self._whole_division
            return f"_ratio({left}, {right}, {node.name!r})", INT
        return f"{helper}({code})", INT

    def _formula_call(self, node: s.Call, env: Env) -> tuple[str, T]:
        info = self.scope.formulas[node.name]
        names = [p for p, _ in info.params]
        given: dict[str, tuple[s.Expr, tuple[str, T]]] = {}
        if len(node.args) > len(names):
            return self._bad(f"{node.name} takes {len(names)} argument(s) "
                             f"({', '.join(names)}), not {len(node.args)}", node)
        for pname, arg in zip(names, node.args):
            given[pname] = (arg, self.expr(arg, env))
        for pname, arg in node.named:
            if pname not in names:
                self.scope.unknown(f"argument of {node.name}:", pname, arg.span, names)
                continue
            if pname in given:
                self.scope.error(RuleTypeError, f"{node.name} is given {pname} twice (by "
                                 "position and by name)", arg.span)
                continue
            given[pname] = (arg, self.expr(arg, env))
        codes = []
        defaults = {p.name: p.default for p in info.decl.params if p.default is not None}
        for pname, ptype in info.params:
            if pname not in given and pname in defaults:
                given[pname] = (defaults[pname], self.expr(defaults[pname], {}))
            if pname not in given:
                return self._bad(f"{node.name} needs {pname}", node)
            arg, (code, t) = given[pname]
            if arg is defaults.get(pname) and t.kind == "none":
                codes.append(code)  # left to its `= none` (`called: location = none`)
                continue
            if not accepts(ptype, t):
                self.scope.error(RuleTypeError, f"{node.name}'s {pname} must be {ptype}, not {t}",
                                 arg.span)
            self.check_member(arg, t, ptype)
            self._check_literal_range(node.name, pname, arg, info)
            code, t = self.present(code, t, arg)
            if t.kind == "any" and pname in info.param_refs:
                code = f"_check({info.param_refs[pname]}, {code})"  # known only at run time
            codes.append(code)
        return f"f_{node.name}({', '.join(codes)})", info.result or ANY

    def _check_literal_range(self, formula: str, pname: str, arg: s.Expr, info: Any) -> None:
        """A number written into a call must lie in the parameter's declared range."""
        declared = next((p.type for p in info.decl.params if p.name == pname), None)
        value = _literal_number(arg)
        if not isinstance(declared, s.RangeType) or value is None:
            return
        low, high = number(declared.low), number(declared.high)
        if not low <= value <= high:
            self.scope.error(RangeError, f"{formula}'s {pname} must be from {declared.low} to "
                             f"{declared.high}; {value} is outside", arg.span)

    def visit_Aggregate(self, node: s.Aggregate, env: Env) -> tuple[str, T]:
        if node.name not in AGGREGATES:
            return self._bad(f"only {', '.join(AGGREGATES[:-1])} and {AGGREGATES[-1]} go over "
                             "a collection", node)
        self._aggregates = True
        flat = _flattening(node.collection)
        self._flat_gone_over = node.collection if flat else None
        try:
            coll, var_type = self._gone_over(node, env)
        finally:
            self._flat_gone_over = None
        where = self.scope.span_ref(node.span)
        # Each item costs one, and one more for every formula call its body makes; going over
        # `flatten(m)`, one more for flattening it.
        weight = 1 + flat + sum(self.scope.formula_costs.get(c.name, 1)
                                for c in formula_calls(node.body, self.scope.formulas))
        coll = f"_items({coll}, {where}, {self.items_limit}" + (
            f", {weight})" if weight > 1 else ")")
        inner = dict(env)
        inner[node.var] = (f"v_{node.var}", var_type)
        # `… if c.hp > 0`: only the items the condition holds for (each is still counted).
        only = f" if {self.condition(node.where, inner)[0]}" if node.where is not None else ""
        each = f"for v_{node.var} in {coll}{only}"
        if node.name in ("max", "min", "sum"):
            body, bt = self.expr(node.body, inner)
            if not is_number(bt):
                return self._bad(f"{node.name} needs numbers, not {bt}", node.body)
            body = self.cast(body, bt, "num", node.body)
            bt = bt.sure()
            comprehension = f"[{body} {each}]"
            result = INT if bt.kind in ("int", "nothing") else NUM
            return f"_aggregate({node.name}, {comprehension}, {where})", result
        if node.name == "list":  # [c.name for c in order]
            body, bt = self.expr(node.body, inner)
            return f"tuple([{body} {each}])", T("list", item=bt)
        if node.name == "group":  # group(c.side for c in party): side -> the parties on it
            return self.grouped(node, inner, each, var_type)
        if node.name == "count" and node.where is not None:  # count(c for c in party if …)
            self.expr(node.body, inner)
            return f"sum(1 {each})", INT
        if node.name in ("any", "all", "count"):
            body, _ = self.condition(node.body, inner)
            if node.name == "count":
                return f"sum(1 {each} if {body})", INT
            return f"{node.name}([{body} {each}])", BOOL
        key = self._order_key(node.body, inner)
        pairs = f"[({key}, v_{node.var}) {each}]"
        if node.name in ("argmin", "argmax"):
            return f"_best({pairs}, {node.name == 'argmin'}, {where})", var_type
        return f"_sort({pairs}, {node.name == 'sort_descending'})", T("list", item=var_type)

    def _gone_over(self, node: s.Aggregate, env: Env) -> tuple[str, T]:
        """What an aggregate goes over; a range one number at a time, never made a list."""
        if isinstance(node.collection, s.RangeExpr):
            ends = self._range_ends(node.collection, env)
            if ends is None:
                return "()", ANY
            return f"_numbers({ends}, {self.scope.limits.key_span})", INT
        return self.collection(node.collection, env,
                               f"{node.name}(… for {node.var} in …) goes over")

    def _order_key(self, node: s.Expr, env: Env) -> str:
        """What argmin, argmax and sort compare: a number, or a list of numbers compared item
        by item (`[c.initiative, c.dexterity]`: dexterity breaks ties)."""
        items = node.items if isinstance(node, s.ListLit) else (node,)
        codes = []
        for item in items:
            code, t = self.expr(item, env)
            if not is_number(t):
                self._bad(f"this orders by numbers (or a list of numbers, [a, b]), not by {t}",
                          item)
            codes.append(self.cast(code, t, "num", item))
        if isinstance(node, s.ListLit):
            return "(" + "".join(code + ", " for code in codes) + ")"
        return codes[0]


@attrs.frozen
class _Lookup:
    """A table lookup being compiled: the table's global, its keys' Python, the given figures'
    Python (None when it names none), and the row when its keys are written out."""

    table: str
    args: tuple[str, ...]
    info: TableInfo
    givens: str | None
    row: Any

    def plain(self) -> str:
        return f"{self.table}.get({', '.join(self.args)})"

    def keys(self) -> str:
        return "(" + "".join(arg + ", " for arg in self.args) + ")"


def _cell_of(row: Any, field: str) -> Any:
    """One field of a row found when compiling (_UNKNOWN when the row is not known)."""
    return row._data.get(field, _UNKNOWN) if isinstance(row, Record) else _UNKNOWN


def _literal_number(node: s.Expr) -> Any:
    if isinstance(node, s.Number):
        return number(node.text)
    if isinstance(node, s.Unary) and node.op == "-" and isinstance(node.operand, s.Number):
        return -number(node.operand.text)
    return None


__all__ = ["BUILTINS", "Emitter", "Env", "UnknownNameError", "snake"]


def _computed_terms(node: Any) -> int:
    """The terms of a sum (`a + b - 2`) that are not written numbers: with two or more it may
    double what it is given, so its result's digits are checked (once, at the whole sum: a
    sum inside it grows it by a digit at most for each level it nests)."""
    if isinstance(node, s.Binary) and node.op in ("+", "-"):
        return _computed_terms(node.left) + _computed_terms(node.right)
    return 0 if isinstance(node, s.Number) else 1


def _parties_may_meet(a: T, b: T) -> bool:
    """`p == knight` where p is "a rider or horse": true when p is the rider knight."""
    a, b = a.sure(), b.sure()
    return a.kind == b.kind == "combatant" and bool(
        set((a.ref or "").split(UNION)) & set((b.ref or "").split(UNION)))


def _flattening(collection: s.Expr) -> bool:
    """Whether an aggregate goes over `flatten(m)`: the items are spent once, by the aggregate
    (one more each), and the list is made without a budget of its own (`_flattened`)."""
    return isinstance(collection, s.Call) and collection.name == "flatten" and \
        len(collection.args) == 1 and not collection.named
