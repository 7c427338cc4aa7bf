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
from rulecraft.runtime.values import display


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


# Steps of matching procedures' lines one `diff` may spend, all procedures together: about a
# second. difflib finds the longest run alike, then again on each side of it, so lines repeated
# many times cost it the product of their counts over and over (two 48 KB files of repeated
# steps took 273 s); once the budget is spent, the lines that differ are listed whole instead.
MATCH_WORK = 5_000_000


@attrs.define
class _Budget:
    """The matching work a diff has left."""

    left: int

    def spend(self, work: int) -> bool:
        """Take `work` from what is left, if there is that much."""
        if work > self.left:
            return False
        self.left -= work
        return True


def diff(old: Rulebook, new: Rulebook) -> list[Change]:
    """Every rule `new` adds, removes or changes relative to `old`, in the order of kinds."""
    budget = _Budget(MATCH_WORK)
    changes: list[Change] = []
    changes += _compare("enum", old.enums, new.enums, _enum)
    changes += _compare("table", old.tables, new.tables, _table)
    changes += _compare("formula", old.formulas, new.formulas, _formula)
    changes += _compare("combatant", old.combatant_models, new.combatant_models, _combatant)
    changes += _compare("procedure", old.procedures, new.procedures,
                        lambda before, after: _procedure(before, after, budget))
    changes += _compare("reference", old.references, new.references, _reference)
    changes += _compare("pattern", getattr(old, "patterns", {}), getattr(new, "patterns", {}),
                        _pattern)
    changes += _compare("unit", getattr(old, "units", {}), getattr(new, "units", {}), _unit)
    return changes


def _pattern(old: Any, new: Any) -> Iterable[str]:
    """A pattern's rows that differ, in words ("Short / Right: was ahead; now ahead; 2 ahead")."""
    before, after = dict(old.described()), dict(new.described())
    for keys in {**before, **after}:
        label = " / ".join(map(str, keys)) or "hexes"
        if keys not in after:
            yield f"{label} removed"
        elif keys not in before:
            yield f"{label} added: {after[keys]}"
        elif before[keys] != after[keys]:
            yield f"{label}: was {before[keys]}; now {after[keys]}"


def _unit(old: Any, new: Any) -> Iterable[str]:
    if old.per_hex != new.per_hex:
        yield f"was {old.per_hex} per hex; now {new.per_hex} per hex"


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
    before, after = set(old.members), set(new.members)
    for m in old.members:
        if m not in after:
            yield f"member {m} removed"
    for m in new.members:
        if m not in before:
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
    columns_before, columns_after = set(old.columns), set(new.columns)
    for label in old.columns:
        if label not in columns_after:
            yield f"column {label} removed"
    for label in new.columns:
        if label not in columns_before:
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


def _procedure(old: Procedure, new: Procedure, budget: _Budget) -> Iterable[str]:
    names_before, names_after = [p.name for p in old.params], [p.name for p in new.params]
    if names_before != names_after and sorted(names_before) == sorted(names_after):
        yield (f"parameters: {', '.join(p.name for p in old.params)} → "
               f"{', '.join(p.name for p in new.params)}")
    yield from _parameters(old.params, new.params)
    yield from _outcomes(old.outcomes, new.outcomes)
    yield from _steps(_lines(old.steps), _lines(new.steps), budget)


def _parameters(old: tuple[Any, ...], new: tuple[Any, ...]) -> Iterable[str]:
    """Each parameter added, removed, retyped or given another default."""
    before = {p.name: _parameter(p) for p in old}
    after = {p.name: _parameter(p) for p in new}
    for name, text in before.items():
        if name not in after:
            yield f"parameter {name} removed (was: {text})"
        elif after[name] != text:
            yield f"parameter {name}: {text} → {after[name]}"
    for name, text in after.items():
        if name not in before:
            yield f"parameter {name} added: {text}"


def _parameter(p: Any) -> str:
    """A parameter as a rule file declares it: `bonus: -5..5 = 0`."""
    text = f"{p.name}: {p.type.text}"
    if not p.has_default:
        return text
    value = p.default
    shown = f'"{value}"' if isinstance(value, str) else (
        ("true" if value else "false") if isinstance(value, bool) else display(value))
    return f"{text} = {shown}"


def _outcomes(old: Any, new: Any) -> Iterable[str]:
    """Outcomes added or removed, and the values each carries added or removed."""
    for name, values in old.items():
        if name not in new:
            yield f"outcome {name} removed"
            continue
        gone = [v for v in values if v not in new[name]]
        added = [v for v in new[name] if v not in values]
        if gone:
            yield f"outcome {name}: no longer carries {', '.join(gone)}"
        if added:
            yield f"outcome {name}: carries {', '.join(added)} too"
    for name, values in new.items():
        if name not in old:
            yield f"outcome {name} added" + (f", carrying {', '.join(values)}" if values else "")


def _steps(before: list[str], after: list[str], budget: _Budget) -> Iterable[str]:
    """The step lines removed (`- `) and added (`+ `): the lines alike at both ends set aside,
    the rest matched line by line while the budget lasts, else listed whole."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    before, after = before[start:len(before) - end], after[start:len(after) - end]
    try:
        opcodes = _Matcher(before, after, budget).get_opcodes()
    except _Spent:
        yield "steps that differ, listed whole (too many alike to match one by one):"
        yield from (f"- {line}" for line in before)
        yield from (f"+ {line}" for line in after)
        return
    for op, a0, a1, b0, b1 in opcodes:
        if op in ("delete", "replace"):
            yield from (f"- {line}" for line in before[a0:a1])
        if op in ("insert", "replace"):
            yield from (f"+ {line}" for line in after[b0:b1])


class _Spent(Exception):
    """The diff's matching budget ran out."""


class _Matcher(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """difflib's matcher of lines, paying from a budget for each search it makes."""

    def __init__(self, before: list[str], after: list[str], budget: _Budget) -> None:
        self.budget = budget
        super().__init__(a=before, b=after, autojunk=False)

    def find_longest_match(self, alo: int = 0, ahi: int | None = None, blo: int = 0,
                           bhi: int | None = None) -> difflib.Match:
        """The longest run alike, once paid for: the search goes over each line of
        a[alo:ahi] and each line of b equal to it."""
        ahi = len(self.a) if ahi is None else ahi
        work = (ahi - alo) + sum(len(self.b2j.get(line, ())) for line in self.a[alo:ahi])
        if not self.budget.spend(work):
            raise _Spent
        return super().find_longest_match(alo, ahi, blo, bhi)


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
