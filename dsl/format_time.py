"""The formatter's lines for time (issue 15): units on a clock line and the calendar, durations
with a unit, conditions at a location, every `every` block and `afterwards:`, a round's order
with its delays. dsl/formatter.py calls these; each prints what the parser reads back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import syntax as s


def units(defs: tuple[s.UnitDef, ...], expression: Callable[[Any], str]) -> str:
    """`: minute = 240, turn = 10 minutes`, or nothing."""
    if not defs:
        return ""
    return ": " + ", ".join(f"{d.name} = {expression(d.amount)}" +
                            (f" {d.of.name}" if d.of else "") for d in defs)


def unit(u: s.TimeUnit | None) -> str:
    return "" if u is None else f" {u.name}"


def calendar(d: s.CalendarDecl, title: Callable[[str | None], str],
             expression: Callable[[Any], str]) -> list[str]:
    return [f"calendar {d.name}{title(d.title)}{units(d.units, expression)}"]


def every_blocks(step: s.EncounterLoop, pad: str, depth: int, expression: Callable[[Any], str],
                 steps: Callable[..., list[str]], comments: Callable[..., list[str]]
                 ) -> list[str]:
    lines: list[str] = []
    for block in ((step.every,) if step.every else ()) + step.ticks:
        order = f" {block.order} turns" if block.order else ""
        lines += [*comments(block.comments, depth),
                  f"{pad}every {expression(block.period)} {block.unit}{order}:",
                  *steps(block.body, depth + 1)]
    return lines


def afterwards(step: s.EncounterLoop, pad: str, depth: int, steps: Callable[..., list[str]],
               comments: Callable[..., list[str]]) -> list[str]:
    if not step.afterwards:
        return []
    return [*comments(step.afterwards_comments, depth), f"{pad}afterwards:",
            *steps(step.afterwards, depth + 1)]


def turns_step(step: s.TurnsStep, pad: str, depth: int, expression: Callable[[Any], str],
               steps: Callable[..., list[str]]) -> list[str]:
    return [f"{pad}take turns {step.var} in {expression(step.order)}:",
            *steps(step.body, depth + 1)]


def round_delay(step: s.RoundDelayStep, pad: str, expression: Callable[[Any], str]
                ) -> list[str]:
    if step.mode == "after":
        return [f"{pad}delay {step.party} until after {step.other}"]
    if step.mode == "end":
        return [f"{pad}delay {step.party} to the end"]
    return [f"{pad}ready {step.party} when {expression(step.condition)}"]


__all__ = ["afterwards", "calendar", "every_blocks", "round_delay", "turns_step", "unit", "units"]
