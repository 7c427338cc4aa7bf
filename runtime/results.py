"""What a procedure run produces: its outcome, the trace of what it did, and the result."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import attrs

from .combatants import Combatant
from .encounters import About
from .errors import Span
from .space import Hex
from .tables import Record
from .values import display, to_public


@attrs.frozen
class TraceEntry:
    """One thing a procedure did: a roll, a computed value, a choice, a branch, a change, an end."""

    # "roll", "let", "choose", "branch", "change", "each", "call", "return", "outcome"; "ruling"
    # (the referee's call: name "referee", value its text), "reveal" (a secret choice made known)
    kind: str
    name: str
    value: Any
    span: Span | None = attrs.field(default=None, eq=False)
    detail: str = ""
    depth: int = 0  # how many calls deep: 0 in the procedure run, 1 in one it calls, ...

    @property
    def line(self) -> int | None:
        return self.span.line if self.span else None

    def __str__(self) -> str:
        where = f"{self.span}" if self.span else ""
        value = "none" if self.value is None else display(self.value) \
            if not isinstance(self.value, Combatant) else who(self.value)
        detail = f" ({self.detail})" if self.detail else ""
        if self.kind == "ruling":  # the referee's call, in words
            return f"{'  ' * self.depth}{where}: ruling: the {self.name}'s call: {value}"
        return f"{'  ' * self.depth}{where}: {self.kind} {self.name} = {value}{detail}"

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "value": jsonable(self.value),
            "detail": self.detail,
            "file": self.span.filename if self.span else None,
            "line": self.line,
            "depth": self.depth,
        }


class Outcome(Mapping[str, Any]):
    """How a procedure ended: a name (`hit`, `parried`) and its values, read as items or attributes."""

    __slots__ = ("name", "_values", "span")

    def __init__(self, name: str, values: dict[str, Any], span: Span | None = None) -> None:
        self.name = name
        self._values = values
        self.span = span

    def __getitem__(self, key: str) -> Any:
        return to_public(self._values[key])

    def __getattr__(self, key: str) -> Any:
        try:
            return to_public(self._values[key])
        except KeyError:
            raise AttributeError(key) from None

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return self.name == other
        if isinstance(other, Outcome):
            return self.name == other.name and self._values == other._values
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.name, tuple((k, repr(v)) for k, v in self._values.items())))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={display(v)}" for k, v in self._values.items())
        return f"Outcome({self.name}: {inner})" if inner else f"Outcome({self.name})"

    def __str__(self) -> str:
        return self.name

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "values": {k: jsonable(v) for k, v in self._values.items()}}


class Result:
    """A finished run: its outcome, every value it computed, the combatants after, the trace."""

    __slots__ = ("outcome", "values", "combatants", "_steps", "_trace", "dropped", "schedule")

    def __init__(self, outcome: Outcome, values: Mapping[str, Any],
                 combatants: Mapping[str, Combatant], steps: list[tuple[Any, ...]],
                 dropped: tuple[int, int] = (0, 0)) -> None:
        self.outcome = outcome
        self.values = values
        self.combatants = combatants
        self._steps = steps
        self._trace: tuple[TraceEntry, ...] | None = None
        # (entries, calls deep): the oldest entries a long run did not keep (`trace_entries`)
        self.dropped = dropped
        # An encounter's turns as they ended (runtime.encounters.Schedule): who was stopped,
        # turns and rounds played — what a fight played without a trace is summed up from.
        self.schedule: Any = None

    @property
    def trace(self) -> tuple[TraceEntry, ...]:
        """Each roll, value, choice, branch, change and the outcome, with its rule line; after
        a long run, its newest entries, the first saying how many were not kept."""
        if self._trace is None:
            entries: list[TraceEntry] = []
            depth = self.dropped[1]
            if self.dropped[0]:
                entries.append(TraceEntry(*dropped_parts(self.dropped[0])))
            for step in self._steps:
                if step[0] == "return":
                    depth -= 1
                entries.append(_entry(*step, depth=depth))
                if step[0] == "call":
                    depth += 1
            self._trace = tuple(entries)
        return self._trace

    def __getitem__(self, name: str) -> Any:
        return to_public(self.values[name])

    def explain(self) -> str:
        """The trace as lines a game master can follow, each naming its rule line."""
        return "\n".join(str(entry) for entry in self.trace)

    def as_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome.as_json(),
            "values": {k: jsonable(v) for k, v in self.values.items()},
            "combatants": {k: jsonable(c.as_dict()) for k, c in self.combatants.items()},
            "trace": [e.as_json() for e in self.trace],
        }


def dropped_parts(count: int) -> tuple[str, str, int, None, str]:
    """The first step of a trace cut short: how many of the oldest were not kept."""
    return "dropped", "earlier steps", count, None, "not kept: limit trace_entries"


def _entry(kind: str, name: str, value: Any, span: Span | None, detail: Any = "",
           depth: int = 0) -> TraceEntry:
    return TraceEntry(*_entry_parts(kind, name, value, span, detail, depth))


def _entry_parts(kind: str, name: str, value: Any, span: Span | None, detail: Any = "",
                 depth: int = 0) -> tuple[str, str, Any, Span | None, Any, int]:
    """A run's step as a trace entry's parts (kind, name, value, span, detail, depth): the
    target named, the dice written out, the detail naming its party (`About`)."""
    if kind == "change" and isinstance(name, tuple):
        party, field, index = name
        name = f"{party}.{field}" + "".join(f"[{display(i)}]" for i in index)
    if kind == "roll" and isinstance(detail, tuple):
        dice, faces = detail
        detail = f"{dice}: {', '.join(map(str, faces))}" if faces else str(dice)
    elif type(detail) is tuple:  # (text, party), as the run context records a delay cheaply
        detail = About(*detail)
    return kind, name, value, span, detail, depth


def who(combatant: Combatant) -> str:
    """A combatant as a log names it: by its `name` when its model has one."""
    name = combatant._values.get("name")
    return name if isinstance(name, str) else repr(combatant)


def jsonable(value: Any) -> Any:
    """A value as plain JSON data: numbers, text, lists and objects (CLI --json, as_json)."""
    kind = type(value)
    # The plain values most of a fight's log holds, before the general path's checks (a
    # Mapping's is an abstract class's, slow): the same answers, `to_public`'s included.
    if kind is str or kind is bool or kind is float or value is None or kind is About:
        return value  # (a detail naming its party is its text)
    if kind is int:
        return to_public(value)  # within the digits a result may have
    if kind is dict:
        return {str(k): jsonable(v) for k, v in value.items()}
    if kind is tuple or kind is list:
        return [jsonable(v) for v in value]
    value = to_public(value)
    if isinstance(value, (Outcome,)):
        return value.as_json()
    if isinstance(value, (Combatant, Record)):
        return jsonable(value.as_dict())
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, Hex):  # as a fighter file writes it: `at = [2, -1]`
        return [value.q, value.r]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
