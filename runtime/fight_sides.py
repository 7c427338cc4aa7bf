"""A whole fight's sides: fighters handed to an encounter side by side, and who won.

An encounter's sides are its fighter parameters (a combatant, or a list of combatants each).
`Rulebook.fight` takes the fighters as before (a flat list, one to each parameter or all to a
single list), or side by side: a list of lists in the parameters' order, or a mapping from a
side's name to its fighters (`{"heroes": [a, b], "foes": [c]}`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .combatants import Combatant
from .errors import RangeError
from .procedures import Procedure

Sides = tuple[tuple[str, tuple[Combatant, ...]], ...]  # each side's name and its fighters


def side_params(encounter: Procedure) -> list[Any]:
    """The encounter's sides: each parameter typed a combatant or a list of combatants."""
    return [p for p in encounter.params if p.type.kind == "combatant" or (
        p.type.kind == "list" and p.type.item is not None and p.type.item.kind == "combatant")]


def by_sides(fighters: Any) -> bool:
    """Whether fighters are given side by side (a mapping, or a list of lists)."""
    return isinstance(fighters, Mapping) or bool(fighters) and all(
        isinstance(f, (list, tuple)) for f in fighters)


def side_arguments(encounter: Procedure, fighters: Any) -> dict[str, Any]:
    """Each side's fighters as the argument of its parameter: a list to a list parameter,
    exactly one to a combatant parameter."""
    params = side_params(encounter)
    names = [p.name for p in params]
    if isinstance(fighters, Mapping):
        unknown = [k for k in fighters if k not in names]
        if unknown:
            raise RangeError(f"encounter {encounter.name} has no side {unknown[0]!r} (its sides "
                             f"are {', '.join(names) or 'none'})")
        missing = [n for n in names if n not in fighters]
        if missing:
            raise RangeError(f"encounter {encounter.name}: no fighters given for the side "
                             f"{missing[0]!r} (its sides are {', '.join(names)})")
        groups = [list(fighters[n]) for n in names]
    else:
        groups = [list(g) for g in fighters]
        if len(groups) != len(params):
            raise RangeError(f"encounter {encounter.name} has {len(params)} side(s) "
                             f"({', '.join(names)}); {len(groups)} given")
    arguments: dict[str, Any] = {}
    for param, group in zip(params, groups):
        if param.type.kind == "combatant":
            if len(group) != 1:
                raise RangeError(f"the side {param.name} of encounter {encounter.name} is one "
                                 f"{param.type.text}; {len(group)} given")
            arguments[param.name] = group[0]
        else:
            arguments[param.name] = group
    return arguments


def sides_of(encounter: Procedure, combatants: Mapping[str, Any]) -> Sides:
    """The fighters of a finished run, side by side (`heroes[0]`, `heroes[1]` are of
    `heroes`)."""
    found = []
    for param in side_params(encounter):
        members = tuple(c for key, c in combatants.items() if isinstance(c, Combatant) and (
            key == param.name or key.startswith(param.name + "[")))
        found.append((param.name, members))
    return tuple(found)


def winner(sides: Sides, standing: Sequence[Combatant]) -> str | None:
    """The side whose fighters alone are still in the fight; None when none is (a draw) or
    several are (the fight was stopped before it was decided)."""
    still = {id(f) for f in standing}
    left = [name for name, members in sides if any(id(f) in still for f in members)]
    return left[0] if len(left) == 1 else None


def many_a_side(sides: Sides) -> bool:
    """Whether a fight is more than one against one (its report then counts sides)."""
    return len(sides) > 2 or any(len(members) > 1 for _, members in sides)


__all__ = ["Sides", "by_sides", "many_a_side", "side_arguments", "side_params", "sides_of",
           "winner"]
