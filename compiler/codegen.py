"""Back end 1: write readable Python for formulas, derived figures, procedures and cells."""

from __future__ import annotations

import ast
import builtins
import keyword
import os
import re
from collections.abc import Callable
from typing import Any

from rulecraft.dsl import syntax as s
from rulecraft.runtime.combatants import check_value
from rulecraft.runtime.errors import RuleTypeError, RulecraftError, Span

from .examples import ExampleSteps
from .clock_events import ClockEventSteps
from .clock_ticks import TickSteps
from .encounters import ENDINGS, EncounterSteps
from .expressions import Emitter, Env
from .local_names import local_order
from .order import names_used, nodes_in
from .outcomes import Schema
from .referee import RefereeSteps
from .scope import Scope, cost
from .sides import narrowed
from .types import ANY, CLOCK, INT, NUM, T, accepts, is_collection, join


class Writer(EncounterSteps, ClockEventSteps, RefereeSteps, TickSteps, ExampleSteps):
    """Accumulates generated source; every statement is preceded by the rule line it comes from."""

    # Whether `let` and `if` steps write their value and trace entry straight into the run's
    # `_values` and `_trace` (the run form, `procedure`: no call per step) or call `_ctx.let`
    # and `_ctx.branch` (the stepper's segments, whose ExactContext keeps neither).
    direct = False
    # Procedures calling each other in a circle, down to a bound (compiler/recursion.py): their
    # calls count how deep they go when the rule runs.
    circles: frozenset[str] = frozenset()

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.emit = Emitter(scope)
        self.lines: list[str] = []
        self.bodies: dict[str, str] = {}  # formula name -> its expression's Python
        self.local_lines: dict[str, list[str]] = {}  # formula name -> its `where` names' Python
        self._dispatch: dict[type, Callable[[Any, Env, int], None]] = {
            s.RollStep: self.visit_RollStep, s.LetStep: self.visit_LetStep,
            s.ChooseStep: self.visit_ChooseStep, s.IfStep: self.visit_IfStep,
            s.ChangeStep: self.visit_ChangeStep, s.OutcomeStep: self.visit_OutcomeStep,
            s.CallStep: self.visit_CallStep, s.ForStep: self.visit_ForStep,
            s.RepeatStep: self.visit_RepeatStep, s.NamedStep: self.visit_NamedStep,
            s.ScheduleStep: self.visit_ScheduleStep, s.EncounterLoop: self.visit_EncounterLoop,
            s.ConditionStep: self.visit_ConditionStep,
            **self.clock_event_visitors(),
            s.RulingStep: self.visit_RulingStep, s.RevealStep: self.visit_RevealStep,
            s.TurnsStep: self.visit_TurnsStep, s.RoundDelayStep: self.visit_RoundDelayStep,
            s.ExpectStep: self.visit_ExpectStep,
        }
        # Names some path to the current step did not set (definite assignment).
        self.unset: set[str] = set()
        self.schema = Schema("", False)
        self.loops = 0  # numbers the loop counters of one procedure

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def origin(self, depth: int, span: Span) -> None:
        """A comment naming the rule line a statement comes from (one line, whatever the text)."""
        text = self.text(span).split("\n")[0].strip()
        if len(text) > 80:
            text = text[:77] + "..."
        comment = f"# {span.filename}:{span.line}: {text}"
        if not comment.isprintable():
            comment = "".join(c if c.isprintable() else " " for c in comment)
        self.line(depth, comment)

    def text(self, span: Span) -> str:
        """The rule text a span covers, as the author wrote it."""
        return self.scope.text(span)

    # -- formulas --------------------------------------------------------------------------
    def formula(self, decl: s.FormulaDecl, params: list[tuple[str, T]],
                checks: list[tuple[str, str, str]]) -> T:
        """`f_NAME`: the formula on exact values, its arguments checked against their ranges."""
        env: Env = {name: (f"v_{name}", t) for name, t in params}
        local_lines = self._locals(decl, env)
        code, result = self.emit.expr(decl.body, env)
        if result.kind in ("table", "combatant"):
            self.scope.error(RuleTypeError, f"a formula gives a value, not {result}: look "
                             "something up in it", decl.body.span)
        args = ", ".join(f"v_{name}" for name, _ in params)
        self.line(0, f"def f_{decl.name}({args}):")
        self.origin(1, decl.span)
        self._checks(checks, only_fast=True)
        for line in local_lines:
            self.line(1, line)
        self.line(1, f"return {code}")
        self.line(0, "")
        self.bodies[decl.name] = code
        self.local_lines[decl.name] = local_lines
        return result

    def _locals(self, decl: s.FormulaDecl, env: Env) -> list[str]:
        """A formula's `where` names, each worked out once, in the order they read each other
        (added to `env`); the Python lines that set them."""
        written, in_circle = local_order(decl, self.scope)
        env.update((name, ("None", ANY)) for name in in_circle)  # reported once, at the circle
        lines = []
        for local in written:
            code, t = self.emit.expr(local.value, env)
            if t.kind in ("table", "combatant"):
                self.scope.error(RuleTypeError, f"a local name holds a value, not {t}: look "
                                 "something up in it", local.value.span)
            env[local.name] = (f"w_{local.name}", t)
            lines.append(f"w_{local.name} = {code}")
        return lines

    def _checks(self, checks: list[tuple[str, str, str]], only_fast: bool = False) -> None:
        for name, fast_ok, param_ref in checks:
            if only_fast and fast_ok == "False":
                continue  # maps and lists are checked where Python hands them in
            self.line(1, f"if not ({fast_ok}):")
            self.line(2, f"v_{name} = _check({param_ref}, v_{name})")

    def public_formula(self, decl: s.FormulaDecl, checks: list[tuple[str, str, str]],
                       defaults: dict[str, str]) -> None:
        """`pub_NAME`, what Python callers call: arguments by name or position, checked against
        their declared ranges; exact arithmetic inside, plain values out; a call that does not
        fit or a calculation with no answer is a rule error, never a Python exception."""
        names = [name for name, _, _ in checks]
        safe = [n for n in names if _plain_keyword(n)]
        signature = "".join(f", {n}=_MISSING" for n in safe)
        self.line(0, f"def pub_{decl.name}(*_args{signature}, **_names):")
        self.line(1, repr(f"{decl.title or decl.name} ({decl.span})."))
        where = self.scope.span_ref(decl.span)
        if names:
            given = ", ".join(n if n in safe else "_MISSING" for n in names)
            targets = ", ".join(f"v_{n}" for n in names)
            self.line(1, f"{targets}, = {given},")
            self.line(1, "if _args or _names:")
            self.line(2, f"{targets}, = _bind({where}, {decl.name!r}, _args, _names, "
                         f"{tuple(names)!r}, ({targets},))")
        else:
            self.line(1, "if _args or _names:")
            self.line(2, f"_bind({where}, {decl.name!r}, _args, _names, (), ())")
        for name, code in defaults.items():
            self.line(1, f"if v_{name} is _MISSING:")
            self.line(2, f"v_{name} = {code}")
        self._checks(checks)
        # The body again rather than a call of f_{name}: one frame less on every call.
        self.origin(1, decl.span)
        self.line(1, "try:")
        for line in self.local_lines.get(decl.name, ()):
            self.line(2, line)
        self.line(2, f"return _public({self.bodies[decl.name]})")
        self.line(1, "except _ARITHMETIC as _error:")
        self.line(2, f"_arithmetic(_error, {where})")
        self.line(0, "")

    # -- combatant -------------------------------------------------------------------------
    def derive(self, fields: list[s.FieldDecl], env: Env, types: dict[str, T],
               name: str = "derive", model: s.CombatantDecl | None = None) -> dict[str, str]:
        """A function per derived figure (`d_anti_parry(v)`, reading the combatant's values
        `v`), then `derive(v)` computing them all in dependency order. A fight recomputes only
        the figures downstream of a changed field, one by one (runtime/combatants.py).
        Returns each figure's function name."""
        prefix = "d_" if name == "derive" else f"d{name.removeprefix('derive_')}_"
        functions = {}
        for f in fields:
            assert f.value is not None
            functions[f.name] = f"{prefix}{f.name}"
            self.line(0, f"def {functions[f.name]}(v):")
            self.origin(1, f.span)
            code, t = self.emit.expr(f.value, env)
            self.line(1, f"return {code}")
            self.line(0, "")
            env[f.name] = (f"v[{f.name!r}]", t)
            types[f.name] = t
        self.line(0, f"def {name}(v):")
        self.line(1, '"""Compute the derived figures of a combatant, in dependency order."""')
        if model is not None:
            self.origin(1, model.span)
        for f in fields:
            self.line(1, f"v[{f.name!r}] = {functions[f.name]}(v)")
        self.line(1, "return v")
        self.line(0, "")
        return functions

    # -- table cells -----------------------------------------------------------------------
    def cell(self, number: int, expr: s.Expr, given: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """A function for an `= expression` cell, taking the table's given names it uses."""
        used = {n for n, _ in names_used(expr)}
        params = tuple(g for g in given if g in used)
        env: Env = {g: (f"v_{g}", ANY) for g in given}
        code, _ = self.emit.expr(expr, env)
        name = f"cell_{number}"
        self.line(0, f"def {name}({', '.join(f'v_{g}' for g in params)}):")
        self.origin(1, expr.span)
        self.line(1, f"return {code}")
        self.line(0, "")
        return name, params

    # -- procedures ------------------------------------------------------------------------
    def procedure(self, decl: s.ProcedureDecl, params: list[tuple[str, T]]) -> list[str]:
        env: Env = {name: (f"v_{name}", t) for name, t in params}
        self.procedure_name = decl.name
        self.param_names = frozenset(name for name, _ in params)
        self.choices: list[str] = []
        self.unset = set()
        self.loops = 0
        self.schema = self._schema(decl)
        self.scope.schemas[decl.name] = self.schema
        self.start_referee(decl)
        args = "".join(f", v_{name}" for name, _ in params)
        self.line(0, f"def p_{decl.name}(_ctx{args}):")
        self.origin(1, decl.span)
        nested = [n for step in decl.steps for block in _blocks(step)
                  for n in _bound_names(block)]
        bound = [n for n in dict.fromkeys(nested) if n not in env]
        if bound:
            # Every name a step in a block binds exists from the start, so a value computed in
            # one branch reads as none in the others instead of failing. (A name bound only
            # outside blocks is set before any step can read it.)
            self.line(1, " = ".join(f"v_{n}" for n in bound) + " = None")
        # This procedure's values (a call gives the callee a frame of its own) and the run's
        # trace, which `let` and `if` steps write to directly.
        self.line(1, "_values, _trace = _ctx.values, _ctx.trace.append")
        self.start_encounter(decl, env)
        self.direct = True
        self.emit.in_steps = True  # a combatant may be written out here (compiler/literals.py)
        try:
            self.steps(decl.steps, env, 1)
        finally:
            self.direct = False
            self.emit.in_steps = False
        if not _ends(decl.steps):
            self.scope.error(RuleTypeError, f"procedure {decl.name} can finish without an "
                             "outcome: end every branch with `outcome …`", decl.span)
        if self.schema.declared:
            used = {st.name for st in _outcome_steps(decl.steps)}
            for name, span in self.schema.spans.items():
                if name not in used and not (decl.clock and name in ENDINGS):
                    self.scope.error(RuleTypeError, f"outcome {name} is declared but no step "
                                     "ends in it", span)
        self.line(0, "")
        return self.choices

    def _schema(self, decl: s.ProcedureDecl) -> Schema:
        """The declared schema, checked; or one read off the outcome steps."""
        schema = Schema.declared_by(decl)
        if schema.declared:
            seen: set[str] = set()
            for spec in decl.outcomes:
                key = spec.name or " all"
                if key in seen:
                    self.scope.error(RuleTypeError, f"outcome {spec.name or 'all'} is declared "
                                     "twice", spec.span)
                seen.add(key)
            if not schema.fields:
                self.scope.error(RuleTypeError, "outcomes: lists at least one outcome by name",
                                 decl.outcomes[0].span)
            shared = [f for spec in decl.outcomes if spec.name is None for f in spec.fields]
            for step in _outcome_steps(decl.steps):
                if step.ruling is not None:  # the referee's call: no need to declare it
                    schema.fields.setdefault(step.name, list(shared))
                    schema.spans.setdefault(step.name, step.span)
            return schema
        for step in _outcome_steps(decl.steps):
            names = schema.fields.setdefault(step.name, [])
            if step.ruling is not None:
                continue  # the referee's call carries nothing
            schema.titles.setdefault(step.name, step.title)
            schema.spans.setdefault(step.name, step.span)
            names.extend(a.name for a in step.values if a.name not in names)
        return schema

    def expr(self, node: s.Expr, env: Env) -> tuple[str, T]:
        """An expression of a procedure: every name it reads is set on every path to it."""
        self._check_set(node, env)
        return self.emit.expr(node, env)

    def condition(self, node: s.Expr, env: Env) -> tuple[str, T]:
        self._check_set(node, env)
        return self.emit.condition(node, env)

    def _check_set(self, node: s.Expr, env: Env) -> None:
        if not self.unset:
            return
        local = {a.var for a in nodes_in(node) if isinstance(a, s.Aggregate)}
        for name, used in names_used(node, calls=False):
            if name in self.unset and name in env and name not in local:
                self.scope.error(RuleTypeError, f"{name} is not set on every path to here: set "
                                 f"it before the `if` or loop that sets it (`let {name} = none` "
                                 "if it may have no value)", used.span)
                self.unset.discard(name)  # one error per name

    def steps(self, steps: tuple[Any, ...], env: Env, depth: int) -> None:
        for i, step in enumerate(steps):
            if i and isinstance(steps[i - 1], s.OutcomeStep):
                self.scope.error(RuleTypeError, "this step is never reached: the outcome above "
                                 "ends the procedure", step.span)
            self.origin(depth, step.span)
            handler = self._dispatch.get(type(step))
            if handler is None:
                raise AssertionError(f"no code generator for {type(step).__name__}")
            handler(step, env, depth)

    def _bind(self, env: Env, name: str, t: T, span: Span) -> str:
        if name in env and not env[name][0].startswith("v_"):
            self.scope.error(RuleTypeError, f"{name} is already a parameter", span)
        old = env.get(name)
        if old is not None and join(old[1], t) is None:
            self.scope.error(RuleTypeError, f"{name} was {old[1]}; it cannot become {t}", span)
        env[name] = (f"v_{name}", t if old is None else (join(old[1].sure(), t) or ANY))
        self.unset.discard(name)  # set from here on, on this path
        return f"v_{name}"

    def visit_RollStep(self, step: s.RollStep, env: Env, depth: int) -> None:
        code, t = self.expr(step.dice, env)
        if t.kind not in ("dice", "int", "num", "any"):
            self.scope.error(RuleTypeError, f"roll needs dice, not {t}", step.dice.span)
        code = self.emit.cast(code, t, "dice", step.dice)
        var = self._bind(env, step.name, INT, step.span)
        where = self.scope.span_ref(step.span)
        self.line(depth, f"{var} = _ctx.roll({where}, {step.name!r}, {code})")

    def visit_LetStep(self, step: s.LetStep, env: Env, depth: int) -> None:
        code, t = self.expr(step.value, env)
        var = self._bind(env, step.name, t, step.span)
        where = self.scope.span_ref(step.span)
        if not self.direct:
            self.line(depth, f"{var} = _ctx.let({where}, {step.name!r}, {code})")
            return
        self.line(depth, f"{var} = _values[{step.name!r}] = {code}")
        other = self.rules_elsewhere(step.value, step.span)
        detail = f", {other!r}" if other else ""
        self.line(depth, f"_trace(('let', {step.name!r}, {var}, {where}{detail}))")

    def rules_elsewhere(self, node: s.Expr, span: Any) -> str:
        """The formulas an expression calls that another file wrote (a house file's, in a
        base's step), so the trace names the rule that gave the value: `uses damage_factor of
        house.rules:5`."""
        found = []
        for name, used in names_used(node):
            info = self.scope.formulas.get(name) if isinstance(used, s.Call) else None
            if info is not None and info.decl.span.filename != span.filename:
                where = f"{os.path.basename(info.decl.span.filename)}:{info.decl.span.line}"
                found.append(f"{name} of {where}")
        return "uses " + ", ".join(dict.fromkeys(found)) if found else ""

    def trace_branch(self, depth: int, where: str, condition: str) -> None:
        """The trace entry of the branch an `if` takes."""
        if self.direct:
            self.line(depth, f"_trace(('branch', {condition!r}, True, {where}))")
        else:
            self.line(depth, f"_ctx.branch({where}, {condition!r}, True)")

    def visit_ChooseStep(self, step: s.ChooseStep, env: Env, depth: int) -> None:
        who = self.choosing_party(step, env)
        options = step.options
        domain = self.scope.domain(options.name) if isinstance(options, s.Name) and \
            options.name not in env else None
        if domain is not None:
            code, item = self.scope.constant("OPTIONS_", domain.members), T("name", domain=domain)
        else:
            code, ot = self.expr(options, env)
            item = ot.item if ot.kind == "list" and ot.item else ANY
            if not is_collection(ot):
                hidden = self.scope.hides(options, env, self.param_names)
                self.scope.error(RuleTypeError, "choose … from needs a list, a map, a range or "
                                 f"an enum, not {ot}{hidden}", options.span)
        default, dt = self.expr(step.default, env)
        if isinstance(options, s.ListLit) and isinstance(step.default, s.String) and all(
                isinstance(o, s.String) for o in options.items) and \
                step.default.value not in [o.value for o in options.items]:
            self.scope.unknown("option", step.default.value, step.default.span,
                               [o.value for o in options.items])
        if not accepts(item, dt):
            self.scope.error(RuleTypeError, f"the default must be {item}, not {dt}",
                             step.default.span)
        self.emit.check_member(step.default, dt, item)
        default = self.emit.cast(default, dt, item.kind, step.default)
        default, answering = self._policies(step, env, item, default)
        extra = self.knowledge(step, env) + self.standing(step, item, who)
        if answering:  # so the trace says which policy chose, not "default"
            extra += f", policies={tuple(answering)!r}"
        self.record_choice(step, item)
        var = self._bind(env, step.name, item, step.span)
        where = self.scope.span_ref(step.span)
        self.choices.append(step.name)
        if step.secret:
            self.secrets[step.name] = step.party
        self.line(depth, f"{var} = _ctx.choose({where}, {step.name!r}, {step.party!r}, {code}, "
                         f"{default}{extra})")

    def _policies(self, step: s.ChooseStep, env: Env, item: T,
                  default: str) -> tuple[str, list[str]]:
        """The choice as each policy that answers it makes it (`_ctx.policy` names the policy
        of the run), else the step's own default; and the policies that answer it."""
        answering: list[str] = []
        for name, decl in reversed(self.scope.policies.items()):
            for line in decl.lines:
                if line.choice != step.name:
                    continue
                code, t = self.expr(line.value, env)
                self.check_seen(step, name, line.value, env)
                if not accepts(item, t):
                    self.scope.error(RuleTypeError, f"policy {name} answers {step.name} with "
                                     f"{t}; the choice takes {item}", line.value.span)
                self.emit.check_member(line.value, t, item)
                options = step.options
                if isinstance(options, s.ListLit) and isinstance(line.value, s.String) and all(
                        isinstance(o, s.String) for o in options.items) and \
                        line.value.value not in [o.value for o in options.items]:
                    self.scope.unknown("option", line.value.value, line.value.span,
                                       [o.value for o in options.items])
                code = self.emit.cast(code, t, item.kind, line.value)
                default = f"({code} if _ctx.policy == {name!r} else {default})"
                answering.append(name)
        return default, answering

    def visit_IfStep(self, step: s.IfStep, env: Env, depth: int) -> None:
        arms: list[tuple[Env, set[str]]] = []
        before = set(self.unset)
        rest = env  # past `if p is horse:`, each `else if` and the `else:` read p as the others
        for i, branch in enumerate(step.branches):
            test, _ = self.condition(branch.test, rest)
            self.line(depth, f"{'if' if i == 0 else 'elif'} {test}:")
            where = self.scope.span_ref(branch.span)
            self.trace_branch(depth + 1, where, self.text(branch.test.span))
            arms.append(self._narrowed_arm(branch.body, rest, branch.test, True, before, depth,
                                           env))
            rest = narrowed(rest, branch.test, False)[0]
        if step.otherwise is not None:
            self.line(depth, "else:")
            where = self.scope.span_ref(step.otherwise_span or step.span)
            self.trace_branch(depth + 1, where, "otherwise")
            arms.append(self._narrowed_arm(step.otherwise, rest, None, False, before, depth, env))
        else:
            arms.append((dict(env), set(before)))  # the path on which no branch is taken
        self._merge(env, arms, step.span)

    def _narrowed_arm(self, body: tuple[Any, ...], env: Env, test: Any, holds: bool,
                      before: set[str], depth: int, outer: Env) -> tuple[Env, set[str]]:
        """A branch of `if p is horse:` reads p as a horse (its `else:` as the other models);
        after the `if`, p is any of them again (as in `outer`, the env before the `if`)."""
        narrow, _ = narrowed(env, test, holds)
        arm, unset = self._arm(body, narrow, before, depth + 1)
        for name, was in outer.items():
            if narrow.get(name) is not was and arm.get(name, (None,))[0] == was[0]:
                arm[name] = was
        return arm, unset

    def _arm(self, body: tuple[Any, ...], env: Env, before: set[str],
             depth: int) -> tuple[Env, set[str]]:
        """One path through a block: its names and what it left unset."""
        self.unset = set(before)
        arm = dict(env)
        secrets = dict(self.secrets)
        self.steps(body, arm, depth)
        self.secrets = {**self.secrets, **secrets}  # a reveal in a branch holds only in it
        return arm, self.unset

    def _merge(self, env: Env, arms: list[tuple[Env, set[str]]], span: Span) -> None:
        """After paths join: a name bound on some paths only is readable where set, and reading
        it where some path did not set it is an error (`_check_set`)."""
        unset: set[str] = set()
        for arm, left in arms:
            unset |= left
            for name, (code, t) in arm.items():
                if name not in env:
                    env[name] = (code, t)
                elif env[name][1] != t:
                    joined = join(env[name][1], t)
                    if joined is None:
                        self.scope.error(RuleTypeError, f"{name} is {env[name][1]} in one branch "
                                         f"and {t} in another", span)
                    env[name] = (env[name][0], joined or ANY)
        for arm, _ in arms:
            unset |= {name for name in env if name not in arm}
        for name in unset:
            if name in env:
                env[name] = (env[name][0], env[name][1].or_none())
        self.unset = unset

    def visit_ChangeStep(self, step: s.ChangeStep, env: Env, depth: int) -> None:
        target = step.target
        party = env.get(target.party)
        if party is None or party[1].kind != "combatant":
            self.scope.unknown("party", target.party, target.span,
                               [n for n, (_, t) in env.items() if t.kind == "combatant"])
            return
        field = self._state_field(target, party[1].ref)
        keys = [self.expr(k, env) for k in target.index]
        value, vt = self.expr(step.value, env)
        if step.mode == "remove":
            self._removed_key(step, field, keys, vt)
        elif field is not None:
            ft = self.scope.resolve_type(field.type)
            for key_node, (_, kt) in zip(target.index, keys):
                if ft.kind != "map":
                    self.scope.error(RuleTypeError, f"{target.field} is not looked up by a key",
                                     key_node.span)
                    break
                self.emit.check_member(key_node, kt, ft.key)
                ft = ft.item or ANY
            wanted = ft.item if (step.mode == "add" and ft.kind == "list") else ft
            if step.mode == "add" and ft.kind not in ("int", "num", "list", "any"):
                self.scope.error(RuleTypeError, f"add works on numbers and lists; {target.field} "
                                 f"holds {ft}: use set", step.span)
            elif wanted is not None and not accepts(wanted, vt):
                self.scope.error(RuleTypeError, f"{target.field} holds {wanted}, not {vt}",
                                 step.value.span)
            if wanted is not None and vt == CLOCK and wanted.kind == "int":
                value = self.emit.whole_time(value, step.value,
                                             f"{target.field} holds a whole number")
            elif wanted is not None:
                self.emit.check_member(step.value, vt, wanted)
                value = self.emit.cast(value, vt, wanted.kind, step.value)
        index = "(" + "".join(k + ", " for k, _ in keys) + ")"
        where = self.scope.span_ref(step.span)
        # The party is a handle: every name bound to this combatant sees the change.
        self.line(depth, f"_ctx.change({where}, {target.party!r}, {party[0]}, {target.field!r}, "
                         f"{index}, {value}, {step.mode!r})")

    def _removed_key(self, step: s.ChangeStep, field: s.FieldDecl | None,
                     keys: list[tuple[str, T]], kt: T) -> None:
        """`remove KEY from f.wounds[…]`: the target must be a map, and KEY one of its keys."""
        if field is None:
            return
        ft = self.scope.resolve_type(field.type)
        for _ in keys:
            ft = (ft.item or ANY) if ft.kind == "map" else ANY
        if ft.kind != "map":
            self.scope.error(RuleTypeError, f"remove takes an entry out of a map; "
                             f"{step.target.field} holds {ft}", step.target.span)
            return
        if ft.key is not None and not accepts(ft.key, kt):
            self.scope.error(RuleTypeError, f"{step.target.field} is looked up by {ft.key}, "
                             f"not {kt}", step.value.span)
        self.emit.check_member(step.value, kt, ft.key)

    def _state_field(self, target: s.Target, model: str | None) -> s.FieldDecl | None:
        decl = self.scope.models.get(model or "", self.scope.combatant)
        fields = [f for f in decl.fields if f.role == "state"] if decl else []
        for f in fields:
            if f.name == target.field:
                return f
        other = next((f for f in decl.fields if f.name == target.field), None) if decl else None
        if other is not None and other.role == "derived":
            self.scope.error(RuleTypeError, f"{target.field} is a derived figure: it is worked "
                             "out from the combatant's characteristics and state, so change "
                             "those instead", target.span)
        elif other is not None:
            self.scope.error(RuleTypeError, f"{target.field} is a characteristic, given when the "
                             "combatant is made; only state fields change during a procedure",
                             target.span)
        else:
            self.scope.unknown("state field", target.field, target.span, [f.name for f in fields])
        return None

    def visit_OutcomeStep(self, step: s.OutcomeStep, env: Env, depth: int) -> None:
        schema = self.schema
        fields = schema.fields.get(step.name)
        if step.ruling is not None:  # the referee's call: recorded, then the end, carrying none
            self.ruling(step.ruling, step.span, depth)
            values = ", ".join(f"{name!r}: None" for name in fields or ())
            where = self.scope.span_ref(step.span)
            self.line(depth, f"return _ctx.done({where}, {step.name!r}, {{{values}}})")
            return
        if fields is None:
            self.scope.unknown("outcome (declared under outcomes:)", step.name, step.span,
                               list(schema.fields))
            fields = []
        parts: list[tuple[str, str]] = []  # (value's name, its code)
        given: dict[str, s.Assign] = {}
        for assign in step.values:
            if assign.name in given:
                self.scope.error(RuleTypeError, f"{assign.name} is given twice", assign.span)
            elif schema.declared and step.name in schema.fields and assign.name not in fields:
                self.scope.unknown(f"value of outcome {step.name}:", assign.name, assign.span,
                                   fields)
            given[assign.name] = assign
            code, t = self.expr(assign.value, env)
            schema.record(step.name, assign.name, t)
            parts.append((assign.name, code))
        for name in fields if schema.declared else ():  # inferred: what each step gives
            if name in given:
                continue
            if name not in env:  # filled from the value of the same name
                self.scope.error(RuleTypeError, f"outcome {step.name} carries {name}, but no "
                                 f"value called {name} is set here: set one or write "
                                 f"`with ({name} = …)`", step.span)
                continue
            code, t = self.expr(s.Name(name, step.span), env)
            schema.record(step.name, name, t)
            parts.append((name, code))
        # The values in the order the outcome declares them (as given, without a declaration).
        order = {name: i for i, name in enumerate(fields if schema.declared else ())}
        parts.sort(key=lambda part: order.get(part[0], len(order)))
        values = ", ".join(f"{name!r}: {code}" for name, code in parts)
        where = self.scope.span_ref(step.span)
        self.line(depth, f"return _ctx.done({where}, {step.name!r}, {{{values}}})")

    def visit_NamedStep(self, step: s.NamedStep, env: Env, depth: int) -> None:
        """`step NAME:` only names its steps (a place a house rule can change): they run here."""
        self.steps(step.body, env, depth)

    def visit_CallStep(self, step: s.CallStep, env: Env, depth: int) -> None:
        """`call save = saving_throw(defender)`: the callee runs in this run (same dice, trace
        and choices); its outcome is the value `save`."""
        callee = self.scope.procedures.get(step.procedure)
        if callee is None:
            self.scope.unknown("procedure", step.procedure, step.span, list(self.scope.procedures))
            self._bind(env, step.name, ANY, step.span)
            return
        params = self.scope.procedure_params.get(step.procedure)
        if params is None:  # not generated yet: a call cycle, reported by the build
            self._bind(env, step.name, ANY, step.span)
            return
        codes = self._arguments(step, callee, params, env)
        answers = self.answers(step, env)
        self.callee_choices(step.procedure)
        self.choices.extend(self.scope.procedure_choices.get(step.procedure, ()))
        var = self._bind(env, step.name, T("outcome", ref=step.procedure), step.span)
        where = self.scope.span_ref(step.span)
        args = "".join(c + ", " for c in codes)
        circle = ", circle=True" if step.procedure in self.circles else ""
        self.line(depth, f"{var} = _ctx.call({where}, {step.name!r}, {step.procedure!r}, "
                         f"p_{step.procedure}, ({args}){cost(callee.steps, 5)}{answers}{circle})")

    def _arguments(self, step: s.CallStep, callee: s.ProcedureDecl,
                   params: list[tuple[str, T]], env: Env) -> list[str]:
        names = [n for n, _ in params]
        given: dict[str, s.Expr] = {}
        if len(step.args) > len(names):
            self.scope.error(RuleTypeError, f"{step.procedure} takes {len(names)} argument(s) "
                             f"({', '.join(names)}), not {len(step.args)}", step.span)
        for pname, arg in zip(names, step.args):
            given[pname] = arg
        for pname, arg in step.named:
            if pname not in names:
                self.scope.unknown(f"parameter of {step.procedure}:", pname, arg.span, names)
            elif pname in given:
                self.scope.error(RuleTypeError, f"{step.procedure} is given {pname} twice",
                                 arg.span)
            else:
                given[pname] = arg
        defaults = {p.name: p.default for p in callee.params if p.default is not None}
        codes = []
        for pname, ptype in params:
            arg = given.get(pname, defaults.get(pname))
            if arg is None:
                self.scope.error(RuleTypeError, f"{step.procedure} needs {pname}", step.span)
                codes.append("None")
                continue
            code, t = self.expr(arg, env) if pname in given else self.emit.expr(arg, {})
            if pname not in given and t.kind == "none":
                codes.append(code)  # left to its `= none` (`called: location = none`)
                continue
            if not accepts(ptype, t):
                self.scope.error(RuleTypeError, f"{step.procedure}'s {pname} must be {ptype}, "
                                 f"not {t}", arg.span)
            self.emit.check_member(arg, t, ptype)
            if ptype.kind != "combatant":
                kind = ptype.kind if ptype.kind != "any" else "num"
                code = self.emit.cast(code, t, kind, arg)
                ref = self.scope.procedure_checks.get((step.procedure, pname))
                if ref is not None:
                    code = self._checked(ref, code)  # the callee's declared range
            codes.append(code)
        return codes

    def _checked(self, ref: str, code: str) -> str:
        """An argument checked against a callee's parameter: a literal the parameter takes as
        it is is checked here, once (`_check(PARAM_diving, False)` on every blow was work
        done at run time for an answer known now); a name of an enum, a whole number or a
        yes/no passes an inline test, so `_check` (which also reads other spellings) runs
        only when needed."""
        param = self.scope.constants[ref]
        vt = param.type
        if _takes_literal(param, code):
            return code
        if not code.isidentifier():
            return f"_check({ref}, {code})"
        if vt.kind == "enum" and vt.members is not None:
            fast = fast_check(code, ANY, None, None,
                              self.scope.constant("MEMBERS_", frozenset(vt.members)))
        elif vt.kind == "integer":
            fast = fast_check(code, INT, vt.low, vt.high, None)
        elif vt.kind == "bool":
            fast = f"type({code}) is bool"
        else:
            return f"_check({ref}, {code})"
        return f"({code} if {fast} else _check({ref}, {code}))"

    def visit_ForStep(self, step: s.ForStep, env: Env, depth: int) -> None:
        """`for each x in C:` over a list, a map's keys, an enum or a table's keys: bounded by
        the collection."""
        code, item = self._collection(step.collection, env)
        self.loops += 1
        where = self.scope.span_ref(step.span)
        before = set(self.unset)
        inner = dict(env)
        if step.var in env:
            self.scope.error(RuleTypeError, f"{step.var} is already a name here: the loop needs "
                             "a name of its own", step.span)
        inner[step.var] = (f"v_{step.var}", item)
        self.line(depth, f"for v_{step.var} in _ctx.each({where}, {step.var!r}, {code}"
                         f"{cost(step.body)}):")
        self.unset = set(before)
        self.steps(step.body, inner, depth + 1)
        if not step.body:
            self.line(depth + 1, "pass")
        inner.pop(step.var)
        # The body may run no times: what it binds is set on some paths only.
        self._merge(env, [(inner, self.unset), (dict(env), before)], step.span)

    def _collection(self, node: s.Expr, env: Env) -> tuple[str, T]:
        self._check_set(node, env)
        return self.emit.collection(node, env, "for each goes over")

    def visit_RepeatStep(self, step: s.RepeatStep, env: Env, depth: int) -> None:
        """`repeat until COND, at most N times:` — the body runs, then COND is tested; after N
        passes without COND the `at the cap:` block runs (or the run stops with an error)."""
        cap, ct = self.expr(step.cap, env)
        if ct.kind not in ("int", "any"):
            self.scope.error(RuleTypeError, f"the cap of a repeat is a whole number of passes, "
                             f"not {ct}", step.cap.span)
        self.loops += 1
        counter = f"_pass{self.loops}"
        where = self.scope.span_ref(step.span)
        capped = self.emit.cast(cap, ct, 'int', step.cap)
        self.line(depth, f"for {counter} in _ctx.passes({where}, {capped}{cost(step.body)}):")
        before = set(self.unset)
        self.unset = set(before)
        self.steps(step.body, env, depth + 1)  # the body runs at least once: what it sets is set
        test, _ = self.condition(step.until, env)
        self.line(depth + 1, f"if _ctx.until({where}, {self.text(step.until.span)!r}, {test}):")
        self.line(depth + 2, "break")
        self.line(depth, "else:")
        if step.at_cap is None:
            self.line(depth + 1, f"_ctx.capped({where}, {self.text(step.until.span)!r})")
            return
        cap_where = self.scope.span_ref(step.at_cap_span or step.span)
        self.trace_branch(depth + 1, cap_where, "at the cap")
        after_body = set(self.unset)
        arm = self._arm(step.at_cap, env, after_body, depth + 1)
        self._merge(env, [(dict(env), after_body), arm], step.span)


def _outcome_steps(steps: tuple[Any, ...]) -> list[s.OutcomeStep]:
    found: list[s.OutcomeStep] = []
    for step in steps:
        if isinstance(step, s.OutcomeStep):
            found.append(step)
        for block in _blocks(step):
            found += _outcome_steps(block)
    return found


_blocks = s.blocks  # the blocks nested in a step


def _bound_names(steps: tuple[Any, ...]) -> list[str]:
    """Every name a `roll`, `let` or `choose` binds, at any depth."""
    names: list[str] = []
    for step in steps:
        if isinstance(step, (s.RollStep, s.LetStep, s.ChooseStep, s.CallStep)):
            names.append(step.name)
        for block in _blocks(step):
            names.extend(_bound_names(block))
    return names


def _ends(steps: tuple[Any, ...]) -> bool:
    """Whether every path through these steps reaches an outcome."""
    if not steps:
        return False
    last = steps[-1]
    if isinstance(last, s.OutcomeStep):
        return True
    if isinstance(last, s.IfStep):
        return last.otherwise is not None and _ends(last.otherwise) and all(
            _ends(b.body) for b in last.branches)
    if isinstance(last, s.NamedStep):
        return _ends(last.body)
    if isinstance(last, s.EncounterLoop):
        return True  # it ends in ended, capped or idle
    return any(isinstance(st, s.OutcomeStep) for st in steps)


def _plain_keyword(name: str) -> bool:
    """Whether a rule's parameter can be a keyword parameter of `pub_NAME` without hiding a
    name its body uses (a builtin such as `type`, a generated global such as `NUM_2_5`, a
    function `f_…`); other names reach it through `**_names`."""
    return (name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")
            and name not in _BUILTIN_NAMES and not _GENERATED.match(name)
            and not name.startswith(("f_", "pub_", "p_", "cell_", "v_", "derive")))


_BUILTIN_NAMES = frozenset(dir(builtins))
_GENERATED = re.compile(r"^[A-Z]+(_|$)")  # NUM_…, DICE_…, T_…, COL_…: generated globals


def _takes_literal(param: Any, code: str) -> bool:
    """Whether `code` is a literal (a whole number, yes/no or text) that the parameter takes
    unchanged, as `_check` would find at run time: then no check is left to run."""
    try:
        value = ast.literal_eval(code)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    if type(value) not in (int, bool, str):
        return False
    try:
        checked = check_value(param.name, param.type, value, param.span, None)
    except RulecraftError:
        return False  # refused at run time, as it always was
    return type(checked) is type(value) and checked == value


def fast_check(name: str, t: T, low: Any, high: Any, members_ref: str | None) -> str:
    """An inline test that passes for well-formed arguments, so `_check` runs only when needed."""
    if t == INT:
        bounds = f" and {low!r} <= {name} <= {high!r}" if low is not None else ""
        return f"type({name}) is int{bounds}"
    if t == NUM:
        bounds = f" and {low} <= {name} <= {high}" if low is not None else ""
        return f"(type({name}) is int or type({name}) is _Decimal and {name}.is_finite()){bounds}"
    if members_ref is not None:
        return f"type({name}) is str and {name} in {members_ref}"
    return "False"


__all__ = ["Writer", "NUM", "fast_check"]
