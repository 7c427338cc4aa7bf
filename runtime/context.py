"""The run context: what generated procedure code calls for every roll, value, branch and change."""

from __future__ import annotations

import collections
import difflib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from .clock_calls import fired
from .combatants import Combatant, ValueType, bulky
from .sides import fighter_named
from .dice import Dice, DiceSource
from .errors import DiceError, RangeError, RulecraftError, Span
from .limits import DEFAULT_LIMITS, Limits
from .located import Located, anywhere, located
from .results import Outcome
from .space import Hex, as_hex
from .values import display, match_name, to_internal, to_public
from .work import current


_NOT_HELD = object()


class Finished(Exception):
    """Raised by an `outcome` step to end the run (never escapes the runtime)."""

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome


class RunContext:
    """What generated procedure code calls for every roll, choice, value, branch and change."""

    # An encounter's loop calls `head` at each pass when it is set: exact odds of a fight
    # merge its states there (runtime/fight_odds.py); `resumed` is the pass its loop starts at.
    head: Callable[..., tuple[Any, ...]] | None = None
    resumed = 0
    today: int = 0  # the calendar's day of the run (`run(..., day=N)`): `today` in rules

    def __init__(
        self,
        dice: DiceSource,
        choices: Mapping[str, Any],
        source: str | None,
        parties: dict[str, Combatant],
        policy: str | None = None,
        time_limit: Any = None,
    ) -> None:
        self.dice = dice
        self.choices = choices  # the rule's own choices, given by name
        # Run options, never read out of `choices`: a rule may name a choice `policy` too.
        self.policy = policy  # the policy deciding this run's choices, by name
        self.scripted: dict[str, int] = {}  # a scripted choice: how many of its decisions made
        self.now: Any = 0  # an encounter's time, in its clock's unit (0 outside encounters)
        self.whole_rounds = False  # a round clock: a condition for 1 lasts through the next round
        # Lasting conditions: party -> condition -> until when (None: until ended by a step).
        self.conditions: dict[int, dict[Any, Any]] = {}
        self.schedule: Any = None  # an encounter's turns (runtime.encounters.Schedule), if any
        self.time_limit: Any = time_limit  # a fight played only so long (a run option)
        self.source = source
        # Made into TraceEntry objects when read; a detail (text, party) becomes an `About`.
        self.trace: list[tuple[Any, ...]] = []
        self.values: dict[str, Any] = {}
        self.parties = parties
        self.passes_made = 0  # loop passes so far in this run, against loop_passes
        self.handles: set[int] = set()  # ids of the combatants this run may change
        self.limits: Limits = getattr(dice, "limits", DEFAULT_LIMITS)
        self.work = current(self.limits)  # the command's budget, which every pass draws from
        # The trace keeps its newest entries, weighed with the items of the lists they hold,
        # within `trace_entries`: `dropped` entries before them are not kept, and they end
        # `dropped_depth` calls deep.
        self.dropped = self.dropped_depth = 0
        self.calls_deep = 0  # calls under way: a procedure calling itself down to a bound
        self._weight = self._weighed = 0
        self._mark = _WEIGH_EVERY
        # Choices the calls under way answer for their callees (`call … choosing x = …`),
        # and choices made in secret, not yet revealed: name -> the party that made it.
        self.answered: dict[str, Any] = {}
        self.secrets: dict[str, str] = {}

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
        self, span: Span, name: str, party: str, options: Sequence[Any], default: Any,
        standing: tuple[Any, tuple[Any, ...]] | None = None, seeing: tuple[str, ...] | None = None,
        secret: bool = False, policies: tuple[str, ...] = (),
    ) -> Any:
        # Nobody chose: the default is the run's policy's answer when that policy answers this
        # choice (the rule's default folds it in), and the trace says so.
        unset = f"policy {self.policy}" if self.policy in policies else "default"
        if standing is not None and not self.conditions.get(id(standing[0])):
            standing = None  # a party under no condition at all: no standing constraint binds
        if standing is not None or secret or name in self.answered:
            return self._choose_knowing(span, name, party, options, default, standing, seeing,
                                        secret, unset)
        if name not in self.choices and type(options) is tuple and default in options:
            # Nobody chose: the rule's default, one of the options (the common case).
            self.values[name] = default
            self.trace.append(("choose", name, default, span, f"by {party}, {unset}"))
            return default
        return self._chosen(span, name, party, options, default, seeing, unset)

    def _chosen(self, span: Span, name: str, party: str, options: Sequence[Any], default: Any,
                seeing: tuple[str, ...] | None = None, unset: str = "default") -> Any:
        """A choice given by name, scripted, made by the caller's function, or the default
        (`unset` says whose: the rule's, or a policy's)."""
        options = list(options)
        chosen = self.choices.get(name, default)
        by = "given" if name in self.choices else unset
        if by == "given" and type(chosen) is list:
            # A script of decisions (a fight in a test): each time this choice is made, the next.
            made = self.scripted.get(name, 0)
            if made >= len(chosen):
                raise RangeError(f"the scripted decisions for {name} ran out: {len(chosen)} "
                                 "given, and it is made again here", span, self.source)
            self.scripted[name] = made + 1
            chosen = chosen[made]
            by = "scripted"
        if by == "given" and callable(chosen) and not isinstance(chosen, str):
            # Only a caller's own function is called: a value from the rule (a default) never is.
            # It is shown what the party may see: the values it chooses `seeing` (all when the
            # rule does not say), never another party's secret not yet revealed.
            shown = {k: to_public(v) for k, v in self.values.items()
                     if (seeing is None or k in seeing)
                     and self.secrets.get(k, party) == party}
            try:
                chosen = chosen(options=[to_public(o) for o in options], values=shown)
            except Exception as err:  # the caller's function, not the rule: say so
                raise RangeError(f"the function choosing {name} for {party} failed: {err!r}",
                                 span, self.source) from err
            by = "chooser"
        if type(chosen) is not str or chosen not in options:  # else one of them, by name
            chosen = self._option_meant(span, name, party, to_internal(chosen), options)
        self.values[name] = chosen
        self.trace.append(("choose", name, chosen, span, f"by {party}, {by}"))
        return chosen

    def _option_meant(self, span: Span, name: str, party: str, chosen: Any,
                      options: list[Any]) -> Any:
        """The option a choice given otherwise than as one of them means: a fighter by his
        name, a name in other capitals, a hex as a pair; an error if none."""
        chosen = fighter_named(chosen, options)
        if chosen not in options and match_name(chosen, options) is not None:
            chosen = match_name(chosen, options)
        if chosen not in options and any(type(o) is Hex for o in options):
            chosen = as_hex(chosen) or chosen  # a hex given as a pair, `(0, 1)` or "0, 1"
        if chosen not in options:
            shown = ", ".join(display(o) for o in options)
            close = difflib.get_close_matches(str(chosen), [str(o) for o in options], n=1)
            hint = f" — did you mean {close[0]!r}?" if close else ""
            raise RangeError(
                f"{party} cannot choose {display(chosen)!r} for {name}: the options are {shown}{hint}",
                span,
                self.source,
            )
        return chosen

    def _choose_knowing(self, span: Span, name: str, party: str, options: Sequence[Any],
                        default: Any, standing: tuple[Any, tuple[Any, ...]] | None,
                        seeing: tuple[str, ...] | None, secret: bool,
                        unset: str = "default") -> Any:
        """A choice under a standing constraint, made in secret or answered by a caller
        (runtime/knowledge.py); otherwise as `choose`."""
        from .knowledge import choose_knowing  # only rules that use these pay the import

        return choose_knowing(self, span, name, party, options, default, standing, seeing,
                              secret, unset)

    def adopt(self, made: Combatant) -> Combatant:
        """A combatant the rule itself made (`fighter(strength = 12, …)`): this run's own, so
        its steps may change it."""
        self.handles.add(id(made))
        return made

    def expect(self, span: Span, text: str, passed: Any, said: str | None = None,
               value: Any = None) -> None:
        """A worked example's check: recorded with what came out (`blow.htk` and its value,
        for a comparison), whether it held or not; runtime/examples.py reports it."""
        got = "" if said is None else f"{said} = {display(value)}"
        self.trace.append(("expect", text, bool(passed), span, got))

    def ruling(self, span: Span, party: str, text: str) -> None:
        """The referee's call, where the rules leave an effect to people: recorded."""
        self.trace.append(("ruling", party, text, span))

    def reveal(self, span: Span, name: str, value: Any) -> None:
        """A choice made in secret made known: every party may see it from now on."""
        party = self.secrets.pop(name, None)
        self.trace.append(("reveal", name, value, span, f"chosen by {party}" if party else ""))

    def give(self, span: Span, party: str, who: Combatant, condition: Any,
             duration: Any) -> None:
        """`give f "Stunned" for 1`: a condition lasting until now + duration (or until ended)."""
        until = None if duration is None else self.now + duration
        self.conditions.setdefault(id(who), {})[condition] = until
        shown = "until ended" if until is None else f"until {display(until)}"
        self.trace.append(("give", party, condition, span, (shown, who)))
        if self.schedule is not None:  # `on given CONDITION by p:` rules fire
            # given at a location (`give f "Shock" on "Head"`), it is the condition all the same
            given = condition.condition if type(condition) is Located else condition
            fired(self, span, "given", given, who)

    def end_condition(self, span: Span, party: str, who: Combatant, condition: Any) -> None:
        """`end f "Stunned"`: traced when it ends something (ending what is not held is no
        news)."""
        held = self.conditions.get(id(who), {})
        if held.pop(condition, _NOT_HELD) is not _NOT_HELD:
            self.trace.append(("end", party, condition, span, ("", who)))
        if held and type(condition) is str:  # and wherever it is held (runtime/located.py)
            for key in located(held, condition):
                del held[key]
                self.trace.append(("end", party, key, span, ("", who)))

    def delay(self, span: Span, party: str, who: Any, by: Any) -> None:
        """`delay f by T`, an effect on time: the fight's schedule applies it; a run with no
        clock (a blow played on its own) records it in the trace."""
        if self.schedule is not None:
            self.schedule.delay(span, party, who, by)
        else:
            self.trace.append(("delay", party, by, span, ("no clock: not applied", who)))

    def lengthen(self, span: Span, party: str, who: Any, by: Any) -> None:
        """`lengthen f by T`: only an action under way is lengthened (a wound's tenths "to the
        current action"); with none, nothing."""
        if self.schedule is not None:
            self.schedule.lengthen(span, party, who, by)
        else:
            self.trace.append(("lengthen", party, by, span, ("no clock: not applied", who)))

    def next_turn(self, who: Any) -> Any:
        """When `who`'s action under way completes, in an encounter (none otherwise)."""
        return None if self.schedule is None else self.schedule.next_turn(who)

    def within(self, span: Span, counted: str, made: int, now: Any) -> None:
        """A fight given a time limit ends `capped` when its clock would pass it."""
        if self.time_limit is not None and now > self.time_limit:
            self.now = self.time_limit
            self.finish(span, "capped", {"time": self.time_limit, counted: made})

    def period(self, span: Span, every: Any) -> Any:
        """How often an `every` block runs: a time greater than zero."""
        if every <= 0:
            raise RangeError(f"`every` needs a time greater than 0, not {display(every)}", span,
                             self.source)
        return every

    def has(self, who: Any, condition: Any) -> bool:
        """Whether a party is under a condition now (one given for a time lasts until then)."""
        held = self.conditions.get(id(who))
        if not held:  # the common case: under no condition at all
            return False
        until = held.get(condition, False)
        if until is False and type(condition) is str:  # held at some location?
            until = anywhere(held, condition)
        if until is None:
            return True
        return until is not False and (until > self.now or
                                       (self.whole_rounds and until == self.now))

    def remaining(self, who: Any, condition: Any) -> Any:
        """How long a condition has left (none when not under it, or until ended)."""
        held = self.conditions.get(id(who), {})
        until = held.get(condition, False)
        if until is False:
            until = anywhere(held, condition) if held and type(condition) is str else None
        if until is False:
            return None
        left = None if until is None else until - self.now + (1 if self.whole_rounds else 0)
        return None if left is None or left <= 0 else left

    def change(self, span: Span, party: str, who: Combatant, field: str, index: tuple[Any, ...],
               value: Any, mode: str) -> None:
        """`set` or `add` on a combatant's state, in place: `who` is this run's handle, so
        every name bound to it sees the new figures (derived ones recomputed, memoised)."""
        if id(who) not in self.handles:
            raise RangeError(f"{party} is a combatant held by another (part of its figures), so "
                             "it is not changed on its own: make it a party of the procedure, "
                             "change it, and set it back", span, self.source)
        # The same change of the same state gives the same state: remembered on the state, as
        # fights and many runs make it again and again.
        op = (field, index, value, mode)
        try:
            known = who._next.get(op)
        except TypeError:  # a map or list set whole: worked out each time
            op, known = None, None
        remember, memo = known is None and op is not None, who._next
        if known is None:
            known = self._changed(span, party, who, field, index, value, mode)
        who.become(known)
        now = known._values[field]
        remember = remember and not bulky(now)
        for key in index:  # the changed entry (`_dig`, written out: every blow makes a few)
            now = now[key]
        if remember and not bulky(now):  # on the state changed from
            if len(memo) > 256:  # as `changed` keeps it: a few next states each
                memo.clear()
            memo[op] = known
        # The trace names the target as `party.field[key]` when it is read (results._entry).
        said = mode if mode != "remove" else f"remove {display(value)}"  # the key taken out
        # (said, who): the detail also names the combatant, so a fight's log can say whose
        # figure changed when a called procedure knows him by its own label (`defender`).
        self.trace.append(("change", (party, field, index), now, span, (said, who)))
        if self.schedule is not None:  # `on changed FIELD by p:` rules fire
            fired(self, span, "changed", field, who)

    def _changed(self, span: Span, party: str, who: Combatant, field: str,
                 index: tuple[Any, ...], value: Any, mode: str) -> Combatant:
        """The state a change leads to (an error if it leaves the field's range)."""
        spec = who.model.field(field)
        if index:
            given = dict(zip(spec.type.index_names() if spec.type else [], index))
            empty = _empty(spec.type, len(index))
            combine = who.model.combiners[spec.combine] if spec.combine else None
            updated = self._updated(span, combine, who._values[field], index, value, mode,
                                    given, empty)
        elif mode == "set":
            updated = value
        else:
            combine = who.model.combiners[spec.combine] if spec.combine else None
            updated = self._updated(span, combine, who._values[field], (), value, mode, {}, None)
        if spec.type is not None and (index or spec.type.low is not None):
            updated = self._in_range(span, party, spec, index, updated)
        return who.changed(field, updated)

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
             args: tuple[Any, ...], cost: int = 1,
             answers: Mapping[str, Any] | None = None, circle: bool = False) -> Outcome:
        """Another procedure, played in this run: same dice, choices and trace, its own values.
        Its outcome ends only it, and is the caller's value `name`. It costs the steps its
        procedure writes, from the command's work. `answers`: the choices the caller makes
        for it (`choosing`), the nearest caller's answer first. A call of a procedure in a
        circle of calls (`circle`) goes at most `nesting_depth` deep; any other chain was
        measured when compiling."""
        self._spend(span, cost)
        if circle and self.calls_deep >= self.limits.nesting_depth:
            raise RangeError(f"procedures call one another more than "
                             f"{self.limits.nesting_depth} deep here "
                             f"{Limits.hint('nesting_depth')}", span, self.source)
        saved = self.values
        answered = self.answered
        if answers:
            self.answered = {**answered, **answers}
        self.values = {}
        self.calls_deep += 1
        self.trace.append(("call", name, procedure, span))
        try:
            outcome = fn(self, *args)  # a procedure returns its outcome (`done`)
        except Finished as done:  # an encounter raises it (`finish`)
            outcome = done.outcome
        finally:
            self.values = saved
            self.answered = answered
            self.calls_deep -= 1
        if outcome is None:  # the compiler sees that every path ends in an outcome
            raise RulecraftError(f"procedure {procedure} ended without an outcome", span,
                                 self.source)
        self.values[name] = outcome
        self.trace.append(("return", name, outcome, span))
        return outcome

    def each(self, span: Span, name: str, items: Iterable[Any], cost: int = 1) -> Iterator[Any]:
        """The items of a `for each`, each traced as the loop's value (and costing the steps
        of the loop's body)."""
        items = tuple(items)
        ahead = self._ahead(cost, len(items))  # a short loop within every bound: paid at once
        for made, item in enumerate(items):
            if not ahead:
                self._pass(span, cost, made, len(items))
            self.values[name] = item
            self.trace.append(("each", name, item, span))
            yield item

    def passes(self, span: Span, cap: int | None, start: int = 0, cost: int = 1
               ) -> Iterator[int]:
        """The passes of a `repeat` or an encounter's loop: at most `cap`, the number its rule
        writes (from pass `start` when exact odds resume a fight there); with `no cap` (None)
        as many as the run's work and `loop_passes` allow, refused past them."""
        if cap is None:
            return self._uncapped(span, start, cost)
        if cap < 1:
            raise RangeError(f"a repeat needs at least one pass; its cap here is {cap}", span,
                             self.source)
        return self._capped(span, cap, start, cost)

    def _capped(self, span: Span, cap: int, start: int, cost: int) -> Iterator[int]:
        for n in range(start, cap):
            self._pass(span, cost, n - start, cap - start)
            yield n

    def _uncapped(self, span: Span, start: int, cost: int) -> Iterator[int]:
        """An encounter with `no cap`: pass after pass until it ends; a run that will not end
        is refused by its work or `loop_passes`, saying so."""
        n = start
        try:
            while True:
                self._pass(span, cost)
                yield n
                n += 1
        except RangeError as err:
            if "no cap" in err.message or self.head is not None:  # exact odds say their own
                raise
            refused = RangeError(f"this encounter has `no cap` and had not ended after "
                                 f"{n - start:,} passes (it may never end): {err.message}",
                                 err.span, err.source)
            if hasattr(err, "limit"):
                refused.limit = err.limit  # type: ignore[attr-defined]
            raise refused from None

    def until(self, span: Span, condition: str, met: bool) -> bool:
        self.trace.append(("branch", f"until {condition}", met, span))
        return met

    def capped(self, span: Span, condition: str) -> None:
        raise RangeError(f"the repeat reached its cap without {condition}, and the rule says "
                         "nothing of what happens then (add an `at the cap:` block)", span,
                         self.source)

    def _pass(self, span: Span, cost: int = 1, made: int = 0, passes: int = 0) -> None:
        """One more loop pass, within `loop_passes` for the run and the command's work (`made`
        of the loop's `passes`, for a refusal's estimate: plain numbers, as every pass pays)."""
        self.passes_made += 1
        if self.passes_made > self.limits.loop_passes:
            raise RangeError(f"this run has made more than {self.limits.loop_passes} loop passes "
                             f"{Limits.hint('loop_passes')}", span, self.source)
        self._spend(span, cost, made, passes)

    def _ahead(self, cost: int, passes: int) -> bool:
        """The passes of a short loop (`for each f in [first, second]`) paid before the first,
        when all of them are within `loop_passes` and the command's work: what paying pass by
        pass would come to, in one step (a loop that would be refused pays pass by pass, to
        be refused at the pass that goes over, saying how far it got). Only a short loop: the
        trace is weighed at each pass of a long one."""
        work = self.work
        if passes > _AHEAD or self.passes_made + passes > self.limits.loop_passes or \
                work.left < cost * passes or len(self.trace) > self._mark:
            return False
        self.passes_made += passes
        work.left -= cost * passes
        return True

    def _spend(self, span: Span, cost: int, made: int = 0, passes: int = 0) -> None:
        """A pass or a call: its cost from the command's work, and the trace kept in bounds
        (only loops and calls grow either without bound)."""
        work = self.work
        work.left -= cost
        if work.left < 0:
            work.refuse(span, self.source, (made, passes) if passes else None)
        if len(self.trace) > self._mark:
            self._keep_trace()

    def _keep_trace(self) -> None:
        """Drop the oldest trace entries once the trace outweighs `trace_entries`, down to
        half of it."""
        trace = self.trace
        new = trace[self._weighed:]  # each entry weighs one, and the items it holds
        weight = self._weight + len(new) + sum([len(e[2]) for e in new if type(e[2]) in _SIZED])
        limit = self.limits.trace_entries
        if weight > limit and type(trace) is list:
            cut, depth = 0, self.dropped_depth
            while weight > limit // 2 and cut < len(trace):
                entry = trace[cut]
                weight -= _weight(entry)
                depth += (entry[0] == "call") - (entry[0] == "return")
                cut += 1
            del trace[:cut]
            self.dropped += cut
            self.dropped_depth = depth
        self._weight, self._weighed = weight, len(trace)
        self._mark = len(trace) + _WEIGH_EVERY

    def _updated(self, span: Span, combine: Callable[..., Any] | None, current: Any,
                 index: tuple[Any, ...], value: Any, mode: str, given: dict[str, Any],
                 empty: Any) -> Any:
        """A state with one change made; a list or map it grows stays within `list_items`."""
        if index:
            self.work.spend(len(current), span, self.source)  # a copy: work as long as it
            inner = dict(current)
            key, rest = index[0], index[1:]
            if key not in inner and len(inner) >= self.limits.list_items:
                raise RangeError(f"this map would hold more than {self.limits.list_items} "
                                 f"entries {Limits.hint('list_items')}", span, self.source)
            fresh = empty if not rest else {}
            inner[key] = self._updated(span, combine, inner.get(key, fresh), rest, value, mode,
                                       given, empty)
            return inner
        if mode == "set":
            return value
        if mode == "remove":  # `remove KEY from f.wounds`: no such entry, nothing to take out
            if type(current) is not dict or value not in current:
                return current
            return {key: item for key, item in current.items() if key != value}
        if isinstance(current, tuple):
            if len(current) >= self.limits.list_items:
                raise RangeError(f"this list would hold more than {self.limits.list_items} items "
                                 f"{Limits.hint('list_items')}", span, self.source)
            self.work.spend(len(current), span, self.source)
            items = current + (value,)
            if combine is not None:
                items = combine(items, given)
            return items
        return current + value

    def finish(self, span: Span, name: str, values: dict[str, Any]) -> None:
        outcome = Outcome(name, values, span)
        self.trace.append(("outcome", name, outcome, span))
        raise Finished(outcome)

    def done(self, span: Span, name: str, values: dict[str, Any]) -> Outcome:
        """An `outcome` step: the procedure returns what this gives (no exception to unwind)."""
        outcome = Outcome(name, values, span)
        self.trace.append(("outcome", name, outcome, span))
        return outcome


_WEIGH_EVERY = 64  # trace entries added between two weighings of the trace
_AHEAD = 4  # the passes of a loop at most that are paid before its first (`RunContext._ahead`)
_SIZED = (tuple, dict)  # a value that weighs its items too (`_weight`)


def _weight(entry: tuple[Any, ...]) -> int:
    """What a trace entry weighs against `trace_entries`: one, and the items of a list or map
    it holds (a loop growing a list keeps every size of it)."""
    value = entry[2]
    return 1 + len(value) if type(value) in _SIZED else 1


def _empty(vt: ValueType | None, depth: int) -> Any:
    """What a map entry holds before anything is added to it: an empty list, or zero."""
    for _ in range(depth):
        vt = vt.item if vt is not None else None
    if vt is not None and vt.kind == "list":
        return ()
    if vt is not None and vt.kind in ("integer", "number"):
        return 0
    return None


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


def NoTrace() -> Any:  # noqa: N802 - made like a list, read like one
    """A trace nobody reads (runs in bulk, exact odds): empty, and what is appended is dropped
    at C speed."""
    return collections.deque(maxlen=0)


class ExactContext(RunContext):
    """The run context of exact odds by states (runtime/exact.py): the same checks on every
    value, choice and change, no trace; a roll or call is a cut the segments return, and an
    outcome is returned too, never raised."""

    def __init__(self, choices: Mapping[str, Any], source: str | None, limits: Limits,
                 policy: str | None = None) -> None:
        super().__init__(_NO_DICE, choices, source, {}, policy)
        self.trace = NoTrace()
        self.limits = limits

    def let(self, span: Span, name: str, value: Any) -> Any:
        return value

    def branch(self, span: Span, condition: str, taken: bool) -> None:
        pass

    def until(self, span: Span, condition: str, met: bool) -> bool:
        return met

    def item(self, span: Span, name: str, value: Any, cost: int = 1) -> Any:
        """One item of a `for each` cut at a roll or call inside it (its pass counted)."""
        self._pass(span, cost)
        return value

    def first_pass(self, span: Span, cap: int) -> int:
        """The cap of a `repeat` cut at a roll or call inside it, checked as `passes` does."""
        if cap < 1:
            raise RangeError(f"a repeat needs at least one pass; its cap here is {cap}", span,
                             self.source)
        return cap

    def finish(self, span: Span, name: str, values: dict[str, Any]) -> Outcome:  # type: ignore[override]
        return Outcome(name, values, span)

    done = finish


class _NoDice:
    def roll(self, dice: Dice) -> tuple[Any, tuple[int, ...]]:
        raise AssertionError("exact odds roll in runtime.exact, never through a dice source")


_NO_DICE = _NoDice()
