"""What exact odds of a whole fight may leave out of its states: an encounter whose loop never
reads the time or the pass count is a Markov chain over its board alone
(runtime/fight_chain.py), so a state met again after any number of passes is the same state —
with `no cap`, solved as such; with a cap written as a number, each state's pass worked out
once and the chain followed for that many passes."""

from __future__ import annotations

from typing import Any

from rulecraft.dsl import syntax as s

from .clock_events import uses_events
from .encounters import _names_in

# Names that read the time as it is, or the pass count: `now`, `round`, `next_turn(f)`.
_TIMED = frozenset({"now", "round", "next_turn"})


def loop_of(decl: s.ProcedureDecl) -> s.EncounterLoop | None:
    """An encounter's loop (its last step), if any."""
    return next((st for st in decl.steps if isinstance(st, s.EncounterLoop)), None)


def uncapped(decl: s.ProcedureDecl) -> bool:
    """An encounter with `no cap`."""
    loop = loop_of(decl)
    return loop is not None and loop.cap is None


def cap_of(decl: s.ProcedureDecl) -> int | None:
    """An encounter's cap when it is written as a number (`at most 20 rounds`), else None."""
    loop = loop_of(decl)
    if loop is None or not isinstance(loop.cap, s.Number) or not loop.cap.text.isdigit():
        return None
    return int(loop.cap.text)


def timeless(decl: s.ProcedureDecl, found: dict[str, s.ProcedureDecl],
             policies: dict[str, Any]) -> bool:
    """Whether `decl` is an encounter with `no cap` or a cap written as a number whose loop,
    and every procedure it calls, never reads the time or the pass count, with no `every`
    ticks (their last tick is a time) and no events (their schedule is kept in times)."""
    loop = loop_of(decl)
    if loop is None or loop.every is not None or uses_events(decl):
        return False
    if loop.cap is not None and cap_of(decl) is None:
        return False
    if any(isinstance(st, s.ScheduleStep) and st.mode == "at" for st in s.all_steps(loop.body)):
        return False  # `act f at T` inside the loop: a time as it is
    read = _names_in((loop.body, loop.ends, loop.ticks, loop.afterwards), policies)
    seen: set[str] = set()
    todo = [name for name in read if name in found]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        callee = found[name]
        if callee.clock is not None or uses_events(callee):
            return False
        names = _names_in(callee.steps, policies)
        read |= names
        todo.extend(n for n in names if n in found)
    return not (read & _TIMED)


__all__ = ["cap_of", "loop_of", "timeless", "uncapped"]
