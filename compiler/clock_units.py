"""Units of time, read when a rule file is compiled: a clock's longer units (`clock counts
"counts": minute = 240, turn = 10 minutes`), the calendar's (`calendar days "days": week = 7`),
and every duration written with one (`for 1 minute`, `every 20 counts:`, `act f after 2
seconds`) worked out in the clock's own unit. The runtime never sees a unit: BT's "1 HTK every
minute" runs as every 240 counts, so a rule file says the book's words and no magic number.
"""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError, Span

from .cells import number
from .types import INT, NUM, T


@attrs.frozen
class Units:
    """One clock's (or the calendar's) units: each name, in the unit it counts (its own: 1)."""

    own: str  # the unit counted, as the clock line names it: `counts`, `tenths`, `rounds`, `days`
    factors: dict[str, Any]  # every unit by name, in `own` units: {"counts": 1, "minute": 240}
    declared: bool  # whether a line declared longer units (a bare `clock counts` did not)
    span: Span | None = None

    def find(self, name: str) -> Any | None:
        """The unit named (singular or plural alike: `minute`, `minutes`; `count`, `counts`)."""
        for form in _forms(name):
            if form in self.factors:
                return self.factors[form]
        return None

    def names(self) -> list[str]:
        return list(self.factors)


@attrs.define
class TimeUnits:
    """A rulebook's units of time: each clock's by the clock's name, and its calendar."""

    clocks: dict[str, Units] = attrs.field(factory=dict)
    calendar: Units | None = None
    current: str | None = None  # the clock of the procedure being compiled (None: none)

    def of_clock(self, clock: str | None) -> Units | None:
        """The units of an encounter's clock; with no clock (a procedure, which any encounter
        may call), those of the rulebook's one clock that declares units."""
        if clock is not None:
            return self.clocks.get(clock)
        declared = [u for u in self.clocks.values() if u.declared]
        return declared[0] if len(declared) == 1 else None


def _forms(name: str) -> tuple[str, ...]:
    return (name, name + "s", name[:-1]) if name.endswith("s") else (name, name + "s")


def gather(decls: tuple[Any, ...], scope: Any) -> TimeUnits:
    """Every clock's units and the calendar's, checked: a unit defined once, in units already
    known, more than nothing; a clock named by several encounters declares its units once."""
    found = TimeUnits()
    for d in decls:
        if isinstance(d, s.ProcedureDecl) and d.clock is not None:
            units = _read(d.clock[0], d.clock_units, scope, f"clock {d.clock[0]}", d.span)
            held = found.clocks.get(d.clock[0])
            if held is None or (not held.declared and units.declared):
                found.clocks[d.clock[0]] = units
            elif units.declared and held.factors != units.factors:
                line = held.span.line if held.span else "?"
                scope.error(RuleTypeError, f"clock {d.clock[0]} has its units declared at line "
                            f"{line} already, differently: declare them once (other encounters "
                            f"write `clock {d.clock[0]}` alone)", d.clock_units[0].span)
        elif isinstance(d, s.CalendarDecl):
            if found.calendar is not None:
                scope.error(RuleTypeError, "a rulebook has one calendar", d.span)
                continue
            found.calendar = _read(d.name, d.units, scope, f"the calendar ({d.name})", d.span)
    return found


def _read(own: str, defs: tuple[s.UnitDef, ...], scope: Any, where: str,
          span: Span) -> Units:
    factors: dict[str, Any] = {own: 1}
    for d in defs:
        amount = number(d.amount.text)
        base: Any = 1
        if d.of is not None:
            base = Units(own, factors, True).find(d.of.name)
            if base is None:
                scope.unknown(f"unit of time of {where}", d.of.name, d.of.span, list(factors))
                factors[d.name] = 1  # known from here on: one error, not one at each use
                continue
        if Units(own, factors, True).find(d.name) is not None:
            scope.error(RuleTypeError, f"{d.name} is already a unit of {where}", d.span)
            continue
        if amount <= 0:
            scope.error(RuleTypeError, f"a unit of time is more than nothing: {d.name} = "
                        f"{d.amount.text}", d.amount.span)
            factors[d.name] = 1
            continue
        value = amount * base
        factors[d.name] = int(value) if value == int(value) else value
    return Units(own, factors, bool(defs), defs[0].span if defs else span)


def units_of(writer: Any) -> TimeUnits:
    """The rulebook's units, gathered once per compile (kept on the scope)."""
    found = writer.scope.time_units
    return found if found is not None else TimeUnits()


def factor(writer: Any, unit: s.TimeUnit, clock: str | None, round_clock: bool = False,
           hint: str = "") -> Any | None:
    """How many of the clock's own units one `unit` is; an error (and None) if the clock has
    no such unit. `round_clock`: an encounter of rounds, whose own unit is `rounds`."""
    found = units_of(writer)
    units = found.of_clock(clock)
    if round_clock and (units is None or units.find("rounds") is None):
        units = Units("rounds", {"rounds": 1, **(units.factors if units else {})}, False)
    if units is not None:
        value = units.find(unit.name)
        if value is not None:
            return value
    calendar = found.calendar
    if calendar is not None and calendar.find(unit.name) is not None:
        writer.scope.error(RuleTypeError, f"{unit.name} is a unit of the calendar, which counts "
                           "days between fights: a fight's durations are on its clock (declare "
                           f"the unit on the clock line: `clock … : {unit.name} = …`)",
                           unit.span)
        return None
    if units is None:
        where = "this procedure has no clock of its own, and the rulebook has no one clock " \
                "declaring units" if clock is None else f"clock {clock} declares no units"
        writer.scope.error(RuleTypeError, f"unknown unit of time {unit.name!r}: {where} "
                           "(`clock counts \"counts\": minute = 240`)", unit.span)
        return None
    known = [n for n in units.names() if n != "rounds" or round_clock]
    before = len(writer.scope.errors)
    writer.scope.unknown(f"unit of time of clock {units.own}", unit.name, unit.span, known)
    if hint and len(writer.scope.errors) > before:
        error = writer.scope.errors.pop()
        writer.scope.error(type(error), f"{error.message}{hint}", unit.span)
    return None


def duration(writer: Any, code: str, t: T, unit: s.TimeUnit | None, clock: str | None,
             round_clock: bool = False) -> tuple[str, T]:
    """A duration's code in the clock's own unit: `2 minutes` on a clock of counts is 2 × 240."""
    if unit is None:
        return code, t
    value = factor(writer, unit, clock, round_clock)
    if value is None or value == 1:
        return code, t
    const = repr(value) if isinstance(value, int) else writer.scope.constant("NUM_", value)
    kind = INT if t == INT and isinstance(value, int) else NUM
    return f"({code} * {const})", kind


def unit_name(writer: Any, name: str, clock: str | None) -> tuple[str, T] | None:
    """A unit read as a number in an expression (`today - p.prayed >= week`, `now >= 2 *
    minute`): the calendar's in days, a clock's in its own unit; None if it is no unit."""
    found = units_of(writer)
    for units in (found.calendar, found.of_clock(clock)):
        if units is not None and name in units.factors and name != units.own:
            value = units.factors[name]
            if isinstance(value, int):
                return repr(value), INT
            return writer.scope.constant("NUM_", value), NUM
    return None


__all__ = ["TimeUnits", "Units", "duration", "factor", "gather", "unit_name", "units_of"]
