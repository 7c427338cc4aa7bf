"""Parse rule text into the syntax tree, turning Lark's errors into caret messages."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

import attrs
from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedInput
from lark.indenter import DedentError, Indenter
from lark.visitors import Transformer_NonRecursive

from rulecraft.runtime.errors import RuleSyntaxError, Span
from rulecraft.runtime.limits import DEFAULT_LIMITS, Limits

from . import cached, reduced, syntax as s
from .checks import Place, check_size, check_tree
from .comments import CommentPool, strip_comments
from .errors import syntax_error
from .parser_sheets import SheetRules


class IndentMismatch(Exception):
    """A line dedented to a depth no enclosing block has (raised while lexing)."""

    def __init__(self, line: int, column: int, levels: list[int]) -> None:
        super().__init__(line, column)
        self.line, self.column, self.levels = line, column, levels


class RuleIndenter(Indenter):
    """Blocks by indentation, as in the book's nested lists; newlines inside brackets are joined."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 4

    def handle_NL(self, token: Token) -> Any:
        levels = list(self.indent_level)
        try:
            yield from super().handle_NL(token)
        except DedentError:
            raise IndentMismatch(token.end_line or 1, token.end_column or 1, levels) from None


_GRAMMAR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "grammar.lark")
_OPTIONS: dict[str, Any] = dict(parser="lalr", propagate_positions=True, maybe_placeholders=True,
                                start=["start", "expr"])


@lru_cache(maxsize=1)
def _lark() -> Lark:
    # Its tables kept on disk: building them takes longest.
    return cached.parser(_GRAMMAR, postlex=RuleIndenter(), **_OPTIONS)


@lru_cache(maxsize=1)
def _expression_lark() -> Lark:
    """The parser for expressions alone (`rulecraft eval`, a table's `= …` cells): the whole
    grammar's tables cut to the states an expression reaches, quick to load."""
    return cached.start_parser(_GRAMMAR, "expr", _lark, postlex=RuleIndenter(), **_OPTIONS)


def parse(source: str, filename: str = "<rules>", limits: Limits = DEFAULT_LIMITS) -> s.File:
    """Parse a whole rule file. Raises RuleSyntaxError with file, line, column and caret.
    A rule file `rulecraft.load` reads is kept on disk, read (dsl/cached.py)."""
    return cached.tree(source, filename, limits, lambda: _parse(source, filename, limits),
                       s.File)


def _parse(source: str, filename: str, limits: Limits) -> s.File:
    place = Place(filename)
    check_size(source, place, source, limits, "rule file")
    text, comments = strip_comments(source)
    if not text.endswith("\n"):
        text += "\n"
    try:
        builder = _Builder(place, CommentPool(comments))
        declarations = reduced.parse(_lark(), builder, text, "start", limits)
    except reduced.Unusual:
        builder, declarations = _parse_in_full(text, source, place, comments, limits)
    declarations, rest = _adopt(declarations, builder.pool.left())
    return s.File(filename, source, tuple(declarations), rest)


def _parse_in_full(text: str, source: str, place: Place, comments: list[Any],
                   limits: Limits) -> tuple["_Builder", list[Any]]:
    """The file parsed to Lark's tree, checked, then built: the path that reports whatever
    dsl/reduced.py finds unusual (a syntax error, a bad name or number, too deep a nesting)."""
    tree = _parse_tree(text, source, place.filename, "start")
    check_tree(tree, place, source, limits)
    builder = _Builder(place, CommentPool(comments))
    return builder, builder.transform(tree)


def _adopt(declarations: list[Any], left: list[tuple[int, str]]) -> tuple[list[Any], tuple[str, ...]]:
    """Give each unclaimed comment (one inside a bracketed continuation line, say) to the
    declaration whose lines hold it; those after the last declaration stay with the file."""
    out = list(declarations)
    rest: list[str] = []
    for line, text in left:
        owner = next((i for i, d in enumerate(out) if d.span.line <= line < d.span.end_line), None)
        if owner is None:
            rest.append(text)
        else:
            out[owner] = attrs.evolve(out[owner], comments=out[owner].comments + (text,))
    return out, tuple(rest)


def parse_expression(text: str, filename: str = "<expression>", line: int = 1,
                     column: int = 1, source: str | None = None,
                     limits: Limits = DEFAULT_LIMITS, position: int = 0) -> s.Expr:
    """Parse one expression (a table's `= …` cell, or `rulecraft eval`), offset to where it sits:
    `position` is where it starts in `source`, so its spans slice the rule text it came from.
    One parsed from a rule file `rulecraft.load` reads is kept with its tree (dsl/cached.py)."""
    return cached.expression(
        filename, source, (text, line, column, position, limits),
        lambda: _parse_expression(text, filename, line, column, source, limits, position))


def _parse_expression(text: str, filename: str, line: int, column: int, source: str | None,
                      limits: Limits, position: int) -> s.Expr:
    place = Place(filename, line - 1, column - 1, position)
    shown = source if source is not None else text
    check_size(text, place, shown, limits, "expression")
    tree = _parse_tree(text, shown, filename, "expr", line - 1, column - 1)
    check_tree(tree, place, shown, limits)
    result: s.Expr = _Builder(place, CommentPool([])).transform(tree)
    return result


def _parse_tree(text: str, source: str, filename: str, start: str,
                line_offset: int = 0, column_offset: int = 0) -> Any:
    parser = _expression_lark() if start == "expr" else _lark()
    try:
        return parser.parse(text, start=start)
    except UnexpectedInput as err:
        raise syntax_error(parser, err, text, source, filename, line_offset,
                           column_offset, start) from None
    except IndentMismatch as err:
        depths = " or ".join(str(level) for level in sorted(set(err.levels)))
        raise RuleSyntaxError("this line's indentation matches no block above it: indent it by "
                              f"{depths} spaces, like the lines it belongs with",
                              Span(filename, err.line + line_offset, err.column), source) from None


def ruling_outcome(text: str) -> str:
    """The name of the outcome a procedure ends in when it ends in the referee's call: what
    odds count it under, so a path reaching it is the referee's, not a guess."""
    return f"referee's call: {text}"


def _unquote(token: Token | None) -> str | None:
    return None if token is None else str(token)[1:-1]


@v_args(meta=True)
class _Builder(SheetRules, Transformer_NonRecursive):
    """Turn Lark's parse tree into syntax nodes; methods are named after grammar rules.
    Non-recursive: check_tree has bounded the nesting, but the stack is not the place to pay it."""

    def __init__(self, place: Place, pool: CommentPool) -> None:
        super().__init__()
        self.place = place
        self.pool = pool
        self._span = place.of_meta
        self._tspan = place.of_token

    def _claim(self, span: Span) -> tuple[str, ...]:
        return self.pool.claim(span.line - self.place.line_offset)

    # -- file and declarations -----------------------------------------------------------------
    def start(self, meta: Any, children: list[Any]) -> list[Any]:
        return [c for c in children if c is not None]

    def rulebook_decl(self, meta: Any, c: list[Any]) -> s.RulebookDecl:
        span = self._span(meta)
        metas = tuple(x for x in c[2:] if isinstance(x, s.Meta))
        return s.RulebookDecl(str(c[0]), _unquote(c[1]), metas, span, self._claim(span))

    def meta(self, meta: Any, c: list[Any]) -> s.Meta:
        span = self._span(meta)
        return s.Meta(str(c[0]), _unquote(c[1]) or "", span, self._claim(span))

    def enum_decl(self, meta: Any, c: list[Any]) -> s.EnumDecl:
        span = self._span(meta)
        return s.EnumDecl(str(c[0]), _unquote(c[1]), tuple(c[2:]), span, self._claim(span))

    def member(self, meta: Any, c: list[Any]) -> s.Member:
        tok = c[0]
        text = str(tok)[1:-1] if tok.type == "STRING" else str(tok)
        return s.Member(text, self._tspan(tok))

    def table_decl(self, meta: Any, c: list[Any]) -> s.TableDecl:
        span = self._span(meta)
        name, title = str(c[0]), _unquote(c[1])
        keys = tuple(x for x in c[2:] if isinstance(x, s.KeySpec))
        cell_type = next((x for x in c[2:] if isinstance(x, (str, tuple)) and not
                          isinstance(x, Token)), None)
        given = next((x.children for x in c[2:] if getattr(x, "data", None) == "given"), ())
        rows = tuple(x for x in c if isinstance(x, s.RowLine))
        options = tuple(x for x in c if isinstance(x, s.TableOption))
        comments = self._claim(span)
        return s.TableDecl(name, title, keys, cell_type, tuple(given), rows, options, span,
                           comments)

    def key_spec(self, meta: Any, c: list[Any]) -> s.KeySpec:
        return s.KeySpec(str(c[0]), c[1], c[2] is not None, self._span(meta))

    def key_named(self, meta: Any, c: list[Any]) -> s.NamedType:
        return s.NamedType(str(c[0]), self._span(meta))

    def key_integer(self, meta: Any, c: list[Any]) -> s.NamedType:
        return s.NamedType("integer", self._span(meta))

    def key_number(self, meta: Any, c: list[Any]) -> s.NamedType:
        return s.NamedType("number", self._span(meta))

    def key_range(self, meta: Any, c: list[Any]) -> s.RangeType:
        return c[0]

    def cell_named(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def cell_record(self, meta: Any, c: list[Any]) -> tuple[str, ...]:
        return tuple(str(x) for x in c)

    def given(self, meta: Any, c: list[Any]) -> Any:
        from lark import Tree

        return Tree("given", [str(x) for x in c])

    # -- house rules ---------------------------------------------------------------------------
    def extends_decl(self, meta: Any, c: list[Any]) -> s.ExtendsDecl:
        span = self._span(meta)
        tok = c[0]
        base = str(tok)[1:-1] if tok.type == "STRING" else str(tok)
        return s.ExtendsDecl(base, span, self._claim(span))

    def replace_decl(self, meta: Any, c: list[Any]) -> s.ReplaceDecl:
        return s.ReplaceDecl(c[0], self._span(meta))

    def remove_decl(self, meta: Any, c: list[Any]) -> s.RemoveDecl:
        span = self._span(meta)
        return s.RemoveDecl(c[0], str(c[1]), span, self._claim(span))

    def kind_table(self, meta: Any, c: list[Any]) -> str:
        return "table"

    def kind_formula(self, meta: Any, c: list[Any]) -> str:
        return "formula"

    def kind_procedure(self, meta: Any, c: list[Any]) -> str:
        return "procedure"

    def kind_enum(self, meta: Any, c: list[Any]) -> str:
        return "enum"

    def kind_combatant(self, meta: Any, c: list[Any]) -> str:
        return "combatant"

    def kind_reference(self, meta: Any, c: list[Any]) -> str:
        return "reference"

    def _amend(self, kind: str, meta: Any, c: list[Any]) -> s.AmendDecl:
        span = self._span(meta)
        comments = self._claim(span)
        return s.AmendDecl(kind, str(c[0]), tuple(c[1:]), span, comments)

    def amend_table(self, meta: Any, c: list[Any]) -> s.AmendDecl:
        return self._amend("table", meta, c)

    def amend_procedure(self, meta: Any, c: list[Any]) -> s.AmendDecl:
        return self._amend("procedure", meta, c)

    def amend_enum(self, meta: Any, c: list[Any]) -> s.AmendDecl:
        return self._amend("enum", meta, c)

    def amend_combatant(self, meta: Any, c: list[Any]) -> s.AmendDecl:
        return self._amend("combatant", meta, c)

    def _table_edit(self, op: str, meta: Any, c: list[Any]) -> s.TableEdit:
        span = self._span(meta)
        comments = self._claim(span)
        row = s.RowLine(str(c[0]).rstrip(), self._tspan(c[0]))
        return s.TableEdit(op, row, span, comments)

    def edit_row(self, meta: Any, c: list[Any]) -> s.TableEdit:
        return self._table_edit("row", meta, c)

    def edit_remove_row(self, meta: Any, c: list[Any]) -> s.TableEdit:
        return self._table_edit("remove_row", meta, c)

    def edit_cell(self, meta: Any, c: list[Any]) -> s.TableEdit:
        return self._table_edit("cell", meta, c)

    def edit_add_column(self, meta: Any, c: list[Any]) -> s.TableEdit:
        return self._table_edit("add_column", meta, c)

    def edit_remove_column(self, meta: Any, c: list[Any]) -> s.TableEdit:
        return self._table_edit("remove_column", meta, c)

    def _step_edit(self, op: str, meta: Any, c: list[Any]) -> s.StepEdit:
        span = self._span(meta)
        comments = self._claim(span)
        return s.StepEdit(op, c[0], tuple(c[1]) if len(c) > 1 else (), span, comments)

    def edit_replace_step(self, meta: Any, c: list[Any]) -> s.StepEdit:
        return self._step_edit("replace", meta, c)

    def edit_insert_before(self, meta: Any, c: list[Any]) -> s.StepEdit:
        return self._step_edit("insert_before", meta, c)

    def edit_insert_after(self, meta: Any, c: list[Any]) -> s.StepEdit:
        return self._step_edit("insert_after", meta, c)

    def edit_remove_step(self, meta: Any, c: list[Any]) -> s.StepEdit:
        return self._step_edit("remove", meta, c)

    def _ref(self, kind: str, meta: Any, c: list[Any]) -> s.StepRef:
        nth = c[1] if len(c) > 1 else None
        return s.StepRef(kind, str(c[0]), self._span(meta), nth)

    def nth(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])  # a word that is no ordinal is reported where the step is looked for

    def _param_edit(self, op: str, meta: Any, c: list[Any]) -> s.ParamEdit:
        span = self._span(meta)
        return s.ParamEdit(op, c[0], span, self._claim(span))

    def edit_add_param(self, meta: Any, c: list[Any]) -> s.ParamEdit:
        return self._param_edit("add", meta, c)

    def edit_replace_param(self, meta: Any, c: list[Any]) -> s.ParamEdit:
        return self._param_edit("replace", meta, c)

    def edit_add_outcome(self, meta: Any, c: list[Any]) -> s.OutcomeEdit:
        span = self._span(meta)
        fields = tuple(str(x) for x in c[2:] if x is not None)
        return s.OutcomeEdit("add", str(c[0]), _unquote(c[1]), fields, span, self._claim(span))

    def edit_add_values(self, meta: Any, c: list[Any]) -> s.OutcomeEdit:
        span = self._span(meta)
        return s.OutcomeEdit("values", str(c[-1]), None, tuple(str(x) for x in c[:-1]), span,
                             self._claim(span))

    def edit_add_values_all(self, meta: Any, c: list[Any]) -> s.OutcomeEdit:
        span = self._span(meta)
        return s.OutcomeEdit("values", None, None, tuple(str(x) for x in c), span,
                             self._claim(span))

    def ref_step(self, meta: Any, c: list[Any]) -> s.StepRef:
        return self._ref("step", meta, c)

    def ref_roll(self, meta: Any, c: list[Any]) -> s.StepRef:
        return self._ref("roll", meta, c)

    def ref_let(self, meta: Any, c: list[Any]) -> s.StepRef:
        return self._ref("let", meta, c)

    def ref_choose(self, meta: Any, c: list[Any]) -> s.StepRef:
        return self._ref("choose", meta, c)

    def ref_call(self, meta: Any, c: list[Any]) -> s.StepRef:
        return self._ref("call", meta, c)

    def edit_add_field(self, meta: Any, c: list[Any]) -> s.FieldEdit:
        return s.FieldEdit("add", c[0].name, c[0], c[0].span)

    def edit_replace_field(self, meta: Any, c: list[Any]) -> s.FieldEdit:
        return s.FieldEdit("replace", c[0].name, c[0], self._span(meta))

    def edit_remove_field(self, meta: Any, c: list[Any]) -> s.FieldEdit:
        span = self._span(meta)
        return s.FieldEdit("remove", str(c[0]), None, span, self._claim(span))

    # -- policies --------------------------------------------------------------------------------
    def policy_decl(self, meta: Any, c: list[Any]) -> s.PolicyDecl:
        span = self._span(meta)
        comments = self._claim(span)
        return s.PolicyDecl(str(c[0]), _unquote(c[1]), tuple(c[2:]), span, comments)

    def policy_line(self, meta: Any, c: list[Any]) -> s.PolicyLine:
        span = self._span(meta)
        return s.PolicyLine(str(c[0]), c[1], span, self._claim(span))

    # -- encounters ------------------------------------------------------------------------------
    def encounter_decl(self, meta: Any, c: list[Any]) -> s.ProcedureDecl:
        """An encounter is a procedure whose last step is its fight loop."""
        span = self._span(meta)
        comments = self._claim(span)
        name, title, params, clock, sides, outcomes = c[0], c[1], c[2], c[3], c[4], c[5]
        units = clock[2] if len(clock) > 2 else ()
        groups, sides_span = sides or ((), None)
        names = tuple(tuple(str(n) for n in g) for g in groups)
        spans = tuple(self._tspan(n) for g in groups for n in g)
        return s.ProcedureDecl(str(name), _unquote(title), tuple(params or ()), tuple(c[6:]),
                               span, comments, tuple(outcomes or ()), clock[:2],
                               clock_units=units, sides=names, sides_span=sides_span,
                               side_spans=spans)

    def sides_line(self, meta: Any, c: list[Any]) -> tuple[tuple[Any, ...], Any]:
        return tuple(c), self._span(meta)

    def side_group(self, meta: Any, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)  # the names' tokens: each one's place, for mistakes

    def clock_line(self, meta: Any, c: list[Any]) -> tuple[str, str | None] | tuple[Any, ...]:
        if len(c) > 2:  # with units: the encounter_decl splits them off
            return str(c[0]), _unquote(c[1]), tuple(c[2:])
        return str(c[0]), _unquote(c[1])

    def unit_def(self, meta: Any, c: list[Any]) -> s.UnitDef:
        of = None if c[2] is None else s.TimeUnit(str(c[2]), self._tspan(c[2]))
        return s.UnitDef(str(c[0]), s.Number(str(c[1]), self._tspan(c[1])), of, self._span(meta))

    def calendar_decl(self, meta: Any, c: list[Any]) -> s.CalendarDecl:
        span = self._span(meta)
        units = tuple(x for x in c[2:] if isinstance(x, s.UnitDef))
        return s.CalendarDecl(str(c[0]), _unquote(c[1]), units, span, self._claim(span))

    def _loop(self, kind: str, var: str, meta: Any, c: list[Any]) -> s.EncounterLoop:
        span = self._span(meta)
        comments = self._claim(span)
        after, (cap, unit), ends = c[-1], c[-2], c[-3]
        ticks = tuple(x for x in c if isinstance(x, s.Every))
        body = c[1] if kind == "turn" else c[0]
        afterwards, after_comments = after if after is not None else ((), ())
        return s.EncounterLoop(kind, var, body, ends, cap, unit, span, comments,
                               ticks[0] if ticks else None, ticks[1:], afterwards, after_comments)

    def afterwards(self, meta: Any, c: list[Any]) -> tuple[Any, tuple[str, ...]]:
        return c[0], self._claim(self._span(meta))

    def tick_order(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def every_block(self, meta: Any, c: list[Any]) -> s.Every:
        span = self._span(meta)
        order = c[2] if len(c) == 4 else None
        return s.Every(c[0], str(c[1]), c[-1], span, self._claim(span), self._tspan(c[1]), order)

    def turn_loop(self, meta: Any, c: list[Any]) -> s.EncounterLoop:
        return self._loop("turn", str(c[0]), meta, c)

    def round_loop(self, meta: Any, c: list[Any]) -> s.EncounterLoop:
        return self._loop("round", "round", meta, c)

    def ends_line(self, meta: Any, c: list[Any]) -> Any:
        return c[0]

    def ends_one_side(self, meta: Any, c: list[Any]) -> s.Binary:
        """`ends when one side standing`: the fighters still in it are all on one side, read
        as `sides_standing() <= 1` (compiler/sides.py)."""
        span = self._span(meta)
        return s.Binary("<=", s.Call("sides_standing", (), (), span), s.Number("1", span), span)

    def cap_line(self, meta: Any, c: list[Any]) -> tuple[Any, str]:
        return c[0], str(c[1])

    def no_cap(self, meta: Any, c: list[Any]) -> tuple[None, str]:
        """`no cap`: the loop goes on until its `ends when` holds (runs within the work)."""
        return None, ""

    def _schedule(self, mode: str, meta: Any, c: list[Any]) -> s.ScheduleStep:
        span = self._span(meta)
        return s.ScheduleStep(mode, str(c[0]), c[1] if len(c) > 1 else None, span,
                              self._claim(span))

    def act_at(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule("at", meta, c)

    def act_after(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule("after", meta, c)

    def delay_by(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule("delay", meta, c)

    def lengthen_by(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule("lengthen", meta, c)

    def stop_turns(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule("stop", meta, c)

    def aim_at(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule("aim", meta, c)

    def give_condition(self, meta: Any, c: list[Any]) -> s.ConditionStep:
        span = self._span(meta)
        return s.ConditionStep("give", str(c[0]), c[1], c[2], span, self._claim(span))

    def end_condition(self, meta: Any, c: list[Any]) -> s.ConditionStep:
        span = self._span(meta)
        return s.ConditionStep("end", str(c[0]), c[1], None, span, self._claim(span))

    # -- events on the clock and triggers (issue 15) ---------------------------------------------
    def act_at_labelled(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._labelled("at", meta, c)

    def act_after_labelled(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._labelled("after", meta, c)

    def _labelled(self, mode: str, meta: Any, c: list[Any]) -> s.ScheduleStep:
        span = self._span(meta)
        label, lane = c[3]  # `act f after 2 seconds as "Walk" on lane move`
        return s.ScheduleStep(mode, str(c[0]), c[1], span, self._claim(span), label=label,
                              lane=None if lane is None else str(lane), unit=self._unit(c[2]))

    def action_label(self, meta: Any, c: list[Any]) -> tuple[Any, Any]:
        return c[0], c[1]

    def event_step(self, meta: Any, c: list[Any]) -> s.EventStep:
        span = self._span(meta)
        # `after 1 second as arrow:` — the time's unit, as written, is c[1]
        return s.EventStep(c[0], str(c[2]), None if c[3] is None else str(c[3]), c[4], span,
                           self._claim(span), unit=self._unit(c[1]))

    def cancel_step(self, meta: Any, c: list[Any]) -> s.CancelStep:
        span = self._span(meta)
        return s.CancelStep(str(c[0]), span, self._claim(span))

    def raise_step(self, meta: Any, c: list[Any]) -> s.RaiseStep:
        span = self._span(meta)
        return s.RaiseStep(_unquote(c[0]) or "", str(c[1]), span, self._claim(span))

    def trigger_step(self, meta: Any, c: list[Any]) -> s.TriggerStep:
        span = self._span(meta)
        kind, what = c[0]
        return s.TriggerStep(kind, what, str(c[1]), c[2], span, self._claim(span))

    def on_changed(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return "changed", str(c[0])

    def on_entered(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return "changed", "at"  # a party's position: the state `at`

    def on_given(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return "given", c[0]

    def on_raised(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return "raised", _unquote(c[0])
    def _unit(self, token: Token | None) -> s.TimeUnit | None:
        return None if token is None else s.TimeUnit(str(token), self._tspan(token))

    def _schedule_unit(self, mode: str, meta: Any, c: list[Any]) -> s.ScheduleStep:
        span = self._span(meta)
        return s.ScheduleStep(mode, str(c[0]), c[1], span, self._claim(span),
                              unit=self._unit(c[2]))

    def act_at_unit(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule_unit("at", meta, c)

    def act_after_unit(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule_unit("after", meta, c)

    def delay_by_unit(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule_unit("delay", meta, c)

    def lengthen_by_unit(self, meta: Any, c: list[Any]) -> s.ScheduleStep:
        return self._schedule_unit("lengthen", meta, c)

    def give_condition_unit(self, meta: Any, c: list[Any]) -> s.ConditionStep:
        span = self._span(meta)
        return s.ConditionStep("give", str(c[0]), c[1], c[2], span, self._claim(span),
                               self._unit(c[3]))

    def give_located(self, meta: Any, c: list[Any]) -> s.ConditionStep:
        span = self._span(meta)
        return s.ConditionStep("give", str(c[0]), c[1], c[3], span, self._claim(span),
                               self._unit(c[4]), c[2])

    def end_located(self, meta: Any, c: list[Any]) -> s.ConditionStep:
        span = self._span(meta)
        return s.ConditionStep("end", str(c[0]), c[1], None, span, self._claim(span), None, c[2])

    def turns_step(self, meta: Any, c: list[Any]) -> s.TurnsStep:
        span = self._span(meta)
        return s.TurnsStep(str(c[0]), c[1], c[2], span, self._claim(span))

    def delay_until_after(self, meta: Any, c: list[Any]) -> s.RoundDelayStep:
        span = self._span(meta)
        return s.RoundDelayStep("after", str(c[0]), str(c[1]), None, span, self._claim(span))

    def delay_to_end(self, meta: Any, c: list[Any]) -> s.RoundDelayStep:
        span = self._span(meta)
        return s.RoundDelayStep("end", str(c[0]), None, None, span, self._claim(span))

    def ready_when(self, meta: Any, c: list[Any]) -> s.RoundDelayStep:
        span = self._span(meta)
        return s.RoundDelayStep("ready", str(c[0]), None, c[1], span, self._claim(span))

    def named_step(self, meta: Any, c: list[Any]) -> s.NamedStep:
        span = self._span(meta)
        return s.NamedStep(str(c[0]), c[1], span, self._claim(span))

    def row(self, meta: Any, c: list[Any]) -> s.RowLine:
        span = self._tspan(c[0])
        return s.RowLine(str(c[0]).rstrip(), span, self._claim(span))

    def table_option(self, meta: Any, c: list[Any]) -> s.TableOption:
        span = self._span(meta)
        return s.TableOption(str(c[0]), str(c[1]), span, self._claim(span))

    def table_option_list(self, meta: Any, c: list[Any]) -> s.TableOption:
        span = self._span(meta)
        return s.TableOption(str(c[0]), ", ".join(str(x) for x in c[1:]), span, self._claim(span))

    def notation_decl(self, meta: Any, c: list[Any]) -> s.NotationDecl:
        span = self._span(meta)
        marks = tuple(x for x in c[2:] if isinstance(x, s.NotationMark))
        return s.NotationDecl(str(c[0]), _unquote(c[1]), marks, span, self._claim(span))

    def notation_mark(self, meta: Any, c: list[Any]) -> s.NotationMark:
        span = self._span(meta)
        return s.NotationMark(_unquote(c[0]) or "", str(c[1]), span, self._claim(span))

    def notation_bare(self, meta: Any, c: list[Any]) -> s.NotationMark:
        span = self._span(meta)
        return s.NotationMark("", str(c[0]), span, self._claim(span))

    # -- quick-reference tables ----------------------------------------------------------------
    def reference_decl(self, meta: Any, c: list[Any]) -> s.ReferenceDecl:
        span = self._span(meta)
        lines = tuple(x for x in c[2:] if isinstance(x, s.ReferenceLine))
        return s.ReferenceDecl(str(c[0]), _unquote(c[1]), lines, span, self._claim(span))

    def _reference_line(self, kind: str, meta: Any, name: Any, value: Any, step: Any = None,
                        chance: Any = None) -> s.ReferenceLine:
        span = self._span(meta)
        return s.ReferenceLine(kind, None if name is None else str(name), value, span, step,
                               chance is not None, self._claim(span))

    def reference_each(self, meta: Any, c: list[Any]) -> s.ReferenceLine:
        return self._reference_line("each", meta, c[0], c[1])

    def reference_rows(self, meta: Any, c: list[Any]) -> s.ReferenceLine:
        return self._reference_line("rows", meta, c[0], c[1], c[2])

    def reference_columns(self, meta: Any, c: list[Any]) -> s.ReferenceLine:
        return self._reference_line("columns", meta, c[0], c[1], c[2])

    def reference_let(self, meta: Any, c: list[Any]) -> s.ReferenceLine:
        return self._reference_line("let", meta, c[0], c[1])

    def reference_roll(self, meta: Any, c: list[Any]) -> s.ReferenceLine:
        return self._reference_line("roll", meta, c[0], c[1])

    def reference_cell(self, meta: Any, c: list[Any]) -> s.ReferenceLine:
        return self._reference_line("cell", meta, None, c[1], chance=c[0])

    def reference_column(self, meta: Any, c: list[Any]) -> s.ReferenceLine:
        return self._reference_line("column", meta, _unquote(c[0]), c[2], chance=c[1])

    def range_(self, meta: Any, c: list[Any]) -> s.RangeType:
        return s.RangeType(c[0], c[1], self._span(meta))

    def signed(self, meta: Any, c: list[Any]) -> str:
        return "".join(str(x) for x in c if x is not None)

    def type_named(self, meta: Any, c: list[Any]) -> s.NamedType:
        return s.NamedType(str(c[0]), self._span(meta))

    def type_range(self, meta: Any, c: list[Any]) -> s.RangeType:
        return c[0]

    def type_map(self, meta: Any, c: list[Any]) -> s.MapType:
        return s.MapType(c[0], c[1], self._span(meta))

    def type_list(self, meta: Any, c: list[Any]) -> s.ListType:
        return s.ListType(c[0], self._span(meta))

    def formula_decl(self, meta: Any, c: list[Any]) -> s.FormulaDecl:
        span = self._span(meta)
        params = tuple(c[1] or ())
        return s.FormulaDecl(str(c[0]), params, _unquote(c[2]), c[3], span, self._claim(span),
                             tuple(c[4] or ()))

    def where_clause(self, meta: Any, c: list[Any]) -> list[s.Local]:
        return list(c)

    def local_name(self, meta: Any, c: list[Any]) -> s.Local:
        return s.Local(str(c[0]), c[1], self._span(meta))

    def params(self, meta: Any, c: list[Any]) -> list[s.Param]:
        return list(c)

    def param(self, meta: Any, c: list[Any]) -> s.Param:
        return s.Param(str(c[0]), c[1], c[2], self._span(meta))

    def combatant_decl(self, meta: Any, c: list[Any]) -> s.CombatantDecl:
        span = self._span(meta)
        fields = tuple(x for x in c[2:] if isinstance(x, s.FieldDecl))
        return s.CombatantDecl(str(c[0]), _unquote(c[1]), fields, span, self._claim(span))

    def characteristic(self, meta: Any, c: list[Any]) -> s.FieldDecl:
        span = self._span(meta)
        return s.FieldDecl("characteristic", str(c[0]), c[1], c[2], None, span, self._claim(span))

    def derived(self, meta: Any, c: list[Any]) -> s.FieldDecl:
        span = self._span(meta)
        return s.FieldDecl("derived", str(c[0]), None, c[1], None, span, self._claim(span))

    def state(self, meta: Any, c: list[Any]) -> s.FieldDecl:
        span = self._span(meta)
        return s.FieldDecl("state", str(c[0]), c[1], c[2], c[3], span, self._claim(span),
                           c[4] is not None)

    def combined(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    # -- procedures ----------------------------------------------------------------------------
    def procedure_decl(self, meta: Any, c: list[Any]) -> s.ProcedureDecl:
        span = self._span(meta)
        comments = self._claim(span)
        return s.ProcedureDecl(str(c[0]), _unquote(c[1]), tuple(c[2] or ()), tuple(c[4:]), span,
                               comments, tuple(c[3] or ()))

    def outcomes(self, meta: Any, c: list[Any]) -> tuple[s.OutcomeSpec, ...]:
        return tuple(c)

    def outcome_all(self, meta: Any, c: list[Any]) -> s.OutcomeSpec:
        span = self._span(meta)
        return s.OutcomeSpec(None, None, tuple(str(x) for x in c), span, self._claim(span))

    def outcome_one(self, meta: Any, c: list[Any]) -> s.OutcomeSpec:
        span = self._span(meta)
        fields = tuple(str(x) for x in c[2:] if x is not None)
        return s.OutcomeSpec(str(c[0]), _unquote(c[1]), fields, span, self._claim(span))

    def call_step(self, meta: Any, c: list[Any]) -> s.CallStep:
        span = self._span(meta)
        args = c[2] or []
        positional = tuple(a for a in args if not isinstance(a, tuple))
        named = tuple(a for a in args if isinstance(a, tuple))
        return s.CallStep(str(c[0]), str(c[1]), positional, named, span, self._claim(span),
                          c[3] or ())

    def for_step(self, meta: Any, c: list[Any]) -> s.ForStep:
        span = self._span(meta)
        return s.ForStep(str(c[0]), c[1], c[2], span, self._claim(span))

    def repeat_step(self, meta: Any, c: list[Any]) -> s.RepeatStep:
        span = self._span(meta)
        comments = self._claim(span)
        at_cap, cap_comments, cap_span = c[3] if c[3] is not None else (None, (), None)
        return s.RepeatStep(c[0], c[1], c[2], at_cap, span, comments, cap_comments, cap_span)

    def at_cap(self, meta: Any, c: list[Any]) -> tuple[tuple[Any, ...], tuple[str, ...], Span]:
        span = self._span(meta)
        return c[0], self._claim(span), span

    def roll_step(self, meta: Any, c: list[Any]) -> s.RollStep:
        span = self._span(meta)
        return s.RollStep(str(c[0]), c[1], span, self._claim(span))

    def let_step(self, meta: Any, c: list[Any]) -> s.LetStep:
        span = self._span(meta)
        return s.LetStep(str(c[0]), c[1], span, self._claim(span))

    def choose_step(self, meta: Any, c: list[Any]) -> s.ChooseStep:
        span = self._span(meta)
        name, party, secret, seeing, options, default = c
        return s.ChooseStep(str(name), str(party), options, default, span, self._claim(span),
                            secret is not None, seeing)

    def seeing(self, meta: Any, c: list[Any]) -> tuple[str, ...]:
        return tuple(str(n) for n in c)

    def reveal_step(self, meta: Any, c: list[Any]) -> s.RevealStep:
        span = self._span(meta)
        return s.RevealStep(tuple(str(n) for n in c), span, self._claim(span))

    def example_decl(self, meta: Any, c: list[Any]) -> s.ExampleDecl:
        span = self._span(meta)
        comments = self._claim(span)
        dice = tuple(int(float(str(x))) for x in c[1:] if isinstance(x, Token) and
                     x.type == "NUMBER")
        steps = tuple(x for x in c[1:] if not isinstance(x, Token) and x is not None)
        return s.ExampleDecl(_unquote(c[0]) or "", dice, steps, span, comments)

    def expect_step(self, meta: Any, c: list[Any]) -> s.ExpectStep:
        span = self._span(meta)
        return s.ExpectStep(c[0], span, self._claim(span))

    def ruling_step(self, meta: Any, c: list[Any]) -> s.RulingStep:
        span = self._span(meta)
        return s.RulingStep(_unquote(c[0]) or "", span, self._claim(span))

    def outcome_ruling(self, meta: Any, c: list[Any]) -> s.OutcomeStep:
        """`outcome by referee "…"`: an outcome named for the referee's call."""
        span = self._span(meta)
        text = _unquote(c[0]) or ""
        return s.OutcomeStep(ruling_outcome(text), None, (), span, self._claim(span), text)

    def standing_only(self, meta: Any, c: list[Any]) -> s.StandingDecl:
        span = self._span(meta)
        return s.StandingDecl("only", _unquote(c[0]) or "", str(c[1]), c[2], span,
                              self._claim(span))

    def standing_not(self, meta: Any, c: list[Any]) -> s.StandingDecl:
        span = self._span(meta)
        return s.StandingDecl("not", _unquote(c[0]) or "", str(c[1]), c[2], span,
                              self._claim(span))

    def choosing(self, meta: Any, c: list[Any]) -> tuple[s.Assign, ...]:
        return tuple(c)

    def if_step(self, meta: Any, c: list[Any]) -> s.IfStep:
        span = self._span(meta)
        branches = [s.Branch(c[0], c[1], span)]
        otherwise, otherwise_comments, otherwise_span = None, (), None
        for extra in c[2:]:
            if isinstance(extra, s.Branch):
                branches.append(extra)
            elif extra is not None:
                otherwise_comments, otherwise, otherwise_span = extra
        return s.IfStep(tuple(branches), otherwise, span, self._claim(span), otherwise_comments,
                        otherwise_span)

    def else_if(self, meta: Any, c: list[Any]) -> s.Branch:
        span = self._span(meta)
        return s.Branch(c[0], c[1], span, self._claim(span))

    def else_(self, meta: Any, c: list[Any]) -> tuple[tuple[str, ...], tuple[Any, ...], Span]:
        span = self._span(meta)
        return self._claim(span), c[0], span

    def block(self, meta: Any, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def set_step(self, meta: Any, c: list[Any]) -> s.ChangeStep:
        span = self._span(meta)
        return s.ChangeStep("set", c[0], c[1], span, self._claim(span))

    def add_step(self, meta: Any, c: list[Any]) -> s.ChangeStep:
        span = self._span(meta)
        return s.ChangeStep("add", c[1], c[0], span, self._claim(span))

    def remove_step(self, meta: Any, c: list[Any]) -> s.ChangeStep:
        span = self._span(meta)
        return s.ChangeStep("remove", c[1], c[0], span, self._claim(span))

    def target(self, meta: Any, c: list[Any]) -> s.Target:
        return s.Target(str(c[0]), str(c[1]), tuple(c[2:]), self._span(meta))

    def outcome_step(self, meta: Any, c: list[Any]) -> s.OutcomeStep:
        span = self._span(meta)
        values = tuple(x for x in c[2:] if isinstance(x, s.Assign))
        return s.OutcomeStep(str(c[0]), _unquote(c[1]), values, span, self._claim(span))

    def assign(self, meta: Any, c: list[Any]) -> s.Assign:
        return s.Assign(str(c[0]), c[1], self._span(meta))

    # -- expressions ---------------------------------------------------------------------------
    def conditional(self, meta: Any, c: list[Any]) -> s.Conditional:
        return s.Conditional(c[0], c[1], c[2], self._span(meta))

    def or_(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary("or", c[0], c[1], self._span(meta))

    def and_(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary("and", c[0], c[1], self._span(meta))

    def not_(self, meta: Any, c: list[Any]) -> s.Unary:
        return s.Unary("not", c[0], self._span(meta))

    def compare(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary(str(c[1]), c[0], c[2], self._span(meta))

    def member_of(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary("in", c[0], c[1], self._span(meta))

    def not_member_of(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary("not in", c[0], c[1], self._span(meta))

    def is_model(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary("is", c[0], s.Name(str(c[1]), self._tspan(c[1])), self._span(meta))

    def binop(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary(str(c[1]), c[0], c[2], self._span(meta))

    def mod_(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary("mod", c[0], c[1], self._span(meta))

    def range_expr(self, meta: Any, c: list[Any]) -> s.RangeExpr:
        return s.RangeExpr(c[0], c[1], self._span(meta))

    def placed(self, meta: Any, c: list[Any]) -> s.Placed:
        return s.Placed(c[0], c[1], c[2], self._span(meta))

    def pattern_decl(self, meta: Any, c: list[Any]) -> Any:
        span = self._span(meta)
        keys = tuple(x for x in c[2:] if isinstance(x, s.KeySpec))
        rows = tuple(x for x in c if isinstance(x, s.RowLine))
        options = tuple(x for x in c if isinstance(x, s.TableOption))
        return s.PatternDecl(str(c[0]), _unquote(c[1]), keys, rows, options, span,
                             self._claim(span))

    def replace_space(self, meta: Any, c: list[Any]) -> s.ReplaceDecl:
        return s.ReplaceDecl(c[0], self._span(meta))

    def remove_space(self, meta: Any, c: list[Any]) -> s.RemoveDecl:
        span = self._span(meta)
        return s.RemoveDecl(str(c[0]), str(c[1]), span, self._claim(span))

    def unit_decl(self, meta: Any, c: list[Any]) -> Any:
        span = self._span(meta)
        return s.UnitDecl(str(c[0]), _unquote(c[1]), str(c[2]), span, self._claim(span))

    def neg(self, meta: Any, c: list[Any]) -> s.Unary:
        return s.Unary("-", c[1], self._span(meta))

    def attr(self, meta: Any, c: list[Any]) -> s.Attr:
        return s.Attr(c[0], str(c[1]), self._span(meta))

    def index(self, meta: Any, c: list[Any]) -> s.Index:
        keys = tuple(a for a in c[1] if not isinstance(a, tuple))
        given = tuple(a for a in c[1] if isinstance(a, tuple))
        return s.Index(c[0], keys, self._span(meta), given)

    def call(self, meta: Any, c: list[Any]) -> s.Call:
        args = c[1] or []
        positional = tuple(a for a in args if not isinstance(a, tuple))
        named = tuple(a for a in args if isinstance(a, tuple))
        return s.Call(str(c[0]), positional, named, self._span(meta))

    def aggregate(self, meta: Any, c: list[Any]) -> s.Aggregate:
        return s.Aggregate(str(c[0]), c[1], str(c[2]), c[3], self._span(meta))

    def list_of(self, meta: Any, c: list[Any]) -> s.Aggregate:
        """`[c.name for c in order]`: a list made item by item (an aggregate named `list`)."""
        return s.Aggregate("list", c[0], str(c[1]), c[2], self._span(meta))

    def aggregate_where(self, meta: Any, c: list[Any]) -> s.Aggregate:
        """`count(c for c in party if c.hp > 0)`: over the items the condition holds for."""
        return s.Aggregate(str(c[0]), c[1], str(c[2]), c[3], self._span(meta), c[4])

    def list_where(self, meta: Any, c: list[Any]) -> s.Aggregate:
        """`[c for c in party if c.hp > 0]`: a list filtered item by item."""
        return s.Aggregate("list", c[0], str(c[1]), c[2], self._span(meta), c[3])

    def args(self, meta: Any, c: list[Any]) -> list[Any]:
        return list(c)

    def arg(self, meta: Any, c: list[Any]) -> Any:
        return c[0]

    def named_arg(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return (str(c[0]), c[1])

    def number(self, meta: Any, c: list[Any]) -> s.Number:
        return s.Number(str(c[0]), self._span(meta))

    def string(self, meta: Any, c: list[Any]) -> s.String:
        return s.String(str(c[0])[1:-1], self._span(meta))

    def dice(self, meta: Any, c: list[Any]) -> s.DiceLit:
        return s.DiceLit(str(c[0]), self._span(meta))

    def name(self, meta: Any, c: list[Any]) -> s.Name:
        return s.Name(str(c[0]), self._span(meta))

    def true(self, meta: Any, c: list[Any]) -> s.Constant:
        return s.Constant(True, self._span(meta))

    def false(self, meta: Any, c: list[Any]) -> s.Constant:
        return s.Constant(False, self._span(meta))

    def none(self, meta: Any, c: list[Any]) -> s.Constant:
        return s.Constant(None, self._span(meta))

    def map_(self, meta: Any, c: list[Any]) -> s.MapLit:
        return s.MapLit(tuple(x for x in c if x is not None), self._span(meta))

    def map_pair(self, meta: Any, c: list[Any]) -> tuple[Any, Any]:
        return (c[0], c[1])

    def list_(self, meta: Any, c: list[Any]) -> s.ListLit:
        return s.ListLit(tuple(x for x in c if x is not None), self._span(meta))
