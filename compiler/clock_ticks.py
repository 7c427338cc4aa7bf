"""Back end 1, the clock of an encounter (a Writer mixin): its `every` blocks — several, each
in any unit of the clock, before or after the turns due at the same time —, `ends when` tested
after a tick, the `afterwards:` steps once the loop has ended, and a round's order that its
parties may change (`take turns c in ORDER:` with `delay c until after d`, `delay c to the
end`, `ready c when COND`: d20's delay and ready).
"""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError

from .clock_units import duration, factor
from .expressions import Env
from .types import BOOL, NAME, is_number


class TickSteps:
    """Generates the ticks of a loop's `every` blocks, `afterwards:` and a round's order."""

    def tick_blocks(self: Any, step: s.EncounterLoop) -> tuple[s.Every, ...]:
        return ((step.every,) if step.every is not None else ()) + step.ticks

    def tick_periods(self: Any, step: s.EncounterLoop, env: Env, depth: int) -> list[str]:
        """Each `every` block's period in the clock's own unit, worked out once before the
        loop: one `_every` for a lone block ticking before the turns (as ever); else, on a
        clock of turns, one `_Ticks`; on a round clock, `_every`, `_every_2` …"""
        blocks = self.tick_blocks(step)
        if not blocks:
            return []
        codes = [self._one_period(step, block, env) for block in blocks]
        if step.kind == "turn" and (len(blocks) > 1 or blocks[0].order is not None):
            pairs = ", ".join(f"({code}, {block.order == 'after'}, "
                              f"{self.scope.span_ref(block.span)})"
                              for code, block in zip(codes, blocks))
            self.line(depth, f"_every = _Ticks.of(_ctx, {pairs})")
            return ["_every"]
        names = []
        for n, (code, block) in enumerate(zip(codes, blocks)):
            name = "_every" if n == 0 else f"_every_{n + 1}"
            self.line(depth, f"{name} = _ctx.period({self.scope.span_ref(block.span)}, {code})")
            names.append(name)
        return names

    def _one_period(self: Any, step: s.EncounterLoop, block: s.Every, env: Env) -> str:
        code, t = self.expr(block.period, env)
        rounds = step.kind == "round"
        wanted = self.encounter if not rounds else "rounds"
        if not (is_number(t) if not rounds else t.kind in ("int", "any")):
            kind = "whole number" if rounds else "number"
            self.scope.error(RuleTypeError, f"how often is a {kind} of {wanted}, not {t}",
                             block.period.span)
        code = self.emit.cast(code, t, "int" if rounds else "num", block.period)
        unit = s.TimeUnit(block.unit, block.unit_span or block.span)
        hint = f" (this encounter's clock counts {wanted}: write `every N {wanted}:`)" \
            if rounds else ""
        value = factor(self, unit, self.encounter, rounds, hint)
        if value is not None and rounds and not isinstance(value, int):
            self.scope.error(RuleTypeError, f"a {block.unit} is not a whole number of rounds",
                             unit.span)
        if value is None or value == 1:
            return code
        const = repr(value) if isinstance(value, int) else self.scope.constant("NUM_", value)
        return f"({code} * {const})"

    def tick_bodies(self: Any, step: s.EncounterLoop, env: Env, depth: int) -> None:
        """On a clock of turns, the steps of the block whose tick it is."""
        blocks = self.tick_blocks(step)
        if len(blocks) == 1:
            self.steps(blocks[0].body, dict(env), depth)
            return
        for n, block in enumerate(blocks):
            self.line(depth, f"{'if' if n == 0 else 'elif'} _sched.ticking == {n}:")
            self.steps(block.body, dict(env), depth + 1)

    def round_ticks(self: Any, step: s.EncounterLoop, env: Env, periods: list[str],
                    depth: int, before: bool, ending: str = "") -> None:
        """On a round clock: each block due this round, at its start (`before turns`: then
        `ends when` is tested after it) or at its end (the default)."""
        for block, period in zip(self.tick_blocks(step), periods):
            if (block.order == "before") == before:
                self.line(depth, f"if v_round % {period} == 0:")
                self.steps(block.body, dict(env), depth + 1)
                if before:
                    self.ends_after_tick(step, last_played(env), ending, depth + 1)

    def ends_after_tick(self: Any, step: s.EncounterLoop, env: Env, ending: str,
                        depth: int) -> None:
        """`ends when` tested after a tick or an event too (a fighter bleeding to death on the
        minute, an arrow that kills, ends the fight), once nothing more is due at that time —
        when it names only what is known before the turn."""
        if any(name not in env for name in free_names(step.ends)):
            return
        where = self.scope.span_ref(step.span)
        unset = set(self.unset)
        test, _ = self.condition(step.ends, env)
        self.unset = unset
        settled = "_sched.settled() and " if step.kind == "turn" else ""
        self.line(depth, f"if {settled}_ctx.until({where}, {self.text(step.ends.span)!r}, "
                         f"{test}):")
        self.line(depth + 1, f"_ctx.finish({where}, 'ended', {ending})")

    def afterwards_steps(self: Any, step: s.EncounterLoop, env: Env, depth: int) -> None:
        """`afterwards:` — steps once the loop has ended however it ended (`ending` is its
        name: ended, capped, idle); an `outcome` among them is the encounter's."""
        self.line(depth, "except _Finished as _ended:")
        inner = dict(env)
        inner["ending"] = ("v_ending", NAME)
        self.line(depth + 1, "v_ending = _ended.outcome.name")
        self.line(depth + 1, f"_ctx.let({self.scope.span_ref(step.span)}, 'ending', v_ending)")
        self.after_the_loop = True  # an event scheduled here never comes (compiler/clock_events)
        try:
            self.steps(step.afterwards, inner, depth + 1)
        finally:
            self.after_the_loop = False
        self.line(depth + 1, "raise")

    # -- a round's order ------------------------------------------------------------------
    def visit_TurnsStep(self: Any, step: s.TurnsStep, env: Env, depth: int) -> None:
        """`take turns c in ORDER:` — each party in the order, one at a time, its place open
        to `delay` and `ready` while the round is gone through."""
        if self.encounter is None or "round" not in env:
            self.scope.error(RuleTypeError, "take turns is a round's order: write it in an "
                             "encounter's `each round:`", step.span)
            return
        code, t = self.expr(step.order, env)
        if t.kind not in ("list", "any") or (t.item is not None and
                                             t.item.kind not in ("combatant", "any")):
            self.scope.error(RuleTypeError, f"take turns goes over a list of parties, not {t}",
                             step.order.span)
        if step.var in env:
            self.scope.error(RuleTypeError, f"{step.var} is already a name here: the party "
                             "whose turn it is needs a name of its own", step.span)
        where = self.scope.span_ref(step.span)
        order = f"_order_{step.span.line}"
        self.line(depth, f"{order} = _RoundOrder(_ctx, {where}, {step.var!r}, {code})")
        self.line(depth, f"for v_{step.var} in {order}:")
        inner = dict(env)
        item = t.item if t.item is not None and t.item.kind == "combatant" else \
            self._party_type(env)
        inner[step.var] = (f"v_{step.var}", item)
        inner["_round_order"] = (order, NAME)  # not a name a rule can write (`_` leads)
        self.steps(step.body, inner, depth + 1)

    def visit_RoundDelayStep(self: Any, step: s.RoundDelayStep, env: Env, depth: int) -> None:
        order = env.get("_round_order")
        if order is None:
            self.scope.error(RuleTypeError, "delay and ready put off a party's place in a "
                             "round's order: write them in `take turns c in ORDER:`", step.span)
            return
        parties = [n for n, (_, t) in env.items() if t.kind == "combatant"]
        party = env.get(step.party)
        if party is None or party[1].kind != "combatant":
            self.scope.unknown("party", step.party, step.span, parties)
            return
        where = self.scope.span_ref(step.span)
        head = f"{order[0]}.delay({where}, {step.party!r}, {party[0]}, {step.mode!r}"
        if step.mode == "after":
            other = env.get(step.other or "")
            if other is None or other[1].kind != "combatant":
                self.scope.unknown("party", step.other or "", step.span, parties)
                return
            self.line(depth, f"{head}, {other[0]})")
        elif step.mode == "ready":
            test, _ = self.condition(step.condition, env)
            self.line(depth, f"{head}, None, lambda: {test})")
        else:
            self.line(depth, f"{head})")


def waited_call(emitter: Any, node: s.Call, env: Env) -> tuple[str, Any]:
    """`waited(c)`: whether c has put off its action this round (delayed, or readied and
    triggered) — so the steps of its action, when it comes back, take it rather than wait
    again."""
    if len(node.args) != 1 or node.named:
        return emitter._bad("waited takes one party: waited(c)", node)
    who, wt = emitter.expr(node.args[0], env)
    if wt.kind not in ("combatant", "any"):
        return emitter._bad(f"waited(party) asks of a combatant, not {wt}", node.args[0])
    return f"{env['_round_order'][0]}.waited({who})", BOOL


def free_names(node: object) -> set[str]:
    """The names an expression reads from outside it: those of `… for c in party` (a list
    filter, an aggregate) are its own."""
    from .order import names_used

    bound = {n.var for n in _nodes(node) if isinstance(n, s.Aggregate)}
    return {name for name, _ in names_used(node, calls=False)} - bound


def _nodes(node: object) -> list[object]:
    """Every node of an expression, itself first."""
    found: list[object] = [node]
    if attrs.has(type(node)):
        for field in attrs.fields(type(node)):  # type: ignore[arg-type]
            if field.name == "span":
                continue
            value = getattr(node, field.name)
            for item in value if isinstance(value, tuple) else (value,):
                for inner in item if isinstance(item, tuple) else (item,):
                    if attrs.has(type(inner)):
                        found += _nodes(inner)
    return found


def last_played(env: Env) -> Env:
    """At a round's start, before it is played, `ends when` reads `round` as the round last
    played: `ends when round == 2` ends the fight after round 2, not before it."""
    return {**env, "round": ("(v_round - 1)", env["round"][1])} if "round" in env else env


def duration_code(writer: Any, code: str, t: Any, unit: s.TimeUnit | None) -> tuple[str, Any]:
    """A time written with a unit, in the encounter's clock (or the rulebook's one clock)."""
    return duration(writer, code, t, unit, writer.encounter)


def loop_blocks(writer: Any, node: s.EncounterLoop, step: Any) -> tuple[Any, ...]:
    """The compiled steps' blocks of a loop besides its body: each `every`, `afterwards`."""
    blocks = tuple((f"every {writer.text(b.period.span)} {b.unit}" +
                    (f" {b.order} turns" if b.order else ""), tuple(step(x) for x in b.body))
                   for b in ((node.every,) if node.every else ()) + node.ticks)
    if node.afterwards:
        blocks += (("afterwards", tuple(step(x) for x in node.afterwards)),)
    return blocks


__all__ = ["TickSteps", "duration_code", "last_played", "loop_blocks", "waited_call"]
