"""`rulecraft show`: what a compiled rulebook holds, as data with stable keys (JSON for
programs; `show_text` lays it out for people), and the Python it compiles to.

Most of it is read off the runtime objects. What they do not carry — who makes each choice and
from which options, the types of an outcome's values, what each generated global holds — is read
from what the compiler keeps beside each rulebook (`COMPILED`: its scope, with the checked
syntax tree and the outcome schemas).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import attrs

from rulecraft.compiler.build import COMPILED
from rulecraft.dsl import syntax as s
from rulecraft.runtime.combatants import CombatantModel
from rulecraft.runtime.dice import Dice
from rulecraft.runtime.errors import Span, UnknownNameError
from rulecraft.runtime.fight_sides import side_params
from rulecraft.runtime.procedures import Procedure, Step
from rulecraft.runtime.results import jsonable
from rulecraft.runtime.rulebook import Enum, Formula, Param, Rulebook
from rulecraft.runtime.space import Pattern, picture
from rulecraft.runtime.tables import Column, Key, Table
from rulecraft.runtime.values import display

# -- what a rulebook holds, as JSON-ready data (stable keys) --------------------------------------

def overview(rb: Rulebook) -> dict[str, Any]:
    """Every table, formula, procedure, combatant model and enum, in summary."""
    data = {"rulebook": rb.name, "title": rb.title, "file": rb.filename,
            "tables": [_table(t, _enum_names(rb)) for t in rb.tables.values()],
            "formulas": [_formula(f) for f in rb.formulas.values()],
            "procedures": [_procedure(rb, p) for p in rb.procedures.values()],
            "combatants": [_combatant(rb, m) for m in _models(rb).values()],
            "enums": [_enum(e) for e in rb.enums.values()],
            **_referee(rb),
            **({"calendar": _calendar(rb)} if _calendar(rb) is not None else {})}
    # Space's declarations, only where a rulebook has them (the keys above stay as they were).
    patterns, units = getattr(rb, "patterns", {}), getattr(rb, "units", {})
    if patterns:
        data["patterns"] = [_pattern(p) for p in patterns.values()]
    if units:
        data["units"] = [{"name": u.name, "title": u.title, "per_hex": jsonable(u.per_hex)}
                         for u in units.values()]
    policies = getattr(rb, "policies", {})
    if policies:  # what `--policy NAME` decides, as written
        data["policies"] = [{"name": p.name, "title": p.title, "line": _line(p.span),
                             "answers": [{"choice": a.choice, "text": a.text}
                                         for a in p.answers]} for p in policies.values()]
    return data


def _referee(rb: Rulebook) -> dict[str, Any]:
    """The referee's calls and the standing constraints, under keys of their own when the
    rulebook has any (a rulebook without them shows the keys it always showed)."""
    found = {"rulings": rulings(rb), "standing": _standing(rb)}
    return {key: value for key, value in found.items() if value}


def rulings(rb: Rulebook) -> list[dict[str, Any]]:
    """The referee's calls, in one list: each `ruling "…"` step (the steps go on) and each
    `outcome by referee "…"` (the procedure ends in it), with its procedure and line."""
    found: list[dict[str, Any]] = []

    def walk(procedure: str, steps: tuple[Step, ...]) -> None:
        for step in steps:
            ruled = re.match(r'(ruling|outcome\s+by\s+referee)\s+"([^"]*)"', step.text)
            if ruled is not None and step.kind in ("ruling", "outcome"):
                found.append({"procedure": procedure, "text": ruled[2],
                              "ends": step.kind == "outcome", "line": _line(step.span)})
            for _, block in step.blocks:
                walk(procedure, block)

    for p in rb.procedures.values():
        walk(p.name, p.steps)
    return found


def _standing(rb: Rulebook) -> list[dict[str, Any]]:
    """The standing constraints on choices (`while "Stunned", defence may only be "Parry"`)."""
    compiled = COMPILED.get(rb)
    scope = compiled[0] if compiled is not None else None
    return [{"condition": d.condition, "choice": d.choice, "mode": d.mode,
             "options": _plain(scope, d.options), "line": _line(d.span)}
            for d in (scope.standing if scope is not None else ())]


def _pattern(p: Pattern) -> dict[str, Any]:
    """A pattern's rows: key cells, its hexes as offsets `[q, r]` for facing 0, in words."""
    return {"name": p.name, "title": p.title, "keys": list(p.keys), "line": _line(p.span),
            "rows": [{"keys": list(keys), "hexes": jsonable(hexes), "words": said,
                      "picture": picture(hexes)}
                     for (keys, hexes), (_, said) in zip(p.rows, p.described())]}


def entry(rb: Rulebook, name: str) -> dict[str, Any]:
    """One table, formula, procedure, enum or combatant model in full, found by name or
    printed title; an UnknownNameError with the closest name otherwise."""
    kind, item = find(rb, name)
    if kind == "table":
        data = _table(item, _enum_names(rb))
        data["options"] = dict(item.options)
        data["header"] = list(item.side_labels + item.columns)
        data["rows"] = [{"keys": [c.text for c in row.keys], "cells": [c.text for c in row.cells],
                         "line": _line(row.span), "comments": list(row.comments)}
                        for row in item.rows]
    elif kind == "formula":
        data = _formula(item)
    elif kind == "procedure":
        data = _procedure(rb, item)
        data["steps"] = [_step(step) for step in item.steps]
    elif kind == "enum":
        data = _enum(item)
    elif kind == "pattern":
        data = _pattern(item)
    elif kind == "policy":
        data = {"name": item.name, "title": item.title, "line": _line(item.span),
                "answers": [{"choice": a.choice, "text": a.text} for a in item.answers]}
    else:
        data = _combatant(rb, item)
    data["comments"] = list(item.comments)
    data["rule"] = _rule_lines(rb.source, item.span)
    return {"kind": kind, **data}


def find(rb: Rulebook, name: str) -> tuple[str, Any]:
    """(kind, item) for a name or a printed title ("Wounds Table" finds `wounds`)."""
    groups: list[tuple[str, dict[str, Any]]] = [
        ("table", dict(rb.tables)), ("formula", dict(rb.formulas)),
        ("procedure", dict(rb.procedures)), ("enum", dict(rb.enums)),
        ("combatant", _models(rb)), ("pattern", dict(getattr(rb, "patterns", {}))),
        ("policy", dict(getattr(rb, "policies", {})))]
    for kind, items in groups:
        if name in items:
            return kind, items[name]
    wanted = _folded(name)
    for kind, items in groups:
        for item in items.values():
            if wanted == _folded(item.title):
                return kind, item
    names = [n for _, items in groups for n in items]
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise UnknownNameError(f"rulebook {rb.name} has no table, formula, procedure, enum, "
                           f"combatant or policy called {name!r}{hint} (`rulecraft show "
                           f"{_as_given(rb)}` lists what it has)")


def _as_given(rb: Rulebook) -> str:
    """The rulebook as a command names it: a built-in by its name, a file by its path."""
    from .listing import builtin_rulebooks

    if rb.filename == f"{rb.name}.rules" and rb.name in builtin_rulebooks():
        return rb.name
    return rb.filename if " " not in rb.filename else f'"{rb.filename}"'


def _folded(text: str) -> str:
    return "_".join(text.lower().replace("-", " ").split())


def _enum_names(rb: Rulebook) -> dict[tuple[str, ...], str]:
    return {e.members: e.name for e in reversed(rb.enums.values())}  # the first declared wins


def _table(t: Table, enums: dict[tuple[str, ...], str]) -> dict[str, Any]:
    return {"name": t.name, "title": t.title, "layout": t.layout,
            "keys": [{"name": k.name, "type": _key_type(k, enums), "in_cells": k.in_cells}
                     for k in t.keys],
            "columns": list(t.fields), "line": _line(t.span)}


def _key_type(key: Key, enums: dict[tuple[str, ...], str]) -> str:
    """A key's type as a rule writes it: a range, integer, number, an enum, or the row names."""
    if key.kind in ("integer", "number"):
        if key.low is not None and key.high is not None:
            return f"{display(key.low)}..{display(key.high)}"
        return key.kind
    return enums.get(key.members or (), key.name)  # else the rows name a type (`by weapon`)


def _param(p: Param) -> dict[str, Any]:
    return {"name": p.name, "type": p.type.text, "optional": p.has_default,
            "default": jsonable(p.default) if p.has_default else None}


def _formula(f: Formula) -> dict[str, Any]:
    return {"name": f.name, "title": f.title, "params": [_param(p) for p in f.params],
            "body": f.body, "line": _line(f.span),
            **({"where": [{"name": n, "value": v} for n, v in f.where]} if f.where else {})}


def _enum(e: Enum) -> dict[str, Any]:
    return {"name": e.name, "title": e.title, "members": list(e.members), "line": _line(e.span)}


def _models(rb: Rulebook) -> dict[str, CombatantModel]:
    """Every combatant model of a rulebook (a rider and a horse are two), by name."""
    models = getattr(rb, "combatant_models", None)
    if models:
        return dict(models)
    return {rb.combatant_model.name: rb.combatant_model} if rb.combatant_model else {}


def _combatant(rb: Rulebook, model: CombatantModel) -> dict[str, Any]:
    compiled = COMPILED.get(rb)
    scope = compiled[0] if compiled is not None else None
    types = getattr(scope, "model_fields", {}).get(model.name) or \
        getattr(scope, "combatant_fields", {})  # what the compiler worked derived figures out to
    fields: dict[str, list[dict[str, Any]]] = {"characteristics": [], "state": [], "derived": []}
    for f in model.fields:
        data: dict[str, Any] = {"name": f.name, "line": _line(f.span)}
        if f.role == "derived":
            data["type"] = _type_name(types.get(f.name))
            data["formula"] = f.text.split("\n")[0].split("=", 1)[1].strip()
            fields["derived"].append(data)
            continue
        assert f.type is not None
        data["type"] = f.type.text
        if f.role == "state":
            data["default"] = jsonable(f.default) if f.has_default else None
            data["combined_by"] = f.combine
            fields["state"].append(data)
        else:
            data["optional"] = f.has_default
            fields["characteristics"].append(data)
    return {"name": model.name, "title": model.title, **fields, "line": _line(model.span)}


def _procedure(rb: Rulebook, p: Procedure) -> dict[str, Any]:
    compiled = COMPILED.get(rb)
    scope = compiled[0] if compiled is not None else None
    found = {"name": p.name, "title": p.title, "params": [_param(x) for x in p.params],
             "choices": _choices(scope, p), "outcomes": _outcomes(scope, p),
             "events": _events(p.steps), "line": _line(p.span)}
    units = getattr(scope, "time_units", None)
    if p.clock is not None:  # an encounter: its clock and the clock's units (issue 15)
        clock = units.clocks.get(p.clock) if units is not None else None
        found["clock"] = {"name": p.clock, "units": {
            k: display(v) for k, v in (clock.factors if clock else {}).items() if k != p.clock}}
        # its sides, each with its fighter parameters
        groups = p.sides or tuple((x.name, (x.name,)) for x in side_params(p))
        found["sides"] = [{"name": name, "fighters": list(params)} for name, params in groups]
    return found


def _events(steps: Any) -> list[dict[str, Any]]:
    """The events a procedure schedules, raises or fires on (runtime/clock_events.py)."""
    found = []
    for step in steps:
        if step.kind in ("event", "trigger", "raise"):
            found.append({"kind": step.kind, "text": step.text.rstrip(":"),
                          "line": _line(step.span)})
        for _, block in step.blocks:
            found += _events(block)
    return found


def _calendar(rb: Rulebook) -> dict[str, Any] | None:
    """The rulebook's calendar (`calendar days "days": week = 7`) and its units, if any."""
    compiled = COMPILED.get(rb)
    units = getattr(compiled[0], "time_units", None) if compiled is not None else None
    if units is None or units.calendar is None:
        return None
    own = units.calendar.own
    return {"name": own, "units": {k: display(v) for k, v in units.calendar.factors.items()
                                   if k != own}}


def _step(step: Step) -> dict[str, Any]:
    return {"kind": step.kind, "text": step.text, "line": _line(step.span),
            "comments": list(step.comments),
            "blocks": [{"when": when, "steps": [_step(x) for x in steps]}
                       for when, steps in step.blocks]}


def _line(span: Span | None) -> int | None:
    return span.line if span is not None else None


# -- choices and outcomes, from what the compiler knows ----------------------------------------

def _choices(scope: Any, p: Procedure) -> list[dict[str, Any]]:
    """Every choice a run of `p` can be given: who makes it, its options and default, and the
    procedure whose step makes it (`p` or one it calls)."""
    decl = scope.procedures.get(p.name) if scope is not None else None
    found: dict[str, dict[str, Any]] = {}
    if decl is not None:
        for procedure, node in _choose_steps(scope, decl, {decl.name}):
            found.setdefault(node.name, {
                "name": node.name, "by": node.party, "options": _options(scope, node.options),
                "default": _plain(scope, node.default), "procedure": procedure})
    for name in p.choice_names:  # known by name only: nothing more is said
        found.setdefault(name, {"name": name, "by": None, "options": None, "default": None,
                                "procedure": None})
    return list(found.values())


def _choose_steps(scope: Any, decl: s.ProcedureDecl,
                  seen: set[str]) -> Iterator[tuple[str, s.ChooseStep]]:
    """The `choose` steps of a procedure and of those it calls, in the order written."""
    for node in _nodes(decl.steps):
        if isinstance(node, s.ChooseStep):
            yield decl.name, node
        callee = getattr(node, "procedure", None)  # a `call` step
        if isinstance(callee, str) and callee in scope.procedures and callee not in seen:
            seen.add(callee)
            yield from _choose_steps(scope, scope.procedures[callee], seen)


def _outcomes(scope: Any, p: Procedure) -> list[dict[str, Any]]:
    """Each outcome with its fields, and their types as far as the compiler worked them out."""
    schema = getattr(scope, "schemas", {}).get(p.name) if scope is not None else None
    titles = getattr(schema, "titles", {})
    types = getattr(schema, "types", {})
    return [{"name": name, "title": titles.get(name),
             "fields": [{"name": f, "type": _type_name(types.get((name, f)))} for f in fields]}
            for name, fields in getattr(p, "outcomes", {}).items()]


def _type_name(t: Any) -> str | None:
    """A compiler type as a rule writes it (`integer`, `injury`, `list injury`), or None when
    it is known only when the rule runs."""
    kind = getattr(t, "kind", "any")
    if kind == "any":
        return None
    domain, ref = getattr(t, "domain", None), getattr(t, "ref", None)
    text = {"int": "integer", "num": "number"}.get(kind, kind)
    if kind == "name" and domain is not None:
        text = domain.name
    elif kind in ("combatant", "table") and ref:
        text = ref if kind == "combatant" else f"table {ref}"
    elif kind == "list":
        text = f"list {_type_name(t.item) or 'any'}"
    elif kind == "map":
        text = f"map {_type_name(t.key) or 'any'} -> {_type_name(t.item) or 'any'}"
    return text + (" or none" if getattr(t, "maybe", False) else "")


def _nodes(steps: tuple[Any, ...]) -> Iterator[Any]:
    """Every step at any depth, in the order written (whatever blocks a kind of step has)."""
    stack: list[Any] = list(reversed(steps))
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(reversed(node))
            continue
        if not attrs.has(type(node)) or isinstance(node, Span):
            continue
        yield node
        if isinstance(node, (s.ChooseStep, s.OutcomeStep)):
            continue  # their expressions hold no steps
        stack.extend(reversed([getattr(node, f.name) for f in attrs.fields(type(node))]))


def _options(scope: Any, node: Any) -> list[Any] | str:
    """A choice's options: an enum's members or a list's items, else the rule text."""
    if isinstance(node, s.Name):
        domain = scope.domain(node.name)
        if domain is not None:
            return list(domain.members)
    if isinstance(node, s.ListLit) and all(isinstance(i, (s.String, s.Number)) for i in node.items):
        return [_plain(scope, i) for i in node.items]
    return scope.text(node.span)


def _plain(scope: Any, node: Any) -> Any:
    """A literal's value (`"Parry"`, `true`), else the expression as written."""
    if isinstance(node, s.String):
        return node.value
    if isinstance(node, s.Constant):
        return node.value
    return scope.text(node.span)


def _rule_lines(source: str, span: Span | None) -> list[dict[str, Any]]:
    """The lines of a declaration as written, numbered; the comments that follow it, which
    belong to the next declaration, left out."""
    if span is None:
        return []
    start = source.rfind("\n", 0, span.start) + 1  # from the start of its first line
    lines = source[start:span.end].split("\n")
    while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return [{"line": span.line + i, "text": text.rstrip()} for i, text in enumerate(lines)]


# -- the generated Python -----------------------------------------------------------------------

def python_text(rb: Rulebook, name: str | None = None) -> str:
    """The module a rulebook compiles to, or only the functions generated for one entry (a
    formula's, a procedure's, a combatant model's `derive` and its figures' `d_…`, a table's
    expression cells)."""
    if name is None:
        header, _, body = rb.python_source.partition("\n")
        return "\n".join([header, *_legend(rb), "", body])
    kind, item = find(rb, name)
    own = {"formula": {f"f_{item.name}", f"pub_{item.name}"}, "procedure": {f"p_{item.name}"},
           }.get(kind, set())
    if kind == "combatant":
        own = {item.derive.__name__, *(f.fn.__name__ for f in item.figures)}
    lines = range(item.span.line, item.span.end_line + 1) if item.span else range(0)
    found = [code for function, line, code in _functions(rb.python_source)
             if function in own or (function.startswith("cell_") and line in lines)]
    if not found:
        raise UnknownNameError(f"{kind} {item.name} has no generated code of its own: the "
                               "functions that use it read it")
    return "\n".join(found)


def _legend(rb: Rulebook) -> list[str]:
    """What the module's globals hold: they are bound when it is compiled, not written in it."""
    compiled = COMPILED.get(rb)
    constants = compiled[0].constants if compiled is not None else {}
    out = ["# The globals it reads are bound when it is compiled (helpers `_name` come from",
           "# rulecraft.runtime.helpers; SPAN_L<line>_C<column> is a place in the rule file):"]
    out += [f"#   {name} = {_held(value)}" for name, value in constants.items()
            if not name.startswith("SPAN_")]
    return out


def _held(value: Any) -> str:
    """A generated global's value, in a few words."""
    if isinstance(value, Table):
        return f'table {value.name} "{value.title}"'
    if isinstance(value, Column):
        return f"column {value.field} of table {value.table.name}, by key"
    if isinstance(value, Param):
        return f"parameter {value.name}: {value.type.text} (line {_line(value.span)})"
    if isinstance(value, (frozenset, tuple)):
        text = ", ".join(sorted(map(str, value)) if isinstance(value, frozenset) else
                         map(str, value))
        return "{" + (text if len(text) <= 70 else text[:67] + "...") + "}"
    if isinstance(value, (int, Decimal, Dice)):
        return str(value)
    return type(value).__name__


def _functions(source: str) -> Iterator[tuple[str, int | None, str]]:
    """Each top-level function of a generated module: its name, the rule line its first
    `# file:line:` comment names, and its code."""
    block: list[str] = []
    for text in source.split("\n") + ["<end>"]:
        if block and text and not text[0].isspace():
            code = "\n".join(block).rstrip("\n") + "\n"
            origin = next((t for t in block[1:] if t.lstrip().startswith("# ")), "")
            found = re.match(r"\s*# .*?:(\d+): ", origin)
            yield block[0][4:].split("(", 1)[0], int(found[1]) if found else None, code
            block = []
        if text.startswith("def ") or block:
            block.append(text)


__all__ = ["entry", "find", "overview", "python_text"]
