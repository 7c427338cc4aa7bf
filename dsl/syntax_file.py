"""The syntax tree, continued: the rest of a rule file — the parts of a table's and a combatant
model's declarations an expression never reads, the file's header, enums and notations,
procedures and their steps, policies, house rules over a base, quick references, and the file.

Only the compiler reads these nodes; they are apart from syntax.py so that `rulecraft eval`,
which reads an expression against a kept rulebook (compiler/kept.py), never builds their
classes. Code reads them through syntax.py like every other node (`s.LetStep`).
"""

from __future__ import annotations

from typing import Any, Union

import attrs

from rulecraft.runtime.errors import Span

from .syntax import CombatantDecl, Expr, FormulaDecl, Param, TableDecl, TypeExpr

# ---- a table's keys, rows and options, a combatant model's fields ------------------------


@attrs.frozen
class KeySpec:  # key_spec
    name: str
    type: TypeExpr | None
    in_cells: bool
    span: Span


@attrs.frozen
class RowLine:  # row: the raw `| a | b |` text
    text: str
    span: Span
    comments: tuple[str, ...] = ()

    @property
    def closed(self) -> bool:
        return self.text.endswith("|") and len(self.text) > 1

    @property
    def is_rule(self) -> bool:
        """A dashed rule under the header (`|---|---|`) or a row of nothing: not a row."""
        return set(self.text.replace("|", "").strip()) <= set("-: ")

    def cells(self) -> list[tuple[str, int]]:
        """Each cell's text, stripped, with its offset from the opening bar."""
        text = self.text if self.closed else self.text + "|"
        out: list[tuple[str, int]] = []
        start = 1
        for part in text[1:-1].split("|"):
            out.append((part.strip(), start + len(part) - len(part.lstrip())))
            start += len(part) + 1
        return out


@attrs.frozen
class TableOption:  # table_option
    name: str
    value: str
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class FieldDecl:  # characteristic / derived / state
    role: str
    name: str
    type: TypeExpr | None
    value: Expr | None
    combined_by: str | None
    span: Span
    comments: tuple[str, ...] = ()
    clamped: bool = False  # a state held to its range by `set`/`add`, not refused outside it


# ---- a file's header, enums and notations ------------------------------------------------


@attrs.frozen
class Meta:  # meta
    key: str
    value: str
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class RulebookDecl:  # rulebook_decl
    name: str
    title: str | None
    meta: tuple[Meta, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class Member:  # member
    name: str
    span: Span


@attrs.frozen
class EnumDecl:  # enum_decl
    name: str
    title: str | None
    members: tuple[Member, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class NotationMark:  # notation_mark / notation_bare: `"*" adds 2d6`, `none adds 2d4`
    mark: str  # "" for `none`: a number printed with no mark
    dice: str
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class NotationDecl:  # notation_decl
    name: str
    title: str | None
    marks: tuple[NotationMark, ...]
    span: Span
    comments: tuple[str, ...] = ()


# ---- procedures, their steps and policies ------------------------------------------------


@attrs.frozen
class Target:  # target: party.field[index]...
    party: str
    field: str
    index: tuple[Expr, ...]
    span: Span


@attrs.frozen
class RollStep:  # roll_step
    name: str
    dice: Expr
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class LetStep:  # let_step
    name: str
    value: Expr
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class ChooseStep:  # choose_step
    name: str
    party: str
    options: Expr
    default: Expr
    span: Span
    comments: tuple[str, ...] = ()
    secret: bool = False  # `in secret`: hidden from other parties' choices until revealed
    seeing: tuple[str, ...] | None = None  # `seeing a, b`: all a policy answering it may read


@attrs.frozen
class RevealStep:  # reveal_step: reveal NAME, …  (secret choices made known)
    names: tuple[str, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class RulingStep:  # ruling_step: ruling "…"  (the referee's call; the steps go on)
    text: str
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class Branch:  # the `if`/`else if` arm of if_step and else_if
    test: Expr
    body: tuple[Step, ...]
    span: Span
    comments: tuple[str, ...] = ()  # above an `else if` line


@attrs.frozen
class IfStep:  # if_step
    branches: tuple[Branch, ...]
    otherwise: tuple[Step, ...] | None
    span: Span
    comments: tuple[str, ...] = ()
    otherwise_comments: tuple[str, ...] = ()  # above the `else:` line
    otherwise_span: Span | None = None  # the `else:` line


@attrs.frozen
class ChangeStep:  # set_step / add_step / remove_step
    mode: str  # "set", "add" or "remove" (its value is the key taken out)
    target: Target
    value: Expr
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class Assign:  # assign
    name: str
    value: Expr
    span: Span


@attrs.frozen
class OutcomeStep:  # outcome_step, outcome_ruling
    name: str
    title: str | None
    values: tuple[Assign, ...]
    span: Span
    comments: tuple[str, ...] = ()
    ruling: str | None = None  # `outcome by referee "…"`: the procedure ends in the referee's call


@attrs.frozen
class CallStep:  # call_step: call save = saving_throw(defender, "Willpower")
    name: str
    procedure: str
    args: tuple[Expr, ...]
    named: tuple[tuple[str, Expr], ...]
    span: Span
    comments: tuple[str, ...] = ()
    choosing: tuple[Assign, ...] = ()  # `choosing manner = "Split attack"`: the callee's choices


@attrs.frozen
class ForStep:  # for_step: for each x in collection:
    var: str
    collection: Expr
    body: tuple[Step, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class RepeatStep:  # repeat_step: repeat until cond, at most N times: … [at the cap: …]
    until: Expr
    cap: Expr
    body: tuple[Step, ...]
    at_cap: tuple[Step, ...] | None
    span: Span
    comments: tuple[str, ...] = ()
    at_cap_comments: tuple[str, ...] = ()  # above the `at the cap:` line
    at_cap_span: Span | None = None


Step = Union[RollStep, LetStep, ChooseStep, IfStep, ChangeStep, OutcomeStep, CallStep, ForStep,
             RepeatStep, RulingStep, RevealStep]


@attrs.frozen
class OutcomeSpec:  # outcome_one / outcome_all in a procedure's `outcomes:` block
    name: str | None  # None for `all with …`: the values every outcome carries
    title: str | None
    fields: tuple[str, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class ProcedureDecl:  # procedure_decl
    name: str
    title: str | None
    params: tuple[Param, ...]
    steps: tuple[Step, ...]
    span: Span
    comments: tuple[str, ...] = ()
    outcomes: tuple[OutcomeSpec, ...] = ()  # as declared; empty: known from the outcome steps
    clock: tuple[str, str | None] | None = None  # an encounter's clock: unit name and title
    clock_units: tuple[UnitDef, ...] = ()  # the clock's longer units: `minute = 240`
    # An encounter's `sides:` line: the fighter parameters of each side (empty: one a side).
    sides: tuple[tuple[str, ...], ...] = ()
    sides_span: Span | None = None
    side_spans: tuple[Span, ...] = ()  # each name of the `sides:` line, in order


@attrs.frozen
class ScheduleStep:  # schedule_step: act PARTY at/after T, delay PARTY by T, stop PARTY
    mode: str  # "at", "after", "delay", "lengthen", "stop"
    party: str
    value: Expr | None
    span: Span
    comments: tuple[str, ...] = ()
    label: Expr | None = None  # `act f after 8 as "Walk"`: what the action is, read by action(f)
    lane: str | None = None  # `… on lane move`: a second thing under way, beside the main one
    unit: TimeUnit | None = None  # `act f after 2 seconds`: the time's unit, as written


@attrs.frozen
class ConditionStep:  # give PARTY CONDITION [for T] / end PARTY CONDITION
    mode: str  # "give" or "end"
    party: str
    condition: Expr  # a condition's name: a member of an enum, usually `condition`
    duration: Expr | None  # how long, in the clock's unit; None: until ended
    span: Span
    comments: tuple[str, ...] = ()
    unit: TimeUnit | None = None  # `for 1 minute`: the duration's unit, as written
    location: Expr | None = None  # `give f "Shock" on "Head"`: held at one location


@attrs.frozen
class EncounterLoop:  # turn_loop / round_loop: the body of a fight, until it ends
    kind: str  # "turn" (the earliest action completes) or "round"
    var: str  # the party whose turn it is, or "round" (the round's number)
    body: tuple[Any, ...]
    ends: Expr
    cap: Expr | None  # None: `no cap`, the fight goes on until it ends
    unit: str  # what the cap counts, as written ("turns", "rounds"); "" with no cap
    span: Span
    comments: tuple[str, ...] = ()
    every: Every | None = None  # steps run on the clock itself, every so often
    ticks: tuple[Every, ...] = ()  # further `every` blocks, in the order written
    afterwards: tuple[Any, ...] = ()  # `afterwards:` steps run once the loop has ended
    afterwards_comments: tuple[str, ...] = ()


@attrs.frozen
class Every:  # every_block: `every 20 tenths:` and its steps
    period: Expr
    unit: str  # as written: the clock's unit ("tenths", "rounds")
    body: tuple[Any, ...]
    span: Span
    comments: tuple[str, ...] = ()
    unit_span: Span | None = None  # where the unit is written
    order: str | None = None  # "before" or "after" the turns due at the same time; None: before


@attrs.frozen
class TimeUnit:  # the NAME after a duration: `2 seconds`, `1 minute`
    name: str
    span: Span


@attrs.frozen
class UnitDef:  # unit_def: `minute = 240`, `turn = 10 minutes` (a clock's or calendar's unit)
    name: str
    amount: Expr
    of: TimeUnit | None  # the unit the amount is in; None: the clock's (or calendar's) own
    span: Span


@attrs.frozen
class CalendarDecl:  # calendar_decl: `calendar days "days": week = 7`, time across fights
    name: str
    title: str | None
    units: tuple[UnitDef, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class TurnsStep:  # turns_step: `take turns c in ORDER:` a round's order, which may change
    var: str
    order: Expr
    body: tuple[Any, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class RoundDelayStep:  # delay_until_after / delay_to_end / ready_when: within a round's order
    mode: str  # "after" (another party), "end" (of the round), "ready" (until a condition holds)
    party: str
    other: str | None  # `delay c until after d`: d
    condition: Expr | None  # `ready c when COND`
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class NamedStep:  # named_step: `step NAME:` and its steps, a place a house rule can name
    name: str
    body: tuple[Step, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class EventStep:  # event_step: `after T as NAME [for PARTY]:` an event on the encounter's clock
    after: Expr  # how long from now
    name: str
    party: str | None  # the party whose action it is part of: cancelled with it
    body: tuple[Any, ...]
    span: Span
    comments: tuple[str, ...] = ()
    unit: TimeUnit | None = None  # `after 1 second as arrow:`: the time's unit, as written


@attrs.frozen
class CancelStep:  # cancel_step: `cancel NAME` (an event) or `cancel PARTY` (what it has under way)
    target: str
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class RaiseStep:  # raise_step: `raise "Parried" for defender`, an event rules may fire on
    event: str
    party: str
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class TriggerStep:  # trigger_step: `on EVENT by NAME:` steps run when a party's event happens
    kind: str  # "changed" (a state field), "given" (a condition), "raised" (by a step)
    what: Any  # the field's name, the condition (an expression, or None: any), the event's name
    party: str  # the name the party whose event it is takes in the steps
    body: tuple[Any, ...]
    span: Span
    comments: tuple[str, ...] = ()


def blocks(step: Any) -> list[tuple[Any, ...]]:
    """The blocks of steps nested in a step (an `if`'s branches, a loop's body, a named step)."""
    if isinstance(step, IfStep):
        return [b.body for b in step.branches] + ([step.otherwise] if step.otherwise else [])
    if isinstance(step, EncounterLoop):
        return ([step.body] + ([step.every.body] if step.every else [])
                + [e.body for e in step.ticks] + ([step.afterwards] if step.afterwards else []))
    if isinstance(step, TurnsStep):
        return [step.body]
    if isinstance(step, (ForStep, NamedStep, EventStep, TriggerStep)):
        return [step.body]
    if isinstance(step, RepeatStep):
        return [step.body] + ([step.at_cap] if step.at_cap else [])
    return []


@attrs.frozen
class PolicyLine:  # policy_line: a choice's answer under this policy
    choice: str
    value: Expr
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class StandingDecl:  # standing_only / standing_not: while "Stunned", defence may only be "Parry"
    mode: str  # "only" (the options left are these) or "not" (these are taken away)
    condition: str  # a condition the choosing party is under
    choice: str  # the `choose` it constrains, in any procedure
    options: Expr  # an option or a list of options
    span: Span
    comments: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """What names the rule among the declarations (no rule name can hold a space)."""
        return f"while {self.condition!r}, {self.choice}"


@attrs.frozen
class PolicyDecl:  # policy_decl
    name: str
    title: str | None
    lines: tuple[PolicyLine, ...]
    span: Span
    comments: tuple[str, ...] = ()


def all_steps(steps: tuple[Any, ...]) -> list[Any]:
    """Every step, those nested in blocks included, in the order written."""
    found: list[Any] = []
    for step in steps:
        found.append(step)
        for block in blocks(step):
            found += all_steps(block)
    return found


# ---- house rules over a base ---------------------------------------------------------------


@attrs.frozen
class ExtendsDecl:  # extends_decl: the base, a built-in name or a path
    base: str
    span: Span
    comments: tuple[str, ...] = ()
    name: str = ""  # declarations are addressed by name; a base is not one


@attrs.frozen
class ReplaceDecl:  # replace_decl: a whole rule of the base, written anew
    decl: Any
    span: Span
    comments: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return str(self.decl.name)


@attrs.frozen
class RemoveDecl:  # remove_decl
    kind: str  # "table", "formula", "procedure", "enum", "combatant"
    name: str
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class TableEdit:  # table_edit: a row added or replaced, removed; a cell; a column added, removed
    op: str  # "row", "remove_row", "cell", "add_column", "remove_column"
    row: RowLine
    span: Span
    comments: tuple[str, ...] = ()


# The words that pick one of the steps binding a name, in the order they are written.
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth")


@attrs.frozen
class StepRef:  # step_ref: `step NAME`, or the step binding NAME (`let excess`)
    kind: str  # "step", "roll", "let", "choose", "call"
    name: str
    span: Span
    nth: str | None = None  # `let excess (second)`: "second" (or "last"); None: the only one

    def __str__(self) -> str:
        return f"{self.kind} {self.name}" + (f" ({self.nth})" if self.nth else "")

    @property
    def place(self) -> str:
        """The step without its ordinal: `let excess`."""
        return f"{self.kind} {self.name}"


@attrs.frozen
class ParamEdit:  # edit_add_param / edit_replace_param: a base procedure's parameter
    op: str  # "add", "replace"
    param: Any  # Param
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class OutcomeEdit:  # edit_add_outcome / edit_add_values / edit_add_values_all
    op: str  # "add" (a new outcome), "values" (values added to an outcome, or to all)
    name: str | None  # the outcome; None: all of them (`all with`)
    title: str | None
    fields: tuple[str, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class StepEdit:  # step_edit
    op: str  # "replace", "insert_before", "insert_after", "remove"
    ref: StepRef
    steps: tuple[Any, ...]
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class FieldEdit:  # field_edit
    op: str  # "add", "replace", "remove"
    name: str
    field: Any  # FieldDecl, or None to remove
    span: Span
    comments: tuple[str, ...] = ()


@attrs.frozen
class AmendDecl:  # amend_table / amend_procedure / amend_enum / amend_combatant
    kind: str  # "table", "procedure", "enum", "combatant"
    name: str
    edits: tuple[Any, ...]  # TableEdit, StepEdit, Member or FieldEdit
    span: Span
    comments: tuple[str, ...] = ()


# ---- quick-reference tables for sheets -------------------------------------------------------


@attrs.frozen
class ReferenceLine:  # reference_each / _rows / _columns / _let / _roll / _cell / _column
    kind: str  # "each", "rows", "columns", "let", "roll", "cell", "column"
    name: str | None  # the name it binds (each, rows, columns, let, roll), a column's label
    value: Expr  # the collection, the value, the dice or the cell
    span: Span
    step: Expr | None = None  # rows/columns: `by N`, every Nth value
    chance: bool = False  # cell/column: the probability, over the rolls, that it holds
    comments: tuple[str, ...] = ()


@attrs.frozen
class ReferenceDecl:  # reference_decl: a quick-reference table the engine works out for sheets
    name: str
    title: str | None
    lines: tuple[ReferenceLine, ...]
    span: Span
    comments: tuple[str, ...] = ()


# ---- the file ----------------------------------------------------------------------------

Declaration = Union[RulebookDecl, EnumDecl, TableDecl, FormulaDecl, CombatantDecl, ProcedureDecl,
                    NotationDecl, ExtendsDecl, ReplaceDecl, RemoveDecl, AmendDecl, ReferenceDecl,
                    CalendarDecl]


@attrs.frozen
class File:  # start
    filename: str
    source: str
    declarations: tuple[Declaration, ...]
    trailing_comments: tuple[str, ...] = ()


__all__ = [
    "KeySpec", "RowLine", "TableOption", "FieldDecl",
    "Meta", "RulebookDecl", "Member", "EnumDecl", "NotationMark", "NotationDecl", "Target",
    "RollStep", "LetStep", "ChooseStep", "Branch", "IfStep", "ChangeStep", "Assign", "OutcomeStep",
    "CallStep", "ForStep", "RepeatStep", "Step", "OutcomeSpec", "ProcedureDecl", "ScheduleStep",
    "ConditionStep", "EncounterLoop", "Every", "NamedStep", "blocks", "PolicyLine", "PolicyDecl",
    "RulingStep", "RevealStep", "StandingDecl",
    "all_steps", "ExtendsDecl", "ReplaceDecl", "RemoveDecl", "TableEdit", "StepRef", "StepEdit",
    "FieldEdit", "AmendDecl", "ReferenceLine", "ReferenceDecl", "Declaration", "File",
    "ORDINALS", "ParamEdit", "OutcomeEdit",
    "TimeUnit", "UnitDef", "CalendarDecl", "TurnsStep", "RoundDelayStep",
]
__all__ += ["EventStep", "CancelStep", "RaiseStep", "TriggerStep"]
