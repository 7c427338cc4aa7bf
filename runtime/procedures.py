"""Procedures at play: the run context that generated code calls, and run/enumerate/odds."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import attrs

from .combatants import Combatant, ValueType, check_value
from .dice import Dice, DiceSource, Enumeration, PathDice, ScriptedDice, SeededDice
from .errors import (ARITHMETIC, CalculationError, DiceError, RangeError, RulecraftError, Span,
                     calculation_message)
from .limits import DEFAULT_LIMITS, Limits
from .results import Outcome, Result, TraceEntry
from .values import display, match_name, to_internal, to_public


class Finished(Exception):
    """Raised by an `outcome` step to end the run (never escapes the runtime)."""

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome


class RunContext:
    """What generated procedure code calls for every roll, choice, value, branch and change."""

    def __init__(
        self,
        dice: DiceSource,
        choices: Mapping[str, Any],
        source: str | None,
        parties: dict[str, Combatant],
    ) -> None:
        self.dice = dice
        self.choices = choices
        self.source = source
        self.trace: list[tuple[Any, ...]] = []  # made into TraceEntry objects when read
        self.values: dict[str, Any] = {}
        self.parties = parties
        self.passes_made = 0  # loop passes so far in this run, against loop_passes
        self.handles: set[int] = set()  # ids of the combatants this run may change
        self.limits: Limits = getattr(dice, "limits", DEFAULT_LIMITS)

    def roll(self, span: Span, name: str, dice: Any) -> Any:
        if not isinstance(dice, Dice):
            self.values[name] = dice
            self.trace.append(("roll", name, dice, span, "no dice"))
            return dice
        try:
            total, faces = self.dice.roll(dice)
        except DiceError as err:
            raise DiceError(err.message, span, self.source) from None
        self.values[name] = total
        self.trace.append(("roll", name, total, span, (dice, faces)))
        return total

    def let(self, span: Span, name: str, value: Any) -> Any:
        self.values[name] = value
        self.trace.append(("let", name, value, span))
        return value

    def branch(self, span: Span, condition: str, taken: bool) -> None:
        self.trace.append(("branch", condition, taken, span))

    def choose(
        self, span: Span, name: str, party: str, options: Sequence[Any], default: Any
    ) -> Any:
        options = list(options)
        chosen = self.choices.get(name, default)
        by = "given" if name in self.choices else "default"
        if by == "given" and callable(chosen) and not isinstance(chosen, str):
            # Only a caller's own function is called: a value from the rule (a default) never is.
            try:
                chosen = chosen(options=[to_public(o) for o in options],
                                values={k: to_public(v) for k, v in self.values.items()})
            except Exception as err:  # the caller's function, not the rule: say so
                raise RangeError(f"the function choosing {name} for {party} failed: {err!r}",
                                 span, self.source) from err
            by = "chooser"
        chosen = to_internal(chosen)
        if chosen not in options and match_name(chosen, options) is not None:
            chosen = match_name(chosen, options)
        if chosen not in options:
            shown = ", ".join(display(o) for o in options)
            close = difflib.get_close_matches(str(chosen), [str(o) for o in options], n=1)
            hint = f" — did you mean {close[0]!r}?" if close else ""
            raise RangeError(
                f"{party} cannot choose {display(chosen)!r} for {name}: the options are {shown}{hint}",
                span,
                self.source,
            )
        self.values[name] = chosen
        self.trace.append(("choose", name, chosen, span, f"by {party}, {by}"))
        return chosen

    def change(self, span: Span, party: str, who: Combatant, field: str, index: tuple[Any, ...],
               value: Any, mode: str) -> None:
        """`set` or `add` on a combatant's state, in place: `who` is this run's handle, so
        every name bound to it sees the new figures (derived ones recomputed, memoised)."""
        if id(who) not in self.handles:
            raise RangeError(f"{party} is a combatant held by another (part of its figures), so "
                             "it is not changed on its own: make it a party of the procedure, "
                             "change it, and set it back", span, self.source)
        spec = who.model.field(field)
        if index:
            given = dict(zip(spec.type.index_names() if spec.type else [], index))
            empty = _empty(spec.type, len(index))
            combine = who.model.combiners[spec.combine] if spec.combine else None
            updated = self._updated(combine, who._values[field], index, value, mode, given,
                                    empty)
        elif mode == "set":
            updated = value
        else:
            combine = who.model.combiners[spec.combine] if spec.combine else None
            updated = self._updated(combine, who._values[field], (), value, mode, {}, None)
        if spec.type is not None and (index or spec.type.low is not None):
            updated = self._in_range(span, party, spec, index, updated)
        who.become(who.changed(field, updated))
        # The trace names the target as `party.field[key]` when it is read (results._entry).
        self.trace.append(("change", (party, field, index), _dig(who._values[field], index),
                           span, mode))

    def _in_range(self, span: Span, party: str, spec: Any, index: tuple[Any, ...],
                  updated: Any) -> Any:
        """A number state stays in its declared range: held there if `clamped`, else an error."""
        vt = spec.type
        for _ in index:
            vt = vt.item if vt is not None else None
        if vt is None or vt.low is None or vt.kind not in ("integer", "number"):
            return updated
        value = _dig(updated, index)
        if not isinstance(value, (int, Decimal)) or isinstance(value, bool) or \
                vt.low <= value <= vt.high:
            return updated
        if not spec.clamped:
            raise RangeError(f"{party}.{spec.name} would become {display(value)}, outside its "
                             f"range {vt.low}..{vt.high} (declare it `clamped` to hold it there)",
                             span, self.source)
        held = min(max(value, vt.low), vt.high)
        return _replace(updated, index, held)

    def call(self, span: Span, name: str, procedure: str, fn: Callable[..., Any],
             args: tuple[Any, ...]) -> Outcome:
        """Another procedure, played in this run: same dice, choices and trace, its own values.
        Its outcome ends only it, and is the caller's value `name`."""
        saved = self.values
        self.values = {}
        self.trace.append(("call", name, procedure, span))
        try:
            fn(self, *args)
        except Finished as done:
            outcome = done.outcome
        else:  # the compiler sees that every path ends in an outcome
            raise RulecraftError(f"procedure {procedure} ended without an outcome", span,
                                 self.source)
        finally:
            self.values = saved
        self.values[name] = outcome
        self.trace.append(("return", name, outcome, span))
        return outcome

    def each(self, span: Span, name: str, items: Iterable[Any]) -> Iterator[Any]:
        """The items of a `for each`, each traced as the loop's value."""
        for item in tuple(items):
            self._pass(span)
            self.values[name] = item
            self.trace.append(("each", name, item, span))
            yield item

    def passes(self, span: Span, cap: int) -> Iterator[int]:
        """The passes of a `repeat`: at most `cap`, the number its rule writes."""
        if cap < 1:
            raise RangeError(f"a repeat needs at least one pass; its cap here is {cap}", span,
                             self.source)
        for n in range(cap):
            self._pass(span)
            yield n

    def until(self, span: Span, condition: str, met: bool) -> bool:
        self.trace.append(("branch", f"until {condition}", met, span))
        return met

    def capped(self, span: Span, condition: str) -> None:
        raise RangeError(f"the repeat reached its cap without {condition}, and the rule says "
                         "nothing of what happens then (add an `at the cap:` block)", span,
                         self.source)

    def _pass(self, span: Span) -> None:
        self.passes_made += 1
        if self.passes_made > self.limits.loop_passes:
            raise RangeError(f"this run has made more than {self.limits.loop_passes} loop passes "
                             f"{Limits.hint('loop_passes')}", span, self.source)

    def _updated(self, combine: Callable[..., Any] | None, current: Any, index: tuple[Any, ...],
                 value: Any, mode: str, given: dict[str, Any], empty: Any) -> Any:
        if index:
            inner = dict(current)
            key, rest = index[0], index[1:]
            fresh = empty if not rest else {}
            inner[key] = self._updated(combine, inner.get(key, fresh), rest, value, mode, given,
                                       empty)
            return inner
        if mode == "set":
            return value
        if isinstance(current, tuple):
            items = current + (value,)
            if combine is not None:
                items = combine(items, given)
            return items
        return current + value

    def finish(self, span: Span, name: str, values: dict[str, Any]) -> None:
        outcome = Outcome(name, values, span)
        self.trace.append(("outcome", name, outcome, span))
        raise Finished(outcome)


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


def _empty(vt: ValueType | None, depth: int) -> Any:
    """What a map entry holds before anything is added to it: an empty list, or zero."""
    for _ in range(depth):
        vt = vt.item if vt is not None else None
    if vt is not None and vt.kind == "list":
        return ()
    if vt is not None and vt.kind in ("integer", "number"):
        return 0
    return None


def _handles(value: Any, made: dict[int, Combatant]) -> Any:
    """`value` with every combatant in it replaced by a handle of its own for this run (one
    handle per combatant, however often it appears)."""
    kind = type(value)
    if kind is Combatant:
        if id(value) not in made:
            made[id(value)] = value.handle()
        return made[id(value)]
    if kind is not dict and kind is not tuple and kind is not list:
        return value
    if type(value) is dict:
        return {k: _handles(v, made) for k, v in value.items()}
    if type(value) is tuple or type(value) is list:
        return tuple(_handles(v, made) for v in value)
    return value


def _replace(value: Any, index: tuple[Any, ...], leaf: Any) -> Any:
    """`value` with the entry at `index` replaced (maps are copied, never changed)."""
    if not index:
        return leaf
    inner = dict(value)
    inner[index[0]] = _replace(value[index[0]], index[1:], leaf)
    return inner


def _dig(value: Any, index: tuple[Any, ...]) -> Any:
    for key in index:
        value = value[key]
    return value


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
    fn: Callable[..., Any] = attrs.field(default=None, repr=False)
    outcomes: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)  # name -> its values

    def run(
        self,
        dice: DiceSource | Iterable[int] | None = None,
        seed: int | None = None,
        choices: Mapping[str, Any] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        **args: Any,
    ) -> Result:
        """Play the procedure once. `dice`: a list of results (one per die) or a dice source;
        `seed`: a whole number for reproducible dice; `limits`: the caps on what a roll may ask."""
        source: DiceSource
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
        arguments, picked = self._arguments(args, choices)
        return self._play(source, arguments, picked)

    def enumerate(
        self, choices: Mapping[str, Any] | None = None, limits: Limits = DEFAULT_LIMITS,
        **args: Any
    ) -> list[tuple[Fraction, Result]]:
        """Every path of dice with its exact probability; the same compiled code plays each."""
        return [(source.probability, result)
                for source, result in self._paths(choices, limits, args)]

    def odds(
        self,
        by: str | Callable[[Result], Any] = "outcome",
        choices: Mapping[str, Any] | None = None,
        limits: Limits = DEFAULT_LIMITS,
        **args: Any,
    ) -> dict[Any, Fraction]:
        """Exact probability of each outcome name (or of each value `by` picks out)."""
        key: Callable[[Result], Any]
        if callable(by):
            key = by
        elif by == "outcome":
            key = lambda r: r.outcome.name  # noqa: E731
        else:
            key = lambda r: r.outcome.get(by, r.values.get(by))  # noqa: E731
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
            close = difflib.get_close_matches(by, sorted(known), n=1)  # type: ignore[arg-type]
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise RangeError(f"no outcome of {self.name} has a value called {by!r}{hint}",
                             self.span, self.source)
        return {k: sum((Fraction(n, d) for d, n in group.items()), Fraction(0))
                for k, group in sums.items()}

    def _paths(self, choices: Mapping[str, Any] | None, limits: Limits,
               args: dict[str, Any]) -> Iterator[tuple[PathDice, Result]]:
        """Each path of the dice and its result, one at a time, within `limits`."""
        _check_limits(limits)
        arguments, picked = self._arguments(args, choices)
        walk = Enumeration(lambda src: self._play(src, arguments, picked), limits,
                           lambda result: len(result._steps))
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
        self, args: dict[str, Any], choices: Mapping[str, Any] | None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        picked = dict(choices or {})
        arguments: dict[str, Any] = {}
        names = [p.name for p in self.params]
        for key, value in args.items():
            if key in names:
                continue
            if key in self.choice_names:
                picked[key] = value
                continue
            close = difflib.get_close_matches(key, names + list(self.choice_names), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise RangeError(
                f"procedure {self.name} has no parameter or choice {key!r}{hint}",
                self.span,
                self.source,
            )
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
        return arguments, picked

    def _play(self, source: DiceSource, arguments: dict[str, Any], choices: dict[str, Any]) -> Result:
        # This run's handles: the caller's combatants are copied, never changed.
        made: dict[int, Combatant] = {}
        arguments = _handles(arguments, made)
        parties = {k: v for k, v in arguments.items() if isinstance(v, Combatant)}
        ctx = RunContext(source, choices, self.source, parties)
        ctx.handles = {id(h) for h in made.values()}
        try:
            self.fn(ctx, **arguments)
        except Finished as done:
            return Result(done.outcome, ctx.values, ctx.parties, ctx.trace)
        except RulecraftError:
            raise
        except (*ARITHMETIC, TypeError) as err:
            last = ctx.trace[-1][3] if ctx.trace else None
            where = f" after line {last.line}" if last is not None else ""
            what = calculation_message(err) if not isinstance(err, TypeError) else (
                "a value used here is none (a name set in only some branches of an `if` is "
                "none in the others)")
            raise CalculationError(f"{what}: in procedure {self.name}{where}", self.span,
                                   self.source) from None
        raise RulecraftError(f"procedure {self.name} ended without an outcome", self.span,
                             self.source)


__all__ = ["FrozenMap", "Outcome", "Procedure", "Result", "RunContext", "Step", "TraceEntry",
           "ValueType"]
