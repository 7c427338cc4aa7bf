"""What a rulebook declares for its sheets at the table: the cheat sheet's sections and the
game master's screen's panels, each a list of the rules it shows, in order.

Compiled from `cheat sheet:` / `screen:` (compiler/cheat_plan.py) and read by the sheets
(compiler/cheat_view.py); plain data, so a rulebook carries it without the compiler.
"""

from __future__ import annotations

import attrs

from .errors import Span

KINDS = ("cheat", "screen")  # `cheat sheet:` and `screen:`


@attrs.frozen
class PlanItem:
    """A rule a section shows, by name; `added` when a house file put it there, `moved` when
    a house file moved it from where its base has it."""

    name: str
    added: bool = False
    moved: bool = False


@attrs.frozen
class PlanSection:
    """A section of a cheat sheet ("Attack", "Wounds") or a panel of a screen."""

    title: str
    items: tuple[PlanItem, ...]
    added: bool = False  # a house file's section


@attrs.frozen
class SheetPlan:
    """A cheat sheet (`kind` "cheat") or a screen ("screen") as the rulebook declares it."""

    kind: str
    title: str | None
    sections: tuple[PlanSection, ...]
    span: Span | None = None
    removed: tuple[str, ...] = ()  # items a house file took off the base's sheet

    def names(self) -> tuple[str, ...]:
        return tuple(item.name for section in self.sections for item in section.items)


__all__ = ["KINDS", "PlanItem", "PlanSection", "SheetPlan"]
