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

from .clock_calls import EVENT_KINDS, event_line
from .collector import collector_paused
from .combatants import Combatant
from .encounters import About
from .errors import RangeError
from .fight_sides import Sides, by_sides, many_a_side, one_to_each_side, side_arguments, sides_of, winner
from .limits import DEFAULT_LIMITS, Limits
from .procedures import Procedure, RunOptions
from .results import Result, _entry_parts, dropped_parts, jsonable, who
from .values import display, to_public

if TYPE_CHECKING:
    from .rulebook import Rulebook


@attrs.frozen
class Fight:
    """A finished fight: the run it was, its events (made from its trace when first read),
    and each fighter as it ended. A fight played without a trace (`traced=False`: one of many)
    has no events; who stands, how long it took and each fighter's state are still known."""

    result: Result
    fighters: tuple[Combatant, ...]
    clock: str
    names: Mapping[int, str] = attrs.field(factory=dict)  # each fighter's handle -> its name
    sides: Sides = ()  # each side of the encounter and its fighters as they ended
    traced: bool = True
    _made: dict[str, Any] = attrs.field(factory=dict, init=False, repr=False, eq=False)

    @property
    def events(self) -> tuple[dict[str, Any], ...]:
        """One per step of the fight a log shows (none for a fight played without a trace)."""
        made = self._made.get("events")
        if made is None:
            with collector_paused():
                made = tuple(_events(self.result)) if self.traced else ()
            self._made["events"] = made
        return made

    def winner(self) -> str | None:
        """The side whose fighters alone are still standing (None: a draw, or undecided)."""
        return winner(self.sides, self.standing())

    def name(self, fighter: Combatant) -> str:
        """A fighter as the log names it: as given (a file's name), else by its own `name`."""
        return self.names.get(id(fighter)) or who(fighter)

    def played(self) -> bool:
        """Whether any turn or round was played: nobody stands in a fight that never began."""
        if not self.traced:
            sched = self.result.schedule
            return sched is not None and (sched.turns > 0 or sched.rounds > 0)
        return any(e["kind"] == "turn" or e.get("round") for e in self.events)

    def standing(self) -> list[Combatant]:
        """The fighters still in the fight at its end: those no step stopped."""
        if not self.traced:
            sched = self.result.schedule
            stopped = sched.fallen if sched is not None else set()
        else:
            stopped = {id(e["party"]) for e in self.events if e["kind"] == "stop"
                       and e["party"]}
        return [f for f in self.fighters if id(f) not in stopped]

    def length(self) -> tuple[Any, Any]:
        """How long the fight took: its time on the clock and its passes (turns or rounds),
        as its outcome says; an outcome of the rules' own (`afterwards:` … `outcome won with
        winner = …`) may not say: then the clock's time at its last event, and the turns and
        rounds it counted."""
        outcome = self.result.outcome
        time = outcome.get("time", None)
        passes = outcome.get("turns", outcome.get("rounds", None))
        sched = self.result.schedule
        if time is None:
            time = max((e["time"] for e in self.events), default=0) if self.traced else \
                (sched.now if sched is not None else 0)
        if passes is None:
            passes = sum(e["kind"] == "turn" or bool(e.get("round")) for e in self.events) \
                if self.traced else (sched.turns + sched.rounds if sched is not None else 0)
        return time or 0, passes or 0

    def conditions(self, fighter: Combatant) -> list[str]:
        """The lasting conditions a fighter is under at the end (given and not ended or run
        out)."""
        held: dict[Any, Any] = {}
        for e in self.events:
            if e["party"] is fighter and e["kind"] == "give":
                held[e["value"]] = e["until"]
            elif e["party"] is fighter and e["kind"] == "end":
                held.pop(e["value"], None)
        end = self.result.outcome.get("time", 0)
        return [display(c) for c, until in held.items() if until is None or until > end]

    def log(self) -> str:
        """One line per event (time, who, what, dice, result), then how it ended, who is still
        standing and each fighter's state."""
        lines = []
        news = _News(self.events)
        for event in self.events:
            line = news.line(event, self.name)
            if line is not None:
                lines.append(f"{display(event['time']):>6} {self.name_of(event['who']):<12} {line}")
        outcome = self.result.outcome
        said = ", ".join(f"{k} {display(v)}" for k, v in outcome.items())
        if "time" in outcome:
            lines.append(f"ended: {outcome.name} {said} ({self.clock})")
        else:  # an outcome of the rules' own: how long the fight took, from its clock
            time, passes = self.length()
            sched = self.result.schedule
            unit = "rounds" if sched is not None and getattr(sched, "rounds", 0) else "turns"
            made = "" if unit == self.clock else f", after {display(passes)} {unit}"
            lines.append(f"ended: {outcome.name}{' ' + said if said else ''} (at "
                         f"{display(time)} {self.clock}{made})")
        lines.append("still standing: " + (", ".join(self.name(f) for f in self.standing())
                                           or "nobody"))
        if many_a_side(self.sides):
            lines.append("sides: " + "; ".join(
                f"{side} ({', '.join(self.name(f) for f in members)})"
                for side, members in self.sides) + " — won by " + (self.winner() or "nobody"))
        for fighter in self.fighters:
            state = [f"{f.name} {display(fighter[f.name])}" for f in fighter.model.fields
                     if f.role == "state"]
            under = self.conditions(fighter)
            lines.append(f"{self.name(fighter)}: " + ", ".join(state)
                         + (f"; under: {', '.join(under)}" if under else ""))
        return "\n".join(lines)

    def name_of(self, fighter: Any) -> str:
        return self.name(fighter) if isinstance(fighter, Combatant) else ""

    def as_json(self) -> dict[str, Any]:
        name = self.name  # a fighter in an event by his name, any other value as JSON
        return {"outcome": self.result.outcome.as_json(), "clock": self.clock,
                "events": [{k: name(v) if isinstance(v, Combatant) else jsonable(v)
                            for k, v in e.items() if k != "until"} for e in self.events],
                "standing": [self.name(f) for f in self.standing()],
                "sides": {side: [self.name(f) for f in members] for side, members in self.sides},
                "winner": self.winner(),
                "fighters": [{"name": self.name(f), **jsonable(f.as_dict()),
                              "conditions": self.conditions(f)} for f in self.fighters]}


def fight(rulebook: Rulebook, fighters: Any, encounter: str | None = None,
          seed: int | None = None, dice: Sequence[int] | None = None,
          choices: Mapping[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS,
          names: Sequence[str] | None = None, policy: str | None = None,
          settings: Mapping[str, Any] | None = None, until: Any = None,
          day: int | None = None, traced: bool = True) -> Fight:
    """Play an encounter of `rulebook` (its first, unless named) with these fighters: a list
    (one to each fighter parameter, or all to its one list), or side by side (a list of lists
    in the parameters' order, or a mapping from side to fighters); `names` (one per fighter,
    side by side in the order of the encounter's sides, such as their files' names) is how the
    log calls them. `until`: a number plays the fight only so long on its clock (it ends
    `capped` there); a name is handed to the encounter's own `until` parameter (Ringing
    Steel's duel: "out" or "dead"). `day`: the calendar's day the fight happens on (`today`
    in its rules). `traced=False`: no trace and no events kept (one of many fights: its
    outcome, who stands and the fighters' state are what a summary needs)."""
    chosen = pick_encounter(rulebook, encounter)
    if by_sides(fighters):
        arguments = side_arguments(chosen, fighters)
    elif one_to_each_side(chosen, list(fighters)):
        arguments = side_arguments(chosen, [[f] for f in fighters])
    else:
        arguments = _arguments(chosen, list(fighters))
    arguments.update(settings or {})  # the encounter's other parameters (`apart=4`)
    time_limit, own = until_arguments(chosen, until)
    arguments.update(own)
    # The run options go apart from the encounter's own names (it may have a `time_limit`).
    with collector_paused():
        result = chosen.run_with(RunOptions(policy, time_limit, day, traced), dice=dice,
                                 seed=None if dice is not None else seed, choices=choices,
                                 limits=limits, **arguments)
    clock = rulebook_clock(rulebook, chosen.name)
    sides = sides_of(chosen, result.combatants)
    sided = [f for _, members in sides for f in members]  # side by side, as given
    finals = sided + [f for f in _finals(result, chosen) if all(f is not s for s in sided)]
    # Unnamed fighters are called by the parameters they were given to (`first`, `second`).
    given = list(names or ()) or [p.name for p in chosen.params
                                  if p.type.kind == "combatant"][:len(finals)]
    called = {id(f): n for f, n in zip(finals, given) if n}
    return Fight(result, tuple(finals), clock, called, sides, traced)


def until_arguments(encounter: Procedure, until: Any) -> tuple[Any, dict[str, Any]]:
    """`--until`: a time limit (a number: a run option) or the encounter's own `until` (a
    name: its argument)."""
    if until is None:
        return None, {}
    if isinstance(until, (int, float)) and not isinstance(until, bool):
        return until, {}
    if not any(p.name == "until" for p in encounter.params):
        raise RangeError(f"encounter {encounter.name} has no `until` parameter: give a time "
                         f"instead (a number of {encounter.clock})")
    return None, {"until": until}


def encounters(rulebook: Rulebook) -> list[str]:
    """The rulebook's encounters, in the order written."""
    return [name for name, proc in rulebook.procedures.items() if proc.clock is not None]


def rulebook_clock(rulebook: Rulebook, name: str) -> str:
    return rulebook.procedures[name].clock or ""


def pick_encounter(rulebook: Rulebook, name: str | None) -> Procedure:
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
    """The encounter's own steps, the calls it makes with their dice and outcome, and every
    effect on time (a delay made inside a called blow too); each with the time, the party
    whose turn it is (`who`) and the party it concerns (`party`). Read from the run's steps,
    not its trace: a fight is thousands of steps, most of them branches or inside calls, which
    the log does not show, and only a step it shows is written out (`_entry_parts`)."""
    now: Any = 0
    events: list[dict[str, Any]] = []
    append = events.append
    parties: dict[str, Any] = {}  # the encounter's names for fighters, as they stand now
    turn: Any = None
    call: dict[str, Any] | None = None
    dropped, depth = result.dropped  # a trace cut short starts that many calls deep
    if dropped:  # and says first what it did not keep, as `Result.trace` does
        kind, name, value, _, detail = dropped_parts(dropped)
        append({"time": now, "who": turn, "kind": kind, "name": name, "value": value,
                "detail": detail, "line": None, "party": None})
    for step in result._steps:
        kind = step[0]
        if kind == "return":
            depth -= 1
        rounds = False
        if depth:  # inside a call: its dice, the time it reaches, and what it does to the fight
            if kind not in _READ_IN_CALLS:  # most of a call: its values, branches, outcome
                continue
            if kind == "call":
                depth += 1
                continue
            if kind == "roll":
                if call is not None:
                    call["dice"].append({"name": step[1], "value": step[2],
                                         "dice": _dice_rolled(step[4])})
                continue
            if kind in _TIMED:  # a turn taken inside a call: the time, and whose turn
                now = _time(_text(step[4]).split()[1])
                turn = step[2] if kind == "turn" else None
                continue
            if kind not in _SHOWN_FROM_CALLED and not (kind == "choose" and
                                                       _referees(step[4])):
                continue
        elif kind == "branch":
            continue
        else:  # the encounter's own step
            if kind in _TIMED:  # detail: "at 12 tenths"
                now = _time(_text(step[4]).split()[1])
                turn = step[2] if kind == "turn" else None
            elif kind == "let" and step[1] == "round" and turn is None and \
                    isinstance(step[2], int):
                now = step[2]  # a clock of rounds: its time is the round (`let round = 2`)
                rounds = True
            if isinstance(step[2], Combatant):
                parties[step[1]] = step[2]
            if kind == "return" and call is not None:  # the call's outcome, in its event
                call["value"], call["procedure"], call = step[2], call["value"], None
                continue
        # A step the log shows, written out as its trace entry is (`_entry_parts`).
        if kind in _WRITTEN_OUT:  # a target or dice
            _, name, value, span, detail, _ = _entry_parts(*step)
            party = getattr(detail, "party", None)
        elif len(step) == 4:  # no detail: a value, a loop's item, a call, a return
            _, name, value, span = step
            detail, party = "", None
        else:
            _, name, value, span, detail = step
            if type(detail) is tuple:  # (text, party): an `About`, as `_entry_parts` makes it
                party = detail[1]
                detail = About(*detail)
            else:
                party = None if type(detail) is str else getattr(detail, "party", None)
        if party is None and kind in _LABELLED:  # else the encounter's label for a fighter
            party = parties.get(name)
        event = {"time": now, "who": turn, "kind": kind, "name": name, "value": value,
                 "detail": detail, "line": span.line if span else None, "party": party}
        if kind == "give":
            event["until"] = _until(detail)
        elif rounds:
            event["round"] = True  # a pass of the clock, as a turn is
        elif kind == "call":
            depth += 1
            call = event
            event["dice"] = []
        append(event)
    return events


_TIMED = frozenset(("turn", "tick", "event"))  # their detail says the time: "at 12 tenths"
# What a called procedure does that the log shows as the encounter's own steps.
_SHOWN_FROM_CALLED = frozenset(("delay", "lengthen", "ruling", "give", "end", "after", "cancel",
                                "trigger", "change"))
# What `_events` reads of a call's steps: the calls within, the dice, the time, what it shows.
_READ_IN_CALLS = _SHOWN_FROM_CALLED | _TIMED | {"call", "roll", "choose"}
_WRITTEN_OUT = frozenset(("change", "roll"))  # a target or dice `_entry_parts` writes out


def _dice_rolled(detail: Any) -> str:
    """The dice a roll's trace detail names: "d20" of "d20: 5" (`_entry_parts`), or of the
    (dice, faces) it was made from; "" for a roll of a plain number ("no dice")."""
    if type(detail) is tuple:
        return str(detail[0])
    text = str(detail or "")
    return "" if text == "no dice" else text.partition(": ")[0]


def _referees(detail: Any) -> bool:
    """A choice's detail naming the referee, whose decision the log shows from whatever call
    makes it."""
    return str(detail).startswith("by referee")


def _text(detail: Any) -> Any:
    """A step's detail as its trace entry reads: the text of a (text, party) pair."""
    return detail[0] if type(detail) is tuple else detail


_LABELLED = frozenset(("give", "end", "act", "delay", "lengthen", "stop", "wait", "ready", "aim"))


def _until(detail: str) -> Any:
    """A condition's end, from its trace detail ("until 12", "until ended")."""
    word = detail.split()[-1] if detail else "ended"
    return None if word == "ended" else _time(word)


def _time(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        return float(text)


class _News:
    """Which events a log prints, and how: a value of the encounter's own state when it
    changes (its working values within a turn are not news), the rest as they come."""

    def __init__(self, events: Sequence[dict[str, Any]]) -> None:
        first_turn = next((i for i, e in enumerate(events) if e["kind"] == "turn"), len(events))
        # The encounter's own state: the values it sets before the first turn.
        self.state = {e["name"] for e in events[:first_turn] if e["kind"] == "let"}
        self.last: dict[str, Any] = {}  # each value's last figure shown

    def line(self, event: dict[str, Any], name: Any) -> str | None:
        """An event as the log prints it, or None for one that is not news (a loop's item, a
        value unchanged, a delay of nothing)."""
        kind, value = event["kind"], event["value"]
        party = name(event["party"]) if isinstance(event["party"], Combatant) else event["name"]
        if kind == "call":
            return _call(event)
        if kind == "give":
            return f"{party} is {display(value)} ({event['detail']})"
        if kind == "end":
            return f"{party} is no longer {display(value)}"
        if kind == "act":
            extra = event["detail"].partition(", ")[2]
            return f"{party}'s action completes at {display(value)}" + (
                f" ({extra})" if extra else "")
        if kind in ("delay", "lengthen"):
            if value == 0:
                return None
            if event["detail"] == "no action under way":
                return f"{party} has no action under way to lengthen by {display(value)}"
            return f"{party}'s action +{display(value)} ({event['detail']})"
        if kind == "stop":
            return f"{party} takes no more turns"
        if kind in ("wait", "ready"):  # a round's order put off (runtime/clock_ticks.py)
            return f"{party} waits {value}" if kind == "wait" else \
                f"{party}'s readied action is {value}"
        if kind == "aim":
            return f"{party} aims at " + (name(value) if isinstance(value, Combatant) else
                                          "nobody")
        if kind == "tick":
            return f"the clock ticks (every {display(value)})"
        if kind in EVENT_KINDS:  # events on the clock: runtime/clock_events.py
            return event_line(kind, event["name"], value, str(event["detail"]), party)
        if kind == "ruling":  # the referee's call, wherever in the calls it is made
            return f"the referee's call: {value}"
        if kind == "reveal":
            return f"{event['name']} revealed: {display(value)}"
        if kind == "choose" and isinstance(value, Combatant):  # a target, by its name
            return f"{event['name']} = {name(value)} ({event['detail']})"
        if kind in ("let", "choose", "roll"):
            if isinstance(value, Combatant) or kind == "let" and (
                    event["name"] not in self.state or self.last.get(event["name"], _NEW) == value):
                return None
            self.last[event["name"]] = value
            detail = f" ({event['detail']})" if kind == "choose" and event["detail"] else ""
            return f"{event['name']} = {display(value)}{detail}"
        if kind == "change":  # by the fighter's name, not the rule's label for him
            figure = event["name"].partition(".")[2] if isinstance(event["party"], Combatant) \
                else ""
            return f"{party}.{figure} = {display(value)}" if figure else \
                f"{event['name']} = {display(value)}"
        return None


def _call(event: dict[str, Any]) -> str:
    """A call: its outcome, the dice it rolled, the outcome's other values."""
    outcome = event["value"]
    dice = ", ".join(f"{d['name']} {display(d['value'])}" for d in event["dice"])
    rolled = {d["name"] for d in event["dice"]}
    # Its values as `outcome.items()` gives them, read from the outcome's own (a Mapping's
    # items look each up again).
    values = ", ".join(f"{k} {display(to_public(v))}" for k, v in outcome._values.items()
                       if v is not None and k not in rolled)
    return (f"{event['name']} = {event['procedure']}: {outcome.name}"
            + (f" | dice: {dice}" if dice else "") + (f" | {values}" if values else ""))


_NEW = object()


def _finals(result: Result, encounter: Procedure) -> list[Combatant]:
    return [c for c in result.combatants.values() if isinstance(c, Combatant)]


__all__ = ["Fight", "encounters", "fight", "until_arguments"]
