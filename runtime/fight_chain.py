"""A whole fight as an absorbing Markov chain, solved exactly.

An encounter with `no cap` whose loop never reads the time or the pass count
(compiler/chain_facts.py) is a chain over its states at the head of each pass: each state's
pass is worked out once (runtime/fight_odds.py) as the chances of going to each next state or
of ending in each group; a state can lead back to itself (a tie) or to one before it (a
stand-off). The chance of ending in each group from each state is then solved exactly: the
states are split into strongly connected components (Tarjan), each solved after those it leads
to, as a small exact linear system — one state with a self-loop of chance p is the geometric
series 1/(1−p). A component no way leads out of can never end: its share is reported as the
group NEVER_ENDS, never dropped.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from .fight_estimate import FIGHTS, estimate_states


class NeverEnds(str):
    """The group of the odds that a fight never ends (it goes round states it cannot leave):
    text no outcome's name can be, printed and sorted as text."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "NEVER_ENDS"


class FightTable(dict):  # type: ignore[type-arg]
    """A fight's exact odds (group → probability) and how many states were visited."""

    states: int = 0


NEVER_ENDS = NeverEnds("never ends")

def explore(fight: Any) -> dict[Any, Fraction]:
    """A fight's exact odds as a chain: from the start to the first pass heads, then each
    state met played for one pass (`FightOdds.expand`), numbered as met; then solved (`no
    cap`) or followed pass by pass up to the cap (`capped`)."""
    cap = fight.procedure.cap
    start: dict[Any, list[Any]] = {}
    first: dict[Any, list[int]] = {}
    fight.expand(1, 1, None, start, first)  # the steps before the loop, to its first head
    known: dict[Any, int] = {}
    states: list[Any] = []  # each state's snapshot, by its number
    depth: list[int] = []  # the first pass each state is met at

    def numbered(after: dict[Any, list[Any]], at: int) -> dict[int, Fraction]:
        found = {}
        for key, (num, den, snapshot) in after.items():
            place = known.get(key)
            if place is None:
                place = known[key] = len(states)
                states.append(snapshot)
                depth.append(at)
            found[place] = Fraction(num, den)
        return found

    entry = numbered(start, 0)
    rows: list[Row] = []
    work = 0
    estimated = False  # past an eighth of a limit, once (runtime/fight_estimate.py)
    while len(rows) < len(states):
        state = len(rows)
        if cap is not None and depth[state] >= cap - 1:  # its one pass is its last: below
            rows.append(({}, {}))
            continue
        after: dict[Any, list[Any]] = {}
        ends: dict[Any, list[int]] = {}
        before = fight.work
        fight.expand(1, 1, states[state], after, ends, known)
        rows.append((numbered(after, depth[state] + 1),
                     {g: Fraction(n, d) for g, (n, d) in ends.items()}))
        work += fight.work - before
        # With a cap, the states are refused at the limit, as pass by pass (a chain cut
        # short by its cap can be far smaller than the states foreseen).
        fight.foresee(len(rows), len(states) - len(entry) if cap is None else 0,
                      len(states) - len(rows), work)
        if cap is None and not estimated and (8 * len(states) >= fight.limits.odds_states or
                              8 * fight.work >= fight.limits.enumeration_work):
            estimated = True
            _foresee(fight, len(rows), work)
    odds = {g: Fraction(n, d) for g, (n, d) in first.items()}
    if cap is None:
        solved = absorbed(rows)
    else:
        solved = _capped(fight, cap, rows, states, entry)
    for state, p in entry.items():
        for group, q in solved[state].items():
            odds[group] = odds.get(group, 0) + p * q
    return odds


def _capped(fight: Any, cap: int, rows: list[Row], states: list[Any], entry: dict[int, Any]
            ) -> list[dict[Any, Fraction]]:
    """Each state's endings within the passes the cap leaves it: its last pass played as such
    (it ends, or the cap ends it: `capped`), then pass by pass back to the first head —
    each state's own pass worked out once, whatever pass it is met at."""
    reached = set(entry)  # the states a fight can be in at the last pass
    for _ in range(cap - 1):
        reached = {t for s in reached for t in rows[s][0]}
    last: list[dict[Any, Fraction]] = []
    for state, snapshot in enumerate(states):
        ends: dict[Any, list[int]] = {}
        if state in reached:
            fight.expand(1, 1, _at_pass(snapshot, cap - 1), {}, ends)
        last.append({g: Fraction(n, d) for g, (n, d) in ends.items()})
    solved = last  # the endings of a state met at the last pass
    for _ in range(cap - 1):  # one pass more left, each time round
        solved = [_carried(row, solved) if row[0] or row[1] else {} for row in rows]
    return solved


def _at_pass(snapshot: Any, made: int) -> Any:
    """A state's snapshot, met at pass `made` instead."""
    moved = copy.copy(snapshot)
    moved.made = made
    return moved


def _foresee(fight: Any, played: int, work: int) -> None:
    """Refuse a chain whose states, estimated from random fights, are past `odds_states`,
    or whose steps (as many a state as those played so far took) are past
    `enumeration_work`."""
    states = estimate_states(fight)
    how = f"estimated from {FIGHTS} random fights"
    if states > fight.limits.odds_states:
        raise fight.too_large("odds_states", states, how=how)
    steps = fight.work + work * (states - played) // played
    if steps > fight.limits.enumeration_work:
        raise fight.too_large("enumeration_work", steps, how=f"{states} states {how}")


# One state's pass: the chance of each next state (by its number) and of each ending group.
Row = tuple[dict[int, Fraction], dict[Any, Fraction]]


def absorbed(rows: Sequence[Row]) -> list[dict[Any, Fraction]]:
    """For each state, the exact chance of ending in each group (NEVER_ENDS for the share that
    goes round for ever)."""
    ends: list[dict[Any, Fraction] | None] = [None] * len(rows)
    for component in components([list(next_states) for next_states, _ in rows]):
        if len(component) == 1 and component[0] not in rows[component[0]][0]:
            state = component[0]
            ends[state] = _carried(rows[state], ends)  # no loop: on to what follows
        else:
            _solve(component, rows, ends)
    return ends  # type: ignore[return-value]


def _carried(row: Row, ends: list[dict[Any, Fraction] | None],
             inside: frozenset[int] = frozenset()) -> dict[Any, Fraction]:
    """A state's endings reached at once or through states outside `inside` (solved)."""
    next_states, own = row
    found = dict(own)
    for state, p in next_states.items():
        if state in inside:
            continue
        for group, q in ends[state].items():  # type: ignore[union-attr]
            found[group] = found.get(group, 0) + p * q
    return found


def _solve(component: list[int], rows: Sequence[Row],
           ends: list[dict[Any, Fraction] | None]) -> None:
    """A component of states that reach each other: x = b + Q x over its states, solved by
    exact elimination (a lone state with a self-loop p: x = b / (1 − p))."""
    inside = frozenset(component)
    right = [_carried(rows[s], ends, inside) for s in component]
    if not any(right):  # no way out: it goes round for ever
        for s in component:
            ends[s] = {NEVER_ENDS: Fraction(1)}
        return
    if len(component) == 1:
        s = component[0]
        stay = 1 - rows[s][0][s]
        ends[s] = {group: p / stay for group, p in right[0].items()}
        return
    place = {s: n for n, s in enumerate(component)}
    size = len(component)
    # (I − Q) x = b, row by row; b holds one column per group.
    matrix = [[Fraction(0)] * size for _ in range(size)]
    for n, s in enumerate(component):
        matrix[n][n] += 1
        for t, p in rows[s][0].items():
            if t in inside:
                matrix[n][place[t]] -= p
    groups = list(dict.fromkeys(g for r in right for g in r))
    values = [[r.get(g, Fraction(0)) for g in groups] for r in right]
    solution = _eliminate(matrix, values)
    for n, s in enumerate(component):
        ends[s] = {g: v for g, v in zip(groups, solution[n]) if v}


def _eliminate(matrix: list[list[Fraction]], values: list[list[Fraction]]
               ) -> list[list[Fraction]]:
    """Gauss-Jordan elimination, exact: the matrix of a component with a way out is
    non-singular (every state in it is left, in time, with chance 1)."""
    size = len(matrix)
    for col in range(size):
        pivot = next(r for r in range(col, size) if matrix[r][col])
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        values[col], values[pivot] = values[pivot], values[col]
        lead = matrix[col][col]
        if lead != 1:
            matrix[col] = [x / lead for x in matrix[col]]
            values[col] = [x / lead for x in values[col]]
        for r in range(size):
            factor = matrix[r][col]
            if r != col and factor:
                matrix[r] = [x - factor * y for x, y in zip(matrix[r], matrix[col])]
                values[r] = [x - factor * y for x, y in zip(values[r], values[col])]
    return values


def components(edges: Sequence[Sequence[int]]) -> Iterator[list[int]]:
    """Strongly connected components (Tarjan, without recursion), each after every component
    it leads to."""
    index: list[int | None] = [None] * len(edges)
    low = [0] * len(edges)
    on_stack = [False] * len(edges)
    stack: list[int] = []
    counter = 0
    for root in range(len(edges)):
        if index[root] is not None:
            continue
        work = [(root, 0)]
        while work:
            state, at = work.pop()
            if at == 0:
                index[state] = low[state] = counter
                counter += 1
                stack.append(state)
                on_stack[state] = True
            recurse = False
            out = edges[state]
            while at < len(out):
                nxt = out[at]
                at += 1
                if index[nxt] is None:
                    work.append((state, at))
                    work.append((nxt, 0))
                    recurse = True
                    break
                if on_stack[nxt]:
                    low[state] = min(low[state], index[nxt])  # type: ignore[type-var]
            if recurse:
                continue
            if low[state] == index[state]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack[top] = False
                    component.append(top)
                    if top == state:
                        break
                yield component
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[state])


__all__ = ["FightTable", "NEVER_ENDS", "NeverEnds", "Row", "absorbed", "components", "explore"]
