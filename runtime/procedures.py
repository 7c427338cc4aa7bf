"""Procedures at play: run, runs, enumerate and odds (exact, by states or paths, or sampled)."""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any

import attrs

from .collector import collector_paused
from .combatants import Combatant, ValueType, check_value
from . import exact
from .context import ExactContext, Finished, NoTrace, RunContext
from .dice import DiceSource, Enumeration, PathDice, ScriptedDice, SeededDice
from .exact_plan import Stepper
from .errors import (ARITHMETIC, CalculationError, DiceError, RangeError, RulecraftError, Span,
                     calculation_message)
from .limits import DEFAULT_LIMITS, Limits
from .fight_sides import WINNER, sides_of, winner
from .results import Outcome, Result, TraceEntry
from .sampling import Estimate
from .values import display, to_public
from .work import budget


def _spending(method: Callable[..., Any]) -> Callable[..., Any]:
    """A method that plays the procedure many times (odds, enumerate) draws from one budget of
    work (runtime/work.py), the command's if one is open, else one of its own `limits`."""
    at = method.__code__.co_varnames.index("limits")  # its place among the positional ones

    @functools.wraps(method)
    def within_budget(*args: Any, **kwargs: Any) -> Any:
        limits = kwargs.get("limits", args[at] if len(args) > at else DEFAULT_LIMITS)
        with budget(limits if isinstance(limits, Limits) else DEFAULT_LIMITS):
            return method(*args, **kwargs)

    return within_budget


def _check_limits(limits: Any) -> None:
    if not isinstance(limits, Limits):
        raise RangeError(f"limits are a rulecraft.Limits (such as Limits(enumeration_paths="
                         f"2_000_000)), not {type(limits).__name__}")


class FrozenMap(dict):  # type: ignore[type-arg]
    """A map value as a key of the odds (`odds --by injuries`): read-only, hashable, its
    entries in a fixed order so that equal maps print alike."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:  # pickled and copied whole, never item by item
        return FrozenMap, (list(self.items()),)

    def _read_only(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("a map grouping odds cannot be changed")

    __setitem__ = __delitem__ = __ior__ = _read_only  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        items = sorted(((_frozen(k), _frozen(v)) for k, v in value.items()),
                       key=lambda kv: (display(kv[0]), repr(kv[0])))
        return FrozenMap(items)
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


_PLAIN = (int, str, bool, type(None))  # values that hold no combatant


def _handles(value: Any, made: dict[int, Combatant]) -> Any:
    """`value` with every combatant in it replaced by a handle of its own for this run (one
    handle per combatant, however often it appears)."""
    kind = type(value)
    if kind is Combatant:
        handle = made.get(id(value))
        if handle is None:
            handle = made[id(value)] = value.handle()
        return handle
    if kind is not dict and kind is not tuple and kind is not list:
        return value
    if type(value) is dict:  # a procedure's arguments: the plain ones kept without a call
        return {k: v if type(v) in _PLAIN else _handles(v, made) for k, v in value.items()}
    if type(value) is tuple or type(value) is list:
        return tuple(_handles(v, made) for v in value)
    return value


def _parties(arguments: dict[str, Any]) -> dict[str, Combatant]:
    """A run's parties by name: each combatant argument, and each of a list's
    (`fighters[0]`, `fighters[1]`, …)."""
    parties = {k: v for k, v in arguments.items() if type(v) is Combatant}
    for k, v in arguments.items():
        if type(v) is tuple:
            parties.update((f"{k}[{i}]", c) for i, c in enumerate(v) if isinstance(c, Combatant))
    return parties


def _quick_plan(params: tuple[Any, ...]) -> tuple[Any, ...]:
    """`Procedure._quick`: the arguments with the defaults in place and a gap for each
    combatant, each combatant's (place, name, model), and the parameters' names; () unless
    every parameter is a combatant without a default or another with a plain default (a list
    or map is copied for a run)."""
    template: list[Any] = []
    combatants: list[tuple[int, str, str]] = []
    for at, p in enumerate(params):
        if p.type.kind == "combatant" and not p.has_default:
            combatants.append((at, p.name, p.type.text))
        elif p.type.kind == "combatant" or not p.has_default or \
                type(p.default) in (dict, tuple, list):
            return ()
        template.append(p.default)
    names = frozenset(p.name for p in params)
    return (tuple(template), tuple(combatants), names) if combatants else ()


@attrs.frozen
class RunOptions:
    """What a caller asks of a run besides the rule's own arguments and choices: which of the
    rulebook's policies decides, how long a fight is played (its clock's time). Kept apart from
    them, so a rule may name a parameter or a choice `policy` or `time_limit` as it likes."""

    policy: str | None = None
    time_limit: Any = None
    day: int | None = None  # the calendar's day the run or fight happens on (`today`)
    # False: no trace kept — many fights, each summed up from its outcome, its fighters and
    # `Result.schedule` (who was stopped, turns and rounds played).
    traced: bool = True


NO_OPTIONS = RunOptions()
# The run options `run(**args)` and `odds(**args)` take by name, where the procedure has no
# parameter or choice of that name (the rule's own names come first).
OPTION_NAMES = frozenset(("policy", "time_limit", "day"))


@attrs.frozen
class Step:
    """A procedure step as written: kind, text, where, comments, and nested blocks for `if`."""

    kind: str
    text: str
    span: Span | None = attrs.field(default=None, eq=False)
    comments: tuple[str, ...] = ()
    blocks: tuple[tuple[str, tuple[Step, ...]], ...] = ()


@attrs.define(eq=False)
class Procedure:
    """A compiled procedure: its parameters and steps for tools, and `run`/`odds` for play."""

    name: str
    title: str
    params: tuple[Any, ...]
    steps: tuple[Step, ...]
    span: Span | None = None
    comments: tuple[str, ...] = ()
    choice_names: tuple[str, ...] = ()
    source: str | None = attrs.field(default=None, repr=False)
    # The generated `p_NAME(_ctx, …)`: the run context, then the arguments in parameter order.
    fn: Callable[..., Any] = attrs.field(default=None, repr=False)
    outcomes: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)  # name -> its values
    clock: str | None = None  # an encounter's clock ("tenths", "rounds"); None for a procedure
    policies: tuple[str, ...] = ()  # the rulebook's policies: `run(..., policy="cautious")`
    # An encounter's `sides:` line: each side's name and its fighter parameters (empty: each
    # fighter parameter is a side; runtime/fight_sides.py).
    sides: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # An encounter whose loop reads neither the time nor the pass count: its exact odds are
    # a Markov chain over its board (runtime/fight_chain.py), solved with `no cap`, followed
    # for `cap` passes with a cap written as a number.
    timeless: bool = False
    cap: int | None = None
    uncapped: bool = False  # `no cap`
    # Cut for exact odds (compiler/stepper.py) the first time a procedure of the rulebook asks:
    # `steppers` writes them all; compiling does not wait for it.
    steppers: Callable[[], None] | None = attrs.field(default=None, repr=False)
    _stepper: Stepper | None = attrs.field(default=None, repr=False, init=False)
    # How `run` plays the common call on its quick path (`_fighters`), worked out at the first
    # run: see `_quick_plan`.
    _quick: tuple[Any, ...] | None = attrs.field(default=None, repr=False, init=False)

    @property
    def stepper(self) -> Stepper | None:
        """This procedure cut at its rolls and calls, or None: its odds walk the paths."""
        if self.steppers is not None:
            self.steppers()
        return self._stepper

    @stepper.setter
    def stepper(self, value: Stepper | None) -> None:
        self._stepper, self.steppers = value, None

    def run(
        self,
        dice: DiceSource | Iterable[int] | None = None,
        seed: int | None = None,
        choices: Mapping[str, Any] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        **args: Any,
    ) -> Result:
        """Play the procedure once. `dice`: a list of results (one per die) or a dice source;
        `seed`: a whole number for reproducible dice; `limits`: the caps on what a roll may ask.
        `policy=NAME` (and, for an encounter, `time_limit=N`) are run options, unless the
        procedure has a parameter or choice of that name."""
        with collector_paused():  # a run's many short-lived values: runtime/collector.py
            return self.run_with(NO_OPTIONS, dice, seed, choices, limits, **args)

    def run_with(
        self,
        options: RunOptions,
        /,
        dice: DiceSource | Iterable[int] | None = None,
        seed: int | None = None,
        choices: Mapping[str, Any] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        **args: Any,
    ) -> Result:
        """`run`, with the run options given apart from the arguments (a fight's `--policy`
        and `--until`): every keyword in `args` is then the rule's own."""
        source: DiceSource
        traced = options.traced
        if options is not NO_OPTIONS:
            options = self._options(options.policy, options.time_limit, options.day)
        if limits is not DEFAULT_LIMITS:
            _check_limits(limits)
        if dice is not None and seed is not None:
            raise RangeError("give either dice (scripted results) or a seed, not both")
        if dice is None:
            source = SeededDice(seed, limits)
        elif hasattr(dice, "roll"):
            source = dice  # type: ignore[assignment]
        elif isinstance(dice, Iterable) and not isinstance(dice, (str, bytes, Mapping)):
            source = ScriptedDice(list(dice), limits)
        else:
            raise RangeError("dice are a list of results, one per die (such as [17, 4]), "
                             f"or a dice source, not {type(dice).__name__}")
        if not choices:
            fighters = self._fighters(args)
            if fighters is not None:
                picked, handed, named, handles = fighters
                return self._start(source, picked, handed, named, handles, traced, options)
        arguments, picked, found = self._arguments(args, choices, options is NO_OPTIONS)
        return self._play(source, arguments, picked, found if options is NO_OPTIONS else options,
                          traced)

    def runs(
        self,
        count: int,
        /,
        seed: int | None = None,
        choices: Mapping[str, Any] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        **args: Any,
    ) -> Iterator[Result]:
        """Play the procedure `count` times from one seeded dice source, without building a
        trace (a study of many blows): each Result has its outcome, values and combatants,
        and an empty trace. The arguments are checked once, before the first run."""
        _check_limits(limits)
        if type(count) is not int or count < 0:
            raise RangeError(f"runs need a whole number of runs (0 or more), not {count!r}")
        arguments, picked, options = self._arguments(args, choices)
        source = SeededDice(seed, limits)
        return (self._play(source, arguments, picked, options, traced=False)
                for _ in range(count))

    def sample(
        self,
        count: int,
        /,
        by: str | Callable[[Result], Any] = "outcome",
        seed: int | None = None,
        choices: Mapping[str, Any] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        **args: Any,
    ) -> dict[Any, Estimate]:
        """The odds estimated from `count` seeded runs, for procedures too large to work out
        exactly: each outcome (or value `by` picks out) with how often it came up and the 95%
        interval its probability lies in (`Estimate`)."""
        if by == WINNER and self.clock is not None and not any(
                WINNER in fields for fields in self.outcomes.values()):
            key: Callable[[Result], Any] = self._standing  # as the exact odds by winner
        else:
            if isinstance(by, str) and by != "outcome":
                self._known(by)
            key = self._key(by)
        counted: dict[Any, int] = {}
        played = self.runs(count, seed=seed, choices=choices, limits=limits, **args)
        for _ in range(count):
            # Each sample (their number the caller's) is bounded by a budget of its own, as
            # each of a study's fights is (runtime/work.py `budget(own=True)`).
            with budget(limits, own=True):
                result = next(played)
            group = self._group(key(result), by)
            counted[group] = counted.get(group, 0) + 1
        return {group: Estimate(n, count) for group, n in counted.items()}

    def _standing(self, result: Result) -> str | None:
        """An encounter's winner where its outcomes name none: the side alone standing at the
        end (never stopped), None for a draw or a fight never begun — as `Fight.winner` and
        the exact odds by winner (runtime/fight_odds.py) tell it."""
        sched = result.schedule
        if sched is None or not (sched.turns or sched.rounds):
            return None
        sides = sides_of(self, result.combatants)
        return winner(sides, [c for _, members in sides for c in members
                              if id(c) not in sched.fallen])

    @staticmethod
    def _key(by: str | Callable[[Result], Any]) -> Callable[[Result], Any]:
        """What a result is grouped by: its outcome's name, a value, or the caller's function."""
        if callable(by):
            return by
        if by == "outcome":
            return lambda r: r.outcome.name
        return lambda r: r.outcome.get(by, r.values.get(by))

    @_spending
    def enumerate(
        self, choices: Mapping[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS,
        **args: Any
    ) -> list[tuple[Fraction, Result]]:
        """Every path of dice with its exact probability; the same compiled code plays each."""
        return [(source.probability, result)
                for source, result in self._paths(choices, limits, args)]

    @_spending
    def odds(
        self,
        by: str | Callable[[Result], Any] = "outcome",
        choices: Mapping[str, Any] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        **args: Any,
    ) -> dict[Any, Fraction]:
        """Exact probability of each outcome name (or of each value `by` picks out).

        Worked out by states (runtime/exact.py): paths that reach the same point with the same
        values and party states are merged; an encounter's, at the head of each pass of its
        loop (runtime/fight_odds.py). A function `by`, or a chooser function among the
        choices, needs every path's own result: those walk the paths (`path_odds`)."""
        try:
            return self._odds(by, choices, limits, args)
        except RecursionError:  # calls nested past Python's stack (nesting_depth raised)
            raise CalculationError(
                f"the calls procedure {self.name} makes nest more deeply than Python allows for "
                "exact odds: estimate them by sampling instead (`rulecraft odds … --samples "
                "100000 --seed 1`)", self.span, self.source) from None
        except RangeError as err:  # the command's work spent walking the paths (BT's blow)
            if getattr(err, "limit", None) != "work" or "sampling instead" in err.message:
                raise
            refused = RangeError(f"{err.message}; estimate the odds by sampling instead: "
                                 "`rulecraft odds … --samples 100000 --seed 1` (from Python: "
                                 "procedure.sample(100000, seed=1, …))", err.span, err.source)
            refused.limit = "work"  # type: ignore[attr-defined]
            raise refused from None

    def _odds(self, by: str | Callable[[Result], Any], choices: Mapping[str, Any] | None,
              limits: Limits, args: dict[str, Any]) -> dict[Any, Fraction]:
        _check_limits(limits)
        arguments, picked, options = self._arguments(args, choices)
        chooser = any(callable(v) and not isinstance(v, str) for v in picked.values())
        if self.clock is not None and not callable(by) and not chooser:
            odds = self._fight_odds(by, arguments, picked, limits, options)
            if odds is not None:
                return odds
        if self.stepper is None or callable(by) or chooser:
            return self.path_odds(by, choices, limits, **args)
        if by != "outcome":
            self._known(by)
        made: dict[int, Combatant] = {}
        arguments = _handles(arguments, made)
        stepper = self.stepper
        group: Callable[[Outcome, Any], Any]
        if by == "outcome":
            group = lambda outcome, frame: outcome.name  # noqa: E731
        else:
            slot = stepper.values.get(by)
            group = lambda outcome, frame: self._group(  # noqa: E731
                outcome._values[by] if by in outcome._values else
                (frame[slot] if slot is not None else None), by)
        ctx = ExactContext(picked, self.source, limits, options.policy)
        ctx.today = options.day or 0
        try:
            return exact.odds(stepper, ctx, tuple(arguments[p.name] for p in self.params),
                              list(made.values()), limits, exact.NAMES if by == "outcome" else by,
                              group)
        except DiceError as err:
            if err.span is not None or not hasattr(err, "limit"):
                raise
            raise type(err)(f"procedure {self.name}: {err.message}", self.span,
                            self.source) from None

    def _fight_odds(self, by: str, arguments: dict[str, Any], picked: dict[str, Any],
                    limits: Limits, options: RunOptions) -> dict[Any, Fraction] | None:
        """An encounter's odds by the states at the head of each pass of its loop
        (runtime/fight_odds.py), the same handles for the whole computation; None for a
        fight whose states cannot be keyed (another encounter inside it): its paths are
        walked."""
        from .fight_odds import FightOdds, Unmergeable  # a fight's odds only: not at start-up

        made: dict[int, Combatant] = {}
        arguments = {k: _handles(v, made) for k, v in arguments.items()}
        fight = FightOdds(self, list(arguments.values()), _parties(arguments),
                          list(made.values()), picked, limits, by, options)
        try:
            return fight.odds()
        except Unmergeable:
            return None
        except RangeError as err:  # the command's work spent, or a chain of rules reached on
            # some path of the dice (however unlikely): sample instead
            if getattr(err, "limit", None) not in ("work", "trigger_chain"):
                raise
            raise exact.TooLarge(f"{err.message}; estimate the odds by sampling instead: "
                                 "`rulecraft odds … --samples 100000 --seed 1` (from Python: "
                                 "procedure.sample(100000, seed=1, …))", err.span,
                                 err.source) from None
        except DiceError as err:
            if err.span is not None or not hasattr(err, "limit"):
                raise
            raise type(err)(f"procedure {self.name}: {err.message}", self.span,
                            self.source) from None

    def _known(self, by: str) -> None:
        """A value to group odds by must be one some outcome or step of this procedure names."""
        known = set(self.stepper.values if self.stepper else ()) | {
            f for fields in self.outcomes.values() for f in fields}
        if by not in known:
            close = difflib.get_close_matches(by, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise RangeError(f"no outcome of {self.name} has a value called {by!r}{hint}",
                             self.span, self.source)

    @_spending
    def path_odds(
        self,
        by: str | Callable[[Result], Any] = "outcome",
        choices: Mapping[str, Any] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        **args: Any,
    ) -> dict[Any, Fraction]:
        """The same odds by walking every path of the dice, each played by the run form (slow
        past a few rolls; it checks the odds by states, and serves `by` functions)."""
        key = self._key(by)
        # Only sums are kept, never a path's result: per group, a numerator per denominator
        # (paths rolling the same dice share one), made into Fractions at the end.
        sums: dict[Any, dict[int, int]] = {}
        known: set[str] = set()
        found = not isinstance(by, str) or by == "outcome"
        for source, result in self._paths(choices, limits, args):
            group = sums.setdefault(self._group(key(result), by), {})
            group[source.denominator] = group.get(source.denominator, 0) + source.numerator
            if not found:
                found = by in result.outcome or by in result.values
                known.update(result.outcome, result.values)
        if not found:
            self._missing(by, known)  # type: ignore[arg-type]
        return {k: sum((Fraction(n, d) for d, n in group.items()), Fraction(0))
                for k, group in sums.items()}

    def _missing(self, by: str, known: set[str]) -> None:
        """No ending has the value the odds are grouped by: say so, with a close name."""
        close = difflib.get_close_matches(by, sorted(known), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise RangeError(f"no outcome of {self.name} has a value called {by!r}{hint}",
                         self.span, self.source)

    def _paths(self, choices: Mapping[str, Any] | None, limits: Limits,
               args: dict[str, Any]) -> Iterator[tuple[PathDice, Result]]:
        """Each path of the dice and its result, one at a time, within `limits`."""
        _check_limits(limits)
        arguments, picked, options = self._arguments(args, choices)
        walk = Enumeration(lambda src: self._play(src, arguments, picked, options), limits,
                           lambda result: len(result._steps) + result.dropped[0])
        try:
            yield from walk
        except DiceError as err:
            if err.span is not None or not hasattr(err, "limit"):
                raise
            raise DiceError(f"procedure {self.name}: {err.message}", self.span,
                            self.source) from None

    def _group(self, value: Any, by: str | Callable[[Result], Any]) -> Any:
        """A value to group odds by: maps and lists made hashable, compared by content."""
        value = to_public(value)
        try:
            hash(value)
            return value
        except TypeError:
            pass
        try:
            frozen = _frozen(value)
            hash(frozen)
        except TypeError:
            raise RangeError(f"the odds of {self.name} cannot be grouped by "
                             f"{by if isinstance(by, str) else 'that function'}: its values are "
                             f"{type(value).__name__}s, which cannot be told apart",
                             self.span, self.source) from None
        return frozen

    def _arguments(
        self, args: dict[str, Any], choices: Mapping[str, Any] | None, options: bool = True
    ) -> tuple[dict[str, Any], dict[str, Any], RunOptions]:
        """The rule's arguments and choices, and the run options, each checked. A keyword is
        the rule's own name first (a parameter, then a choice), a run option only else (and
        only when `options`: `run_with` was given them apart)."""
        picked: dict[str, Any] = {}
        given: dict[str, Any] = {}
        names = [p.name for p in self.params]
        for key, value in (choices or {}).items():  # `choices={"policy": …}` named one too
            (given if options and self._option(key) else picked)[key] = value
        for key, value in args.items():
            if key in names:
                continue
            if key in self.choice_names:
                picked[key] = value
            elif options and self._option(key):
                given[key] = value
            else:
                close = difflib.get_close_matches(key, names + list(self.choice_names), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise RangeError(f"procedure {self.name} has no parameter or choice {key!r}"
                                 f"{hint}", self.span, self.source)
        arguments: dict[str, Any] = {}
        for p in self.params:
            if p.name in args:
                value = args[p.name]
                if p.type.kind == "combatant":
                    if not isinstance(value, Combatant) or value.model.name != p.type.text:
                        raise RangeError(f"{p.name} must be a {p.type.text} (made with "
                                         "rb.combatant, or rb.combatant_models[name].build)",
                                         p.span, self.source)
                    arguments[p.name] = value
                else:
                    arguments[p.name] = check_value(p.name, p.type, value, p.span, self.source)
            elif p.has_default:
                arguments[p.name] = p.default
            else:
                raise RangeError(f"procedure {self.name} needs {p.name}", p.span, self.source)
        for name in picked:
            if name not in self.choice_names:
                raise RangeError(f"procedure {self.name} has no choice {name!r} "
                                 f"(its choices: {', '.join(self.choice_names) or 'none'})",
                                 self.span, self.source)
        found = self._options(given.get("policy"), given.get("time_limit"),
                              given.get("day")) if given else \
            NO_OPTIONS
        return arguments, picked, found

    def _option(self, key: str) -> bool:
        """Whether a keyword names a run option: not a name of the rule's own; a time limit
        only for an encounter (a procedure has no clock)."""
        return key in OPTION_NAMES and key not in self.choice_names and \
            all(p.name != key for p in self.params) and \
            (key != "time_limit" or self.clock is not None)

    def _options(self, policy: Any, time_limit: Any, day: Any = None) -> RunOptions:
        """Run options, checked: a policy of the rulebook's, a time limit greater than 0."""
        if policy is not None and policy not in self.policies:
            close = difflib.get_close_matches(str(policy), self.policies, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise RangeError(f"no policy called {policy!r} (the rulebook's policies: "
                             f"{', '.join(self.policies) or 'none'}){hint}",
                             self.span, self.source)
        if time_limit is not None:
            if self.clock is None:
                raise RangeError(f"procedure {self.name} has no clock: a time limit is an "
                                 "encounter's", self.span, self.source)
            if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or \
                    time_limit <= 0:
                raise RangeError(f"a time limit is a number of {self.clock} greater than 0, "
                                 f"not {time_limit!r}", self.span, self.source)
        if day is not None and (isinstance(day, bool) or not isinstance(day, int)):
            raise RangeError(f"a day is a whole number (the calendar's day of the fight), not "
                             f"{day!r}", self.span, self.source)
        return RunOptions(policy, time_limit, day)

    def _fighters(self, args: dict[str, Any]) -> tuple[dict[str, Any], list[Any],
                                                       dict[str, Combatant], set[int]] | None:
        """The choices given and a run's handles, made in the pass that checks the arguments,
        when the combatants are given, each of its model, every other parameter is left to its
        default, and anything else given is a choice (a blow between two fighters, the defence
        named); else None, and the general path checks the arguments and says what is
        wrong."""
        if self._quick is None:
            self._quick = _quick_plan(self.params)
        if not self._quick:
            return None
        template, combatants, names = self._quick
        picked: dict[str, Any] = {}
        if len(args) != len(combatants):  # choices beside them: each one of the rule's own
            picked = {k: v for k, v in args.items() if k not in names}
            if len(args) - len(picked) != len(combatants) or \
                    not all(k in self.choice_names for k in picked):
                return None
        # Each combatant is found below, so nothing else is given; one given twice (one handle
        # for both) is left to the general path.
        handed = list(template)  # in the order of the parameters
        named: dict[str, Combatant] = {}
        handles: set[int] = set()
        given: set[int] = set()
        for at, name, model in combatants:
            value = args.get(name)
            if type(value) is not Combatant or value.model.name != model or id(value) in given:
                return None
            given.add(id(value))
            handed[at] = named[name] = handle = value.handle()
            handles.add(id(handle))
        return picked, handed, named, handles

    def _play(self, source: DiceSource, arguments: dict[str, Any], choices: dict[str, Any],
              options: RunOptions, traced: bool = True) -> Result:
        # This run's handles: the caller's combatants are copied, never changed.
        made: dict[int, Combatant] = {}
        arguments = {k: _handles(v, made) for k, v in arguments.items()}
        return self._start(source, choices, list(arguments.values()), _parties(arguments),
                           {id(h) for h in made.values()}, traced, options)

    def _start(self, source: DiceSource, choices: dict[str, Any], handed: list[Any],
               parties: dict[str, Combatant], handles: set[int], traced: bool = True,
               options: RunOptions = NO_OPTIONS) -> Result:
        """Play the generated procedure on this run's handles (`handed`, in parameter order)."""
        ctx = RunContext(source, choices, self.source, parties, options.policy,
                         options.time_limit)
        ctx.today = options.day or 0
        if not traced:
            ctx.trace = NoTrace()
        ctx.handles = handles
        try:
            outcome = self.fn(ctx, *handed)  # a procedure returns its outcome
            if outcome is not None:
                return _result(ctx, outcome)
        except Finished as done:  # an encounter raises it
            return _result(ctx, done.outcome)
        except RulecraftError:
            raise
        except (*ARITHMETIC, TypeError) as err:
            raise self._failed(ctx, err) from None
        raise RulecraftError(f"procedure {self.name} ended without an outcome", self.span,
                             self.source)

    def _failed(self, ctx: RunContext, err: Exception) -> CalculationError:
        """A calculation of a run with no answer, as a rule error after the last step made."""
        last = ctx.trace[-1][3] if ctx.trace else None
        where = f" after line {last.line}" if last is not None else ""
        what = calculation_message(err) if not isinstance(err, TypeError) else (
            "a value used here is none (a name set in only some branches of an `if` is "
            "none in the others)")
        return CalculationError(f"{what}: in procedure {self.name}{where}", self.span,
                                self.source)


def _result(ctx: RunContext, outcome: Outcome) -> Result:
    result = Result(outcome, ctx.values, ctx.parties, ctx.trace,
                    (ctx.dropped, ctx.dropped_depth))
    result.schedule = ctx.schedule  # an encounter's turns as they ended (None outside one)
    # The schedule keeps its context (`Schedule.ctx`); the context lets go of it, so a fight
    # left behind is freed at once, not held in a cycle until the collector comes by (with it
    # paused through each fight, thousands of fights held hundreds of megabytes).
    ctx.schedule = None
    return result


__all__ = ["NO_OPTIONS", "FrozenMap", "Outcome", "Procedure", "Result", "RunContext",
           "RunOptions", "Step", "TraceEntry", "ValueType"]
