"""Values written out whole in a rule: a map (`{"Sword": 5, "Shield": 4}`) and a combatant
(`fighter(strength = 12, dexterity = 12, training = {"Sword": 5}, …)`), which worked examples
need to set up the fighters the book's examples describe."""

from __future__ import annotations

import difflib
from typing import Any

from rulecraft.dsl import syntax as s
from rulecraft.runtime.errors import RuleTypeError

from .types import ANY, T, join

Env = dict[str, tuple[str, T]]


def visit_map(em: Any, node: Any, env: Env) -> tuple[str, T]:
    """A map written out: its keys of one kind, its values of one kind."""
    key: T | None = None
    item: T | None = None
    parts = []
    for k, v in node.pairs:
        kc, kt = em.expr(k, env)
        vc, vt = em.expr(v, env)
        key = kt if key is None else (join(key, kt) or _mixed(em, "keys", key, kt, k))
        item = vt if item is None else (join(item, vt) or _mixed(em, "values", item, vt, v))
        parts.append(f"{kc}: {vc}")
    return "{" + ", ".join(parts) + "}", T("map", key=key or ANY, item=item or ANY)


def _mixed(em: Any, what: str, before: T, now: T, node: Any) -> T:
    em.scope.error(RuleTypeError, f"a map's {what} are of one kind: this is {now}, those before "
                   f"it {before}", node.span)
    return before


def combatant_literal(em: Any, node: s.Call, env: Env) -> tuple[str, T]:
    """A combatant of a model, from its characteristics and state by name; checked like a
    fighter file when the rule runs (ranges, enums), its names when it compiles."""
    if not getattr(em, "in_steps", False):
        em.scope.error(RuleTypeError, f"a {node.name} is written out whole only in the steps of a "
                       "procedure or an example (a formula, a figure or a table reads "
                       "combatants it is given)", node.span)
        return "None", T("combatant", ref=node.name)
    model = em.scope.models[node.name]
    given = {f.name for f in model.fields if f.role != "derived"}
    values = []
    for name, value in node.named:
        if name not in given:
            close = difflib.get_close_matches(name, sorted(given), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            em.scope.error(RuleTypeError, f"a {node.name} has no characteristic or state called "
                           f"{name!r}{hint}", value.span)
            continue
        code, _ = em.expr(value, env)
        values.append(f"{name!r}: {code}")
    where = em.scope.span_ref(node.span)
    return (f"_ctx.adopt(_combatant(_MODELS, {node.name!r}, {{{', '.join(values)}}}, {where}))",
            T("combatant", ref=node.name))
