"""`has_entry(TABLE[keys])`: whether a table holds an entry at keys — a range band a value
falls in, a row a name has — so a rule asks before it looks up where the book prints nothing
(Ringing Steel's Missiles Table: a knife has no range band past 30 hexes)."""

from __future__ import annotations

from typing import Any

from rulecraft.dsl import syntax as s

from .types import T

BOOL = T("bool")


def has_entry_call(emitter: Any, node: s.Call, env: Any) -> tuple[str, T] | None:
    """The call compiled, its lookup's keys checked as any lookup's; None when not one."""
    if node.name != "has_entry":
        return None
    arg = node.args[0] if len(node.args) == 1 and not node.named else None
    table = arg.value.name if isinstance(arg, s.Index) and isinstance(arg.value, s.Name) \
        else None
    if table is None or table in env or table not in emitter.scope.tables:
        return emitter._bad("has_entry asks a table lookup written out: "
                            "`has_entry(missile_ranges[weapon, distance])`", node)
    code, _ = emitter.expr(arg.value, env)
    look = emitter._table_lookup(arg, code, emitter.scope.tables[table], env)
    if look is None:
        return "False", BOOL
    return f"_has_entry({look.table}, {look.keys()})", BOOL
