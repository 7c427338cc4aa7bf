"""Events on an encounter's clock: labelled actions, second lanes, events owned by the encounter,
their cancelling, and triggers — rules that fire on another party's event.

The schedule (`runtime.encounters.Schedule`) orders each party's next turn. A `Clock` is that
schedule with more than one thing under way: an action carries a label (`act f after 8 as
"Walk"`, read as `action(f)`, and as `last_action(f)` once it completed); a party may have a
second action on a lane of its own (`… on lane move`: moving while fighting), whose completion
is a turn of that party too; an event (`after 12 as arrow:` a missile in flight) runs steps of
the rule file when the clock gets there, with the values it read when it was scheduled; an
`on EVENT by p:` rule fires when a party's state changes, it is given a condition or a step
raises an event for it (`raise "Parried" for defender`), as an event due at once. A fired rule
may fire another; the chain is bounded by `Limits.trigger_chain`. Everything is kept in order
of (time, scheduled), as SimPy's environment orders its processes.

Generated code calls the `_ev_*` helpers of runtime/clock_calls.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .clock_ticks import Ticks
from .combatants import Combatant
from .encounters import Schedule
from .errors import RangeError, Span
from .fight_states import Unmergeable
from .limits import Limits
from .values import display

AT_ONCE = 10 ** 12  # a triggered rule's tie order comes before any order scheduled


class Pending:
    """An event waiting for its time: what runs then (a function of the rule file's module,
    given the values it captured), for whom (the party whose action it belongs to, if any)
    and how deep in a chain of triggers it was made."""

    __slots__ = ("name", "when", "order", "party", "run", "args", "depth", "span")

    def __init__(self, name: str, when: Any, order: int, party: Combatant | None,
                 run: Callable[..., Any], args: tuple[Any, ...], depth: int, span: Span) -> None:
        self.name, self.when, self.order, self.party = name, when, order, party
        self.run, self.args, self.depth, self.span = run, args, depth, span


class Trigger:
    """An `on EVENT by p:` rule: the kind of event (a state `changed`, a condition `given`, an
    event `raised`), which one (the field, the condition or None for any, the event's name),
    and the steps to run with the values captured when the rule was set up."""

    __slots__ = ("kind", "what", "run", "args", "span", "label")

    def __init__(self, kind: str, what: Any, run: Callable[..., Any], args: tuple[Any, ...],
                 span: Span, label: str) -> None:
        self.kind, self.what, self.run, self.args, self.span = kind, what, run, args, span
        self.label = label  # how the trace names it: "on changed at"


class Sealed(Unmergeable):
    """Events scheduled, cancelled or fired where exact odds cannot follow them (inside a call
    worked out once for many situations): the fight's odds walk its paths instead."""


class Clock(Schedule):
    """The schedule with labels, second lanes, pending events and triggers."""

    def __init__(self, ctx: Any, clock: str) -> None:
        super().__init__(ctx, clock)
        self.labels: dict[int, Any] = {}  # party id -> the label of its action under way
        self.last: dict[int, Any] = {}  # party id -> the label of its last action completed
        # (party id, lane) -> (time, order, party, label): actions on second lanes
        self.lanes: dict[tuple[int, str], tuple[Any, int, Combatant, Any]] = {}
        self.pending: list[Pending] = []
        self.triggers: list[Trigger] = []
        self.depth = 0  # the chain of triggers the steps running now belong to
        self.sealed = False  # inside a call exact odds work out once: no events there

    # ---- actions, labelled, on lanes ---------------------------------------------------------
    def act_as(self, span: Span, label: str, who: Any, time: Any, after: bool, action: Any,
               lane: str | None) -> None:
        """`act f after T as "Walk" [on lane L]`: an action with a label, on the main lane (it
        gives f its next turn) or on a lane of its own beside it."""
        self._seal()
        if lane is None:
            self.act(span, label, who, time, after)
            self.labels[id(who)] = action
            self._relabel(action)
            return
        self._party(span, label, who)
        when = self.now + time if after else time
        if when < self.now:
            raise RangeError(f"{label}'s action on lane {lane} would complete at "
                             f"{display(when)}, before now ({display(self.now)} {self.clock})",
                             span, self.ctx.source)
        self.order += 1
        self.lanes[(id(who), lane)] = (when, self.order, who, action)
        self.ctx.trace.append(("act", label, when, span,
                               (f"{self.clock}, {display(action)} on lane {lane}", who)))

    def _relabel(self, action: Any) -> None:
        """The `act` entry just traced names the action (`tenths, as Walk`); untraced, none."""
        trace = self.ctx.trace
        if action is None or not trace:
            return
        entry = trace[-1]
        if entry[0] == "act":
            text, party = entry[4]
            self.ctx.trace[-1] = entry[:4] + ((f"{text}, as {display(action)}", party),)

    def act(self, span: Span, label: str, who: Any, time: Any, after: bool) -> None:
        """`act f after T` with no label: the action under way is no longer the labelled one."""
        super().act(span, label, who, time, after)
        self.labels.pop(id(who), None)

    def action(self, who: Any, lane: str | None = None) -> Any:
        """The label of the action `who` has under way (on `lane`), or none."""
        if lane is None:
            return self.labels.get(id(who)) if id(who) in self.next_turns else None
        found = self.lanes.get((id(who), lane))
        return None if found is None else found[3]

    def last_action(self, who: Any) -> Any:
        return self.last.get(id(who))

    def stop(self, span: Span, label: str, who: Any) -> None:
        self._drop(who)
        super().stop(span, label, who)

    def cancel_party(self, span: Span, label: str, who: Any) -> None:
        """`cancel f`: what f has under way is cancelled — its action on every lane and the
        events scheduled as part of it; f takes turns again when an `act` schedules one."""
        self._seal()
        self._party(span, label, who)
        had = self.next_turns.pop(id(who), None)
        self.carried.pop(id(who), None)
        action = display(self.labels.get(id(who)) or "its action") if had else ""
        dropped = self._drop(who)
        what = ", ".join(filter(None, [action, *dropped])) or "nothing under way"
        self.ctx.trace.append(("cancel", label, who, span, (what, who)))

    def _drop(self, who: Any) -> list[str]:
        """Take away f's lanes and the events of its action; what was dropped."""
        dropped = [f"{display(a)} on lane {lane}" for (p, lane), (_, _, _, a) in
                   self.lanes.items() if p == id(who)]
        self.lanes = {k: v for k, v in self.lanes.items() if k[0] != id(who)}
        dropped += [e.name for e in self.pending if e.party is who]
        self.pending = [e for e in self.pending if e.party is not who]
        self.labels.pop(id(who), None)
        return dropped

    # ---- events ----------------------------------------------------------------------------
    def schedule_event(self, span: Span, name: str, after: Any, run: Callable[..., Any],
                       args: tuple[Any, ...], party: Any) -> None:
        """`after T as NAME [for f]:` its steps run at now + T, with the values given now."""
        self._seal()
        if after < 0:
            raise RangeError(f"event {name} would happen {display(-after)} {self.clock} ago: "
                             "an event is scheduled from now on", span, self.ctx.source)
        self.order += 1
        when = self.now + after
        self.pending.append(Pending(name, when, self.order, party, run, args, self.depth, span))
        shown = f"at {display(when)} {self.clock}" + (
            "" if party is None else ", part of its action")
        self.ctx.trace.append(("after", name, when, span, (shown, party)))

    def cancel_event(self, span: Span, name: str) -> None:
        """`cancel NAME`: every event of that name still to come is cancelled."""
        self._seal()
        gone = [e for e in self.pending if e.name == name]
        self.pending = [e for e in self.pending if e.name != name]
        what = f"{len(gone)} pending" if gone else "none pending"
        self.ctx.trace.append(("cancel", name, len(gone), span, (what, None)))

    def run_event(self, event: Pending) -> None:
        """An event whose time has come: its steps, in the chain it was made in."""
        self.ctx.trace.append(("event", event.name, event.when, event.span,
                               (f"at {display(event.when)} {self.clock}", event.party)))
        self.depth = event.depth
        try:
            event.run(self.ctx, self, self.now, *event.args)
        finally:
            self.depth = 0

    def run_due(self, span: Span) -> bool:
        """On a clock of rounds: the events due by this round, in order, before its steps;
        whether any came (`ends when` is tested after them)."""
        ran = False
        while self.pending:
            event = min(self.pending, key=lambda e: (e.when, e.order))
            if event.when > self.now:
                break
            self.pending.remove(event)
            self.ctx._pass(span)
            self.run_event(event)
            ran = True
        return ran

    # ---- triggers --------------------------------------------------------------------------
    def watch(self, span: Span, kind: str, what: Any, run: Callable[..., Any],
              args: tuple[Any, ...], label: str) -> None:
        """`on EVENT by p:` set up: from now on it fires on each such event."""
        self.triggers.append(Trigger(kind, what, run, args, span, label))

    def fire(self, span: Span, kind: str, what: Any, who: Any) -> None:
        """An event of a party's: each rule set up for it runs at once (as an event due now,
        before what was already due now), one link further down its chain."""
        for trigger in self.triggers:
            if trigger.kind != kind or (trigger.what is not None and trigger.what != what):
                continue
            if self.sealed:
                raise Sealed("a rule fires inside a call")
            depth = self.depth + 1
            limit = self.ctx.limits.trigger_chain
            if depth > limit:
                err = RangeError(f"rules firing on events fired each other more than {limit} "
                                 f"times in a row {Limits.hint('trigger_chain')}", span,
                                 self.ctx.source)
                err.limit = "trigger_chain"  # type: ignore[attr-defined]  # exact odds: sample
                raise err
            self.order += 1
            # "at once": before the turns and events already due at this instant (a blocker's
            # own turn due now must not come before his blocking attack), in the order fired.
            # No party: a rule fired by f's event is no part of f's action (stopping or
            # cancelling f does not take it away); f is its first argument.
            self.pending.append(Pending(trigger.label, self.now, self.order - AT_ONCE, None,
                                        trigger.run, (who, *trigger.args), depth, trigger.span))
            self.ctx.trace.append(("trigger", trigger.label, who, trigger.span,
                                   (f"fires at {display(self.now)} {self.clock}", who)))

    # ---- the next thing to happen -------------------------------------------------------------
    def next(self, span: Span, label: str, every: Any = None) -> tuple[Any, ...] | None:
        """As `Schedule.next`, with events and second lanes in their places: an event due
        first comes back as (None, time, event); a lane's action completing is a turn."""
        due = self._due()
        if due is not None:
            when, order, item = due
            main = min((t[:2] for t in self.next_turns.values()), default=None)
            tick = self._tick_due(every)  # (time, waits for the turns due then)
            if main is None and tick is not None and tick[0] <= when:
                return self._tick(span, every)  # nobody's turn to come: the schedule's own
            if (main is None or (when, order) < main) and (
                    tick is None or when < tick[0] or (when == tick[0] and tick[1])):
                self.ctx.within(span, "turns", self.turns, when)
                self.now = self.ctx.now = when
                if isinstance(item, Pending):
                    self.pending.remove(item)
                    self.ctx._pass(span)  # events count against the loop budget, not the cap
                    return None, when, item
                return self._lane_turn(span, label, item)
        found = super().next(span, label, every)
        if found is not None and found[0] is not None:
            self.last[id(found[0])] = self.labels.pop(id(found[0]), None)
        return found

    def _tick_due(self, every: Any) -> tuple[Any, bool] | None:
        """When the clock ticks next (one `every` block, or several: runtime/clock_ticks.py)."""
        if every is None:
            return None
        if isinstance(every, Ticks):
            at, _, after = every.soonest(self)
            return at, after
        return self.last_tick + every, False

    def _tick(self, span: Span, every: Any) -> tuple[Any, Any]:
        """A tick of `every` due before the events, when no party has a turn to come."""
        if isinstance(every, Ticks):
            at, n, _ = every.soonest(self)
            self.ctx.within(span, "turns", self.turns, at)
            return every.tick(self, span, at, n)
        self.ctx.within(span, "turns", self.turns, self.last_tick + every)
        self.ctx._pass(span)
        self.last_tick += every
        self.now = self.ctx.now = self.last_tick
        self.ctx.trace.append(("tick", "every", every, span,
                               f"at {display(self.now)} {self.clock}"))
        return None, self.now

    def _due(self) -> tuple[Any, int, Any] | None:
        """The earliest event or lane action, with its time and order."""
        best: tuple[Any, int, Any] | None = None
        for event in self.pending:
            if best is None or (event.when, event.order) < best[:2]:
                best = (event.when, event.order, event)
        for key, (when, order, _, _) in self.lanes.items():
            if best is None or (when, order) < best[:2]:
                best = (when, order, key)
        return best

    def _lane_turn(self, span: Span, label: str, key: tuple[int, str]) -> tuple[Any, Any]:
        when, _, who, action = self.lanes.pop(key)
        self.turns += 1
        self.last[id(who)] = action
        self.ctx.values[label] = who
        self.ctx.trace.append(("turn", label, who, span,
                               f"at {display(when)} {self.clock} ({display(action)} on lane "
                               f"{key[1]} completes)"))
        return who, when

    def settled(self) -> bool:
        return super().settled() and (not self.pending or all(
            e.when > self.now for e in self.pending)) and (not self.lanes or all(
                t[0] > self.now for t in self.lanes.values()))

    def _seal(self) -> None:
        if self.sealed:
            raise Sealed("events scheduled or cancelled inside a call")

    # ---- exact odds: the state of events, keyed and put back ------------------------------------
    def key(self, place: Callable[[int], int], value: Callable[[Any], Any]) -> Any:
        """What a fight's state holds of events, lanes and labels (parties by their place):
        times and tie order, as an order, across main turns, lanes and events."""
        if not (self.pending or self.lanes or self.labels or self.last or self.triggers):
            return None
        ordered = sorted(
            [(w, o, "turn", place(id(p))) for w, o, p in self.next_turns.values()]
            + [(w, o, "lane", (place(k[0]), k[1], a)) for k, (w, o, _, a) in self.lanes.items()]
            + [(e.when, e.order, "event", (e.name, e.run.__code__, value(e.args), e.depth,
                                           None if e.party is None else place(id(e.party))))
               for e in self.pending], key=lambda t: t[:2])
        return (tuple((w, kind, what) for w, _, kind, what in ordered),
                frozenset((place(k), v) for k, v in self.labels.items()),
                frozenset((place(k), v) for k, v in self.last.items()),
                tuple((t.kind, t.what, t.run.__code__, value(t.args)) for t in self.triggers))

    def save(self) -> tuple[Any, ...]:
        every = sorted([(w, o, ("turn", k)) for k, (w, o, _) in self.next_turns.items()]
                       + [(w, o, ("lane", k)) for k, (w, o, _, _) in self.lanes.items()]
                       + [(e.when, e.order, ("event", e)) for e in self.pending],
                       key=lambda t: t[:2])
        order = {id(item[1]) if item[0] == "event" else item: n
                 for n, (_, _, item) in enumerate(every, 1)}
        return (order, dict(self.lanes), list(self.pending), dict(self.labels),
                dict(self.last), list(self.triggers))

    def restore(self, saved: tuple[Any, ...]) -> None:
        """Put back what `save` kept, after `Board.put` set the main turns: one tie order
        across turns, lanes and events, as it was."""
        order, lanes, pending, labels, last, triggers = saved
        self.next_turns = {k: (w, order.get(("turn", k), o), p)
                           for k, (w, o, p) in self.next_turns.items()}
        self.lanes = {k: (w, order[("lane", k)], p, a) for k, (w, _, p, a) in lanes.items()}
        self.pending = [Pending(e.name, e.when, order[id(e)], e.party, e.run, e.args, e.depth,
                                e.span) for e in pending]
        self.labels, self.last, self.triggers = dict(labels), dict(last), list(triggers)
        self.order = max(order.values(), default=0)


__all__ = ["Clock", "Pending", "Sealed", "Trigger"]
