"""Ticks of several `every` blocks on one clock, and the order of things at one instant.

BT bleeds "1 HTK every minute" while fatigue is counted every 20 counts: an encounter may have
several `every` blocks, each with its own period, each ticking at N, 2N, 3N … of the clock.
A tick due at the same time as a turn comes before it (`every 1 minute:`, the default) or
after every turn due then (`every 20 counts after turns:`); ticks due together run in the order
written. The schedule keeps each block's last tick, as a tuple in `Schedule.last_tick`, so a
fight's exact odds key the ticks with the rest of the board (runtime/fight_states.py).
"""

from __future__ import annotations

from typing import Any

import attrs

from .errors import RangeError, Span
from .values import display


@attrs.frozen
class Ticks:
    """The `every` blocks of a turn loop: each one's period and whether it ticks after the
    turns due at its time."""

    periods: tuple[Any, ...]
    after_turns: tuple[bool, ...]
    spans: tuple[Span, ...]  # each block's `every` line, for the trace

    @classmethod
    def of(cls, ctx: Any, *blocks: tuple[Any, bool, Span]) -> Ticks:
        """`_Ticks.of(_ctx, (240, False, span), (20, True, span))`: each period above 0."""
        for period, _, span in blocks:
            if period <= 0:
                raise RangeError(f"`every` needs a time greater than 0, not {display(period)}",
                                 span, ctx.source)
        return cls(*(tuple(b[n] for b in blocks) for n in range(3)))

    def next(self, sched: Any, span: Span, label: str) -> tuple[Any, Any] | None:
        """What comes next on the schedule: a party's turn (who, time) or a tick (None, time);
        the tick's block is then `sched.ticking` (its place in the order written)."""
        if not sched.next_turns:
            return None
        key = min(sched.next_turns, key=lambda k: sched.next_turns[k][:2])
        turn_at = sched.next_turns[key][0]
        due = None
        for n, (period, after) in enumerate(zip(self.periods, self.after_turns)):
            at = self._last(sched)[n] + period
            if (at < turn_at or (at == turn_at and not after)) and (due is None or at < due[0]):
                due = (at, n)
        sched.ctx.within(span, "turns", sched.turns, turn_at if due is None else due[0])
        if due is None:
            return sched.take(span, label, key)
        return self.tick(sched, span, *due)

    def soonest(self, sched: Any) -> tuple[Any, int, bool]:
        """The tick due first (its time, its block, whether it waits for the turns due then):
        the events of runtime/clock_events.py are weighed against it."""
        return min((self._last(sched)[n] + period, n, after)
                   for n, (period, after) in enumerate(zip(self.periods, self.after_turns)))

    def due_now(self, sched: Any) -> bool:
        """Whether a block is still to tick now: what happens at one instant all happens
        before `ends when` ends the fight (a blow or the minute's bleeding that ends it, then
        the fatigue of that count)."""
        return any(last + period <= sched.now
                   for last, period in zip(self._last(sched), self.periods))

    def tick(self, sched: Any, span: Span, at: Any, n: int) -> tuple[Any, Any]:
        """Block n ticks at `at`: its steps run next (`sched.ticking`)."""
        sched.ctx._pass(span)  # ticks count against the run's loop budget, not the cap
        sched.last_tick = sched.last_tick[:n] + (at,) + sched.last_tick[n + 1:]
        sched.ticking = n
        sched.now = sched.ctx.now = at
        sched.ctx.trace.append(("tick", "every", self.periods[n], self.spans[n],
                                f"at {display(at)} {sched.clock}"))
        return None, at

    def _last(self, sched: Any) -> tuple[Any, ...]:
        if not isinstance(sched.last_tick, tuple):  # the first pass: no block has ticked
            sched.last_tick = (0,) * len(self.periods)
        return sched.last_tick


class RoundOrder:
    """A round's order of parties (`take turns c in ORDER:`) that the parties may change while
    it is gone through — d20's delay and ready: a party delays its action until after another's
    (`delay c until after d`) or to the round's end (`delay c to the end`), or readies it until
    a condition holds (`ready c when COND`: it acts as soon as the condition holds after
    another's action; if the round ends first, the readied action is lost)."""

    def __init__(self, ctx: Any, span: Span, label: str, parties: Any) -> None:
        self.ctx, self.span, self.label = ctx, span, label
        self.waiting: list[Any] = list(parties)  # still to act this round, in order
        self.after: list[tuple[Any, Any]] = []  # (party, after whom) delayed
        self.ready: list[tuple[Any, Any]] = []  # (party, condition test) readied
        self.current: Any = None
        self.put_off: set[int] = set()  # the parties that waited this round (`waited(c)`)

    def __iter__(self) -> RoundOrder:
        return self

    def __next__(self) -> Any:
        self.ctx._pass(self.span)
        last, self.current = self.current, None
        if last is not None:  # those delayed until after the party who just acted
            moved = [p for p, other in self.after if other is last]
            self.after = [(p, o) for p, o in self.after if o is not last]
            self.waiting[0:0] = moved
            for party, test in list(self.ready):
                if test():  # a readied action: the condition holds after another's action
                    self.ready.remove((party, test))
                    self.ctx.trace.append(("ready", self.label, "taken", self.span,
                                           ("", party)))
                    return self._acting(party)
        if self.waiting:
            return self._acting(self.waiting.pop(0))
        if self.after:  # delayed until after a party who did not act: at the round's end
            party, _ = self.after.pop(0)
            return self._acting(party)
        for party, _ in self.ready:
            self.ctx.trace.append(("ready", self.label, "lost", self.span, ("", party)))
        raise StopIteration

    def waited(self, who: Any) -> bool:
        """Whether `who` has put off its action this round."""
        return id(who) in self.put_off

    def _acting(self, party: Any) -> Any:
        self.current = party
        self.ctx.values[self.label] = party
        self.ctx.trace.append(("each", self.label, party, self.span))
        return party

    def delay(self, span: Span, label: str, who: Any, mode: str, other: Any = None,
              test: Any = None) -> None:
        """`delay c until after d`, `delay c to the end`, `ready c when COND`: only the party
        whose action it is may put it off, once per round's place."""
        if who is not self.current:
            raise RangeError(f"{label} can put off only its own action, when it is its turn in "
                             f"the round", span, self.ctx.source)
        self.current = None  # its action is not taken now
        self.put_off.add(id(who))
        if mode == "after":
            if other is who:
                raise RangeError(f"{label} cannot delay until after itself", span,
                                 self.ctx.source)
            self.after.append((who, other))
            shown = "until after another's action"
        elif mode == "end":
            self.waiting.append(who)
            shown = "until the end of the round"
        else:
            self.ready.append((who, test))
            shown = "with an action readied"
        self.ctx.trace.append(("wait", label, shown, span, ("", who)))


def time_helpers() -> dict[str, Any]:
    """What generated code of ticks, round orders, located conditions and `afterwards` uses."""
    from .context import Finished
    from .located import Located

    return {"_Ticks": Ticks, "_RoundOrder": RoundOrder, "_Located": Located,
            "_Finished": Finished}


__all__ = ["RoundOrder", "Ticks", "time_helpers"]
