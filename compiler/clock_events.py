"""Back end 1, events on the clock: labelled actions, events, cancelling, raising, triggers.

`after T as NAME:` and `on EVENT by p:` hold steps that run later, when the clock gets there
or when a party's event happens: each is written as a function of its own inside the procedure
(`_event_3(_ctx, _sched, v_now, …)`), whose parameters are the values its steps read, handed
over when it is scheduled (or set up) — so it reads them as they were then, and a fight's
exact odds can key and put back a pending event with what it holds (runtime/clock_events.py).
"""

from __future__ import annotations

from typing import Any

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError

from .encounters import _names_in
from .expressions import Env
from .types import CLOCK, T

_NAME_OR_NONE = T("name").or_none()


class ClockEventSteps:
    """Generates `after … as NAME:`, `cancel`, `raise`, `on EVENT by p:` and labelled `act`."""

    events_made = 0  # numbers the functions of events and triggers in the module (per writer)

    def clock_event_visitors(self: Any) -> dict[type, Any]:
        return {s.EventStep: self.visit_EventStep, s.CancelStep: self.visit_CancelStep,
                s.RaiseStep: self.visit_RaiseStep, s.TriggerStep: self.visit_TriggerStep}

    def labelled_act(self: Any, step: s.ScheduleStep, env: Env, depth: int, who: str,
                     time: str) -> None:
        """`act f after T as "Walk" [on lane L]`: the label is a name, read by action(f)."""
        code, t = self.expr(step.label, env)
        if t.kind not in ("name", "any"):
            self.scope.error(RuleTypeError, f"an action is labelled by a name (\"Walk\"), not "
                             f"{t}", step.label.span)
        self.line(depth, f"_ev_act(_ctx, {who}, {time}, {step.mode == 'after'}, {code}, "
                         f"{step.lane!r})")

    after_the_loop = False  # writing an encounter's `afterwards:` steps

    def visit_EventStep(self: Any, step: s.EventStep, env: Env, depth: int) -> None:
        if self.after_the_loop:
            self.scope.error(RuleTypeError, "the fight is over when `afterwards:` runs: an "
                             "event scheduled there never comes", step.span)
        code = self.time_code(step.after, step.unit, env, "an event comes after")  # `1 second`
        party = "None"
        if step.party is not None:
            party = self._event_party(step.party, step.span, env)
        self._no_ending(step.body, "an event")
        fn, captured = self._event_function(step.body, env, depth, ())
        where = self.scope.span_ref(step.span)
        self.line(depth, f"_ev_after(_ctx, {where}, {step.name!r}, {code}, {fn}, ({captured}), "
                         f"{party})")

    def visit_TriggerStep(self: Any, step: s.TriggerStep, env: Env, depth: int) -> None:
        if self.encounter is None or depth != 1:
            self.scope.error(RuleTypeError, "a rule firing on an event (`on … by p:`) is set up "
                             "by an encounter: write it among the encounter's steps before its "
                             "loop", step.span)
            return
        what, label = "None", ""
        if step.kind == "changed":
            fields = sorted({f.name for m in self.scope.models.values() for f in m.fields
                             if f.role == "state"})
            if step.what not in fields:
                self.scope.unknown("state (`on changed FIELD` names a state of the combatants)",
                                   step.what, step.span, fields)
            # `on entered` is `on changed at` (as the formatter writes it back): said so
            what, label = repr(step.what), \
                "on entered" if step.what == "at" else f"on changed {step.what}"
        elif step.kind == "given":
            code, t = self.expr(step.what, env)
            if t.kind not in ("name", "any"):
                self.scope.error(RuleTypeError, f"a condition is named (\"Stunned\"), not {t}",
                                 step.what.span)
            what, label = code, f"on given {self.text(step.what.span)}"
        else:
            raised = _raised(self.scope.procedures.values())
            if step.what not in raised:
                self.scope.unknown("event (no step raises it: `raise \"…\" for PARTY`)",
                                   step.what, step.span, sorted(raised))
            what, label = repr(step.what), f"on {step.what}"
        if step.party in env:
            self.scope.error(RuleTypeError, f"{step.party} is already a name here: the party "
                             "whose event it is needs a name of its own", step.span)
        self._no_ending(step.body, "a rule firing on an event")
        party_type = self._party_type(env)
        fn, captured = self._event_function(step.body, env, depth, ((step.party, party_type),))
        where = self.scope.span_ref(step.span)
        self.line(depth, f"_ev_on(_ctx, {where}, {step.kind!r}, {what}, {fn}, ({captured}), "
                         f"{label!r})")

    def visit_CancelStep(self: Any, step: s.CancelStep, env: Env, depth: int) -> None:
        """`cancel f` (what a party has under way) or `cancel arrow` (an event by its name)."""
        where = self.scope.span_ref(step.span)
        found = env.get(step.target)
        if found is not None and found[1].kind == "combatant":
            self.line(depth, f"_ev_cancel_party(_ctx, {where}, {step.target!r}, {found[0]})")
            return
        events = _events(self.scope.procedures.values())
        if step.target not in events:
            parties = [n for n, (_, t) in env.items() if t.kind == "combatant"]
            self.scope.unknown("event or party to cancel", step.target, step.span,
                               sorted(events) + parties)
            return
        self.line(depth, f"_ev_cancel(_ctx, {where}, {step.target!r})")

    def visit_RaiseStep(self: Any, step: s.RaiseStep, env: Env, depth: int) -> None:
        """`raise "Parried" for defender`: an event the rules set up with `on` fire on."""
        who = self._event_party(step.party, step.span, env)
        where = self.scope.span_ref(step.span)
        self.line(depth, f"_ev_raise(_ctx, {where}, {step.event!r}, {step.party!r}, {who})")

    # ---- helpers -------------------------------------------------------------------------
    def _event_party(self: Any, name: str, span: Any, env: Env) -> str:
        found = env.get(name)
        if found is None or found[1].kind != "combatant":
            self.scope.unknown("party", name, span,
                               [n for n, (_, t) in env.items() if t.kind == "combatant"])
            return "None"
        return str(found[0])

    def _no_ending(self: Any, body: tuple[Any, ...], what: str) -> None:
        for inner in s.all_steps(body):
            if isinstance(inner, s.OutcomeStep):
                self.scope.error(RuleTypeError, f"{what} runs on the clock, apart from the "
                                 "steps that scheduled it: it cannot end the procedure (`ends "
                                 "when` can test what it changes)", inner.span)
            elif isinstance(inner, s.TriggerStep):
                self.scope.error(RuleTypeError, f"{what} cannot set up a rule firing on an "
                                 "event: write it among the encounter's first steps",
                                 inner.span)

    def _event_function(self: Any, body: tuple[Any, ...], env: Env, depth: int,
                        own: tuple[tuple[str, T], ...]) -> tuple[str, str]:
        """The steps as a function of their own, and the values handed to it: each value the
        steps name, as it is now."""
        self.events_made += 1
        fn = f"_event_{self.events_made}"
        read = _names_in(body, self.scope.policies)
        captured = [(n, code) for n, (code, _) in env.items()
                    if n in read and n != "now" and code.startswith("v_")
                    and code.isidentifier()]
        inner: Env = {n: v for n, v in env.items() if not v[0].startswith("v_")}
        inner.update((n, env[n]) for n, _ in captured)
        inner.update((n, (f"v_{n}", t)) for n, t in own)
        inner["now"] = ("v_now", CLOCK)
        params = "".join(f", v_{n}" for n, _ in own) + "".join(f", {c}" for _, c in captured)
        self.line(depth, f"def {fn}(_ctx, _sched, v_now{params}):")
        self.line(depth + 1, "_values, _trace = _ctx.values, _ctx.trace.append")
        from .codegen import _bound_names  # the writer's own module: imported when it runs

        fresh = [n for n in dict.fromkeys(_bound_names(body)) if n not in inner]
        if fresh:
            self.line(depth + 1, " = ".join(f"v_{n}" for n in fresh) + " = None")
        unset = set(self.unset)
        try:
            self.steps(body, inner, depth + 1)
        finally:
            self.unset = unset
        self.line(depth + 1, "return None")
        return fn, "".join(f"{c}, " for _, c in captured)


def action_call(emitter: Any, node: s.Call, args: list[tuple[str, T]]) -> tuple[str, T] | None:
    """`action(f)`, `action(f, "move")` (a lane's), `last_action(f)`: labels of actions."""
    name = node.name
    wanted = 1 if name == "last_action" else (1, 2)
    if len(args) not in ((wanted,) if isinstance(wanted, int) else wanted):
        return None
    who, wt = args[0]
    if wt.kind not in ("combatant", "any"):
        return emitter._bad(f"{name}(party) asks of a combatant, not {wt}", node.args[0])
    if name == "last_action":
        return f"_ev_last_action(_ctx, {who})", _NAME_OR_NONE
    lane = "None"
    if len(args) == 2:
        if not isinstance(node.args[1], s.String):
            return emitter._bad("a lane is named as written in `on lane NAME`, in quotes: "
                                "action(f, \"move\")", node.args[1])
        lane = repr(node.args[1].value)
    return f"_ev_action(_ctx, {who}, {lane})", _NAME_OR_NONE


def check_labels(scope: Any, decls: Any) -> None:
    """A label read (`action(f) == "Atacking"`) is one some `act … as "…"` writes: a misspelt
    label would never match, silently."""
    import difflib

    from .order import node_parts

    labels: set[str] = set()
    for decl in decls:
        for step in s.all_steps(getattr(decl, "steps", ())):
            if isinstance(step, s.ScheduleStep) and step.label is not None:
                if not isinstance(step.label, s.String):
                    return  # a label worked out when the rule runs: any may come
                labels.add(step.label.value)
    todo: list[Any] = list(decls)
    while todo:
        node = todo.pop()
        if isinstance(node, tuple):
            todo.extend(node)
        elif isinstance(node, s.Binary) and node.op in ("==", "!="):
            for read, text in ((node.left, node.right), (node.right, node.left)):
                if isinstance(read, s.Call) and read.name in ("action", "last_action") and \
                        isinstance(text, s.String) and text.value not in labels:
                    close = difflib.get_close_matches(text.value, sorted(labels), n=1)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    known = ", ".join(sorted(labels)) or "none"
                    scope.error(RuleTypeError, f"no action is labelled {text.value!r} (`act … "
                                f"as \"…\"` labels: {known}){hint}", text.span)
            todo.extend((node.left, node.right))
        else:
            todo.extend(getattr(node, name) for name in node_parts(type(node)))


def uses_events(decl: s.ProcedureDecl) -> bool:
    """Whether a procedure schedules, cancels or raises events: its odds walk the paths."""
    return any(isinstance(st, (s.EventStep, s.CancelStep, s.RaiseStep, s.TriggerStep))
               for st in s.all_steps(decl.steps))


def _raised(decls: Any) -> set[str]:
    return {st.event for d in decls for st in s.all_steps(d.steps)
            if isinstance(st, s.RaiseStep)}


def _events(decls: Any) -> set[str]:
    return {st.name for d in decls for st in s.all_steps(d.steps)
            if isinstance(st, s.EventStep)}


__all__ = ["ClockEventSteps", "action_call", "check_labels", "uses_events"]
