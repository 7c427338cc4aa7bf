"""Print a syntax tree back as rule text: one canonical layout, comments kept, tables aligned."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import syntax as s
from . import format_time as ft
from .checks import name_problem

INDENT = "  "
WIDTH = 100  # an outcome's values go one per line past this

_NAME = re.compile(r"^[^\W\d]\w*$")
_KEYWORDS = frozenset(
    "rulebook enum table by in integer number given formula map list combatant derived state "
    "combined procedure roll let choose from default if then else set add to outcome with or "
    "and not true false none for".split()
)

# Binding strength of each operator, loosest first (the grammar's expression levels).
_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "==": 4, "!=": 4, "<": 4, "<=": 4, ">": 4,
               ">=": 4, "in": 4, "not in": 4, "..": 5, "+": 6, "-": 6, "*": 7, "/": 7,
               "mod": 7, "is": 4}
_UNARY, _POSTFIX, _ATOM = 8, 9, 10


def format_file(tree: s.File) -> str:
    """The whole file in canonical layout; parsing the result gives the same tree."""
    blocks = [_declaration(d) for d in tree.declarations]
    text = "\n\n".join("\n".join(lines) for lines in blocks)
    if tree.trailing_comments:
        text += "\n\n" + "\n".join(f"# {c}" for c in tree.trailing_comments)
    return text + "\n"


def _comments(comments: tuple[str, ...], depth: int) -> list[str]:
    return [f"{INDENT * depth}# {c}".rstrip() for c in comments]


def _name(text: str) -> str:
    """A member or title word, quoted when it is not a plain name."""
    bare = _NAME.match(text) and text not in _KEYWORDS and name_problem(text) is None
    return text if bare else f'"{text}"'


def _title(title: str | None) -> str:
    return f' "{title}"' if title is not None else ""


# ---- declarations --------------------------------------------------------------------------


def _declaration(d: Any) -> list[str]:
    handler = _DECLARATIONS.get(type(d))
    if handler is None:
        raise AssertionError(f"no formatter for {type(d).__name__}")
    return _comments(d.comments, 0) + handler(d)


def _rulebook(d: s.RulebookDecl) -> list[str]:
    lines = [f"rulebook {d.name}{_title(d.title)}"]
    for m in d.meta:
        lines += _comments(m.comments, 1) + [f'{INDENT}{m.key}: "{m.value}"']
    return lines


def _enum(d: s.EnumDecl) -> list[str]:
    members = ", ".join(_name(m.name) for m in d.members)
    return [f"enum {d.name}{_title(d.title)}: {members}"]


def _table(d: s.TableDecl) -> list[str]:
    keys = ", ".join(_key(k) for k in d.keys)
    cell = ""
    if isinstance(d.cell_type, tuple):
        cell = f" -> ({', '.join(d.cell_type)})"
    elif d.cell_type is not None:
        cell = f" -> {d.cell_type}"
    given = f" given {', '.join(d.given)}" if d.given else ""
    lines = [f"table {d.name}{_title(d.title)} by {keys}{cell}{given}:"]
    for o in d.options:
        lines += _comments(o.comments, 1) + [f"{INDENT}{o.name}: {o.value}"]
    return lines + (_rows(d.rows) if d.rows else [])  # a joined table prints no rows


def _rows(rows_: tuple[s.RowLine, ...]) -> list[str]:
    """A table's or a pattern's rows, their columns aligned."""
    lines: list[str] = []
    rows = [[text for text, _ in row.cells()] for row in rows_]
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(map(len, rows)))]
    for row, cells in zip(rows_, rows):
        if cells and all(set(c) <= set("-: ") and c for c in cells):
            cells = ["-" * w for w in widths[: len(cells)]]  # a separator row
        body = " | ".join(c.ljust(w) for c, w in zip(cells, widths))
        lines += _comments(row.comments, 1) + [f"{INDENT}| {body} |".rstrip()]
    return lines


def _notation(d: s.NotationDecl) -> list[str]:
    lines = [f"notation {d.name}{_title(d.title)}:"]
    for m in d.marks:
        mark = f'"{m.mark}"' if m.mark else "none"
        lines += _comments(m.comments, 1) + [f"{INDENT}{mark} adds {m.dice}"]
    return lines


def _key(k: s.KeySpec) -> str:
    text = k.name if k.type is None else f"{k.name}: {_type(k.type)}"
    return text + (" in cells" if k.in_cells else "")


def _type(t: Any) -> str:
    if isinstance(t, s.RangeType):
        return f"{t.low}..{t.high}"
    if isinstance(t, s.MapType):
        return f"map {_type(t.key)} -> {_type(t.item)}"
    if isinstance(t, s.ListType):
        return f"list {_type(t.item)}"
    return str(t.name)


def _param(p: s.Param) -> str:
    text = p.name if p.type is None else f"{p.name}: {_type(p.type)}"
    return text + (f" = {expression(p.default)}" if p.default is not None else "")


def _formula(d: s.FormulaDecl) -> list[str]:
    params = ", ".join(_param(p) for p in d.params)
    where = ", ".join(f"{v.name} = {expression(v.value)}" for v in d.where)
    return [f"formula {d.name}({params}){_title(d.title)} = {expression(d.body)}"
            + (f" where {where}" if where else "")]


def _combatant(d: s.CombatantDecl) -> list[str]:
    lines = [f"combatant {d.name}{_title(d.title)}:"]
    for f in d.fields:
        lines += _comments(f.comments, 1) + [INDENT + _field(f)]
    return lines


def _field(f: s.FieldDecl) -> str:
    """One line of a combatant model, as written."""
    if f.role == "derived":
        assert f.value is not None
        return f"derived {f.name} = {expression(f.value)}"
    text = f"{f.name}: {_type(f.type)}"
    if f.role == "state":
        text = "state " + text
    if f.value is not None:
        text += f" = {expression(f.value)}"
    if f.combined_by:
        text += f" combined by {f.combined_by}"
    if f.clamped:
        text += " clamped"
    return text


def _procedure(d: s.ProcedureDecl) -> list[str]:
    params = ", ".join(_param(p) for p in d.params)
    word = "procedure" if d.clock is None else "encounter"
    lines = [f"{word} {d.name}{_title(d.title)} ({params}):"]
    if d.clock is not None:
        lines.append(f"{INDENT}clock {d.clock[0]}{_title(d.clock[1])}"
                     f"{ft.units(d.clock_units, expression)}")
    if d.sides:
        lines.append(f"{INDENT}sides: " + " against ".join(" and ".join(g) for g in d.sides))
    if d.outcomes:
        lines.append(f"{INDENT}outcomes:")
        for spec in d.outcomes:
            fields = f" with {', '.join(spec.fields)}" if spec.fields else ""
            head = "all" if spec.name is None else f"{spec.name}{_title(spec.title)}"
            lines += _comments(spec.comments, 2) + [f"{INDENT * 2}{head}{fields}"]
    return lines + _steps(d.steps, 1)


# ---- steps ---------------------------------------------------------------------------------


def _steps(steps: tuple[Any, ...], depth: int) -> list[str]:
    lines: list[str] = []
    for step in steps:
        lines += _comments(step.comments, depth) + _step(step, depth)
    return lines


def _step(step: Any, depth: int) -> list[str]:
    handler = _STEPS.get(type(step))
    if handler is None:
        raise AssertionError(f"no formatter for {type(step).__name__}")
    return handler(step, INDENT * depth, depth)


def _roll_step(step: s.RollStep, pad: str, depth: int) -> list[str]:
    return [f"{pad}roll {step.name} = {expression(step.dice)}"]


def _let_step(step: s.LetStep, pad: str, depth: int) -> list[str]:
    return [f"{pad}let {step.name} = {expression(step.value)}"]


def _choose_step(step: s.ChooseStep, pad: str, depth: int) -> list[str]:
    secret = " in secret" if step.secret else ""
    seeing = f" seeing {', '.join(step.seeing)}" if step.seeing else ""
    return [f"{pad}choose {step.name} by {step.party}{secret}{seeing} from "
            f"{expression(step.options)} default {expression(step.default)}"]


def _reveal_step(step: s.RevealStep, pad: str, depth: int) -> list[str]:
    return [f"{pad}reveal {', '.join(step.names)}"]


def _example(d: Any) -> list[str]:
    dice = f" with dice {', '.join(str(n) for n in d.dice)}" if d.dice else ""
    return [f'example "{d.title}"{dice}:'] + _steps(d.steps, 1)


def _expect_step(step: Any, pad: str, depth: int) -> list[str]:
    return [f"{pad}expect {expression(step.test)}"]


def _ruling_step(step: s.RulingStep, pad: str, depth: int) -> list[str]:
    return [f'{pad}ruling "{step.text}"']


def _change_step(step: s.ChangeStep, pad: str, depth: int) -> list[str]:
    index = "".join(f"[{expression(k)}]" for k in step.target.index)
    target = f"{step.target.party}.{step.target.field}{index}"
    if step.mode == "set":
        return [f"{pad}set {target} = {expression(step.value)}"]
    if step.mode == "remove":
        return [f"{pad}remove {expression(step.value)} from {target}"]
    return [f"{pad}add {expression(step.value)} to {target}"]


def _if_step(step: s.IfStep, pad: str, depth: int) -> list[str]:
    lines: list[str] = []
    for i, branch in enumerate(step.branches):
        word = "if" if i == 0 else "else if"
        lines += _comments(branch.comments, depth)
        lines.append(f"{pad}{word} {expression(branch.test)}:")
        lines += _steps(branch.body, depth + 1)
    if step.otherwise is not None:
        lines += _comments(step.otherwise_comments, depth)
        lines.append(f"{pad}else:")
        lines += _steps(step.otherwise, depth + 1)
    return lines


def _outcome_step(step: s.OutcomeStep, pad: str, depth: int) -> list[str]:
    if step.ruling is not None:
        return [f'{pad}outcome by referee "{step.ruling}"']
    head = f"{pad}outcome {step.name}{_title(step.title)}"
    if not step.values:
        return [head]
    values = [f"{a.name} = {expression(a.value)}" for a in step.values]
    one_line = f"{head} with ({', '.join(values)})"
    if len(one_line) <= WIDTH:
        return [one_line]
    inner = INDENT * (depth + 2)
    return [f"{head} with ("] + [f"{inner}{v}," for v in values[:-1]] + [f"{inner}{values[-1]})"]


def _call_step(step: s.CallStep, pad: str, depth: int) -> list[str]:
    args = [expression(a) for a in step.args] + [f"{n} = {expression(v)}" for n, v in step.named]
    choosing = "".join((", " if i else " choosing ") + f"{a.name} = {expression(a.value)}"
                       for i, a in enumerate(step.choosing))
    return [f"{pad}call {step.name} = {step.procedure}({', '.join(args)}){choosing}"]


def _for_step(step: s.ForStep, pad: str, depth: int) -> list[str]:
    return [f"{pad}for each {step.var} in {expression(step.collection)}:"] + \
        _steps(step.body, depth + 1)


def _repeat_step(step: s.RepeatStep, pad: str, depth: int) -> list[str]:
    lines = [f"{pad}repeat until {expression(step.until)}, at most {expression(step.cap)} times:"]
    lines += _steps(step.body, depth + 1)
    if step.at_cap is not None:
        lines += _comments(step.at_cap_comments, depth)
        lines.append(f"{pad}at the cap:")
        lines += _steps(step.at_cap, depth + 1)
    return lines


def _schedule_step(step: s.ScheduleStep, pad: str, depth: int) -> list[str]:
    if step.mode == "stop":
        return [f"{pad}stop {step.party}"]
    word = {"at": "act {} at", "after": "act {} after", "delay": "delay {} by",
            "lengthen": "lengthen {} by", "aim": "aim {} at"}[step.mode]
    return [f"{pad}{word.format(step.party)} {expression(step.value)}{ft.unit(step.unit)}"
            f"{_labelled(step)}"]


def _labelled(step: s.ScheduleStep) -> str:
    """` as "Walk" on lane move`: an action's label and lane, as written."""
    if step.label is None:
        return ""
    return f" as {expression(step.label)}" + (f" on lane {step.lane}" if step.lane else "")


def _event_step(step: s.EventStep, pad: str, depth: int) -> list[str]:
    party = f" for {step.party}" if step.party else ""
    return [f"{pad}after {expression(step.after)}{ft.unit(step.unit)} as {step.name}{party}:"] + \
        _steps(step.body, depth + 1)


def _cancel_step(step: s.CancelStep, pad: str, depth: int) -> list[str]:
    return [f"{pad}cancel {step.target}"]


def _raise_step(step: s.RaiseStep, pad: str, depth: int) -> list[str]:
    return [f'{pad}raise "{step.event}" for {step.party}']


def _trigger_step(step: s.TriggerStep, pad: str, depth: int) -> list[str]:
    if step.kind == "changed":
        event = "entered" if step.what == "at" else f"changed {step.what}"
    elif step.kind == "given":
        event = f"given {expression(step.what)}"
    else:
        event = f'"{step.what}"'
    return [f"{pad}on {event} by {step.party}:"] + _steps(step.body, depth + 1)


def _condition_step(step: s.ConditionStep, pad: str, depth: int) -> list[str]:
    text = f"{pad}{step.mode} {step.party} {expression(step.condition)}"
    if step.location is not None:
        text += f" on {expression(step.location)}"
    return [text + (f" for {expression(step.duration)}{ft.unit(step.unit)}"
                    if step.duration is not None else "")]


def _encounter_loop(step: s.EncounterLoop, pad: str, depth: int) -> list[str]:
    head = f"{pad}turn {step.var}:" if step.kind == "turn" else f"{pad}each round:"
    every = ft.every_blocks(step, pad, depth, expression, _steps, _comments)
    return [head] + _steps(step.body, depth + 1) + every + [
        f"{pad}ends when {_ends(step.ends)}",
        f"{pad}no cap" if step.cap is None else
        f"{pad}at most {expression(step.cap)} {step.unit}"] + ft.afterwards(
        step, pad, depth, _steps, _comments)


def _ends(ends: Any) -> str:
    """`one side standing` as written (it is read as `sides_standing() <= 1`)."""
    if isinstance(ends, s.Binary) and ends.op == "<=" and isinstance(ends.left, s.Call) and \
            ends.left.name == "sides_standing" and not ends.left.args and \
            isinstance(ends.right, s.Number) and ends.right.text == "1":
        return "one side standing"
    return expression(ends)


def _named_step(step: s.NamedStep, pad: str, depth: int) -> list[str]:
    return [f"{pad}step {step.name}:"] + _steps(step.body, depth + 1)


_STEPS: dict[type, Callable[[Any, str, int], list[str]]] = {
    s.RollStep: _roll_step, s.LetStep: _let_step, s.ChooseStep: _choose_step,
    s.ChangeStep: _change_step, s.IfStep: _if_step, s.OutcomeStep: _outcome_step,
    s.CallStep: _call_step, s.ForStep: _for_step, s.RepeatStep: _repeat_step,
    s.NamedStep: _named_step, s.ScheduleStep: _schedule_step, s.EncounterLoop: _encounter_loop,
    s.ConditionStep: _condition_step, s.EventStep: _event_step, s.CancelStep: _cancel_step,
    s.RaiseStep: _raise_step, s.TriggerStep: _trigger_step,
    s.ConditionStep: _condition_step,
    s.TurnsStep: lambda st, pad, depth: ft.turns_step(st, pad, depth, expression, _steps),
    s.RoundDelayStep: lambda st, pad, depth: ft.round_delay(st, pad, expression),
}
_STEPS[s.RulingStep] = _ruling_step
_STEPS[s.ExpectStep] = _expect_step
_STEPS[s.RevealStep] = _reveal_step


# ---- expressions ---------------------------------------------------------------------------


def expression(node: Any) -> str:
    """An expression with only the parentheses its meaning needs."""
    return _expr(node)[0]


def _wrap(node: Any, least: int) -> str:
    text, level = _expr(node)
    return f"({text})" if level < least else text


def _expr(node: Any) -> tuple[str, int]:
    """The text of `node` and how tightly it binds (0: a conditional ... 10: an atom)."""
    handler = _EXPRESSIONS.get(type(node))
    if handler is None:
        raise AssertionError(f"no formatter for {type(node).__name__}")
    return handler(node)


def _unary(node: s.Unary) -> tuple[str, int]:
    if node.op == "not":
        return f"not {_wrap(node.operand, _PRECEDENCE['not'])}", _PRECEDENCE["not"]
    return f"-{_wrap(node.operand, _UNARY)}", _UNARY


def _binary(node: s.Binary) -> tuple[str, int]:
    level = _PRECEDENCE[node.op]
    if level == 4:  # comparisons do not chain: sums on both sides, and a range after `in`
        sums = _PRECEDENCE["+"]
        right = _PRECEDENCE[".."] if node.op in ("in", "not in") else sums
        return f"{_wrap(node.left, sums)} {node.op} {_wrap(node.right, right)}", level
    # Left-associative.
    return f"{_wrap(node.left, level)} {node.op} {_wrap(node.right, level + 1)}", level


def _range(node: s.RangeExpr) -> tuple[str, int]:
    level = _PRECEDENCE[".."]  # `1..n + 1` is 1..(n + 1); neither side is itself a range
    return f"{_wrap(node.low, level + 1)}..{_wrap(node.high, level + 1)}", level


def _index(node: s.Index) -> tuple[str, int]:
    keys = [expression(k) for k in node.keys] + [f"{n} = {expression(v)}" for n, v in node.given]
    return f"{_wrap(node.value, _POSTFIX)}[{', '.join(keys)}]", _POSTFIX


def _conditional(node: s.Conditional) -> tuple[str, int]:
    test, then = _wrap(node.test, 1), _wrap(node.then, 1)
    return f"if {test} then {then} else {expression(node.otherwise)}", 0


def _call(node: s.Call) -> tuple[str, int]:
    args = [expression(a) for a in node.args] + [f"{n} = {expression(v)}" for n, v in node.named]
    return f"{node.name}({', '.join(args)})", _POSTFIX


_EXPRESSIONS: dict[type, Callable[[Any], tuple[str, int]]] = {
    s.Number: lambda n: (n.text, _ATOM),
    s.String: lambda n: (f'"{n.value}"', _ATOM),
    s.DiceLit: lambda n: (n.text, _ATOM),
    s.Constant: lambda n: ({True: "true", False: "false", None: "none"}[n.value], _ATOM),
    s.Name: lambda n: (n.name, _ATOM),
    s.ListLit: lambda n: ("[" + ", ".join(expression(i) for i in n.items) + "]", _ATOM),
    s.Unary: _unary,
    s.Binary: _binary,
    s.Conditional: _conditional,
    s.Attr: lambda n: (f"{_wrap(n.value, _POSTFIX)}.{n.name}", _POSTFIX),
    s.Index: _index,
    s.Call: _call,
    s.Aggregate: lambda n: (
        (f"[{expression(n.body)} for {n.var} in {expression(n.collection)}{_only_if(n)}]", _ATOM)
        if n.name == "list" else
        (f"{n.name}({expression(n.body)} for {n.var} in {expression(n.collection)}"
         f"{_only_if(n)})", _POSTFIX)),
    s.RangeExpr: _range,
}


def _only_if(n: s.Aggregate) -> str:
    """An aggregate's filter, `… if c.hp > 0`, or nothing."""
    return f" if {expression(n.where)}" if n.where is not None else ""


def _policy(d: s.PolicyDecl) -> list[str]:
    lines = [f"policy {d.name}{_title(d.title)}:"]
    for line in d.lines:
        lines += _comments(line.comments, 1) + [f"{INDENT}{line.choice} = {expression(line.value)}"]
    return lines


# ---- house rules ---------------------------------------------------------------------------


def _extends(d: s.ExtendsDecl) -> list[str]:
    return [f"extends {d.base if _NAME.match(d.base) else chr(34) + d.base + chr(34)}"]


def _replace(d: s.ReplaceDecl) -> list[str]:
    inner = _DECLARATIONS[type(d.decl)](d.decl)  # its comments sit above the `replace`
    return _comments(d.decl.comments, 0) + ["replace " + inner[0]] + inner[1:]


def _remove(d: s.RemoveDecl) -> list[str]:
    return [f"remove {d.kind} {d.name}"]


_TABLE_EDITS = {"row": "row", "remove_row": "remove row", "cell": "cell",
                "add_column": "add column", "remove_column": "remove column"}
_STEP_EDITS = {"replace": "replace", "insert_before": "insert before",
               "insert_after": "insert after", "remove": "remove"}


def _amend(d: s.AmendDecl) -> list[str]:
    if d.kind == "enum":
        return [f"amend enum {d.name}: {', '.join(_name(m.name) for m in d.edits)}"]
    lines = [f"amend {d.kind} {d.name}:"]
    for e in d.edits:
        lines += _comments(e.comments, 1)
        if d.kind == "table":
            cells = " | ".join(text for text, _ in e.row.cells())
            lines.append(f"{INDENT}{_TABLE_EDITS[e.op]} | {cells} |")
        elif isinstance(e, (s.ParamEdit, s.OutcomeEdit)):
            lines.append(INDENT + _signature_edit(e))
        elif d.kind == "procedure":
            head = f"{INDENT}{_STEP_EDITS[e.op]} {e.ref}"
            lines += [head] if e.op == "remove" else [head + ":"] + _steps(e.steps, 2)
        else:
            if e.field is not None:  # a field's comments are claimed by the field itself
                lines += _comments(e.field.comments, 1)
            word = {"add": "", "replace": "replace ", "remove": "remove "}[e.op]
            lines.append(f"{INDENT}{word}{e.name if e.op == 'remove' else _field(e.field)}")
    return lines


def _signature_edit(e: Any) -> str:
    """A base procedure's parameter or outcome amended, as written."""
    if isinstance(e, s.ParamEdit):
        return f"{e.op} parameter {_param(e.param)}"
    if e.op == "add":
        values = f" with {', '.join(e.fields)}" if e.fields else ""
        return f"add outcome {e.name}{_title(e.title)}{values}"
    where = "all outcomes" if e.name is None else f"outcome {e.name}"
    return f"add {', '.join(e.fields)} to {where}"


_DECLARATIONS: dict[type, Callable[[Any], list[str]]] = {
    s.RulebookDecl: _rulebook, s.EnumDecl: _enum, s.TableDecl: _table, s.FormulaDecl: _formula,
    s.CombatantDecl: _combatant, s.ProcedureDecl: _procedure, s.NotationDecl: _notation,
    s.ExtendsDecl: _extends, s.ReplaceDecl: _replace, s.RemoveDecl: _remove, s.AmendDecl: _amend,
    s.PolicyDecl: _policy,
    s.CalendarDecl: lambda d: ft.calendar(d, _title, expression),
    s.ExampleDecl: _example,
}


def _pattern(d: Any) -> list[str]:
    keys = " by " + ", ".join(_key(k) for k in d.keys) if d.keys else ""
    return [f"pattern {d.name}{_title(d.title)}{keys}:"] + _rows(d.rows)


def _unit(d: Any) -> list[str]:
    return [f"unit {d.name}{_title(d.title)}: {d.per_hex} per hex"]


def _placed(node: s.Placed) -> tuple[str, int]:
    level = _PRECEDENCE[".."]  # `p from a facing f` binds as a range does
    return (f"{_wrap(node.offsets, level + 1)} from {_wrap(node.at, level + 1)} facing "
            f"{_wrap(node.facing, level + 1)}", level)


_DECLARATIONS[s.PatternDecl] = _pattern
_DECLARATIONS[s.UnitDecl] = _unit
_EXPRESSIONS[s.Placed] = _placed
_EXPRESSIONS[s.MapLit] = lambda n: ("{" + ", ".join(
    f"{expression(k)}: {expression(v)}" for k, v in n.pairs) + "}", _ATOM)


def _reference(d: s.ReferenceDecl) -> list[str]:
    """A quick-reference table: its lines in the order written (each binds names the next
    ones read)."""
    lines = [f"reference {d.name}{_title(d.title)}:"]
    for line in d.lines:
        lines += _comments(line.comments, 1) + [INDENT + _reference_line(line)]
    return lines


def _reference_line(line: s.ReferenceLine) -> str:
    value = expression(line.value)
    chance = "chance " if line.chance else ""
    if line.kind == "each":
        return f"for each {line.name} in {value}"
    if line.kind in ("rows", "columns"):
        step = f" by {expression(line.step)}" if line.step is not None else ""
        return f"{line.kind} {line.name} in {value}{step}"
    if line.kind in ("let", "roll"):
        return f"{line.kind} {line.name} = {value}"
    if line.kind == "cell":
        return f"cell {chance}{value}"
    if line.kind == "column":
        return f'column "{line.name}" = {chance}{value}'
    raise AssertionError(f"no formatter for a reference's {line.kind} line")


_DECLARATIONS[s.ReferenceDecl] = _reference


def _standing(d: s.StandingDecl) -> list[str]:
    return [f'while "{d.condition}", {d.choice} may {d.mode} be {expression(d.options)}']


_DECLARATIONS[s.StandingDecl] = _standing


# ---- sheets at the table -------------------------------------------------------------------


def _sheet(d: s.SheetDecl) -> list[str]:
    lines = [("cheat sheet" if d.kind == "cheat" else "screen") + _title(d.title) + ":"]
    for line in d.lines:
        items = ", ".join(item.name for item in line.items)
        if line.op in ("section", "panel"):
            said = f'{line.op} "{line.section}": {items}'
        elif line.op == "remove":
            said = f"remove {items}"
        else:
            place = f" {line.place[0]} {line.place[1].name}" if line.place else ""
            said = f'{line.op} {items} to "{line.section}"{place}'
        lines += _comments(line.comments, 1) + [INDENT + said]
    return lines


_DECLARATIONS[s.SheetDecl] = _sheet
