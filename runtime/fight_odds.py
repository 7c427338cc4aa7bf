"""Exact odds of a whole fight: an encounter's paths merged at the head of each pass of its loop.

The path walk (`Procedure.path_odds`) plays an encounter once per path of the dice, and a duel
to the end between two fighters of ten stamina each, a d6 a blow, has 832,986 of them (of
twenty each, 385 billion) where it can be in 464 states (3,760). A fight is a Markov chain
over its states (DESIGN.md's references): at the head of every pass of the loop the generated
code hands the run context (`FightContext.head`) the encounter's values the loop reads, and
with the board (runtime/fight_states.py: figures, schedule, conditions, scripts) that is
all the rest of the fight depends on. Runs that reach a pass head in equal states are merged
(issue 9: "merge paths that reach the same point of a procedure with the same values and
state"), their probabilities added; each state is then played for one pass: the run is
replayed up to the loop (the dice before it as they fell), put into the state, and every path
of that pass is followed to the next head (a state of the next pass) or to an ending. Passes
are played in order, so every state of a pass is merged before it is played.

A call the fight makes is a roll of its endings: the callee's paths are walked once per
situation (the callee, its arguments, what it can read of the parties they reach), merged into
the endings its caller can tell apart (its outcome, what it left of those parties), and each
run of a pass branches on those as on a roll.

Exact means exact: weights are whole numbers over whole denominators, made into `Fraction`s
summing to exactly 1. The limits are those of exact odds by states: `odds_states` (distinct
states) and `enumeration_work` (trace steps of every run), each refused as soon as what has
been played foretells more than twice the limit; the refusal offers sampling.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from typing import Any

from .combatants import Combatant
from .context import Finished, RunContext
from .dice import Counts, _Table
from .clock_events import Clock
from .errors import ARITHMETIC, RangeError, RulecraftError, Span
from .exact import TooLarge, add_weight
from .fight_chain import FightTable, explore
from .fight_sides import WINNER, sides_of, winner
from .fight_states import (MISSING, Board, Endings, Keys, Local, PassDice, Snapshot,
                           Unmergeable)
from .limits import Limits
from .results import Outcome

# Counted when set (tests show that the work grows with the states, not the paths).
TALLY: dict[str, int] | None = None


class Reached(Exception):
    """A run got to the head of a pass it is not to play: the state's key, and what a new
    state is taken from (the run stands still there)."""

    def __init__(self, key: Any, made: int, sched: Any, values: tuple[Any, ...],
                 conditions: dict[int, dict[Any, Any]]) -> None:
        self.key = key
        self.made, self.sched, self.values, self.conditions = made, sched, values, conditions


class FightContext(RunContext):
    """The run context of one run of a fight's exact odds: it stops at a pass head (raising
    `Reached`) or, resuming a state, puts the run into it at its first head; a call is a roll
    of the callee's endings."""

    def __init__(self, fight: FightOdds, dice: PassDice, resume: Snapshot | None) -> None:
        super().__init__(dice, fight.choices, fight.procedure.source, fight.parties,
                         fight.options.policy, fight.options.time_limit)
        self.today = fight.options.day or 0
        self.trace = []  # counted for enumeration_work, then dropped
        self.handles = fight.handle_ids
        self.fight = fight
        self.resume = resume
        self.resumed = 0 if resume is None else resume.made  # the pass the loop starts at
        self.calls_made = 0

    def head(self, name: str, made: int, sched: Any, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """The head of pass `made` of encounter `name`'s loop, with its values: resume the
        state there, or stop in the state the run is in."""
        fight = self.fight
        if name != fight.procedure.name:
            raise Unmergeable(f"encounter {name} is played inside another")
        if self.resume is not None:
            state, self.resume = self.resume, None
            return state.restore(fight.handles, self, sched, fight.asked)
        raise fight.reached(self, made, sched, values)

    def call(self, span: Span, name: str, procedure: str, fn: Callable[..., Any],
             args: tuple[Any, ...], cost: int = 1,
             answers: Mapping[str, Any] | None = None, circle: bool = False) -> Outcome:
        """A call, as a roll of its endings: the one this run takes is put in place."""
        if answers:  # its endings are worked out without the caller's answers: walk the paths
            raise Unmergeable(f"a call of {procedure} answers its choices")
        if circle:  # a procedure calling itself down to its bound: walk the paths
            raise Unmergeable(f"{procedure} is in a circle of calls")
        dice, fight = self.dice, self.fight
        seen = dice.seen
        if seen is None:
            endings, reach, shift = fight.endings(self, span, procedure, fn, args)
        else:
            place = (self.calls_made, tuple(dice.path[:dice.position]))
            self.calls_made += 1
            found = seen.get(place)
            if found is None:
                found = seen[place] = fight.endings(self, span, procedure, fn, args)
            endings, reach, shift = found
        index = dice.branch(endings.counts)
        endings.left[index].put(reach, self, shift)
        if self.passes_made > self.limits.loop_passes:
            self._pass(span)  # says so
        outcome = endings.outcomes[index]
        self.values[name] = outcome
        self.trace.append(("return", name, outcome, span))
        return outcome


class FightOdds:
    """One exact computation of a fight's odds: its parties, its states, its limits."""

    SAMPLES = 32  # random runs behind an estimate of one pass's paths
    ESTIMATES = 16  # estimates made at most

    def __init__(self, procedure: Any, handed: list[Any], parties: dict[str, Combatant],
                 handles: list[Combatant], choices: Mapping[str, Any], limits: Limits,
                 by: str, options: Any) -> None:
        self.procedure, self.handed, self.parties = procedure, handed, parties
        self.choices, self.limits = choices, limits
        self.options = options  # the run's policy and time limit (procedures.RunOptions)
        self.asked = None if by == "outcome" else by  # a value the odds are grouped by
        # By winner, where no outcome says one: the side alone standing at the end, as a
        # played fight tells it (runtime/fights.py `Fight.winner`).
        self.sides = None
        if by == WINNER and not any(WINNER in fields for fields in procedure.outcomes.values()):
            self.sides, self.asked = sides_of(procedure, parties), None
        # Where every ending carries it, the value of that name among the run's own is never
        # read: states need not agree on it.
        self.unread = self.asked is None or all(
            by in fields for fields in procedure.outcomes.values())
        # The run's handles, in the order of the parameters: one per party for the whole
        # computation, each run starting them from the figures given.
        self.handles = handles
        self.handle_ids = {id(h) for h in handles}
        self.given = [h.handle() for h in handles]
        self.keys = Keys(handles)
        self.table = _Table(limits, self._charge)
        self.calls: dict[Any, Endings] = {}  # the endings of each call situation
        self.timed: dict[Any, bool] = {}  # whether a procedure reads a time as it is
        self.states = self.work = self.expanded = self.runs = 0
        self.estimates = 0
        self.random = random.Random(0)  # estimates alike every time
        self.found = self.asked is None  # whether any ending has the value grouped by
        self.known: set[str] = set()
        # A chain over states keyed without the time (runtime/fight_chain.py): an encounter
        # with `no cap` whose loop reads no time, asked nothing of its time or length, and
        # played with no time limit.
        self.timeless = (procedure.timeless and options.time_limit is None and
                         by not in ("time", "turns", "rounds"))

    def odds(self) -> dict[Any, Fraction]:
        """Each group's exact probability: a chain solved (runtime/fight_chain.py) where no
        time is read, else the states of pass after pass, merged, played on."""
        try:
            odds = explore(self) if self.timeless else self.layered()
        except (TooLarge, RangeError) as err:
            if not self.procedure.uncapped or getattr(err, "limit", None) is None:
                raise
            raise _endless(err, self.asked) from None
        finally:
            if TALLY is not None:
                for name in ("states", "expanded", "runs", "work"):
                    TALLY[name] = TALLY.get(name, 0) + getattr(self, name)
                TALLY["calls"] = TALLY.get("calls", 0) + len(self.calls)
        if not self.found:
            self.procedure._missing(self.asked, self.known)
        table = FightTable(odds)
        table.states = self.states
        return table

    def layered(self) -> dict[Any, Fraction]:
        """The states of pass after pass (the pass made part of each), merged, played on."""
        ends: dict[Any, list[int]] = {}
        layer: dict[Any, list[Any]] = {}
        self.expand(1, 1, None, layer, ends)  # the steps before the loop, to its first head
        while layer:
            after: dict[Any, list[Any]] = {}
            done = new = work = 0
            left = len(layer)
            for num, den, state in layer.values():
                before = self.work
                new += self.expand(num, den, state, after, ends)
                done, left, work = done + 1, left - 1, work + self.work - before
                self.foresee(done, new, left, work)
            layer = after
        return {k: Fraction(n, d) for k, (n, d) in ends.items()}

    def expand(self, num: int, den: int, state: Snapshot | None, after: dict[Any, list[Any]],
               ends: dict[Any, list[int]], known: Mapping[Any, int] | None = None) -> int:
        """Every path of one pass from `state` (from the start, with None): each to the next
        pass head, merged into `after`, or to an ending, added to `ends`. The new states
        (those not `known` already: no snapshot is taken of those)."""
        self.expanded += 1
        forced = () if state is None else state.forced
        new = 0
        first = True
        seen: dict[Any, Any] = {}
        for source, ctx, end, steps in _walk(lambda path: self.run(forced, state, path,
                                                                   seen=seen)):
            n, d = num * source.numerator, den * source.denominator
            if type(end) is Reached:
                held = after.get(end.key)
                if held is None and known is not None and end.key in known:
                    after[end.key] = [n, d, None]
                elif held is None:
                    after[end.key] = [n, d, Snapshot(
                        end.made, end.values, Board(self.handles, ctx, end.sched,
                                                    end.conditions),
                        ctx, self.asked, forced if state is not None else
                        tuple(source.path[:source.position]))]
                    new += 1
                    self.states += 1
                    if self.states > self.limits.odds_states:
                        raise self.too_large("odds_states")
                else:
                    add_weight(held, n, d)
            else:
                self.ended(end, ctx, n, d, ends)
            if first:
                first = False
                self.foresee_pass(forced, state, source, steps)
        return new

    def run(self, forced: tuple[int, ...], state: Snapshot | None, path: list[int],
            pick: Any = None, seen: dict[Any, Any] | None = None
            ) -> tuple[PassDice, FightContext, Any, int]:
        """One run: replayed to the loop, put into `state`, played to the next pass head (a
        `Reached`) or to its outcome; and the steps it took."""
        source = PassDice(forced, path, self.table, pick, seen)
        for handle, figures in zip(self.handles, self.given):
            handle.become(figures)
        ctx = FightContext(self, source, state)
        try:
            end = self.procedure.fn(ctx, *self.handed)
        except Finished as done:
            end = done.outcome
        except Reached as reached:
            end = reached
        except RulecraftError:
            raise
        except (*ARITHMETIC, TypeError) as err:
            raise self.procedure._failed(ctx, err) from None
        if end is None:
            raise RulecraftError(f"procedure {self.procedure.name} ended without an outcome",
                                 self.procedure.span, self.procedure.source)
        return source, ctx, end, self.spent(ctx)

    def spent(self, ctx: FightContext) -> int:
        """A run's steps, counted against enumeration_work."""
        steps = len(ctx.trace) + ctx.dropped + 1  # a long run keeps only its newest steps
        self.runs += 1
        self.work += steps
        if self.work > self.limits.enumeration_work:
            raise self.too_large("enumeration_work")
        return steps

    def ended(self, outcome: Outcome, ctx: FightContext, num: int, den: int,
              ends: dict[Any, list[int]]) -> None:
        if self.sides is not None:
            group: Any = self.winner(ctx.schedule)
        elif self.asked is None:
            group = outcome.name
        else:
            # A party is told by its figures at the end, as a path's own result tells it.
            group = self.procedure._group(_detached(
                outcome.get(self.asked, ctx.values.get(self.asked))), self.asked)
            if not self.found:
                self.found = self.asked in outcome or self.asked in ctx.values
                self.known.update(outcome, ctx.values)
        held = ends.get(group)
        if held is None:
            ends[group] = [num, den]
        else:
            add_weight(held, num, den)

    def winner(self, sched: Any) -> str | None:
        """The side alone standing at the end (None: a draw, or a fight never begun)."""
        if sched is None or not (sched.turns or sched.rounds):
            return None
        fallen = sched.fallen
        return winner(self.sides, [h for h in self.handles if id(h) not in fallen])

    def reached(self, ctx: FightContext, made: int, sched: Any, values: tuple[Any, ...]
                ) -> Reached:
        """The state a run is in at the head of pass `made`, keyed."""
        board, conditions = self.keys.board(ctx, sched, self.timeless)
        asked = None if self.unread else self.keys.value(ctx.values.get(self.asked, MISSING))
        if self.timeless:  # `now` (the first of the values) and the pass are read by nothing
            key = (tuple(map(self.keys.value, values[1:])), board, asked)
            return Reached(key, made, sched, values, conditions)
        key = (made, tuple(map(self.keys.value, values)), board, ctx.now, ctx.whole_rounds,
               asked)
        return Reached(key, made, sched, values, conditions)

    # ---- calls -----------------------------------------------------------------------------
    def endings(self, ctx: FightContext, span: Span, procedure: str, fn: Callable[..., Any],
                args: tuple[Any, ...]) -> tuple[Endings, list[Combatant], Any]:
        """A call's endings from where the run stands, walked once per situation; the parties
        its arguments reach; the time its endings' times are counted from."""
        timed = self.timed.get(fn)
        if timed is None:
            timed = self.timed[fn] = _reads_time(fn)
        shift = 0 if timed else ctx.now
        key, reach = self.keys.situation(ctx, args, shift)
        situation = (procedure, key)
        found = self.calls.get(situation)
        if found is None:
            found = self.calls[situation] = self.walk_call(ctx, span, procedure, fn, args,
                                                           reach, shift)
        return found, reach, shift

    def walk_call(self, ctx: FightContext, span: Span, procedure: str, fn: Callable[..., Any],
                  args: tuple[Any, ...], reach: list[Combatant], shift: Any) -> Endings:
        """Every path of a call, played from where the caller stands, merged into the
        endings the caller can tell apart: its outcome and what it left of its parties."""
        entry = Board(self.handles, ctx, ctx.schedule,
                      {k: dict(v) for k, v in ctx.conditions.items()})
        entry.passes = 0  # an ending holds the passes the call makes
        clock, now, whole_rounds = ctx.schedule.clock, ctx.now, ctx.whole_rounds
        found: dict[Any, list[Any]] = {}
        seen: dict[Any, Any] = {}

        def play(path: list[int]) -> tuple[PassDice, FightContext, Outcome]:
            source = PassDice((), path, self.table, seen=seen)
            sub = FightContext(self, source, None)
            sched = Clock(sub, clock)
            entry.put(self.handles, sub, sched)
            sched.sealed = True  # events inside a call: walk the fight's paths instead
            sub.now, sub.whole_rounds = now, whole_rounds
            outcome = RunContext.call(sub, span, "", procedure, fn, args)
            self.spent(sub)
            return source, sub, outcome

        for source, sub, outcome in _walk(play):
            left = Local(reach, sub, shift)
            key = (self.keys.value(outcome), left.key(self.keys))
            held = found.get(key)
            if held is None:
                found[key] = [source.numerator, source.denominator, outcome, left]
            else:
                add_weight(held, source.numerator, source.denominator)
        return Endings(found)

    # ---- limits ----------------------------------------------------------------------------
    def _charge(self, counts: Counts) -> None:
        self.work += counts.cost // 4  # big-integer operations, as the path walk counts them

    def foresee(self, done: int, new: int, left: int, work: int) -> None:
        """Refuse early: the states of this pass played so far (`done`) made `new` states of
        the next and took `work` steps. Each state still to play, here or next (`left + new`
        at least), will take about as many steps; and the states of the next pass made per
        state played foretell how many there will be (fewer, as more merge)."""
        steps = self.work + work * (left + new) // done
        if steps > 2 * self.limits.enumeration_work:
            raise self.too_large("enumeration_work", steps)
        if done >= 16 and left:
            states = self.states + new * left // done
            if states > 2 * self.limits.odds_states:
                raise self.too_large("odds_states", states)

    def foresee_pass(self, forced: tuple[int, ...], state: Snapshot | None,
                     source: PassDice, steps: int) -> None:
        """Refuse early a pass whose dice alone are past the limits: when the first run's
        branching says it may be, the pass is sized from a few random runs (Knuth's
        estimator: the product of the branching along a random path, averaged)."""
        budget = self.limits.enumeration_work - self.work
        if math.prod(source.branching) * steps <= budget or self.estimates >= self.ESTIMATES:
            return
        self.estimates += 1
        work = 0
        for _ in range(self.SAMPLES):
            before = self.work
            probe = self.run(forced, state, [], self.random.randrange)[0]
            work += math.prod(probe.branching) * (self.work - before)
            self.work = before  # a probe is no part of the odds
        if work // self.SAMPLES > budget:
            raise self.too_large("enumeration_work", self.work + work // self.SAMPLES,
                                 sampled=True)

    def too_large(self, limit: str, foreseen: int | None = None,
                  sampled: bool = False, how: str | None = None) -> TooLarge:
        if limit == "odds_states":
            what, most = "distinct states", self.limits.odds_states
        else:
            what, most = "steps", self.limits.enumeration_work
        if foreseen is None:
            need = f"more than {most} {what}"
        else:
            how = how or (f"one pass of the loop estimated from {self.SAMPLES} random runs"
                          if sampled else "foreseen from those played so far")
            need = f"about {foreseen} {what} ({how}; the limit is {most})"
        err = TooLarge(f"the exact odds need {need} {Limits.hint(limit)}; estimate them by "
                       "sampling instead: `rulecraft odds … --samples 100000 --seed 1` "
                       "(from Python: procedure.sample(100000, seed=1, …))")
        err.limit = limit  # type: ignore[attr-defined]
        return err


def _endless(err: Any, asked: str | None) -> Any:
    """A refusal of a fight with `no cap` whose states keep the time or the passes made: say
    why they never repeat, and what would let them."""
    why = (f"the odds are asked by {asked}, which counts the time or the passes"
           if asked in ("time", "turns", "rounds") else
           "its loop (or a procedure it calls) reads the time or the pass count, or a time "
           "limit was given")
    refused = type(err)(f"this encounter has `no cap` and {why}, so no state of the fight "
                        f"repeats and a fight that can go on has ever more of them (ask by "
                        f"outcome, or give it a cap): {err.message}", err.span, err.source)
    refused.limit = err.limit
    return refused


def _walk(play: Callable[[list[int]], tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """Every path of the dice, depth first: `play(path)` plays one, extending `path` with the
    first total of each roll past its end, and gives back its dice source first."""
    path: list[int] = []
    while True:
        played = play(path)
        yield played
        source = played[0]
        path = source.path[:source.position]
        while path and path[-1] + 1 >= source.branching[len(path) - 1]:
            path.pop()
        if not path:
            return
        path[-1] += 1


def _reads_time(fn: Callable[..., Any]) -> bool:
    """Whether a procedure, or one it calls, reads a time as it is (`next_turn`): one that
    does not reads only how long from now (`has`, `remaining`, `delay`, `give … for`), so its
    endings, counted from now, serve whatever the time."""
    seen: set[int] = set()
    todo = [fn]
    while todo:
        fn = todo.pop()
        codes = [fn.__code__]
        while codes:
            code = codes.pop()
            if "next_turn" in code.co_names or "now" in code.co_names:
                return True
            for name in code.co_names:
                callee = fn.__globals__.get(name) if name.startswith("p_") else None
                if callable(callee) and id(callee) not in seen:
                    seen.add(id(callee))
                    todo.append(callee)
            codes.extend(c for c in code.co_consts if isinstance(c, type(fn.__code__)))
    return False


def _detached(value: Any) -> Any:
    """A value with each party in it as it stands now (the handles play on)."""
    if type(value) is Combatant:
        return value.handle()
    if type(value) is tuple:
        return tuple(map(_detached, value))
    return value


__all__ = ["FightContext", "FightOdds", "Reached", "TALLY", "Unmergeable"]
