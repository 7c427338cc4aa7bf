"""Exact odds: the values the same in every state of a computation, and the branches they decide.

The first segment of a procedure is played once, by the one state a computation starts from:
the parameters no segment sets again, and what the first segment alone sets, hold the same
value in every state after it (`Stepper.fixed`), and so do the parties' figures that nothing
the procedure or its callees do can change (a swordsman's `attacker.weapon`). A branch whose
test those values decide is taken, or not, on every path (a swordsman's `if whip_attack ==
"Entangle":`), so liveness reads only its test and the arm taken (runtime/exact_plan.py
`Stepper._flow`), and states differing in what the other arm would read merge. A call whose
arguments are known from them decides its callee's branches the same way, for what the caller
reads of its arguments (Ringing Steel's `unarmed_parry`, given `by_hand` false).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Optional

from .combatants import Combatant

if TYPE_CHECKING:
    from .exact_plan import Stepper

# A branch's test taken apart: its `and`, `or`, `not`, and the leaves between them.
AND, OR, NOT, LEAF = "and", "or", "not", "leaf"

# What a stepper's branches and calls decide (`decide`): per test its value and what it reads
# on the way there, or None; then per call, what the arguments known decide in the callee.
Decided = Optional[tuple[Any, ...]]

_DEPTH = 8  # calls followed into callees, deciding their branches from known arguments


def slot_of(use: Any) -> int:
    """The slot a use reads: the slot itself, or the slot of `(slot, field)`."""
    return use if type(use) is int else use[0]  # type: ignore[no-any-return]


class Test:
    """A branch's test taken apart at `and`, `or` and `not`: a leaf is a function of the frame
    (`fn`) and what it reads (`uses`, as `Item.uses`), its `fn` None where it reads more than
    simple values and the fields of parameters' parties (an outcome, the run context).
    Decided where the leaves known decide it whatever the others give (`false and …`), as
    Python's own test of truth would."""

    __slots__ = ("op", "parts", "fn", "uses", "reads")

    def __init__(self, op: str, parts: tuple[Test, ...] = (),
                 fn: Callable[[Any], Any] | None = None, uses: frozenset[Any] = frozenset()
                 ) -> None:
        self.op = op
        self.parts = parts
        self.fn = fn
        self.uses = uses.union(*(part.uses for part in parts))  # a leaf's, or all its parts'
        self.reads = frozenset(map(slot_of, self.uses))

    def value(self, frame: Any, known: Callable[[Any], bool]
              ) -> tuple[bool | None, frozenset[Any]]:
        """True or False in every state whose known values are the frame's (None: not known),
        and what the test may read on its way there: Python stops at the first part of an
        `and` that is false (of an `or`, true), so what the parts after it read is never
        read, and a leaf known reads only what is the same in every state. A leaf that fails
        is not known (the run fails there itself, or never gets there)."""
        if self.op == LEAF:
            if self.fn is None or not all(map(known, self.uses)):
                return None, self.uses
            try:
                return bool(self.fn(frame)), frozenset()
            except Exception:  # noqa: BLE001 — the segment's own test reports it, if reached
                return None, self.uses
        if self.op == NOT:
            inner, uses = self.parts[0].value(frame, known)
            return (None if inner is None else not inner), uses
        deciding = self.op == OR  # an `or` is decided by a true part, an `and` by a false
        read: frozenset[Any] = frozenset()
        unknown = False
        for part in self.parts:
            value, uses = part.value(frame, known)
            read |= uses
            if value is deciding:
                return deciding, read
            unknown = unknown or value is None
        return (None if unknown else not deciding), read


def decide(stepper: Stepper, frame: Any, later: frozenset[int], first: frozenset[int],
           changeable: frozenset[str] | None, depth: int = 0) -> Decided:
    """What the values known decide, from a frame holding them: `later`, the slots known in
    the segments after the first, `first` those known in the first; a party's field is
    known where its slot is and nothing in the computation can change it (`changeable`:
    None where some change's field is not known). Per test (`Stepper.tests`) its value and
    what it reads, or None; then per call (`Stepper.calls`) what its known arguments decide
    in its callee. None where nothing is decided."""
    closures: dict[int, frozenset[str]] = {}

    def known_in(slots: frozenset[int]) -> Callable[[Any], bool]:
        def known(use: Any) -> bool:
            slot = slot_of(use)
            if slot not in slots:
                return False
            if slot in stepper.simple:
                return True
            party = frame[slot]
            if type(use) is int or type(party) is not Combatant or changeable is None:
                return False
            return use[1] not in _closure(party, changeable, closures)
        return known

    at_later, at_first = known_in(later), known_in(first)
    found: list[Any] = []
    for test, pc in stepper.tests:
        value, uses = test.value(frame, at_later if pc else at_first)
        found.append(None if value is None else (value, uses))
    for ex, pc in stepper.calls:
        found.append(_call(stepper, ex, frame, later if pc else first, changeable, depth))
    return tuple(found) if any(d is not None for d in found) else None


def _call(stepper: Stepper, ex: Any, frame: Any, slots: frozenset[int],
          changeable: frozenset[str] | None, depth: int) -> Decided:
    """What a call's arguments known decide in its callee: an argument is known where it
    reads known slots alone, each simple or a party (the party itself, its figures as the
    callee reads them: `known` above)."""
    callee = stepper.callees.get(ex.callee)
    if callee is None or depth >= _DEPTH or not (callee.tests or callee.calls):
        return None
    args: list[Any] = [None] * len(callee.slots)
    given: set[int] = set()
    for i, (reads, leaf) in enumerate(zip(ex.args, ex.values)):
        if leaf is None or leaf.fn is None or \
                not all(type(u) is int and u in slots for u in reads) or \
                not all(u in stepper.simple or type(frame[u]) is Combatant for u in reads):
            continue
        try:
            args[i] = leaf.fn(frame)
        except Exception:  # noqa: BLE001 — the call reports it, where it is made
            continue
        given.add(i)
    known = frozenset(given) & callee.untouched
    if not known:
        return None
    return decide(callee, args, known, known, changeable, depth + 1)


def _closure(party: Combatant, changeable: frozenset[str], memo: dict[int, frozenset[str]]
             ) -> frozenset[str]:
    """The fields of a party a change of `changeable` may move: those, and every derived
    figure downstream of them (the model lists its figures in dependency order)."""
    model = party.model
    found = memo.get(id(model))
    if found is None:
        found = memo[id(model)] = frozenset(model.moved_by(changeable))
    return found


def changeable(stepper: Stepper, seen: set[str] | None = None) -> frozenset[str] | None:
    """The fields a change in the procedure or any it calls (at any depth) may set; None
    where some change's field is not known."""
    seen = set() if seen is None else seen
    seen.add(stepper.name)
    if stepper.changes is None:
        return None
    found = set(stepper.changes)
    for name in _callee_names(stepper):
        if name in seen:
            continue
        inner = changeable(stepper.callees[name], seen)
        if inner is None:
            return None
        found |= inner
    return frozenset(found)


def _callee_names(stepper: Stepper) -> Iterable[str]:
    return {ex.callee for segment in stepper.segments for ex in segment.exits()
            if ex.callee is not None and ex.callee in stepper.callees}


__all__ = ["AND", "Decided", "LEAF", "NOT", "OR", "Test", "changeable", "decide", "slot_of"]
