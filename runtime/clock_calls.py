"""What generated code calls for events on the clock (runtime/clock_events.py): each helper
applies to the run's clock or, in a run with no clock (a procedure played on its own), records
in the trace that nothing was applied; and how the fight log says each event."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .clock_events import Clock
from .combatants import Combatant
from .errors import RangeError, Span
from .values import display

NO_CLOCK = "no clock: not applied"


# ---- what generated code calls ------------------------------------------------------------------

def _clock(ctx: Any, span: Span, kind: str, name: Any, value: Any, who: Any) -> Clock | None:
    """The run's clock; with none (a procedure played on its own), the trace says so."""
    sched = ctx.schedule
    if isinstance(sched, Clock):
        return sched
    ctx.trace.append((kind, name, value, span, (NO_CLOCK, who)))
    return None


def ev_after(ctx: Any, span: Span, name: str, after: Any, run: Callable[..., Any],
             args: tuple[Any, ...], party: Any = None) -> None:
    clock = _clock(ctx, span, "after", name, after, party)
    if clock is not None:
        clock.schedule_event(span, name, after, run, args, party)


def ev_cancel(ctx: Any, span: Span, name: str) -> None:
    clock = _clock(ctx, span, "cancel", name, 0, None)
    if clock is not None:
        clock.cancel_event(span, name)


def ev_cancel_party(ctx: Any, span: Span, label: str, who: Any) -> None:
    clock = _clock(ctx, span, "cancel", label, who, who)
    if clock is not None:
        clock.cancel_party(span, label, who)


def ev_raise(ctx: Any, span: Span, event: str, label: str, who: Any) -> None:
    """`raise "Parried" for defender`: the rules set up for it fire."""
    if not isinstance(who, Combatant):
        raise RangeError(f"{label} is {display(who)}, not a combatant to raise {event!r} for",
                         span, ctx.source)
    clock = _clock(ctx, span, "raise", event, who, who)
    if clock is not None:
        ctx.trace.append(("raise", event, who, span, (f"for {label}", who)))
        clock.fire(span, "raised", event, who)


def ev_on(ctx: Any, span: Span, kind: str, what: Any, run: Callable[..., Any],
          args: tuple[Any, ...], label: str) -> None:
    ctx.schedule.watch(span, kind, what, run, args, label)


def ev_action(ctx: Any, who: Any, lane: str | None = None) -> Any:
    sched = ctx.schedule
    return sched.action(who, lane) if isinstance(sched, Clock) else None


def ev_last_action(ctx: Any, who: Any) -> Any:
    sched = ctx.schedule
    return sched.last_action(who) if isinstance(sched, Clock) else None


def ev_act(ctx: Any, span: Span, label: str, who: Any, time: Any, after: bool, action: Any,
           lane: str | None) -> None:
    ctx.schedule.act_as(span, label, who, time, after, action, lane)


def fired(ctx: Any, span: Span, kind: str, what: Any, who: Any) -> None:
    """A party's state changed or it was given a condition (RunContext's hooks): the rules set
    up for that fire."""
    sched = ctx.schedule
    if isinstance(sched, Clock) and sched.triggers:
        sched.fire(span, kind, what, who)


# ---- the fight log --------------------------------------------------------------------------------
EVENT_KINDS = frozenset(("after", "event", "cancel", "trigger", "raise"))


def event_line(kind: str, name: str, value: Any, detail: str, party: str) -> str:
    """An event on the clock as the fight log prints it."""
    if detail == NO_CLOCK:
        return f"{kind} {name}: {NO_CLOCK}"
    if kind == "after":
        return f"event {name} scheduled {detail}"
    if kind == "event":
        return f"event {name} happens"
    if kind == "cancel":
        return f"{party}: cancelled {detail}" if isinstance(value, Combatant) else \
            f"event {name} cancelled ({detail})"
    if kind == "trigger":
        return f"{name} by {party} {detail}"
    return f"{name} raised {detail}"


HELPERS: dict[str, Any] = {
    "_Schedule": Clock, "_ev_after": ev_after, "_ev_cancel": ev_cancel,
    "_ev_cancel_party": ev_cancel_party, "_ev_raise": ev_raise, "_ev_on": ev_on,
    "_ev_action": ev_action, "_ev_last_action": ev_last_action, "_ev_act": ev_act,
}

__all__ = ["EVENT_KINDS", "HELPERS", "NO_CLOCK", "event_line", "fired"]
