"""How many states a fight's chain will have, estimated before the work is spent: a few random
fights played to their end (or a few hundred passes), and the values each part of a state took
along them multiplied together — stamina that went from 30 down to 0 in steps of 2 on each side
foretells 16 × 16 states, though the chain has met only a few of them so far."""

from __future__ import annotations

import math
from typing import Any

from .fight_states import Board, Snapshot

FIGHTS = 16  # random fights behind an estimate
PASSES = 200  # passes of one random fight at most (one may never end)


def estimate_states(fight: Any) -> int:
    """About how many states the chain of `fight` (runtime/fight_odds.FightOdds) has."""
    seen: list[set[Any]] | None = None
    keys: set[Any] = set()
    before = fight.work
    try:
        for _ in range(FIGHTS):
            state: Snapshot | None = None
            for _ in range(PASSES):
                forced = () if state is None else state.forced
                source, ctx, end, _ = fight.run(forced, state, [], fight.random.randrange)
                if type(end).__name__ != "Reached":
                    break
                keys.add(end.key)
                leaves = _leaves(end.key)
                if seen is None:
                    seen = [set() for _ in leaves]
                if len(leaves) == len(seen):
                    for place, leaf in zip(seen, leaves):
                        place.add(leaf)
                state = Snapshot(end.made, end.values,
                                 Board(fight.handles, ctx, end.sched, end.conditions), ctx,
                                 fight.asked, forced if state is not None else
                                 tuple(source.path[:source.position]))
    finally:
        fight.work = before  # the random fights are no part of the odds
    if seen is None:
        return len(keys)
    return max(len(keys), math.prod(len(place) for place in seen))


def _leaves(key: Any) -> list[Any]:
    """A key's parts, flattened: each tuple opened, anything else one part."""
    found: list[Any] = []
    todo = [key]
    while todo:
        item = todo.pop()
        if type(item) is tuple:
            todo.extend(reversed(item))
        else:
            found.append(item)
    return found


__all__ = ["estimate_states"]
