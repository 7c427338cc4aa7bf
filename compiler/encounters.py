"""Back end 1, encounters: the fight loop and the steps that schedule turns (a Writer mixin).

An encounter is a procedure whose last step is its loop: `turn f:` gives each turn to the party
whose action completes first (`runtime.encounters.Schedule`), `each round:` runs its steps
round after round; after each pass `ends when` is tested, and the cap bounds the loop. It ends
in `ended`, `capped` or `idle` (nobody has a turn coming), each with the time and the passes
made, unless a step of the loop ends it with an outcome of its own.
"""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError

from .clock_ticks import duration_code, last_played
from .expressions import Env
from . import sides
from .scope import cost
from .types import CLOCK, INT, NUM, T, is_number

# The outcomes every encounter can end in, and what each carries.
ENDINGS = ("ended", "capped", "idle")


class EncounterSteps:
    """Generates `turn`/`each round` loops and `act`/`delay`/`stop` steps."""

    encounter: str | None = None  # the clock of the encounter being generated
    encounter_name = ""  # and its name

    def start_encounter(self: Any, decl: s.ProcedureDecl, env: Env) -> None:
        """`_sched` and `now` exist from the first step of an encounter."""
        self.encounter = decl.clock[0] if decl.clock else None
        self.emit.sides = None
        if self.scope.time_units is not None:  # whose units an expression reads (`minute`)
            self.scope.time_units.current = self.encounter
            if self.scope.time_units.calendar is not None:  # the day of the run or fight
                env.setdefault("today", ("_ctx.today", INT))
        if self.encounter is None:
            if all(p.name != "now" for p in decl.params):  # the time of the encounter calling
                env["now"] = ("_ctx.now", CLOCK)
            return
        self.encounter_name = decl.name
        for param in decl.params:
            if param.name == "now":  # it would be the time from the first step on
                self.scope.error(RuleTypeError, "now is the encounter's time: a parameter "
                                 "needs a name of its own", param.span)
        self.line(1, f"_sched = _ctx.schedule = _Schedule(_ctx, {self.encounter!r})")
        self.line(1, "v_now = 0")
        env["now"] = ("v_now", CLOCK)
        self.emit.sides = sides.declare(self, decl, env)  # its fighters, side by side

    def visit_ScheduleStep(self: Any, step: s.ScheduleStep, env: Env, depth: int) -> None:
        if step.mode == "aim":
            sides.aim(self, step, env, depth)
            return
        party = env.get(step.party)
        if party is None or party[1].kind != "combatant":
            self.scope.unknown("party", step.party, step.span,
                               [n for n, (_, t) in env.items() if t.kind == "combatant"])
            return
        if self.encounter is None and step.mode not in ("delay", "lengthen"):
            self.scope.error(RuleTypeError, "act and stop schedule turns: they belong in an "
                             "encounter (a procedure has no clock; it may `delay` or "
                             "`lengthen` a party)",
                             step.span)
            return
        where = self.scope.span_ref(step.span)
        who = f"{where}, {step.party!r}, {party[0]}"
        if step.mode == "stop":
            self.line(depth, f"_sched.stop({who})")
            return
        code = self.time_code(step.value, step.unit, env, "a time is")  # `after 2 seconds`
        if step.mode in ("delay", "lengthen"):
            # An effect: the fight's schedule applies it; a run with no clock records it.
            self.line(depth, f"_ctx.{step.mode}({who}, {code})")
        elif step.label is not None:  # `act f after T as "Walk"`: compiler/clock_events.py
            self.labelled_act(step, env, depth, who, code)
        else:
            self.line(depth, f"_sched.act({who}, {code}, {step.mode == 'after'})")

    def time_code(self: Any, node: Any, unit: s.TimeUnit | None, env: Env, what: str) -> str:
        """A time a step waits (`act f after 2 seconds`, `after T as arrow:`): a number of the
        clock's unit, or of a unit it declares, as code in the clock's own unit."""
        code, t = self.expr(node, env)
        if not is_number(t):
            self.scope.error(RuleTypeError, f"{what} a number of {self.encounter or 'the clock'}"
                             f", not {t}", node.span)
        code = self.emit.cast(code, t, "num", node)
        return str(duration_code(self, code, t, unit)[0])

    def visit_ConditionStep(self: Any, step: s.ConditionStep, env: Env, depth: int) -> None:
        """`give f "Stunned" for 1`, `end f "Stunned"`: conditions last on the run's clock."""
        party = env.get(step.party)
        if party is None or party[1].kind != "combatant":
            self.scope.unknown("party", step.party, step.span,
                               [n for n, (_, t) in env.items() if t.kind == "combatant"])
            return
        code, t = self.expr(step.condition, env)
        if t.kind not in ("name", "any"):
            self.scope.error(RuleTypeError, f"a condition is named (\"Stunned\"), not {t}",
                             step.condition.span)
        self.scope.condition_named(step.condition)
        if step.location is not None:  # `give f "Shock" on "Head"`: held at that location
            loc, lt = self.expr(step.location, env)
            if lt.kind not in ("name", "any"):
                self.scope.error(RuleTypeError, f"a location is named (\"Head\"), not {lt}",
                                 step.location.span)
            code = f"_Located({code}, {loc})"
        where = self.scope.span_ref(step.span)
        if step.mode == "end":
            self.line(depth, f"_ctx.end_condition({where}, {step.party!r}, {party[0]}, {code})")
            return
        duration = "None"
        if step.duration is not None:
            duration, dt = self.expr(step.duration, env)
            if not is_number(dt):
                self.scope.error(RuleTypeError, f"how long a condition lasts is a number, not "
                                 f"{dt}", step.duration.span)
            duration = self.emit.cast(duration, dt, "num", step.duration)
            duration, _ = duration_code(self, duration, dt, step.unit)  # `for 1 minute`
        self.line(depth, f"_ctx.give({where}, {step.party!r}, {party[0]}, {code}, {duration})")

    def visit_EncounterLoop(self: Any, step: s.EncounterLoop, env: Env, depth: int) -> None:
        if self.encounter is None:
            self.scope.error(RuleTypeError, "a turn or round loop is an encounter's: write "
                             "`encounter NAME (…):` with a `clock` line", step.span)
            return
        counted = "turns" if step.kind == "turn" else "rounds"
        capped = self.cap_code(step, env, counted)
        for ending in ENDINGS:
            self.schema.fields.setdefault(ending, ["time", counted])
            self.schema.record(ending, "time", NUM)
            self.schema.record(ending, counted, INT)
        where = self.scope.span_ref(step.span)
        periods = self.tick_periods(step, env, depth)  # compiler/clock_ticks.py
        period = periods[0] if periods and step.kind == "turn" else "None"
        if step.afterwards:  # `afterwards:` steps run however the loop ends
            self.line(depth, "try:")
            depth += 1
        self.line(depth, "_head = _ctx.head")
        self.line(depth, f"for _pass in _ctx.passes({where}, {capped}, _ctx.resumed"
                         f"{cost(step.body)}):")
        inner = depth + 1
        self._head(step, env, periods, inner)
        made = "_sched.turns" if step.kind == "turn" else "_pass + 1"
        ending = f"{{'time': v_now, {counted!r}: {made}}}"
        if step.kind == "turn":
            self.line(inner, f"_turn = _sched.next({where}, {step.var!r}, {period})")
            # Ticks of the clock (compiler/clock_ticks.py) and events (runtime/clock_events.py)
            # due first: not turns, no pass used; `ends when` is tested after each.
            self.line(inner, "while _turn is not None and _turn[0] is None:")
            self.line(inner + 1, "v_now = _turn[1]")
            self.line(inner + 1, "if len(_turn) == 3:")
            self.line(inner + 2, "_sched.run_event(_turn[2])")
            if periods:
                self.line(inner + 1, "else:")
                self.tick_bodies(step, env, inner + 2)
            self.ends_after_tick(step, env, ending, inner + 1)
            self.line(inner + 1, f"_turn = _sched.next({where}, {step.var!r}, {period})")
            self.line(inner, "if _turn is None:")
            self.line(inner + 1, f"_ctx.finish({where}, 'idle', {ending})")
            self._own_name(step, env)
            party = self.emit.sides.party if self.emit.sides is not None else None
            env[step.var] = (f"v_{step.var}", party or self._party_type(env))
            self.line(inner, f"v_{step.var}, v_now = _turn")
        else:
            self.line(inner, f"_ctx.within({where}, 'rounds', _pass, _pass + 1)")
            self.line(inner, "v_round = v_now = _sched.now = _ctx.now = _sched.rounds = _pass + 1")
            self.line(inner, "_ctx.whole_rounds = True")
            self.line(inner, f"_ran = _sched.run_due({where})")  # events due by this round first
            self.line(inner, f"_ctx.let({where}, 'round', v_round)")
            env["round"] = ("v_round", INT)
            self.line(inner, "if _ran:")  # an event at the round's start may end the fight
            self.ends_after_tick(step, last_played(env), ending, inner + 1)
            self.line(inner + 1, "pass")
            self.round_ticks(step, env, periods, inner, True, ending)  # `before turns`
        self.steps(step.body, env, inner)
        inner = depth + 1
        if step.kind == "round":  # at the end of every Nth round
            self.round_ticks(step, env, periods, inner, before=False)
        test, _ = self.condition(step.ends, env)
        settled = "_sched.settled() and " if step.kind == "turn" else ""
        self.line(inner, f"if {settled}_ctx.until({where}, {self.text(step.ends.span)!r}, "
                         f"{test}):")
        self.line(inner + 1, f"_ctx.finish({where}, 'ended', {ending})")
        self.line(depth, "else:")
        self.line(inner, f"_ctx.finish({where}, 'capped', {ending})")
        if step.afterwards:
            self.afterwards_steps(step, env, depth - 1)

    def cap_code(self: Any, step: s.EncounterLoop, env: Env, counted: str) -> str:
        """The cap as code: `at most N turns`, or None for `no cap` (the runtime bounds such
        a run by the work budget, and exact odds sum its repeats: runtime/fight_chain.py)."""
        if step.cap is None:
            return "None"
        cap, ct = self.expr(step.cap, env)
        if ct.kind not in ("int", "any"):
            self.scope.error(RuleTypeError, f"the cap of an encounter is a whole number of "
                             f"{step.unit}, not {ct}", step.cap.span)
        if step.unit != counted:
            self.scope.error(RuleTypeError, f"this encounter goes by {counted}: write `at most "
                             f"N {counted}` (or `no cap`)", step.span)
        return str(self.emit.cast(cap, ct, "int", step.cap))

    def _own_name(self: Any, step: s.EncounterLoop, env: Env) -> None:
        """`turn NAME:` binds the party whose turn it is to a name of its own: `now` is the
        time, and rebinding a party or value (`turn a:`) would lose it, as `for each` would."""
        if step.var == "now":
            self.scope.error(RuleTypeError, "now is the encounter's time: the party whose turn "
                             "it is needs a name of its own (`turn f:`)", step.span)
        elif step.var in env:
            self.scope.error(RuleTypeError, f"{step.var} is already a name here: the party "
                             "whose turn it is needs a name of its own (`turn f:`)", step.span)

    def _head(self: Any, step: s.EncounterLoop, env: Env, periods: list[str],
              depth: int) -> None:
        """At the head of each pass, exact odds of the fight (runtime/fight_odds.py) take the
        values the rest of it may read — each value bound so far that the loop names (or a
        policy answering a choice in it), `now`, the period of `every` — to merge the runs
        that agree on them, or to put a run into a state merged."""
        read = _names_in((step.body, step.ends, step.every, step.ticks, step.afterwards),
                         self.scope.policies)
        names = [code for name, (code, _) in env.items() if code.startswith("v_") and
                 code.isidentifier() and (name in read or name == "now")]
        names += periods
        # `now` first: a fight keyed without its time (runtime/fight_chain.py) skips it.
        names = list(dict.fromkeys(["v_now"] + names))
        held = ", ".join(names) + ","
        self.line(depth, "if _head is not None:")
        self.line(depth + 1, f"{held} = _head({self.encounter_name!r}, _pass, _sched, "
                             f"({held}))")

    @staticmethod
    def _party_type(env: Env) -> T:
        """The turn's party: a combatant of the model the encounter's parties are."""
        for _, t in env.values():
            if t.kind == "combatant":
                return t
            if t.kind == "list" and t.item is not None and t.item.kind == "combatant":
                return t.item
        return T("combatant")


def _names_in(node: Any, policies: dict[str, Any]) -> set[str]:
    """Every name the steps may read — a superset: each text of their syntax, and of each
    policy line answering a choice among them."""
    found: set[str] = set()
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, tuple):
            todo.extend(item)
        elif attrs.has(type(item)):
            if isinstance(item, s.ChooseStep):
                todo.extend(line.value for decl in policies.values() for line in decl.lines
                            if line.choice == item.name)
            todo.extend(getattr(item, f.name) for f in attrs.fields(type(item))
                        if f.name != "span")
    return found


__all__ = ["ENDINGS", "EncounterSteps"]
