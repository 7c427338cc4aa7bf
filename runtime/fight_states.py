"""A fight's state between two steps, for its exact odds: what it is keyed by, and how a run is
put back into it (runtime/fight_odds.py merges the runs that reach equal keys).

Outside the encounter's own values a fight's state is its board: each party's figures, the
schedule (each party's next turn, in tie order; delays carried; who is stopped; now, the turns
taken and the last tick of `every` — a tuple, one per block, when an encounter has several:
runtime/clock_ticks.py), the lasting conditions still to run (a condition held at a location
is a key of its own, runtime/located.py) and how far each scripted choice has got. Parties are keyed by their place among the parameters, never by
identity; a condition given until a time now past is left out (now never goes back); tie order
is kept as an order, not as the count behind it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from .combatants import Combatant
from .dice import Counts, Dice, _Table
from .limits import Limits
from .results import Outcome

_PLAIN = (int, str, bool, type(None), Decimal, float, Dice)  # keys as they are
_MAP, _OUTCOME = object(), object()  # tags in keys: never a rule's value
MISSING = object()  # a value not set
_NONE: frozenset[Any] = frozenset()  # an empty part of a key, made once


class Unmergeable(Exception):
    """A fight whose states cannot be keyed (another encounter played inside it, a party that
    is no parameter's): its odds walk the paths."""


class Keys:
    """Keys of values and boards, the parties told by their place among the parameters."""

    def __init__(self, handles: Sequence[Combatant]) -> None:
        self.handles = list(handles)
        self.places = {id(h): n for n, h in enumerate(handles)}
        self.marks = [object() for _ in handles]  # a party in a value's key: its place
        self.figures: dict[int, tuple[Any, Any]] = {}

    def value(self, value: Any, reach: list[Combatant] | None = None) -> Any:
        """A value as a key: a party by its place, maps in their order, outcomes by content;
        each party in it added to `reach` (once)."""
        kind = type(value)
        if kind in _PLAIN:
            return value
        if kind is Combatant:
            found = self.places.get(id(value))
            if found is None:
                raise Unmergeable("a value holds a combatant that is no parameter")
            if reach is not None and all(value is not r for r in reach):
                reach.append(value)
            return self.marks[found]
        if kind is tuple or kind is list:
            return tuple(self.value(v, reach) for v in value)
        if kind is dict:
            return (_MAP, tuple((self.value(k, reach), self.value(v, reach))
                                for k, v in value.items()))
        if kind is Outcome:
            return (_OUTCOME, value.name, self.value(value._values, reach))
        try:
            hash(value)
        except TypeError:
            raise Unmergeable(f"a value cannot be told apart: {kind.__name__}") from None
        return value

    def place(self, party: int) -> int:
        """A party's place among the parameters, from its handle's id."""
        found = self.places.get(party)
        if found is None:
            raise Unmergeable("a party that is no parameter's has a turn or a condition")
        return found

    def party(self, handle: Combatant) -> Any:
        """A party's given figures (the derived follow from them), worked out once per
        figures object (held, so that its id is not reused meanwhile)."""
        figures = handle._values
        held = self.figures.get(id(figures))
        if held is None or held[0] is not figures:
            held = self.figures[id(figures)] = (figures, tuple(
                _frozen(figures[n]) for n in handle.model.given_names))
        return held[1]

    def board(self, ctx: Any, sched: Any, timeless: bool = False
              ) -> tuple[Any, dict[int, dict[Any, Any]]]:
        """The board at a pass head, keyed, and the conditions still to run there (by party
        id): from the next pass on, now is later (a new round, or a turn no earlier).
        `timeless`: nothing reads the time or the turns taken, so times are keyed from now
        and the clock's own counts are left out (runtime/fight_chain.py)."""
        conditions = {}
        for party, held in ctx.conditions.items():
            live = running(held, ctx.now, False)
            if live:
                conditions[party] = live
        place = self.place
        shift = sched.now if timeless else 0
        keyed = {k: frozenset((c, None if until is None else until - shift)
                              for c, until in v.items()) if timeless else frozenset(v.items())
                 for k, v in conditions.items()}
        turns, carried, stopped = sched.next_turns, sched.carried, sched.stopped
        back = sched.fallen - stopped  # stopped once, acting again: not standing at the end
        key = (tuple(map(self.party, self.handles)),
               tuple((place(id(who)), when - shift) for when, _, who in
                     sorted(turns.values(), key=_time_and_order)) if turns else (),
               frozenset((place(k), v) for k, v in carried.items()) if carried else _NONE,
               frozenset(map(place, stopped)) if stopped else _NONE,
               frozenset(map(place, back)) if back else _NONE,
               None if timeless else (sched.now, sched.turns, sched.last_tick),
               frozenset((place(k), v) for k, v in keyed.items()) if keyed else _NONE,
               frozenset(ctx.scripted.items()) if ctx.scripted else None,
               _events_key(sched, place, self.value),
               frozenset((place(k), place(id(v))) for k, v in sched.targets.items()))
        return key, conditions

    def situation(self, ctx: Any, args: tuple[Any, ...], shift: Any
                  ) -> tuple[Any, list[Combatant]]:
        """What a call can read where it is made, keyed, and the parties its arguments reach:
        their figures, next turns, delays carried and conditions (a called procedure names
        every party it reads or changes), how far each script has got and the time — times
        counted from `shift` (now, for a call that never reads a time as it is: then the same
        situation an hour later is the same)."""
        reach: list[Combatant] = []
        args_key = tuple(self.value(a, reach) for a in args)
        sched, now = ctx.schedule, ctx.now
        turns = sched.next_turns
        parts = []
        for party in reach:
            held = ctx.conditions.get(id(party))
            live = frozenset((c, None if until is None else until - shift)
                             for c, until in running(held, now, ctx.whole_rounds).items()
                             ) if held else None
            turn = turns.get(id(party))
            parts.append((self.party(party), None if turn is None else turn[0] - shift,
                          sched.carried.get(id(party), MISSING), live,
                          _labels(sched, id(party))))
        key = (args_key, tuple(parts), sched.now - shift, now - shift, ctx.whole_rounds,
               frozenset(ctx.scripted.items()) if ctx.scripted else None)
        return key, reach


class Local:
    """What a call leaves of the parties its arguments reach (in their order): each one's
    figures, next turn, delay carried and conditions; and the scripts' places, the passes."""

    __slots__ = ("figures", "turns", "carried", "conditions", "scripted", "passes")

    def __init__(self, reach: Sequence[Combatant], ctx: Any, shift: Any) -> None:
        sched, now = ctx.schedule, ctx.now
        self.figures = [h.handle() for h in reach]  # copies: the handles play on
        turns = [sched.next_turns.get(id(h)) for h in reach]
        self.turns = [None if t is None else t[0] - shift for t in turns]
        self.carried = [sched.carried.get(id(h), MISSING) for h in reach]
        self.conditions = [{c: None if until is None else until - shift for c, until in
                            running(ctx.conditions.get(id(h), {}), now,
                                    ctx.whole_rounds).items()} for h in reach]
        self.scripted, self.passes = dict(ctx.scripted), ctx.passes_made

    def key(self, keys: Keys) -> Any:
        return (tuple(map(keys.party, self.figures)), tuple(self.turns), tuple(self.carried),
                tuple(frozenset(c.items()) for c in self.conditions),
                frozenset(self.scripted.items()))

    def put(self, reach: Sequence[Combatant], ctx: Any, shift: Any) -> None:
        """Put what the call left into a run where the same call was made, on its parties
        (times counted from `shift`)."""
        sched = ctx.schedule
        for handle, figures, turn, carried, conditions in zip(
                reach, self.figures, self.turns, self.carried, self.conditions):
            handle.become(figures)
            if turn is not None:  # a call delays a turn, keeping its place among ties
                order = sched.next_turns[id(handle)][1]
                sched.next_turns[id(handle)] = (turn + shift, order, handle)
            if carried is MISSING:
                sched.carried.pop(id(handle), None)
            else:
                sched.carried[id(handle)] = carried
            ctx.conditions[id(handle)] = {c: None if until is None else until + shift
                                          for c, until in conditions.items()}
        ctx.scripted = dict(self.scripted)
        ctx.passes_made += self.passes


class Board:
    """The board as a run left it, to put another run into."""

    __slots__ = ("figures", "turns", "carried", "stopped", "fallen", "times", "conditions",
                 "scripted", "passes", "events", "targets")

    def __init__(self, handles: Sequence[Combatant], ctx: Any, sched: Any,
                 conditions: dict[int, dict[Any, Any]]) -> None:
        self.figures = [h.handle() for h in handles]  # copies: the handles play on
        self.turns = tuple((when, who) for when, _, who in
                           sorted(sched.next_turns.values(), key=_time_and_order))
        self.carried, self.stopped = dict(sched.carried), frozenset(sched.stopped)
        self.fallen = frozenset(sched.fallen)  # who the fight's winner is told by
        self.targets = dict(sched.targets)
        self.times = (sched.now, sched.turns, sched.last_tick)
        self.conditions = conditions
        self.scripted, self.passes = dict(ctx.scripted), ctx.passes_made
        # Events, lanes and labels (runtime/clock_events.py), with their tie order: none to
        # keep when there are none (a new run's clock starts with none).
        self.events = sched.save() if hasattr(sched, "save") and (
            sched.pending or sched.lanes or sched.labels or sched.last or sched.triggers
        ) else None

    def put(self, handles: Sequence[Combatant], ctx: Any, sched: Any) -> None:
        """Put a run (its handles, its context and its schedule) into this board."""
        for handle, figures in zip(handles, self.figures):
            handle.become(figures)
        sched.next_turns = {id(who): (when, n, who) for n, (when, who) in
                            enumerate(self.turns, 1)}
        sched.order = len(self.turns)  # later turns are scheduled after these, as before
        sched.carried, sched.stopped = dict(self.carried), set(self.stopped)
        sched.fallen = set(self.fallen)
        sched.targets = dict(self.targets)
        sched.now, sched.turns, sched.last_tick = self.times
        ctx.schedule = sched
        ctx.conditions = {k: dict(v) for k, v in self.conditions.items()}
        ctx.scripted, ctx.passes_made = dict(self.scripted), self.passes
        if self.events is not None:
            sched.restore(self.events)


class Snapshot:
    """A state at a pass head: the pass, the encounter's values there, its board, the time
    and the value the odds are grouped by; and the dice before the loop that reach it."""

    __slots__ = ("made", "values", "board", "now", "whole_rounds", "asked", "forced")

    def __init__(self, made: int, values: tuple[Any, ...], board: Board, ctx: Any,
                 asked: str | None, forced: tuple[int, ...]) -> None:
        self.made, self.values, self.board, self.forced = made, values, board, forced
        self.now, self.whole_rounds = ctx.now, ctx.whole_rounds
        self.asked = MISSING if asked is None else ctx.values.get(asked, MISSING)

    def restore(self, handles: Sequence[Combatant], ctx: Any, sched: Any,
                asked: str | None) -> tuple[Any, ...]:
        """Put a run that has just reached its first pass head into this state; its values."""
        self.board.put(handles, ctx, sched)
        ctx.now, ctx.whole_rounds = self.now, self.whole_rounds
        if asked is not None:
            ctx.values.pop(asked, None)
            if self.asked is not MISSING:
                ctx.values[asked] = self.asked
        return self.values


class Endings:
    """The ways a call can end that its caller can tell apart: each an outcome and what it
    left of its parties, with its weight (the counts of a roll whose totals are the endings'
    places)."""

    __slots__ = ("counts", "outcomes", "left")

    def __init__(self, found: dict[Any, list[Any]]) -> None:
        ways = math.lcm(*(den for _, den, _, _ in found.values()))
        self.counts = Counts(tuple(range(len(found))),
                             tuple(num * (ways // den) for num, den, _, _ in found.values()),
                             ways, 0)
        self.outcomes = [outcome for _, _, outcome, _ in found.values()]
        self.left = [left for _, _, _, left in found.values()]


class PassDice:
    """The dice of one run: the totals that fell before the loop, replayed (no weight, no
    branching), then one path of the run's own dice, recording how to branch. A call's
    endings are branched on as a roll is."""

    __slots__ = ("forced", "path", "branching", "position", "replayed", "table", "pick",
                 "numerator", "denominator", "seen")

    def __init__(self, forced: tuple[int, ...], path: list[int], table: _Table,
                 pick: Any = None, seen: dict[Any, Any] | None = None) -> None:
        self.forced, self.path, self.table, self.pick = forced, path, table, pick
        # What the runs of one walk found at each of their calls, by the place (the call's
        # number in the run and the totals taken before it: the same place, the same call).
        self.seen = seen
        self.branching: list[int] = []
        self.position = self.replayed = 0
        self.numerator = self.denominator = 1

    @property
    def limits(self) -> Limits:
        return self.table.limits

    def roll(self, dice: Dice) -> tuple[Any, tuple[int, ...]]:
        counts = self.table.counts(dice)
        return counts.totals[self.branch(counts)], ()

    def branch(self, counts: Counts) -> int:
        """Which of the totals this path takes."""
        if self.replayed < len(self.forced):
            self.replayed += 1
            return self.forced[self.replayed - 1]
        width = len(counts.totals)
        if self.position == len(self.path):
            self.path.append(0 if self.pick is None else self.pick(width))
        index = self.path[self.position]
        self.branching.append(width)
        self.position += 1
        self.numerator *= counts.counts[index]
        self.denominator *= counts.ways
        return index


def running(held: dict[Any, Any], now: Any, whole_rounds: bool) -> dict[Any, Any]:
    """A party's conditions still running at `now` (as `RunContext.has` reads them): on a
    round clock, one given until this round lasts through it."""
    return {c: until for c, until in held.items()
            if until is None or until > now or (whole_rounds and until == now)}


def _events_key(sched: Any, place: Any, value: Any) -> Any:
    """The events, lanes and labels of a clock that has them (runtime/clock_events.py)."""
    key = getattr(sched, "key", None)
    return None if key is None else key(place, value)


def _labels(sched: Any, party: int) -> Any:
    """The labels of a party's actions a call may read (`action(f)`, `last_action(f)`)."""
    labels = getattr(sched, "labels", None)
    return None if labels is None else (labels.get(party), sched.last.get(party))


def _time_and_order(turn: tuple[Any, int, Any]) -> tuple[Any, int]:
    return turn[0], turn[1]


def _frozen(value: Any) -> Any:
    """A figure as a key: maps as their items in order, lists item by item."""
    if type(value) is dict:
        return (_MAP, tuple((k, _frozen(v)) for k, v in value.items()))
    if type(value) is tuple:
        return tuple(map(_frozen, value))
    return value


__all__ = ["Board", "Endings", "Keys", "Local", "MISSING", "PassDice", "Snapshot", "Unmergeable"]
