"""A whole fight's sides: fighters handed to an encounter side by side, and who won.

An encounter's sides are its fighter parameters (a combatant, or a list of combatants each).
`Rulebook.fight` takes the fighters as before (a flat list, one to each parameter or all to a
single list), or side by side: a list of lists in the parameters' order, or a mapping from a
side's name to its fighters (`{"heroes": [a, b], "foes": [c]}`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .combatants import Combatant
from .errors import RangeError

if TYPE_CHECKING:  # fight_odds.py reads sides too, and procedures.py imports it
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


def one_to_each_side(encounter: Procedure, fighters: Any) -> bool:
    """Whether a flat list gives one fighter to each side of an encounter whose sides are
    lists (`rulecraft fight d20_modern A.toml B.toml` on `melee(heroes: list hero, foes: list
    hero)`): each is then a side of one."""
    params = side_params(encounter)
    return (not encounter.sides and len(params) >= 2 and len(fighters) == len(params)
            and all(p.type.kind == "list" for p in params)
            and all(isinstance(f, Combatant) for f in fighters))


def side_arguments(encounter: Procedure, fighters: Any) -> dict[str, Any]:
    """Each side's fighters as the arguments of its parameters: all to a side's one list
    parameter, else one to each of its combatant parameters in order."""
    groups = encounter.sides or tuple((p.name, (p.name,)) for p in side_params(encounter))
    names = [name for name, _ in groups]
    if isinstance(fighters, Mapping):
        unknown = [k for k in fighters if k not in names]
        if unknown:
            raise RangeError(f"encounter {encounter.name} has no side {unknown[0]!r} (its sides "
                             f"are {', '.join(names) or 'none'})")
        missing = [n for n in names if n not in fighters]
        if missing:
            raise RangeError(f"encounter {encounter.name}: no fighters given for the side "
                             f"{missing[0]!r} (its sides are {', '.join(names)})")
        # A side of one fighter may be given as that fighter: {"archer": dan}.
        given = [[fighters[n]] if isinstance(fighters[n], Combatant) else list(fighters[n])
                 for n in names]
    else:
        given = [list(g) for g in fighters]
        if len(given) != len(groups):
            raise RangeError(f"encounter {encounter.name} has {len(groups)} side(s) "
                             f"({', '.join(names)}); {len(given)} given")
    params = {p.name: p for p in encounter.params}
    arguments: dict[str, Any] = {}
    for (side, members), group in zip(groups, given):
        if len(members) == 1 and params[members[0]].type.kind == "list":
            arguments[members[0]] = group
            continue
        kinds = ", ".join(params[m].type.text for m in members)
        if len(group) != len(members) or any(params[m].type.kind != "combatant"
                                             for m in members):
            several = len(group) > len(members) == 1
            raise RangeError(f"the side {side} of encounter {encounter.name} is {kinds}; "
                             f"{len(group)} fighter(s) given" + (
                                 " (a side of several fighters needs an encounter whose side "
                                 "takes a list of them: `--encounter NAME`, `encounter=` from "
                                 "Python; `rulecraft show RULEBOOK` lists the encounters)"
                                 if several else ""))
        arguments.update(zip(members, group))
    return arguments


def sides_of(encounter: Procedure, combatants: Mapping[str, Any]) -> Sides:
    """The fighters of a finished run, side by side (`heroes[0]`, `heroes[1]` are of
    `heroes`; a `sides:` line puts several parameters on one side)."""
    groups = encounter.sides or tuple((p.name, (p.name,)) for p in side_params(encounter))
    found = []
    for side, params in groups:
        members = tuple(c for param in params for key, c in combatants.items()
                        if isinstance(c, Combatant) and (key == param or
                                                         key.startswith(param + "[")))
        found.append((side, members))
    return tuple(found)


WINNER = "winner"  # odds `by="winner"`: the side alone standing at the end (None: nobody)


def winner(sides: Sides, standing: Sequence[Combatant]) -> str | None:
    """The side whose fighters alone are still in the fight; None when none is (a draw) or
    several are (the fight was stopped before it was decided)."""
    still = {id(f) for f in standing}
    left = [name for name, members in sides if any(id(f) in still for f in members)]
    return left[0] if len(left) == 1 else None


def many_a_side(sides: Sides) -> bool:
    """Whether a fight is more than one against one (its report then counts sides)."""
    return len(sides) > 2 or any(len(members) > 1 for _, members in sides)


__all__ = ["WINNER", "Sides", "by_sides", "many_a_side", "side_arguments", "side_params", "sides_of",
           "winner"]
