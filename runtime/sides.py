"""Many fighters on sides, at run time: who is on which side, who is still in the fight, who
aims at whom.

An encounter's sides are its fighter parameters (compiler/sides.py); a fighter is still in the
fight ("standing") until a step `stop`s it. Targets are kept on the encounter's schedule
(`Schedule.targets`), so exact odds count them in a fight's state like its next turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .combatants import Combatant
from .errors import RangeError, Span
from .results import who as name_of


class Sides:
    """The fighters of one encounter, side by side, read by `side`, `foes`, `allies`,
    `standing`, `sides_standing` and `target`."""

    def __init__(self, sched: Any, sides: Sequence[tuple[str, Sequence[Any]]]) -> None:
        self.sched = sched
        self.sides = tuple((name, tuple(fighters)) for name, fighters in sides)
        # lists are tuples when rules run (indexed, checked, handed to procedures as such)
        self.party = tuple(f for _, fighters in self.sides for f in fighters)
        self._side = {id(f): name for name, fighters in self.sides for f in fighters}

    def side(self, fighter: Any, span: Span) -> str:
        found = self._side.get(id(fighter))
        if found is None:
            raise RangeError(f"{name_of(fighter)} is on no side of this fight (its sides are "
                             f"{', '.join(n for n, _ in self.sides)})", span,
                             self.sched.ctx.source)
        return found

    def standing(self, fighter: Any) -> bool:
        """Still in the fight: no step has stopped it."""
        return id(fighter) not in self.sched.stopped

    def foes(self, fighter: Any, span: Span) -> tuple[Any, ...]:
        """The fighters of the other sides still in the fight, in the order given (a list of
        the language's, so a tuple: `foes(f)[0]`)."""
        mine = self.side(fighter, span)
        self._spend(span)
        return tuple(f for name, fs in self.sides if name != mine for f in fs
                     if self.standing(f))

    def allies(self, fighter: Any, span: Span) -> tuple[Any, ...]:
        """The other fighters of its side still in the fight."""
        mine = self.side(fighter, span)
        self._spend(span)
        return tuple(f for f in dict(self.sides)[mine] if f is not fighter and self.standing(f))

    def standing_sides(self) -> int:
        """How many sides have a fighter still in the fight."""
        self._spend(None)
        return sum(any(self.standing(f) for f in fs) for _, fs in self.sides)

    def _spend(self, span: Span | None) -> None:
        """Going over the fighters is work, as an aggregate's items are (docs/untrusted.md)."""
        ctx = self.sched.ctx
        ctx.work.spend(len(self.party), span, ctx.source)

    def target(self, fighter: Any) -> Any:
        """The fighter it aims at (none until it aims)."""
        return self.sched.targets.get(id(fighter))

    def aim(self, span: Span, label: str, fighter: Any, target: Any) -> None:
        """`aim f at foe`: f's target from now on (`aim f at none`: none)."""
        ctx = self.sched.ctx
        if not isinstance(fighter, Combatant) or not (target is None or
                                                      isinstance(target, Combatant)):
            bad = label if not isinstance(fighter, Combatant) else "its target"
            raise RangeError(f"aim needs fighters: {bad} is not one", span, ctx.source)
        if target is None:
            self.sched.targets.pop(id(fighter), None)
        else:
            self.sched.targets[id(fighter)] = target
        shown = "nobody" if target is None else name_of(target)
        ctx.trace.append(("aim", label, target, span, (f"at {shown}", fighter)))


def is_model(value: Any, model: str) -> bool:
    """`p is horse`."""
    return isinstance(value, Combatant) and value.model.name == model


def fighter_named(chosen: Any, options: Sequence[Any]) -> Any:
    """A choice among fighters given by a fighter's name (a script: `target=["Bo"]`)."""
    if isinstance(chosen, str) and options and all(isinstance(o, Combatant) for o in options):
        for option in options:
            if name_of(option) == chosen:
                return option
    return chosen


__all__ = ["Sides", "fighter_named", "is_model"]
