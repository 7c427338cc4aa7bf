"""Time in an encounter: when each party's next turn comes, on the rulebook's own clock.

One primitive serves every clock the seeds use: a party's action completes at a time (tenths
in Ringing Steel, counts in BT, a strike rank in RQ3, a place in the initiative order in d20),
and the party whose action completes first takes the next turn — as SimPy's environment orders
processes by time. The rule file says how long each action takes (`act f after …`), what a
defence adds to the action under way (`delay foe by …`, written in the encounter or in any
procedure it calls) and who takes no more turns (`stop f`); `every N tenths:` adds ticks of the
clock itself. The runtime only keeps the times and picks the earliest.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from .clock_ticks import Ticks
from .combatants import Combatant
from .errors import RangeError, Span
from .values import display


class About(str):
    """A trace entry's detail that also names the combatant the step concerns (the rule calls
    it by its own label: `foe`, `defender`), so a fight's log can say whom. Runs record it as
    (text, party); `Result.trace` makes it one of these when read."""

    party: Any

    def __new__(cls, text: str, party: Any) -> About:
        made = super().__new__(cls, text)
        made.party = party
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return About, (str(self), self.party)


class Schedule:
    """The parties' next turns in one encounter, earliest first; ties in the order scheduled."""

    def __init__(self, ctx: Any, clock: str) -> None:
        self.ctx = ctx
        self.clock = clock
        self.now: Any = 0
        self.order = 0  # how many times a turn was scheduled: breaks ties between equal times
        self.next_turns: dict[int, tuple[Any, int, Combatant]] = {}  # id -> (time, order, who)
        # Delays for a party with no action under way (its turn is now): they lengthen the
        # action it starts next ("added to the time for his current or newly starting action").
        self.carried: dict[int, Any] = {}
        self.stopped: set[int] = set()  # the parties stopped (until an `act` brings one back)
        # Every party stopped at some time (a fight's log says so: who is not still standing),
        # kept here too, for fights played without a trace (many fights: `--runs`).
        self.fallen: set[int] = set()
        self.turns = 0  # the parties' turns taken (ticks of the clock are not turns)
        self.rounds = 0  # a round clock's rounds begun
        self.last_tick: Any = 0  # with several `every` blocks, a tuple: each one's
        self.ticking = 0  # which `every` block the tick just made is (in the order written)
        self.last_tick: Any = 0
        self.targets: dict[int, Combatant] = {}  # whom each fighter aims at (runtime/sides.py)
        self.ticks: Ticks | None = None  # several `every` blocks, once the loop has begun
        # A run whose trace nobody reads (many fights: `NoTrace`) drops every entry: its
        # entries' words ("now at 14") are not written at all.
        trace = ctx.trace
        self.traced = not (type(trace) is deque and trace.maxlen == 0)

    def act(self, span: Span, label: str, who: Any, time: Any, after: bool) -> None:
        """`act f at T` or `act f after T`: f's next turn comes at that time."""
        self._party(span, label, who)
        when = self.now + time if after else time
        carried = self.carried.pop(id(who), 0)
        when += carried
        if when < self.now:
            raise RangeError(f"{label}'s next turn would be at {display(when)}, before now "
                             f"({display(self.now)} {self.clock})", span, self.ctx.source)
        self.order += 1
        self.stopped.discard(id(who))
        self.next_turns[id(who)] = (when, self.order, who)
        if self.traced:
            self.ctx.trace.append(("act", label, when, span, (self.clock + (
                f", {display(carried)} carried" if carried else ""), who)))

    def delay(self, span: Span, label: str, who: Any, by: Any) -> None:
        """`delay f by T`: the action f has under way completes T later; with none under way
        (its turn is now, or its action completes at this very time: it is done), the next
        action it starts does — "added to the time for his current or newly starting action"."""
        self._party(span, label, who)
        found = self.next_turns.get(id(who))
        if found is None or found[0] <= self.now:
            self.carried[id(who)] = self.carried.get(id(who), 0) + by
            if self.traced:
                self.ctx.trace.append(("delay", label, by, span,
                                       ("added to the next action", who)))
            return
        when, order, _ = found
        self.next_turns[id(who)] = (when + by, order, who)
        if self.traced:
            self.ctx.trace.append(("delay", label, by, span,
                                   (f"now at {display(when + by)}", who)))

    def lengthen(self, span: Span, label: str, who: Any, by: Any) -> None:
        """`lengthen f by T`: the action f has under way completes T later; with none under way,
        nothing (unlike `delay`, nothing is carried to the next action)."""
        self._party(span, label, who)
        found = self.next_turns.get(id(who))
        if found is None or found[0] <= self.now:
            self.ctx.trace.append(("lengthen", label, by, span, ("no action under way", who)))
            return
        when, order, _ = found
        self.next_turns[id(who)] = (when + by, order, who)
        if self.traced:
            self.ctx.trace.append(("lengthen", label, by, span,
                                   (f"now at {display(when + by)}", who)))

    def next_turn(self, who: Any) -> Any:
        """When the action `who` has under way completes (none if it has none)."""
        found = self.next_turns.get(id(who))
        return None if found is None else found[0]

    def stop(self, span: Span, label: str, who: Any) -> None:
        """`stop f`: f takes no more turns in this encounter."""
        self._party(span, label, who)
        self.next_turns.pop(id(who), None)
        self.carried.pop(id(who), None)
        if id(who) not in self.stopped:  # stopping a party already stopped is no news
            self.stopped.add(id(who))
            self.fallen.add(id(who))
            self.ctx.trace.append(("stop", label, who, span, ("", who)))

    def next(self, span: Span, label: str, every: Any = None) -> tuple[Any, Any] | None:
        """The party whose turn comes first and the time it comes, or None when nobody acts.
        With `every`, a tick of the clock due first (or at the same time) comes before it, as
        (None, time)."""
        if isinstance(every, Ticks):
            self.ticks = every  # settled() asks it whether a tick after the turns is still due
            return every.next(self, span, label)  # several `every` blocks: runtime/clock_ticks
        if not self.next_turns:
            return None
        # The earliest (time, order): orders are unique, so the party is never compared.
        first, _, who = min(self.next_turns.values())
        key = id(who)
        soonest = first if every is None else min(first, self.last_tick + every)
        self.ctx.within(span, "turns", self.turns, soonest)
        if every is not None and self.last_tick + every <= first:
            self.ctx._pass(span)  # ticks count against the run's loop budget, not the cap
            self.last_tick += every
            self.now = self.ctx.now = self.last_tick
            if self.traced:
                self.ctx.trace.append(("tick", "every", every, span,
                                       f"at {display(self.now)} {self.clock}"))
            return None, self.now
        return self.take(span, label, key)

    def take(self, span: Span, label: str, key: int) -> tuple[Any, Any]:
        """The turn of the party whose id is `key`: now is when its action completes."""
        when, _, who = self.next_turns.pop(key)
        self.now = self.ctx.now = when
        self.turns += 1
        self.ctx.values[label] = who
        if self.traced:
            self.ctx.trace.append(("turn", label, who, span,
                                   f"at {display(when)} {self.clock}"))
        return who, when

    def settled(self) -> bool:
        """Whether every turn due now has been taken: an encounter ends only between times, so
        two simultaneous blows both land, and every tick due now still comes."""
        if self.ticks is not None and self.next_turns and self.ticks.due_now(self):
            return False
        now = self.now
        for when, _, _ in self.next_turns.values():  # asked every turn: a plain loop
            if when <= now:
                return False
        return True

    def _party(self, span: Span, label: str, who: Any) -> None:
        if not isinstance(who, Combatant):
            raise RangeError(f"{label} is {display(who)}, not a combatant to schedule", span,
                             self.ctx.source)


# ---- space: a hex grid, as the rules draw it ----------------------------------------------------
# Hexes are written in axial coordinates (q, r); the six directions, facing 0 to 5, go round.
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def hex_distance(q1: int, r1: int, q2: int, r2: int) -> int:
    """Hexes between two hexes (moves from one to the other)."""
    dq, dr = q2 - q1, r2 - r1
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def hex_in_front(q: int, r: int, facing: int, q2: int, r2: int) -> bool:
    """Whether hex (q2, r2) lies in the front arc of a combatant at (q, r) facing `facing`:
    the three directions ahead (facing and the one each side), at any distance."""
    if (q, r) == (q2, r2):
        return False
    dq, dr = q2 - q, r2 - r
    # The direction the other hex lies in most: the greatest projection in cube coordinates.
    cube = (dq, dr, -dq - dr)
    best = max(range(6), key=lambda d: sum(a * b for a, b in zip(
        cube, (DIRECTIONS[d][0], DIRECTIONS[d][1], -DIRECTIONS[d][0] - DIRECTIONS[d][1]))))
    return (best - facing) % 6 in (0, 1, 5)


__all__ = ["About", "DIRECTIONS", "Schedule", "hex_distance", "hex_in_front"]
