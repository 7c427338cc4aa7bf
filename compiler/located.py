"""Conditions held at a location, read in expressions: `has(f, "Shock", on="Head")` and
`remaining(f, "Shock", on="Head")` (runtime/located.py keeps them); without `on=`, `has` asks
whether the condition is held at any location, or with none."""

from __future__ import annotations

from typing import Any

from rulecraft.dsl import syntax as s

from .expressions import Env
from .types import BOOL, NUM


def located_call(emitter: Any, node: s.Call, env: Env) -> tuple[str, Any]:
    """`has(party, condition, on=location)` / `remaining(…, on=…)`."""
    if len(node.args) != 2 or [n for n, _ in node.named] != ["on"]:
        return emitter._bad(f"{node.name} takes a party, a condition and `on=` a location: "
                            f"{node.name}(f, \"Shock\", on=\"Head\")", node)
    (who, wt), (cond, ct) = (emitter.present(*emitter.expr(a, env), a) for a in node.args)
    loc_node = node.named[0][1]
    loc, lt = emitter.present(*emitter.expr(loc_node, env), loc_node)
    if wt.kind not in ("combatant", "any"):
        return emitter._bad(f"{node.name}(party, condition) asks of a combatant, not {wt}",
                            node.args[0])
    if ct.kind not in ("name", "any"):
        return emitter._bad(f"a condition is named (\"Stunned\"), not {ct}", node.args[1])
    if lt.kind not in ("name", "any"):
        return emitter._bad(f"a location is named (\"Head\"), not {lt}", loc_node)
    kind = BOOL if node.name == "has" else NUM.or_none()
    return f"_ctx.{node.name}({who}, _Located({cond}, {loc}))", kind


__all__ = ["located_call"]
