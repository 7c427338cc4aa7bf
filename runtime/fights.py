"""Whole fights: an encounter of a rulebook played to its end with the fighters given, and the
log a table reads — one line per event, then how it ended and each fighter's state.

An encounter is a procedure of the rule file (`encounter NAME (…): clock …`), so a fight is
seeded, scripted and checked like any run; this module picks the encounter, hands it the
fighters and writes the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .combatants import Combatant
from .errors import RangeError
from .limits import DEFAULT_LIMITS, Limits
from .procedures import Procedure
from .results import Result, jsonable, who
from .values import display

if TYPE_CHECKING:
    from .rulebook import Rulebook


@attrs.frozen
class Fight:
    """A finished fight: the run it was, its events, and each fighter as it ended."""

    result: Result
    events: tuple[dict[str, Any], ...]
    fighters: tuple[Combatant, ...]
    clock: str
    names: Mapping[int, str] = attrs.field(factory=dict)  # each fighter's handle -> its name

    def name(self, fighter: Combatant) -> str:
        """A fighter as the log names it: as given (a file's name), else by its own `name`."""
        return self.names.get(id(fighter)) or who(fighter)

    def log(self) -> str:
        """One line per event (time, who, what), then how it ended and each fighter's state."""
        lines = [_line(e, self.clock, self.name) for e in self.events]
        lines.append(f"ended: {self.result.outcome.name} "
                     + ", ".join(f"{k} {display(v)}" for k, v in self.result.outcome.items()))
        for fighter in self.fighters:
            state = [f"{f.name} {display(fighter[f.name])}" for f in fighter.model.fields
                     if f.role == "state"]
            lines.append(f"{self.name(fighter)}: " + ", ".join(state))
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {"outcome": self.result.outcome.as_json(), "clock": self.clock,
                "events": [dict(e, value=self.name(e["value"]) if isinstance(e["value"], Combatant)
                                else jsonable(e["value"])) for e in self.events],
                "fighters": [{"name": self.name(f), **jsonable(f.as_dict())}
                             for f in self.fighters]}


def fight(rulebook: Rulebook, fighters: Sequence[Combatant], encounter: str | None = None,
          seed: int | None = None, dice: Sequence[int] | None = None,
          choices: Mapping[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS,
          names: Sequence[str] | None = None, policy: str | None = None,
          settings: Mapping[str, Any] | None = None) -> Fight:
    """Play an encounter of `rulebook` (its first, unless named) with these fighters; `names`
    (one per fighter, such as their files' names) is how the log calls them."""
    chosen = _encounter(rulebook, encounter)
    fighters = list(fighters)
    arguments = _arguments(chosen, fighters)
    arguments.update(settings or {})  # the encounter's other parameters (`apart=4`)
    if policy is not None:
        arguments["policy"] = policy
    result = chosen.run(dice=dice, seed=None if dice is not None else seed, choices=choices,
                        limits=limits, **arguments)
    clock = rulebook_clock(rulebook, chosen.name)
    finals = _finals(result, chosen)
    called = dict(zip((id(f) for f in finals), names or ()))
    return Fight(result, tuple(_events(result)), tuple(finals), clock, called)


def encounters(rulebook: Rulebook) -> list[str]:
    """The rulebook's encounters, in the order written."""
    return [name for name, proc in rulebook.procedures.items() if proc.clock is not None]


def rulebook_clock(rulebook: Rulebook, name: str) -> str:
    return rulebook.procedures[name].clock or ""


def _encounter(rulebook: Rulebook, name: str | None) -> Procedure:
    found = encounters(rulebook)
    if not found:
        raise RangeError(f"rulebook {rulebook.name} declares no encounter (`encounter NAME "
                         "(…):` with a clock): a whole fight needs one")
    if name is None:
        return rulebook.procedures[found[0]]
    if name not in found:
        raise RangeError(f"rulebook {rulebook.name} has no encounter {name!r} "
                         f"(it has: {', '.join(found)})")
    return rulebook.procedures[name]


def _arguments(encounter: Procedure, fighters: list[Combatant]) -> dict[str, Any]:
    """The fighters handed to the encounter: all of them to a list parameter, else one to each
    combatant parameter in order."""
    params = [p for p in encounter.params if p.type.kind in ("combatant", "list")]
    if len(params) == 1 and params[0].type.kind == "list":
        return {params[0].name: fighters}
    if len(fighters) != len(params):
        names = ", ".join(p.name for p in params)
        raise RangeError(f"encounter {encounter.name} takes {len(params)} fighter(s) ({names}); "
                         f"{len(fighters)} given")
    return {p.name: f for p, f in zip(params, fighters)}


def _events(result: Result) -> list[dict[str, Any]]:
    """The encounter's own steps (not those inside the procedures it calls), with the time."""
    now: Any = 0
    events = []
    for entry in result.trace:
        if entry.kind == "turn":  # detail: "at 12 tenths"
            now = _time(entry.detail.split()[1])
        if entry.depth or entry.kind in ("branch",):
            continue
        events.append({"time": now, "kind": entry.kind, "name": entry.name,
                       "value": entry.value, "detail": entry.detail, "line": entry.line})
    return events


def _time(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _line(event: dict[str, Any], clock: str, name: Any) -> str:
    value = event["value"]
    shown = name(value) if isinstance(value, Combatant) else display(value)
    said = f" = {shown}" if value is not None else ""
    detail = f" ({event['detail']})" if event["detail"] and event["kind"] != "turn" else ""
    return f"{display(event['time']):>5} {clock:<8} {event['kind']:<7} {event['name']}{said}{detail}"


def _finals(result: Result, encounter: Procedure) -> list[Combatant]:
    return [c for c in result.combatants.values() if isinstance(c, Combatant)]


__all__ = ["Fight", "encounters", "fight"]
