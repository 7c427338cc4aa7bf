"""Back end 1, many fighters on sides: an encounter's sides and the built-ins that read them.

An encounter's sides are its fighter parameters: each parameter typed a combatant or a list of
combatants is one side, named by the parameter (`(heroes: list fighter, foes: list fighter)`).
`party` is every fighter of the encounter; `side(f)`, `foes(f)`, `allies(f)`, `standing(f)`,
`sides_standing()` and `target(f)` read the fight; `aim f at foe` keeps a fighter's target;
`ends when one side standing` is `sides_standing() <= 1`. A party of an encounter whose
fighters are of several models (a rider and a horse) is typed as any of them (`a rider or
horse`): it reads only the fields they share, until `if p is horse:` narrows it.
"""

from __future__ import annotations

from typing import Any

import attrs

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError

from .types import BOOL, INT, T, Domain

# The built-in functions of an encounter's sides (a formula of the same name comes first).
SIDE_BUILTINS = ("side", "foes", "allies", "standing", "sides_standing", "target")
UNION = " or "  # how the models a party may be are joined in its type's `ref`


@attrs.frozen
class Sides:
    """The sides of the encounter being compiled: their names, and what one fighter is."""

    names: tuple[str, ...]
    party: T  # one fighter: of the one model, or of any of the encounter's models


def side_groups(decl: s.ProcedureDecl) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """An encounter's `sides:` line as the runtime keeps it: each side's name (its parameters
    joined by `and`) and its parameters."""
    return tuple((" and ".join(group), group) for group in decl.sides)


def declare(writer: Any, decl: s.ProcedureDecl, env: dict[str, Any]) -> Sides | None:
    """`_sides` before an encounter's first step: its fighter parameters, side by side (as
    its `sides:` line groups them, else one a side); and `party`, every fighter, unless a
    parameter has that name."""
    fighters: dict[str, str] = {}  # each fighter parameter -> the code of its fighters
    models: list[str] = []
    for param in decl.params:
        code, t = env.get(param.name, (None, None))
        if t is None:
            continue
        one = t.item if t.kind == "list" and t.item is not None else t
        if one.kind != "combatant":
            continue
        fighters[param.name] = f"tuple({code})" if t.kind == "list" else f"({code},)"
        models += (one.ref or "").split(UNION)
    groups = _checked_groups(writer, decl, fighters)
    if not groups:
        return None
    models = [m for m in dict.fromkeys(models) if m]
    party = T("combatant", ref=UNION.join(models) or None)
    code = ", ".join(f"({name!r}, " + (" + ".join(fighters[p] for p in params) or "()") + ")"
                     for name, params in groups)
    writer.line(1, f"_sides = _Sides(_sched, ({code},))")
    if "party" not in env:
        env["party"] = ("_sides.party", T("list", item=party))
    return Sides(tuple(name for name, _ in groups), party)


def _checked_groups(writer: Any, decl: s.ProcedureDecl, fighters: dict[str, str]
                    ) -> list[tuple[str, tuple[str, ...]]]:
    """The sides: each fighter parameter on its own, or as the `sides:` line says — where
    every name is a fighter parameter, and every fighter parameter is on one side."""
    if not decl.sides:
        return [(name, (name,)) for name in fighters]
    span = decl.sides_span or decl.span
    named = [p for group in decl.sides for p in group]
    spans = decl.side_spans or (span,) * len(named)
    seen: set[str] = set()
    for name, where in zip(named, spans):
        if name not in fighters:
            writer.scope.unknown("fighter parameter", name, where, list(fighters))
        elif name in seen:
            writer.scope.error(RuleTypeError, f"{name} is on more than one side", where)
        seen.add(name)
    for name in fighters:
        if name not in named:
            writer.scope.error(RuleTypeError, f"the fighter parameter {name} is on no side: "
                               "name it in the `sides:` line", span)
    return [(name, tuple(p for p in group if p in fighters))
            for name, group in side_groups(decl)]


def call(emitter: Any, node: s.Call, args: list[tuple[str, T]]) -> tuple[str, T]:
    """`side(f)`, `foes(f)`, `allies(f)`, `standing(f)`, `sides_standing()`, `target(f)`."""
    name = node.name
    sides: Sides | None = getattr(emitter, "sides", None)
    if sides is None:
        return emitter._bad(f"{name}(…) reads the sides of a fight: it belongs in an encounter "
                            "whose parameters are its fighters (a procedure is handed the "
                            "fighters it needs)", node)
    wanted = 0 if name == "sides_standing" else 1
    if len(args) != wanted or node.named:
        shown = f"{name}()" if wanted == 0 else f"{name}(fighter)"
        return emitter._bad(f"{name} takes {'no arguments' if wanted == 0 else 'one fighter'}: "
                            f"{shown}", node)
    if name == "sides_standing":
        return "_sides.standing_sides()", INT
    (who, wt), = args
    if wt.kind not in ("combatant", "any"):
        return emitter._bad(f"{name}(fighter) asks of a combatant, not {wt}", node.args[0])
    where = emitter.scope.span_ref(node.span)
    if name == "side":
        return f"_sides.side({who}, {where})", T("name", domain=Domain("side", sides.names))
    if name in ("foes", "allies"):
        return f"_sides.{name}({who}, {where})", T("list", item=sides.party)
    if name == "standing":
        return f"_sides.standing({who})", BOOL
    return f"_sides.target({who})", sides.party.or_none()


def aim(writer: Any, step: s.ScheduleStep, env: dict[str, Any], depth: int) -> None:
    """`aim f at foe`: f's target, kept by the encounter (`target(f)`; `aim f at none`
    clears it) and shown in the fight log."""
    party = env.get(step.party)
    if party is None or party[1].kind != "combatant":
        writer.scope.unknown("party", step.party, step.span,
                             [n for n, (_, t) in env.items() if t.kind == "combatant"])
        return
    if writer.encounter is None or writer.emit.sides is None:
        writer.scope.error(RuleTypeError, "aim keeps a fighter's target in a fight: it belongs "
                           "in an encounter whose parameters are its fighters", step.span)
        return
    code, t = writer.expr(step.value, env)
    if t.kind not in ("combatant", "none", "any"):
        writer.scope.error(RuleTypeError, f"{step.party} aims at a fighter, not {t}",
                           step.value.span)
    where = writer.scope.span_ref(step.span)
    writer.line(depth, f"_sides.aim({where}, {step.party!r}, {party[0]}, {code})")


def is_model(emitter: Any, node: s.Binary, left: str, lt: T) -> tuple[str, T]:
    """`p is horse`: whether a party is of that combatant model."""
    model = node.right.name if isinstance(node.right, s.Name) else ""
    known = list(emitter.scope.model_fields)
    if model not in known:
        emitter.scope.unknown("combatant model", model, node.right.span, known)
        return "False", BOOL
    if lt.kind not in ("combatant", "any"):
        return emitter._bad(f"`is {model}` asks which model a combatant is; this is {lt}",
                            node.left)
    if lt.kind == "combatant" and lt.ref and model not in lt.ref.split(UNION):
        return emitter._bad(f"{emitter.scope.text(node.left.span)} is {lt}: never a {model}",
                            node)
    return f"_is_model({left}, {model!r})", BOOL


def common_fields(model_fields: dict[str, dict[str, T]], ref: str) -> dict[str, T]:
    """The fields every model of `a rider or horse` has, of one type: what it may read."""
    each = [model_fields.get(m, {}) for m in ref.split(UNION)]
    return {name: t for name, t in each[0].items() if all(o.get(name) == t for o in each[1:])}


def union_field(emitter: Any, node: s.Attr, t: T) -> bool:
    """A field only some of a party's models have: say how to narrow it (reported: True)."""
    if not t.ref or UNION not in t.ref:
        return False
    having = [m for m in t.ref.split(UNION) if node.name in emitter.scope.model_fields.get(m, {})]
    if not having:
        return False
    who = emitter.scope.text(node.value.span)
    emitter.scope.error(RuleTypeError, f"{who} may be {_any_of(t.ref)}, and only "
                        f"{' or '.join(_a(m) for m in having)} has {node.name}: ask first "
                        f"(`if {who} is {having[0]}:`)", node.span)
    return True


def narrowed(env: dict[str, Any], test: Any, holds: bool) -> tuple[dict[str, Any], str | None]:
    """The names a branch reads as one model: `if p is horse:` (holds) reads p as a horse,
    its `else:` as the models left. Returns the env and the name narrowed (or None)."""
    if not (isinstance(test, s.Binary) and test.op == "is" and isinstance(test.left, s.Name)
            and isinstance(test.right, s.Name)):
        return env, None
    name, model = test.left.name, test.right.name
    found = env.get(name)
    if found is None or found[1].kind != "combatant" or not found[1].ref:
        return env, None
    models = found[1].ref.split(UNION)
    if model not in models:
        return env, None
    left = [model] if holds else [m for m in models if m != model]
    if not left:
        return env, None
    narrow = dict(env)
    narrow[name] = (found[0], attrs.evolve(found[1], ref=UNION.join(left)))
    return narrow, name


def _a(model: str) -> str:
    return f"{'an' if model[:1] in 'aeiou' else 'a'} {model}"


def _any_of(ref: str) -> str:
    return " or ".join(_a(m) for m in ref.split(UNION))


__all__ = ["SIDE_BUILTINS", "Sides", "aim", "call", "common_fields", "declare", "is_model",
           "narrowed", "union_field"]
