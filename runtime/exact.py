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
outcome's field is made from does not keep two paths apart. A merged state goes on with the
values of one of its paths; only values nothing reads again differ between them.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from operator import itemgetter
from typing import Any

from .combatants import Combatant
from .dice import Counts, Dice
from .errors import (ARITHMETIC, CalculationError, DiceError, RulecraftError, Span,
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
ALL = "@all"  # every field of an outcome
NAME_ONLY = "@name"


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
    call fills on the way, what it reads (the dice, the arguments, each outcome field's)."""

    __slots__ = ("kind", "target", "bound", "reads", "outcome", "fields", "args", "callee")

    def __init__(self, kind: int, target: int | None, bound: int | None, reads: frozenset[int],
                 outcome: str | None = None, fields: Mapping[str, frozenset[int]] | None = None,
                 args: tuple[frozenset[int], ...] = (), callee: str | None = None) -> None:
        self.kind = kind
        self.target = target
        self.bound = bound
        self.reads = reads
        self.outcome = outcome
        self.fields = fields or {}
        self.args = args  # a call's: what each argument reads
        self.callee = callee  # a call's: the procedure called


class Item:
    """A segment's statement as liveness sees it: an assignment to a slot, a change of the
    party a slot holds, an exit, an `if` (its test's reads, then each branch's statements),
    or any other statement (all it reads, and the exits inside it)."""

    __slots__ = ("kind", "slot", "uses", "exits", "body", "orelse")

    def __init__(self, kind: str, slot: int | None, uses: frozenset[int],
                 exits: tuple[Exit, ...] = (), body: tuple[Item, ...] = (),
                 orelse: tuple[Item, ...] = ()) -> None:
        self.kind = kind
        self.slot = slot
        self.uses = uses
        self.exits = exits
        self.body = body
        self.orelse = orelse


class Segment:
    """A segment's function, its statements for liveness, and whether it changes a party."""

    __slots__ = ("fn", "items", "mutates")

    def __init__(self, fn: Callable[..., Any], items: tuple[Item, ...], mutates: bool) -> None:
        self.fn = fn
        self.items = items
        self.mutates = mutates


class Stepper:
    """A procedure cut into segments at its rolls and calls (written by compiler/stepper.py)."""

    def __init__(self, name: str, slots: tuple[str, ...], params: int,
                 segments: tuple[Segment, ...], simple: frozenset[int],
                 party_slots: tuple[int, ...], values: Mapping[str, int],
                 span: Span | None, source: str | None) -> None:
        self.name = name
        self.slots = slots  # every value the procedure holds, parameters first
        self.params = params  # parameters are never set again: the same in every state
        self.segments = segments
        self.simple = simple  # slots that hold numbers, names, yes/no or dice only
        self.party_slots = party_slots  # slots that may hold a combatant
        self.values = values  # a value name (`wound`) -> its slot, for odds by a value
        self.span = span
        self.source = source
        self.callees: dict[str, Stepper] = {}
        self._plans: dict[Any, list[tuple[Any, frozenset[Any], dict[int, Call]]]] = {}
        self._live: dict[Any, tuple[list[frozenset[Any]], list[dict[int, Call]]]] = {}

    def frame(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The starting frame: the arguments, then none for every value not yet set."""
        return tuple(args) + (None,) * (len(self.slots) - len(args))

    def plan(self, question: Any, party_of: tuple[tuple[int, ...], ...], parties: int
             ) -> list[tuple[Any, frozenset[int], dict[int, Call]]]:
        """Per segment, the key a state there is merged by, the slots live there, and what its
        calls ask of their callees (by the segment each call goes on at)."""
        key = (question, party_of, parties)
        found = self._plans.get(key)
        if found is None:
            live, calls = self.live(question)
            found = [(self._key_of(now, party_of, parties), now, asked)
                     for now, asked in zip(live, calls)]
            if len(self._plans) > 64:
                self._plans.clear()
            self._plans[key] = found
        return found

    def live(self, question: Any) -> tuple[list[frozenset[Any]], list[dict[int, Call]]]:
        """What each segment may still read for this question, and what each call asks of
        its callee. A backward fixpoint, in which a value set but never read (an outcome
        field not asked for, a party nothing reads again) keeps nothing it is made from
        alive; a call reads an argument only where its callee, asked what the caller reads
        after it, reads the parameter."""
        found = self._live.get(question)
        if found is not None:
            return found
        live: list[frozenset[Any]] = [frozenset()] * len(self.segments)
        changed = True
        while changed:
            changed = False
            for pc in range(len(self.segments) - 1, -1, -1):
                now = self._flow(self.segments[pc].items, set(), live, question, None)
                if now != live[pc]:
                    live[pc] = frozenset(now)
                    changed = True
        calls: list[dict[int, Call]] = []
        for segment in self.segments:
            asked: dict[int, Call] = {}
            self._flow(segment.items, set(), live, question, asked)
            calls.append(asked)
        if len(self._live) > 64:
            self._live.clear()
        self._live[question] = (live, calls)
        return live, calls

    def _flow(self, items: tuple[Item, ...], after: set[Any], live: list[frozenset[Any]],
              question: Any, asked: dict[int, Call] | None) -> set[Any]:
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
                now = self._needs(item.exits[0], live, question, asked)
            elif kind == BRANCH:
                now = set(item.uses) | self._flow(item.body, now, live, question, asked) | \
                    self._flow(item.orelse, now, live, question, asked)
            else:
                now |= item.uses
                for ex in item.exits:
                    now |= self._needs(ex, live, question, asked)
        return now

    @property
    def loose(self) -> frozenset[int]:
        """Slots besides the parameters that may hold a party (`let loser = a`)."""
        return frozenset(range(self.params, len(self.slots))) - self.simple

    def _needs(self, ex: Exit, live: list[frozenset[Any]], question: Any,
               asked: dict[int, Call] | None) -> set[Any]:
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
        parties = frozenset(i for i, reads in enumerate(ex.args)
                            if i in callee.party_slots and (
                                {_slot(u) for u in reads} & later or
                                (loose and {_slot(u) for u in reads} - self.simple)))
        told = live[ex.target]  # type: ignore[index]
        fields: Any = ALL if ex.bound in told else frozenset(
            u[1] for u in told if type(u) is tuple and u[0] == ex.bound)
        call = Call(fields, parties)
        if asked is not None:
            asked[ex.target] = call  # type: ignore[index]
        entry = {_slot(u) for u in callee.live(call)[0][0]}
        return after.union(*(reads for i, reads in enumerate(ex.args) if i in entry))

    def _key_of(self, live: frozenset[Any], party_of: tuple[tuple[int, ...], ...],
                parties: int) -> Callable[..., Any]:
        """What two states at a segment must share: what is read from there on (parameters
        apart: they never change; of an outcome, only the fields read), and the figures of
        each party a slot read from there on can reach. The key is made from the frame and
        the parties' figures (`key(frame, states)`)."""
        whole = {u for u in live if type(u) is int and u >= self.params}
        fields: dict[int, list[str]] = {}
        for use in live:
            if type(use) is tuple and use[0] >= self.params and use[0] not in whole:
                fields.setdefault(use[0], []).append(use[1])
        simple = sorted(whole & self.simple)
        other = tuple(sorted(whole - self.simple))
        parted = tuple((slot, tuple(sorted(names))) for slot, names in sorted(fields.items()))
        read = {_slot(u) for u in live}
        if read & self.loose:
            mask: tuple[int, ...] = tuple(range(parties))  # a slot may hold any party
        else:
            mask = tuple(sorted({p for slot in read if slot < self.params
                                 for p in party_of[slot]}))
        get = itemgetter(*simple) if simple else (lambda frame: ())
        if other or parted:
            def key(frame: Any, states: list[Combatant]) -> Any:
                places = {id(h): i for i, h in enumerate(states)}
                return (get(frame), tuple(_keyed(frame[i], places) for i in other),
                        tuple(_fields(frame[i], names, places) for i, names in parted),
                        tuple(id(states[i]._values) for i in mask))
            return key
        if not mask:
            return lambda frame, states: get(frame)
        if len(mask) == 1:
            first = mask[0]
            return lambda frame, states: (get(frame), id(states[first]._values))
        if len(mask) == 2:
            first, second = mask
            return lambda frame, states: (get(frame), id(states[first]._values),
                                          id(states[second]._values))
        return lambda frame, states: (get(frame), tuple(id(states[i]._values) for i in mask))


def _fields(value: Any, names: tuple[str, ...], places: dict[int, int]) -> Any:
    """The fields read of an outcome (`@name` its name); any other value whole."""
    if type(value) is Outcome:
        return tuple(value.name if f == NAME_ONLY else _keyed(value._values.get(f), places)
                     for f in names)
    return _keyed(value, places)


def _keyed(value: Any, places: dict[int, int]) -> Any:
    """A value as part of a state's key: a party by its place, maps and lists by content."""
    kind = type(value)
    if kind in _SIMPLE:
        return value
    if kind is Combatant:
        place = places.get(id(value))
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


def _add(held: list[Any], num: int, den: int) -> None:
    """Add num/den to the weight held as [numerator, denominator, ...]."""
    if held[1] == den:
        held[0] += num
        return
    both = math.lcm(held[1], den)
    held[0] = held[0] * (both // held[1]) + num * (both // den)
    held[1] = both


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
        self.calls: dict[Any, list[tuple[int, int, Outcome, tuple[Combatant, ...]]]] = {}
        self.dice: dict[Dice, Counts] = {}

    def solve(self, stepper: Stepper, frame: tuple[Any, ...], parties: list[Combatant],
              question: Any, finish: Callable[..., None]) -> None:
        """Play `stepper` from `frame` over every roll and call, merging equal states; each
        distinct ending is handed to `finish(outcome, frame, parties, numerator, denominator)`.

        States wait in a heap ordered by (loop passes begun, segment): segments are numbered
        in the order of the rule text, so every state reaching a segment is merged into it
        before it is played (a state that comes late is played again: slower, never wrong).
        A state holds its frame, the handles that frame names (`seen`) and the parties'
        figures now (`states`); a segment that changes a party plays on fresh handles."""
        where = {id(h): i for i, h in enumerate(parties)}
        party_of = []
        for slot in range(stepper.params):
            found: list[Combatant] = []
            _parties_in((frame[slot],), where, found)
            party_of.append(tuple(where[id(h)] for h in found))
        plan = stepper.plan(question, tuple(party_of), len(parties))
        segments = stepper.segments
        party_slots = stepper.party_slots
        ctx = self.ctx
        pending: dict[Any, list[Any]] = {}
        heap: list[tuple[int, int, int, Any]] = []
        heappush, heappop = heapq.heappush, heapq.heappop
        # Counted in locals (and kept on self between calls): the whole computation shares
        # the limits, calls included.
        made, arrived = self.states, self.work
        made_limit, work_limit = self.limits.odds_states, self.limits.enumeration_work
        # For refusing early: per segment, the states waiting there, how many have been played
        # and how many new states those made.
        waiting, expanded, spawned = ([0] * len(segments) for _ in range(3))
        source = 0

        def enter(pc: int, frame: Any, seen: list[Combatant], states: list[Combatant],
                  num: int, den: int, epoch: int, passes: int) -> None:
            """A state arrives at segment pc: merged with one waiting there, or waits."""
            nonlocal made, arrived
            arrived += 1
            key = (pc, plan[pc][0](frame, states))
            held = pending.get(key)
            if held is None:
                made += 1
                if made > made_limit or arrived > work_limit:
                    self.states, self.work = made, arrived
                    raise self.too_large("odds_states" if made > made_limit else
                                         "enumeration_work")
                waiting[pc] += 1
                spawned[source] += 1
                pending[key] = [num, den, tuple(frame), seen, states, passes]
                heappush(heap, (epoch, pc, made, key))
                return
            if held[1] == den:
                held[0] += num
            else:
                _add(held, num, den)
            if passes > held[5]:
                held[5] = passes

        enter(0, frame, parties, parties, 1, 1, 0, 0)
        dice_known = self.dice
        played = 0
        try:
            while heap:
                epoch, pc, _, key = heappop(heap)
                num, den, frame, seen, states, passes = pending.pop(key)
                played += 1
                waiting[pc] -= 1
                expanded[pc] += 1
                if expanded[pc] >= 64 and spawned[pc] > 5000:
                    # The states played here so far each made this many new ones: the rest
                    # waiting here will make about as many (fewer, as more merge). Refused when
                    # even half of that is more than the limit allows.
                    foreseen = made + spawned[pc] * (waiting[pc] + 1) // expanded[pc]
                    if foreseen > 2 * made_limit:
                        self.states, self.work = made, arrived
                        raise self.too_large("odds_states", foreseen)
                source = pc
                segment = segments[pc]
                if segment.mutates or seen is not states:
                    fresh = [h.handle() for h in states]
                    if party_slots and seen:
                        by_id = {id(old): new for old, new in zip(seen, fresh)}
                        frame = list(frame)
                        for slot in party_slots:
                            frame[slot] = _remap(frame[slot], by_id)
                    ctx.handles = {id(h) for h in fresh}
                else:
                    fresh = states
                ctx.passes_made = passes
                ex = segment.fn(ctx, frame)
                if ex is None:
                    raise RulecraftError(f"procedure {stepper.name} ended without an outcome",
                                         stepper.span, stepper.source)
                kind = ex[0]
                passes = ctx.passes_made
                if kind == ROLL:
                    _, target, frame, slot, dice, span = ex
                    child = list(frame)
                    if not isinstance(dice, Dice):  # a roll of a plain number is that number
                        child[slot] = dice
                        enter(target, child, fresh, fresh, num, den, epoch, passes)
                        continue
                    counts = dice_known.get(dice) or self.counts(dice, span)
                    if slot not in plan[target][1]:  # nothing reads it: one state, any total
                        child[slot] = counts.totals[0]
                        enter(target, child, fresh, fresh, num, den, epoch, passes)
                        continue
                    den *= counts.ways
                    for total, ways in zip(counts.totals, counts.counts):
                        child[slot] = total
                        enter(target, child, fresh, fresh, num * ways, den, epoch, passes)
                elif kind == GOTO or kind == BACK:
                    enter(ex[1], ex[2], fresh, fresh, num, den, epoch + (kind == BACK), passes)
                elif kind == CALL:
                    _, target, frame, slot, name, args, span = ex
                    child = list(frame)
                    question = plan[pc][2][target]
                    if not question.fields and not question.parties:
                        # Nothing of the call is read after it: its endings, whatever they
                        # are, add up to this one state (holding one of them: a real path's).
                        child[slot] = self.one_path(stepper.callees[name], args, fresh)
                        enter(target, child, fresh, fresh, num, den, epoch, passes)
                        continue
                    self.states, self.work = made, arrived
                    answers = self.call(stepper.callees[name], question, args, fresh)
                    made, arrived = self.states, self.work
                    for cnum, cden, outcome, after in answers:
                        child[slot] = outcome
                        enter(target, child, fresh, after, num * cnum, den * cden, epoch,
                              passes)
                else:
                    finish(ex[1], ex[2], fresh, num, den)
        except RulecraftError:
            raise
        except (*ARITHMETIC, TypeError) as err:
            what = calculation_message(err) if not isinstance(err, TypeError) else (
                "a value used here is none (a name set in only some branches of an `if` is "
                "none in the others)")
            raise CalculationError(f"{what}: in procedure {stepper.name}", stepper.span,
                                   stepper.source) from None
        finally:
            self.played += played
            if TALLY is not None:
                TALLY[stepper.name] += played
        self.states, self.work = made, arrived

    def one_path(self, callee: Stepper, args: tuple[Any, ...], fresh: list[Combatant]
                 ) -> Outcome:
        """The outcome of one path of a call (each roll's first total, each call's first
        path), played on copies of the parties: what a state holds where a call's outcome is
        not read, so that what is done with it anyway is done with a real one."""
        copies = {id(h): h.handle() for h in fresh}
        frame: Any = callee.frame(tuple(_remap(a, copies) for a in args))
        passes, handles = self.ctx.passes_made, self.ctx.handles
        self.ctx.handles = {id(h) for h in copies.values()}
        pc = 0
        try:
            while True:
                ex = callee.segments[pc].fn(self.ctx, frame)
                if ex is None or ex[0] == FINISH:
                    return ex[1] if ex is not None else None  # type: ignore[no-any-return]
                frame = list(ex[2])
                if ex[0] == ROLL:
                    dice = ex[4]
                    frame[ex[3]] = self.counts(dice, ex[5]).totals[0] \
                        if isinstance(dice, Dice) else dice
                elif ex[0] == CALL:
                    inner = {id(h): h for h in copies.values()}
                    frame[ex[3]] = self.one_path(callee.callees[ex[4]], ex[5],
                                                 list(inner.values()))
                pc = ex[1]
        finally:
            self.ctx.passes_made, self.ctx.handles = passes, handles

    def counts(self, dice: Dice, span: Span | None) -> Counts:
        found = self.dice.get(dice)
        if found is None:
            try:
                found = dice.counts(self.limits)
            except DiceError as err:
                raise DiceError(err.message, span, self.ctx.source) from None
            self.dice[dice] = found
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

    def outcomes(self, stepper: Stepper, question: Call, frame: tuple[Any, ...],
                 parties: list[Combatant], kept: list[int]
                 ) -> list[tuple[int, int, Outcome, tuple[Combatant, ...]]]:
        """Every way a called procedure ends that its caller can tell apart: weight, outcome,
        its parties' figures after."""
        ends: dict[Any, list[Any]] = {}
        passes, handles = self.ctx.passes_made, self.ctx.handles

        def finish(outcome: Outcome, frame: Any, after: list[Combatant], num: int,
                   den: int) -> None:
            places = {id(h): i for i, h in enumerate(after)}
            values = tuple((k, _keyed(v, places)) for k, v in question.told(outcome))
            key = (outcome.name, values, tuple(id(after[i]._values) for i in kept))
            held = ends.get(key)
            if held is None:
                ends[key] = [num, den, outcome, tuple(after)]
            else:
                _add(held, num, den)

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
            _add(held, num, den)

    Exact(ctx, limits).solve(stepper, stepper.frame(arguments), parties, question, finish)
    return {k: Fraction(n, d) for k, (n, d) in sums.items()}


__all__ = ["ALL", "Call", "Exact", "Exit", "Item", "NAMES", "Segment", "Stepper", "TooLarge", "odds"]
