"""What one rulebook changes of another, in the rules' own terms: table cells old → new, rows
and columns added or removed, formulas, procedure steps, enum members, combatant fields.

Works on any two compiled rulebooks (a base and its house rules, two versions of a file), so
`diff A A` is empty by construction rather than by special case.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

import attrs

from rulecraft.runtime.errors import text_of
from rulecraft.runtime.procedures import Procedure, Step
from rulecraft.runtime.rulebook import Rulebook
from rulecraft.runtime.tables import Table


@attrs.frozen
class Change:
    """One rule added, removed or changed, with what changed in it."""

    kind: str  # "table", "formula", "procedure", "enum", "combatant"
    name: str
    what: str  # "added", "removed" or "changed"
    details: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "what": self.what,
                "details": list(self.details)}

    def __str__(self) -> str:
        head = f"{self.kind} {self.name}: {self.what}"
        return "\n".join([head] + [f"  {d}" for d in self.details])


def diff(old: Rulebook, new: Rulebook) -> list[Change]:
    """Every rule `new` adds, removes or changes relative to `old`, in the order of kinds."""
    changes: list[Change] = []
    changes += _compare("enum", old.enums, new.enums, _enum)
    changes += _compare("table", old.tables, new.tables, _table)
    changes += _compare("formula", old.formulas, new.formulas, _formula)
    changes += _compare("combatant", old.combatant_models, new.combatant_models, _combatant)
    changes += _compare("procedure", old.procedures, new.procedures, _procedure)
    changes += _compare("reference", old.references, new.references, _reference)
    return changes


def _compare(kind: str, old: Any, new: Any, details: Any) -> list[Change]:
    out = []
    for name in old:
        if name not in new:
            out.append(Change(kind, name, "removed"))
    for name in new:
        if name not in old:
            out.append(Change(kind, name, "added"))
        else:
            found = tuple(details(old[name], new[name]))
            if found:
                out.append(Change(kind, name, "changed", found))
    return out


def _reference(old: Any, new: Any) -> Iterable[str]:
    before, after = _written(old), _written(new)
    if before != after:
        yield f"was: {before}"
        yield f"now: {after}"


def _written(reference: Any) -> str:
    """A quick-reference table as its rule file writes it, on one line."""
    if reference.span is None or reference.source is None:
        return reference.title
    text = text_of(reference.source, reference.span.filename) or ""
    lines = text[reference.span.start:reference.span.end].splitlines()
    return " ".join(" ".join(line.split()) for line in lines
                    if line.strip() and not line.strip().startswith("#"))


def _enum(old: Any, new: Any) -> Iterable[str]:
    for m in old.members:
        if m not in new.members:
            yield f"member {m} removed"
    for m in new.members:
        if m not in old.members:
            yield f"member {m} added"


def _formula(old: Any, new: Any) -> Iterable[str]:
    before, after = _signature(old), _signature(new)
    if before != after:
        yield f"was: {before}"
        yield f"now: {after}"


def _signature(f: Any) -> str:
    params = ", ".join(f"{p.name}: {p.type.text}" for p in f.params)
    return f"{f.name}({params}) = {f.body}"


def _combatant(old: Any, new: Any) -> Iterable[str]:
    before = {f.name: _first_line(f.text) for f in old.fields}
    after = {f.name: _first_line(f.text) for f in new.fields}
    for name, text in before.items():
        if name not in after:
            yield f"field {name} removed (was: {text})"
        elif after[name] != text:
            yield f"field {name}: {text} → {after[name]}"
    for name, text in after.items():
        if name not in before:
            yield f"field {name} added: {text}"


def _first_line(text: str) -> str:
    """A field as written, without the comments that follow it in the file."""
    return text.strip().splitlines()[0] if text.strip() else text


def _table(old: Table, new: Table) -> Iterable[str]:
    if [k.name for k in old.keys] != [k.name for k in new.keys]:
        yield (f"keys: {', '.join(k.name for k in old.keys)} → "
               f"{', '.join(k.name for k in new.keys)}")
    for label in old.columns:
        if label not in new.columns:
            yield f"column {label} removed"
    for label in new.columns:
        if label not in old.columns:
            yield f"column {label} added"
    before, after = _rows(old), _rows(new)
    for key, cells in before.items():
        if key not in after:
            yield f"row {key} removed"
            continue
        for label, text in cells.items():
            now = after[key].get(label)
            if now is not None and now != text:
                yield f"{key}, {label}: {text or '(blank)'} → {now or '(blank)'}"
    for key in after:
        if key not in before:
            yield f"row {key} added: {' | '.join(after[key].values())}"


def _rows(table: Table) -> dict[str, dict[str, str]]:
    """Each printed row by its key cells' text: its cells' text by column label."""
    return {" | ".join(c.text for c in row.keys): dict(zip(table.columns,
                                                          (c.text for c in row.cells)))
            for row in table.rows}


def _procedure(old: Procedure, new: Procedure) -> Iterable[str]:
    before, after = _lines(old.steps), _lines(new.steps)
    if [p.name for p in old.params] != [p.name for p in new.params]:
        yield (f"parameters: {', '.join(p.name for p in old.params)} → "
               f"{', '.join(p.name for p in new.params)}")
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op in ("delete", "replace"):
            yield from (f"- {line}" for line in before[a0:a1])
        if op in ("insert", "replace"):
            yield from (f"+ {line}" for line in after[b0:b1])


def _lines(steps: tuple[Step, ...], depth: int = 0) -> list[str]:
    """The steps as indented lines of rule text, nested blocks under their step."""
    out: list[str] = []
    pad = "  " * depth
    for step in steps:
        out.append(pad + step.text)
        for i, (label, block) in enumerate(step.blocks):
            if i and step.kind == "if":
                out.append(pad + ("else:" if label == "otherwise" else f"else if {label}:"))
            elif label == "at the cap":
                out.append(pad + "at the cap:")
            out += _lines(block, depth + 1)
    return out


__all__ = ["Change", "diff"]
