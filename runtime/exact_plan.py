"""Exact odds by states, planned: what a procedure's segments read and where states meet.

`compiler/stepper.py` writes each procedure as segments cut at every roll and call; here each
segment's statements, as liveness sees them (`Item`, `Exit`), make a `Stepper`, and a question
asked of it (which outcome, a value, what a caller reads of a call) makes a `Plan`: for each
segment, the values a state there must agree on (its key, `Place`) and where a state goes
straight on because no two could merge there. What every state shares decides branches first
(runtime/exact_known.py), so an arm never taken keeps nothing alive. runtime/exact.py plays the
plan forward.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from operator import attrgetter, is_, itemgetter
from typing import Any

from .combatants import Combatant
from .dice import Dice
from .errors import Span
from .exact_known import Decided, Test, changeable, decide, slot_of
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


def _drop(live: set[Any], slot: int) -> None:
    """A slot set anew: neither it nor any field of it is read from before here."""
    for use in [u for u in live if slot_of(u) == slot]:
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
        known = ({slot_of(u) for test, _ in self.tests for u in test.uses} |
                 {slot_of(u) for ex, _ in self.calls for reads in ex.args for u in reads}) & \
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
            kept = [u for u in place.live if slot_of(u) not in same]
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
                entry = {slot_of(u) for u in callee.live(asked, inner)[0][0]}
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
            all(slot_of(u) not in changed and (u in there.live or slot_of(u) in there.live)
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
                if any(slot_of(u) == item.slot for u in now):
                    _drop(now, item.slot)  # type: ignore[arg-type]
                    now |= item.uses
            elif kind == CHANGE:  # a party some slot still reads
                if any(slot_of(u) == item.slot or slot_of(u) in loose for u in now):
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
        later = {slot_of(u) for u in after}
        loose = bool(later & self.loose)
        callee = self.callees[ex.callee]  # type: ignore[index]
        if callee._working_out:  # a circle of calls (down to a bound): it may read them all
            if asked is not None:
                asked[ex.target] = Call(ALL, frozenset(  # type: ignore[index]
                    i for i in range(len(ex.args)) if i in callee.party_slots))
            return after.union(*ex.args)
        parties = frozenset(i for i, reads in enumerate(ex.args)
                            if i in callee.party_slots and (
                                {slot_of(u) for u in reads} & later or
                                (loose and {slot_of(u) for u in reads} - self.simple)))
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
        entry = {slot_of(u) for u in callee.live(call, inner)[0][0]}
        return after.union(*(reads for i, reads in enumerate(ex.args) if i in entry))

    def _place(self, live: frozenset[Any], asked: dict[int, Call],
               party_of: tuple[tuple[int, ...], ...], parties: int, same: frozenset[int]
               ) -> Place:
        """What two states at a segment must share: what is read from there on (of an
        outcome, only the fields read), and the figures of each party a slot read from there
        on can reach. Values the same in every state there (`same`) are left out."""
        told = {u for u in live if slot_of(u) not in same}
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
        read = {slot_of(u) for u in live}
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
        self.reads = [frozenset(map(slot_of, place.live)) for place in self]
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


__all__ = ["ALL", "Call", "Exit", "Item", "NAMES", "Plan", "Segment", "Stepper"]
