"""The syntax tree: frozen nodes, one per grammar rule, each with its source span.

This module holds what an expression is made of (expressions and types) and the declarations an
expression names: tables, formulas with their parameters, combatant models. The rest of a rule
file (a table's keys, rows and options, a model's fields, the file's header, enums, notations,
procedures and their steps, policies, house rules, quick references, the file itself) is in
syntax_file.py, read through this module all the same (`s.LetStep`): only the compiler reads
those nodes, and `rulecraft eval` with a kept rulebook (compiler/kept.py) never builds their
classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

import attrs

from rulecraft.runtime.errors import Span

# ---- expressions -------------------------------------------------------------------------


@attrs.frozen
class Number:  # number
    text: str
    span: Span


@attrs.frozen
class String:  # string
    value: str
    span: Span


@attrs.frozen
class DiceLit:  # dice
    text: str
    span: Span


@attrs.frozen
class Constant:  # true / false / none
    value: Any
    span: Span


@attrs.frozen
class Name:  # name
    name: str
    span: Span


@attrs.frozen
class ListLit:  # list_
    items: tuple[Expr, ...]
    span: Span


@attrs.frozen
class Unary:  # neg, not_
    op: str
    operand: Expr
    span: Span


@attrs.frozen
class Binary:  # binop, mod_, compare, and_, or_, member_of, not_member_of
    op: str
    left: Expr
    right: Expr
    span: Span


@attrs.frozen
class Conditional:  # conditional
    test: Expr
    then: Expr
    otherwise: Expr
    span: Span


@attrs.frozen
class Attr:  # attr
    value: Expr
    name: str
    span: Span


@attrs.frozen
class Index:  # index: t[k1, k2], or t[k, walk = 6] with a table's given figures
    value: Expr
    keys: tuple[Expr, ...]
    span: Span
    given: tuple[tuple[str, Expr], ...] = ()


@attrs.frozen
class Call:  # call
    name: str
    args: tuple[Expr, ...]
    named: tuple[tuple[str, Expr], ...]
    span: Span


@attrs.frozen
class Aggregate:  # aggregate: max(expr for x in collection), also argmin, argmax, sort, …
    name: str
    body: Expr
    var: str
    collection: Expr
    span: Span
    where: Expr | None = None  # `… if c.hp > 0`: only the items it holds for


@attrs.frozen
class RangeExpr:  # range_expr: 1..6, the whole numbers from low to high
    low: Expr
    high: Expr
    span: Span


@attrs.frozen
class Placed:  # placed: `offsets from at facing f`, hexes drawn for facing 0 put down, turned
    offsets: Expr
    at: Expr
    facing: Expr
    span: Span


Expr = Union[Number, String, DiceLit, Constant, Name, ListLit, Unary, Binary, Conditional, Attr,
             Index, Call, Aggregate, RangeExpr, Placed]

# ---- types -------------------------------------------------------------------------------


@attrs.frozen
class RangeType:  # type_range / key_range: 1..20
    low: str
    high: str
    span: Span


@attrs.frozen
class NamedType:  # type_named / key_named / key_integer / key_number
    name: str
    span: Span


@attrs.frozen
class MapType:  # type_map
    key: TypeExpr
    item: TypeExpr
    span: Span


@attrs.frozen
class ListType:  # type_list
    item: TypeExpr
    span: Span


TypeExpr = Union[RangeType, NamedType, MapType, ListType]

# ---- the declarations an expression names ------------------------------------------------


@attrs.frozen
class TableDecl:  # table_decl
    name: str
    title: str | None
    keys: tuple[KeySpec, ...]
    cell_type: tuple[str, ...] | str | None  # an enum/type name, a record's fields, or None
    given: tuple[str, ...]
    rows: tuple[RowLine, ...]
    options: tuple[TableOption, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class Param:  # param
    name: str
    type: TypeExpr | None
    default: Expr | None
    span: Span


@attrs.frozen
class Local:  # local_name: `x = a + 1` after a formula's `where`
    name: str
    value: Expr
    span: Span


@attrs.frozen
class FormulaDecl:  # formula_decl
    name: str
    params: tuple[Param, ...]
    title: str | None
    body: Expr
    span: Span
    comments: tuple[str, ...] = ()
    where: tuple[Local, ...] = ()  # its local names, in the order written


@attrs.frozen
class CombatantDecl:  # combatant_decl
    name: str
    title: str | None
    fields: tuple[FieldDecl, ...]
    span: Span
    comments: tuple[str, ...] = ()


# ---- the rest of a rule file: syntax_file.py, imported when first read -------------------

if TYPE_CHECKING:
    from .syntax_file import (AmendDecl, Assign, Branch, CallStep, ChangeStep, ChooseStep,
                              ConditionStep, Declaration, EncounterLoop, EnumDecl, Every,
                              ExtendsDecl, FieldDecl, FieldEdit, File, ForStep, IfStep, KeySpec,
                              LetStep, Member, Meta, NamedStep, NotationDecl, NotationMark,
                              OutcomeSpec, OutcomeStep, PolicyDecl, PolicyLine, ProcedureDecl,
                              ReferenceDecl, ReferenceLine, RemoveDecl, RepeatStep, ReplaceDecl,
                              RollStep, RowLine, RulebookDecl, ScheduleStep, Step, StepEdit,
                              StepRef, TableEdit, TableOption, Target, all_steps, blocks)
    from .syntax_file import CancelStep, EventStep, RaiseStep, TriggerStep
    from .syntax_file import ORDINALS, OutcomeEdit, ParamEdit
    from .syntax_file import RevealStep, RulingStep, StandingDecl
    from .syntax_file import (CalendarDecl, RoundDelayStep, TimeUnit, TurnsStep, UnitDef)
    from .syntax_space import PatternDecl, UnitDecl
    from .syntax_examples import ExampleDecl, ExpectStep
    from .syntax_sheets import SheetDecl, SheetItem, SheetLine


def __getattr__(name: str) -> Any:
    """A node of syntax_file.py (PEP 562: called for a name this module does not hold)."""
    import importlib

    for module_name in ("syntax_file", "syntax_space", "syntax_examples", "syntax_sheets"):
        module = importlib.import_module(f"{__package__}.{module_name}")
        if name in module.__all__:
            # Its names become this module's own: read from now on without this call.
            globals().update((n, getattr(module, n)) for n in module.__all__)
            return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
