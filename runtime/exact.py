"""Exact odds by states: a procedure's segments played forward, merging paths that meet.

The path walk (`dice.Enumeration`) plays a procedure once per path of the dice, so its cost
multiplies with every roll. Here the procedure runs as segments (`compiler/stepper.py` cuts it
at each roll and call): a state is the segment reached, the values still to be read from there
and the figures of the parties still to be read; paths that reach the same state are merged
(their probabilities added) before going on, so the work grows with the number of distinct
states, not of paths. Independent rolls are thus convolved rather than nested, and a call is
worked out once for each distinct set of arguments and party figures, then reused (icepool's
convolution, and a fight as a Markov chain over its states: DESIGN.md's references).

Exact means exact: weights are whole numbers over whole denominators, made into `Fraction`s
summing to exactly 1 at the end. Which values a state must agree on is decided per question
(liveness, read off each segment's Python): asking for outcome names, a value that only an
outcome's field is made from does not keep two paths apart, and a value read only in
comparisons with numbers is kept as what they give (`attack_roll == 1`). A merged state goes on
with the values of one of its paths; only values nothing reads again differ between them. What
every state shares (the first segment's values, the figures nothing changes) decides branches
before the plan is made (runtime/exact_known.py): an arm never taken keeps nothing alive.

Fast, as a state is played once per distinct state and that is all the work: each question
gets a plan (`Plan`) worked out once per procedure; where a step cannot lead to two states
that would merge, a state goes straight on (`Plan.straight`), into the next segment's
function where it is a step forward (`Plan.direct`, `_ctx.fused` in the segments' Python);
a frame belongs to one state, and its segment writes into it what it sets. The baseline is
icepool working out the same distribution (benchmarks/bench_core.py): nothing of one
computation is kept for the next but what the rule fixes (its plans, the branches the values
known decide, its dice's counts).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from operator import attrgetter, is_, itemgetter
from typing import Any

from .combatants import Combatant
from .dice import Counts, Dice
from .exact_known import Decided, Test, changeable, decide
from .errors import (ARITHMETIC, CalculationError, DiceError, RangeError, RulecraftError, Span,
                     calculation_message)
from .limits import Limits
from .results import Outcome

# Exit kinds a segment returns (see compiler/stepper.py).
GOTO, ROLL, CALL, FINISH, BACK = 0, 1, 2, 3, 4
# What liveness sees a segment's statement as.
ASSIGN, CHANGE, EXIT, BRANCH, STATEMENT = "assign", "change", "exit", "branch", "statement"

# A question is what the odds ask of the endings: NAMES (which outcome), a value's name, or,
# asked of a called procedure, a Call. What a segment reads is a slot (its index), or one
# field of the outcome a slot holds: (index, "level"), (index, "@name") for its name alone.
NAMES = "outcome"
_SIMPLE = (int, str, bool, type(None), Decimal, Dice)  # hashable as they are, no party inside
_FIGURES = attrgetter("_values")  # a party's figures: one object per state
ALL = "@all"  # every field of an outcome
NAME_ONLY = "@name"
_NOT_YET = object()


class Call(tuple):  # type: ignore[type-arg]
    """The question a caller asks of the procedure it calls: which fields of its outcome the
    caller reads (ALL, or some names; its name is always told), and the parameters whose
    parties' figures the caller reads after it."""

    __slots__ = ()

    def __new__(cls, fields: Any, parties: frozenset[int]) -> Call:
        return super().__new__(cls, (fields, parties))

    @property
    def fields(self) -> Any:
        return self[0]

    @property
    def parties(self) -> frozenset[int]:
        return self[1]  # type: ignore[no-any-return]

    def told(self, outcome: Outcome) -> tuple[Any, ...]:
        """The fields of an ending that this caller can tell apart."""
        names = outcome._values if self.fields == ALL else \
            [f for f in self.fields if f in outcome._values]
        return tuple((f, outcome._values[f]) for f in names)


def _slot(use: Any) -> int:
    return use if type(use) is int else use[0]


def _drop(live: set[Any], slot: int) -> None:
    """A slot set anew: neither it nor any field of it is read from before here."""
    for use in [u for u in live if _slot(u) == slot]:
        live.discard(use)


class Exit:
    """One way out of a segment: where it goes (or the outcome it ends in), the slot a roll or
    call fills on the way, what it reads (the dice, the arguments, each outcome field's), and
    the running sum a roll's total is added to as well (`onto`: compiler/sums.py)."""

    __slots__ = ("kind", "target", "bound", "reads", "outcome", "fields", "args", "callee",
                 "onto", "values", "at")

    def __init__(self, kind: int, target: int | None, bound: int | None, reads: frozenset[int],
                 outcome: str | None = None, fields: Mapping[str, frozenset[int]] | None = None,
                 args: tuple[frozenset[int], ...] = (), callee: str | None = None,
                 onto: int | None = None, values: tuple[Test | None, ...] = ()) -> None:
        self.kind = kind
        self.target = target
        self.bound = bound
        self.reads = reads
        self.outcome = outcome
        self.fields = fields or {}
        self.args = args  # a call's: what each argument reads
        self.callee = callee  # a call's: the procedure called
        self.onto = onto  # a roll's: the running sum its total is added to (read if live)
        # A call's: each argument as a function of the frame (a leaf, as a test's), where it
        # reads simple values and parties alone; and its place among what `decide` gives.
        self.values = values
        self.at: int | None = None


class Item:
    """A segment's statement as liveness sees it: an assignment to a slot, a change of the
    party a slot holds, an exit, an `if` (its test's reads, then each branch's statements,
    and the test as values known from the start may decide it), or any other statement (all
    it reads, and the exits inside it)."""

    __slots__ = ("kind", "slot", "uses", "exits", "body", "orelse", "test", "at")

    def __init__(self, kind: str, slot: int | None, uses: frozenset[int],
                 exits: tuple[Exit, ...] = (), body: tuple[Item, ...] = (),
                 orelse: tuple[Item, ...] = (), test: Test | None = None) -> None:
        self.kind = kind
        self.slot = slot
        self.uses = uses
        self.exits = exits
        self.body = body
        self.orelse = orelse
        self.test = test
        self.at: int | None = None  # its place among the stepper's tests (`Stepper.decide`)


class Segment:
    """A segment's function, its statements for liveness, whether it changes a party, and
    the slots it may set (its exits' apart)."""

    __slots__ = ("fn", "items", "mutates", "sets")

    def __init__(self, fn: Callable[..., Any], items: tuple[Item, ...], mutates: bool,
                 sets: frozenset[int] = frozenset()) -> None:
        self.fn = fn
        self.items = items
        self.mutates = mutates
        self.sets = sets

    def exits(self) -> list[Exit]:
        """Every way out of the segment."""
        found: list[Exit] = []
        todo = list(self.items)
        while todo:
            item = todo.pop()
            found.extend(item.exits)
            todo.extend(item.body + item.orelse)
        return found


class Stepper:
    """A procedure cut into segments at its rolls and calls (written by compiler/stepper.py)."""

    def __init__(self, name: str, slots: tuple[str, ...], params: int,
                 segments: tuple[Segment, ...], simple: frozenset[int],
                 party_slots: tuple[int, ...], values: Mapping[str, int],
                 span: Span | None, source: str | None, loops: bool = True,
                 changes: frozenset[str] | None = None) -> None:
        self.name = name
        self.loops = loops  # whether any segment counts loop passes (`ctx.passes_made`)
        self.slots = slots  # every value the procedure holds, parameters first
        self.params = params  # parameters first: the arguments of a call
        self.segments = segments
        self.simple = simple  # slots that hold numbers, names, yes/no or dice only
        self.party_slots = party_slots  # slots that may hold a combatant
        self.values = values  # a value name (`wound`) -> its slot, for odds by a value
        self.span = span
        self.source = source
        self.fns = tuple(segment.fn for segment in segments)
        self.everywhere = frozenset(range(len(segments)))  # one path's steps: all straight on
        self.mutating = frozenset(pc for pc, segment in enumerate(segments) if segment.mutates)
        self.fixed, self.untouched = self._fixed()
        self.same = self._unset()  # per segment, `fixed` and the slots no path there has set
        # Slots that may hold a party besides the parameters no segment sets (`let loser = a`).
        self.loose = frozenset(range(len(slots))) - self.simple - self.untouched
        self.changes = changes  # the fields its changes set (None: some not known)
        self.tests, self.calls = self._decidable()
        self._changeable: Any = _NOT_YET  # `exact_known.changeable`, once its callees are known
        # What `decide` gave, by the values it reads (the figures of a party by identity).
        self._decided: dict[tuple[Any, ...], tuple[tuple[Any, ...], Decided]] = {}
        known = ({_slot(u) for test, _ in self.tests for u in test.uses} |
                 {_slot(u) for ex, _ in self.calls for reads in ex.args for u in reads}) & \
            (self.fixed | self.untouched)
        self._simple_known = _getter(sorted(known & self.simple))
        self._other_known = _getter(sorted(known - self.simple))
        self.callees: dict[str, Stepper] = {}
        self._plans: dict[Any, Plan] = {}
        self._live: dict[Any, tuple[list[frozenset[Any]], list[dict[int, Call]]]] = {}
        self._working_out = 0  # live() under way (a procedure calling itself, at a bound)
        self.in_circle = False  # called round a circle of calls (its depth counted)

    def frame(self, args: tuple[Any, ...]) -> list[Any]:
        """The starting frame: the arguments, then none for every value not yet set. A frame
        belongs to one state: its segment writes what it sets into it."""
        return list(args) + [None] * (len(self.slots) - len(args))

    def plan(self, question: Any, party_of: tuple[tuple[int, ...], ...], parties: int,
             decided: Decided = None) -> Plan:
        """Per segment, how a state there is merged (`Place`): prepared once per question,
        way the arguments hold the parties and branches decided (`decide`), then reused by
        every computation that asks."""
        key = (question, party_of, parties, decided)
        found = self._plans.get(key)
        if found is None:
            live, calls = self.live(question, decided)
            found = Plan(self._place(now, asked, party_of, parties, same)
                         for now, asked, same in zip(live, calls, self.same))
            self._fuse(found)
            found.glanced = self._glanced(found, decided)
            if len(self._plans) > 64:
                self._plans.clear()
            self._plans[key] = found
        return found

    def _fixed(self) -> tuple[frozenset[int], frozenset[int]]:
        """The slots the same in every state past the first segment, and the parameters no
        segment sets. The first segment is played once, by the one state a computation starts
        from: what it alone sets, and the parameters set nowhere after it, tell no states
        apart (a parameter set again after a roll does: `let bonus = bonus + a`)."""
        later: set[Any] = set()
        again = False  # the first segment played again (a loop back to it)
        for pc, segment in enumerate(self.segments):
            if pc:
                later |= segment.sets
            for ex in segment.exits():
                later |= {ex.bound, ex.onto}
                again = again or ex.target == 0
        untouched = frozenset(range(self.params)) - later - self.segments[0].sets
        if again:
            return untouched, untouched
        return frozenset(set(range(self.params)) | self.segments[0].sets) - later, untouched

    def _unset(self) -> list[frozenset[int]]:
        """Per segment, the slots the same in every state arriving there: `fixed`, and those
        no path from the start to it has set (none in every state, till something sets them)."""
        every = frozenset(range(len(self.slots)))
        unset = [every] * len(self.segments)
        unset[0] = every - frozenset(range(self.params))
        changed = True
        while changed:  # a forward fixpoint, down from every slot
            changed = False
            for pc, segment in enumerate(self.segments):
                out = unset[pc] - segment.sets
                for ex in segment.exits():
                    if ex.target is None:
                        continue
                    there = unset[ex.target] & (out - {ex.bound, ex.onto})
                    if there != unset[ex.target]:
                        unset[ex.target] = there
                        changed = True
        return [self.fixed | u for u in unset]

    def _decidable(self) -> tuple[list[tuple[Test, int]], list[tuple[Exit, int]]]:
        """The branches' tests values known may decide (runtime/exact_known.py), and the
        calls, each with its segment; each numbered by its place in what `decide` gives
        (`Item.at`, `Exit.at`)."""
        tests: list[tuple[Test, int]] = []
        calls: list[tuple[Exit, int]] = []
        for pc, segment in enumerate(self.segments):
            todo = list(segment.items)
            while todo:
                item = todo.pop()
                if item.test is not None:
                    item.at = len(tests)
                    tests.append((item.test, pc))
                calls.extend((ex, pc) for ex in item.exits if ex.kind == CALL)
                todo.extend(item.body + item.orelse)
        for i, (ex, _) in enumerate(calls):
            ex.at = len(tests) + i
        return tests, calls

    def decide(self, frame: Any) -> Decided:
        """What the values the same in every state decide (runtime/exact_known.py), from the
        frame the first segment handed on: the fixed values in it are every state's.
        Remembered by the values it reads, a party's figures by identity (held, so that
        their id is not reused meanwhile)."""
        values = self._simple_known(frame)
        held = tuple(v._values if type(v) is Combatant else v for v in self._other_known(frame))
        key = (values, tuple(map(type, values)), tuple(map(id, held)))
        found = self._decided.get(key)
        if found is not None and all(map(is_, found[0], held)):
            return found[1]
        if self._changeable is _NOT_YET:
            self._changeable = changeable(self)
        decided = decide(self, frame, self.fixed, self.untouched, self._changeable)
        if len(self._decided) >= 256:
            self._decided.clear()
        self._decided[key] = (held, decided)
        return decided

    def _fuse(self, places: Plan) -> None:
        """Mark the segments states go straight on to (`Plan.straight`) instead of waiting in
        a bucket to be merged, and the rest of what the loop of `Exact.solve` looks up.

        A state goes straight on where what tells states apart is still read at the target:
        every value that can tell two states at a segment apart (`same` apart) is read
        unchanged there, and so are the parties' figures, and something does tell them apart
        (such a value, or the total of a roll the target reads). States arriving that way
        could never merge with one another, so waiting would only cost time. A target some
        exit cannot go straight on to is waited at by all. A call nothing of is read after
        (`glance`) is a step forward as any other."""
        places.asked = {k: v for place in places for k, v in place.asked.items()}
        places.glance = frozenset(k for k, call in places.asked.items()
                                  if not call.fields and not call.parties)
        waits: set[Any] = set()  # targets some state must wait at: all wait there
        for pc, (segment, place) in enumerate(zip(self.segments, places)):
            same = self.same[pc]
            kept = [u for u in place.live if _slot(u) not in same]
            for ex in segment.exits():
                if segment.mutates or not self._straight(pc, ex, kept, place, places):
                    waits.add(ex.target)
        targets = {ex.target for segment in self.segments for ex in segment.exits()}
        places.straight = frozenset(targets - waits)  # type: ignore[arg-type]
        places.unread = frozenset(ex.target for segment in self.segments  # type: ignore[misc]
                                  for ex in segment.exits() if ex.kind == ROLL and
                                  ex.bound not in places.reads[ex.target] and  # type: ignore[index]
                                  ex.onto not in places.reads[ex.target] and  # type: ignore[index]
                                  ex.target not in places.straight)
        places.direct = frozenset(t for t in places.straight if not self.segments[t].mutates)

    def _glanced(self, places: Plan, decided: Decided) -> dict[int, tuple[int, ...]]:
        """Per call nothing of is read after (`Plan.glance`, by the segment after it), the
        arguments its callee reads, as the values known decide it."""
        found: dict[int, tuple[int, ...]] = {}
        for segment in self.segments:
            for ex in segment.exits():
                if ex.kind != CALL or ex.target not in places.glance:
                    continue
                inner = None if decided is None or ex.at is None else decided[ex.at]
                callee = self.callees[ex.callee]  # type: ignore[index]
                asked = places.asked[ex.target]  # type: ignore[index]
                entry = {_slot(u) for u in callee.live(asked, inner)[0][0]}
                read = tuple(i for i in range(len(ex.args)) if i in entry)
                found[ex.target] = read  # type: ignore[index]
        return found

    def _straight(self, pc: int, ex: Exit, kept: list[Any], place: Place, places: Plan
                  ) -> bool:
        if not (ex.kind in (GOTO, ROLL) or ex.kind == CALL and ex.target in places.glance) or \
                ex.target is None or ex.target <= pc:
            return False
        there = places[ex.target]
        changed = self.segments[pc].sets | {ex.bound, ex.onto}
        # A total read whole tells the states apart (one compared may merge with another).
        rolled = ex.kind == ROLL and bool({ex.bound, ex.onto} & there.live)
        return (bool(kept) or rolled) and (pc == 0 or set(place.mask) <= set(there.mask)) and \
            all(_slot(u) not in changed and (u in there.live or _slot(u) in there.live)
                for u in kept)

    def live(self, question: Any, decided: Decided = None
             ) -> tuple[list[frozenset[Any]], list[dict[int, Call]]]:
        """What each segment may still read for this question, and what each call asks of
        its callee. A backward fixpoint, in which a value set but never read (an outcome
        field not asked for, a party nothing reads again) keeps nothing it is made from
        alive; a call reads an argument only where its callee, asked what the caller reads
        after it, reads the parameter. A branch `decided` (`decide`) reads only its test and
        the arm taken: the other's exits are never taken."""
        found = self._live.get((question, decided))
        if found is not None:
            return found
        self._working_out += 1
        try:
            return self._worked_out_live(question, decided)
        finally:
            self._working_out -= 1

    def _worked_out_live(self, question: Any, decided: Decided
                         ) -> tuple[list[frozenset[Any]], list[dict[int, Call]]]:
        live: list[frozenset[Any]] = [frozenset()] * len(self.segments)
        changed = True
        while changed:
            changed = False
            for pc in range(len(self.segments) - 1, -1, -1):
                now = self._flow(self.segments[pc].items, set(), live, question, None, decided)
                if now != live[pc]:
                    live[pc] = frozenset(now)
                    changed = True
        calls: list[dict[int, Call]] = []
        for segment in self.segments:
            asked: dict[int, Call] = {}
            self._flow(segment.items, set(), live, question, asked, decided)
            calls.append(asked)
        if len(self._live) > 64:
            self._live.clear()
        self._live[(question, decided)] = (live, calls)
        return live, calls

    def _flow(self, items: tuple[Item, ...], after: set[Any], live: list[frozenset[Any]],
              question: Any, asked: dict[int, Call] | None,
              decided: Decided = None) -> set[Any]:
        """What is read before `items`, given what is read after them."""
        loose = self.loose
        now = set(after)
        for item in reversed(items):
            kind = item.kind
            if kind == ASSIGN:
                if any(_slot(u) == item.slot for u in now):
                    _drop(now, item.slot)  # type: ignore[arg-type]
                    now |= item.uses
            elif kind == CHANGE:  # a party some slot still reads
                if any(_slot(u) == item.slot or _slot(u) in loose for u in now):
                    now |= item.uses
            elif kind == EXIT:  # what follows a return is not run on its path
                now = self._needs(item.exits[0], live, question, asked, decided)
            elif kind == BRANCH:
                known = None if decided is None or item.at is None else decided[item.at]
                if known is None:
                    now = set(item.uses) | self._flow(item.body, now, live, question, asked,
                                                      decided) | \
                        self._flow(item.orelse, now, live, question, asked, decided)
                else:  # the same arm on every path: the other's exits are never taken
                    taken, uses = known
                    now = set(uses) | self._flow(item.body if taken else item.orelse, now, live,
                                                 question, asked, decided)
            else:
                now |= item.uses
                for ex in item.exits:
                    now |= self._needs(ex, live, question, asked, decided)
        return now

    def _needs(self, ex: Exit, live: list[frozenset[Any]], question: Any,
               asked: dict[int, Call] | None, decided: Decided = None) -> set[Any]:
        if ex.kind == FINISH:
            if question == NAMES:
                return set()
            if type(question) is Call:  # a caller's: some fields, the parties it reads after
                fields = ex.fields.values() if question.fields == ALL else \
                    [ex.fields[f] for f in question.fields if f in ex.fields]
                return set().union(*fields, question.parties)
            if question in ex.fields:
                return set(ex.fields[question])
            slot = self.values.get(question)
            return {slot} if slot is not None else set()
        after = set(live[ex.target])  # type: ignore[index]
        if ex.bound is not None:
            _drop(after, ex.bound)
        if ex.kind != CALL:
            return after | ex.reads
        # A call: what the callee reads of its arguments, asked what this procedure reads of
        # its outcome and of the parties it was given.
        later = {_slot(u) for u in after}
        loose = bool(later & self.loose)
        callee = self.callees[ex.callee]  # type: ignore[index]
        if callee._working_out:  # a circle of calls (down to a bound): it may read them all
            if asked is not None:
                asked[ex.target] = Call(ALL, frozenset(  # type: ignore[index]
                    i for i in range(len(ex.args)) if i in callee.party_slots))
            return after.union(*ex.args)
        parties = frozenset(i for i, reads in enumerate(ex.args)
                            if i in callee.party_slots and (
                                {_slot(u) for u in reads} & later or
                                (loose and {_slot(u) for u in reads} - self.simple)))
        told = live[ex.target]  # type: ignore[index]
        # An outcome compared with a number (no rule does) is read whole.
        compared = any(type(u) is tuple and u[0] == ex.bound and type(u[1]) is tuple
                       for u in told)
        fields: Any = ALL if ex.bound in told or compared else frozenset(
            u[1] for u in told if type(u) is tuple and u[0] == ex.bound)
        call = Call(fields, parties)
        if asked is not None:
            asked[ex.target] = call  # type: ignore[index]
        inner = None if decided is None or ex.at is None else decided[ex.at]
        entry = {_slot(u) for u in callee.live(call, inner)[0][0]}
        return after.union(*(reads for i, reads in enumerate(ex.args) if i in entry))

    def _place(self, live: frozenset[Any], asked: dict[int, Call],
               party_of: tuple[tuple[int, ...], ...], parties: int, same: frozenset[int]
               ) -> Place:
        """What two states at a segment must share: what is read from there on (of an
        outcome, only the fields read), and the figures of each party a slot read from there
        on can reach. Values the same in every state there (`same`) are left out."""
        told = {u for u in live if _slot(u) not in same}
        # A value read only in comparisons with whole numbers (`attack_roll == 1`) or none is
        # keyed by their results: the rolls that compare alike merge.
        compared: dict[int, set[tuple[str, Any]]] = {}
        for use in told:
            if type(use) is tuple and type(use[1]) is tuple:
                compared.setdefault(use[0], set()).add(use[1])
        # A field of a simple value (`defence == "Parry"` reads a name's "@name") is the
        # value itself: kept whole, it is keyed at the cost of a subscript; so is a value
        # both compared and read a field of.
        named = {u[0] for u in told if type(u) is tuple and type(u[1]) is not tuple}
        whole = {u for u in told if type(u) is int} | (named & (self.simple | set(compared)))
        fields: dict[int, list[str]] = {}
        for use in told:
            if type(use) is tuple and use[0] not in whole and type(use[1]) is not tuple:
                fields.setdefault(use[0], []).append(use[1])
        simple = sorted(whole & self.simple)
        other = tuple(sorted(whole - self.simple))
        tests = tuple((slot, op, number) for slot in sorted(set(compared) - whole)
                      for op, number in sorted(compared[slot], key=repr))
        parted = tuple((slot, tuple(sorted(names))) for slot, names in sorted(fields.items()))
        read = {_slot(u) for u in live}
        if read & self.loose:
            mask: tuple[int, ...] = tuple(range(parties))  # a slot may hold any party
        else:
            mask = tuple(sorted({p for slot in read if slot < self.params
                                 for p in party_of[slot]}))
        if not parted:
            return Place(_key_function(simple, mask, other, tests=tests), mask, live, asked)

        def values(frame: Any, states: list[Combatant]) -> Any:
            return tuple(_fields(frame[i], names, states) for i, names in parted)
        return Place(_key_function(simple, mask, other, values, tests), mask, live, asked)


class Plan(list):  # type: ignore[type-arg]
    """A procedure's `Place`s, by segment, for one question; the segments states go straight
    on to (`straight`), of which those a step forward goes right into (`direct`: the
    segments' Python reads them as `_ctx.fused`); those after a roll whose total nothing
    reads, where states wait (`unread`); what each call asks of its callee, by the segment
    after it (`asked`), and those after a call nothing of is read (`glance`)."""

    def __init__(self, places: Any) -> None:
        super().__init__(places)
        self.keys = [place.key for place in self]
        self.lives = [place.live for place in self]
        # The slots read from each segment on, whole or not (a total compared is read).
        self.reads = [frozenset(map(_slot, place.live)) for place in self]
        self.straight: frozenset[int] = frozenset()
        self.unread: frozenset[int] = frozenset()  # after a roll nothing reads: any total
        self.direct: frozenset[int] = frozenset()
        self.asked: dict[int, Call] = {}
        self.glance: frozenset[int] = frozenset()  # after calls nothing of is read: one path
        self.glanced: dict[int, tuple[int, ...]] = {}  # the arguments their callees read


class Place:
    """How states at one segment are merged, for one question: `key(frame, states)` is what
    a state there holds that is read on, and which figures each party read on has (their
    identity: a party's figures are one object per state, memoised)."""

    __slots__ = ("key", "mask", "live", "asked")

    def __init__(self, key: Callable[[Any, list[Combatant]], Any] | None, mask: tuple[int, ...],
                 live: frozenset[Any], asked: dict[int, Call]) -> None:
        self.key = key
        self.mask = mask  # the parties whose figures are read from here on
        self.live = live  # what is read from here on
        self.asked = asked  # what each call here asks of its callee, by the segment after it


def _getter(slots: list[int]) -> Callable[[Any], tuple[Any, ...]]:
    """The values of these slots of a frame, as a tuple (`itemgetter` gives one bare)."""
    if len(slots) > 1:
        return itemgetter(*slots)
    return eval(f"lambda f: ({''.join(f'f[{i}], ' for i in slots)})")  # of numbers alone


def _key_function(simple: list[int], mask: tuple[int, ...], other: tuple[int, ...] = (),
                  values: Callable[[Any, list[Combatant]], Any] | None = None,
                  tests: tuple[tuple[int, str, Any], ...] = ()
                  ) -> Callable[[Any, list[Combatant]], Any] | None:
    """A key function written out for its slots and parties (`lambda f, s: (f[7], f[15],
    id(s[0]._values))`): it runs once per state arriving, so it does no more than that. Its
    text is made of numbers alone. A slot of a value of any kind (`other`: a number or none, a
    party, a list) is keyed as it is when it holds a simple value, the usual case, and through
    `_keyed` only otherwise (a call per state saved where the odds merge on a number whose
    kind the compiler does not know, as melee_attack's `excess`). A slot read only in
    comparisons with whole numbers or none (`tests`: slot, operator, number) is keyed by what
    they give, where it holds a whole number (anything else, as none, tagged as itself, so
    that it never equals a comparison's result: the segment may fail on it).
    None where nothing tells states apart: every state there merges into one, keyed ()."""
    parts = [f"f[{i}]" for i in simple] + \
        [f"(f[{i}] if type(f[{i}]) in S else k(f[{i}], s))" for i in other] + \
        [f"f[{i}] == None" if n is None else
         f"(f[{i}] {op} {n} if type(f[{i}]) is int else ('@', k(f[{i}], s)))"
         for i, op, n in tests] + \
        (["v(f, s)"] if values is not None else []) + [f"id(s[{p}]._values)" for p in mask]
    if not parts:
        return None
    return eval(f"lambda f, s: ({''.join(part + ', ' for part in parts)})",
                {"v": values, "id": id, "type": type, "S": _SIMPLE, "k": _keyed})


def _key(key: Callable[[Any, list[Combatant]], Any] | None, frame: Any,
         states: list[Combatant]) -> Any:
    return key(frame, states) if key is not None else ()


def _fields(value: Any, names: tuple[str, ...], places: Sequence[Combatant]) -> Any:
    """The fields read of an outcome (`@name` its name); any other value whole."""
    if type(value) is Outcome:
        return tuple(value.name if f == NAME_ONLY else _keyed(value._values.get(f), places)
                     for f in names)
    return _keyed(value, places)


def _keyed(value: Any, places: Sequence[Combatant]) -> Any:
    """A value as part of a state's key: a party by its place among `places` (the parties'
    states: a few, so looked through rather than indexed for every state keyed), maps and
    lists by content."""
    kind = type(value)
    if kind in _SIMPLE:
        return value
    if kind is Combatant:
        place = next((i for i, h in enumerate(places) if h is value), None)
        # A combatant no party holds (one held by another's figures) is what its figures are.
        return ("@party", place) if place is not None else ("@held", id(value._values))
    if kind is tuple or kind is list:
        return ("@list",) + tuple(_keyed(v, places) for v in value)
    if kind is dict:
        return ("@map",) + tuple((k, _keyed(v, places)) for k, v in value.items())
    if kind is Outcome:
        return ("@outcome", value.name) + tuple((k, _keyed(v, places))
                                                 for k, v in value._values.items())
    try:
        hash(value)
    except TypeError:
        return ("@id", id(value))  # kept alive by the state that holds it
    return value


def _remap(value: Any, fresh: dict[int, Combatant]) -> Any:
    kind = type(value)
    if kind is Combatant:
        return fresh.get(id(value), value)
    if kind is tuple:
        return tuple(_remap(v, fresh) for v in value)
    if kind is dict:
        return {k: _remap(v, fresh) for k, v in value.items()}
    return value


def _parties_in(values: Any, handles: dict[int, int], found: list[Combatant]) -> None:
    """The handles among values (and inside their lists and maps), in order, once each."""
    for value in values:
        kind = type(value)
        if kind is Combatant:
            if id(value) in handles and all(value is not f for f in found):
                found.append(value)
        elif kind is tuple or kind is list:
            _parties_in(value, handles, found)
        elif kind is dict:
            _parties_in(value.values(), handles, found)


def _party_of(stepper: Stepper, frame: list[Any], parties: list[Combatant]
              ) -> tuple[tuple[int, ...], ...]:
    """Per parameter, the places among `parties` of the parties it holds."""
    party_of = []
    for slot in range(stepper.params):
        value = frame[slot]
        kind = type(value)
        if kind is Combatant:  # the common case: one party
            for i, party in enumerate(parties):
                if party is value:
                    party_of.append((i,))
                    break
            else:
                party_of.append(())
        elif kind in _SIMPLE:
            party_of.append(())
        else:
            where = {id(h): i for i, h in enumerate(parties)}
            found: list[Combatant] = []
            _parties_in((value,), where, found)
            party_of.append(tuple(where[id(h)] for h in found))
    return tuple(party_of)


def _enter(buckets: list[dict[Any, list[Any]] | None], heap: list[tuple[int, int]], plan: Plan,
           pc: int, frame: Any, seen: list[Combatant], states: list[Combatant], num: int,
           den: int, epoch: int, passes: int) -> int:
    """A state arrives at segment pc (from a call, or a loop's next pass): merged with the one
    waiting there of the same key (0), or waiting as a new state (1)."""
    bucket = buckets[pc]
    if bucket is None:
        bucket = buckets[pc] = {}
        heapq.heappush(heap, (epoch, pc))
    key = _key(plan.keys[pc], frame, states)
    held = bucket.get(key)
    if held is None:
        bucket[key] = [num, den, frame, seen, states, passes]
        return 1
    _merge(held, num, den, passes)
    return 0


def _merge(held: list[Any], num: int, den: int, passes: int) -> None:
    """A state's weight added to the state of the same key waiting (its loop passes, the
    most of either)."""
    if held[1] == den:
        held[0] += num
    else:
        add_weight(held, num, den)
    if passes > held[5]:
        held[5] = passes


def _spread(bucket: dict[Any, list[Any]], key: Callable[[Any, list[Combatant]], Any] | None,
            frame: list[Any], slot: int, counts: Counts, fresh: list[Combatant], num: int,
            den: int, passes: int, onto: tuple[int, Any] | None = None) -> int:
    """Each total of a roll into the target's bucket, merged as one state arriving is: the
    number of new states. `onto`: a running sum's slot and value, each total added to it."""
    den *= counts.ways
    new = 0
    # The state's frame is its own and done with: each total is written into it to find its
    # key, and it is copied only for a state that does not merge.
    for total, ways in zip(counts.totals, counts.counts):
        frame[slot] = total
        if onto is not None:
            frame[onto[0]] = onto[1] + total
        k = key(frame, fresh) if key is not None else ()
        held = bucket.get(k)
        if held is None:
            bucket[k] = [num * ways, den, list(frame), fresh, fresh, passes]
            new += 1
        elif held[1] == den:
            held[0] += num * ways
            if passes > held[5]:
                held[5] = passes
        else:
            _merge(held, num * ways, den, passes)
    return new


def _push(straight: list[tuple[Any, ...]], target: int, frame: list[Any], slot: int,
          counts: Counts, fresh: list[Combatant], num: int, den: int, passes: int,
          onto: tuple[int, Any] | None = None) -> None:
    """Each total of a roll as a state going straight on (played first to last); `onto` as
    `_spread`'s."""
    den *= counts.ways
    for total, ways in zip(reversed(counts.totals), reversed(counts.counts)):
        child = list(frame)
        child[slot] = total
        if onto is not None:
            child[onto[0]] = onto[1] + total
        straight.append((target, num * ways, den, child, fresh, fresh, passes))


def _within(value: Any, ex: tuple[Any, ...], ctx: Any) -> Any:
    """A running sum within the digits its roll's exit allows (`number_digits` as the rule
    was compiled), as the `let` it stands for checks it."""
    digits = ex[7]
    if type(value) is int and (not -_SMALL < value < _SMALL or digits < 15) and \
            len(str(abs(value))) > digits:
        raise RangeError(f"this number would have more than {digits} digits "
                         f"{Limits.hint('number_digits')}", ex[5], ctx.source)
    return value


_SMALL = 10**15  # fewer digits than that are within a number_digits limit of 15 or more


def add_weight(held: list[Any], num: int, den: int) -> None:
    """Add num/den to the weight held as [numerator, denominator, ...]."""
    if held[1] == den:
        held[0] += num
        return
    both = math.lcm(held[1], den)
    held[0] = held[0] * (both // held[1]) + num * (both // den)
    held[1] = both


# Rolls' distributions by the limits they were worked out under, then by the dice object: a
# rule's dice are constants of its compiled code, the same objects at every roll of every
# computation (as icepool keeps its dice), and looking them up by value costs a hash of the
# dice each time. Each entry holds its limits or dice, so that the id is not reused meanwhile.
_COUNTS: dict[int, tuple[Limits, dict[int, tuple[Dice, Counts]]]] = {}


def _known_counts(limits: Limits) -> dict[int, tuple[Dice, Counts]]:
    entry = _COUNTS.get(id(limits))
    if entry is None or entry[0] is not limits:
        if len(_COUNTS) >= 16:
            _COUNTS.clear()
        entry = _COUNTS[id(limits)] = (limits, {})
    return entry[1]


# Segments played per procedure, counted when set (tests show that the work is small).
TALLY: Counter[str] | None = None


class TooLarge(DiceError):
    """Exact odds that would take more states than the limit allows (sample them instead)."""


class Exact:
    """One exact computation: its run context, its limits, and the calls worked out so far."""

    def __init__(self, ctx: Any, limits: Limits) -> None:
        self.ctx = ctx
        self.limits = limits
        self.states = 0  # distinct states made, against limits.odds_states
        self.work = 0  # states arriving (merged or not), against limits.enumeration_work
        self.played = 0  # segments played
        self.calls_deep = 0  # calls being worked out inside one another (a circle, to a bound)
        self.calls: dict[Any, list[tuple[int, int, Outcome, tuple[Combatant, ...]]]] = {}
        self.dice: dict[Dice, Counts] = {}
        self.paths: dict[Any, tuple[Outcome, Any, Any]] = {}  # `one_path`'s, by call
        self.known = _known_counts(limits)
        ctx.fused = frozenset()  # the steps straight on of the procedure being played

    def solve(self, stepper: Stepper, frame: list[Any], parties: list[Combatant],
              question: Any, finish: Callable[..., None]) -> None:
        """Play `stepper` from `frame` over every roll and call, merging equal states; each
        distinct ending is handed to `finish(outcome, frame, parties, numerator, denominator)`.

        States wait at their segment, in a bucket per segment (a dict by merge key); buckets
        are played in the order (loop passes begun, segment): segments are numbered in the
        order of the rule text, so every state reaching a segment is merged into it before it
        is played (a state that comes late is played again: slower, never wrong). Where the
        plan says no state arriving could merge (`Plan.straight`), a state goes straight on
        instead, played next from a stack.

        Where values the first segment sets may decide branches (`Stepper.tests`), the first
        segment is played alone, and the plan is the one for the branches its frame decides."""
        party_of = _party_of(stepper, frame, parties)
        plan = stepper.plan(question, party_of, len(parties))
        refine: Callable[[Any], Plan] | None = None
        if stepper.tests or stepper.calls:
            def refine(first: Any) -> Plan:
                return stepper.plan(question, party_of, len(parties), stepper.decide(first))
        ctx = self.ctx
        outer, ctx.fused = ctx.fused, plan.direct if refine is None else frozenset()
        try:
            self.play(stepper, plan, frame, parties, finish, refine)
        except RulecraftError:
            raise
        except (*ARITHMETIC, TypeError) as err:
            what = calculation_message(err) if not isinstance(err, TypeError) else (
                "a value used here is none (a name set in only some branches of an `if` is "
                "none in the others)")
            raise CalculationError(f"{what}: in procedure {stepper.name}", stepper.span,
                                   stepper.source) from None
        finally:
            ctx.fused = outer

    def play(self, stepper: Stepper, plan: Plan, frame: list[Any], parties: list[Combatant],
             finish: Callable[..., None], refine: Callable[[Any], Plan] | None = None) -> None:
        """The loop of `solve`, once per state: written out inline, with the plan's lookups
        in locals, as its cost is most of the cost of exact odds. A state is [numerator,
        denominator, frame, the handles that frame names (`seen`), the parties' figures now
        (`states`), loop passes]; a segment that changes a party plays on fresh handles."""
        keys, straight_to, unread, glance = plan.keys, plan.straight, plan.unread, plan.glance
        fns, mutating, party_slots = stepper.fns, stepper.mutating, stepper.party_slots
        loops, ctx = stepper.loops, self.ctx
        buckets: list[dict[Any, list[Any]] | None] = [None] * len(fns)
        buckets[0] = {_key(keys[0], frame, parties): [1, 1, frame, parties, parties, 0]}
        heap: list[tuple[int, int]] = [(0, 0)]  # (epoch, segment) of each bucket waiting
        heappush, heappop = heapq.heappush, heapq.heappop
        straight: list[tuple[Any, ...]] = []  # states going straight on, played next
        # Counted in locals (and kept on self between calls): the whole computation shares
        # the limits, calls included.
        made, arrived, played = self.states + 1, self.work + 1, 0
        made_limit, work_limit = self.limits.odds_states, self.limits.enumeration_work
        if made > made_limit:
            raise self.refuse(made, arrived)
        # For refusing early: per segment, the states played there and the new ones they made.
        expanded, spawned = [0] * len(fns), [0] * len(fns)
        try:
            while heap:
                epoch, first = heappop(heap)
                bucket, buckets[first] = buckets[first], None
                size = left = len(bucket)  # type: ignore[arg-type]
                before = made
                for num, den, frame, seen, states, passes in bucket.values():  # type: ignore[union-attr]
                    if not left & 63:
                        self.foresee(expanded[first] + size - left, spawned[first] + made - before,
                                     left, made, arrived)
                    left -= 1
                    played += 1
                    pc = first
                    while True:  # this state, then those going straight on from it
                        if pc in mutating or seen is not states:
                            fresh, frame = self.fresh(states, seen, party_slots, frame)
                        else:
                            fresh = states
                        if loops:
                            ctx.passes_made = passes
                            ex = fns[pc](ctx, frame)
                            passes = ctx.passes_made
                        else:
                            ex = fns[pc](ctx, frame)
                        if refine is not None:  # the first segment, played alone (`solve`)
                            if ex is not None:
                                plan = refine(ex[2])
                                keys, straight_to = plan.keys, plan.straight
                                unread, glance = plan.unread, plan.glance
                            ctx.fused, refine = plan.direct, None
                        try:
                            kind, target = ex[0], ex[1]
                        except TypeError:
                            raise RulecraftError(f"procedure {stepper.name} ended without an "
                                                 "outcome", stepper.span, stepper.source) from None
                        if kind == ROLL and target in unread:  # one state, any of the totals
                            arrived += 1
                            child = ex[2]
                            bucket = buckets[target]
                            if bucket is None:
                                bucket = buckets[target] = {}
                                heappush(heap, (epoch, target))
                            key = keys[target]  # reads no total
                            key = key(child, fresh) if key is not None else ()
                            held = bucket.get(key)
                            if held is None:  # the frame is this state's alone
                                child[ex[3]] = self.any_total(ex[4], ex[5])
                                bucket[key] = [num, den, child, fresh, fresh, passes]
                                made += 1
                                if made > made_limit or arrived > work_limit:
                                    raise self.refuse(made, arrived)
                            elif held[1] == den:
                                held[0] += num
                                if loops and passes > held[5]:
                                    held[5] = passes
                            else:
                                _merge(held, num, den, passes)
                        elif kind == GOTO or kind == ROLL or kind == CALL and target in glance:
                            child = ex[2]
                            if kind == CALL:  # nothing of it is read after: one of its paths
                                child[ex[3]] = self.glance(stepper.callees[ex[4]], ex[5], fresh,
                                                           plan.glanced[target])
                            elif kind == ROLL:
                                self.states, self.work = made, arrived
                                # Straight on only from a lone state (the first, one merged
                                # from many) as it waited: many states' totals wait, to be
                                # merged, and refused early if too many.
                                pushed = self.rolled(plan, ex, buckets, heap, straight, fresh,
                                                     num, den, epoch, passes,
                                                     size == 1 and pc == first)
                                if pushed is not None:  # a state per total, on their way
                                    made, arrived, played = self.states, self.work, played + pushed
                                    child = None
                            if child is not None:  # one state arrives: straight on, or waits
                                arrived += 1
                                if target in straight_to:
                                    made += 1
                                    played += 1
                                    straight.append((target, num, den, child, fresh, fresh,
                                                     passes))
                                else:
                                    bucket = buckets[target]
                                    if bucket is None:
                                        bucket = buckets[target] = {}
                                        heappush(heap, (epoch, target))
                                    key = keys[target]
                                    key = key(child, fresh) if key is not None else ()
                                    held = bucket.get(key)
                                    if held is None:
                                        bucket[key] = [num, den, child, fresh, fresh, passes]
                                        made += 1
                                    elif held[1] == den:
                                        held[0] += num
                                        if loops and passes > held[5]:
                                            held[5] = passes
                                    else:
                                        _merge(held, num, den, passes)
                                if made > made_limit or arrived > work_limit:
                                    raise self.refuse(made, arrived)
                        elif kind == FINISH:
                            finish(target, ex[2], fresh, num, den)
                        else:  # a call whose outcome is read, or a loop's next pass
                            self.states, self.work = made, arrived
                            self.arrive(stepper, plan, ex, buckets, heap, fresh, num, den, epoch,
                                        passes)
                            made, arrived = self.states, self.work
                        if not straight:
                            break
                        pc, num, den, frame, seen, states, passes = straight.pop()
                expanded[first] += size
                spawned[first] += made - before
        finally:
            self.played += played
            if TALLY is not None:
                TALLY[stepper.name] += played
        self.states, self.work = made, arrived

    def rolled(self, plan: Plan, ex: tuple[Any, ...], buckets: list[dict[Any, list[Any]] | None],
               heap: list[tuple[int, int]], straight: list[tuple[Any, ...]],
               fresh: list[Combatant], num: int, den: int, epoch: int, passes: int,
               lone: bool) -> int | None:
        """A roll whose total is read: a state per total, waiting at the next segment or, from
        a lone state, going straight on (the number of those; the counts on self); or a roll
        of a plain number, or of a total read by nothing, that makes one state (None, its
        frame set). A roll added to a running sum as well (`Exit.onto`) whose own total is
        read no more spreads the sum's totals: the roll's, shifted by the sum so far (a
        convolution, one state per total of the sum)."""
        target, frame, slot, dice = ex[1], ex[2], ex[3], ex[4]
        hit = self.known.get(id(dice))
        counts = hit[1] if hit is not None and hit[0] is dice else \
            self.counts(dice, ex[5]) if isinstance(dice, Dice) else None
        onto: tuple[int, Any] | None = None  # (the sum's slot, the sum so far), both set
        if len(ex) > 6:
            live, total = plan.reads[target], ex[6]
            if counts is None:  # a plain number rolled
                frame[slot] = dice
                frame[total] = _within(frame[total] + dice, ex, self.ctx)
                return None
            if slot not in live:
                frame[slot] = counts.totals[0]  # read by nothing: any real total
                if total not in live:
                    return None
                counts, slot = counts.shifted(frame[total]), total
                _within(counts.totals[-1], ex, self.ctx)
                _within(counts.totals[0], ex, self.ctx)
            else:  # the roll's own total is read too (odds by it): both set
                onto = (total, frame[total])
                _within(onto[1] + counts.totals[-1], ex, self.ctx)
                _within(onto[1] + counts.totals[0], ex, self.ctx)
        if counts is None or slot not in plan.reads[target]:
            frame[slot] = dice if counts is None else counts.totals[0]
            return None
        n, pushed = len(counts.totals), 0
        if lone and target in plan.straight:
            _push(straight, target, frame, slot, counts, fresh, num, den, passes, onto)
            self.states += n
            pushed = n
        else:
            bucket = buckets[target]
            if bucket is None:
                bucket = buckets[target] = {}
                heapq.heappush(heap, (epoch, target))
            self.states += _spread(bucket, plan.keys[target], frame, slot, counts, fresh, num,
                                   den, passes, onto)
        self.work += n
        if self.states > self.limits.odds_states or self.work > self.limits.enumeration_work:
            raise self.refuse(self.states, self.work)
        return pushed

    def arrive(self, stepper: Stepper, plan: Plan, ex: tuple[Any, ...],
               buckets: list[dict[Any, list[Any]] | None], heap: list[tuple[int, int]],
               fresh: list[Combatant], num: int, den: int, epoch: int, passes: int) -> None:
        """The states after a call whose outcome is read (one per ending its caller tells
        apart) or a loop's next pass (a pass later), each merged or waiting."""
        if ex[0] == BACK:
            arrivals = [(1, 1, ex[2], fresh)]
            epoch += 1
        else:
            arrivals = self.called(stepper, plan.asked, ex, fresh)  # type: ignore[assignment]
        for cnum, cden, child, after in arrivals:
            self.work += 1
            self.states += _enter(buckets, heap, plan, ex[1], child, fresh, after, num * cnum,
                                  den * cden, epoch, passes)
        if self.states > self.limits.odds_states or self.work > self.limits.enumeration_work:
            raise self.refuse(self.states, self.work)

    def foresee(self, done: int, new: int, left: int, made: int, arrived: int) -> None:
        """Refuse early: the states played at a segment so far (`done`) each made this many
        new ones (`new` in all), and the `left` still waiting there will make about as many
        (fewer, as more merge). Refused when even half of that is more than the limit allows."""
        if done >= 64 and new > 5000:
            foreseen = made + new * left // done
            if foreseen > 2 * self.limits.odds_states:
                self.states, self.work = made, arrived
                raise self.too_large("odds_states", foreseen)

    def fresh(self, states: list[Combatant], seen: list[Combatant], party_slots: tuple[int, ...],
              frame: Any) -> tuple[list[Combatant], Any]:
        """New handles of the parties' figures, for a segment that changes a party or a state
        whose figures a call changed, and the frame naming them; the run may change them."""
        fresh = [h.handle() for h in states]
        if party_slots and seen:
            by_id = {id(old): h for old, h in zip(seen, fresh)}
            frame = list(frame)
            for slot in party_slots:
                value = frame[slot]
                if type(value) is Combatant:
                    frame[slot] = by_id.get(id(value), value)
                elif value is not None:
                    frame[slot] = _remap(value, by_id)
        self.ctx.handles = {id(h) for h in fresh}
        return fresh, frame

    def refuse(self, made: int, arrived: int) -> TooLarge:
        """The error of a computation past its limits (the counts kept on self)."""
        self.states, self.work = made, arrived
        return self.too_large("odds_states" if made > self.limits.odds_states else
                              "enumeration_work")

    def called(self, stepper: Stepper, asked: dict[int, Call], ex: tuple[Any, ...],
               fresh: list[Combatant]) -> list[tuple[int, int, list[Any], list[Combatant]]]:
        """The frames a call goes on with (its outcome in its slot), each with its weight and
        the parties' figures after it."""
        _, target, frame, slot, name, args, where = ex
        question = asked[target]
        callee = stepper.callees[name]
        out = []
        if callee.in_circle and self.calls_deep >= self.limits.nesting_depth:  # context.call
            raise RangeError(f"procedures call one another more than "
                             f"{self.limits.nesting_depth} deep here "
                             f"{Limits.hint('nesting_depth')}", where, self.ctx.source)
        self.calls_deep += 1
        try:
            ends = self.call(callee, question, args, fresh)
        finally:
            self.calls_deep -= 1
        for cnum, cden, outcome, after in ends:
            child = list(frame)
            child[slot] = outcome
            out.append((cnum, cden, child, after))
        return out

    def glance(self, callee: Stepper, args: tuple[Any, ...], fresh: list[Combatant],
               reads: tuple[int, ...]) -> Outcome:
        """The outcome of one path of a call nothing of is read after (`one_path`), worked
        out once for the same arguments its callee reads (`reads`; a party's by its figures):
        nothing of it is read, so an outcome of another state's arguments serves (as where
        states merge, an error in what nothing reads may go unseen). Told apart by identity:
        the memo holds them, so that no id is reused meanwhile."""
        read = tuple(_FIGURES(args[i]) if type(args[i]) is Combatant else args[i] for i in reads)
        memo = (callee.name, reads, tuple(map(id, read)))
        held = self.paths.get(memo)
        if held is None:
            held = self.paths[memo] = (self.one_path(callee, args, fresh), read)
        return held[0]

    def one_path(self, callee: Stepper, args: tuple[Any, ...], fresh: list[Combatant]
                 ) -> Outcome:
        """The outcome of one path of a call (each roll's first total, each call's first
        path), played on copies of the parties: what a state holds where a call's outcome is
        not read, so that what is done with it anyway is done with a real one. One path
        merges with nothing: every step forward goes straight into the next segment."""
        copies = {id(h): h.handle() for h in fresh}
        frame: Any = [copies.get(id(a), a) if type(a) is Combatant else _remap(a, copies)
                      for a in args]
        frame += [None] * (len(callee.slots) - len(frame))
        ctx = self.ctx
        # Each segment played costs a step of the command's work: calls nested twice over
        # would otherwise play 2^depth paths, none of them counted as a state.
        ctx.work.spend(3 * len(callee.fns), callee.span, callee.source)
        saved = ctx.passes_made, ctx.handles, ctx.fused
        ctx.handles = {id(h) for h in copies.values()}
        ctx.fused = callee.everywhere
        pc = 0
        try:
            while True:
                ex = callee.fns[pc](ctx, frame)
                if ex is None or ex[0] == FINISH:
                    return ex[1] if ex is not None else None  # type: ignore[no-any-return]
                frame = ex[2]
                if ex[0] == ROLL:
                    frame[ex[3]] = self.any_total(ex[4], ex[5])
                    if len(ex) > 6:  # added to a running sum as well
                        frame[ex[6]] = _within(frame[ex[6]] + frame[ex[3]], ex, ctx)
                elif ex[0] == CALL:
                    frame[ex[3]] = self.one_path(callee.callees[ex[4]], ex[5],
                                                 list(copies.values()))
                pc = ex[1]
        finally:
            ctx.passes_made, ctx.handles, ctx.fused = saved

    def any_total(self, dice: Any, span: Span | None) -> Any:
        """What a roll nothing reads gives a state: a real total (its lowest), or the number
        rolled where the roll is of a plain number."""
        return self.counts(dice, span).totals[0] if isinstance(dice, Dice) else dice

    def counts(self, dice: Dice, span: Span | None) -> Counts:
        """A roll's distribution, by the dice object (`_COUNTS`), else by value."""
        hit = self.known.get(id(dice))
        if hit is not None and hit[0] is dice:
            return hit[1]
        found = self.dice.get(dice)
        if found is None:
            try:
                found = dice.counts(self.limits)
            except DiceError as err:
                raise DiceError(err.message, span, self.ctx.source) from None
            self.dice[dice] = found
        if len(self.known) >= 256:
            self.known.clear()
        self.known[id(dice)] = (dice, found)
        return found

    def call(self, callee: Stepper, question: Call, args: tuple[Any, ...],
             fresh: list[Combatant]) -> list[tuple[int, int, Outcome, list[Combatant]]]:
        """A call's endings, each with the caller's parties as they stand after it: worked
        out once per distinct arguments, party figures and question."""
        places = {id(h): i for i, h in enumerate(fresh)}
        parties: list[Combatant] = []
        _parties_in(args, places, parties)
        inner = {id(h): i for i, h in enumerate(parties)}
        read: list[Combatant] = []  # the parties whose figures the callee reads
        entry = {_slot(u) for u in callee.live(question)[0][0]}
        _parties_in([a for i, a in enumerate(args) if i in entry], inner, read)
        memo = (callee.name, question, tuple(_keyed(a, inner) if i in entry else None
                                             for i, a in enumerate(args)),
                tuple(inner[id(h)] for h in read), tuple(id(h._values) for h in read))
        ends = self.calls.get(memo)
        if ends is None:
            kept: list[Combatant] = []  # the parties whose figures after are read
            _parties_in([args[i] for i in question.parties], inner, kept)
            ends = self.calls[memo] = self.outcomes(callee, question, callee.frame(args),
                                                    parties, [inner[id(h)] for h in kept])
        out = []
        for cnum, cden, outcome, after in ends:
            states = list(fresh)
            for party, state in zip(parties, after):
                states[places[id(party)]] = state
            out.append((cnum, cden, outcome, states))
        return out

    def outcomes(self, stepper: Stepper, question: Call, frame: list[Any],
                 parties: list[Combatant], kept: list[int]
                 ) -> list[tuple[int, int, Outcome, tuple[Combatant, ...]]]:
        """Every way a called procedure ends that its caller can tell apart: weight, outcome,
        its parties' figures after."""
        ends: dict[Any, list[Any]] = {}
        passes, handles = self.ctx.passes_made, self.ctx.handles

        def finish(outcome: Outcome, frame: Any, after: list[Combatant], num: int,
                   den: int) -> None:
            values = tuple((k, _keyed(v, after)) for k, v in question.told(outcome))
            key = (outcome.name, values, tuple(id(after[i]._values) for i in kept))
            held = ends.get(key)
            if held is None:
                ends[key] = [num, den, outcome, tuple(after)]
            else:
                add_weight(held, num, den)

        self.solve(stepper, frame, parties, question, finish)
        self.ctx.passes_made, self.ctx.handles = passes, handles
        return [(n, d, o, h) for n, d, o, h in ends.values()]

    def too_large(self, limit: str, foreseen: int | None = None) -> TooLarge:
        need = (f"about {foreseen} distinct states (foreseen from those made so far; the limit "
                f"is {self.limits.odds_states})" if foreseen is not None else
                f"more than {self.limits.odds_states} distinct states" if limit == "odds_states"
                else f"more than {self.limits.enumeration_work} steps")
        err = TooLarge(f"the exact odds need {need} {Limits.hint(limit)}; estimate them by "
                       "sampling instead: `rulecraft odds … --samples 100000 --seed 1` "
                       "(from Python: procedure.sample(100000, seed=1, …))")
        err.limit = limit  # type: ignore[attr-defined]
        return err


def odds(stepper: Stepper, ctx: Any, arguments: tuple[Any, ...], parties: list[Combatant],
         limits: Limits, question: Any, group: Callable[[Outcome, Any], Any]
         ) -> dict[Any, Fraction]:
    """The exact probability of each group `group(outcome, frame)` puts the endings in."""
    sums: dict[Any, list[int]] = {}

    def finish(outcome: Outcome, frame: Any, after: list[Combatant], num: int,
               den: int) -> None:
        key = group(outcome, frame)
        held = sums.get(key)
        if held is None:
            sums[key] = [num, den]
        else:
            add_weight(held, num, den)

    Exact(ctx, limits).solve(stepper, stepper.frame(arguments), parties, question, finish)
    return {k: Fraction(n, d) for k, (n, d) in sums.items()}


__all__ = ["ALL", "Call", "Exact", "Exit", "Item", "NAMES", "Segment", "Stepper", "TooLarge",
           "add_weight", "odds"]
