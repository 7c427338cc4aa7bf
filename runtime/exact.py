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
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from .combatants import Combatant
from .dice import Counts, Dice
from .errors import (ARITHMETIC, CalculationError, DiceError, RangeError, RulecraftError, Span,
                     calculation_message)
from .exact_known import slot_of
from .exact_plan import (BACK, CALL, FINISH, GOTO, NAMES, ROLL, Call, Plan, Stepper, _FIGURES,
                         _SIMPLE, _key, _keyed)
from .limits import Limits
from .results import Outcome



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
            refine = lambda first: stepper.plan(  # noqa: E731 - the plan for what it decides
                question, party_of, len(parties), stepper.decide(first))
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
                                                           plan.glanced[target], ex[7])
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
        _, target, frame, slot, name, args, where, answers = ex
        question = asked[target]
        callee = stepper.callees[name]
        out = []
        if callee.in_circle and self.calls_deep >= self.limits.nesting_depth:  # context.call
            raise RangeError(f"procedures call one another more than "
                             f"{self.limits.nesting_depth} deep here "
                             f"{Limits.hint('nesting_depth')}", where, self.ctx.source)
        self.calls_deep += 1
        answered = self.answering(answers)
        try:
            ends = self.call(callee, question, args, fresh)
        finally:
            self.calls_deep -= 1
            self.ctx.answered = answered
        for cnum, cden, outcome, after in ends:
            child = list(frame)
            child[slot] = outcome
            out.append((cnum, cden, child, after))
        return out

    def answering(self, answers: dict[str, Any] | None) -> dict[str, Any]:
        """The choices a call answers for its callee (`choosing …`), on top of those the calls
        under way answer, while the callee is worked out (as `RunContext.call` does); what
        was answered before, to put back."""
        answered = self.ctx.answered
        if answers:
            self.ctx.answered = {**answered, **answers}
        return answered

    def _answered(self, places: Sequence[Combatant]) -> tuple[Any, ...]:
        """The answers under way, as part of a call's memo: a callee answered otherwise ends
        otherwise."""
        answered = self.ctx.answered
        return tuple((k, _keyed(v, places)) for k, v in answered.items()) if answered else ()

    def glance(self, callee: Stepper, args: tuple[Any, ...], fresh: list[Combatant],
               reads: tuple[int, ...], answers: dict[str, Any] | None = None) -> Outcome:
        """The outcome of one path of a call nothing of is read after (`one_path`), worked
        out once for the same arguments its callee reads (`reads`; a party's by its figures):
        nothing of it is read, so an outcome of another state's arguments serves (as where
        states merge, an error in what nothing reads may go unseen). Told apart by identity:
        the memo holds them, so that no id is reused meanwhile."""
        read = tuple(_FIGURES(args[i]) if type(args[i]) is Combatant else args[i] for i in reads)
        answered = self.answering(answers)
        try:
            memo = (callee.name, reads, tuple(map(id, read)), self._answered(fresh))
            held = self.paths.get(memo)
            if held is None:
                held = self.paths[memo] = (self.one_path(callee, args, fresh), read)
        finally:
            self.ctx.answered = answered
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
                    answered = self.answering(ex[7])
                    try:
                        frame[ex[3]] = self.one_path(callee.callees[ex[4]], ex[5],
                                                     list(copies.values()))
                    finally:
                        ctx.answered = answered
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
        entry = {slot_of(u) for u in callee.live(question)[0][0]}
        _parties_in([a for i, a in enumerate(args) if i in entry], inner, read)
        memo = (callee.name, question, tuple(_keyed(a, inner) if i in entry else None
                                             for i, a in enumerate(args)),
                tuple(inner[id(h)] for h in read), tuple(id(h._values) for h in read),
                self._answered(parties))
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


__all__ = ["Exact", "NAMES", "TooLarge", "add_weight", "odds"]
