"""Back end 1, the referee and what parties know (a Writer mixin).

The referee is a party every procedure has without a parameter: `choose dc by referee from
12..18 default 15` is answered as any choice is (policy, script, default, a chooser), and
`ruling "…"` records a call the rules leave to people; `outcome by referee "…"` ends in one.
What a party knows when it chooses: `seeing a, b` bounds what a policy answering the choice
may read, and a choice made `in secret` stays hidden from other parties' choices until
`reveal`. A caller may answer its callee's choices (`call … choosing manner = "…"`), and a
standing constraint (`while "Stunned", defence may only be "Parry"`) narrows a party's options
while it is under a condition.
"""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError

from .expressions import Env
from .order import names_used
from .types import T, accepts

REFEREE = "referee"  # the built-in party: the game master


@attrs.frozen
class ChoiceInfo:
    """What a `choose` offers, for a caller that answers it (`choosing`)."""

    item: T  # the type of its options
    written: tuple[str, ...] | None  # its options, when written out as texts
    party: str


class RefereeSteps:
    """Rulings, referee choices, secrets and `seeing`, callers' answers, standing constraints."""

    # Choices made in secret on the way to this step and not revealed: name -> its party
    # (each procedure starts with a dict of its own: `start_referee`).
    secrets: dict[str, str] = {}

    def start_referee(self: Any, decl: s.ProcedureDecl) -> None:
        self.secrets = {}
        self.scope.choice_info[decl.name] = {}

    # -- who chooses -----------------------------------------------------------------------
    def choosing_party(self: Any, step: s.ChooseStep, env: Env) -> str | None:
        """The code of the party choosing: a combatant's handle, or None for the referee."""
        party = env.get(step.party)
        if party is not None and party[1].kind == "combatant":
            return party[0]
        if step.party == REFEREE and party is None:
            return None
        self.scope.unknown("party (a combatant, or the referee)", step.party, step.span,
                           [n for n, (_, t) in env.items() if t.kind == "combatant"] + [REFEREE])
        return None

    def record_choice(self: Any, step: s.ChooseStep, item: T) -> None:
        options = step.options
        written = tuple(o.value for o in options.items) if isinstance(options, s.ListLit) and \
            all(isinstance(o, s.String) for o in options.items) else None
        self.scope.choice_info[self.schema.procedure].setdefault(
            step.name, ChoiceInfo(item, written, step.party))

    # -- what a party knows ----------------------------------------------------------------
    def knowledge(self: Any, step: s.ChooseStep, env: Env) -> str:
        """The `seeing` and `secret` arguments of the run context's `choose`, checked: a seen
        value is one set here, and no other party's secret."""
        for name in step.seeing or ():
            if name not in env:
                self.scope.unknown(f"value ({step.party} chooses {step.name} seeing values set "
                                   "before it)", name, step.span, list(env))
            self._not_secret(step, name, step.span, f"{step.party} cannot see it")
        self.check_secrets(step, step.default, "its default")
        extra = ""
        if step.seeing is not None:
            extra += f", seeing={tuple(step.seeing)!r}"
        if step.secret:
            extra += ", secret=True"
        return extra

    def check_secrets(self: Any, step: s.ChooseStep, node: s.Expr, what: str) -> None:
        for name, used in names_used(node, calls=False):
            self._not_secret(step, name, used.span, f"{what} cannot read it")

    def _not_secret(self: Any, step: s.ChooseStep, name: str, span: Any, why: str) -> None:
        owner = self.secrets.get(name)
        if owner is not None and owner != step.party:
            self.scope.error(RuleTypeError, f"{name} is chosen in secret by {owner} and not "
                             f"yet revealed when {step.party} chooses {step.name}: {why} "
                             f"(write `reveal {name}` before this step)", span)

    def check_seen(self: Any, step: s.ChooseStep, policy: str, value: s.Expr, env: Env) -> None:
        """A policy answering a choice made `seeing …` reads only those values (and parties)."""
        self.check_secrets(step, value, f"policy {policy}")
        if step.seeing is None:
            return
        local = {a.var for a in _aggregates(value)}
        for name, used in names_used(value, calls=False):
            if name in env and name not in step.seeing and name not in local and \
                    env[name][1].kind != "combatant":
                seen = ", ".join(step.seeing) or "no values"
                self.scope.error(RuleTypeError, f"policy {policy} reads {name}, which "
                                 f"{step.party} does not see when choosing {step.name} (it "
                                 f"sees {seen})", used.span)

    def visit_RevealStep(self: Any, step: s.RevealStep, env: Env, depth: int) -> None:
        where = self.scope.span_ref(step.span)
        for name in step.names:
            if name not in self.secrets:
                self.scope.error(RuleTypeError, f"reveal {name}: no choice called {name} is "
                                 "made in secret before this step (`choose NAME by PARTY in "
                                 "secret from …`)", step.span)
                continue
            del self.secrets[name]
            self.line(depth, f"_ctx.reveal({where}, {name!r}, {env[name][0]})")

    # -- the referee's calls ---------------------------------------------------------------
    def visit_RulingStep(self: Any, step: s.RulingStep, env: Env, depth: int) -> None:
        self.ruling(step.text, step.span, depth)

    def ruling(self: Any, text: str, span: Any, depth: int) -> None:
        if not text.strip():
            self.scope.error(RuleTypeError, "a ruling says what the referee decides: write it "
                             'in the quotes (`ruling "GM determines effects"`)', span)
        where = self.scope.span_ref(span)
        self.line(depth, f"_ctx.ruling({where}, {REFEREE!r}, {text!r})")

    # -- a caller answering its callee's choices -------------------------------------------
    def answers(self: Any, step: s.CallStep, env: Env) -> str:
        """The `answers=` argument of `_ctx.call`: each choice the caller makes for its callee,
        checked against the callee's choices (its own and those of what it calls) and their
        options."""
        if not step.choosing:
            return ""
        known = self.scope.choice_info.get(step.procedure, {})
        parts = []
        seen: set[str] = set()
        for assign in step.choosing:
            info = known.get(assign.name)
            code, t = self.expr(assign.value, env)
            if assign.name in seen:
                self.scope.error(RuleTypeError, f"{assign.name} is answered twice", assign.span)
            seen.add(assign.name)
            if info is None:
                self.scope.unknown(f"choice of {step.procedure} (a caller answers the `choose` "
                                   "steps its callee makes):", assign.name, assign.span,
                                   list(known))
                continue
            if not accepts(info.item, t):
                self.scope.error(RuleTypeError, f"{info.party} chooses {assign.name} from "
                                 f"{info.item}, not {t}", assign.value.span)
            self.emit.check_member(assign.value, t, info.item)
            if info.written is not None and isinstance(assign.value, s.String) and \
                    assign.value.value not in info.written:
                self.scope.unknown(f"option of {assign.name}:", assign.value.value,
                                   assign.value.span, list(info.written))
            if info.item.kind != "any":
                code = self.emit.cast(code, t, info.item.kind, assign.value)
            parts.append(f"{assign.name!r}: {code}")
        return f", answers={{{', '.join(parts)}}}"

    def callee_choices(self: Any, procedure: str) -> None:
        """A callee's choices are the caller's too: its own caller may answer them."""
        mine = self.scope.choice_info[self.schema.procedure]
        for name, info in self.scope.choice_info.get(procedure, {}).items():
            mine.setdefault(name, info)

    # -- standing constraints --------------------------------------------------------------
    def standing(self: Any, step: s.ChooseStep, item: T, who: str | None) -> str:
        """The `standing=` argument of `_ctx.choose`: the constraints on this choice, each with
        its condition and options, checked against the choice's options."""
        rules = [d for d in self.scope.standing if d.choice == step.name]
        if not rules:
            return ""
        if who is None:
            for d in rules:
                self.scope.error(RuleTypeError, f"{step.name} is chosen by the referee, who is "
                                 "under no condition: a standing constraint binds a combatant's "
                                 f"choices (line {step.span.line})", d.span)
            return ""
        parts, written = [], []
        for d in rules:
            code, t = self.emit.expr(d.options, {})
            named = t.item if t.kind == "list" and t.item else t
            if not accepts(item, named):
                self.scope.error(RuleTypeError, f"{step.name} is chosen from {item}, not "
                                 f"{named}", d.options.span)
            if t.kind == "list":
                for o in d.options.items if isinstance(d.options, s.ListLit) else ():
                    self.emit.check_member(o, named, item)
            else:
                self.emit.check_member(d.options, t, item)
                code = f"({code},)"
            where = self.scope.span_ref(d.span)
            parts.append(f"({d.condition!r}, tuple({code}), {d.mode!r}, {where})")
            options = _written_out(d.options)
            if options is not None:
                written.append((d.condition, options, d.mode, self.scope.constants[where]))
        if len(written) == len(rules):  # all written out: made once, a module constant
            held = self.scope.constant(f"STANDING_{step.name}_", tuple(written))
            return f", standing=({who}, {held})"
        return f", standing=({who}, ({''.join(p + ', ' for p in parts)}))"


def _aggregates(node: Any) -> list[Any]:
    found = []
    if isinstance(node, s.Aggregate):
        found.append(node)
    if attrs.has(type(node)):
        for f in attrs.fields(type(node)):
            value = getattr(node, f.name)
            for item in value if isinstance(value, tuple) else (value,):
                if attrs.has(type(item)) and f.name != "span":
                    found += _aggregates(item)
    return found


def check_standing(scope: Any, choices: dict[str, tuple[str, ...]]) -> None:
    """Every standing constraint names a choice some procedure makes, and a condition of the
    rulebook's `condition` enum when it has one."""
    known = sorted({c for names in choices.values() for c in names})
    conditions = scope.enums.get("condition")
    for d in scope.standing:
        if d.choice not in known:
            scope.unknown("choice (a standing constraint binds the `choose` steps of "
                          "procedures):", d.choice, d.span, known)
        if conditions is not None and d.condition not in conditions.members:
            scope.unknown("condition", d.condition, d.span, list(conditions.members))


def _written_out(options: s.Expr) -> tuple[str, ...] | None:
    """A standing constraint's options when the rule writes them out (`may only be "Parry"`,
    `may not be ["Parry", "Active Dodge"]`); None for any other expression."""
    if isinstance(options, s.String):
        return (options.value,)
    if isinstance(options, s.ListLit) and all(isinstance(o, s.String) for o in options.items):
        return tuple(o.value for o in options.items)
    return None


__all__ = ["REFEREE", "ChoiceInfo", "RefereeSteps", "check_standing"]
