"""Quick-reference tables: check each `reference` and write the Python that works its cells out.

A reference is compiled like a formula, against the same scope, so its cells call the rulebook's
own formulas and tables; after the module runs, `wire` hands the generated functions to the
runtime `Reference` that sheets read. Every mistake is reported with the others of the file.
"""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError
from rulecraft.runtime.references import Reference

from .codegen import Writer
from .expressions import Env
from .types import INT, T

_AXES = ("each", "rows", "columns")


@attrs.define
class Pending:
    """A reference whose functions are written but not yet run: what wiring it needs."""

    decl: s.ReferenceDecl
    each: tuple[str, ...]
    rows: str
    columns: str | None
    labels: tuple[str, ...]
    chance: tuple[bool, ...]
    rolls: tuple[str, ...]
    shows: tuple[str, ...]  # each shown value's expression, as written


def plan(writer: Writer, decls: tuple[Any, ...]) -> list[Pending]:
    """Check every reference and write its two functions: `refaxes_NAME()` gives its
    collections and dice, `ref_NAME(**values)` the values of one cell."""
    return [p for p in (_plan(writer, d) for d in decls if isinstance(d, s.ReferenceDecl))
            if p is not None]


def wire(pending: list[Pending], namespace: dict[str, Any], source: str) -> dict[str, Reference]:
    """The runtime references, each with its generated functions."""
    out = {}
    for p in pending:
        d = p.decl
        out[d.name] = Reference(d.name, d.title or d.name, p.each, p.rows, p.columns, p.labels,
                                p.chance, p.rolls, p.shows, d.span, d.comments, source,
                                namespace[f"refaxes_{d.name}"], namespace[f"ref_{d.name}"])
    return out


def _plan(writer: Writer, d: s.ReferenceDecl) -> Pending | None:
    scope = writer.scope
    errors = len(scope.errors)
    by_kind: dict[str, list[s.ReferenceLine]] = {}
    for line in d.lines:
        by_kind.setdefault(line.kind, []).append(line)
    _check_shape(writer, d, by_kind)
    _check_names(writer, d)
    axes = [line for line in d.lines if line.kind in _AXES]
    axes.sort(key=lambda line: _AXES.index(line.kind))  # each, rows, columns: as `axes()` gives
    rolls = by_kind.get("roll", [])
    env = _axes_function(writer, d, axes, rolls)
    cells = by_kind.get("cell", []) or by_kind.get("column", [])
    _cell_function(writer, d, env, by_kind.get("let", []), cells, bool(rolls))
    if len(scope.errors) > errors or not by_kind.get("rows"):
        return None
    columns = by_kind.get("columns")
    return Pending(d, tuple(line.name or "" for line in by_kind.get("each", [])),
                   by_kind["rows"][0].name or "", columns[0].name if columns else None,
                   tuple(line.name or "" for line in cells), tuple(c.chance for c in cells),
                   tuple(line.name or "" for line in rolls),
                   tuple(scope.text(line.value.span) for line in cells))


def _check_shape(writer: Writer, d: s.ReferenceDecl,
                 by_kind: dict[str, list[s.ReferenceLine]]) -> None:
    """One `rows`, at most one `columns`; one `cell`, or `column` lines without a `columns`
    axis; `chance` exactly where there are rolls."""
    error = writer.scope.error
    if not by_kind.get("rows"):
        error(RuleTypeError, f"reference {d.name} needs a `rows NAME in …` line: what its rows "
              "go over", d.span)
    for kind in ("rows", "columns", "cell"):
        for extra in by_kind.get(kind, [])[1:]:
            error(RuleTypeError, f"a reference has one `{kind}` line", extra.span)
    cells, columns = by_kind.get("cell", []), by_kind.get("column", [])
    if not cells and not columns:
        error(RuleTypeError, f"reference {d.name} needs what it shows: a `cell …` line, or a "
              "`column \"Label\" = …` line for each column", d.span)
    for line in columns if cells else ():
        error(RuleTypeError, "a reference shows one `cell` or `column` lines, not both",
              line.span)
    if by_kind.get("columns") and not cells:
        for line in columns:
            error(RuleTypeError, "its columns go over the `columns` line's values: show one "
                  "`cell …`, not a `column` of its own", line.span)
    rolled = bool(by_kind.get("roll"))
    for line in cells + columns:
        if rolled and not line.chance:
            error(RuleTypeError, "with dice rolled, a cell is the chance of something: write "
                  f"`{line.kind} {'' if line.kind == 'cell' else repr(line.name) + ' = '}"
                  "chance …`", line.value.span)
        if line.chance and not rolled:
            error(RuleTypeError, "a chance is worked out over dice: add a `roll NAME = …` line "
                  "(such as `roll attack_roll = d20`)", line.span)


def _check_names(writer: Writer, d: s.ReferenceDecl) -> None:
    """Each name bound once (an axis, a roll, a `let`), and each label once."""
    seen: dict[str, s.ReferenceLine] = {}
    labels: set[str] = set()
    for line in d.lines:
        if line.kind == "column":
            if line.name in labels:
                writer.scope.error(RuleTypeError, f"the column {line.name!r} is shown twice",
                                   line.span)
            labels.add(line.name or "")
        elif line.name is not None:
            if line.name in seen:
                writer.scope.error(RuleTypeError, f"{line.name} is named twice in reference "
                                   f"{d.name} (first at line {seen[line.name].span.line})",
                                   line.span)
            seen.setdefault(line.name, line)


def _axes_function(writer: Writer, d: s.ReferenceDecl, axes: list[s.ReferenceLine],
                   rolls: list[s.ReferenceLine]) -> Env:
    """`refaxes_NAME()`: each axis' values (every Nth with `by N`) and each roll's dice.
    Axes and dice are read before any cell, so they name no other line's value. Returns the
    names a cell may read, typed."""
    env: Env = {}
    parts: list[str] = []
    writer.line(0, f"def refaxes_{d.name}():")
    for line in axes:
        writer.origin(1, line.span)
        code, item = writer.emit.collection(line.value, {}, f"{line.kind} {line.name} in … goes "
                                            "over")
        step = _step(writer, line)
        parts.append(f"tuple({code})" + (f"[::{step}]" if step > 1 else ""))
        env[line.name or ""] = (f"v_{line.name}", item)
    for line in rolls:
        writer.origin(1, line.span)
        code, t = writer.emit.expr(line.value, {})
        if t.kind not in ("dice", "int", "num", "any"):
            writer.scope.error(RuleTypeError, f"roll needs dice, not {t}", line.value.span)
        parts.append(writer.emit.cast(code, t, "dice", line.value))
        env[line.name or ""] = (f"v_{line.name}", INT)
    writer.line(1, f"return ({''.join(p + ', ' for p in parts)})")
    writer.line(0, "")
    return env


def _step(writer: Writer, line: s.ReferenceLine) -> int:
    """`by N`: a whole number of 1 or more, written as it is."""
    if line.step is None:
        return 1
    if isinstance(line.step, s.Number) and line.step.text.isdigit() and int(line.step.text) > 0:
        return int(line.step.text)
    writer.scope.error(RuleTypeError, "`by` takes a whole number of 1 or more (`by 2`: every "
                       "second value)", line.step.span)
    return 1


def _cell_function(writer: Writer, d: s.ReferenceDecl, env: Env, lets: list[s.ReferenceLine],
                   cells: list[s.ReferenceLine], rolled: bool) -> None:
    """`ref_NAME(values)`: from the axes' and rolls' values by name, the `let` values in
    order, then each shown value (a yes or no for a `chance`, summed over the rolls)."""
    env = dict(env)
    writer.line(0, f"def ref_{d.name}(_values):")
    for name in env:
        writer.line(1, f"v_{name} = _values.get({name!r})")
    for line in lets:
        writer.origin(1, line.span)
        code, t = writer.emit.expr(line.value, env)
        writer.line(1, f"v_{line.name} = {code}")
        env[line.name or ""] = (f"v_{line.name}", t)
    values = []
    for line in cells:
        writer.origin(1, line.span)
        if line.chance:
            code, _ = writer.emit.condition(line.value, env)
        else:
            code, t = writer.emit.expr(line.value, env)
            _check_value(writer, line, t)
        values.append(code)
    writer.line(1, f"return ({''.join(v + ', ' for v in values)})")
    writer.line(0, "")


def _check_value(writer: Writer, line: s.ReferenceLine, t: T) -> None:
    if t.kind == "dice":
        writer.scope.error(RuleTypeError, "a reference shows values, not dice: show the chance "
                           "of a roll (`roll r = …` and `cell chance r >= 10`), or mean(…)",
                           line.value.span)
    elif t.kind in ("table", "combatant"):
        writer.scope.error(RuleTypeError, f"a reference shows values, not {t}: look something "
                           "up in it", line.value.span)


__all__ = ["Pending", "plan", "wire"]
